//! A received invoice as the book keeps it, checked, with the figures the
//! tax returns take from it: its deductible VAT (LIVA arts. 95–97, 154) and
//! its deductible cost for IRPF.

use chrono::{DateTime, NaiveDate, Utc};
use rust_decimal::Decimal;
use rust_decimal::dec;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::input::{ExpenseFields, LineInput};
use super::kinds::{Category, Source, Status, Treatment};
use super::payment::Paid;
use crate::invoice::party::{in_eu, normalize_tax_id};
use crate::tax::accrual;
use crate::tax::amortisation::{Asset, AssetKind, Plan};
use crate::tax::cash_accounting;
use crate::tax::indirect::IndirectTax;
use crate::tax::money::{Money, Percent, cents, percent_of, round2};

/// Stated and computed amounts may differ by this much (rounding per line).
const TOLERANCE: Decimal = dec!(0.02);
const MAX_LINES: usize = 20;

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
#[schema(as = ExpenseSupplier)]
pub struct Supplier {
    pub name: String,
    /// A checked Spanish NIF, or the foreign VAT number.
    pub tax_id: String,
    /// ISO 3166-1 alpha-2.
    pub country: String,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
pub struct ExpenseLine {
    pub rate: Percent,
    pub base: Money,
    pub vat_amount: Money,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub surcharge_rate: Option<Percent>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub surcharge_amount: Option<Money>,
}

/// What the tax returns take from the expense.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
#[schema(as = ExpenseDeductible)]
pub struct Deductible {
    /// The base of the deducted VAT: the bases × the VAT share.
    pub base: Money,
    /// Input VAT deducted in Modelo 303: the quotas × the VAT share.
    pub vat: Money,
    /// The cost for IRPF: the bases plus the VAT and surcharge not deducted,
    /// × the expense share. Modelo 130 box 02 takes it whole, or for a
    /// capital good its amortisation (see `amortisation`).
    pub expense: Money,
}

/// How a capital good is amortised for IRPF (LIRPF art. 28.1, LIS art. 12.1):
/// linear, from its entry into service, with the simplified table of
/// estimación directa simplificada (Orden de 27 de marzo de 1998).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
#[schema(as = ExpenseAmortisation)]
pub struct Amortisation {
    pub kind: AssetKind,
    /// Percent per year.
    pub annual_rate: Percent,
    /// The table's maximum coefficient for the kind.
    pub max_rate: Percent,
    /// The table's maximum period for the kind, in years.
    pub max_years: u32,
    /// Entry into service: the operation date, else the issue date.
    pub start_date: NaiveDate,
    /// The amortisable value: the deductible cost (`deductible.expense`).
    pub base: Money,
    /// New items worth at most 300 € each: written off at once in the year
    /// it enters service, up to 25,000 € a year (LIS art. 12.3.e).
    #[serde(default)]
    pub low_value: bool,
}

/// The stored file of an expense (`GET /api/v1/expenses/{id}/document`).
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
#[schema(as = ExpenseDocument)]
pub struct Document {
    pub file_name: String,
    pub mime: String,
    pub size: u64,
    /// SHA-256 of the bytes, hex.
    pub sha256: String,
}

/// A received invoice in the book of expenses.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
#[schema(example = json!({"id": "exp_019aa3b7c2e41f0c2a9d8e7b", "object": "expense", "livemode": true,
    "status": "confirmed", "source": "typed",
    "supplier": {"name": "Gestoría López SL", "tax_id": "B12345674", "country": "ES"},
    "number": "2026/0412", "issue_date": "2026-10-05", "operation_date": null, "received_date": null,
    "category": "professional_services", "treatment": "domestic", "capital_good": false,
    "amortisation": null, "paid_date": "2026-10-20", "private_use_percent": null,
    "lines": [{"rate": 21.0, "base": 200.0, "vat_amount": 42.0}],
    "irpf_rate": 15.0, "irpf_amount": 30.0, "total": 212.0,
    "vat_deductible_percent": 100.0, "expense_deductible_percent": 100.0,
    "deductible": {"base": 200.0, "vat": 42.0, "expense": 200.0},
    "description": null, "document": null, "notes": [],
    "created_at": "2026-10-06T09:00:00Z", "updated_at": "2026-10-06T09:00:00Z"}))]
