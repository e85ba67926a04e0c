//! An issued invoice as stored and as the API shows it. Stored whole, so a
//! document or a record can always be regenerated from it.

use chrono::{DateTime, NaiveDate, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::invoice::kind::Kind;
use crate::invoice::party::Party;
use crate::invoice::payments::{Instalment, PaymentEntry, PaymentStatus};
use crate::invoice::status::Status;
use crate::invoice::warnings::Warning;
use crate::tax::indirect::IndirectTax;
use crate::tax::money::{Money, Percent, as_number, decimal_from_json};
use crate::verifactu::status::RecordStatus;

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
pub struct LineView {
    pub description: String,
    #[serde(serialize_with = "as_number", deserialize_with = "decimal_from_json")]
    #[schema(value_type = f64)]
    pub quantity: Decimal,
    pub unit_price: Money,
    /// The unit price as sent, VAT included, when the invoice's prices
    /// include VAT; `unit_price` is then its price without VAT (to 6 decimals).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit_price_with_vat: Option<Money>,
    pub discount_percent: Percent,
    pub vat_rate: Percent,
    pub surcharge_rate: Percent,
    /// E1–E6, N1, N2 or S2 for lines at 0 %; absent for taxed lines.
    pub exemption: Option<String>,
    /// quantity × unit price − discount, rounded to cents.
    pub base: Money,
}

/// One VAT group: rate, surcharge rate and treatment, with its totals.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
pub struct GroupView {
    pub vat_rate: Percent,
    pub base: Money,
    pub vat_amount: Money,
    pub surcharge_rate: Percent,
    pub surcharge_amount: Money,
    pub exemption: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
pub struct Payment {
    /// `transfer`, `direct_debit`, `card`, `cash` or `other`.
    pub method: String,
    pub iban: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
pub struct IssuerView {
    pub name: String,
    pub tax_id: String,
    pub address: String,
    pub postal_code: String,
    pub city: String,
    pub province: Option<String>,
    pub country: String,
}

/// The invoice this one rectifies.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
pub struct Rectifies {
    pub id: u64,
    pub number: String,
    pub issue_date: NaiveDate,
    /// R1–R5.
    pub reason_code: Kind,
    /// `substitution` or `differences`.
    pub method: String,
    pub description: String,
    /// The amounts rectified: the rectified invoice's base, VAT and
    /// surcharge as its earlier rectifications left them (for a
    /// substitution, its record's ImporteRectificacion).
    pub rectified_base: Money,
    pub rectified_vat: Money,
    pub rectified_surcharge: Money,
}

/// Another invoice, as one that replaces or is replaced names it.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
pub struct InvoiceLink {
    pub id: u64,
    pub number: String,
    pub issue_date: NaiveDate,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
pub struct RectifiedBy {
    pub id: u64,
    pub number: String,
    pub method: String,
}

/// What happened to the invoice: `issued`, `accepted`, `rejected`, `paid`,
/// `unpaid`, `cancelled`, `rectified`, `verifactu_resubmitted` (a corrected
/// VERI*FACTU record), `payment` or `refund` (detail: payment id, amount,
/// date, method) or `overdue` (detail: which instalment), `replaced` (a
/// ticket replaced by a full invoice, F3), `sent` (emailed; `detail` names
/// the recipients), `send_failed` (the email provider refused it, or
/// reported later that it bounced; `detail` says why) or `send_complaint`
/// (a recipient marked it as spam).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum HistoryKind {
    Issued,
    Accepted,
    Rejected,
    Paid,
    Unpaid,
    Cancelled,
    Rectified,
    VerifactuResubmitted,
    Payment,
    Refund,
    Overdue,
    Replaced,
    Sent,
    SendFailed,
    SendComplaint,
}

impl From<Status> for HistoryKind {
    /// The history step of a status change.
    fn from(status: Status) -> Self {
        match status {
            Status::Issued => HistoryKind::Issued,
            Status::Accepted => HistoryKind::Accepted,
            Status::Rejected => HistoryKind::Rejected,
            Status::Paid => HistoryKind::Paid,
            Status::Unpaid => HistoryKind::Unpaid,
            Status::Cancelled => HistoryKind::Cancelled,
        }
    }
}

/// One step of the invoice's history.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
pub struct HistoryEvent {
    #[serde(rename = "type")]
    pub kind: HistoryKind,
    pub at: DateTime<Utc>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
pub struct VerifactuView {
    /// The registration record's state (test invoices: the simulator's
    /// answer; they never reach the AEAT).
    pub status: RecordStatus,
    /// Why a `pending` record is still pending: `certificate_missing` (the
    /// account's certificate is not stored; live records cannot be sent:
    /// the operator imports it with `svc issuer certificate`),
    /// `certificate_expired` (import a renewed one), `certificate_unreadable: …`
    /// (the host cannot open the stored certificate), `waiting` (the AEAT's
    /// flow control), `aeat_unavailable: …` or `aeat_fault: …` (retried with
    /// backoff). Test invoices never wait for a certificate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_reason: Option<String>,
    /// The AEAT's answer for the registration record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<AeatAnswer>,
    pub hash: String,
    /// The previous record's hash in the issuer's chain; absent for the first record.
    pub previous_hash: Option<String>,
    /// The cotejo URL the invoice's QR code carries.
    pub qr_url: String,
    /// The registration record with the AEAT element names as keys: the literal
    /// strings that were hashed, so anyone can recompute `hash`.
    #[schema(value_type = Object)]
    pub record: serde_json::Value,
    /// The cancellation record, once cancelled.
    #[schema(value_type = Option<Object>)]
    pub cancellation: Option<serde_json::Value>,
    /// The cancellation record's state, as `status`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancellation_status: Option<RecordStatus>,
    /// The AEAT's answer for the cancellation record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancellation_answer: Option<AeatAnswer>,
}

/// What the AEAT answered for one record.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
pub struct AeatAnswer {
    /// `Correcto`, `AceptadoConErrores` or `Incorrecto` (EstadoRegistro).
    pub state: String,
    /// The submission's secure verification code (CSV), when it was not rejected as a whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csv: Option<String>,
    /// CodigoErrorRegistro.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<u32>,
    /// DescripcionErrorRegistro.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The AEAT already held this record (a resend): it counts as accepted.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub duplicate: bool,
    /// The message's answer was lost; the AEAT's query said it holds this
    /// record (no CSV then: queries return none).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub resolved_by_query: bool,
    pub submitted_at: DateTime<Utc>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
pub struct Invoice {
    pub id: u64,
    pub object: String,
    pub number: String,
    pub kind: Kind,
    /// The code of the series it is numbered in (see `/api/v1/series`);
    /// absent on invoices issued before series existed (theirs is the
    /// number's leading letters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series: Option<String>,
    /// A qualified simplified invoice (RD 1619/2012 art. 7.2/7.3): an F1
    /// with the customer's NIF and address at their request, numbered in a
    /// simplified series; VERI*FACTU `FacturaSimplificadaArt7273=S`.
    #[serde(default)]
    pub qualified_simplified: bool,
    /// A full invoice without the customer's identification (art. 6.1.d):
    /// an F2 in an ordinary series; VERI*FACTU `FacturaSinIdentifDestinatarioArt61d=S`.
    #[serde(default)]
    pub without_recipient_id: bool,
    /// The lines' unit prices include VAT, as shops print them: each VAT
    /// group's base is its VAT-inclusive amount ÷ (1 + rate), rounded to
    /// cents, and its VAT the rest, so the total is what the prices add up to.
    #[serde(default)]
    pub prices_include_vat: bool,
    /// The indirect tax the issuer charges, by where it is established
    /// (its postal code): `iva`; `igic` in the Canary Islands; `ipsi` in
    /// Ceuta and Melilla. The rates and amounts named `vat_…` are of this tax.
    #[serde(default)]
    pub tax: IndirectTax,
    /// Issued under the special cash-accounting regime (the account had
    /// opted in, LIVA art. 163 decies; IVA only): the invoice says so (RD
    /// 1619/2012 art. 6.1.p), its record's ClaveRegimen is 07 and its output
    /// VAT accrues as it is collected, or on 31 December of the year after
    /// the operation (art. 163 terdecies). Absent when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cash_accounting: bool,
    pub status: Status,
    pub livemode: bool,
    pub issue_date: NaiveDate,
    pub operation_date: Option<NaiveDate>,
    /// The date by which the whole total is due: the last instalment's date.
    pub due_date: Option<NaiveDate>,
    pub issuer: IssuerView,
    #[schema(value_type = Option<Object>)]
    pub customer: Option<Party>,
    pub customer_id: Option<String>,
    pub lines: Vec<LineView>,
    /// Per VAT rate (and surcharge, exemption) group; rounding happens here.
    pub breakdown: Vec<GroupView>,
    pub base: Money,
    pub vat_amount: Money,
    pub surcharge_amount: Money,
    pub irpf_rate: Percent,
    pub irpf_amount: Money,
    /// base + vat_amount + surcharge_amount − irpf_amount.
    pub total: Money,
    pub currency: String,
    pub notes: Option<String>,
    pub payment: Option<Payment>,
    /// The due dates and the amount due on each, in date order; they add up
    /// to the total. Empty for invoices with nothing to collect, rectifying
    /// invoices and invoices issued before instalments existed (their
    /// `due_date`, if any, counts as one instalment of the total).
    #[serde(default)]
    pub instalments: Vec<Instalment>,
    /// Payments and refunds (negative) recorded against the invoice, oldest first.
    #[serde(default)]
    pub payments: Vec<PaymentEntry>,
    /// Derived from instalments, payments and today (Madrid): `paid` once the
    /// amount paid reaches the total (also when there is nothing to collect);
    /// `overdue` while an instalment whose date has passed is not covered
    /// (payments cover instalments in date order; never for a cancelled
    /// invoice); `partially_paid` when something is paid; else `unpaid`.
    #[serde(default)]
    pub payment_status: PaymentStatus,
    /// The sum of the payments.
    #[serde(default)]
    pub amount_paid: Money,
    /// What is left to collect: total + rectifications_total − amount_paid,
    /// never below 0; 0 once cancelled and for rectifying invoices (their
    /// amounts count in the invoice they rectify, whose balance it is).
    #[serde(default)]
    pub amount_due: Money,
    /// What its rectifications changed the amount to collect by: the credits
    /// and debits by differences, and a substitution's total less the
    /// amount it replaced (negative when credited). The invoice's balance
    /// is `total + rectifications_total`; payments of a rectified invoice
    /// are recorded against it, not against its rectifying invoices.
    /// When payments exceed the balance (e.g. a paid invoice credited) it
    /// is `paid` with nothing due, and the excess is returned to the
    /// customer by recording a refund (a negative payment).
    #[serde(default)]
    pub rectifications_total: Money,
    /// The date of the last payment once fully paid (the effective payment
    /// date of RD 238/2026 art. 10.1.b); null otherwise.
    #[serde(default)]
    pub paid_at: Option<NaiveDate>,
    pub rectifies: Option<Rectifies>,
    pub rectified_by: Vec<RectifiedBy>,
    /// An F3: the simplified invoices it replaces (VERI*FACTU `FacturasSustituidas`).
    #[serde(default)]
    pub replaces: Vec<InvoiceLink>,
    /// A simplified invoice replaced by a full one (F3): that invoice.
    #[serde(default)]
    pub replaced_by: Option<InvoiceLink>,
    pub events: Vec<HistoryEvent>,
    /// What the law leaves room for but should be checked, found when the
    /// invoice was issued (it was issued): `payment_term_over_60_days`
    /// (Ley 3/2004 art. 4.3), `r2_conditions` (art. 80.Tres Ley 37/1992),
    /// `r3_too_early` or `r3_too_late` (art. 80.Cuatro). Messages are in
    /// English and name the article.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
    pub verifactu: VerifactuView,
    pub created_at: DateTime<Utc>,
}

impl Invoice {
    /// A simplified invoice in law: an F2 ticket, a qualified simplified
    /// invoice or a rectification of a simplified invoice (R5).
    pub fn is_simplified(&self) -> bool {
        match self.kind {
            Kind::F2 => !self.without_recipient_id,
            Kind::R5 => true,
            _ => self.qualified_simplified,
        }
    }

    /// The reason given when the invoice was cancelled, if any.
    pub fn cancellation_reason(&self) -> Option<&str> {
        self.events
            .iter()
            .rev()
            .find(|e| e.kind == HistoryKind::Cancelled)
            .and_then(|e| e.detail.as_deref())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// An invoice as stored before instalments and payments existed.
    pub(crate) fn stored_before_payments() -> serde_json::Value {
        serde_json::json!({
            "id": 7, "object": "invoice", "number": "F2026-000007", "kind": "F1",
            "status": "issued", "livemode": true, "issue_date": "2026-11-21",
            "operation_date": null, "due_date": null,
            "issuer": {"name": "Demo", "tax_id": "12345678Z", "address": "Calle Mayor 1",
                "postal_code": "28013", "city": "Madrid", "province": null, "country": "ES"},
            "customer": null, "customer_id": null, "lines": [], "breakdown": [],
            "base": 100, "vat_amount": 21, "surcharge_amount": 0, "irpf_rate": 0,
            "irpf_amount": 0, "total": 121, "currency": "EUR", "notes": null,
            "payment": null, "rectifies": null, "rectified_by": [],
            "events": [{"type": "issued", "at": "2026-11-21T10:00:00Z"}],
            "verifactu": {"status": "accepted", "hash": "AB", "previous_hash": null,
                "qr_url": "https://example.com", "record": {}, "cancellation": null},
            "created_at": "2026-11-21T10:00:00Z"
        })
    }

    #[test]
    fn invoices_stored_before_payments_still_read() {
        let invoice: Invoice = serde_json::from_value(stored_before_payments()).unwrap();
        assert!(invoice.instalments.is_empty() && invoice.payments.is_empty());
        assert_eq!(invoice.payment_status, PaymentStatus::Unpaid);
        assert_eq!(invoice.paid_at, None);
    }
}
