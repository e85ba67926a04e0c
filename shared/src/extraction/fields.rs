//! What a reader found on one invoice, before the checks: every field optional,
//! each with the reader's confidence (0–1; 1.0 for e-invoices).

use chrono::NaiveDate;
use rust_decimal::Decimal;

/// Where an invoice's figures were read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Facturae,
    Ubl,
    Cii,
    FacturX,
    PdfText,
    Ocr,
    Text,
}

impl Source {
    /// The wire name: `einvoice:facturae|ubl|cii|facturx`, `pdf_text`, `ocr`, `text`.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Facturae => "einvoice:facturae",
            Source::Ubl => "einvoice:ubl",
            Source::Cii => "einvoice:cii",
            Source::FacturX => "einvoice:facturx",
            Source::PdfText => "pdf_text",
            Source::Ocr => "ocr",
            Source::Text => "text",
        }
    }

    pub fn is_einvoice(self) -> bool {
        matches!(
            self,
            Source::Facturae | Source::Ubl | Source::Cii | Source::FacturX
        )
    }
}

/// A value with the confidence of its reading.
#[derive(Clone, Debug, PartialEq)]
pub struct Field<T> {
    pub value: T,
    pub confidence: f32,
}

impl<T> Field<T> {
    pub fn new(value: T, confidence: f32) -> Self {
        Field { value, confidence }
    }

    pub fn exact(value: T) -> Self {
        Field::new(value, 1.0)
    }
}

/// One VAT rate of an invoice (rates in percent, amounts in the invoice currency).
#[derive(Clone, Debug, PartialEq)]
pub struct VatLine {
    pub rate: Decimal,
    pub base: Decimal,
    pub vat_amount: Decimal,
    pub surcharge_rate: Option<Decimal>,
    pub surcharge_amount: Option<Decimal>,
}

/// One item line as printed: the figures a line shows (none computed), with
/// the confidence of its reading.
#[derive(Clone, Debug, PartialEq)]
pub struct ItemLine {
    pub description: String,
    pub quantity: Option<Decimal>,
    pub unit_price: Option<Decimal>,
    /// The line's amount as printed (before VAT, unless the document prints
    /// prices with VAT included).
    pub amount: Option<Decimal>,
    /// VAT percent, when the line prints one.
    pub vat_rate: Option<Decimal>,
    pub confidence: f32,
}

/// Everything a reader could read of one invoice. Amounts are positive
/// except on credit notes, which carry every amount negative (base, VAT,
/// surcharge, IRPF and total), so that total = base + VAT + surcharge − IRPF
/// holds for both.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Fields {
    pub issuer_name: Option<Field<String>>,
    pub issuer_nif: Option<Field<String>>,
    pub recipient_name: Option<Field<String>>,
    pub recipient_nif: Option<Field<String>>,
    pub invoice_number: Option<Field<String>>,
    pub invoice_date: Option<Field<NaiveDate>>,
    pub base: Option<Field<Decimal>>,
    pub vat_amount: Option<Field<Decimal>>,
    /// Per rate, when the document shows a breakdown (or a single rate).
    pub vat_breakdown: Vec<VatLine>,
    pub irpf_rate: Option<Field<Decimal>>,
    pub irpf_amount: Option<Field<Decimal>>,
    pub total: Option<Field<Decimal>>,
    /// ISO 4217; None when the document does not say (EUR is then assumed).
    pub currency: Option<String>,
    /// Oddities the reader itself noticed (a repaired OCR reading, a payable
    /// amount that differs from the total, IGIC instead of VAT …), as
    /// `(code, message)` with Spanish-first wording.
    pub notes: Vec<(String, String)>,
    /// The tax is IGIC (Canarias) or IPSI (Ceuta, Melilla) rather than VAT.
    pub indirect_tax: Option<String>,
    /// The item lines, in document order.
    pub lines: Vec<ItemLine>,
    pub due_date: Option<Field<NaiveDate>>,
    /// The account to pay into, upper case without spaces; as printed even
    /// when its check digits are wrong (the checks say so).
    pub iban: Option<Field<String>>,
}