pub struct Expense {
    /// `exp_…`
    pub id: String,
    /// Always `expense`.
    pub object: String,
    pub livemode: bool,
    pub source: Source,
    #[serde(flatten)]
    pub entry: Entry,
    pub document: Option<Document>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A field that failed, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

fn err(field: impl Into<String>, message: impl Into<String>) -> FieldError {
    FieldError {
        field: field.into(),
        message: message.into(),
    }
}

/// What the book keeps of a received invoice, checked; the expense adds its
/// id, source, document and times.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
#[schema(as = ExpenseEntry)]
pub struct Entry {
    pub supplier: Supplier,
    pub number: String,
    pub issue_date: NaiveDate,
    pub operation_date: Option<NaiveDate>,
    pub received_date: Option<NaiveDate>,
    pub category: Category,
    pub treatment: Treatment,
    /// The tax the supplier charged (expenses from before it was kept: VAT).
    #[serde(default)]
    pub tax: IndirectTax,
    pub capital_good: bool,
    /// A capital good's amortisation (absent on capital goods stored before
    /// it was recorded: they are amortised at their default kind's maximum).
    #[serde(default)]
    pub amortisation: Option<Amortisation>,
    /// When the account paid the supplier (Modelo 111/115 quarter); `null`:
    /// not paid yet. Absent on expenses stored before payments were
    /// recorded: they count as paid on the issue date.
    #[serde(default, skip_serializing_if = "Paid::not_recorded")]
    #[schema(value_type = Option<NaiveDate>)]
    pub paid_date: Paid,
    /// The supplier is under the cash-accounting regime: the VAT is
    /// deducted when paid (LIVA art. 163 quinquiesdecies) and the purchase
    /// is in boxes 74/75. Absent: false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub supplier_cash_accounting: bool,
    /// Share of private use, percent, as sent.
    #[serde(default)]
    pub private_use_percent: Option<Percent>,
    pub lines: Vec<ExpenseLine>,
    pub irpf_rate: Option<Percent>,
    pub irpf_amount: Money,
    pub total: Money,
    pub vat_deductible_percent: Percent,
    pub expense_deductible_percent: Percent,
    pub deductible: Deductible,
    pub description: Option<String>,
    /// `confirmed` counts in the tax figures; a `draft` (an import from the
    /// AEAT) waits to be confirmed.
    pub status: Status,
    /// What the rules did that the figures alone do not say.
    pub notes: Vec<String>,
}

fn text(
    field: &str,
    value: Option<String>,
    max: usize,
    required: bool,
) -> Result<Option<String>, FieldError> {
    match value
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
    {
        None if required => Err(err(field, format!("{field} is required"))),
        None => Ok(None),
        Some(v) if v.chars().count() > max => Err(err(
            field,
            format!("{field} is longer than {max} characters"),
        )),
        Some(v) if v.chars().any(char::is_control) => {
            Err(err(field, format!("{field} contains control characters")))
        }
        Some(v) => Ok(Some(v)),
    }
}

fn share(field: &str, value: Option<Percent>, default: Decimal) -> Result<Percent, FieldError> {
    let value = value.map_or(default, Percent::value);
    if value < Decimal::ZERO || value > Decimal::ONE_HUNDRED {
        return Err(err(field, format!("{field} {value} is outside 0–100")));
    }
    Ok(Percent::from(value.normalize()))
}

fn checked_rate(field: String, value: Percent) -> Result<Percent, FieldError> {
    let v = value.value();
    if v < Decimal::ZERO || v > Decimal::ONE_HUNDRED || v.normalize().scale() > 2 {
        return Err(err(
            field,
            format!("{v} is not a rate: 0–100 with at most 2 decimals"),
        ));
    }
    Ok(Percent::from(v.normalize()))
}

/// A stated amount, checked against the computed one; the computed one when none is stated.
fn stated(field: String, given: Option<Money>, computed: Decimal) -> Result<Money, FieldError> {
    match given {
        None => Ok(Money::from(computed)),
        Some(g) if (g.value() - computed).abs() <= TOLERANCE => Ok(Money::from(round2(g.value()))),
        Some(g) => Err(err(
            field,
            format!(
                "{g} does not match the other figures, which give {}",
                cents(computed)
            ),
        )),
    }
}

fn supplier(fields: &mut ExpenseFields, treatment: Treatment) -> Result<Supplier, FieldError> {
    let name = text("supplier_name", fields.supplier_name.take(), 120, true)?.unwrap_or_default();
    let country = fields
        .supplier_country
        .take()
        .unwrap_or_else(|| "ES".into())
        .trim()
        .to_ascii_uppercase();
    if country.len() != 2 || !country.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(err(
            "supplier_country",
            format!("{country:?} is not an ISO 3166-1 alpha-2 country code"),
        ));
    }
    let raw = text("supplier_tax_id", fields.supplier_tax_id.take(), 40, true)?.unwrap_or_default();
    let tax_id = normalize_tax_id(&raw, &country).map_err(|e| err("supplier_tax_id", e.message))?;
    let intra_eu = matches!(
        treatment,
        Treatment::IntraEuGoods | Treatment::IntraEuServices
    );
    if intra_eu && (country == "ES" || !in_eu(&country)) {
        return Err(err(
            "supplier_country",
            format!(
                "an intra-EU purchase needs a supplier established in another EU state, not {country} (LIVA arts. 15 and 84.Uno.2º)"
            ),
        ));
    }
    if treatment == Treatment::NonEuServices && in_eu(&country) {
        return Err(err(
            "supplier_country",
            format!(
                "non_eu_services is for suppliers established outside the EU (LIVA arts. 69.Uno.1º and 84.Uno.2º.a); {country} is in the EU: use domestic or intra_eu_services"
            ),
        ));
    }
    if matches!(treatment, Treatment::Domestic | Treatment::ReverseCharge) && country != "ES" {
        return Err(err(
            "treatment",
            format!(
                "a supplier in {country} does not charge Spanish VAT: use intra_eu_goods, intra_eu_services, non_eu_services or import"
            ),
        ));
    }
    Ok(Supplier {
        name,
        tax_id,
        country,
    })
}

fn line(i: usize, input: LineInput, treatment: Treatment) -> Result<ExpenseLine, FieldError> {
    let at = |name: &str| format!("lines[{i}].{name}");
    let rate = checked_rate(at("rate"), input.rate)?;
    let base = round2(input.base.value());
    let vat = stated(
        at("vat_amount"),
        input.vat_amount,
        round2(percent_of(base, rate.value())),
    )?;
    let (surcharge_rate, surcharge_amount) = match (input.surcharge_rate, input.surcharge_amount) {
        (None, None) => (None, None),
        (None, Some(_)) => {
            return Err(err(
                at("surcharge_rate"),
                "a surcharge amount needs its rate",
            ));
        }
        (Some(_), _) if treatment.self_assessed() => {
            return Err(err(
                at("surcharge_rate"),
                "a self-assessed purchase carries no equivalence surcharge",
            ));
        }
        (Some(r), amount) => {
            let r = checked_rate(at("surcharge_rate"), r)?;
            let amount = stated(
                at("surcharge_amount"),
                amount,
                round2(percent_of(base, r.value())),
            )?;
            (Some(r), Some(amount))
        }
    };
    Ok(ExpenseLine {
        rate,
        base: Money::from(base),
        vat_amount: vat,
        surcharge_rate,
        surcharge_amount,
    })
}

