//! A VFS over the platform's own that writes the log frames of a commit
//! with one system call.
//!
//! SQLite writes each frame of the write-ahead log in two calls, its 24-byte
//! header and then its page, so an issue's commit of about twenty pages made
//! forty `pwrite`s before its sync; on this kind of virtual machine each
//! costs more than copying its page. Here the writes to a log that follow
//! each other are gathered, and written at once:
//! - before the log is synced, read, truncated, measured or closed, and
//!   before a write elsewhere in it;
//! - right after the page of a commit frame (a frame header that holds the
//!   database size), because a commit that is not synced becomes visible to
//!   other connections when SQLite updates the log's index in shared
//!   memory, with no further call on the log file;
//! - before they would pass `GATHER_LIMIT` bytes.
//!
//! The bytes, their place in the file and the syncs are SQLite's own, so
//! what a crash can leave is unchanged. Only a log on a file that allows
//! powersafe overwrites (the platform's default) is gathered: SQLite then
//! never pads a commit to a sector, and writes each frame once, its header
//! and then its page. Every other file, and every other call, goes
//! straight to the platform's VFS.

use std::ffi::{CStr, c_int, c_void};
use std::mem::{align_of, size_of};
use std::ptr;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicPtr, Ordering};

use rusqlite::ffi;

/// The name connections open their files with.
pub(super) const NAME: &CStr = c"svc-log-writes";
/// A frame header: page number, database size (not zero only in the frame
/// that commits), salts and checksums.
const FRAME_HEADER: usize = 24;
/// The most the platform's VFS writes in one call: it masks a larger size
/// with this (its writes are pages, of at most 64 KiB).
const GATHER_LIMIT: usize = 0x1ffff;

static PLATFORM: AtomicPtr<ffi::sqlite3_vfs> = AtomicPtr::new(ptr::null_mut());

/// Registers the VFS once per process; false when SQLite refused it (the
/// connection then opens with the platform's VFS).
pub(super) fn registered() -> bool {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    *REGISTERED.get_or_init(|| {
        // SAFETY: the platform's VFS lives as long as the process; the copy
        // registered here is leaked, as SQLite keeps a pointer to it.
        unsafe {
            let platform = ffi::sqlite3_vfs_find(ptr::null());
            if platform.is_null() {
                return false;
            }
            PLATFORM.store(platform, Ordering::Release);
            let mut vfs = *platform;
            vfs.szOsFile = c_int::try_from(real_offset() + (*platform).szOsFile as usize)
                .expect("a file handle's size fits an int");
            vfs.pNext = ptr::null_mut();
            vfs.zName = NAME.as_ptr();
            vfs.xOpen = Some(open);
            ffi::sqlite3_vfs_register(Box::into_raw(Box::new(vfs)), 0) == ffi::SQLITE_OK
        }
    })
}

/// The handle SQLite allocates (`szOsFile` bytes): this struct, then the
/// platform's own handle at `real_offset()`.
#[repr(C)]
struct File {
    base: ffi::sqlite3_file,
    real: *mut ffi::sqlite3_file,
    /// Writes gathered; only a log file has one.
    log: Option<Box<Gathered>>,
}

#[derive(Default)]
struct Gathered {
    bytes: Vec<u8>,
    /// Where `bytes` go in the file.
    at: i64,
    /// The last write was the header of a commit frame.
    commit_page_next: bool,
}

const fn real_offset() -> usize {
    size_of::<File>().next_multiple_of(align_of::<u64>())
}

unsafe extern "C" fn open(
    _vfs: *mut ffi::sqlite3_vfs,
    name: ffi::sqlite3_filename,
    file: *mut ffi::sqlite3_file,
    flags: c_int,
    out_flags: *mut c_int,
) -> c_int {
    // SAFETY: SQLite hands `szOsFile` bytes at `file`, room for a `File`
    // followed by the platform's handle.
    unsafe {
        let platform = PLATFORM.load(Ordering::Acquire);
        let real = file
            .cast::<u8>()
            .add(real_offset())
            .cast::<ffi::sqlite3_file>();
        let opened = match (*platform).xOpen {
            Some(x_open) => x_open(platform, name, real, flags, out_flags),
            None => ffi::SQLITE_CANTOPEN,
        };
        if opened != ffi::SQLITE_OK {
            (*file).pMethods = ptr::null();
            return opened;
        }
        let methods: &'static ffi::sqlite3_io_methods = match (*(*real).pMethods).iVersion {
            ..=1 => &METHODS_1,
            2 => &METHODS_2,
            _ => &METHODS_3,
        };
        let powersafe = (*(*real).pMethods)
            .xDeviceCharacteristics
            .is_some_and(|x_device| x_device(real) & ffi::SQLITE_IOCAP_POWERSAFE_OVERWRITE != 0);
        let log = (flags & ffi::SQLITE_OPEN_WAL != 0 && powersafe).then(Box::default);
        ptr::write(
            file.cast::<File>(),
            File {
                base: ffi::sqlite3_file { pMethods: methods },
                real,
                log,
            },
        );
        ffi::SQLITE_OK
    }
}

