//! The extracted invoice as the API returns it: every field read (null when
//! unknown), the amounts as JSON numbers with two decimals, the confidence of
//! each reading, the service's own checks and the warnings.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::{Serialize, Serializer};
use utoipa::ToSchema;

use super::qr::InvoiceQr;
use crate::tax::money::{as_number, round2};

fn amount<S: Serializer>(x: &Decimal, s: S) -> Result<S::Ok, S::Error> {
    as_number(&round2(*x), s)
}

fn optional_amount<S: Serializer>(x: &Option<Decimal>, s: S) -> Result<S::Ok, S::Error> {
    match x {
        Some(x) => amount(x, s),
        None => s.serialize_none(),
    }
}

/// Quantities and unit prices keep their printed decimals (`0.125` kg, `0.0450` €).
fn optional_number<S: Serializer>(x: &Option<Decimal>, s: S) -> Result<S::Ok, S::Error> {
    match x {
        Some(x) => as_number(&x.normalize(), s),
        None => s.serialize_none(),
    }
}

/// One extracted invoice (an element of `invoices` in an extraction result).
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[schema(example = json!({
    "file_name": "factura-2026-0147.pdf",
    "issuer_name": "Reformas Ibéricas Martínez, S.L.", "issuer_nif": "B12345674",
    "recipient_name": null, "recipient_nif": "12345678Z",
    "invoice_number": "2026/0147", "invoice_date": "2026-08-05",
    "base": 1546.5, "vat_rate": 21.0, "vat_amount": 324.77,
    "vat_breakdown": [{"rate": 21.0, "base": 1546.5, "vat_amount": 324.77}],
    "irpf_rate": 15.0, "irpf_amount": 231.98, "total": 1639.29, "currency": "EUR", "source": "ocr",
    "lines": [
        {"description": "Azulejos porcelánicos 60x60", "quantity": 35.0, "unit_price": 9.9,
            "amount": 346.5, "vat_rate": 21.0, "confidence": 0.91},
        {"description": "Mano de obra alicatado baño", "quantity": 24.0, "unit_price": 50.0,
            "amount": 1200.0, "vat_rate": 21.0, "confidence": 0.9}],
    "due_date": "2026-09-04", "iban": "ES9121000418450200051332",
    "confidence": {"issuer_name": 0.95, "issuer_nif": 0.94, "invoice_number": 0.94, "invoice_date": 0.94,
        "base": 0.94, "vat_amount": 0.93, "irpf_amount": 0.92, "total": 0.94,
        "due_date": 0.9, "iban": 0.93},
    "checks": {"totals_ok": true, "nif_valid": true, "recipient_nif_valid": true, "date_valid": true,
        "vat_rate_valid": true},
    "warnings": [], "qr": null
}))]
pub struct ExtractedInvoice {
    /// The name of the submitted file.
    pub file_name: String,
    pub issuer_name: Option<String>,
    /// The issuer's tax id: a Spanish NIF/CIF/NIE, normalised (no `ES`, spaces or
    /// dashes), or a foreign EU or UK VAT number with its country prefix (a
    /// British number printed after "VAT" without `GB` gets it when HMRC's
    /// check digits pass).
    pub issuer_nif: Option<String>,
    pub recipient_name: Option<String>,
    pub recipient_nif: Option<String>,
    pub invoice_number: Option<String>,
    /// `YYYY-MM-DD`.
    #[schema(value_type = Option<String>, format = Date)]
    pub invoice_date: Option<NaiveDate>,
    /// Taxable base (sum of the bases of every rate).
    #[serde(serialize_with = "optional_amount")]
    #[schema(value_type = Option<f64>)]
    pub base: Option<Decimal>,
    /// VAT percent: the only rate, or with several rates the rate of the largest base.
    #[serde(serialize_with = "optional_amount")]
    #[schema(value_type = Option<f64>)]
    pub vat_rate: Option<Decimal>,
    /// VAT amount (all rates; the equivalence surcharge is not included).
    #[serde(serialize_with = "optional_amount")]
    #[schema(value_type = Option<f64>)]
    pub vat_amount: Option<Decimal>,
    /// One entry per VAT rate.
    pub vat_breakdown: Vec<VatBreakdownLine>,
    /// IRPF withholding percent; null when none.
    #[serde(serialize_with = "optional_amount")]
    #[schema(value_type = Option<f64>)]
    pub irpf_rate: Option<Decimal>,
    /// Withheld amount; 0 when none. Negative on a credit invoice, like its
    /// base, VAT and total, so that base + VAT + surcharge − IRPF = total.
    #[serde(serialize_with = "amount")]
    #[schema(value_type = f64)]
    pub irpf_amount: Decimal,
    /// Invoice total: base + VAT + surcharge − withholding.
    #[serde(serialize_with = "optional_amount")]
    #[schema(value_type = Option<f64>)]
    pub total: Option<Decimal>,
    /// ISO 4217; `EUR` when the document does not say.
    pub currency: String,
    /// `einvoice:facturae`, `einvoice:ubl`, `einvoice:cii`, `einvoice:facturx`, `pdf_text`, `ocr` or `text`.
    pub source: String,
    /// The item lines as printed, in document order; empty when none were read.
    pub lines: Vec<LineItem>,
    /// The payment due date (the first instalment's, when there are several), `YYYY-MM-DD`.
    #[schema(value_type = Option<String>, format = Date)]
    pub due_date: Option<NaiveDate>,
    /// The account to pay into, upper case without spaces. Returned as
    /// printed even when its ISO 13616 (mod-97) check fails, with the
    /// warning `iban_invalid`.
    pub iban: Option<String>,
    /// Confidence of each field read, 0–1 (1 for e-invoices); fields not read are absent.
    pub confidence: BTreeMap<String, f64>,
    pub checks: Checks,
    /// Every check that failed and every oddity, with a stable code.
    pub warnings: Vec<Warning>,
    /// The exact data of the invoice's tax QR code (VERI*FACTU, non-VERI*FACTU
    /// or TicketBAI; for TicketBAI also its printed identifier alone), which
    /// replace the printed issuer NIF, number, date and total; null when the
    /// document shows none. Read from text PDFs and images.
    pub qr: Option<InvoiceQr>,
}

