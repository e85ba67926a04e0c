//! The `Email` contract suite against the SMTP adapter and the local
//! receiver (`support::smtp`).

use crate::support;

use std::sync::Arc;

use shared::adapters::smtp_email::SmtpEmail;
use shared::ports::email::OutgoingEmail;
use shared::ports::email_contract;

fn refused_recipient(message: OutgoingEmail) -> OutgoingEmail {
    message
}

#[tokio::test]
async fn smtp_passes_the_email_contract() {
    let Some(sink) = support::smtp::sink("SMTP email contract suite") else {
        return;
    };
    let email = Arc::new(SmtpEmail::from_url(&sink.url).unwrap());
    let unreachable = Arc::new(
        SmtpEmail::from_url(&format!(
            "smtp://127.0.0.1:{}",
            support::smtp::closed_port()
        ))
        .unwrap(),
    );
    email_contract::run(
        email,
        &sink,
        "Facturas <facturas@example.com>",
        refused_recipient,
        unreachable,
    )
    .await;
}
