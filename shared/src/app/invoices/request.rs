//! The issue and rectify request bodies, and their validation into a draft.

use chrono::NaiveDate;
use rust_decimal::Decimal;
use rust_decimal::dec;
use serde::Deserialize;
use utoipa::ToSchema;

use super::error::InvoiceError;
use super::schedule::DueDateRequest;
use super::test_options::TestOptions;
use crate::app::customers::CustomerFields;
use crate::invoice::iban;
use crate::invoice::line::{Line, Treatment};
use crate::invoice::model::Payment;
use crate::invoice::totals::Prices;
use crate::tax::indirect::IndirectTax;
use crate::tax::money::{MAX_INTEGER_DIGITS, decimal_from_json, optional_decimal_from_json};

/// IRPF rates an invoice may carry (the withholding types' rates), with
/// the professional rates 15 % and 7 % reduced by 60 % (6 % and 2.8 %) for
/// income entitled to the Ceuta and Melilla deduction of art. 68.4 Ley
/// 35/2006 (RD 439/2007 art. 95).
pub const IRPF_RATES: [Decimal; 10] = [
    dec!(0),
    dec!(1),
    dec!(2),
    dec!(2.8),
    dec!(6),
    dec!(7),
    dec!(15),
    dec!(19),
    dec!(24),
    dec!(35),
];
/// The equivalence surcharge on tobacco products (art. 161 Ley 37/1992).
pub const TOBACCO_SURCHARGE: Decimal = dec!(1.75);
pub const MAX_LINES: usize = 500;
/// VERI*FACTU allows 12 breakdown lines: distinct (rate, surcharge, treatment) groups.
pub const MAX_GROUPS: usize = 12;
const QUANTITY_DECIMALS: u32 = 4;
const PRICE_DECIMALS: u32 = 6;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LineRequest {
    /// 1–500 characters.
    #[schema(min_length = 1, max_length = 500)]
    pub description: String,
    /// Up to 4 decimals; more than 0 (negative only in a rectification by differences).
    #[serde(deserialize_with = "decimal_from_json")]
    #[schema(value_type = f64)]
    pub quantity: Decimal,
    /// Without VAT; up to 6 decimals, 0 or more.
    #[serde(deserialize_with = "decimal_from_json")]
    #[schema(value_type = f64, minimum = 0)]
    pub unit_price: Decimal,
    /// Percent of the issuer's tax: VAT 21, 10, 4 or 0; IGIC (issuers in the
    /// Canary Islands) 0, 3, 7, 9.5, 15 or 20; IPSI (Ceuta and Melilla) 0.5,
    /// 1, 2, 3, 4, 6, 8 or 10. 0 needs an `exemption`.
    #[serde(deserialize_with = "decimal_from_json")]
    #[schema(value_type = f64)]
    pub vat_rate: Decimal,
    /// Percent, 0–100, up to 2 decimals.
    #[serde(default, deserialize_with = "optional_decimal_from_json")]
    #[schema(value_type = Option<f64>, minimum = 0, maximum = 100)]
    pub discount_percent: Option<Decimal>,
    /// For 0 % lines: E1–E6 (exempt), N1/N2 (not subject) or S2 (reverse charge).
    pub exemption: Option<String>,
    /// Tobacco products (labores del tabaco): with `equivalence_surcharge`,
    /// the line's surcharge is 1.75 % (art. 161 Ley 37/1992) instead of its
    /// VAT rate's. Default false.
    #[serde(default)]
    pub tobacco: bool,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PaymentRequest {
    /// `transfer`, `direct_debit`, `card`, `cash` or `other`.
    #[schema(pattern = "^(transfer|direct_debit|card|cash|other)$")]
    pub method: String,
    /// Checked (ISO 13616); required for `transfer` and `direct_debit`.
    pub iban: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"customer": {"name": "Taller Ana SL", "tax_id": "B64717838", "address": "Calle Real 4",
    "postal_code": "10003", "city": "Cáceres"}, "irpf_rate": 15,
    "lines": [{"description": "Diseño de logotipo", "quantity": 1, "unit_price": 1000, "vat_rate": 21}]}))]