/// The handle's own file and the platform's methods for it.
///
/// # Safety
/// `file` is a handle `open` made.
unsafe fn parts<'a>(
    file: *mut ffi::sqlite3_file,
) -> (
    &'a mut File,
    *mut ffi::sqlite3_file,
    &'a ffi::sqlite3_io_methods,
) {
    // SAFETY: per the caller.
    unsafe {
        let this = &mut *file.cast::<File>();
        let real = this.real;
        (this, real, &*(*real).pMethods)
    }
}

/// Writes what is gathered.
///
/// # Safety
/// `real` is the platform's handle the bytes were gathered for.
unsafe fn flush(
    real: *mut ffi::sqlite3_file,
    methods: &ffi::sqlite3_io_methods,
    gathered: &mut Gathered,
) -> c_int {
    if gathered.bytes.is_empty() {
        return ffi::SQLITE_OK;
    }
    let written = match (methods.xWrite, c_int::try_from(gathered.bytes.len())) {
        // SAFETY: per the caller; the bytes outlive the call.
        (Some(x_write), Ok(amount)) => unsafe {
            x_write(real, gathered.bytes.as_ptr().cast(), amount, gathered.at)
        },
        _ => ffi::SQLITE_IOERR_WRITE,
    };
    gathered.bytes.clear();
    #[cfg(test)]
    tests::LOG_WRITES.with(|n| n.set(n.get() + 1));
    written
}

/// Writes what the handle gathered, if anything.
///
/// # Safety
/// `file` is a handle `open` made.
unsafe fn flush_file(file: *mut ffi::sqlite3_file) -> c_int {
    // SAFETY: per the caller.
    unsafe {
        let (this, real, methods) = parts(file);
        match this.log.as_deref_mut() {
            Some(gathered) => flush(real, methods, gathered),
            None => ffi::SQLITE_OK,
        }
    }
}

unsafe extern "C" fn close(file: *mut ffi::sqlite3_file) -> c_int {
    // SAFETY: SQLite closes a handle `open` made, once.
    unsafe {
        let flushed = flush_file(file);
        let (this, real, methods) = parts(file);
        let closed = methods
            .xClose
            .map_or(ffi::SQLITE_OK, |x_close| x_close(real));
        ptr::drop_in_place(&mut this.log);
        if flushed != ffi::SQLITE_OK {
            flushed
        } else {
            closed
        }
    }
}

unsafe extern "C" fn write(
    file: *mut ffi::sqlite3_file,
    bytes: *const c_void,
    amount: c_int,
    offset: i64,
) -> c_int {
    // SAFETY: SQLite writes `amount` bytes from `bytes` through a handle
    // `open` made.
    unsafe {
        let (this, real, methods) = parts(file);
        let (Some(gathered), Ok(length)) = (this.log.as_deref_mut(), usize::try_from(amount))
        else {
            return methods.xWrite.map_or(ffi::SQLITE_IOERR_WRITE, |x_write| {
                x_write(real, bytes, amount, offset)
            });
        };
        let bytes = std::slice::from_raw_parts(bytes.cast::<u8>(), length);
        let end = gathered.at + gathered.bytes.len() as i64;
        if !gathered.bytes.is_empty()
            && (offset != end || gathered.bytes.len() + length > GATHER_LIMIT)
        {
            let flushed = flush(real, methods, gathered);
            if flushed != ffi::SQLITE_OK {
                return flushed;
            }
        }
        if gathered.bytes.is_empty() {
            gathered.at = offset;
        }
        gathered.bytes.extend_from_slice(bytes);
        let commit_page = gathered.commit_page_next;
        gathered.commit_page_next = length == FRAME_HEADER && bytes[4..8] != [0; 4];
        if commit_page && !gathered.commit_page_next {
            return flush(real, methods, gathered);
        }
        ffi::SQLITE_OK
    }
}

