//! Ports: the traits the core needs from the outside world, and the contract
//! suite each one's adapters run. Adapters live in `crate::adapters` (HTTP
//! and SMTP, both hosts), `crate::embedded` (one process, local files) and
//! the `infra-aws` crate; the hosts compose them into `Ports`.

/// The AEAT's VERI*FACTU web service: the `Aeat` trait.
pub mod aeat;
/// The `AiExtractor` trait: an AI model that proposes an invoice's fields.
pub mod ai;
/// The contract suite every `AiExtractor` adapter runs.
#[cfg(any(test, feature = "contract-tests"))]
pub mod ai_contract;
/// The `Blobs` trait: short-lived large inputs (jobs, uploads) and presigned PUTs.
pub mod blobs;
/// The contract suite every `Blobs` adapter runs.
#[cfg(any(test, feature = "contract-tests"))]
pub mod blobs_contract;
/// The `Clock` trait, with the system clock and a manual one for tests.
pub mod clock;
/// The `Email` trait and the MIME message both its adapters send.
pub mod email;
/// The contract suite every `Email` adapter runs.
#[cfg(any(test, feature = "contract-tests"))]
pub mod email_contract;
/// The `Ocr` trait: an invoice image's words with their positions.
pub mod ocr;
/// The contract suite every `Ocr` adapter runs.
#[cfg(any(test, feature = "contract-tests"))]
pub mod ocr_contract;
/// The `Queue` trait: at-least-once messages carrying ids only.
pub mod queue;
/// The contract suite every `Queue` adapter runs.
#[cfg(any(test, feature = "contract-tests"))]
pub mod queue_contract;
/// A `Queue` test double that records what is sent.
#[cfg(any(test, feature = "contract-tests"))]
pub mod recording_queue;
/// The `Secrets` trait: sealing the issuers' certificates at rest.
pub mod secrets;
/// The contract suite every `Secrets` adapter runs.
#[cfg(any(test, feature = "contract-tests"))]
pub mod secrets_contract;
/// The `Table` trait: items keyed by `(pk, sk)`, conditional writes,
/// transactions, ordering and bookkeeping, with the rules both engines share.
pub mod table;
/// The contract suite every `Table` engine runs.
#[cfg(any(test, feature = "contract-tests"))]
pub mod table_contract;
/// The `WebhookSender` trait: one signed POST of an event to an endpoint.
pub mod webhook_sender;

use std::sync::Arc;

use crate::item_cache::{ITEM_CACHE_TTL, ItemCache};

pub use aeat::Aeat;
pub use blobs::Blobs;
pub use clock::Clock;
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
    /// `with_ocr`, `with_queues` and `with_blobs`. Webhooks go out through
    /// `sender`, test VERI*FACTU records to `aeat_test`, live ones nowhere
    /// until `with_aeat_live`. `crate::adapters::ports` gives the usual two.
    pub fn new(
        table: Arc<dyn Table>,
        clock: Arc<dyn Clock>,
        sender: Arc<dyn WebhookSender>,
        aeat_test: Arc<dyn Aeat>,
    ) -> Self {
        Ports {
            bookkeeping: table.clone().bookkeeping(),
            cache: Arc::new(ItemCache::new(ITEM_CACHE_TTL)),
            table,
            ocr: Arc::new(ocr::NoOcr),
            jobs: Arc::new(queue::NoQueue),
            deliveries: Arc::new(queue::NoQueue),
            submissions: Arc::new(queue::NoQueue),
            blobs: Arc::new(blobs::NoBlobs),
            sender,
            aeat_live: None,
            aeat_test,
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
