//! Runs work on hostile input in a forked child process, so that a panic, an
//! abort, an endless loop or a memory blow-up ends the child and never the
//! service. The release profile aborts on panic, so `catch_unwind` alone would
//! not help.
//!
//! The child (a fork without exec: pure Rust work only, no logging, no locks
//! another thread may hold) closes every inherited descriptor but its two
//! pipes, caps its CPU time (`RLIMIT_CPU`), its address space (`RLIMIT_AS`,
//! relative to the size it inherits) and core dumps, runs the work, writes the
//! result to one pipe and `_exit`s; its stderr goes to the other pipe, so
//! panic and allocation-failure messages reach the parent, not the logs. The
//! parent reads both pipes with a wall-clock deadline and SIGKILLs the child
//! when it passes, so even a child stuck on a lock inherited from another
//! thread ends in time. Blocking: call it from a blocking thread.

use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

/// The bounds of one child.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Wall-clock time before the child is killed.
    pub wall: Duration,
    /// CPU time (`RLIMIT_CPU`), in seconds.
    pub cpu_seconds: u64,
    /// Address space the child may add to what it inherits, in bytes.
    pub memory: u64,
    /// The largest result the parent accepts, in bytes.
    pub max_output: usize,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SandboxError {
    #[error("the work did not finish within {0:?}")]
    TimedOut(Duration),
    #[error("the work needed more than {0} bytes of memory")]
    OutOfMemory(u64),
    #[error("the work's result is larger than {0} bytes")]
    OutputTooLarge(usize),
    #[error("the work crashed: {0}")]
    Crashed(String),
    #[error("no child process could be started: {0}")]
    Spawn(String),
}

/// How much of the child's stderr the parent keeps for its error message.
const STDERR_KEPT: usize = 4096;
/// Exit code of a child whose work panicked (when panics unwind).
const PANICKED: i32 = 101;

/// Runs `work` in a child process within `limits` and returns its result.
pub fn run_isolated<F: FnOnce() -> Vec<u8>>(
    limits: &Limits,
    work: F,
) -> Result<Vec<u8>, SandboxError> {
    let (out_read, out_write) = pipe()?;
    let (err_read, err_write) = pipe()?;
    // SAFETY: the child only runs `child`, which never returns.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(SandboxError::Spawn(
            std::io::Error::last_os_error().to_string(),
        ));
    }
    if pid == 0 {
        child(out_write.as_raw_fd(), err_write.as_raw_fd(), limits, work);
    }
    drop((out_write, err_write));
    let collected = collect(out_read, err_read, limits);
    let status = match &collected {
        Ok(_) => wait_until(pid, Instant::now() + limits.wall),
        Err(_) => Some(kill(pid)),
    };
    let (output, stderr) = collected?;
    let status = status.ok_or(SandboxError::TimedOut(limits.wall))?;
    verdict(status, output, &stderr, limits)
}

fn pipe() -> Result<(OwnedFd, OwnedFd), SandboxError> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(SandboxError::Spawn(
            std::io::Error::last_os_error().to_string(),
        ));
    }
    // SAFETY: both descriptors were just opened and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

fn child<F: FnOnce() -> Vec<u8>>(out: RawFd, err: RawFd, limits: &Limits, work: F) -> ! {
    // SAFETY: plain system calls on descriptors this process owns; the child
    // ends with `_exit`, so no destructor or atexit handler of the parent runs.
    unsafe {
        libc::dup2(err, 2);
        let out = if out == 3 { out } else { libc::dup2(out, 3) };
        libc::syscall(libc::SYS_close_range, 4u32, u32::MAX, 0u32);
        if out != 3 {
            libc::_exit(3);
        }
        set_limit(libc::RLIMIT_CORE, 0, 0);
        set_limit(
            libc::RLIMIT_CPU,
            limits.cpu_seconds,
            limits.cpu_seconds.saturating_add(1),
        );
        let memory = inherited_address_space().saturating_add(limits.memory);
        set_limit(libc::RLIMIT_AS, memory, memory);
        let code = match catch_unwind(AssertUnwindSafe(work)) {
            Ok(result) if write_all(3, &result) => 0,
            Ok(_) => 1,
            Err(payload) => {
                let message = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                write_all(2, format!("panicked: {message}\n").as_bytes());
                PANICKED
            }
        };
        libc::_exit(code)
    }
}

