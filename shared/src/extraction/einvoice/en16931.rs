//! The EN 16931 meaning of a UBL or CII invoice, the same for both syntaxes:
//! what `ubl` and `cii` read goes into a `Document`, and `fields` turns it
//! into the invoice's figures.
//!
//! EN 16931 has no element for IRPF nor for the equivalence surcharge, so
//! - a withholding is an explicit UBL `WithholdingTaxTotal`, or the prepaid
//!   amount (BT-113) when a note says it is the IRPF, as our documents write
//!   it: "Retención de IRPF del 15 %: 185.18 EUR, indicada como importe ya
//!   pagado …". Any other prepaid amount stays a prepayment, with a note.
//! - a standard-rated group whose rate is VAT plus surcharge (S 26.2 %) is
//!   split back when a note gives the split, as our documents write it:
//!   "Recargo de equivalencia: el tipo del 26.2 % es IVA 21 % (52.50 EUR) más
//!   recargo 5.2 % (13.00 EUR) sobre 250.00 EUR." Without such a note a rate
//!   like 26.2 % stays as it is, with a note that it looks folded.

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::values;
use super::{exact, note, set_indirect_tax, set_recipient};
use crate::extraction::fields::{Fields, ItemLine, VatLine};

/// UNTDID 1001 credit-note codes allowed by EN 16931 (BT-3).
const CREDIT_NOTE_CODES: [&str; 11] = [
    "81", "83", "261", "262", "296", "308", "381", "396", "420", "458", "532",
];
/// UNTDID 1001 self-billing codes: invoice, credit note, debit note.
const SELF_BILLED_CODES: [&str; 3] = ["389", "261", "527"];
const IRPF_NOTE: &str = "Retención de IRPF del ";
const SURCHARGE_NOTE: &str = "Recargo de equivalencia: el tipo del ";
/// VAT plus surcharge rates (21 + 5.2, 10 + 1.4, 4 + 0.5, 5 + 0.62) that
/// betray a surcharge folded into the VAT rate.
const FOLDED_RATES: [&str; 4] = ["26.2", "11.4", "4.5", "5.62"];

#[derive(Default)]
pub struct Document {
    pub number: Option<String>,
    pub issue_date: Option<NaiveDate>,
    pub seller: Trader,
    pub buyer: Trader,
    pub currency: Option<String>,
    pub credit_note: bool,
    /// Issued by the buyer on the seller's behalf (autofactura).
    pub self_billed: bool,
    pub notes: Vec<String>,
    pub groups: Vec<Group>,
    /// BT-110, the VAT total in the document currency.
    pub tax_total: Option<Decimal>,
    /// BT-109.
    pub tax_exclusive: Option<Decimal>,
    /// BT-112.
    pub tax_inclusive: Option<Decimal>,
    /// BT-113.
    pub prepaid: Option<Decimal>,
    /// BT-115.
    pub payable: Option<Decimal>,
    /// An explicit withholding (UBL `WithholdingTaxTotal`): rate and amount.
    pub withholding: Option<(Option<Decimal>, Decimal)>,
    /// Taxes other than VAT the document states (a CII `ApplicableTradeTax`
    /// with another type code): type code and amount.
    pub other_taxes: Vec<(String, Decimal)>,
    /// BG-25, amounts as stated (positive on a credit note).
    pub lines: Vec<ItemLine>,
    /// BT-9.
    pub due_date: Option<NaiveDate>,
    /// BT-84 of the first credit transfer, compact.
    pub iban: Option<String>,
}

#[derive(Default)]
pub struct Trader {
    pub name: Option<String>,
    pub tax_id: Option<String>,
}

/// One VAT breakdown group (BG-23).
pub struct Group {
    pub category: String,
    pub percent: Option<Decimal>,
    pub base: Decimal,
    pub tax: Decimal,
}

pub fn is_credit_note_code(code: &str) -> bool {
    CREDIT_NOTE_CODES.contains(&code)
}

pub fn is_self_billed_code(code: &str) -> bool {
    SELF_BILLED_CODES.contains(&code)
}

/// A surcharge folded into a VAT group, as one of our notes splits it.
struct Split {
    combined: Decimal,
    vat_rate: Decimal,
    vat: Decimal,
    rate: Decimal,
    amount: Decimal,
    base: Decimal,
}

