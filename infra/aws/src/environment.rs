//! What a function builds once at start, from its environment. Each function
//! names the ports its group uses, so its binary links only those adapters:
//! the table (`ports`: DynamoDB table `TABLE_NAME`, or, with the `embedded`
//! feature, the embedded engine in `SVC_DATA_DIR`, e.g. under `cargo lambda
//! watch`), the queues (`with_queues`: SQS `JOBS_QUEUE_URL`,
//! `DELIVERIES_QUEUE_URL`, `SUBMISSIONS_QUEUE_URL`), the staging blobs
//! (`with_blobs`: S3 `STAGING_BUCKET`), the OCR engine named by `SVC_OCR`
//! (`with_ocr`), the webhook sender (`with_sender`), the keys that seal
//! certificates and webhook signing secrets (`with_secrets`:
//! `SVC_KMS_KEY_ID` and `SVC_KMS_WEBHOOK_KEY_ID`, or `SVC_SECRETS_KEY`), the
//! VERI*FACTU endpoint with them (`with_verifactu`), the AI model that proposes
//! extracted fields (`with_ai`: `SVC_AI_BEDROCK_MODEL` or `SVC_AI_URL`),
//! and the mailer of invoices (`with_mailer`: `SVC_SMTP_URL` or
//! `SVC_EMAIL_SES`, with `SVC_EMAIL_FROM`).

use std::sync::Arc;

use shared::adapters::aeat_http;
use shared::adapters::openai_ai::OpenAiCompatible;
use shared::adapters::smtp_email::SmtpEmail;
use shared::adapters::webhook_http::HttpWebhookSender;
use shared::config::{AiModel, Config, EmailTransport};
use shared::embedded::LocalSecrets;
use shared::embedded::tesseract::Tesseract;
use shared::http::AppState;
use shared::ports::ai::{AiExtractor, AiSource};
use shared::ports::blobs::NoBlobs;
use shared::ports::clock::SystemClock;
use shared::ports::email::{Email, Mailer};
use shared::ports::ocr::NoOcr;
use shared::ports::queue::NoQueue;
use shared::ports::{Blobs, Clock, Ocr, Ports, Queue, Secrets, Table};

use crate::bedrock::BedrockAi;
use crate::textract::TextractOcr;
use crate::{DynamoTable, KmsKeys, KmsSecrets, S3Blobs, SesEmail, SqsQueue};

#[cfg(feature = "embedded")]
mod embedded;
#[cfg(feature = "embedded")]
pub use embedded::{
    DELIVERIES_QUEUE, JOBS_QUEUE, SUBMISSIONS_QUEUE, with_embedded_queues_and_blobs,
};

/// The configuration and the table: the whole state of a group that uses
/// nothing else.
pub async fn table_state() -> Result<AppState, String> {
    let config = Config::from_env()?;
    Ok(AppState::new(ports().await?, config))
}

/// `SVC_DATA_DIR`: when set, the functions use the embedded engine there.
fn data_dir() -> Option<std::path::PathBuf> {
    std::env::var_os("SVC_DATA_DIR").map(std::path::PathBuf::from)
}

/// Where a function keeps its items.
#[derive(Debug, PartialEq)]
enum Storage {
    /// The embedded engine, in this data directory.
    Embedded(std::path::PathBuf),
    /// This DynamoDB table.
    Dynamo(String),
}

/// The storage named by `SVC_DATA_DIR` (`data_dir`) or `TABLE_NAME`
/// (`table`) in a build with or without the embedded engine (`embedded`): a
/// data directory given to a build without the engine is refused, not
/// ignored for a table the user did not mean.
fn storage(
    data_dir: Option<std::path::PathBuf>,
    table: Option<String>,
    embedded: bool,
) -> Result<Storage, String> {
    match (data_dir, table) {
        (Some(dir), _) if embedded => Ok(Storage::Embedded(dir)),
        (Some(_), _) => Err("SVC_DATA_DIR is set, but this build has no embedded engine (build it with `--features embedded`)".into()),
        (None, Some(name)) => Ok(Storage::Dynamo(name)),
        (None, None) if embedded => {
            Err("set TABLE_NAME (DynamoDB) or SVC_DATA_DIR (embedded engine)".into())
        }
        (None, None) => Err("set TABLE_NAME (DynamoDB)".into()),
    }
}

