//! The `Ocr` port on the embedded host: the Tesseract command line
//! (`tesseract stdin stdout -l spa+eng --psm 6 [--dpi N] tsv`), one process
//! per image, no shell. `--psm 6` reads the page as one block, which keeps an
//! invoice row (label and amount) on one line; `OMP_THREAD_LIMIT=1` makes it
//! several times faster on small machines, and a semaphore runs at most one
//! engine per core. Every run has a wall-clock deadline and address-space and
//! CPU limits, and is killed when it passes them.
//!
//! The image's header is checked (format, dimensions) before Tesseract sees
//! it. That also matters for safety: Tesseract reads non-image input on
//! stdin as a list of file names to open. Photos are then prepared
//! (`extraction::photo`: turned, levelled, cropped to the sheet, light
//! evened) and Tesseract reads the prepared grey PNG, whose own resolution
//! lets the process start, and load its models, while the photo is prepared;
//! a clean page goes as sent, with `--dpi`.
//! A reading that comes out as noise (mean confidence under 0.55) is made
//! again with the photo turned half a turn, and the more confident one kept:
//! a phone photo taken the other way up reads like any other.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::Semaphore;

use crate::extraction::image::{ImageError, ImageInfo, inspect_image};
use crate::extraction::layout::{TextDocument, Word};
use crate::extraction::photo::{self, Page, Way};
use crate::ports::ocr::{ImageFormat, Ocr, OcrError};

/// Longest a run may take, wall-clock.
pub const TIMEOUT: Duration = Duration::from_secs(60);
/// Address space of one Tesseract process (its models and a 40-megapixel page fit).
pub const MEMORY_LIMIT: u64 = 2 << 30;
/// Largest TSV read back.
const MAX_OUTPUT: u64 = 16 << 20;
/// Languages, Spanish first: `eng` alone loses accents.
const LANGUAGES: &str = "spa+eng";

pub struct Tesseract {
    program: String,
    engines: Arc<Semaphore>,
}

impl Tesseract {
    /// Tesseract on `PATH` with the Spanish model installed, else `None`.
    pub fn detect() -> Option<Tesseract> {
        let program = "tesseract".to_string();
        let langs = list_languages(&program)?;
        langs.lines().any(|l| l.trim() == "spa").then(|| Tesseract {
            program,
            engines: Arc::new(Semaphore::new(
                std::thread::available_parallelism().map_or(1, |n| n.get()),
            )),
        })
    }

    /// A Tesseract process waiting for its image on stdin, at `dpi` or at
    /// the resolution the image itself carries. It loads its models (about
    /// a tenth of a second) before reading the image.
    fn start(&self, dpi: Option<u32>) -> Result<Started, OcrError> {
        let mut command = tokio::process::Command::new(&self.program);
        command.args(["stdin", "stdout", "-l", LANGUAGES, "--psm", "6"]);
        if let Some(dpi) = dpi {
            command.arg("--dpi").arg(dpi.to_string());
        }
        command
            .arg("tsv")
            .env("OMP_THREAD_LIMIT", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        // SAFETY: setrlimit is async-signal-safe; nothing else runs before exec.
        unsafe {
            command.pre_exec(|| {
                let memory = libc::rlimit {
                    rlim_cur: MEMORY_LIMIT,
                    rlim_max: MEMORY_LIMIT,
                };
                let cpu = libc::rlimit {
                    rlim_cur: TIMEOUT.as_secs(),
                    rlim_max: TIMEOUT.as_secs() + 1,
                };
                libc::setrlimit(libc::RLIMIT_AS, &memory);
                libc::setrlimit(libc::RLIMIT_CPU, &cpu);
                Ok(())
            });
        }
        let child = command.spawn().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => {
                OcrError::Unavailable(format!("{} is not installed", self.program))
            }
            _ => OcrError::Failed(format!("{} could not start: {e}", self.program)),
        })?;
        Ok(Started(child))
    }
}

/// A started Tesseract process; dropped unused, it is killed.
struct Started(tokio::process::Child);

