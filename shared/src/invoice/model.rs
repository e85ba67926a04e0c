//! An issued invoice as stored and as the API shows it. Stored whole, so a
//! document or a record can always be regenerated from it.

use chrono::{DateTime, NaiveDate, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::invoice::party::Party;
use crate::invoice::status::Status;
use crate::tax::money::{as_number, decimal_from_json};

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
pub struct LineView {
    pub description: String,
    #[serde(serialize_with = "as_number", deserialize_with = "decimal_from_json")]
    #[schema(value_type = f64)]
    pub quantity: Decimal,
    #[serde(serialize_with = "as_number", deserialize_with = "decimal_from_json")]
    #[schema(value_type = f64)]
    pub unit_price: Decimal,
    #[serde(serialize_with = "as_number", deserialize_with = "decimal_from_json")]
    #[schema(value_type = f64)]
    pub discount_percent: Decimal,
    #[serde(serialize_with = "as_number", deserialize_with = "decimal_from_json")]
    #[schema(value_type = f64)]
    pub vat_rate: Decimal,
    #[serde(serialize_with = "as_number", deserialize_with = "decimal_from_json")]
    #[schema(value_type = f64)]
    pub surcharge_rate: Decimal,
    /// E1–E6, N1, N2 or S2 for lines at 0 %; absent for taxed lines.
    pub exemption: Option<String>,
    /// quantity × unit price − discount, rounded to cents.
    #[serde(serialize_with = "as_number", deserialize_with = "decimal_from_json")]
    #[schema(value_type = f64)]
    pub base: Decimal,
}

/// One VAT group: rate, surcharge rate and treatment, with its totals.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
pub struct GroupView {
    #[serde(serialize_with = "as_number", deserialize_with = "decimal_from_json")]
    #[schema(value_type = f64)]
    pub vat_rate: Decimal,
    #[serde(serialize_with = "as_number", deserialize_with = "decimal_from_json")]
    #[schema(value_type = f64)]
    pub base: Decimal,
    #[serde(serialize_with = "as_number", deserialize_with = "decimal_from_json")]
    #[schema(value_type = f64)]
    pub vat_amount: Decimal,
    #[serde(serialize_with = "as_number", deserialize_with = "decimal_from_json")]
    #[schema(value_type = f64)]
    pub surcharge_rate: Decimal,
    #[serde(serialize_with = "as_number", deserialize_with = "decimal_from_json")]
    #[schema(value_type = f64)]
    pub surcharge_amount: Decimal,
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
    pub reason_code: String,
    /// `substitution` or `differences`.
    pub method: String,
    pub description: String,
    /// For substitution: the rectified invoice's base, VAT and surcharge (ImporteRectificacion).
    #[serde(serialize_with = "as_number", deserialize_with = "decimal_from_json")]
    #[schema(value_type = f64)]
    pub rectified_base: Decimal,
    #[serde(serialize_with = "as_number", deserialize_with = "decimal_from_json")]
    #[schema(value_type = f64)]
    pub rectified_vat: Decimal,
    #[serde(serialize_with = "as_number", deserialize_with = "decimal_from_json")]
    #[schema(value_type = f64)]
    pub rectified_surcharge: Decimal,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
pub struct RectifiedBy {
    pub id: u64,
    pub number: String,
    pub method: String,
}

/// One step of the invoice's history.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
pub struct HistoryEvent {
    /// `issued`, `accepted`, `rejected`, `paid`, `unpaid`, `cancelled`,
    /// `rectified`, `verifactu_resubmitted` (a corrected VERI*FACTU record),
    /// `sent` (emailed; `detail` names the recipients) or `send_failed`
    /// (the email provider refused it; `detail` says why).
    #[serde(rename = "type")]
    pub kind: String,
    pub at: DateTime<Utc>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
pub struct VerifactuView {
    /// The registration record's state: `pending` until the tax authority
    /// answers, then `accepted`, `accepted_with_errors` or `rejected` (test
    /// invoices: the simulator's answer; they never reach the AEAT).
    pub status: String,
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
    pub cancellation_status: Option<String>,
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
    pub submitted_at: DateTime<Utc>,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
pub struct Invoice {
    pub id: u64,
    pub object: String,
    pub number: String,
    /// F1 (full), F2 (simplified), R1–R5 (rectifying).
    pub kind: String,
    pub status: Status,
    pub livemode: bool,
    pub issue_date: NaiveDate,
    pub operation_date: Option<NaiveDate>,
    pub due_date: Option<NaiveDate>,
    pub issuer: IssuerView,
    #[schema(value_type = Option<Object>)]
    pub customer: Option<Party>,
    pub customer_id: Option<String>,
    pub lines: Vec<LineView>,
    /// Per VAT rate (and surcharge, exemption) group; rounding happens here.
    pub breakdown: Vec<GroupView>,
    #[serde(serialize_with = "as_number", deserialize_with = "decimal_from_json")]
    #[schema(value_type = f64)]
    pub base: Decimal,
    #[serde(serialize_with = "as_number", deserialize_with = "decimal_from_json")]
    #[schema(value_type = f64)]
    pub vat_amount: Decimal,
    #[serde(serialize_with = "as_number", deserialize_with = "decimal_from_json")]
    #[schema(value_type = f64)]
    pub surcharge_amount: Decimal,
    #[serde(serialize_with = "as_number", deserialize_with = "decimal_from_json")]
    #[schema(value_type = f64)]
    pub irpf_rate: Decimal,
    #[serde(serialize_with = "as_number", deserialize_with = "decimal_from_json")]
    #[schema(value_type = f64)]
    pub irpf_amount: Decimal,
    /// base + vat_amount + surcharge_amount − irpf_amount.
    #[serde(serialize_with = "as_number", deserialize_with = "decimal_from_json")]
    #[schema(value_type = f64)]
    pub total: Decimal,
    pub currency: String,
    pub notes: Option<String>,
    pub payment: Option<Payment>,
    pub rectifies: Option<Rectifies>,
    pub rectified_by: Vec<RectifiedBy>,
    pub events: Vec<HistoryEvent>,
    pub verifactu: VerifactuView,
    pub created_at: DateTime<Utc>,
}

impl Invoice {
    /// The reason given when the invoice was cancelled, if any.
    pub fn cancellation_reason(&self) -> Option<&str> {
        self.events
            .iter()
            .rev()
            .find(|e| e.kind == "cancelled")
            .and_then(|e| e.detail.as_deref())
    }
}