/// One VAT rate of the invoice.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct VatBreakdownLine {
    /// VAT (or IGIC/IPSI) percent.
    #[serde(serialize_with = "amount")]
    #[schema(value_type = f64)]
    pub rate: Decimal,
    #[serde(serialize_with = "amount")]
    #[schema(value_type = f64)]
    pub base: Decimal,
    #[serde(serialize_with = "amount")]
    #[schema(value_type = f64)]
    pub vat_amount: Decimal,
    /// Equivalence surcharge percent, when charged.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "optional_amount"
    )]
    #[schema(value_type = Option<f64>)]
    pub surcharge_rate: Option<Decimal>,
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "optional_amount"
    )]
    #[schema(value_type = Option<f64>)]
    pub surcharge_amount: Option<Decimal>,
}

/// One item line of the invoice, with the figures it prints (null when not printed).
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct LineItem {
    pub description: String,
    #[serde(serialize_with = "optional_number")]
    #[schema(value_type = Option<f64>)]
    pub quantity: Option<Decimal>,
    #[serde(serialize_with = "optional_number")]
    #[schema(value_type = Option<f64>)]
    pub unit_price: Option<Decimal>,
    /// The line's amount as printed (without VAT, unless the document prints
    /// prices with VAT included); negative on a credit note.
    #[serde(serialize_with = "optional_amount")]
    #[schema(value_type = Option<f64>)]
    pub amount: Option<Decimal>,
    /// VAT percent, when the line prints one.
    #[serde(serialize_with = "optional_amount")]
    #[schema(value_type = Option<f64>)]
    pub vat_rate: Option<Decimal>,
    /// Confidence of the line's reading, 0–1 (1 for e-invoices).
    pub confidence: f64,
}

/// The service's own validations of the invoice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct Checks {
    /// base + VAT + surcharge − IRPF equals the total within 0.01, and every
    /// rate's VAT is its base × rate within rounding.
    pub totals_ok: bool,
    /// The issuer's NIF passes its check character (a foreign EU VAT number:
    /// its form only).
    pub nif_valid: bool,
    /// Same for the recipient; null when the invoice shows no recipient id.
    pub recipient_nif_valid: Option<bool>,
    /// A real date, not in the future (Europe/Madrid), not before 2000.
    pub date_valid: bool,
    /// Every rate was in force on the invoice date (IGIC and IPSI against their own rates).
    pub vat_rate_valid: bool,
}

