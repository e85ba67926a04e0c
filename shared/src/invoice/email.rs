//! An invoice as an email: who gets it, which documents go with it, and the
//! Spanish subject and text. Pure: the use case (`app::invoices::send`)
//! renders, sends and records.

use chrono::NaiveDate;
use rust_decimal::Decimal;

use crate::documents::pdf::format;
use crate::documents::{cii, facturae, pdf, ubl};
use crate::invoice::kind::Kind;
use crate::invoice::model::Invoice;

/// The most addresses in `to` and in `cc`.
pub const MAX_RECIPIENTS: usize = 10;
/// The longest personal message.
pub const MAX_MESSAGE_CHARS: usize = 2000;

/// A rendered document: its file name, content type and bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Document {
    pub filename: String,
    pub content_type: &'static str,
    pub bytes: Vec<u8>,
}

/// A document attached to the email.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attach {
    Pdf,
    Facturae,
    Ubl,
    Cii,
}

impl Attach {
    pub const ALL: [Attach; 4] = [Attach::Pdf, Attach::Facturae, Attach::Ubl, Attach::Cii];

    pub fn code(self) -> &'static str {
        match self {
            Attach::Pdf => "pdf",
            Attach::Facturae => "facturae",
            Attach::Ubl => "ubl",
            Attach::Cii => "cii",
        }
    }

    pub fn parse(code: &str) -> Option<Attach> {
        Attach::ALL.into_iter().find(|a| a.code() == code)
    }

    fn is_einvoice(self) -> bool {
        self != Attach::Pdf
    }

    /// The document of `invoice`, named as `GET /invoices/{id}/pdf` and
    /// `/xml` name it.
    pub fn render(self, invoice: &Invoice) -> Document {
        let (filename, content_type, bytes) = match self {
            Attach::Pdf => (
                format!("{}.pdf", invoice.number),
                "application/pdf",
                pdf::pdf(invoice),
            ),
            xml => {
                let generate: fn(&Invoice) -> String = match xml {
                    Attach::Facturae => facturae::facturae,
                    Attach::Ubl => ubl::ubl,
                    _ => cii::cii,
                };
                (
                    format!("{}-{}.xml", invoice.number, xml.code()),
                    "application/xml",
                    generate(invoice).into_bytes(),
                )
            }
        };
        Document {
            filename,
            content_type,
            bytes,
        }
    }
}

/// A request field that is wrong: (field, message).
pub type FieldError = (String, String);

/// The documents to attach: `["pdf"]` when not given; no repeats, at most
/// one e-invoice format, at least one document.
pub fn attachments(requested: Option<&[String]>) -> Result<Vec<Attach>, FieldError> {
    let Some(codes) = requested else {
        return Ok(vec![Attach::Pdf]);
    };
    if codes.is_empty() {
        return Err((
            "attach".into(),
            "attach at least one document: pdf, facturae, ubl or cii".into(),
        ));
    }
    let mut chosen: Vec<Attach> = Vec::new();
    for (i, code) in codes.iter().enumerate() {
        let field = format!("attach[{i}]");
        let attach = Attach::parse(code).ok_or_else(|| {
            (
                field.clone(),
                format!("{code:?} is not one of pdf, facturae, ubl, cii"),
            )
        })?;
        if chosen.contains(&attach) {
            return Err((field, format!("{code:?} is listed twice")));
        }
        if attach.is_einvoice() && chosen.iter().any(|a| a.is_einvoice()) {
            return Err((
                field,
                "attach at most one e-invoice format (facturae, ubl or cii)".into(),
            ));
        }
        chosen.push(attach);
    }
    Ok(chosen)
}

/// Whether `address` is a plain address a mail server takes
/// (`ana@example.com`; no display name).
fn is_address(address: &str) -> bool {
    let Some((local, domain)) = address.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && address.parse::<lettre::Address>().is_ok()
}