/// The deductible figures of checked lines and shares.
pub fn deductible(lines: &[ExpenseLine], vat_share: Decimal, expense_share: Decimal) -> Deductible {
    let base: Decimal = lines.iter().map(|l| l.base.value()).sum();
    let vat: Decimal = lines.iter().map(|l| l.vat_amount.value()).sum();
    let surcharge: Decimal = lines
        .iter()
        .filter_map(|l| l.surcharge_amount)
        .map(Money::value)
        .sum();
    let deducted = round2(percent_of(vat, vat_share));
    let cost = base + vat + surcharge - deducted;
    Deductible {
        base: Money::from(round2(percent_of(base, vat_share))),
        vat: Money::from(deducted),
        expense: Money::from(round2(percent_of(cost, expense_share))),
    }
}

impl Entry {
    /// Checks every field; `today` (Madrid) bounds the dates.
    pub fn parse(mut fields: ExpenseFields, today: NaiveDate) -> Result<Entry, FieldError> {
        let treatment = fields.treatment.unwrap_or_default();
        let tax = fields.tax.unwrap_or_default();
        if tax != IndirectTax::Iva && !matches!(treatment, Treatment::Domestic | Treatment::Import)
        {
            return Err(err(
                "tax",
                "IGIC and IPSI are charged by suppliers in the Canary Islands, Ceuta and Melilla or at their customs; a self-assessed purchase is under the State's VAT (LIVA art. 84.Uno.2º)",
            ));
        }
        let category = fields.category.unwrap_or(Category::Other);
        let supplier = supplier(&mut fields, treatment)?;
        let number = text("number", fields.number.take(), 60, true)?.unwrap_or_default();
        let issue_date = fields
            .issue_date
            .ok_or_else(|| err("issue_date", "issue_date is required"))?;
        if issue_date > today {
            return Err(err(
                "issue_date",
                format!("{issue_date} is after today ({today})"),
            ));
        }
        if let Some(received) = fields.received_date
            && (received < issue_date || received > today)
        {
            return Err(err(
                "received_date",
                format!("{received} is before the issue date or after today"),
            ));
        }
        let inputs = fields
            .lines
            .take()
            .filter(|l| !l.is_empty())
            .ok_or_else(|| err("lines", "at least one line (base and VAT rate) is required"))?;
        if inputs.len() > MAX_LINES {
            return Err(err(
                "lines",
                format!("at most {MAX_LINES} lines, got {}", inputs.len()),
            ));
        }
        let lines = inputs
            .into_iter()
            .enumerate()
            .map(|(i, l)| line(i, l, treatment))
            .collect::<Result<Vec<_>, _>>()?;
        let negative = lines.iter().filter(|l| l.base.is_sign_negative()).count();
        if negative != 0 && negative != lines.len() {
            return Err(err(
                "lines",
                "the bases are all positive (an invoice) or all negative (a credit note)",
            ));
        }
        let bases: Decimal = lines.iter().map(|l| l.base.value()).sum();
        let irpf_rate = fields
            .irpf_rate
            .map(|r| checked_rate("irpf_rate".into(), r))
            .transpose()?;
        let irpf_amount = match irpf_rate {
            Some(r) => stated(
                "irpf_amount".into(),
                fields.irpf_amount,
                round2(percent_of(bases, r.value())),
            )?,
            None => fields.irpf_amount.unwrap_or_default(),
        };
        let charged: Decimal = if treatment.self_assessed() {
            Decimal::ZERO
        } else {
            lines
                .iter()
                .map(|l| l.vat_amount.value() + l.surcharge_amount.unwrap_or_default().value())
                .sum()
        };
        let total = stated(
            "total".into(),
            fields.total,
            bases + charged - irpf_amount.value(),
        )?;
        let mut notes = Vec::new();
        let surcharged = lines.iter().any(|l| l.surcharge_rate.is_some());
        let mut vat_share = share(
            "vat_deductible_percent",
            fields.vat_deductible_percent,
            category.default_vat_share(),
        )?;
        if surcharged && !vat_share.is_zero() {
            vat_share = Percent::from(Decimal::ZERO);
            notes.push(
                "The supplier charged equivalence surcharge: a retailer in that regime deducts neither the VAT nor the surcharge (LIVA art. 154.Dos); both are cost.".into(),
            );
        }
        if category == Category::Meals && !vat_share.is_zero() {
            notes.push(
                "Meals: the VAT is deductible only when the expense is deductible for IRPF (LIVA art. 96.Uno.5º).".into(),
            );
        }
        let private_use = fields
            .private_use_percent
            .map(|p| share("private_use_percent", Some(p), Decimal::ZERO))
            .transpose()?;
        let expense_share = share(
            "expense_deductible_percent",
            fields.expense_deductible_percent,
            irpf_share(category, private_use, &mut notes),
        )?;
        let description = text("description", fields.description.take(), 500, false)?;
        let paid_date = match fields.paid_date {
            Some(paid) if paid > today => {
                return Err(err("paid_date", format!("{paid} is after today ({today})")));
            }
            paid => Paid::from_date(paid),
        };
        let supplier_cash_accounting = fields.supplier_cash_accounting.unwrap_or(false);
        if supplier_cash_accounting && treatment != Treatment::Domestic {
            return Err(err(
                "supplier_cash_accounting",
                "the cash-accounting regime applies to domestic purchases with VAT charged, not to imports, intra-EU acquisitions or reverse charge (LIVA art. 163 nonies.Cuatro)",
            ));
        }
        let deductible = deductible(&lines, vat_share.value(), expense_share.value());
        let capital_good = fields.capital_good.unwrap_or(false);
        let amortisation = if capital_good {
            let plan = amortisation(
                &fields,
                category,
                fields.operation_date.unwrap_or(issue_date),
                deductible.expense,
            )?;
            notes.push(format!(
                "A capital good is amortised for IRPF, not expensed at once (LIRPF art. 28.1, LIS art. 12.1): {} % a year from {} ({} in the simplified table, Orden de 27 de marzo de 1998); Modelo 130 counts each year's share.",
                plan.annual_rate, plan.start_date, plan.kind.code()
            ));
            Some(plan)
        } else if fields.asset_kind.is_some()
            || fields.amortisation_rate.is_some()
            || fields.low_value.is_some()
        {
            return Err(err(
                "capital_good",
                "asset_kind, amortisation_rate and low_value apply to capital goods: send capital_good: true",
            ));
        } else {
            None
        };
        Ok(Entry {
            deductible,
            amortisation,
            paid_date,
            supplier_cash_accounting,
            private_use_percent: private_use,
            supplier,
            number,
            issue_date,
            operation_date: fields.operation_date,
            received_date: fields.received_date,
            category,
            treatment,
            tax,
            capital_good,
            lines,
            irpf_rate,
            irpf_amount,
            total,
            vat_deductible_percent: vat_share,
            expense_deductible_percent: expense_share,
            description,
            status: fields.status.unwrap_or(Status::Confirmed),
            notes,
        })
    }
}