pub struct IssueRequest {
    /// The customer inline (name, tax_id, address, postal_code, city; optional country, email).
    pub customer: Option<CustomerFields>,
    /// Or a customer of the address book (its details are copied into the invoice).
    pub customer_id: Option<String>,
    /// At least one, unless `replaces` is given (then none).
    #[serde(default)]
    pub lines: Vec<LineRequest>,
    /// Unit prices include VAT, as shops print them (default false): the
    /// VAT group's total is what the prices add up to; its base is that ÷
    /// (1 + rate), rounded to cents, and its VAT the rest. Not with
    /// `equivalence_surcharge`.
    #[serde(default)]
    pub prices_include_vat: bool,
    /// Absent: a full invoice (F1) when the customer has a tax id, else a
    /// simplified one (F2, a ticket). `true` with a customer's tax id and
    /// address: a qualified simplified invoice (art. 7.2/7.3: F1 with
    /// `FacturaSimplificadaArt7273`, in a simplified series). `false`
    /// without a tax id: a full invoice without the customer's
    /// identification (art. 6.1.d: F2 with
    /// `FacturaSinIdentifDestinatarioArt61d`, in an ordinary series), only
    /// for operations not located in Spain (every line N2), where the law
    /// does not require the customer's tax id. Simplified invoices are
    /// limited to 400 € (VAT included) each, or 3,000 € for an account whose
    /// activity RD 1619/2012 art. 4.2 lists (retail, restaurants, …), as its
    /// operator sets (`svc issuer simplified-limit`).
    pub simplified: Option<bool>,
    /// Ids of the account's simplified invoices (F2 tickets) this full
    /// invoice replaces (F3, e.g. when the customer asks for a full invoice
    /// of their tickets): it takes their lines, needs the customer's tax
    /// id, and is numbered in an ordinary series; the tickets are marked
    /// `replaced_by` and cannot be replaced, rectified or cancelled again.
    /// At most 100.
    pub replaces: Option<Vec<u64>>,
    /// IRPF withholding percent: 0, 1, 2, 7, 15, 19, 24 or 35; 6 or 2.8 for
    /// professional income entitled to the Ceuta and Melilla deduction (15 %
    /// and 7 % reduced by 60 %, art. 68.4 Ley 35/2006); default 0. Not with
    /// `equivalence_surcharge` (400 `surcharge_with_withholding`).
    #[serde(default, deserialize_with = "optional_decimal_from_json")]
    #[schema(value_type = Option<f64>)]
    pub irpf_rate: Option<Decimal>,
    /// The customer is under the equivalence surcharge regime.
    #[serde(default)]
    pub equivalence_surcharge: bool,
    /// Default today (Europe/Madrid); never in the future, never before the series' last invoice.
    pub issue_date: Option<NaiveDate>,
    pub operation_date: Option<NaiveDate>,
    /// One instalment of the whole total due on this date (not before the
    /// issue date). Without `due_date` and `due_dates`: one instalment of the
    /// total, due the account's payment terms after the issue date (30 days
    /// unless the account sets 0–60; Ley 3/2004 art. 4) — except for
    /// simplified invoices (tickets, paid at the counter) and invoices
    /// replacing tickets, which fall due only when asked.
    pub due_date: Option<NaiveDate>,
    /// Instalments instead of `due_date` (not both): 1–12, dates in ascending
    /// order and not before the issue date, amounts more than 0 with up to 2
    /// decimals adding up to the invoice total exactly (no rounding is done:
    /// split the cents yourself). 400 `parameter_invalid` naming the entry
    /// (`due_dates[1].date`) or `due_dates` for the sum. The invoice shows
    /// them as `instalments` and the last date as `due_date`.
    pub due_dates: Option<Vec<DueDateRequest>>,
    /// Up to 1,000 characters, printed on the invoice.
    pub notes: Option<String>,
    pub payment: Option<PaymentRequest>,
    /// The code of the series to number it in (see `/api/v1/series`); default:
    /// the default series of its purpose (`F` for full invoices, `S` for
    /// simplified ones). A series of another purpose is 400 `series_purpose_mismatch`.
    pub series: Option<String>,
    /// Test keys only (400 with a live key): ask the AEAT simulator for an
    /// answer, e.g. a rejection with a chosen error code.
    pub test_options: Option<TestOptions>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"reason_code": "R1", "method": "differences", "description": "Devolución de 1 unidad",
    "lines": [{"description": "Devolución", "quantity": -1, "unit_price": 100, "vat_rate": 21}]}))]
