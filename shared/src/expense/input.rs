//! What a request says about a received invoice, in layers: the e-invoice
//! sent as its document (read exactly), then the fields extraction returned
//! (as the client sends them back, perhaps corrected), then the fields typed
//! in the request. Each layer fills what the one under it left out or
//! overrides it; `Expense::parse` checks the result.

use chrono::NaiveDate;
use serde::Deserialize;
use utoipa::ToSchema;

use super::kinds::{Category, Status, Treatment};
use super::model::Expense;
use crate::extraction::fields::Fields;
use crate::tax::amortisation::AssetKind;
use crate::tax::indirect::IndirectTax;
use crate::tax::money::{Money, Percent};

/// One VAT rate of the invoice as sent.
#[derive(Clone, Debug, Deserialize, ToSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LineInput {
    /// VAT percent: 21, 10, 4, 0 … (for a self-assessed purchase, the rate
    /// the account applies).
    pub rate: Percent,
    pub base: Money,
    /// The VAT quota; default base × rate, rounded to cents. A quota more
    /// than 2 cents from that is refused.
    pub vat_amount: Option<Money>,
    /// Equivalence surcharge percent, when the supplier charged it.
    pub surcharge_rate: Option<Percent>,
    /// Default base × surcharge rate.
    pub surcharge_amount: Option<Money>,
}

/// A file kept with the expense: base64 `data` or an `upload_id` from
/// `POST /api/v1/uploads`. An e-invoice (Facturae, UBL, CII, or a PDF
/// carrying one) is also read for the fields.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DocumentInput {
    pub data: Option<String>,
    pub upload_id: Option<String>,
    /// application/pdf, image/jpeg, image/png, image/webp or application/xml;
    /// default: what the bytes are.
    pub mime: Option<String>,
    pub file_name: Option<String>,
}

/// One element of `invoices` from `POST /api/v1/invoices/extract`, as it came
/// or corrected: the fields an expense takes from it (the rest are ignored).
#[derive(Clone, Debug, Default, Deserialize)]
pub struct ExtractedFields {
    pub issuer_name: Option<String>,
    pub issuer_nif: Option<String>,
    pub invoice_number: Option<String>,
    pub invoice_date: Option<NaiveDate>,
    pub base: Option<Money>,
    pub vat_rate: Option<Percent>,
    pub vat_amount: Option<Money>,
    #[serde(default)]
    pub vat_breakdown: Vec<ExtractedLine>,
    pub irpf_rate: Option<Percent>,
    pub irpf_amount: Option<Money>,
    pub total: Option<Money>,
    /// Only EUR is taken.
    pub currency: Option<String>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct ExtractedLine {
    pub rate: Percent,
    pub base: Money,
    pub vat_amount: Money,
    pub surcharge_rate: Option<Percent>,
    pub surcharge_amount: Option<Money>,
}

/// The fields of an expense: on create, what the document and `extracted`
/// leave out (supplier, number, issue date and lines are needed in the
/// end); on update, the fields to change.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"supplier_name": "Gestoría López SL", "supplier_tax_id": "B12345674",
    "number": "2026/0412", "issue_date": "2026-10-05", "category": "professional_services",
    "lines": [{"rate": 21, "base": 200, "vat_amount": 42}], "irpf_rate": 15}))]
