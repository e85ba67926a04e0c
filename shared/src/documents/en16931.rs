//! The EN 16931 reading of a stored invoice, independent of the syntax.
//!
//! - A negative total makes a credit note (381) with every amount and
//!   quantity sign-inverted; otherwise a rectification by substitution is a
//!   corrected invoice (384) and anything else a commercial invoice (380).
//!   A rectification references the rectified invoice (BT-25/BT-26).
//! - IRPF is outside EN 16931: it is the paid amount (BT-113), so the amount
//!   due is the invoice total while the VAT base stays untouched, and a note
//!   states it.
//! - The equivalence surcharge has no EN 16931 element either: it is added to
//!   the VAT rate of its category (21 % + 5.2 % → S 26.2 %), so the tax and
//!   the amount due are exact, and a note splits it.

use chrono::NaiveDate;
use rust_decimal::Decimal;

use crate::invoice::model::{GroupView, Invoice, IssuerView, LineView, Payment};
use crate::invoice::party::Party;
use crate::invoice::status::Status;
use crate::tax::indirect::IndirectTax;
use crate::tax::money::Money;
use crate::tax::money::{cents, round2};

pub const CUSTOMIZATION_ID: &str = "urn:cen.eu:en16931:2017";
/// UN/ECE Recommendation 20 "one" (unit).
pub const UNIT_CODE: &str = "C62";
/// UNTDID 5189 "discount".
pub const DISCOUNT_CODE: &str = "95";
pub const DISCOUNT_REASON: &str = "Descuento";

const COMMERCIAL_INVOICE: &str = "380";
const CREDIT_NOTE: &str = "381";
const CORRECTED_INVOICE: &str = "384";
const UNIDENTIFIED_BUYER: &str = "Destinatario no identificado";
pub struct Document {
    pub number: String,
    pub type_code: &'static str,
    pub issue_date: NaiveDate,
    pub due_date: Option<NaiveDate>,
    /// The operation date, which is the issue date unless the invoice
    /// states another (RD 1619/2012, art. 6.1.f).
    pub delivery_date: NaiveDate,
    pub deliver_to_country: Option<String>,
    pub currency: String,
    pub notes: Vec<String>,
    /// The rectified invoice's number and issue date.
    pub preceding: Option<(String, NaiveDate)>,
    pub seller: Trader,
    pub buyer: Trader,
    pub payment: Option<PaymentMeans>,
    pub groups: Vec<VatGroup>,
    pub lines: Vec<Line>,
    pub line_total: Decimal,
    pub tax_exclusive: Decimal,
    pub tax: Decimal,
    pub tax_inclusive: Decimal,
    pub prepaid: Option<Decimal>,
    pub payable: Decimal,
}

impl Document {
    pub fn is_credit_note(&self) -> bool {
        self.type_code == CREDIT_NOTE
    }
}

pub struct Trader {
    pub name: String,
    pub legal_id: Option<String>,
    pub vat_id: Option<String>,
    pub street: Option<String>,
    pub postal_code: Option<String>,
    pub city: Option<String>,
    pub province: Option<String>,
    pub country: String,
    pub email: Option<String>,
}

/// UNTDID 4461 code, the seller's IBAN (transfer) or the buyer's (direct debit).
pub struct PaymentMeans {
    pub code: &'static str,
    pub payee_iban: Option<String>,
    pub payer_iban: Option<String>,
}

/// A VAT category code (UNTDID 5305) and rate; "O" has no rate.
#[derive(Clone, Copy, PartialEq)]
pub struct Category {
    pub code: &'static str,
    pub percent: Option<Decimal>,
}

pub struct VatGroup {
    pub category: Category,
    pub base: Decimal,
    pub tax: Decimal,
    reasons: Vec<&'static str>,
}

impl VatGroup {
    /// The VATEX code, for the categories that have exactly one meaning.
    pub fn exemption_code(&self) -> Option<&'static str> {
        match self.category.code {
            "AE" => Some("VATEX-EU-AE"),
            "G" => Some("VATEX-EU-G"),
            "K" => Some("VATEX-EU-IC"),
            "O" => Some("VATEX-EU-O"),
            _ => None,
        }
    }

    pub fn exemption_reason(&self) -> Option<String> {
        (!self.reasons.is_empty()).then(|| self.reasons.join("; "))
    }
}