fn addresses(field: &str, list: &[String]) -> Result<Vec<String>, FieldError> {
    if list.len() > MAX_RECIPIENTS {
        return Err((field.into(), format!("at most {MAX_RECIPIENTS} addresses")));
    }
    list.iter()
        .enumerate()
        .map(|(i, raw)| {
            let address = raw.trim();
            if is_address(address) {
                Ok(address.to_string())
            } else {
                Err((
                    format!("{field}[{i}]"),
                    format!("{raw:?} is not an email address"),
                ))
            }
        })
        .collect()
}

/// The recipients: `to` as given, else the customer's email; `cc` as given.
pub fn recipients(
    to: Option<&[String]>,
    cc: Option<&[String]>,
    customer_email: Option<&str>,
) -> Result<(Vec<String>, Vec<String>), FieldError> {
    let to = match to {
        Some(list) if !list.is_empty() => addresses("to", list)?,
        Some(_) => return Err(("to".into(), "give at least one address in to".into())),
        None => match customer_email {
            Some(email) => addresses("to", &[email.to_string()]).map_err(|_| {
                (
                    "to".into(),
                    format!("the customer's email {email:?} is not an address; give to"),
                )
            })?,
            None => {
                return Err((
                    "to".into(),
                    "the invoice's customer has no email address; give the recipients in to".into(),
                ));
            }
        },
    };
    Ok((to, addresses("cc", cc.unwrap_or_default())?))
}

/// The personal message, trimmed; none when empty.
pub fn message(raw: Option<&str>) -> Result<Option<String>, FieldError> {
    let Some(text) = raw.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    if text.chars().count() > MAX_MESSAGE_CHARS {
        return Err((
            "message".into(),
            format!("at most {MAX_MESSAGE_CHARS} characters"),
        ));
    }
    Ok(Some(text.to_string()))
}

/// What the message says about an invoice.
pub struct Summary<'a> {
    /// F1, F2, R1–R5.
    pub kind: Kind,
    pub number: &'a str,
    pub issuer: &'a str,
    pub issue_date: NaiveDate,
    pub total: Decimal,
    pub due_date: Option<NaiveDate>,
}

impl<'a> From<&'a Invoice> for Summary<'a> {
    fn from(invoice: &'a Invoice) -> Self {
        Summary {
            kind: invoice.kind,
            number: &invoice.number,
            issuer: &invoice.issuer.name,
            issue_date: invoice.issue_date,
            total: invoice.total.value(),
            due_date: invoice.due_date,
        }
    }
}

fn what(invoice: &Summary) -> &'static str {
    if invoice.kind.is_rectifying() {
        "Factura rectificativa"
    } else {
        "Factura"
    }
}

/// `Factura F2026-000001 de Ana García Pérez`.
pub fn subject(invoice: &Summary) -> String {
    format!("{} {} de {}", what(invoice), invoice.number, invoice.issuer)
}