/// A failed check or an oddity: a stable snake_case code and a message,
/// Spanish first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct Warning {
    /// Checks: `totals_mismatch`, `vat_line_mismatch`, `surcharge_mismatch`,
    /// `total_missing`, `base_missing`, `vat_missing`, `issuer_nif_missing`,
    /// `issuer_nif_invalid`, `recipient_nif_invalid`, `foreign_vat_id`,
    /// `nif_placeholder`, `date_missing`, `date_in_future`, `date_too_old`,
    /// `vat_rate_missing`, `vat_rate_invalid`, `multiple_vat_rates`,
    /// `equivalence_surcharge`, `igic`, `ipsi`, `number_missing`,
    /// `foreign_currency`, `iban_invalid`. Reading (text, OCR): `invoice_date_unlabelled`,
    /// `nif_repaired`, `amount_repaired`, `vat_computed`, `base_computed`,
    /// `irpf_computed`, `vat_back_calculated`, `vat_exempt`, `suplidos`,
    /// `suplidos_outside_base`, `discount_applied`, `total_before_withholding`,
    /// `total_from_payment` (a ticket's total read from the card payment or
    /// as cash handed over less change), `text_truncated`, `einvoice_unreadable` (a PDF's embedded e-invoice
    /// could not be read; its text was). E-invoices: `credit_note`, `rectifying_invoice`,
    /// `self_billed`, `recipient_unidentified`, `several_invoices`,
    /// `payable_differs`, `prepaid_amount`, `possible_withholding`,
    /// `other_tax`, `other_withholding`, `withholding_without_breakdown`,
    /// `several_irpf_rates`, `tax_amount_missing`, `indirect_tax`,
    /// `mixed_indirect_taxes`, `surcharge_possibly_folded`, `total_computed`,
    /// `amounts_rounded`. QR: `qr_mismatch` (a printed issuer NIF, number, date
    /// or total differs from the tax QR code's, which is used; the message
    /// names the field and both values). The AI source, when the host configures one:
    /// `ai_filled` (the fields the model gave: values printed in the
    /// document, filling fields the reader left empty or replacing values
    /// that failed the checks), `ai_value_unsupported` (a value the model
    /// proposed that the document does not print; dropped, and named with
    /// its field), `ai_unavailable` (the model failed or was late; the
    /// reader's values stand).
    pub code: String,
    pub message: String,
}

impl Warning {
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        Warning {
            code: code.to_string(),
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::dec;
    use serde_json::json;

    #[test]
    fn amounts_are_numbers_and_unknowns_null() {
        let invoice = ExtractedInvoice {
            file_name: "f.pdf".into(),
            issuer_name: None,
            issuer_nif: Some("B12345674".into()),
            recipient_name: None,
            recipient_nif: None,
            invoice_number: None,
            invoice_date: NaiveDate::from_ymd_opt(2026, 8, 5),
            base: Some(dec!(1546.5)),
            vat_rate: Some(dec!(21)),
            vat_amount: Some(dec!(324.765)),
            vat_breakdown: vec![VatBreakdownLine {
                rate: dec!(21),
                base: dec!(1546.50),
                vat_amount: dec!(324.77),
                surcharge_rate: None,
                surcharge_amount: None,
            }],
            irpf_rate: None,
            irpf_amount: Decimal::ZERO,
            total: None,
            currency: "EUR".into(),
            source: "text".into(),
            lines: vec![LineItem {
                description: "Cable 2,5 mm".into(),
                quantity: Some(dec!(0.125)),
                unit_price: Some(dec!(1.2000)),
                amount: Some(dec!(0.15)),
                vat_rate: None,
                confidence: 0.9,
            }],
            due_date: NaiveDate::from_ymd_opt(2026, 9, 4),
            iban: None,
            confidence: BTreeMap::from([("base".to_string(), 0.95)]),
            checks: Checks {
                totals_ok: false,
                nif_valid: true,
                recipient_nif_valid: None,
                date_valid: true,
                vat_rate_valid: true,
            },
            warnings: vec![Warning::new("total_missing", "No se encontró el total")],
            qr: None,
        };
        let value = serde_json::to_value(&invoice).unwrap();
        assert_eq!(value["invoice_date"], json!("2026-08-05"));
        assert_eq!(value["base"], json!(1546.5));
        assert_eq!(value["vat_amount"], json!(324.77));
        assert_eq!(value["irpf_amount"], json!(0.0));
        assert_eq!(value["total"], json!(null));
        assert_eq!(value["irpf_rate"], json!(null));
        assert_eq!(
            value["vat_breakdown"][0],
            json!({"rate": 21.0, "base": 1546.5, "vat_amount": 324.77})
        );
        assert_eq!(value["checks"]["recipient_nif_valid"], json!(null));
        assert_eq!(
            value["lines"][0],
            json!({"description": "Cable 2,5 mm", "quantity": 0.125, "unit_price": 1.2,
                "amount": 0.15, "vat_rate": null, "confidence": 0.9})
        );
        assert_eq!(value["due_date"], json!("2026-09-04"));
        assert_eq!(value["iban"], json!(null));
        assert_eq!(value["warnings"][0]["code"], json!("total_missing"));
        assert_eq!(value["qr"], json!(null));
    }
}