impl Split {
    fn parse(note: &str) -> Option<Split> {
        let (_, rest) = note.split_once(SURCHARGE_NOTE)?;
        match numbers(rest).as_slice() {
            [combined, vat_rate, vat, rate, amount, base, ..] => Some(Split {
                combined: *combined,
                vat_rate: *vat_rate,
                vat: *vat,
                rate: *rate,
                amount: *amount,
                base: *base,
            }),
            _ => None,
        }
    }

    fn splits(&self, group: &Group) -> bool {
        group.category == "S"
            && group.percent == Some(self.combined)
            && group.base == self.base
            && group.tax == self.vat + self.amount
    }
}

/// The rate and amount of our IRPF note.
fn irpf_note(note: &str) -> Option<(Decimal, Decimal)> {
    let (_, rest) = note.split_once(IRPF_NOTE)?;
    match numbers(rest).as_slice() {
        [rate, amount, ..] => Some((*rate, *amount)),
        _ => None,
    }
}

/// The numbers of a text, in order (`(52.50` and `5.2` count, `EUR.` does not).
fn numbers(text: &str) -> Vec<Decimal> {
    text.split_whitespace()
        .map(|word| word.trim_matches(|c| matches!(c, '(' | ')' | ',' | ':' | ';')))
        .filter_map(values::decimal)
        .collect()
}

pub fn fields(document: &Document) -> Fields {
    let sign = if document.credit_note {
        Decimal::NEGATIVE_ONE
    } else {
        Decimal::ONE
    };
    let mut fields = Fields {
        issuer_name: exact(document.seller.name.clone()),
        issuer_nif: exact(document.seller.tax_id.clone()),
        invoice_number: exact(document.number.clone()),
        invoice_date: exact(document.issue_date),
        currency: document.currency.clone(),
        ..Fields::default()
    };
    set_recipient(
        &mut fields,
        document.buyer.name.clone(),
        document.buyer.tax_id.clone(),
    );
    if document.credit_note {
        note(
            &mut fields,
            "credit_note",
            "Factura rectificativa en forma de abono: base, cuotas, retención y total se dan en negativo."
                .to_string(),
        );
    }
    if document.self_billed {
        note(
            &mut fields,
            "self_billed",
            "Autofactura: la emite el destinatario en nombre del proveedor, que sigue siendo el emisor."
                .to_string(),
        );
    }
    fields.lines = document
        .lines
        .iter()
        .map(|line| ItemLine {
            amount: line.amount.map(|a| sign * a),
            ..line.clone()
        })
        .collect();
    fields.due_date = exact(document.due_date);
    fields.iban = exact(document.iban.clone());
    let surcharge = breakdown(document, sign, &mut fields);
    indirect_tax(document, &mut fields);
    let tax = document.tax_total.or_else(|| {
        (!document.groups.is_empty()).then(|| document.groups.iter().map(|g| g.tax).sum())
    });
    fields.vat_amount = exact(tax.map(|t| sign * (t - surcharge)));
    fields.base = exact(document.tax_exclusive.map(|b| sign * b));
    let irpf = withholding(document, sign, &mut fields);
    totals(document, tax, irpf, sign, &mut fields);
    for (code, amount) in &document.other_taxes {
        note(
            &mut fields,
            "other_tax",
            format!(
                "Impuesto de tipo {code} (no IVA) de {amount} sin elemento estándar; si es una retención, no se ha restado del total."
            ),
        );
    }
    fields
}

/// The breakdown, surcharges split back where a note allows; returns the
/// surcharge total (unsigned, as the document states it).
fn breakdown(document: &Document, sign: Decimal, fields: &mut Fields) -> Decimal {
    let splits: Vec<Split> = document
        .notes
        .iter()
        .filter_map(|n| Split::parse(n))
        .collect();
    let mut surcharge = Decimal::ZERO;
    for group in &document.groups {
        let line = match splits.iter().find(|s| s.splits(group)) {
            Some(split) => {
                surcharge += split.amount;
                VatLine {
                    rate: split.vat_rate,
                    base: sign * group.base,
                    vat_amount: sign * split.vat,
                    surcharge_rate: Some(split.rate),
                    surcharge_amount: Some(sign * split.amount),
                }
            }
            None => {
                let rate = group.percent.unwrap_or_default().normalize();
                if group.category == "S"
                    && FOLDED_RATES
                        .iter()
                        .any(|r| values::decimal(r) == Some(rate))
                {
                    note(
                        fields,
                        "surcharge_possibly_folded",
                        format!(
                            "El tipo del {rate} % parece IVA más recargo de equivalencia, pero el documento no lo desglosa; se deja como está."
                        ),
                    );
                }
                VatLine {
                    rate,
                    base: sign * group.base,
                    vat_amount: sign * group.tax,
                    surcharge_rate: None,
                    surcharge_amount: None,
                }
            }
        };
        fields.vat_breakdown.push(line);
    }
    surcharge
}