/// The IRPF share when the request gives none. A car, motorcycle, boat or
/// aircraft is indivisible: it is part of the activity only if used
/// exclusively for it (LIRPF art. 29.2; RIRPF art. 22.2 and 22.4), so any
/// private use, or none stated, makes it and its running costs not deductible.
fn irpf_share(
    category: Category,
    private_use: Option<Percent>,
    notes: &mut Vec<String>,
) -> Decimal {
    match (category, private_use.map(Percent::value)) {
        (Category::Vehicle, Some(p)) if p.is_zero() => Decimal::ONE_HUNDRED,
        (Category::Vehicle, Some(_)) => {
            notes.push(
                "A vehicle used privately at all is not part of the activity for IRPF (LIRPF art. 29.2, RIRPF art. 22.4): its cost is not deductible; the VAT follows LIVA art. 95.Tres.".into(),
            );
            Decimal::ZERO
        }
        (Category::Vehicle, None) => {
            notes.push(
                "Vehicle: for IRPF a car counts only if used exclusively for the activity (LIRPF art. 29.2, RIRPF art. 22.4), so its cost is 0 by default. Send private_use_percent 0 when it is (or is a goods vehicle, paid passenger transport, a driving school's or a sales agent's: RIRPF art. 22.4), or set expense_deductible_percent.".into(),
            );
            Decimal::ZERO
        }
        (_, p) => Decimal::ONE_HUNDRED - p.unwrap_or_default(),
    }
}

/// The group of the amortisation table a capital good falls in by default.
pub fn default_asset_kind(category: Category) -> AssetKind {
    match category {
        Category::Software => AssetKind::Computers,
        Category::Vehicle => AssetKind::Vehicles,
        _ => AssetKind::Furniture,
    }
}

fn amortisation(
    fields: &ExpenseFields,
    category: Category,
    start_date: NaiveDate,
    base: Money,
) -> Result<Amortisation, FieldError> {
    let kind = fields
        .asset_kind
        .unwrap_or_else(|| default_asset_kind(category));
    let annual_rate = match fields.amortisation_rate {
        None => Percent::from(kind.max_rate()),
        Some(r) => {
            let r = checked_rate("amortisation_rate".into(), r)?;
            if !kind.allows(r.value()) {
                return Err(err(
                    "amortisation_rate",
                    format!(
                        "{r} % is outside the simplified amortisation table for {}: at most {} % a year and written off within {} years (Orden de 27 de marzo de 1998; RIRPF art. 30.1)",
                        kind.code(),
                        kind.max_rate(),
                        kind.max_years()
                    ),
                ));
            }
            r
        }
    };
    Ok(Amortisation {
        kind,
        annual_rate,
        max_rate: Percent::from(kind.max_rate()),
        max_years: kind.max_years(),
        start_date,
        base,
        low_value: fields.low_value.unwrap_or(false),
    })
}

impl Expense {
    /// The date its IRPF withholding falls on (RIRPF art. 78.1: when paid);
    /// `None` while unpaid. Expenses stored before payments were recorded
    /// count as paid on their issue date.
    pub fn withholding_date(&self) -> Option<NaiveDate> {
        match self.entry.paid_date {
            Paid::On(date) => Some(date),
            Paid::Unpaid => None,
            Paid::NotRecorded => Some(self.entry.issue_date),
        }
    }

    /// A capital good as the amortisation takes it; `None` for other expenses.
    pub fn asset(&self) -> Option<Asset> {
        Some(Asset {
            plan: self.amortisation_plan()?,
            low_value: self.entry.amortisation.is_some_and(|a| a.low_value),
        })
    }