pub struct Line {
    pub id: usize,
    pub name: String,
    pub quantity: Decimal,
    pub price: Decimal,
    pub net: Decimal,
    pub discount: Option<Discount>,
    pub category: Category,
}

/// A line discount as an allowance: `base` (quantity × price) less
/// `amount` is the line's net amount.
pub struct Discount {
    pub percent: Decimal,
    pub base: Decimal,
    pub amount: Decimal,
}

pub fn document(invoice: &Invoice) -> Document {
    let sign = if invoice.total < Money::from(Decimal::ZERO) {
        Decimal::NEGATIVE_ONE
    } else {
        Decimal::ONE
    };
    let only_not_subject = invoice
        .lines
        .iter()
        .all(|l| matches!(l.exemption.as_deref(), Some("N1" | "N2")));
    let groups = groups(&invoice.breakdown, sign, only_not_subject, invoice.tax);
    let intra_community = groups.iter().any(|g| g.category.code == "K");
    let buyer = buyer(invoice, only_not_subject);
    let tax_exclusive = sign * invoice.base;
    let tax = sign * (invoice.vat_amount + invoice.surcharge_amount);
    Document {
        number: invoice.number.clone(),
        type_code: type_code(invoice, sign),
        issue_date: invoice.issue_date,
        due_date: crate::invoice::payments::next_due_date(invoice),
        delivery_date: invoice.operation_date.unwrap_or(invoice.issue_date),
        deliver_to_country: intra_community.then(|| buyer.country.clone()),
        currency: invoice.currency.clone(),
        notes: notes(invoice, sign),
        preceding: invoice
            .rectifies
            .as_ref()
            .map(|r| (r.number.clone(), r.issue_date)),
        seller: seller(&invoice.issuer, only_not_subject),
        buyer,
        payment: invoice.payment.as_ref().map(payment_means),
        groups,
        lines: invoice
            .lines
            .iter()
            .enumerate()
            .map(|(i, l)| line(i + 1, l, sign, only_not_subject, invoice.tax))
            .collect(),
        line_total: sign
            * invoice
                .lines
                .iter()
                .map(|l| l.base.value())
                .sum::<Decimal>(),
        tax_exclusive: tax_exclusive.value(),
        tax: tax.value(),
        tax_inclusive: (tax_exclusive + tax).value(),
        prepaid: (!invoice.irpf_amount.is_zero()).then(|| (sign * invoice.irpf_amount).value()),
        payable: (sign * invoice.total).value(),
    }
}

/// A unit price with at least two decimals, and all it has beyond.
pub fn price(value: Decimal) -> String {
    let value = value.normalize();
    if value.scale() < 2 {
        cents(value)
    } else {
        value.to_string()
    }
}

fn type_code(invoice: &Invoice, sign: Decimal) -> &'static str {
    if sign.is_sign_negative() {
        CREDIT_NOTE
    } else if invoice
        .rectifies
        .as_ref()
        .is_some_and(|r| r.method == "substitution")
    {
        CORRECTED_INVOICE
    } else {
        COMMERCIAL_INVOICE
    }
}