/// Category L is IGIC (Canarias), M is IPSI (Ceuta, Melilla).
fn indirect_tax(document: &Document, fields: &mut Fields) {
    let tax = document
        .groups
        .iter()
        .find_map(|g| match g.category.as_str() {
            "L" => Some("IGIC"),
            "M" => Some("IPSI"),
            _ => None,
        });
    if let Some(tax) = tax {
        set_indirect_tax(fields, tax);
    }
}

/// The IRPF, unsigned: explicit, or the prepaid amount our note names.
fn withholding(document: &Document, sign: Decimal, fields: &mut Fields) -> Option<Decimal> {
    let (rate, amount) = match document.withholding {
        Some(explicit) => explicit,
        None => {
            let prepaid = document.prepaid?;
            let (rate, amount) = document.notes.iter().find_map(|n| irpf_note(n))?;
            if amount != prepaid {
                return None;
            }
            (Some(rate), amount)
        }
    };
    fields.irpf_rate = exact(rate.map(|r| r.normalize()));
    fields.irpf_amount = exact(Some(sign * amount));
    Some(amount)
}

fn totals(
    document: &Document,
    tax: Option<Decimal>,
    irpf: Option<Decimal>,
    sign: Decimal,
    fields: &mut Fields,
) {
    let withheld = irpf.unwrap_or_default();
    let total = match (document.tax_inclusive, document.tax_exclusive, tax) {
        (Some(inclusive), _, _) => Some(inclusive - withheld),
        (None, Some(base), Some(tax)) => {
            note(
                fields,
                "total_computed",
                "El documento no indica el total con impuestos; se calcula como base más cuota."
                    .to_string(),
            );
            Some(base + tax - withheld)
        }
        _ => None,
    };
    fields.total = exact(total.map(|t| sign * t));
    let prepaid_is_irpf = irpf.is_some() && document.withholding.is_none();
    let currency = document.currency.as_deref().unwrap_or("EUR");
    if let Some(prepaid) = document
        .prepaid
        .filter(|p| !p.is_zero() && !prepaid_is_irpf)
    {
        note(
            fields,
            "prepaid_amount",
            format!("Importe ya pagado (anticipo) de {prepaid} {currency}, no restado del total."),
        );
        let mentions_withholding = document.notes.iter().any(|n| {
            let n = n.to_lowercase();
            n.contains("irpf") || n.contains("retención") || n.contains("retencion")
        });
        if irpf.is_none() && mentions_withholding {
            note(
                fields,
                "possible_withholding",
                "Una nota menciona una retención, pero su importe no se identifica; el total no la descuenta."
                    .to_string(),
            );
        }
    }
    if let (Some(payable), Some(total)) = (document.payable, total) {
        let expected = if prepaid_is_irpf {
            total
        } else {
            total - document.prepaid.unwrap_or_default()
        };
        if payable != expected {
            note(
                fields,
                "payable_differs",
                format!(
                    "El importe a pagar ({payable} {currency}) difiere del total menos lo ya pagado ({expected} {currency})."
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::dec;

    fn group(category: &str, percent: Decimal, base: Decimal, tax: Decimal) -> Group {
        Group {
            category: category.to_string(),
            percent: Some(percent),
            base,
            tax,
        }
    }

    fn value<T: Clone>(field: &Option<crate::extraction::Field<T>>) -> T {
        field.as_ref().unwrap().value.clone()
    }

    fn irpf_and_surcharge() -> Document {
        Document {
            number: Some("F2026-000003".into()),
            currency: Some("EUR".into()),
            notes: vec![
                "Retención de IRPF del 15 %: 45.00 EUR, indicada como importe ya pagado porque el destinatario la ingresa en la Agencia Tributaria.".into(),
                "Recargo de equivalencia: el tipo del 26.2 % es IVA 21 % (52.50 EUR) más recargo 5.2 % (13.00 EUR) sobre 250.00 EUR.".into(),
            ],
            groups: vec![
                group("S", dec!(26.2), dec!(250.00), dec!(65.50)),
                group("S", dec!(10), dec!(50.00), dec!(5.00)),
            ],
            tax_total: Some(dec!(70.50)),
            tax_exclusive: Some(dec!(300.00)),
            tax_inclusive: Some(dec!(370.50)),
            prepaid: Some(dec!(45.00)),
            payable: Some(dec!(325.50)),
            ..Document::default()
        }
    }

    #[test]
    fn our_irpf_and_surcharge_notes_are_read_back() {
        let fields = fields(&irpf_and_surcharge());
        assert_eq!(value(&fields.base), dec!(300.00));
        assert_eq!(value(&fields.vat_amount), dec!(57.50));
        assert_eq!(value(&fields.irpf_amount), dec!(45.00));
        assert_eq!(value(&fields.irpf_rate), dec!(15));
        assert_eq!(value(&fields.total), dec!(325.50));
        assert_eq!(
            fields.vat_breakdown[0],
            VatLine {
                rate: dec!(21),
                base: dec!(250.00),
                vat_amount: dec!(52.50),
                surcharge_rate: Some(dec!(5.2)),
                surcharge_amount: Some(dec!(13.00)),
            }
        );
        assert_eq!(fields.vat_breakdown[1].surcharge_rate, None);
        assert!(fields.notes.is_empty(), "{:?}", fields.notes);
    }

    #[test]
    fn a_credit_note_is_negative_except_its_rates() {
        let mut document = irpf_and_surcharge();
        document.credit_note = true;
        let fields = fields(&document);
        assert_eq!(value(&fields.base), dec!(-300.00));
        assert_eq!(value(&fields.vat_amount), dec!(-57.50));
        assert_eq!(value(&fields.irpf_amount), dec!(-45.00));
        assert_eq!(value(&fields.irpf_rate), dec!(15));
        assert_eq!(value(&fields.total), dec!(-325.50));
        assert_eq!(fields.vat_breakdown[0].rate, dec!(21));
        assert_eq!(fields.vat_breakdown[0].surcharge_amount, Some(dec!(-13.00)));
        assert_eq!(fields.notes[0].0, "credit_note");
    }

    #[test]
    fn a_prepaid_amount_that_is_not_the_noted_irpf_is_a_prepayment() {
        let mut document = irpf_and_surcharge();
        document.prepaid = Some(dec!(100.00));
        document.payable = Some(dec!(270.50));
        document.groups[0].tax = dec!(65.51);
        let fields = fields(&document);
        assert_eq!(fields.irpf_amount, None);
        assert_eq!(value(&fields.total), dec!(370.50));
        assert_eq!(fields.vat_breakdown[0].rate, dec!(26.2));
        let codes: Vec<&str> = fields.notes.iter().map(|(c, _)| c.as_str()).collect();
        assert_eq!(
            codes,
            [
                "surcharge_possibly_folded",
                "prepaid_amount",
                "possible_withholding"
            ]
        );
    }

    #[test]
    fn an_explicit_withholding_is_subtracted_from_the_inclusive_total() {
        let document = Document {
            groups: vec![group("L", dec!(7), dec!(1000), dec!(70))],
            tax_total: Some(dec!(70)),
            tax_exclusive: Some(dec!(1000)),
            tax_inclusive: Some(dec!(1070)),
            payable: Some(dec!(920)),
            withholding: Some((Some(dec!(15.00)), dec!(150))),
            ..Document::default()
        };
        let fields = fields(&document);
        assert_eq!(value(&fields.total), dec!(920));
        assert_eq!(value(&fields.irpf_rate), dec!(15));
        assert_eq!(fields.indirect_tax.as_deref(), Some("IGIC"));
        assert_eq!(fields.notes.len(), 1);
        assert_eq!(fields.notes[0].0, "indirect_tax");
    }

    #[test]
    fn a_missing_inclusive_total_is_computed_with_a_note() {
        let document = Document {
            tax_exclusive: Some(dec!(100)),
            tax_total: Some(dec!(21)),
            other_taxes: vec![("WHT".into(), dec!(15))],
            ..Document::default()
        };
        let fields = fields(&document);
        assert_eq!(value(&fields.total), dec!(121));
        let codes: Vec<&str> = fields.notes.iter().map(|(c, _)| c.as_str()).collect();
        assert_eq!(codes, ["total_computed", "other_tax"]);
    }
}