/// The other calls go to the platform's file; those that read or change
/// the file, or ask about it, write what is gathered first.
macro_rules! through {
    ($name:ident, $method:ident, $missing:expr, ($($arg:ident: $ty:ty),*) -> $ret:ty) => {
        through!(@ $name, $method, $missing, false, ($($arg: $ty),*) -> $ret);
    };
    (gathered first: $name:ident, $method:ident, $missing:expr, ($($arg:ident: $ty:ty),*) -> $ret:ty) => {
        through!(@ $name, $method, $missing, true, ($($arg: $ty),*) -> $ret);
    };
    (@ $name:ident, $method:ident, $missing:expr, $flush:expr, ($($arg:ident: $ty:ty),*) -> $ret:ty) => {
        unsafe extern "C" fn $name(file: *mut ffi::sqlite3_file, $($arg: $ty),*) -> $ret {
            // SAFETY: a handle `open` made.
            unsafe {
                if $flush {
                    let flushed = flush_file(file);
                    if flushed != ffi::SQLITE_OK {
                        return flushed;
                    }
                }
                let (_, real, methods) = parts(file);
                methods.$method.map_or($missing, |method| method(real, $($arg),*))
            }
        }
    };
}

through!(gathered first: read, xRead, ffi::SQLITE_IOERR_READ, (bytes: *mut c_void, amount: c_int, offset: i64) -> c_int);
through!(gathered first: truncate, xTruncate, ffi::SQLITE_IOERR_TRUNCATE, (size: i64) -> c_int);
through!(gathered first: sync, xSync, ffi::SQLITE_IOERR_FSYNC, (flags: c_int) -> c_int);
through!(gathered first: file_size, xFileSize, ffi::SQLITE_IOERR_FSTAT, (size: *mut i64) -> c_int);
through!(gathered first: file_control, xFileControl, ffi::SQLITE_NOTFOUND, (op: c_int, arg: *mut c_void) -> c_int);
through!(lock, xLock, ffi::SQLITE_IOERR_LOCK, (level: c_int) -> c_int);
through!(unlock, xUnlock, ffi::SQLITE_IOERR_UNLOCK, (level: c_int) -> c_int);
through!(check_reserved_lock, xCheckReservedLock, ffi::SQLITE_IOERR_CHECKRESERVEDLOCK, (out: *mut c_int) -> c_int);
through!(sector_size, xSectorSize, 4096, () -> c_int);
through!(device_characteristics, xDeviceCharacteristics, 0, () -> c_int);
through!(shm_map, xShmMap, ffi::SQLITE_IOERR_SHMMAP, (region: c_int, size: c_int, extend: c_int, out: *mut *mut c_void) -> c_int);
through!(shm_lock, xShmLock, ffi::SQLITE_IOERR_SHMLOCK, (offset: c_int, n: c_int, flags: c_int) -> c_int);
through!(shm_unmap, xShmUnmap, ffi::SQLITE_OK, (delete: c_int) -> c_int);
through!(fetch, xFetch, ffi::SQLITE_OK, (offset: i64, amount: c_int, out: *mut *mut c_void) -> c_int);
through!(unfetch, xUnfetch, ffi::SQLITE_OK, (offset: i64, page: *mut c_void) -> c_int);

unsafe extern "C" fn shm_barrier(file: *mut ffi::sqlite3_file) {
    // SAFETY: a handle `open` made.
    unsafe {
        let (_, real, methods) = parts(file);
        if let Some(x_shm_barrier) = methods.xShmBarrier {
            x_shm_barrier(real);
        }
    }
}

