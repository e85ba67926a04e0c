//! The AEAT's correction path (Subsanación) for an invoice's record that it
//! rejected or accepted with errors: once the account has fixed what was
//! wrong (e.g. an issuer name that did not match the census), the record is
//! made again from the stored invoice under the account's current issuer
//! name and goes at the chain's head as a new link (the chain is never
//! rewritten), pending, for the submitter:
//! - a rejected registration: a RegistroAlta with Subsanacion S and
//!   RechazoPrevio X (the AEAT holds no record of the invoice);
//! - a registration accepted with errors: a RegistroAlta with Subsanacion S
//!   (it replaces the one the AEAT holds);
//! - a rejected cancellation: a RegistroAnulacion with RechazoPrevio S (and
//!   SinRegistroPrevio S when the registration was rejected too).

use super::reason;
use crate::app::invoices::error::InvoiceError;
use crate::app::invoices::issue::account_issuer;
use crate::app::invoices::record;
use crate::app::invoices::store::{self, RecordOwner};
use crate::app::keys::Caller;
use crate::invoice::model::{HistoryEvent, HistoryKind, Invoice, VerifactuView};
use crate::ports::Ports;
use crate::ports::table::Write;
use crate::verifactu::aeat::Operation;
use crate::verifactu::status::RecordStatus;
use crate::verifactu::{Correction, SystemInfo};

/// Which record of the invoice goes again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Resend {
    Registration(Correction),
    Cancellation,
}

/// What to send again for an invoice in this VERI*FACTU state, or why
/// nothing can be (409 `invalid_state`, saying what to do instead).
fn resend(verifactu: &VerifactuView) -> Result<Resend, InvoiceError> {
    let refuse = |why: &str| Err(InvoiceError::InvalidState(why.to_string()));
    match verifactu.cancellation_status {
        Some(RecordStatus::Rejected) => return Ok(Resend::Cancellation),
        Some(RecordStatus::Pending) => {
            return refuse(
                "the invoice's cancellation record is pending: wait for the AEAT's answer (verifactu.cancellation_status); only a rejected record can be resubmitted",
            );
        }
        Some(_) => {
            return refuse(
                "the AEAT accepted the invoice's cancellation: there is nothing to resubmit",
            );
        }
        None => {}
    }
    match verifactu.status {
        RecordStatus::Rejected => Ok(Resend::Registration(Correction::OfRejected)),
        RecordStatus::AcceptedWithErrors => Ok(Resend::Registration(Correction::OfAccepted)),
        RecordStatus::Pending => refuse(
            "the invoice's record is pending: wait for the AEAT's answer (verifactu.status); only a record rejected or accepted with errors can be resubmitted",
        ),
        RecordStatus::Accepted => refuse(
            "the AEAT accepted the invoice's record: there is nothing to resubmit; to change the invoice, issue a rectifying invoice (POST /api/v1/invoices/{id}/rectify)",
        ),
    }
}

/// The history note of a resend after the AEAT's answer `code`.
fn detail(resend: Resend, code: Option<u32>) -> String {
    let what = match resend {
        Resend::Registration(Correction::OfRejected) => {
            "RegistroAlta sent again (Subsanacion S, RechazoPrevio X) after its rejection"
        }
        Resend::Registration(Correction::OfAccepted) => {
            "RegistroAlta corrected (Subsanacion S) after its acceptance with errors"
        }
        Resend::Cancellation => {
            "RegistroAnulacion sent again (RechazoPrevio S) after its rejection"
        }
    };
    match code {
        Some(code) => format!("{what} (code {code})"),
        None => what.to_string(),
    }
}

