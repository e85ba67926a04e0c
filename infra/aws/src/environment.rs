//! What a function builds once at start, from its environment: the ports
//! (DynamoDB table `TABLE_NAME`, SQS queues `JOBS_QUEUE_URL`,
//! `DELIVERIES_QUEUE_URL` and `SUBMISSIONS_QUEUE_URL`, S3 bucket `STAGING_BUCKET`, or the embedded engine
//! when `SVC_DATA_DIR` is set, e.g. under `cargo lambda watch`; the OCR engine
//! named by `SVC_OCR`; the key that seals certificates, `SVC_KMS_KEY_ID` or
//! `SVC_SECRETS_KEY`) and the configuration.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use shared::config::Config;
use shared::embedded::tesseract::Tesseract;
use shared::embedded::{FileBlobs, LocalSecrets, QueueSettings, SqliteQueue, SqliteTable};
use shared::http::AppState;
use shared::ports::aeat;
use shared::ports::blobs::NoBlobs;
use shared::ports::clock::SystemClock;
use shared::ports::ocr::NoOcr;
use shared::ports::queue::NoQueue;
use shared::ports::webhook_http::HttpWebhookSender;
use shared::ports::{Blobs, Clock, Ocr, Ports, Queue, Secrets, Table};

use crate::textract::TextractOcr;
use crate::{DynamoTable, KmsSecrets, S3Blobs, SqsQueue};

/// The embedded jobs queue. A job runs for at most 60 s (the worker
/// function's timeout); a received job stays invisible 6 times that, as AWS
/// advises for a queue feeding a function, and goes to the dead-letter queue
/// after 5 receives: `JobsQueue` in `template.yaml` says the same.
pub const JOBS_QUEUE: QueueSettings = QueueSettings {
    visibility_timeout: Duration::from_secs(6 * 60),
    max_receives: 5,
};

/// The embedded deliveries queue: 6 times the deliveries function's 30 s
/// timeout (a batch of attempts of at most 10 s each), longer than a
/// delivery's 30 s lease; 5 receives, as `WebhooksQueue` in `template.yaml`.
pub const DELIVERIES_QUEUE: QueueSettings = QueueSettings {
    visibility_timeout: Duration::from_secs(6 * 30),
    max_receives: 5,
};

pub async fn state_from_env() -> Result<AppState, String> {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let data_dir = std::env::var("SVC_DATA_DIR").ok().map(PathBuf::from);
    let table: Arc<dyn Table> = match (&data_dir, std::env::var("TABLE_NAME")) {
        (Some(dir), _) => {
            let path = dir.join("svc.db");
            Arc::new(
                SqliteTable::open(&path, clock.clone())
                    .map_err(|e| format!("{}: {e}", path.display()))?,
            )
        }
        (None, Ok(name)) => Arc::new(DynamoTable::from_env(&name, clock.clone()).await),
        (None, Err(_)) => {
            return Err("set TABLE_NAME (DynamoDB) or SVC_DATA_DIR (embedded engine)".into());
        }
    };
    let config = Config::from_env()?;
    let ports = Ports::new(table, clock)
        .with_ocr(ocr_from_env().await?)
        .with_sender(Arc::new(HttpWebhookSender::new(
            config.webhook_allow_private,
        )));
    let ports = match &data_dir {
        Some(dir) => with_embedded_queues_and_blobs(ports, dir)?,
        None => with_aws_queues_and_blobs(ports).await,
    };
    let ports = with_verifactu(ports, &config).await;
    Ok(AppState::new(ports, config))
}

/// `ports` that send live VERI*FACTU records to the configured endpoint
/// with the certificates `with_secrets` opens.
pub async fn with_verifactu(ports: Ports, config: &Config) -> Ports {
    with_secrets(
        aeat::with_live_endpoint(ports, &config.aeat_endpoint),
        config,
    )
    .await
}

/// `ports` sealing certificates with KMS (`SVC_KMS_KEY_ID`) or the local
/// key (`SVC_SECRETS_KEY`), when the configuration names one.
pub async fn with_secrets(ports: Ports, config: &Config) -> Ports {
    let secrets: Arc<dyn Secrets> = match (&config.kms_key_id, &config.secrets_key) {
        (Some(key_id), _) => Arc::new(KmsSecrets::from_env(key_id).await),
        (None, Some(key)) => Arc::new(LocalSecrets::new(key.clone())),
        (None, None) => return ports,
    };
    ports.with_secrets(secrets)
}