/// The category of a line or group and, for 0 % ones, the exemption text.
/// Not-subject operations are "O" only when the whole invoice is (EN 16931
/// allows no other category beside "O"); otherwise they are shown as "E".
fn classify(
    vat_rate: Decimal,
    surcharge_rate: Decimal,
    exemption: Option<&str>,
    only_not_subject: bool,
    tax: IndirectTax,
) -> (Category, Option<&'static str>) {
    let Some(exemption) = exemption else {
        let percent = (vat_rate + surcharge_rate).normalize();
        return (
            Category {
                code: tax.taxed_category(),
                percent: Some(percent),
            },
            None,
        );
    };
    let (code, reason) = match exemption {
        "S2" => ("AE", "Inversión del sujeto pasivo"),
        "E1" => ("E", "Exenta por el artículo 20 de la Ley 37/1992"),
        "E2" => (
            "G",
            "Exenta por el artículo 21 de la Ley 37/1992 (exportación)",
        ),
        "E3" => ("E", "Exenta por el artículo 22 de la Ley 37/1992"),
        "E4" => ("E", "Exenta por los artículos 23 y 24 de la Ley 37/1992"),
        "E5" => (
            "K",
            "Exenta por el artículo 25 de la Ley 37/1992 (entrega intracomunitaria)",
        ),
        "N1" => (
            if only_not_subject { "O" } else { "E" },
            "No sujeta por los artículos 7 y 14 de la Ley 37/1992",
        ),
        "N2" => (
            if only_not_subject { "O" } else { "E" },
            "No sujeta por las reglas de localización (artículos 68 a 70 de la Ley 37/1992)",
        ),
        _ => ("E", "Exenta por otra causa"),
    };
    let percent = (code != "O").then_some(Decimal::ZERO);
    (Category { code, percent }, Some(reason))
}

/// One group per category and rate, as EN 16931 requires; the stored
/// groups (per VAT rate, surcharge and exemption) give the amounts.
fn groups(
    breakdown: &[GroupView],
    sign: Decimal,
    only_not_subject: bool,
    tax: IndirectTax,
) -> Vec<VatGroup> {
    let mut groups: Vec<VatGroup> = Vec::new();
    for stored in breakdown {
        let (category, reason) = classify(
            stored.vat_rate.value(),
            stored.surcharge_rate.value(),
            stored.exemption.as_deref(),
            only_not_subject,
            tax,
        );
        let index = match groups.iter().position(|g| g.category == category) {
            Some(index) => index,
            None => {
                groups.push(VatGroup {
                    category,
                    base: Decimal::ZERO,
                    tax: Decimal::ZERO,
                    reasons: Vec::new(),
                });
                groups.len() - 1
            }
        };
        let group = &mut groups[index];
        group.base += sign * stored.base.value();
        group.tax += sign * (stored.vat_amount + stored.surcharge_amount).value();
        if let Some(reason) = reason.filter(|r| !group.reasons.contains(r)) {
            group.reasons.push(reason);
        }
    }
    groups
}

fn line(
    id: usize,
    stored: &LineView,
    sign: Decimal,
    only_not_subject: bool,
    tax: IndirectTax,
) -> Line {
    let quantity = sign * stored.quantity;
    let net = sign * stored.base;
    let discount = (!stored.discount_percent.is_zero()).then(|| {
        let base = round2((quantity * stored.unit_price).value());
        Discount {
            percent: stored.discount_percent.value().normalize(),
            base,
            amount: base - net.value(),
        }
    });
    Line {
        id,
        name: stored.description.clone(),
        quantity: quantity.normalize(),
        price: stored.unit_price.value(),
        net: net.value(),
        discount,
        category: classify(
            stored.vat_rate.value(),
            stored.surcharge_rate.value(),
            stored.exemption.as_deref(),
            only_not_subject,
            tax,
        )
        .0,
    }
}