pub struct ExpenseFields {
    /// Up to 120 characters.
    pub supplier_name: Option<String>,
    /// A Spanish NIF (checked) when `supplier_country` is ES; else the VAT number.
    pub supplier_tax_id: Option<String>,
    /// ISO 3166-1 alpha-2; default ES.
    pub supplier_country: Option<String>,
    /// The supplier's invoice number, up to 60 characters.
    pub number: Option<String>,
    pub issue_date: Option<NaiveDate>,
    /// When the supply took place, if the invoice says (IRPF accrual, Modelo 130).
    pub operation_date: Option<NaiveDate>,
    /// When the invoice arrived (the VAT is deducted from that quarter,
    /// Modelo 303); default the issue date.
    pub received_date: Option<NaiveDate>,
    /// Default `other`.
    pub category: Option<Category>,
    /// Default `domestic`.
    pub treatment: Option<Treatment>,
    /// The indirect tax the supplier charged: `iva` (the default), `igic`
    /// (Canary Islands) or `ipsi` (Ceuta, Melilla). IGIC and IPSI are never
    /// in Modelo 303; the expense is still a cost for IRPF.
    pub tax: Option<IndirectTax>,
    /// An investment good (boxes 30/31, 34/35, 38/39); default false. For
    /// IRPF it is amortised, not expensed at once (LIRPF art. 28, LIS art. 12).
    pub capital_good: Option<bool>,
    /// The group of the simplified amortisation table of a capital good;
    /// default `computers` for `software`, `vehicles` for `vehicle`, else
    /// `furniture` (the table's residual group).
    pub asset_kind: Option<AssetKind>,
    /// Annual amortisation percent of a capital good, within its group's
    /// limits (at most the maximum coefficient, at least 100 / maximum
    /// years); default the maximum coefficient.
    pub amortisation_rate: Option<Percent>,
    /// A capital good of new items worth at most 300 € each: written off at
    /// once in the year it enters service, up to 25,000 € a year (LIS art.
    /// 12.3.e); default false.
    pub low_value: Option<bool>,
    /// When the account paid the supplier: IRPF withheld goes to the Modelo
    /// 111/115 of that quarter (RIRPF art. 78.1). Not given: not paid yet.
    pub paid_date: Option<NaiveDate>,
    /// The supplier is under the special cash-accounting regime (its invoice
    /// says "Régimen especial del criterio de caja"): the VAT it charges is
    /// deductible when paid (`paid_date`), or on 31 December of the year
    /// after the operation if unpaid (LIVA art. 163 quinquiesdecies.Uno),
    /// and counts in boxes 74/75 of Modelo 303. Domestic purchases only;
    /// default false.
    pub supplier_cash_accounting: Option<bool>,
    /// Share of private use, 0–100. It sets the IRPF share when
    /// `expense_deductible_percent` is not given: 100 − this, but 0 for a
    /// `vehicle` used privately at all (an indivisible asset, LIRPF art. 29.2;
    /// RIRPF art. 22.4).
    pub private_use_percent: Option<Percent>,
    /// One line per VAT rate, 1 to 20.
    pub lines: Option<Vec<LineInput>>,
    /// IRPF the account withheld from the supplier, percent.
    pub irpf_rate: Option<Percent>,
    /// Default base × IRPF rate.
    pub irpf_amount: Option<Money>,
    /// Default: bases + VAT + surcharge − IRPF (a self-assessed purchase
    /// charges no VAT). A total more than 2 cents from that is refused.
    pub total: Option<Money>,
    /// 0–100; default 100 (50 for `vehicle`). Forced to 0 when the supplier
    /// charged equivalence surcharge (LIVA art. 154.Dos).
    pub vat_deductible_percent: Option<Percent>,
    /// Share of the cost deductible for IRPF, 0–100; default 100 less
    /// `private_use_percent`; for `vehicle`, 0 unless `private_use_percent` is 0
    /// (RIRPF art. 22.4: a car counts only if used exclusively for the activity).
    pub expense_deductible_percent: Option<Percent>,
    /// Up to 500 characters.
    pub description: Option<String>,
    /// `confirmed` (the default) counts in the tax figures; `draft` (what an
    /// import from the AEAT adds) does not until an update confirms it.
    pub status: Option<Status>,
    /// One element of `invoices` that `POST /api/v1/invoices/extract`
    /// returned, as it came or corrected (then `source` is `extraction`).
    /// Taken from it: `issuer_name`, `issuer_nif`, `invoice_number`,
    /// `invoice_date`, `vat_breakdown` (else `base`, `vat_rate` and
    /// `vat_amount` as one line), `irpf_rate`, `irpf_amount`, `total` and
    /// `currency` (only EUR); its other members are ignored.
    #[schema(value_type = Option<Object>)]
    pub extracted: Option<ExtractedFields>,
    /// The invoice's file, kept with the expense and deleted with it.
    pub document: Option<DocumentInput>,
}

impl ExpenseFields {
    /// These fields, with `over`'s wherever it has one.
    pub fn overlay(self, over: ExpenseFields) -> ExpenseFields {
        ExpenseFields {
            supplier_name: over.supplier_name.or(self.supplier_name),
            supplier_tax_id: over.supplier_tax_id.or(self.supplier_tax_id),
            supplier_country: over.supplier_country.or(self.supplier_country),
            number: over.number.or(self.number),
            issue_date: over.issue_date.or(self.issue_date),
            operation_date: over.operation_date.or(self.operation_date),
            received_date: over.received_date.or(self.received_date),
            category: over.category.or(self.category),
            treatment: over.treatment.or(self.treatment),
            tax: over.tax.or(self.tax),
            capital_good: over.capital_good.or(self.capital_good),
            asset_kind: over.asset_kind.or(self.asset_kind),
            amortisation_rate: over.amortisation_rate.or(self.amortisation_rate),
            low_value: over.low_value.or(self.low_value),
            paid_date: over.paid_date.or(self.paid_date),
            supplier_cash_accounting: over
                .supplier_cash_accounting
                .or(self.supplier_cash_accounting),
            private_use_percent: over.private_use_percent.or(self.private_use_percent),
            lines: over.lines.or(self.lines),
            irpf_rate: over.irpf_rate.or(self.irpf_rate),
            irpf_amount: over.irpf_amount.or(self.irpf_amount),
            total: over.total.or(self.total),
            vat_deductible_percent: over.vat_deductible_percent.or(self.vat_deductible_percent),
            expense_deductible_percent: over
                .expense_deductible_percent
                .or(self.expense_deductible_percent),
            description: over.description.or(self.description),
            status: over.status.or(self.status),
            extracted: None,
            document: None,
        }
    }