/// The embedded VERI*FACTU submission queue: 6 times the submitter
/// function's 120 s timeout, 5 receives, as `SubmissionsQueue` in
/// `template.yaml`.
pub const SUBMISSIONS_QUEUE: QueueSettings = QueueSettings {
    visibility_timeout: Duration::from_secs(6 * 120),
    max_receives: 5,
};

/// `ports` with the embedded queues `jobs`, `deliveries` and `submissions`
/// in `<data_dir>/svc.db` and the blobs under `<data_dir>/blobs/`.
pub fn with_embedded_queues_and_blobs(ports: Ports, data_dir: &Path) -> Result<Ports, String> {
    let path = data_dir.join("svc.db");
    let open = |name, settings| {
        SqliteQueue::open(&path, name, settings, ports.clock.clone())
            .map_err(|e| format!("{}: {e}", path.display()))
    };
    let (jobs, deliveries, submissions) = (
        open("jobs", JOBS_QUEUE)?,
        open("deliveries", DELIVERIES_QUEUE)?,
        open("submissions", SUBMISSIONS_QUEUE)?,
    );
    Ok(ports
        .with_queues(Arc::new(jobs), Arc::new(deliveries))
        .with_submissions(Arc::new(submissions))
        .with_blobs(Arc::new(FileBlobs::new(data_dir))))
}

/// `ports` with the SQS queues and the S3 bucket the environment names; one
/// not named stays unconfigured (its calls fail as unavailable), logged once.
async fn with_aws_queues_and_blobs(ports: Ports) -> Ports {
    let [jobs, deliveries, submissions, bucket] = [
        "JOBS_QUEUE_URL",
        "DELIVERIES_QUEUE_URL",
        "SUBMISSIONS_QUEUE_URL",
        "STAGING_BUCKET",
    ]
    .map(|var| (var, std::env::var(var).ok().filter(|v| !v.is_empty())));
    let unset: Vec<&str> = [&jobs, &deliveries, &submissions, &bucket]
        .into_iter()
        .filter_map(|(var, value)| value.is_none().then_some(*var))
        .collect();
    if !unset.is_empty() {
        tracing::info!(?unset, "queues or blobs not configured");
    }
    let blobs: Arc<dyn Blobs> = match bucket.1 {
        Some(bucket) => Arc::new(S3Blobs::from_env(&bucket).await),
        None => Arc::new(NoBlobs),
    };
    ports
        .with_queues(sqs_queue(jobs.1).await, sqs_queue(deliveries.1).await)
        .with_submissions(sqs_queue(submissions.1).await)
        .with_blobs(blobs)
}

async fn sqs_queue(url: Option<String>) -> Arc<dyn Queue> {
    match url {
        Some(url) => Arc::new(SqsQueue::from_env(&url).await),
        None => Arc::new(NoQueue),
    }
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

    #[tokio::test]
    async fn the_embedded_queues_and_blobs_live_in_the_data_dir() {
        let dir = tempfile::tempdir().unwrap();
        let clock: Arc<dyn Clock> = Arc::new(SystemClock);
        let table = SqliteTable::open(&dir.path().join("svc.db"), clock.clone()).unwrap();
        let ports =
            with_embedded_queues_and_blobs(Ports::new(Arc::new(table), clock), dir.path()).unwrap();
        ports
            .jobs
            .send(r#"{"job_id":"job_1"}"#, Duration::ZERO)
            .await
            .unwrap();
        let none = ports.deliveries.receive(1, Duration::ZERO).await.unwrap();
        assert!(none.is_empty(), "two queues");
        let jobs = ports.jobs.receive(1, Duration::ZERO).await.unwrap();
        assert_eq!(jobs[0].body, r#"{"job_id":"job_1"}"#);
        ports.blobs.put("jobs/job_1/input", vec![1]).await.unwrap();
        assert!(dir.path().join("blobs/jobs/job_1/input").is_file());
    }

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