fn notes(invoice: &Invoice, sign: Decimal) -> Vec<String> {
    let currency = &invoice.currency;
    let mut notes = Vec::new();
    if !invoice.livemode {
        notes.push("Factura de prueba (modo test), sin validez fiscal.".to_owned());
    }
    if invoice.status == Status::Cancelled {
        let reason = invoice.cancellation_reason();
        notes.push(match reason {
            Some(reason) => format!("Factura anulada: {reason}"),
            None => "Factura anulada.".to_owned(),
        });
    }
    if invoice.is_simplified() {
        notes.push("Factura simplificada.".to_owned());
    }
    notes.extend(crate::documents::replacement_note(invoice));
    notes.extend(crate::documents::cash_accounting_note(invoice));
    if let Some(r) = &invoice.rectifies {
        let method = if r.method == "substitution" {
            "sustitución"
        } else {
            "diferencias"
        };
        notes.push(format!(
            "Factura rectificativa {} por {method} de la factura {} del {}: {}",
            r.reason_code, r.number, r.issue_date, r.description
        ));
    }
    if !invoice.irpf_amount.is_zero() {
        notes.push(format!(
            "Retención de IRPF del {} %: {} {currency}, indicada como importe ya pagado \
             porque el destinatario la ingresa en la Agencia Tributaria.",
            invoice.irpf_rate.value().normalize(),
            cents((sign * invoice.irpf_amount).value())
        ));
    }
    notes.extend(
        invoice
            .breakdown
            .iter()
            .filter(|g| !g.surcharge_rate.is_zero())
            .map(|g| {
                format!(
                    "Recargo de equivalencia: el tipo del {} % es IVA {} % ({} {currency}) \
                     más recargo {} % ({} {currency}) sobre {} {currency}.",
                    (g.vat_rate.value() + g.surcharge_rate.value()).normalize(),
                    g.vat_rate.value().normalize(),
                    cents((sign * g.vat_amount).value()),
                    g.surcharge_rate.value().normalize(),
                    cents((sign * g.surcharge_amount).value()),
                    cents((sign * g.base).value())
                )
            }),
    );
    let description = invoice.rectifies.as_ref().map(|r| r.description.as_str());
    if let Some(text) = invoice.notes.as_deref().filter(|n| Some(*n) != description) {
        notes.push(text.to_owned());
    }
    notes
}

fn present(value: &str) -> Option<String> {
    let value = value.trim();
    (!value.is_empty()).then(|| value.to_owned())
}

/// The VAT number of an EU trader: the tax id with its country prefix
/// (`EL` for Greece). None outside the EU, or when the invoice is not
/// subject to VAT (EN 16931 then forbids VAT numbers).
fn vat_id(tax_id: &str, country: &str, only_not_subject: bool) -> Option<String> {
    if only_not_subject || !crate::invoice::party::in_eu(country) {
        return None;
    }
    let prefix = if country == "GR" { "EL" } else { country };
    Some(if tax_id.starts_with(prefix) {
        tax_id.to_owned()
    } else {
        format!("{prefix}{tax_id}")
    })
}

fn seller(issuer: &IssuerView, only_not_subject: bool) -> Trader {
    Trader {
        name: issuer.name.clone(),
        legal_id: present(&issuer.tax_id),
        vat_id: present(&issuer.tax_id)
            .and_then(|id| vat_id(&id, &issuer.country, only_not_subject)),
        street: present(&issuer.address),
        postal_code: present(&issuer.postal_code),
        city: present(&issuer.city),
        province: issuer.province.as_deref().and_then(present),
        country: issuer.country.clone(),
        email: None,
    }
}

/// A simplified invoice may name no buyer, but EN 16931 needs a name and a
/// country: "Destinatario no identificado" in the issuer's country.
fn buyer(invoice: &Invoice, only_not_subject: bool) -> Trader {
    match &invoice.customer {
        Some(customer) => customer_trader(customer, only_not_subject),
        None => Trader {
            name: UNIDENTIFIED_BUYER.to_owned(),
            legal_id: None,
            vat_id: None,
            street: None,
            postal_code: None,
            city: None,
            province: None,
            country: invoice.issuer.country.clone(),
            email: None,
        },
    }
}

fn customer_trader(customer: &Party, only_not_subject: bool) -> Trader {
    Trader {
        name: customer.name.clone(),
        legal_id: customer.tax_id.clone(),
        vat_id: customer
            .tax_id
            .as_deref()
            .and_then(|id| vat_id(id, &customer.country, only_not_subject)),
        street: customer.address.clone(),
        postal_code: customer.postal_code.clone(),
        city: customer.city.clone(),
        province: None,
        country: customer.country.clone(),
        email: customer.email.clone(),
    }
}

fn payment_means(payment: &Payment) -> PaymentMeans {
    let (code, payee_iban, payer_iban) = match payment.method.as_str() {
        "transfer" => ("58", payment.iban.clone(), None),
        "direct_debit" => ("59", None, payment.iban.clone()),
        "card" => ("48", None, None),
        "cash" => ("10", None, None),
        _ => ("ZZZ", None, None),
    };
    PaymentMeans {
        code,
        payee_iban,
        payer_iban,
    }
}