    /// How a capital good is amortised; `None` for other expenses.
    pub fn amortisation_plan(&self) -> Option<Plan> {
        if !self.entry.capital_good {
            return None;
        }
        let (annual_rate, start) = match self.entry.amortisation {
            Some(a) => (a.annual_rate.value(), a.start_date),
            None => (
                default_asset_kind(self.entry.category).max_rate(),
                self.cost_date(),
            ),
        };
        Some(Plan {
            base: self.entry.deductible.expense.value(),
            annual_rate,
            start,
        })
    }

    /// The key that makes an invoice unique in the book: the supplier's tax
    /// id, the number and the issue date (upper case, no spaces).
    pub fn duplicate_key(&self) -> String {
        duplicate_key(
            &self.entry.supplier,
            &self.entry.number,
            self.entry.issue_date,
        )
    }

    /// The quarter's VAT. Charged by the supplier: deducted from the day the
    /// invoice arrived (LIVA art. 99.Cuatro). Self-assessed: when it accrues
    /// (intra-EU goods on the 15th of the month after the transport starts,
    /// or the earlier invoice date, arts. 76 and 75.Uno.8º; services when
    /// rendered, art. 75.Uno.2º), and deducted in that same return.
    /// A supplier under the cash-accounting regime: the day it was paid, or
    /// 31 December of the year after the operation if unpaid by then (LIVA
    /// art. 163 quinquiesdecies.Uno), never before the invoice arrived.
    pub fn vat_date(&self) -> NaiveDate {
        self.vat_date_as(false)
    }

    /// Whether the cash-accounting regime applies to or affects the
    /// purchase: a domestic purchase with VAT charged from a supplier under
    /// the regime, or any such purchase of a buyer under it (`buyer_in_regime`,
    /// art. 163 quaterdecies.Uno). Imports, intra-EU acquisitions and reverse
    /// charge are outside the regime (art. 163 nonies.Cuatro).
    pub fn under_cash_regime(&self, buyer_in_regime: bool) -> bool {
        self.entry.treatment == Treatment::Domestic
            && self.entry.tax == IndirectTax::Iva
            && (self.entry.supplier_cash_accounting || buyer_in_regime)
    }

    /// `vat_date` for a buyer that is (`true`) or is not under the regime:
    /// under it, every domestic purchase is deducted when paid, or on 31
    /// December of the year after the operation (art. 163 quaterdecies.Uno).
    pub fn vat_date_as(&self, buyer_in_regime: bool) -> NaiveDate {
        let general = self.general_vat_date();
        if !self.under_cash_regime(buyer_in_regime) {
            return general;
        }
        let deadline = cash_accounting::deadline(self.cost_date());
        let paid = self.withholding_date().unwrap_or(deadline).min(deadline);
        paid.max(general)
    }

    /// The quarter its VAT would fall in by the general rules (without the
    /// cash-accounting regime): boxes 74/75 count a purchase there.
    pub fn general_vat_date(&self) -> NaiveDate {
        let e = &self.entry;
        match e.treatment {
            Treatment::IntraEuGoods => accrual::intra_eu_goods(e.issue_date, e.operation_date),
            Treatment::IntraEuServices | Treatment::ReverseCharge | Treatment::NonEuServices => {
                accrual::operation(e.issue_date, e.operation_date)
            }
            Treatment::Domestic | Treatment::Import => e.received_date.unwrap_or(e.issue_date),
        }
    }

    /// The IRPF accrual: the operation date, else the issue date.
    pub fn cost_date(&self) -> NaiveDate {
        self.entry.operation_date.unwrap_or(self.entry.issue_date)
    }

    pub fn bases(&self) -> Decimal {
        self.entry.lines.iter().map(|l| l.base.value()).sum()
    }

    pub fn vat(&self) -> Decimal {
        self.entry.lines.iter().map(|l| l.vat_amount.value()).sum()
    }

    pub fn surcharge(&self) -> Decimal {
        self.entry
            .lines
            .iter()
            .filter_map(|l| l.surcharge_amount)
            .map(Money::value)
            .sum()
    }
}

