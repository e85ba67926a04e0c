//! Amazon SES's reports on messages it accepted, as the stack's
//! configuration set publishes them to SNS and SNS hands them to SQS: the
//! body of each SQS message is SES's JSON notice (raw message delivery), or
//! SNS's envelope around it when raw delivery is off. A `Bounce` or
//! `Complaint` becomes a `shared::app::invoices::send_feedback::Feedback`;
//! the other event types SES can publish (`Delivery`, `Send`, …) are not
//! reports to record.

use chrono::{DateTime, Utc};
use serde::Deserialize;
use shared::app::invoices::send_feedback::{Feedback, FeedbackKind, Recipient};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Notice {
    /// Configuration-set event publishing names it `eventType`; an
    /// identity's own notifications, `notificationType`.
    #[serde(alias = "notificationType")]
    event_type: String,
    mail: Mail,
    bounce: Option<Bounce>,
    complaint: Option<Complaint>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Mail {
    message_id: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Bounce {
    feedback_id: String,
    /// `Permanent`, `Transient` or `Undetermined`.
    bounce_type: String,
    #[serde(default)]
    bounced_recipients: Vec<Addressee>,
    timestamp: DateTime<Utc>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Complaint {
    feedback_id: String,
    #[serde(default)]
    complained_recipients: Vec<Addressee>,
    timestamp: DateTime<Utc>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Addressee {
    email_address: String,
    diagnostic_code: Option<String>,
}

/// SNS's envelope, when the subscription does not deliver raw messages.
#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Envelope {
    #[serde(rename = "Type")]
    kind: String,
    message: String,
}

fn recipients(list: Vec<Addressee>) -> Vec<Recipient> {
    list.into_iter()
        .map(|a| Recipient {
            address: a.email_address,
            diagnostic: a.diagnostic_code,
        })
        .collect()
}

/// The report in an SQS message's body: `Ok(None)` for an event type that
/// is not a bounce or complaint, `Err` (saying what is wrong) for a body
/// that is not SES's notice.
pub fn parse(body: &str) -> Result<Option<Feedback>, String> {
    let notice: Notice = match serde_json::from_str::<Envelope>(body) {
        Ok(envelope) if envelope.kind == "Notification" => serde_json::from_str(&envelope.message),
        _ => serde_json::from_str(body),
    }
    .map_err(|e| format!("not an SES notice: {e}"))?;
    let message_id = notice.mail.message_id;
    let missing = |part: &str| format!("an SES {} notice without its `{part}`", notice.event_type);
    match notice.event_type.as_str() {
        "Bounce" => {
            let bounce = notice.bounce.ok_or_else(|| missing("bounce"))?;
            Ok(Some(Feedback {
                id: bounce.feedback_id,
                message_id,
                kind: FeedbackKind::Bounce {
                    permanent: bounce.bounce_type == "Permanent",
                },
                recipients: recipients(bounce.bounced_recipients),
                at: bounce.timestamp,
            }))
        }
        "Complaint" => {
            let complaint = notice.complaint.ok_or_else(|| missing("complaint"))?;
            Ok(Some(Feedback {
                id: complaint.feedback_id,
                message_id,
                kind: FeedbackKind::Complaint,
                recipients: recipients(complaint.complained_recipients),
                at: complaint.timestamp,
            }))
        }
        _ => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SES's bounce event as its documentation shows one (shortened).
    const BOUNCE: &str = r#"{
      "eventType": "Bounce",
      "bounce": {
        "bounceType": "Permanent",
        "bounceSubType": "General",
        "bouncedRecipients": [{"emailAddress": "recipient@example.com", "action": "failed",
          "status": "5.1.1", "diagnosticCode": "smtp; 550 5.1.1 user unknown"}],
        "timestamp": "2017-08-05T00:41:02.669Z",
        "feedbackId": "01000157c44f053b-61b59c11-9236-11e6-8f96-7be8aexample-000000",
        "reportingMTA": "dsn; mta.example.com"
      },
      "mail": {
        "timestamp": "2017-08-05T00:40:02.012Z",
        "source": "Sender Name <sender@example.com>",
        "sendingAccountId": "123456789012",
        "messageId": "EXAMPLE7c191be45-e9aedb9a-02f9-4d12-a87d-dd0099a07f8a-000000",
        "destination": ["recipient@example.com"],
        "headersTruncated": false,
        "tags": {"ses:configuration-set": ["ConfigSet"]}
      }
    }"#;

    #[test]
    fn a_bounce_names_its_message_recipients_and_time() {
        let feedback = parse(BOUNCE).unwrap().unwrap();
        assert_eq!(
            feedback.message_id,
            "EXAMPLE7c191be45-e9aedb9a-02f9-4d12-a87d-dd0099a07f8a-000000"
        );
        assert_eq!(
            feedback.id,
            "01000157c44f053b-61b59c11-9236-11e6-8f96-7be8aexample-000000"
        );
        assert_eq!(feedback.kind, FeedbackKind::Bounce { permanent: true });
        assert_eq!(
            feedback.recipients,
            [Recipient {
                address: "recipient@example.com".into(),
                diagnostic: Some("smtp; 550 5.1.1 user unknown".into()),
            }]
        );
        assert_eq!(feedback.at.to_rfc3339(), "2017-08-05T00:41:02.669+00:00");
        let soft = BOUNCE.replace("\"Permanent\"", "\"Transient\"");
        assert_eq!(
            parse(&soft).unwrap().unwrap().kind,
            FeedbackKind::Bounce { permanent: false }
        );
    }

    #[test]
    fn an_sns_envelope_and_an_identity_notification_read_the_same() {
        let envelope = serde_json::json!({
            "Type": "Notification",
            "MessageId": "95df01b4-ee98-5cb9-9903-4c221d41eb5e",
            "TopicArn": "arn:aws:sns:eu-west-1:123456789012:feedback",
            "Message": BOUNCE,
            "Timestamp": "2017-08-05T00:41:03.000Z",
        })
        .to_string();
        assert_eq!(parse(&envelope).unwrap(), parse(BOUNCE).unwrap());
        let identity = BOUNCE.replace("\"eventType\"", "\"notificationType\"");
        assert_eq!(parse(&identity).unwrap(), parse(BOUNCE).unwrap());
    }

    #[test]
    fn a_complaint_is_read_and_other_events_are_not_reports() {
        let complaint = r#"{"eventType": "Complaint",
          "complaint": {"complainedRecipients": [{"emailAddress": "recipient@example.com"}],
            "timestamp": "2017-08-05T00:41:02.669Z", "feedbackId": "fb-complaint",
            "complaintFeedbackType": "abuse"},
          "mail": {"messageId": "msg-2", "destination": ["recipient@example.com"]}}"#;
        let feedback = parse(complaint).unwrap().unwrap();
        assert_eq!(feedback.kind, FeedbackKind::Complaint);
        assert_eq!(feedback.id, "fb-complaint");
        assert_eq!(feedback.recipients[0].diagnostic, None);
        let delivery = r#"{"eventType": "Delivery", "mail": {"messageId": "msg-3"},
          "delivery": {"timestamp": "2017-08-05T00:41:02.669Z"}}"#;
        assert_eq!(parse(delivery), Ok(None));
    }

    #[test]
    fn what_is_not_a_notice_says_why() {
        assert!(
            parse("not json")
                .unwrap_err()
                .starts_with("not an SES notice")
        );
        assert!(parse(r#"{"eventType": "Bounce"}"#).is_err());
        assert_eq!(
            parse(r#"{"eventType": "Bounce", "mail": {"messageId": "m"}}"#).unwrap_err(),
            "an SES Bounce notice without its `bounce`"
        );
    }
}