/// The text: the personal message, then the invoice's number, amount, due
/// date and the attached files, signed by the issuer.
pub fn text(invoice: &Summary, message: Option<&str>, files: &[String]) -> String {
    let mut text = String::from("Hola:\n\n");
    if let Some(message) = message {
        text.push_str(message);
        text.push_str("\n\n");
    }
    text.push_str(&format!(
        "Le enviamos la {} {} del {}, por un importe de {}",
        what(invoice).to_lowercase(),
        invoice.number,
        format::date(invoice.issue_date),
        format::amount(invoice.total),
    ));
    match invoice.due_date {
        Some(due) => text.push_str(&format!(", con vencimiento el {}.\n", format::date(due))),
        None => text.push_str(".\n"),
    }
    text.push_str(&format!(
        "Adjuntamos: {}.\n\nUn saludo,\n{}\n",
        files.join(", "),
        invoice.issuer
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_pdf_goes_by_default_and_one_einvoice_at_most() {
        assert_eq!(attachments(None), Ok(vec![Attach::Pdf]));
        assert_eq!(
            attachments(Some(&list(&["pdf", "ubl"]))),
            Ok(vec![Attach::Pdf, Attach::Ubl])
        );
        assert_eq!(
            attachments(Some(&list(&["facturae"]))),
            Ok(vec![Attach::Facturae])
        );
        assert_eq!(attachments(Some(&[])).unwrap_err().0, "attach");
        assert_eq!(
            attachments(Some(&list(&["pdf", "docx"]))).unwrap_err().0,
            "attach[1]"
        );
        assert_eq!(
            attachments(Some(&list(&["pdf", "pdf"]))).unwrap_err().0,
            "attach[1]"
        );
        let two = attachments(Some(&list(&["ubl", "cii"]))).unwrap_err();
        assert_eq!(two.0, "attach[1]");
        assert!(two.1.contains("at most one e-invoice"));
    }

    #[test]
    fn recipients_default_to_the_customer_and_are_checked() {
        assert_eq!(
            recipients(None, None, Some("ana@example.com")),
            Ok((list(&["ana@example.com"]), vec![]))
        );
        assert_eq!(
            recipients(
                Some(&list(&[" a@example.com "])),
                Some(&list(&["b@example.org"])),
                None
            ),
            Ok((list(&["a@example.com"]), list(&["b@example.org"])))
        );
        assert_eq!(recipients(None, None, None).unwrap_err().0, "to");
        assert_eq!(
            recipients(Some(&[]), None, Some("a@example.com"))
                .unwrap_err()
                .0,
            "to"
        );
        for bad in [
            "ana",
            "ana@localhost",
            "a b@example.com",
            "Ana <a@example.com>",
            "@example.com",
        ] {
            assert_eq!(
                recipients(Some(&list(&["ok@example.com", bad])), None, None)
                    .unwrap_err()
                    .0,
                "to[1]",
                "{bad}"
            );
        }
        assert_eq!(
            recipients(Some(&list(&["a@example.com"])), Some(&list(&["x"])), None)
                .unwrap_err()
                .0,
            "cc[0]"
        );
        let many = vec!["a@example.com".to_string(); MAX_RECIPIENTS + 1];
        assert_eq!(recipients(Some(&many), None, None).unwrap_err().0, "to");
    }

    #[test]
    fn the_message_is_spanish_with_the_amount_due_date_and_files() {
        let invoice = Summary {
            kind: Kind::F1,
            number: "F2026-000001",
            issuer: "Ana García Pérez",
            issue_date: NaiveDate::from_ymd_opt(2026, 11, 21).unwrap(),
            total: rust_decimal::dec!(1210),
            due_date: NaiveDate::from_ymd_opt(2026, 12, 21),
        };
        assert_eq!(
            subject(&invoice),
            "Factura F2026-000001 de Ana García Pérez"
        );
        let files = list(&["F2026-000001.pdf"]);
        assert_eq!(
            text(&invoice, Some("Gracias."), &files),
            "Hola:\n\nGracias.\n\nLe enviamos la factura F2026-000001 del 21/11/2026, por un importe \
             de 1.210,00 €, con vencimiento el 21/12/2026.\nAdjuntamos: F2026-000001.pdf.\n\n\
             Un saludo,\nAna García Pérez\n"
        );
        let rectifying = Summary {
            kind: Kind::R1,
            number: "R2026-000001",
            due_date: None,
            ..invoice
        };
        assert_eq!(
            subject(&rectifying),
            "Factura rectificativa R2026-000001 de Ana García Pérez"
        );
        let plain = text(&rectifying, None, &files);
        assert!(plain.starts_with("Hola:\n\nLe enviamos la factura rectificativa R2026-000001"));
        assert!(plain.contains("1.210,00 €.\n"), "{plain}");
    }

    #[test]
    fn messages_are_trimmed_and_bounded() {
        assert_eq!(message(None), Ok(None));
        assert_eq!(message(Some("  ")), Ok(None));
        assert_eq!(message(Some(" Gracias ")), Ok(Some("Gracias".into())));
        assert_eq!(
            message(Some(&"a".repeat(MAX_MESSAGE_CHARS + 1)))
                .unwrap_err()
                .0,
            "message"
        );
    }
}
