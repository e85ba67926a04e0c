//! Ports: the traits the core needs from the outside world. Adapters live in
//! `crate::embedded` (one process, local files) and in the `infra-aws` crate.

pub mod aeat;
pub mod ai;
#[cfg(any(test, feature = "contract-tests"))]
pub mod ai_contract;
pub mod blobs;
#[cfg(any(test, feature = "contract-tests"))]
pub mod blobs_contract;
pub mod clock;
pub mod email;
#[cfg(any(test, feature = "contract-tests"))]
pub mod email_contract;
pub mod item_cache;
pub mod ocr;
#[cfg(any(test, feature = "contract-tests"))]
pub mod ocr_contract;
pub mod openai_ai;
pub mod queue;
#[cfg(any(test, feature = "contract-tests"))]
pub mod queue_contract;
#[cfg(any(test, feature = "contract-tests"))]
pub mod recording_queue;
pub mod secrets;
#[cfg(any(test, feature = "contract-tests"))]
pub mod secrets_contract;
pub mod serving;
pub mod smtp_email;
pub mod table;
#[cfg(any(test, feature = "contract-tests"))]
pub mod table_contract;
pub mod tls;
pub mod webhook_http;
pub mod webhook_sender;

use std::sync::Arc;

pub use aeat::Aeat;
pub use blobs::Blobs;
pub use clock::Clock;
pub use item_cache::ItemCache;
pub use ocr::Ocr;
pub use queue::Queue;
pub use secrets::Secrets;
pub use table::Table;
pub use webhook_sender::WebhookSender;

/// An error and its causes on one line (`error: cause: cause`): a TLS or
/// connection failure is often named only in a cause.
pub fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The ports a use case receives.
#[derive(Clone)]
pub struct Ports {
    pub table: Arc<dyn Table>,
    /// The table for per-request bookkeeping (see `Table::bookkeeping`).
    pub bookkeeping: Arc<dyn Table>,
    /// API keys and their accounts as read recently (see `ItemCache`).
    pub cache: Arc<ItemCache>,
    pub clock: Arc<dyn Clock>,
    pub ocr: Arc<dyn Ocr>,
    /// The queue of jobs (messages `{"job_id"}`).
    pub jobs: Arc<dyn Queue>,
    /// The queue of webhook deliveries (messages `{"webhook_id", "delivery_id"}`).
    pub deliveries: Arc<dyn Queue>,
    /// The VERI*FACTU submission queue (messages `{"chain"}`).
    pub submissions: Arc<dyn Queue>,
    pub blobs: Arc<dyn Blobs>,
    /// Webhook deliveries' HTTP client.
    pub sender: Arc<dyn WebhookSender>,
    /// Where live VERI*FACTU records go (`SVC_AEAT_ENDPOINT`), with the
    /// issuer's certificate; none on hosts that do not submit.
    pub aeat_live: Option<Arc<dyn Aeat>>,
    /// Where test records go instead: never the AEAT (the simulator).
    pub aeat_test: Arc<dyn Aeat>,
    /// Seals the issuers' certificates at rest; none on hosts without the key.
    pub secrets: Option<Arc<dyn Secrets>>,
    /// The AI model that proposes fields besides the parser (`SVC_AI_*`);
    /// none unless configured.
    pub ai: Option<ai::AiSource>,
    /// How invoices are emailed (SMTP or SES, `SVC_EMAIL_FROM`); none
    /// unless configured.
    pub mailer: Option<email::Mailer>,
}

impl Ports {
    /// The ports of a host without OCR, queues or blobs; add them with
    /// `with_ocr`, `with_queues` and `with_blobs`. Test VERI*FACTU records go to
    /// the simulator in-process, live ones nowhere until `with_aeat_live`. Webhooks go out through the
    /// guarded HTTP sender that reaches public addresses only (`with_sender`
    /// replaces it).
    pub fn new(table: Arc<dyn Table>, clock: Arc<dyn Clock>) -> Self {
        Ports {
            bookkeeping: table.clone().bookkeeping(),
            cache: Arc::new(ItemCache::new(item_cache::ITEM_CACHE_TTL)),
            table,
            ocr: Arc::new(ocr::NoOcr),
            jobs: Arc::new(queue::NoQueue),
            deliveries: Arc::new(queue::NoQueue),
            submissions: Arc::new(queue::NoQueue),
            blobs: Arc::new(blobs::NoBlobs),
            sender: Arc::new(webhook_http::HttpWebhookSender::new(false)),
            aeat_live: None,
            aeat_test: Arc::new(aeat::SimulatedAeat::fresh_each_message(clock.clone())),
            secrets: None,
            ai: None,
            mailer: None,
            clock,
        }
    }

    pub fn with_aeat_live(self, aeat: Arc<dyn Aeat>) -> Self {
        Ports {
            aeat_live: Some(aeat),
            ..self
        }
    }

    pub fn with_secrets(self, secrets: Arc<dyn Secrets>) -> Self {
        Ports {
            secrets: Some(secrets),
            ..self
        }
    }

    pub fn with_aeat_test(self, aeat: Arc<dyn Aeat>) -> Self {
        Ports {
            aeat_test: aeat,
            ..self
        }
    }

    pub fn with_queues(self, jobs: Arc<dyn Queue>, deliveries: Arc<dyn Queue>) -> Self {
        Ports {
            jobs,
            deliveries,
            ..self
        }
    }

    pub fn with_submissions(self, submissions: Arc<dyn Queue>) -> Self {
        Ports {
            submissions,
            ..self
        }
    }

    pub fn with_blobs(self, blobs: Arc<dyn Blobs>) -> Self {
        Ports { blobs, ..self }
    }

    pub fn with_ocr(self, ocr: Arc<dyn Ocr>) -> Self {
        Ports { ocr, ..self }
    }

    pub fn with_sender(self, sender: Arc<dyn WebhookSender>) -> Self {
        Ports { sender, ..self }
    }

    pub fn with_mailer(self, mailer: email::Mailer) -> Self {
        Ports {
            mailer: Some(mailer),
            ..self
        }
    }

    pub fn with_ai(self, ai: ai::AiSource) -> Self {
        Ports {
            ai: Some(ai),
            ..self
        }
    }
}