/// The table and the clock, with no other adapter configured.
pub async fn ports() -> Result<Ports, String> {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let table_name = std::env::var("TABLE_NAME").ok();
    let table: Arc<dyn Table> = match storage(data_dir(), table_name, cfg!(feature = "embedded"))? {
        Storage::Dynamo(name) => {
            crate::sdk::require_region().await?;
            Arc::new(DynamoTable::from_env(&name, clock.clone()).await)
        }
        #[cfg(feature = "embedded")]
        Storage::Embedded(dir) => embedded::table(&dir, clock.clone())?,
        #[cfg(not(feature = "embedded"))]
        Storage::Embedded(_) => return Err("no embedded engine in this build".into()),
    };
    Ok(shared::adapters::ports(table, clock))
}

/// `ports` with the jobs, deliveries and VERI*FACTU submission queues.
pub async fn with_queues(ports: Ports) -> Result<Ports, String> {
    #[cfg(feature = "embedded")]
    if let Some(dir) = data_dir() {
        return embedded::with_queues(ports, &dir);
    }
    let [jobs, deliveries, submissions] = [
        "JOBS_QUEUE_URL",
        "DELIVERIES_QUEUE_URL",
        "SUBMISSIONS_QUEUE_URL",
    ]
    .map(configured);
    Ok(ports
        .with_queues(sqs_queue(jobs).await, sqs_queue(deliveries).await)
        .with_submissions(sqs_queue(submissions).await))
}

/// `ports` with the blobs that stage async jobs' inputs.
pub async fn with_blobs(ports: Ports) -> Result<Ports, String> {
    #[cfg(feature = "embedded")]
    if let Some(dir) = data_dir() {
        return Ok(ports.with_blobs(Arc::new(shared::embedded::FileBlobs::new(&dir))));
    }
    let blobs: Arc<dyn Blobs> = match configured("STAGING_BUCKET") {
        Some(bucket) => Arc::new(S3Blobs::from_env(&bucket).await),
        None => Arc::new(NoBlobs),
    };
    Ok(ports.with_blobs(blobs))
}

/// `ports` with the OCR engine of this host (see `ocr_engine`).
pub async fn with_ocr(ports: Ports) -> Result<Ports, String> {
    Ok(ports.with_ocr(ocr_from_env().await?))
}

/// `ports` sending webhooks over HTTP, to private addresses only when the
/// configuration allows it.
pub fn with_sender(ports: Ports, config: &Config) -> Ports {
    ports.with_sender(Arc::new(HttpWebhookSender::from_config(config)))
}

/// `ports` that send live VERI*FACTU records to the configured endpoint
/// with the certificates `with_secrets` opens.
pub async fn with_verifactu(ports: Ports, config: &Config) -> Ports {
    with_secrets(
        aeat_http::with_live_endpoint(ports, &config.aeat_endpoint),
        config,
    )
    .await
}

/// `ports` sealing certificates and webhook signing secrets with KMS (each
/// kind with its own key: `SVC_KMS_KEY_ID`, `SVC_KMS_WEBHOOK_KEY_ID`; a
/// kind whose key is not set is refused) or, with neither KMS key, with the
/// local key (`SVC_SECRETS_KEY`); unchanged when the configuration names no
/// key.
pub async fn with_secrets(ports: Ports, config: &Config) -> Ports {
    let secrets: Arc<dyn Secrets> = match (kms_keys(config), &config.secrets_key) {
        (Some(keys), _) => Arc::new(KmsSecrets::from_env(keys).await),
        (None, Some(key)) => Arc::new(LocalSecrets::new(key.clone())),
        (None, None) => return ports,
    };
    ports.with_secrets(secrets)
}

/// The KMS keys the configuration names, if it names any.
fn kms_keys(config: &Config) -> Option<KmsKeys> {
    let keys = KmsKeys {
        certificates: config.kms_key_id.clone(),
        webhook_secrets: config.kms_webhook_key_id.clone(),
    };
    (keys != KmsKeys::default()).then_some(keys)
}