    /// The fields of an e-invoice as read.
    pub fn from_einvoice(read: &Fields) -> ExpenseFields {
        let text = |f: &Option<crate::extraction::fields::Field<String>>| {
            f.as_ref().map(|f| f.value.clone())
        };
        let lines: Vec<LineInput> = read
            .vat_breakdown
            .iter()
            .map(|l| LineInput {
                rate: Percent::from(l.rate),
                base: Money::from(l.base),
                vat_amount: Some(Money::from(l.vat_amount)),
                surcharge_rate: l.surcharge_rate.map(Percent::from),
                surcharge_amount: l.surcharge_amount.map(Money::from),
            })
            .collect();
        ExpenseFields {
            supplier_name: text(&read.issuer_name),
            supplier_tax_id: text(&read.issuer_nif),
            number: text(&read.invoice_number),
            issue_date: read.invoice_date.as_ref().map(|f| f.value),
            lines: (!lines.is_empty()).then_some(lines),
            irpf_amount: read
                .irpf_amount
                .as_ref()
                .filter(|f| !f.value.is_zero())
                .map(|f| Money::from(f.value)),
            irpf_rate: read.irpf_rate.as_ref().map(|f| Percent::from(f.value)),
            total: read.total.as_ref().map(|f| Money::from(f.value)),
            ..ExpenseFields::default()
        }
    }

    /// The fields of an extraction result. Without a breakdown, its single
    /// base and VAT rate make the one line.
    pub fn from_extracted(read: &ExtractedFields) -> ExpenseFields {
        let mut lines: Vec<LineInput> = read
            .vat_breakdown
            .iter()
            .map(|l| LineInput {
                rate: l.rate,
                base: l.base,
                vat_amount: Some(l.vat_amount),
                surcharge_rate: l.surcharge_rate,
                surcharge_amount: l.surcharge_amount,
            })
            .collect();
        if lines.is_empty()
            && let (Some(base), Some(rate)) = (read.base, read.vat_rate)
        {
            lines.push(LineInput {
                rate,
                base,
                vat_amount: read.vat_amount,
                surcharge_rate: None,
                surcharge_amount: None,
            });
        }
        ExpenseFields {
            supplier_name: read.issuer_name.clone(),
            supplier_tax_id: read.issuer_nif.clone(),
            number: read.invoice_number.clone(),
            issue_date: read.invoice_date,
            lines: (!lines.is_empty()).then_some(lines),
            irpf_rate: read.irpf_rate.filter(|r| !r.is_zero()),
            irpf_amount: read.irpf_amount.filter(|a| !a.is_zero()),
            total: read.total,
            ..ExpenseFields::default()
        }
    }

    /// An expense's own fields, for an update to change some of them.
    pub fn from_expense(e: &Expense) -> ExpenseFields {
        ExpenseFields {
            supplier_name: Some(e.entry.supplier.name.clone()),
            supplier_tax_id: Some(e.entry.supplier.tax_id.clone()),
            supplier_country: Some(e.entry.supplier.country.clone()),
            number: Some(e.entry.number.clone()),
            issue_date: Some(e.entry.issue_date),
            operation_date: e.entry.operation_date,
            received_date: e.entry.received_date,
            category: Some(e.entry.category),
            treatment: Some(e.entry.treatment),
            tax: Some(e.entry.tax),
            capital_good: Some(e.entry.capital_good),
            asset_kind: e.entry.amortisation.map(|a| a.kind),
            amortisation_rate: e.entry.amortisation.map(|a| a.annual_rate),
            low_value: e.entry.amortisation.map(|a| a.low_value),
            paid_date: e.withholding_date(),
            supplier_cash_accounting: Some(e.entry.supplier_cash_accounting),
            private_use_percent: e.entry.private_use_percent,
            lines: Some(
                e.entry
                    .lines
                    .iter()
                    .map(|l| LineInput {
                        rate: l.rate,
                        base: l.base,
                        vat_amount: Some(l.vat_amount),
                        surcharge_rate: l.surcharge_rate,
                        surcharge_amount: l.surcharge_amount,
                    })
                    .collect(),
            ),
            irpf_rate: e.entry.irpf_rate,
            irpf_amount: Some(e.entry.irpf_amount),
            total: Some(e.entry.total),
            vat_deductible_percent: Some(e.entry.vat_deductible_percent),
            expense_deductible_percent: Some(e.entry.expense_deductible_percent),
            description: e.entry.description.clone(),
            status: Some(e.entry.status),
            extracted: None,
            document: None,
        }
    }

    /// Whether an update changes an amount (then the derived ones, IRPF and
    /// total, are recomputed unless sent too).
    pub fn changes_amounts(&self) -> bool {
        self.lines.is_some() || self.irpf_rate.is_some() || self.treatment.is_some()
    }
}

/// The currency of an extraction result when it is not euros (the book keeps euros only).
pub fn foreign_currency(read: &ExtractedFields) -> Option<&str> {
    read.currency
        .as_deref()
        .filter(|c| !c.eq_ignore_ascii_case("EUR"))
}