pub fn duplicate_key(supplier: &Supplier, number: &str, issue_date: NaiveDate) -> String {
    let number: String = number
        .chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_uppercase)
        .collect();
    format!(
        "{}:{}#{number}#{issue_date}",
        supplier.country, supplier.tax_id
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 28).unwrap()
    }

    fn line(rate: Decimal, base: Decimal) -> LineInput {
        LineInput {
            rate: Percent::from(rate),
            base: Money::from(base),
            vat_amount: None,
            surcharge_rate: None,
            surcharge_amount: None,
        }
    }

    fn fields() -> ExpenseFields {
        ExpenseFields {
            supplier_name: Some("Gestoría López SL".into()),
            supplier_tax_id: Some("b-1234567-4".into()),
            number: Some("2026/0412".into()),
            issue_date: NaiveDate::from_ymd_opt(2026, 10, 5),
            lines: Some(vec![line(dec!(21), dec!(200))]),
            ..ExpenseFields::default()
        }
    }

    fn failure(f: ExpenseFields) -> (String, String) {
        let e = Entry::parse(f, today()).unwrap_err();
        (e.field, e.message)
    }

    #[test]
    fn a_typed_invoice_gets_its_quota_irpf_and_total_computed() {
        let c = Entry::parse(
            ExpenseFields {
                irpf_rate: Some(Percent::from(dec!(15))),
                category: Some(Category::ProfessionalServices),
                ..fields()
            },
            today(),
        )
        .unwrap();
        assert_eq!(c.supplier.tax_id, "B12345674");
        assert_eq!(c.lines[0].vat_amount, Money::from(dec!(42)));
        assert_eq!(c.irpf_amount, Money::from(dec!(30)));
        // 200 + 42 − 30
        assert_eq!(c.total, Money::from(dec!(212)));
        assert_eq!(
            c.deductible,
            Deductible {
                base: Money::from(dec!(200)),
                vat: Money::from(dec!(42)),
                expense: Money::from(dec!(200)),
            }
        );
    }

    #[test]
    fn a_vehicle_used_only_for_the_activity_deducts_half_its_vat_and_the_other_half_is_cost() {
        let c = Entry::parse(
            ExpenseFields {
                category: Some(Category::Vehicle),
                private_use_percent: Some(Percent::from(dec!(0))),
                lines: Some(vec![line(dec!(21), dec!(60.50))]),
                ..fields()
            },
            today(),
        )
        .unwrap();
        assert_eq!(c.expense_deductible_percent, Percent::from(dec!(100)));
        // VAT 12.705 → 12.71; half: 6.355 → 6.36 (half away from zero).
        assert_eq!(c.lines[0].vat_amount, Money::from(dec!(12.71)));
        assert_eq!(c.deductible.vat, Money::from(dec!(6.36)));
        assert_eq!(c.deductible.base, Money::from(dec!(30.25)));
        // 60.50 + 12.71 − 6.36
        assert_eq!(c.deductible.expense, Money::from(dec!(66.85)));
    }

    fn vehicle(private_use: Option<Decimal>) -> Entry {
        Entry::parse(
            ExpenseFields {
                category: Some(Category::Vehicle),
                private_use_percent: private_use.map(Percent::from),
                lines: Some(vec![line(dec!(21), dec!(100))]),
                ..fields()
            },
            today(),
        )
        .unwrap()
    }

    #[test]
    fn a_vehicle_is_no_irpf_cost_unless_used_only_for_the_activity() {
        // LIVA art. 95.Tres.2ª presumes 50 % for the VAT; for IRPF a car is
        // indivisible and counts only if used exclusively (LIRPF art. 29.2,
        // RIRPF art. 22.4).
        let default = vehicle(None);
        assert_eq!(default.vat_deductible_percent, Percent::from(dec!(50)));
        assert_eq!(default.expense_deductible_percent, Percent::from(dec!(0)));
        assert_eq!(default.deductible.expense, Money::from(dec!(0)));
        assert!(default.notes.iter().any(|n| n.contains("RIRPF art. 22.4")));
        let mixed = vehicle(Some(dec!(20)));
        assert_eq!(mixed.deductible.expense, Money::from(dec!(0)));
        // Exclusive use: 100 + 21 − 10.50 deducted = 110.50.
        let exclusive = vehicle(Some(dec!(0)));
        assert_eq!(exclusive.deductible.expense, Money::from(dec!(110.5)));
        // An explicit share wins.
        let given = Entry::parse(
            ExpenseFields {
                category: Some(Category::Vehicle),
                expense_deductible_percent: Some(Percent::from(dec!(100))),
                lines: Some(vec![line(dec!(21), dec!(100))]),
                ..fields()
            },
            today(),
        )
        .unwrap();
        assert_eq!(given.deductible.expense, Money::from(dec!(110.5)));
    }

    #[test]
    fn a_divisible_good_deducts_its_business_share() {
        // LIRPF art. 29.2: partial use is the part used in the activity.
        let phone = Entry::parse(
            ExpenseFields {
                category: Some(Category::Telecom),
                private_use_percent: Some(Percent::from(dec!(30))),
                ..fields()
            },
            today(),
        )
        .unwrap();
        assert_eq!(phone.expense_deductible_percent, Percent::from(dec!(70)));
        assert_eq!(phone.deductible.expense, Money::from(dec!(140)));
        assert_eq!(
            failure(ExpenseFields {
                private_use_percent: Some(Percent::from(dec!(120))),
                ..fields()
            })
            .0,
            "private_use_percent"
        );
    }

    fn capital(kind: Option<AssetKind>, rate: Option<Decimal>) -> Result<Entry, FieldError> {
        Entry::parse(
            ExpenseFields {
                category: Some(Category::Equipment),
                capital_good: Some(true),
                asset_kind: kind,
                amortisation_rate: rate.map(Percent::from),
                operation_date: NaiveDate::from_ymd_opt(2026, 10, 1),
                lines: Some(vec![line(dec!(21), dec!(1200))]),
                ..fields()
            },
            today(),
        )
    }

    #[test]
    fn a_capital_good_carries_its_amortisation_within_the_table() {
        let laptop = capital(Some(AssetKind::Computers), None).unwrap();
        let a = laptop.amortisation.unwrap();
        // Group 5 of the simplified table: 26 %, 10 years; in service from the operation date.
        assert_eq!(
            (a.annual_rate, a.max_years, a.start_date, a.base),
            (
                Percent::from(dec!(26)),
                10,
                NaiveDate::from_ymd_opt(2026, 10, 1).unwrap(),
                Money::from(dec!(1200))
            )
        );
        // Without a kind: group 2, the residual one, 10 %.
        let other = capital(None, None).unwrap().amortisation.unwrap();
        assert_eq!(
            (other.kind, other.annual_rate),
            (AssetKind::Furniture, Percent::from(dec!(10)))
        );
        assert_eq!(
            capital(Some(AssetKind::Computers), Some(dec!(15)))
                .unwrap()
                .amortisation
                .unwrap()
                .annual_rate,
            Percent::from(dec!(15))
        );
        let too_fast = capital(Some(AssetKind::Computers), Some(dec!(30))).unwrap_err();
        assert_eq!(too_fast.field, "amortisation_rate");
        assert!(too_fast.message.contains("Orden de 27 de marzo de 1998"));
        assert_eq!(
            capital(Some(AssetKind::Computers), Some(dec!(9)))
                .unwrap_err()
                .field,
            "amortisation_rate"
        );
        assert_eq!(
            failure(ExpenseFields {
                asset_kind: Some(AssetKind::Tools),
                ..fields()
            })
            .0,
            "capital_good"
        );
    }

    #[test]
    fn the_payment_date_places_the_withholding_and_old_expenses_count_as_paid_on_issue() {
        let paid = Entry::parse(
            ExpenseFields {
                paid_date: NaiveDate::from_ymd_opt(2026, 11, 2),
                ..fields()
            },
            today(),
        )
        .unwrap();
        assert_eq!(
            paid.paid_date,
            Paid::On(NaiveDate::from_ymd_opt(2026, 11, 2).unwrap())
        );
        let unpaid = Entry::parse(fields(), today()).unwrap();
        assert_eq!(unpaid.paid_date, Paid::Unpaid);
        let json = serde_json::to_value(&unpaid).unwrap();
        assert_eq!(json["paid_date"], serde_json::Value::Null);
        assert_eq!(serde_json::from_value::<Entry>(json).unwrap(), unpaid);
        let mut old = serde_json::to_value(&unpaid).unwrap();
        old.as_object_mut().unwrap().remove("paid_date");
        old.as_object_mut().unwrap().remove("amortisation");
        old.as_object_mut().unwrap().remove("private_use_percent");
        let old: Entry = serde_json::from_value(old).unwrap();
        assert_eq!(old.paid_date, Paid::NotRecorded);
        assert!(
            serde_json::to_value(&old)
                .unwrap()
                .get("paid_date")
                .is_none()
        );
        assert_eq!(
            failure(ExpenseFields {
                paid_date: NaiveDate::from_ymd_opt(2026, 11, 29),
                ..fields()
            })
            .0,
            "paid_date"
        );
    }

    #[test]
    fn equivalence_surcharge_makes_vat_and_surcharge_cost() {
        let mut surcharged = line(dec!(21), dec!(100));
        surcharged.surcharge_rate = Some(Percent::from(dec!(5.2)));
        let c = Entry::parse(
            ExpenseFields {
                lines: Some(vec![surcharged]),
                category: Some(Category::Goods),
                ..fields()
            },
            today(),
        )
        .unwrap();
        assert_eq!(c.lines[0].surcharge_amount, Some(Money::from(dec!(5.2))));
        assert_eq!(c.total, Money::from(dec!(126.2)));
        assert!(c.vat_deductible_percent.is_zero());
        assert_eq!(c.deductible.vat, Money::from(dec!(0)));
        assert_eq!(c.deductible.expense, Money::from(dec!(126.2)));
        assert_eq!(c.notes.len(), 1);
    }

    #[test]
    fn a_self_assessed_purchase_charges_no_vat_in_its_total() {
        let c = Entry::parse(
            ExpenseFields {
                supplier_tax_id: Some("DE123456789".into()),
                supplier_country: Some("DE".into()),
                treatment: Some(Treatment::IntraEuServices),
                ..fields()
            },
            today(),
        )
        .unwrap();
        assert_eq!(c.lines[0].vat_amount, Money::from(dec!(42)));
        assert_eq!(c.total, Money::from(dec!(200)));
        assert_eq!(c.deductible.vat, Money::from(dec!(42)));
    }

    #[test]
    fn each_wrong_field_is_named() {
        assert_eq!(
            failure(ExpenseFields {
                supplier_tax_id: Some("B12345670".into()),
                ..fields()
            })
            .0,
            "supplier_tax_id"
        );
        let mut wrong_quota = line(dec!(21), dec!(200));
        wrong_quota.vat_amount = Some(Money::from(dec!(40)));
        assert_eq!(
            failure(ExpenseFields {
                lines: Some(vec![wrong_quota]),
                ..fields()
            }),
            (
                "lines[0].vat_amount".into(),
                "40 does not match the other figures, which give 42.00".into()
            )
        );
        assert_eq!(
            failure(ExpenseFields {
                total: Some(Money::from(dec!(250))),
                ..fields()
            })
            .0,
            "total"
        );
        assert_eq!(
            failure(ExpenseFields {
                issue_date: NaiveDate::from_ymd_opt(2026, 12, 1),
                ..fields()
            })
            .0,
            "issue_date"
        );
        assert_eq!(
            failure(ExpenseFields {
                lines: Some(vec![]),
                ..fields()
            })
            .0,
            "lines"
        );
        assert_eq!(
            failure(ExpenseFields {
                vat_deductible_percent: Some(Percent::from(dec!(101))),
                ..fields()
            })
            .0,
            "vat_deductible_percent"
        );
        assert_eq!(
            failure(ExpenseFields {
                supplier_country: Some("FR".into()),
                supplier_tax_id: Some("FR12345678901".into()),
                ..fields()
            })
            .0,
            "treatment"
        );
        assert_eq!(
            failure(ExpenseFields {
                lines: Some(vec![line(dec!(21), dec!(100)), line(dec!(10), dec!(-5))]),
                ..fields()
            })
            .0,
            "lines"
        );
    }

    #[test]
    fn a_credit_note_has_negative_figures() {
        let c = Entry::parse(
            ExpenseFields {
                lines: Some(vec![line(dec!(21), dec!(-50))]),
                ..fields()
            },
            today(),
        )
        .unwrap();
        assert_eq!(c.total, Money::from(dec!(-60.5)));
        assert_eq!(c.deductible.vat, Money::from(dec!(-10.5)));
    }

    #[test]
    fn the_duplicate_key_ignores_case_and_spaces_in_the_number() {
        let s = Supplier {
            name: "X".into(),
            tax_id: "B12345674".into(),
            country: "ES".into(),
        };
        let d = NaiveDate::from_ymd_opt(2026, 10, 5).unwrap();
        assert_eq!(
            duplicate_key(&s, "f 2026/12", d),
            duplicate_key(&s, "F2026/12", d)
        );
    }

    #[test]
    fn the_supplier_country_must_match_the_self_assessed_treatment() {
        // LIVA arts. 15 and 84.Uno.2º: an intra-EU acquisition comes from
        // another EU state; arts. 69.Uno.1º and 84.Uno.2º.a: non-EU services
        // from outside the EU.
        let (field, message) = failure(ExpenseFields {
            treatment: Some(Treatment::IntraEuServices),
            ..fields()
        });
        assert_eq!(field, "supplier_country");
        assert!(message.contains("art"), "{message}");
        let (field, message) = failure(ExpenseFields {
            treatment: Some(Treatment::IntraEuGoods),
            supplier_country: Some("US".into()),
            supplier_tax_id: Some("US123456789".into()),
            ..fields()
        });
        assert_eq!(field, "supplier_country");
        assert!(message.contains("LIVA"), "{message}");
        let (field, message) = failure(ExpenseFields {
            treatment: Some(Treatment::NonEuServices),
            supplier_country: Some("DE".into()),
            supplier_tax_id: Some("DE123456789".into()),
            ..fields()
        });
        assert_eq!(field, "supplier_country");
        assert!(message.contains("84.Uno.2º.a"), "{message}");
        assert_eq!(
            failure(ExpenseFields {
                treatment: Some(Treatment::NonEuServices),
                ..fields()
            })
            .0,
            "supplier_country"
        );
        let us = Entry::parse(
            ExpenseFields {
                treatment: Some(Treatment::NonEuServices),
                supplier_country: Some("US".into()),
                supplier_tax_id: Some("US123456789".into()),
                ..fields()
            },
            today(),
        )
        .unwrap();
        // Self-assessed: the invoice charged no VAT.
        assert_eq!(us.total, Money::from(dec!(200)));
    }

    #[test]
    fn igic_is_kept_as_charged_and_never_self_assessed() {
        let canary = Entry::parse(
            ExpenseFields {
                tax: Some(IndirectTax::Igic),
                lines: Some(vec![line(dec!(7), dec!(100))]),
                ..fields()
            },
            today(),
        )
        .unwrap();
        assert_eq!(canary.tax, IndirectTax::Igic);
        assert_eq!(canary.total, Money::from(dec!(107)));
        assert_eq!(
            failure(ExpenseFields {
                tax: Some(IndirectTax::Igic),
                treatment: Some(Treatment::ReverseCharge),
                ..fields()
            })
            .0,
            "tax"
        );
        // Stored before the field existed: VAT.
        let mut stored = serde_json::to_value(&canary).unwrap();
        stored.as_object_mut().unwrap().remove("tax");
        let old: Entry = serde_json::from_value(stored).unwrap();
        assert_eq!(old.tax, IndirectTax::Iva);
    }

    #[test]
    fn self_assessed_vat_falls_in_the_quarter_it_accrues_not_when_received() {
        let expense = |treatment, country: &str, id: &str, operation: &str| Expense {
            id: "exp_1".into(),
            object: "expense".into(),
            livemode: true,
            source: Source::Typed,
            entry: Entry::parse(
                ExpenseFields {
                    treatment: Some(treatment),
                    supplier_country: Some(country.into()),
                    supplier_tax_id: Some(id.into()),
                    issue_date: NaiveDate::from_ymd_opt(2026, 10, 20),
                    operation_date: Some(operation.parse().unwrap()),
                    received_date: NaiveDate::from_ymd_opt(2026, 11, 2),
                    ..fields()
                },
                today(),
            )
            .unwrap(),
            document: None,
            created_at: Utc::now(),
            updated_at: Utc::now(),
        };
        // LIVA art. 76 (with 75.Uno.8º): goods sent from Germany on 28-09,
        // invoiced 20-10 → accrual 15-10.
        let goods = expense(Treatment::IntraEuGoods, "DE", "DE123456789", "2026-09-28");
        assert_eq!(
            goods.vat_date(),
            NaiveDate::from_ymd_opt(2026, 10, 15).unwrap()
        );
        // Art. 75.Uno.2º: a service rendered 30-09 accrues then (Q3), though
        // invoiced in October and received in November.
        let service = expense(Treatment::IntraEuServices, "IE", "IE6388047V", "2026-09-30");
        assert_eq!(
            service.vat_date(),
            NaiveDate::from_ymd_opt(2026, 9, 30).unwrap()
        );
        // Art. 99.Cuatro: VAT charged by a Spanish supplier, when received.
        let domestic = expense(Treatment::Domestic, "ES", "B12345674", "2026-09-30");
        assert_eq!(
            domestic.vat_date(),
            NaiveDate::from_ymd_opt(2026, 11, 2).unwrap()
        );
    }
}