/// `ports` with the AI model the configuration names (Bedrock, or an
/// OpenAI-compatible server), logged once; unchanged when it names none.
pub async fn with_ai(ports: Ports, config: &Config) -> Result<Ports, String> {
    let timeout = config.ai_timeout;
    let extractor: Arc<dyn AiExtractor> = match &config.ai {
        AiModel::Off => {
            tracing::info!("AI source off");
            return Ok(ports);
        }
        AiModel::Bedrock { model } => {
            tracing::info!(model, "AI source: Bedrock");
            Arc::new(BedrockAi::from_env(model, timeout).await)
        }
        AiModel::OpenAiCompatible { url, model, key } => {
            tracing::info!(url, model, "AI source: OpenAI-compatible server");
            Arc::new(OpenAiCompatible::new(url, model, key.clone(), timeout)?)
        }
    };
    Ok(ports.with_ai(AiSource { extractor, timeout }))
}

/// `ports` with the mailer the configuration names (SMTP or SES), logged
/// once; unchanged when it names none (sending answers that email is not
/// configured).
pub async fn with_mailer(ports: Ports, config: &Config) -> Result<Ports, String> {
    let (email, from): (Arc<dyn Email>, &String) = match &config.email {
        EmailTransport::Off => {
            tracing::info!("email off");
            return Ok(ports);
        }
        EmailTransport::Smtp { url, from } => {
            tracing::info!(from, "email: SMTP");
            (Arc::new(SmtpEmail::from_url(url)?), from)
        }
        EmailTransport::Ses {
            from,
            configuration_set,
        } => {
            tracing::info!(from, configuration_set, "email: SES");
            crate::sdk::require_region().await?;
            (
                Arc::new(SesEmail::from_env(configuration_set.clone()).await),
                from,
            )
        }
    };
    Ok(ports.with_mailer(Mailer {
        email,
        from: from.clone(),
    }))
}

/// The value of `var`, unless it is unset or empty (that adapter stays
/// unconfigured: its calls fail as unavailable), which is logged.
fn configured(var: &str) -> Option<String> {
    let value = std::env::var(var).ok().filter(|v| !v.is_empty());
    if value.is_none() {
        tracing::info!(var, "not configured");
    }
    value
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

    #[test]
    fn a_data_dir_selects_the_embedded_engine_only_in_a_build_that_has_it() {
        let dir = || Some(std::path::PathBuf::from("/data"));
        let table = || Some("svc".to_string());
        assert_eq!(
            storage(dir(), table(), true),
            Ok(Storage::Embedded("/data".into()))
        );
        for given in [None, table()] {
            let refused = storage(dir(), given, false).unwrap_err();
            assert!(refused.contains("no embedded engine"), "{refused}");
        }
        for embedded in [true, false] {
            assert_eq!(
                storage(None, table(), embedded),
                Ok(Storage::Dynamo("svc".into()))
            );
            let missing = storage(None, None, embedded).unwrap_err();
            assert_eq!(missing.contains("SVC_DATA_DIR"), embedded, "{missing}");
        }
    }

    #[test]
    fn each_kind_of_secret_takes_its_own_kms_key() {
        let config = |certificates: Option<&str>, webhooks: Option<&str>| Config {
            kms_key_id: certificates.map(String::from),
            kms_webhook_key_id: webhooks.map(String::from),
            ..Config::default()
        };
        assert_eq!(kms_keys(&config(None, None)), None);
        assert_eq!(
            kms_keys(&config(Some("certs"), None)),
            Some(KmsKeys {
                certificates: Some("certs".into()),
                webhook_secrets: None
            })
        );
        assert_eq!(
            kms_keys(&config(None, Some("hooks"))),
            Some(KmsKeys {
                certificates: None,
                webhook_secrets: Some("hooks".into())
            })
        );
        assert_eq!(
            kms_keys(&config(Some("certs"), Some("hooks"))),
            Some(KmsKeys {
                certificates: Some("certs".into()),
                webhook_secrets: Some("hooks".into())
            })
        );
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