pub struct RectifyRequest {
    /// R1–R4 for full invoices, R5 for simplified (F2) ones.
    #[schema(pattern = "^R[1-5]$")]
    pub reason_code: String,
    /// `substitution` (the new invoice carries the correct full amounts) or
    /// `differences` (only the signed difference).
    #[schema(pattern = "^(substitution|differences)$")]
    pub method: String,
    /// Why the invoice is rectified (1–500 characters).
    pub description: String,
    /// Substitution: the correct lines (required). Differences: the signed
    /// difference lines; absent means the whole invoice is credited.
    pub lines: Option<Vec<LineRequest>>,
    /// The series to number it in; default: `R` for R1–R4 (rectifying
    /// invoices of full invoices), `RS` for R5 (of simplified ones), or the
    /// defaults set in `/api/v1/series`. R5 may also go into a simplified series.
    pub series: Option<String>,
}

fn invalid(param: String, message: impl Into<String>) -> InvoiceError {
    InvoiceError::invalid("parameter_invalid", param, message)
}

fn bounded(
    value: Decimal,
    decimals: u32,
    param: &str,
    what: &str,
) -> Result<Decimal, InvoiceError> {
    if value.normalize().scale() > decimals {
        return Err(invalid(
            param.into(),
            format!("{what} has more than {decimals} decimals"),
        ));
    }
    if value.abs() >= Decimal::from(10i64.pow(MAX_INTEGER_DIGITS)) {
        return Err(invalid(
            param.into(),
            format!("{what} has more than {MAX_INTEGER_DIGITS} integer digits"),
        ));
    }
    Ok(value.normalize())
}

pub fn text(
    value: &str,
    max: usize,
    param: &str,
    required: bool,
) -> Result<Option<String>, InvoiceError> {
    let trimmed = value.trim();
    if trimmed.is_empty() {
        return if required {
            Err(invalid(param.into(), format!("{param} must not be empty")))
        } else {
            Ok(None)
        };
    }
    if trimmed.chars().count() > max {
        return Err(invalid(
            param.into(),
            format!("{param} is longer than {max} characters"),
        ));
    }
    Ok(Some(trimmed.to_string()))
}

/// Validates lines against the rates of `tax` in force on `date`; `signed`
/// allows negative quantities (rectification by differences).
pub fn lines(
    requests: &[LineRequest],
    date: NaiveDate,
    surcharge: bool,
    signed: bool,
    tax: IndirectTax,
) -> Result<Vec<Line>, InvoiceError> {
    if surcharge && !tax.has_surcharge() {
        return Err(InvoiceError::invalid(
            "surcharge_not_applicable",
            "equivalence_surcharge".into(),
            format!(
                "the equivalence surcharge is a VAT regime; the issuer charges {}",
                tax.label()
            ),
        ));
    }
    if requests.is_empty() {
        return Err(InvoiceError::invalid(
            "parameter_missing",
            "lines".into(),
            "an invoice needs at least one line",
        ));
    }
    if requests.len() > MAX_LINES {
        return Err(invalid(
            "lines".into(),
            format!("at most {MAX_LINES} lines"),
        ));
    }
    requests
        .iter()
        .enumerate()
        .map(|(i, r)| line(r, i, date, surcharge, signed, tax))
        .collect()
}

