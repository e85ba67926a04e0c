//! Adapters both hosts use: they speak HTTP or SMTP to the world, not AWS
//! (`infra-aws`) or local files (`crate::embedded`). The hosts compose them
//! into `Ports` (`ports`: the sender and simulator every host starts from).

use std::sync::Arc;

use crate::ports::{Clock, Ports, Table};

/// The AEAT over HTTPS with the issuer's certificate, and `SVC_AEAT_ENDPOINT`.
pub mod aeat_http;
/// The AEAT's rules in-process (`verifactu::simulator`): where test records go.
pub mod aeat_simulated;
/// The `AiExtractor` adapter for OpenAI-compatible servers (`SVC_AI_URL`).
pub mod openai_ai;
/// The `Email` adapter over SMTP (`svc serve`).
pub mod smtp_email;
/// The rustls crypto provider under the service's own TLS clients.
pub mod tls;
/// The `WebhookSender` adapter: reqwest, with the SSRF guard in its resolver.
pub mod webhook_http;

/// The ports every host starts from: `table` and `clock`, webhooks through
/// the guarded HTTP sender that reaches public addresses only, test
/// VERI*FACTU records to the simulator in-process; add the rest with the
/// `Ports::with_…` builders.
pub fn ports(table: Arc<dyn Table>, clock: Arc<dyn Clock>) -> Ports {
    Ports::new(
        table,
        clock.clone(),
        Arc::new(webhook_http::HttpWebhookSender::new(false)),
        Arc::new(aeat_simulated::SimulatedAeat::fresh_each_message(clock)),
    )
}