const fn methods(version: c_int) -> ffi::sqlite3_io_methods {
    ffi::sqlite3_io_methods {
        iVersion: version,
        xClose: Some(close),
        xRead: Some(read),
        xWrite: Some(write),
        xTruncate: Some(truncate),
        xSync: Some(sync),
        xFileSize: Some(file_size),
        xLock: Some(lock),
        xUnlock: Some(unlock),
        xCheckReservedLock: Some(check_reserved_lock),
        xFileControl: Some(file_control),
        xSectorSize: Some(sector_size),
        xDeviceCharacteristics: Some(device_characteristics),
        xShmMap: if version >= 2 { Some(shm_map) } else { None },
        xShmLock: if version >= 2 { Some(shm_lock) } else { None },
        xShmBarrier: if version >= 2 {
            Some(shm_barrier)
        } else {
            None
        },
        xShmUnmap: if version >= 2 { Some(shm_unmap) } else { None },
        xFetch: if version >= 3 { Some(fetch) } else { None },
        xUnfetch: if version >= 3 { Some(unfetch) } else { None },
    }
}

static METHODS_1: ffi::sqlite3_io_methods = methods(1);
static METHODS_2: ffi::sqlite3_io_methods = methods(2);
static METHODS_3: ffi::sqlite3_io_methods = methods(3);

/// Whether `conn`'s main database file was opened through this VFS.
#[cfg(test)]
pub(super) fn opened_through(conn: &rusqlite::Connection) -> bool {
    let mut file: *mut ffi::sqlite3_file = ptr::null_mut();
    // SAFETY: SQLite answers this control itself with the handle of the
    // connection's main file, alive as long as the connection.
    unsafe {
        let found = ffi::sqlite3_file_control(
            conn.handle(),
            c"main".as_ptr(),
            ffi::SQLITE_FCNTL_FILE_POINTER,
            (&raw mut file).cast(),
        );
        found == ffi::SQLITE_OK
            && !file.is_null()
            && [&METHODS_1, &METHODS_2, &METHODS_3]
                .iter()
                .any(|methods| ptr::eq((*file).pMethods, *methods))
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::{Connection, OpenFlags, params};

    use super::*;

    thread_local! {
        /// Gathered writes made on this thread.
        pub(super) static LOG_WRITES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    fn connect(path: &std::path::Path) -> Connection {
        assert!(registered());
        let conn = Connection::open_with_flags_and_vfs(path, OpenFlags::default(), NAME).unwrap();
        conn.pragma_update(None, "journal_mode", "WAL").unwrap();
        conn
    }

    /// A connection to `svc.db` in `dir` once `sql` has run on it.
    fn connect_after(dir: &tempfile::TempDir, sql: &str) -> Connection {
        let conn = connect(&dir.path().join("svc.db"));
        conn.execute_batch(sql).unwrap();
        conn
    }

    #[test]
    fn a_commit_of_many_pages_writes_its_log_in_one_call_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let conn = connect_after(&dir, "CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB)");
        let before = LOG_WRITES.get();
        let tx = conn.unchecked_transaction().unwrap();
        for k in 0..40 {
            tx.execute("INSERT INTO t VALUES (?1, randomblob(3000))", params![k])
                .unwrap();
        }
        tx.commit().unwrap();
        let calls = LOG_WRITES.get() - before;
        // Forty pages of 4 KiB, gathered up to 128 KiB a call; eighty calls before.
        assert!((1..=2).contains(&calls), "{calls} gathered writes");
        let n: i64 = conn
            .query_row("SELECT count(*) FROM t WHERE length(v) = 3000", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(n, 40);
    }

    #[test]
    fn a_commit_that_is_not_synced_is_read_at_once_by_another_connection() {
        let dir = tempfile::tempdir().unwrap();
        let writer = connect_after(
            &dir,
            "PRAGMA synchronous = NORMAL; CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)",
        );
        let reader = connect(&dir.path().join("svc.db"));
        for k in 0..200_i64 {
            let value = format!("{k}-{}", "x".repeat(k as usize % 7 * 500));
            writer
                .execute("INSERT INTO t VALUES (?1, ?2)", params![k, value])
                .unwrap();
            let read: String = reader
                .query_row("SELECT v FROM t WHERE k = ?1", params![k], |r| r.get(0))
                .unwrap();
            assert_eq!(read, value);
        }
    }

    #[test]
    fn what_is_copied_into_the_database_file_reads_back_once_reopened() {
        let dir = tempfile::tempdir().unwrap();
        let conn = connect_after(&dir, "CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('a')");
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .unwrap();
        drop(conn);
        assert_eq!(
            std::fs::metadata(dir.path().join("svc.db-wal")).map_or(0, |m| m.len()),
            0
        );
        let reopened = connect(&dir.path().join("svc.db"));
        let v: String = reopened
            .query_row("SELECT v FROM t", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, "a");
    }
}