fn set_limit(resource: libc::__rlimit_resource_t, soft: u64, hard: u64) {
    let limit = libc::rlimit {
        rlim_cur: soft,
        rlim_max: hard,
    };
    // SAFETY: `limit` is a valid rlimit for the duration of the call.
    unsafe { libc::setrlimit(resource, &limit) };
}

/// The process's current virtual size (VmSize), from /proc/self/statm.
fn inherited_address_space() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as u64;
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(0, |pages| pages * page)
}

fn write_all(fd: RawFd, mut bytes: &[u8]) -> bool {
    while !bytes.is_empty() {
        // SAFETY: `bytes` is a valid buffer of the given length.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return false;
        }
        bytes = &bytes[n as usize..];
    }
    true
}

/// Reads the result and stderr pipes until both close, within the deadline.
fn collect(
    out: OwnedFd,
    err: OwnedFd,
    limits: &Limits,
) -> Result<(Vec<u8>, Vec<u8>), SandboxError> {
    let deadline = Instant::now() + limits.wall;
    let mut output = Vec::new();
    let mut stderr = Vec::new();
    let mut streams = [
        Some(std::fs::File::from(out)),
        Some(std::fs::File::from(err)),
    ];
    let mut buf = vec![0u8; 64 * 1024];
    while streams.iter().any(Option::is_some) {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(SandboxError::TimedOut(limits.wall));
        }
        let mut polls: Vec<libc::pollfd> = streams
            .iter()
            .map(|s| libc::pollfd {
                fd: s.as_ref().map_or(-1, |f| f.as_raw_fd()),
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        let millis = left.as_millis().clamp(1, i32::MAX as u128) as i32;
        // SAFETY: `polls` holds `polls.len()` initialised pollfd entries.
        if unsafe { libc::poll(polls.as_mut_ptr(), polls.len() as libc::nfds_t, millis) } < 0 {
            continue;
        }
        for (i, poll) in polls.iter().enumerate() {
            if poll.revents == 0 {
                continue;
            }
            let Some(stream) = streams[i].as_mut() else {
                continue;
            };
            match stream.read(&mut buf) {
                Ok(0) => streams[i] = None,
                Ok(n) if i == 0 => {
                    output.extend_from_slice(&buf[..n]);
                    if output.len() > limits.max_output {
                        return Err(SandboxError::OutputTooLarge(limits.max_output));
                    }
                }
                Ok(n) => {
                    let room = STDERR_KEPT.saturating_sub(stderr.len());
                    stderr.extend_from_slice(&buf[..n.min(room)]);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => streams[i] = None,
            }
        }
    }
    Ok((output, stderr))
}

/// Reaps the child, killing it if it has not exited by `deadline`; `None`
/// when it had to be killed.
fn wait_until(pid: libc::pid_t, deadline: Instant) -> Option<libc::c_int> {
    loop {
        let mut status = 0;
        // SAFETY: `status` is a valid out-pointer; `pid` is our child.
        if unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) } == pid {
            return Some(status);
        }
        if Instant::now() >= deadline {
            kill(pid);
            return None;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn kill(pid: libc::pid_t) -> libc::c_int {
    let mut status = 0;
    // SAFETY: `pid` is our unreaped child, so the id cannot have been reused.
    unsafe {
        libc::kill(pid, libc::SIGKILL);
        while libc::waitpid(pid, &mut status, 0) < 0
            && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
        {}
    }
    status
}

fn verdict(
    status: libc::c_int,
    output: Vec<u8>,
    stderr: &[u8],
    limits: &Limits,
) -> Result<Vec<u8>, SandboxError> {
    let stderr = String::from_utf8_lossy(stderr);
    if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
        Ok(output)
    } else if stderr.contains("memory allocation of") {
        Err(SandboxError::OutOfMemory(limits.memory))
    } else if libc::WIFSIGNALED(status) && libc::WTERMSIG(status) == libc::SIGXCPU {
        Err(SandboxError::TimedOut(Duration::from_secs(
            limits.cpu_seconds,
        )))
    } else {
        let how = if libc::WIFSIGNALED(status) {
            format!("signal {}", libc::WTERMSIG(status))
        } else {
            format!("exit code {}", libc::WEXITSTATUS(status))
        };
        let said: String = stderr.split_whitespace().collect::<Vec<_>>().join(" ");
        let said: String = said.chars().take(300).collect();
        Err(SandboxError::Crashed(if said.is_empty() {
            how
        } else {
            format!("{how}: {said}")
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits {
            wall: Duration::from_secs(5),
            cpu_seconds: 4,
            memory: 256 << 20,
            max_output: 1 << 20,
        }
    }

    #[test]
    fn the_result_comes_back() {
        let input = vec![7u8; 200_000];
        let out = run_isolated(&limits(), move || input.iter().map(|b| b + 1).collect()).unwrap();
        assert_eq!(out, vec![8u8; 200_000]);
    }

    #[test]
    fn a_panic_is_a_crash_with_its_message() {
        let err = run_isolated(&limits(), || panic!("bad xref")).unwrap_err();
        assert!(
            matches!(&err, SandboxError::Crashed(m) if m.contains("bad xref")),
            "{err:?}"
        );
    }

    #[test]
    fn an_abort_is_a_crash() {
        let err = run_isolated(&limits(), || std::process::abort()).unwrap_err();
        assert_eq!(
            err,
            SandboxError::Crashed(format!("signal {}", libc::SIGABRT))
        );
    }

    #[test]
    fn an_endless_loop_is_killed_at_the_deadline() {
        let started = Instant::now();
        let short = Limits {
            wall: Duration::from_millis(500),
            ..limits()
        };
        let err = run_isolated(&short, || {
            loop {
                std::hint::black_box(0u64);
            }
        })
        .unwrap_err();
        assert_eq!(err, SandboxError::TimedOut(short.wall));
        assert!(started.elapsed() < Duration::from_secs(3));
    }

    #[test]
    fn cpu_time_is_capped() {
        let tight = Limits {
            wall: Duration::from_secs(10),
            cpu_seconds: 1,
            ..limits()
        };
        let err = run_isolated(&tight, || {
            loop {
                std::hint::black_box(0u64);
            }
        })
        .unwrap_err();
        assert_eq!(err, SandboxError::TimedOut(Duration::from_secs(1)));
    }

    #[test]
    fn a_huge_allocation_runs_out_of_memory() {
        let err = run_isolated(&limits(), || vec![1u8; 10 << 30]).unwrap_err();
        assert_eq!(err, SandboxError::OutOfMemory(256 << 20));
    }

    #[test]
    fn growing_memory_is_stopped_at_the_limit() {
        let err = run_isolated(&limits(), || {
            let mut kept = Vec::new();
            loop {
                kept.push(vec![1u8; 1 << 20]);
                std::hint::black_box(&kept);
            }
        })
        .unwrap_err();
        assert_eq!(err, SandboxError::OutOfMemory(256 << 20));
    }

    #[test]
    fn an_oversized_result_is_refused() {
        let err = run_isolated(&limits(), || vec![0u8; 2 << 20]).unwrap_err();
        assert_eq!(err, SandboxError::OutputTooLarge(1 << 20));
    }

    #[test]
    fn a_silent_exit_is_a_crash() {
        // SAFETY: ends the child only.
        let err = run_isolated(&limits(), || unsafe { libc::_exit(9) }).unwrap_err();
        assert_eq!(err, SandboxError::Crashed("exit code 9".into()));
    }

    #[test]
    fn many_children_at_once_each_get_their_own_result() {
        let handles: Vec<_> = (0..8u8)
            .map(|i| {
                std::thread::spawn(move || run_isolated(&limits(), move || vec![i; 1000]).unwrap())
            })
            .collect();
        for (i, h) in handles.into_iter().enumerate() {
            assert_eq!(h.join().unwrap(), vec![i as u8; 1000]);
        }
    }
}
