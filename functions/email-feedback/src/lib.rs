//! The email-feedback function: each message of its batch is one SES notice
//! (`infra_aws::ses_feedback`); a bounce or complaint is recorded on the
//! invoice it was sent for (`app::invoices::send_feedback::record`). A
//! message that is not an SES notice, or whose recording failed, is
//! reported as a batch item failure: it comes back after the visibility
//! timeout and, after the queue's last receive, waits in its dead-letter
//! queue (whose alarm tells the operator). The rest are deleted.

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use infra_aws::ses_feedback;
use shared::app::invoices::send_feedback::{self, Recorded};
use shared::ports::Ports;

async fn one(ports: &Ports, body: Option<String>) -> Result<(), String> {
    let body = body.ok_or("a message without a body")?;
    let Some(feedback) = ses_feedback::parse(&body)? else {
        return Ok(());
    };
    match send_feedback::record(ports, &feedback).await {
        Ok(Recorded::Recorded | Recorded::Again) => Ok(()),
        Ok(Recorded::Unknown) => {
            tracing::info!(
                message_id = %feedback.message_id,
                "an email report on a message no invoice send knows; nothing recorded"
            );
            Ok(())
        }
        Err(e) => Err(format!("{e:?}")),
    }
}

pub async fn handle(ports: &Ports, event: SqsEvent) -> SqsBatchResponse {
    let mut response = SqsBatchResponse::default();
    for record in event.records {
        let id = record.message_id.unwrap_or_default();
        if let Err(error) = one(ports, record.body).await {
            tracing::warn!(message = %id, %error, "email report not recorded; it comes back after the visibility timeout");
            response.add_failure(id);
        }
    }
    response
}