impl Started {
    /// Tesseract's TSV for `image`, within `TIMEOUT`.
    async fn read(self, image: &[u8]) -> Result<Vec<u8>, OcrError> {
        let mut child = self.0;
        let (Some(mut stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(OcrError::Failed("no pipes to tesseract".into()));
        };
        let image = image.to_vec();
        let work = async move {
            let feed = async move {
                // Tesseract may stop reading early on a broken image.
                let _ = stdin.write_all(&image).await;
            };
            let mut out = Vec::new();
            let mut err = Vec::new();
            let mut stdout = stdout.take(MAX_OUTPUT);
            let mut stderr = stderr.take(64 << 10);
            let (_, out_read, _, status) = tokio::join!(
                feed,
                stdout.read_to_end(&mut out),
                stderr.read_to_end(&mut err),
                child.wait()
            );
            (out_read.map(|_| out), err, status)
        };
        let (out, err, status) = tokio::time::timeout(TIMEOUT, work)
            .await
            .map_err(|_| OcrError::Failed(format!("tesseract took longer than {TIMEOUT:?}")))?;
        let status = status.map_err(|e| OcrError::Failed(e.to_string()))?;
        let err = String::from_utf8_lossy(&err);
        match status.code() {
            Some(0) => out.map_err(|e| OcrError::Failed(e.to_string())),
            Some(_) if err.contains("Error during processing") => Err(OcrError::Unreadable(
                err.lines().next().unwrap_or_default().to_string(),
            )),
            _ => Err(OcrError::Failed(format!(
                "tesseract ended with {status}: {}",
                err.trim()
            ))),
        }
    }
}

/// `tesseract --list-langs`, given a few seconds.
fn list_languages(program: &str) -> Option<String> {
    let mut child = Command::new(program)
        .arg("--list-langs")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let deadline = Instant::now() + Duration::from_secs(10);
    while child.try_wait().ok()?.is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut out = String::new();
    child.stdout.take()?.read_to_string(&mut out).ok()?;
    Some(out)
}

#[async_trait]
impl Ocr for Tesseract {
    async fn read(&self, image: &[u8], format: ImageFormat) -> Result<TextDocument, OcrError> {
        let info = inspect_image(image, format).map_err(unreadable)?;
        let words = self.read_way(image, format, info, Way::AsSent).await?;
        if words.is_empty() || confidence(&words) >= RETRY_BELOW {
            return Ok(document(words));
        }
        // Read as noise: the photo may have been taken the other way up.
        let turned = self.read_way(image, format, info, Way::UpsideDown).await?;
        if confidence(&turned) > confidence(&words) + TURN_MARGIN {
            return Ok(document(turned));
        }
        Ok(document(words))
    }
}

/// Below this mean confidence a reading is taken for noise, and the photo
/// is read again the other way up (print read upright scores 0.65–0.9;
/// upside down, 0.25–0.5).
const RETRY_BELOW: f32 = 0.55;
/// The turned reading is kept when it is this much more confident.
const TURN_MARGIN: f32 = 0.15;

fn unreadable(e: ImageError) -> OcrError {
    match e {
        ImageError::Unreadable(why) | ImageError::TooLarge(why) => OcrError::Unreadable(why),
    }
}

/// The mean confidence of the words, each counted by its length.
fn confidence(words: &[Word]) -> f32 {
    let (sum, chars) = words.iter().fold((0.0f32, 0usize), |(s, n), w| {
        let len = w.text.chars().count();
        (s + w.confidence * len as f32, n + len)
    });
    if chars == 0 { 0.0 } else { sum / chars as f32 }
}

fn document(words: Vec<Word>) -> TextDocument {
    TextDocument {
        words,
        ..TextDocument::default()
    }
}

impl Tesseract {
    /// The words of the photo prepared the way given (a clean page taken as
    /// sent goes to Tesseract untouched).
    async fn read_way(
        &self,
        image: &[u8],
        format: ImageFormat,
        info: ImageInfo,
        way: Way,
    ) -> Result<Vec<Word>, OcrError> {
        // One engine slot covers preparing (a decoded page in memory) and
        // reading. Tesseract starts first and loads its models while the
        // photo is prepared; the prepared PNG carries its resolution.
        let _engine = self
            .engines
            .acquire()
            .await
            .map_err(|e| OcrError::Failed(e.to_string()))?;
        let early = self.start(None)?;
        let bytes = image.to_vec();
        let prepared =
            tokio::task::spawn_blocking(move || photo::prepare_isolated(&bytes, format, way))
                .await
                .map_err(|e| OcrError::Failed(e.to_string()))?
                .map_err(unreadable)?;
        let (tsv, width, height) = match prepared {
            Some(Page {
                png, width, height, ..
            }) => (early.read(&png).await?, width, height),
            None if way == Way::AsSent => {
                drop(early);
                let dpi = photo::dpi(info.width, info.height);
                let tsv = self.start(Some(dpi))?.read(image).await?;
                (tsv, info.width, info.height)
            }
            // The child could not turn it: nothing more to read.
            None => return Ok(Vec::new()),
        };
        Ok(words_from_tsv(
            &String::from_utf8_lossy(&tsv),
            width,
            height,
        ))
    }
}

/// Tesseract's TSV (`level page block par line word left top width height
/// conf text`, pixels from the top-left) as words in page fractions, each
/// with the line Tesseract found it on; the page row (level 1) gives the
/// page size, else the image's.
pub fn words_from_tsv(tsv: &str, width: u32, height: u32) -> Vec<Word> {
    let (mut page_w, mut page_h) = (width.max(1) as f32, height.max(1) as f32);
    let mut words = Vec::new();
    // Lines numbered across the document, in the order Tesseract gives them.
    let mut lines = 0u32;
    let mut current: Option<[&str; 4]> = None;
    for line in tsv.lines().skip(1) {
        let cols: Vec<&str> = line.splitn(12, '\t').collect();
        let [
            level,
            page,
            block,
            par,
            line_num,
            _,
            left,
            top,
            w,
            h,
            conf,
            text,
        ] = cols[..]
        else {
            continue;
        };
        let num = |s: &str| s.trim().parse::<f32>().ok().filter(|v| v.is_finite());
        let (Some(left), Some(top), Some(w), Some(h)) = (num(left), num(top), num(w), num(h))
        else {
            continue;
        };
        match level.trim() {
            "1" if w > 0.0 && h > 0.0 => (page_w, page_h) = (w, h),
            "5" if !text.trim().is_empty() => {
                let this = [page, block, par, line_num];
                if current != Some(this) {
                    current = Some(this);
                    lines += 1;
                }
                words.push(Word {
                    text: text.trim().to_string(),
                    page: page.trim().parse().unwrap_or(1),
                    left: (left / page_w).clamp(0.0, 1.0),
                    top: (top / page_h).clamp(0.0, 1.0),
                    width: (w / page_w).clamp(0.0, 1.0),
                    height: (h / page_h).clamp(0.0, 1.0),
                    confidence: (num(conf).unwrap_or(0.0) / 100.0).clamp(0.0, 1.0),
                    line: Some(lines),
                })
            }
            _ => {}
        }
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    const TSV: &str = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext
1\t1\t0\t0\t0\t0\t0\t0\t1000\t2000\t-1\t
4\t1\t1\t1\t1\t0\t100\t200\t300\t20\t-1\t
5\t1\t1\t1\t1\t1\t100\t200\t120\t20\t96.5\tFactura
5\t1\t1\t1\t1\t2\t250\t200\t150\t20\t91\t2026/0147
5\t1\t1\t1\t1\t3\t400\t200\t10\t20\t95\t 
5\t1\t1\t1\t2\t1\tx\t240\t10\t20\t95\tbroken
5\t1\t1\t1\t3\t1\t100\t280\t100\t20\t93\tTotal
";

    #[test]
    fn tsv_words_become_page_fractions() {
        let words = words_from_tsv(TSV, 1, 1);
        assert_eq!(words.len(), 3);
        assert_eq!(
            words[0],
            Word {
                text: "Factura".into(),
                page: 1,
                left: 0.1,
                top: 0.1,
                width: 0.12,
                height: 0.01,
                confidence: 0.965,
                line: Some(1),
            }
        );
        assert_eq!(words[1].text, "2026/0147");
        assert_eq!(words[1].line, Some(1), "the same line");
        assert_eq!(words[2].line, Some(2), "the next line Tesseract found");
    }

    #[test]
    fn without_a_page_row_the_image_size_is_the_page() {
        let tsv = TSV
            .lines()
            .filter(|l| !l.starts_with("1\t"))
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(words_from_tsv(&tsv, 1000, 2000), words_from_tsv(TSV, 1, 1));
    }

    #[tokio::test]
    async fn tesseract_passes_the_ocr_contract() {
        let Some(tesseract) = Tesseract::detect() else {
            assert!(
                std::env::var("SVC_REQUIRE_TESSERACT").as_deref() != Ok("1"),
                "SVC_REQUIRE_TESSERACT=1 but tesseract with the spa model is not installed"
            );
            eprintln!(
                "Tesseract OCR contract NOT RUN: install tesseract-ocr and tesseract-ocr-spa"
            );
            return;
        };
        crate::ports::ocr_contract::run(&tesseract).await;
    }

    #[tokio::test]
    async fn a_missing_binary_is_unavailable() {
        let missing = Tesseract {
            program: "/nonexistent/tesseract".into(),
            engines: Arc::new(Semaphore::new(1)),
        };
        assert!(matches!(missing.start(None), Err(OcrError::Unavailable(_))));
    }
}
