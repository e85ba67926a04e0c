//! What a function builds once at start, from its environment: the ports
//! (DynamoDB table `TABLE_NAME`, or the embedded engine when `SVC_DATA_DIR` is
//! set, e.g. under `cargo lambda watch`; the OCR engine named by `SVC_OCR`)
//! and the configuration.

use std::path::PathBuf;
use std::sync::Arc;

use shared::config::Config;
use shared::embedded::{SqliteTable, Tesseract};
use shared::http::AppState;
use shared::ports::clock::SystemClock;
use shared::ports::ocr::NoOcr;
use shared::ports::{Clock, Ocr, Ports, Table};

use crate::{DynamoTable, TextractOcr};

pub async fn state_from_env() -> Result<AppState, String> {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let table: Arc<dyn Table> = match (std::env::var("SVC_DATA_DIR"), std::env::var("TABLE_NAME")) {
        (Ok(dir), _) => {
            let path = PathBuf::from(dir).join("svc.db");
            Arc::new(
                SqliteTable::open(&path, clock.clone())
                    .map_err(|e| format!("{}: {e}", path.display()))?,
            )
        }
        (Err(_), Ok(name)) => Arc::new(DynamoTable::from_env(&name, clock.clone()).await),
        (Err(_), Err(_)) => {
            return Err("set TABLE_NAME (DynamoDB) or SVC_DATA_DIR (embedded engine)".into());
        }
    };
    let ports = Ports::new(table, clock).with_ocr(ocr_from_env().await?);
    Ok(AppState::new(ports, Config::from_env()?))
}

/// An OCR engine a host can use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OcrEngine {
    Textract,
    Tesseract,
    TesseractIfInstalled,
    None,
}

/// `SVC_OCR` (`textract`, `tesseract` or `none`) names the engine; unset, it
/// is Textract on Lambda and Tesseract elsewhere when it is installed.
fn ocr_engine(setting: Option<&str>, on_lambda: bool) -> Result<OcrEngine, String> {
    match setting.map(str::trim).unwrap_or_default() {
        "textract" => Ok(OcrEngine::Textract),
        "tesseract" => Ok(OcrEngine::Tesseract),
        "none" => Ok(OcrEngine::None),
        "" if on_lambda => Ok(OcrEngine::Textract),
        "" => Ok(OcrEngine::TesseractIfInstalled),
        other => Err(format!(
            "SVC_OCR={other}: expected textract, tesseract or none"
        )),
    }
}

/// The OCR engine of this host (see `ocr_engine`), logged once.
pub async fn ocr_from_env() -> Result<Arc<dyn Ocr>, String> {
    let setting = std::env::var("SVC_OCR").ok();
    let on_lambda = std::env::var_os("AWS_LAMBDA_FUNCTION_NAME").is_some();
    let (name, ocr): (&str, Arc<dyn Ocr>) = match ocr_engine(setting.as_deref(), on_lambda)? {
        OcrEngine::Textract => ("textract", Arc::new(TextractOcr::from_env().await)),
        OcrEngine::Tesseract => (
            "tesseract",
            Arc::new(
                Tesseract::detect()
                    .ok_or("SVC_OCR=tesseract but tesseract with the spa model is not installed")?,
            ),
        ),
        OcrEngine::TesseractIfInstalled => match Tesseract::detect() {
            Some(tesseract) => ("tesseract", Arc::new(tesseract)),
            None => (
                "none (tesseract with the spa model is not installed)",
                Arc::new(NoOcr),
            ),
        },
        OcrEngine::None => ("none", Arc::new(NoOcr)),
    };
    tracing::info!(ocr = name, "OCR engine");
    Ok(ocr)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_setting_names_the_engine_and_lambda_defaults_to_textract() {
        for on_lambda in [false, true] {
            assert_eq!(
                ocr_engine(Some("textract"), on_lambda),
                Ok(OcrEngine::Textract)
            );
            assert_eq!(
                ocr_engine(Some("tesseract"), on_lambda),
                Ok(OcrEngine::Tesseract)
            );
            assert_eq!(ocr_engine(Some(" none "), on_lambda), Ok(OcrEngine::None));
            assert!(ocr_engine(Some("abbyy"), on_lambda).is_err());
        }
        assert_eq!(ocr_engine(None, true), Ok(OcrEngine::Textract));
        assert_eq!(ocr_engine(Some(""), true), Ok(OcrEngine::Textract));
        assert_eq!(ocr_engine(None, false), Ok(OcrEngine::TesseractIfInstalled));
    }
}