fn line(
    r: &LineRequest,
    i: usize,
    date: NaiveDate,
    surcharge: bool,
    signed: bool,
    tax: IndirectTax,
) -> Result<Line, InvoiceError> {
    let p = |field: &str| format!("lines[{i}].{field}");
    let description = text(&r.description, 500, &p("description"), true)?.unwrap_or_default();
    let quantity = bounded(r.quantity, QUANTITY_DECIMALS, &p("quantity"), "quantity")?;
    if quantity.is_zero() || (quantity.is_sign_negative() && !signed) {
        let rule = if signed {
            "must not be 0"
        } else {
            "must be more than 0"
        };
        return Err(invalid(p("quantity"), format!("quantity {rule}")));
    }
    let unit_price = bounded(r.unit_price, PRICE_DECIMALS, &p("unit_price"), "unit_price")?;
    if unit_price.is_sign_negative() && !unit_price.is_zero() {
        return Err(invalid(
            p("unit_price"),
            "unit_price must be 0 or more (use a rectifying invoice to credit)",
        ));
    }
    let discount_percent = bounded(
        r.discount_percent.unwrap_or_default(),
        2,
        &p("discount_percent"),
        "discount_percent",
    )?;
    if discount_percent < Decimal::ZERO || discount_percent > Decimal::ONE_HUNDRED {
        return Err(invalid(
            p("discount_percent"),
            "discount_percent must be between 0 and 100",
        ));
    }
    let rate = tax.rate_on(r.vat_rate, date).map_err(|valid| {
        let list: Vec<String> = valid.iter().map(|v| v.to_string()).collect();
        invalid(
            p("vat_rate"),
            format!(
                "{} % is not a {} rate on {date}; valid rates: {}",
                r.vat_rate,
                tax.label(),
                list.join(", ")
            ),
        )
    })?;
    let treatment = match (&r.exemption, rate.rate.is_zero()) {
        (None, false) => Treatment::Taxed,
        (Some(code), true) => Treatment::parse_exemption(code).ok_or_else(|| {
            invalid(
                p("exemption"),
                format!("{code:?} is not one of E1, E2, E3, E4, E5, E6, N1, N2, S2"),
            )
        })?,
        (None, true) => {
            return Err(InvoiceError::invalid(
                "exemption_required",
                p("exemption"),
                "a 0 % line must say why: exemption E1–E6, not subject N1/N2 or reverse charge S2",
            ));
        }
        (Some(_), false) => return Err(invalid(p("exemption"), "an exemption needs vat_rate 0")),
    };
    let surcharge_rate = match (surcharge, treatment) {
        (false, _) => Decimal::ZERO,
        (true, Treatment::Taxed) if r.tobacco => TOBACCO_SURCHARGE,
        (true, Treatment::Taxed) => rate.surcharge,
        (true, _) => {
            return Err(InvoiceError::invalid(
                "surcharge_not_applicable",
                p("vat_rate"),
                "the equivalence surcharge applies only to taxed lines; this line has no VAT rate",
            ));
        }
    };
    Ok(Line {
        description,
        quantity,
        unit_price,
        discount_percent,
        vat_rate: rate.rate,
        surcharge_rate,
        treatment,
    })
}

/// How the lines' prices are meant; VAT-inclusive prices show no
/// equivalence surcharge, so the two do not go together.
pub fn prices(vat_included: bool, surcharge: bool) -> Result<Prices, InvoiceError> {
    match (vat_included, surcharge) {
        (false, _) => Ok(Prices::WithoutVat),
        (true, false) => Ok(Prices::VatIncluded),
        (true, true) => Err(invalid(
            "prices_include_vat".into(),
            "prices with VAT included do not go with the equivalence surcharge: send prices without VAT",
        )),
    }
}

pub fn irpf(rate: Option<Decimal>) -> Result<Decimal, InvoiceError> {
    let rate = rate.unwrap_or_default().normalize();
    if IRPF_RATES.contains(&rate) {
        Ok(rate)
    } else {
        let list: Vec<String> = IRPF_RATES.iter().map(|r| r.to_string()).collect();
        Err(invalid(
            "irpf_rate".into(),
            format!(
                "{rate} % is not an IRPF rate; valid rates: {}",
                list.join(", ")
            ),
        ))
    }
}

pub fn payment(request: Option<PaymentRequest>) -> Result<Option<Payment>, InvoiceError> {
    let Some(r) = request else { return Ok(None) };
    const METHODS: [&str; 5] = ["transfer", "direct_debit", "card", "cash", "other"];
    if !METHODS.contains(&r.method.as_str()) {
        return Err(invalid(
            "payment.method".into(),
            format!("{:?} is not one of {}", r.method, METHODS.join(", ")),
        ));
    }
    let iban = r
        .iban
        .as_deref()
        .map(iban::parse)
        .transpose()
        .map_err(|e| invalid("payment.iban".into(), e))?;
    if iban.is_none() && matches!(r.method.as_str(), "transfer" | "direct_debit") {
        return Err(InvoiceError::invalid(
            "parameter_missing",
            "payment.iban".into(),
            "a transfer or direct debit needs an iban",
        ));
    }
    Ok(Some(Payment {
        method: r.method,
        iban,
    }))
}