/// Makes the invoice's corrected record, appends it to its chain, and moves
/// the invoice's view to it; returns the invoice and the writes of one
/// transaction.
pub async fn resubmit(
    ports: &Ports,
    caller: &Caller,
    system: &SystemInfo,
    id: u64,
) -> Result<(Invoice, Vec<Write>), InvoiceError> {
    let (mut invoice, version) = store::get(ports, caller, id).await?;
    let resend = resend(&invoice.verifactu)?;
    let issuer = account_issuer(ports, caller).await?;
    if issuer.tax_id != invoice.issuer.tax_id {
        return Err(InvoiceError::InvalidState(format!(
            "the account's issuer NIF is now {}, but invoice {} was issued by {}: a record cannot change its issuer; cancel the invoice and issue it again",
            issuer.tax_id, invoice.number, invoice.issuer.tax_id
        )));
    }
    let now = ports.clock.now();
    let chain = store::chain_pk(caller, &invoice.issuer.tax_id);
    let (head, owner) = tokio::try_join!(
        store::chain_head(ports, &chain),
        store::chain_owner(ports, caller, &invoice.issuer.tax_id),
    )?;
    let answer = match resend {
        Resend::Registration(_) => &invoice.verifactu.answer,
        Resend::Cancellation => &invoice.verifactu.cancellation_answer,
    };
    let note = detail(resend, answer.as_ref().and_then(|a| a.code));
    let (built, operation) = match resend {
        Resend::Registration(correction) => {
            let built = record::registration_of(
                &invoice,
                &issuer.name,
                Some(correction),
                head.as_ref(),
                system,
                now,
            )
            .build();
            invoice.issuer.name = issuer.name;
            let v = &mut invoice.verifactu;
            v.status = RecordStatus::Pending;
            v.status_reason = reason::unsendable(ports, &caller.account_id, caller.mode).await?;
            v.answer = None;
            v.hash = built.hash.clone();
            v.previous_hash = head.as_ref().map(|h| h.hash.clone());
            v.record = built.json.clone();
            (built, Operation::Alta)
        }
        Resend::Cancellation => {
            let built = record::cancellation(&invoice, true, head.as_ref(), system, now).build();
            let v = &mut invoice.verifactu;
            v.cancellation = Some(built.json.clone());
            v.cancellation_status = Some(RecordStatus::Pending);
            v.cancellation_answer = None;
            (built, Operation::Anulacion)
        }
    };
    invoice.events.push(HistoryEvent {
        kind: HistoryKind::VerifactuResubmitted,
        at: now,
        detail: Some(note),
    });
    let mut writes = vec![store::replace(caller, &invoice, version)];
    writes.extend(store::append(
        &chain,
        head.as_ref(),
        &built,
        &RecordOwner {
            account: &caller.account_id,
            invoice_id: invoice.id,
            number: &invoice.number,
            issue_date: invoice.issue_date,
            issuer_name: &invoice.issuer.name,
            operation,
            simulated_error: None,
        },
    ));
    writes.extend(owner);
    Ok((invoice, writes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(status: &str, cancellation_status: Option<&str>) -> VerifactuView {
        VerifactuView {
            status: RecordStatus::parse(status).unwrap(),
            status_reason: None,
            answer: None,
            hash: "A".repeat(64),
            previous_hash: None,
            qr_url: String::new(),
            record: serde_json::Value::Null,
            cancellation: None,
            cancellation_status: cancellation_status.map(|s| RecordStatus::parse(s).unwrap()),
            cancellation_answer: None,
        }
    }

    fn refusal(v: VerifactuView) -> String {
        match resend(&v) {
            Err(InvoiceError::InvalidState(why)) => why,
            other => panic!("a 409, not {other:?}"),
        }
    }

    #[test]
    fn what_goes_again_follows_the_aeats_answer() {
        assert_eq!(
            resend(&view("rejected", None)).unwrap(),
            Resend::Registration(Correction::OfRejected)
        );
        assert_eq!(
            resend(&view("accepted_with_errors", None)).unwrap(),
            Resend::Registration(Correction::OfAccepted)
        );
        for status in ["rejected", "accepted", "accepted_with_errors"] {
            assert_eq!(
                resend(&view(status, Some("rejected"))).unwrap(),
                Resend::Cancellation
            );
        }
    }

    #[test]
    fn anything_else_is_refused_saying_what_to_do() {
        assert!(refusal(view("pending", None)).contains("wait for the AEAT's answer"));
        assert!(refusal(view("accepted", None)).contains("rectifying invoice"));
        assert!(refusal(view("rejected", Some("pending"))).contains("wait"));
        assert!(
            refusal(view("accepted", Some("accepted")))
                .contains("accepted the invoice's cancellation")
        );
    }

    #[test]
    fn the_history_says_which_record_went_again_and_why() {
        assert_eq!(
            detail(Resend::Registration(Correction::OfRejected), Some(1104)),
            "RegistroAlta sent again (Subsanacion S, RechazoPrevio X) after its rejection (code 1104)"
        );
        assert_eq!(
            detail(Resend::Cancellation, None),
            "RegistroAnulacion sent again (RechazoPrevio S) after its rejection"
        );
    }
}
