//! The service's own checks of an extracted invoice, and the wire result.
//!
//! - `totals_ok`: base + VAT + equivalence surcharge − IRPF equals the total
//!   within 0.01, and each rate's VAT (and surcharge) is its base × rate
//!   within 0.01. Suplidos the reader found outside the base, and that
//!   explain the difference, keep the totals valid.
//! - `nif_valid`: the issuer's id passes the NIF/NIE/CIF check character
//!   (`crate::tax::nif`). A foreign EU VAT number (`FR…`, `PT…`, `EL…`) is
//!   valid when its form is (member-state prefix, 2–12 letters or digits):
//!   its check digits are each state's own and are not verified, which the
//!   `foreign_vat_id` warning says (check it in VIES).
//! - `recipient_nif_valid`: the same for the recipient; null without one.
//! - `date_valid`: a date, not after today in Europe/Madrid, not before 2000.
//! - `vat_rate_valid`: every rate was a Spanish VAT rate in force on the
//!   invoice date (21/10/4/0 now; 5, 2, 7.5, 18, 8, 16, 7 in their windows);
//!   IGIC against 0, 3, 7, 9.5, 15, 20 and IPSI against 0.5–10 (or 0).
//!
//! Warning codes (stable; messages are Spanish first, the code in brackets):
//! `totals_mismatch`, `vat_line_mismatch`, `surcharge_mismatch`,
//! `total_missing`, `base_missing`, `vat_missing`, `issuer_nif_missing`,
//! `issuer_nif_invalid`, `recipient_nif_invalid`, `foreign_vat_id`,
//! `nif_placeholder`, `date_missing`, `date_in_future`, `date_too_old`,
//! `vat_rate_missing`, `vat_rate_invalid`, `multiple_vat_rates`,
//! `equivalence_surcharge`, `igic`, `ipsi`, `number_missing`,
//! `foreign_currency`, `iban_invalid` (the IBAN fails its ISO 13616 mod-97
//! check or its country's length; it is still returned as printed); and the reader's own notes: `invoice_date_unlabelled`,
//! `nif_repaired`, `amount_repaired`, `vat_computed`, `base_computed`,
//! `irpf_computed`, `vat_back_calculated`, `vat_exempt`, `suplidos`,
//! `suplidos_outside_base`, `discount_applied`, `total_before_withholding`,
//! `text_truncated` (e-invoice readers add theirs).

use std::collections::BTreeMap;

use chrono::NaiveDate;
use rust_decimal::Decimal;
use rust_decimal::dec;

use super::fields::{Field, Fields, ItemLine, Source, VatLine};
use super::result::{Checks, ExtractedInvoice, LineItem, VatBreakdownLine, Warning};
use super::text::tax_id::{foreign_vat, strict_foreign_vat};
use super::text::wording::{amount, date, rate};
use crate::invoice::iban;
use crate::tax::money::{percent_of, round2};
use crate::tax::nif::{Nif, NifError, NifWarning, normalize};
use crate::tax::vat::rate_on;

const TOLERANCE: Decimal = dec!(0.01);
const IGIC_RATES: &[Decimal] = &[dec!(0), dec!(3), dec!(7), dec!(9.5), dec!(15), dec!(20)];

fn earliest_valid() -> NaiveDate {
    NaiveDate::from_ymd_opt(2000, 1, 1).unwrap_or(NaiveDate::MIN)
}

/// The figures the checks work on.
struct Figures {
    base: Option<Decimal>,
    vat: Option<Decimal>,
    surcharge: Decimal,
    irpf: Decimal,
    total: Option<Decimal>,
}

fn value<T: Clone>(f: &Option<Field<T>>) -> Option<T> {
    f.as_ref().map(|f| f.value.clone())
}

fn line_checks(lines: &[VatLine], warnings: &mut Vec<Warning>) -> bool {
    let mut ok = true;
    for l in lines {
        let expected = round2(percent_of(l.base, l.rate));
        if (expected - l.vat_amount).abs() > TOLERANCE {
            ok = false;
            warnings.push(Warning::new(
                "vat_line_mismatch",
                format!(
                    "El IVA al {} % no cuadra: {} % de {} = {}, pero la cuota es {} (vat_line_mismatch)",
                    rate(l.rate),
                    rate(l.rate),
                    amount(l.base),
                    amount(expected),
                    amount(l.vat_amount)
                ),
            ));
        }
        if let (Some(sr), Some(sa)) = (l.surcharge_rate, l.surcharge_amount) {
            let expected = round2(percent_of(l.base, sr));
            if (expected - sa).abs() > TOLERANCE {
                ok = false;
                warnings.push(Warning::new(
                    "surcharge_mismatch",
                    format!(
                        "El recargo de equivalencia al {} % no cuadra: {} % de {} = {}, pero la cuota es {} (surcharge_mismatch)",
                        rate(sr),
                        rate(sr),
                        amount(l.base),
                        amount(expected),
                        amount(sa)
                    ),
                ));
            }
        }
    }
    ok
}

fn totals_check(f: &Figures, lines: &[VatLine], suplidos: bool, w: &mut Vec<Warning>) -> bool {
    let lines_ok = line_checks(lines, w);
    let Some(total) = f.total else {
        w.push(Warning::new(
            "total_missing",
            "No se encontró el total de la factura (total_missing)",
        ));
        return false;
    };
    let Some(base) = f.base else {
        w.push(Warning::new(
            "base_missing",
            "No se encontró la base imponible (base_missing)",
        ));
        return false;
    };
    let vat = f.vat.unwrap_or(Decimal::ZERO);
    let sum = base + vat + f.surcharge - f.irpf;
    let sum_ok = (sum - total).abs() <= TOLERANCE || suplidos;
    if !sum_ok {
        let surcharge = if f.surcharge.is_zero() {
            String::new()
        } else {
            format!(" + RE {}", amount(f.surcharge))
        };
        w.push(Warning::new(
            "totals_mismatch",
            format!(
                "La suma no cuadra: base {} + IVA {}{surcharge} − IRPF {} = {}, pero el total es {} (totals_mismatch)",
                amount(base),
                amount(vat),
                amount(f.irpf),
                amount(sum),
                amount(total)
            ),
        ));
    }
    lines_ok && sum_ok
}

fn nif_error(e: NifError) -> &'static str {
    match e {
        NifError::BadFormat => "caracteres no válidos",
        NifError::BadLength => "un NIF tiene 9 caracteres",
        NifError::BadCheckDigit => "el carácter de control no coincide",
    }
}

/// Whether a party's id is valid, with its warnings.
fn id_check(id: &str, party: &str, code: &str, w: &mut Vec<Warning>) -> bool {
    match Nif::parse(id) {
        Ok(nif) => {
            if nif.warnings().contains(&NifWarning::PlaceholderNumber) {
                w.push(Warning::new(
                    "nif_placeholder",
                    format!(
                        "El NIF {party} {nif} es un número de relleno, no un NIF real (nif_placeholder)"
                    ),
                ));
            }
            true
        }
        Err(e) => match foreign_vat(&normalize_foreign(id))
            .or_else(|| strict_foreign_vat(&normalize_foreign(id)))
        {
            Some(vat) => {
                w.push(Warning::new(
                    "foreign_vat_id",
                    format!(
                        "El NIF {party} {vat} es un NIF-IVA de otro estado de la UE: formato correcto, dígitos de control no comprobados; verifíquelo en VIES (foreign_vat_id)"
                    ),
                ));
                true
            }
            None => {
                w.push(Warning::new(
                    code,
                    format!(
                        "El NIF {party} {} no es válido: {} ({code})",
                        normalize(id),
                        nif_error(e)
                    ),
                ));
                false
            }
        },
    }
}

fn normalize_foreign(id: &str) -> String {
    id.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

fn date_check(invoice_date: Option<NaiveDate>, today: NaiveDate, w: &mut Vec<Warning>) -> bool {
    let Some(d) = invoice_date else {
        w.push(Warning::new(
            "date_missing",
            "No se encontró la fecha de la factura (date_missing)",
        ));
        return false;
    };
    if d > today {
        w.push(Warning::new(
            "date_in_future",
            format!(
                "La fecha de la factura {} es posterior a hoy, {} (date_in_future)",
                date(d),
                date(today)
            ),
        ));
        return false;
    }
    if d < earliest_valid() {
        w.push(Warning::new(
            "date_too_old",
            format!(
                "La fecha de la factura {} es anterior al año 2000 (date_too_old)",
                date(d)
            ),
        ));
        return false;
    }
    true
}

/// Standard and reduced VAT rates of the states whose suppliers invoice
/// Spanish businesses most (2026); another state's rate is only checked to
/// be one of the EU's.
const FOREIGN_RATES: &[(&str, &[Decimal])] = &[
    ("DE", &[dec!(19), dec!(7), dec!(0)]),
    ("FR", &[dec!(20), dec!(10), dec!(5.5), dec!(2.1), dec!(0)]),
    ("IT", &[dec!(22), dec!(10), dec!(5), dec!(4), dec!(0)]),
    ("PT", &[dec!(23), dec!(13), dec!(6), dec!(0)]),
    ("NL", &[dec!(21), dec!(9), dec!(0)]),
    ("BE", &[dec!(21), dec!(12), dec!(6), dec!(0)]),
    ("IE", &[dec!(23), dec!(13.5), dec!(9), dec!(4.8), dec!(0)]),
    ("AT", &[dec!(20), dec!(13), dec!(10), dec!(0)]),
    ("GB", &[dec!(20), dec!(5), dec!(0)]),
    ("XI", &[dec!(20), dec!(5), dec!(0)]),
    ("LU", &[dec!(17), dec!(14), dec!(8), dec!(3), dec!(0)]),
];
/// Every standard and reduced rate in the EU, for the other states.
pub(crate) const EU_RATES: &[Decimal] = &[
    dec!(27),
    dec!(25.5),
    dec!(25),
    dec!(24),
    dec!(23),
    dec!(22),
    dec!(21),
    dec!(20),
    dec!(19),
    dec!(18),
    dec!(17),
    dec!(15),
    dec!(14),
    dec!(13.5),
    dec!(13),
    dec!(12),
    dec!(10),
    dec!(9.5),
    dec!(9),
    dec!(8.5),
    dec!(8),
    dec!(7),
    dec!(6),
    dec!(5.5),
    dec!(5),
    dec!(4.8),
    dec!(4),
    dec!(3),
    dec!(2.1),
    dec!(0),
];

fn foreign_rates(country: &str) -> &'static [Decimal] {
    FOREIGN_RATES
        .iter()
        .find(|(c, _)| *c == country)
        .map_or(EU_RATES, |(_, rates)| rates)
}

fn rate_valid(
    r: Decimal,
    on: NaiveDate,
    indirect_tax: Option<&str>,
    country: Option<&str>,
) -> Result<(), String> {
    // Its own state's rates, or Spain's (a seller under the OSS charges the
    // buyer's state's VAT).
    if let Some(country) = country {
        let rates = foreign_rates(country);
        return if rates.contains(&r.normalize()) || rate_on(r, on).is_ok() {
            Ok(())
        } else {
            let list: Vec<String> = rates.iter().map(|r| rate(*r)).collect();
            Err(format!("tipos de {country}: {}", list.join(", ")))
        };
    }
    match indirect_tax {
        Some("IGIC") => {
            if IGIC_RATES.contains(&r.normalize()) {
                Ok(())
            } else {
                Err("tipos de IGIC: 0, 3, 7, 9,5, 15 y 20".to_string())
            }
        }
        Some("IPSI") => {
            if r.is_zero() || (dec!(0.5)..=dec!(10)).contains(&r) {
                Ok(())
            } else {
                Err("el IPSI va del 0,5 al 10 %".to_string())
            }
        }
        _ => rate_on(r, on).map(|_| ()).map_err(|in_force| {
            let list: Vec<String> = in_force.into_iter().map(rate).collect();
            format!("tipos vigentes: {}", list.join(", "))
        }),
    }
}

fn rate_check(
    rates: &[Decimal],
    on: NaiveDate,
    (indirect_tax, country): (Option<&str>, Option<&str>),
    w: &mut Vec<Warning>,
) -> bool {
    if rates.is_empty() {
        w.push(Warning::new(
            "vat_rate_missing",
            "No se pudo determinar el tipo de IVA (vat_rate_missing)",
        ));
        return false;
    }
    let mut ok = true;
    for &r in rates {
        if let Err(why) = rate_valid(r, on, indirect_tax, country) {
            ok = false;
            w.push(Warning::new(
                "vat_rate_invalid",
                format!(
                    "El tipo de {} del {} % no estaba vigente el {} ({why}) (vat_rate_invalid)",
                    indirect_tax.unwrap_or("IVA"),
                    rate(r),
                    date(on)
                ),
            ));
        }
    }
    ok
}

/// With several rates, the rate of the largest base (and a warning).
fn main_rate(lines: &[VatLine], w: &mut Vec<Warning>) -> Option<Decimal> {
    let main = lines.iter().max_by_key(|l| l.base.abs())?;
    if lines.len() > 1 {
        let list: Vec<String> = lines
            .iter()
            .map(|l| format!("{} %", rate(l.rate)))
            .collect();
        w.push(Warning::new(
            "multiple_vat_rates",
            format!(
                "La factura tiene varios tipos de IVA ({}); vat_rate es el de la base mayor, {} % (multiple_vat_rates)",
                list.join(", "),
                rate(main.rate)
            ),
        ));
    }
    Some(main.rate)
}

/// A rate from base and VAT when no breakdown was read: the rate in force
/// that gives the VAT to the cent.
fn implied_rate(base: Decimal, vat: Decimal, on: NaiveDate) -> Option<Decimal> {
    if base.is_zero() {
        return None;
    }
    crate::tax::vat::rates_on(on)
        .into_iter()
        .find(|&r| (round2(percent_of(base, r)) - vat).abs() <= TOLERANCE)
}

/// The confidence of each field read; the VAT rate shares its VAT amount's.
fn confidence(fields: &Fields, has_vat_rate: bool) -> BTreeMap<String, f64> {
    fn of<T>(f: &Option<Field<T>>) -> Option<f32> {
        f.as_ref().map(|f| f.confidence)
    }
    let vat_rate = of(&fields.vat_amount)
        .or(fields.vat_breakdown.first().map(|_| 1.0))
        .filter(|_| has_vat_rate);
    let read = [
        ("issuer_name", of(&fields.issuer_name)),
        ("issuer_nif", of(&fields.issuer_nif)),
        ("recipient_name", of(&fields.recipient_name)),
        ("recipient_nif", of(&fields.recipient_nif)),
        ("invoice_number", of(&fields.invoice_number)),
        ("invoice_date", of(&fields.invoice_date)),
        ("base", of(&fields.base)),
        ("vat_amount", of(&fields.vat_amount)),
        ("vat_rate", vat_rate),
        ("irpf_rate", of(&fields.irpf_rate)),
        ("irpf_amount", of(&fields.irpf_amount)),
        ("total", of(&fields.total)),
        ("due_date", of(&fields.due_date)),
        ("iban", of(&fields.iban)),
    ];
    let map: BTreeMap<String, f64> = read
        .into_iter()
        .filter_map(|(name, c)| c.map(|c| (name.to_string(), unit_rounded(c))))
        .collect();
    map
}

fn unit_rounded(c: f32) -> f64 {
    (f64::from(c.clamp(0.0, 1.0)) * 100.0).round() / 100.0
}

/// The IBAN's ISO 13616 check; a failure is a warning, the IBAN stays.
fn iban_check(printed: &str, w: &mut Vec<Warning>) {
    if let Err(why) = iban::parse(printed) {
        w.push(Warning::new(
            "iban_invalid",
            format!(
                "El IBAN {printed} no es válido ({why}); se devuelve tal como está impreso (iban_invalid)"
            ),
        ));
    }
}

/// What deserves a word besides the checks: the surcharge, IGIC/IPSI, a
/// missing number, another currency and the reader's own notes.
fn oddities(fields: &Fields, surcharge: Decimal, currency: &str, w: &mut Vec<Warning>) {
    let indirect_tax = fields.indirect_tax.as_deref();
    if !surcharge.is_zero() {
        w.push(Warning::new(
            "equivalence_surcharge",
            format!(
                "La factura incluye recargo de equivalencia por {} (equivalence_surcharge)",
                amount(surcharge)
            ),
        ));
    }
    match indirect_tax {
        Some("IGIC") => w.push(Warning::new(
            "igic",
            "Factura con IGIC (Canarias) en lugar de IVA (igic)",
        )),
        Some("IPSI") => w.push(Warning::new(
            "ipsi",
            "Factura con IPSI (Ceuta y Melilla) en lugar de IVA (ipsi)",
        )),
        _ => {}
    }
    if fields.invoice_number.is_none() {
        w.push(Warning::new(
            "number_missing",
            "No se encontró el número de factura (number_missing)",
        ));
    }
    if currency != "EUR" {
        w.push(Warning::new(
            "foreign_currency",
            format!("Los importes están en {currency}, no en euros (foreign_currency)"),
        ));
    }
    for (code, message) in &fields.notes {
        if !w.iter().any(|x| &x.code == code && &x.message == message) {
            w.push(Warning::new(code, message.clone()));
        }
    }
}

/// Checks what a reader found and builds the result. `today` is the
/// Europe/Madrid date.
pub fn check(
    fields: Fields,
    source: Source,
    file_name: &str,
    today: NaiveDate,
) -> ExtractedInvoice {
    let mut w: Vec<Warning> = Vec::new();
    let lines = &fields.vat_breakdown;
    let invoice_date = value(&fields.invoice_date);
    let on = invoice_date.filter(|d| *d <= today).unwrap_or(today);
    let base = value(&fields.base)
        .or_else(|| (!lines.is_empty()).then(|| lines.iter().map(|l| l.base).sum()));
    let vat = value(&fields.vat_amount)
        .or_else(|| (!lines.is_empty()).then(|| lines.iter().map(|l| l.vat_amount).sum()));
    let surcharge: Decimal = lines.iter().filter_map(|l| l.surcharge_amount).sum();
    let figures = Figures {
        base,
        vat,
        surcharge,
        // Signed like the base: negative on a credit invoice, so that
        // base + VAT + surcharge − IRPF = total holds for every invoice.
        irpf: value(&fields.irpf_amount).map_or(Decimal::ZERO, |a| {
            if base.is_some_and(|b| b.is_sign_negative()) {
                -a.abs()
            } else {
                a.abs()
            }
        }),
        total: value(&fields.total),
    };
    let suplidos = fields
        .notes
        .iter()
        .any(|(c, _)| c == "suplidos_outside_base");
    let totals_ok = totals_check(&figures, lines, suplidos, &mut w);
    if vat.is_none() {
        w.push(Warning::new(
            "vat_missing",
            "No se encontró la cuota de IVA (vat_missing)",
        ));
    }
    let nif_valid = match fields.issuer_nif.as_ref() {
        Some(id) => id_check(&id.value, "del emisor", "issuer_nif_invalid", &mut w),
        None => {
            w.push(Warning::new(
                "issuer_nif_missing",
                "No se encontró el NIF del emisor (issuer_nif_missing)",
            ));
            false
        }
    };
    let recipient_nif_valid = fields.recipient_nif.as_ref().map(|id| {
        id_check(
            &id.value,
            "del destinatario",
            "recipient_nif_invalid",
            &mut w,
        )
    });
    let date_valid = date_check(invoice_date, today, &mut w);
    let indirect_tax = fields.indirect_tax.as_deref();
    let vat_rate = main_rate(lines, &mut w).or_else(|| match (base, vat) {
        (Some(b), Some(v)) => implied_rate(b, v, on),
        _ => None,
    });
    let rates: Vec<Decimal> = if lines.is_empty() {
        vat_rate.into_iter().collect()
    } else {
        lines.iter().map(|l| l.rate).collect()
    };
    // A supplier of another state charges its own state's VAT.
    let country = fields
        .issuer_nif
        .as_ref()
        .filter(|id| Nif::parse(&id.value).is_err())
        .and_then(|id| {
            let compact = normalize_foreign(&id.value);
            foreign_vat(&compact).or_else(|| strict_foreign_vat(&compact))
        })
        .map(|vat| vat[..2].to_string());
    let vat_rate_valid = rate_check(&rates, on, (indirect_tax, country.as_deref()), &mut w);
    let currency = fields.currency.clone().unwrap_or_else(|| "EUR".to_string());
    oddities(&fields, surcharge, &currency, &mut w);
    if let Some(printed) = &fields.iban {
        iban_check(&printed.value, &mut w);
    }
    ExtractedInvoice {
        file_name: file_name.to_string(),
        issuer_name: value(&fields.issuer_name),
        issuer_nif: value(&fields.issuer_nif).map(|n| tidy_id(&n)),
        recipient_name: value(&fields.recipient_name),
        recipient_nif: value(&fields.recipient_nif).map(|n| tidy_id(&n)),
        invoice_number: value(&fields.invoice_number),
        invoice_date,
        base,
        vat_rate,
        vat_amount: vat,
        vat_breakdown: lines.iter().map(wire_line).collect(),
        irpf_rate: value(&fields.irpf_rate),
        irpf_amount: figures.irpf,
        total: figures.total,
        currency,
        source: source.as_str().to_string(),
        lines: fields.lines.iter().map(wire_item).collect(),
        due_date: value(&fields.due_date),
        iban: value(&fields.iban),
        confidence: confidence(&fields, vat_rate.is_some()),
        checks: Checks {
            totals_ok,
            nif_valid,
            recipient_nif_valid,
            date_valid,
            vat_rate_valid,
        },
        warnings: w,
        qr: None,
    }
}

fn wire_line(l: &VatLine) -> VatBreakdownLine {
    VatBreakdownLine {
        rate: l.rate,
        base: l.base,
        vat_amount: l.vat_amount,
        surcharge_rate: l.surcharge_rate,
        surcharge_amount: l.surcharge_amount,
    }
}

fn wire_item(l: &ItemLine) -> LineItem {
    LineItem {
        description: l.description.clone(),
        quantity: l.quantity,
        unit_price: l.unit_price,
        amount: l.amount,
        vat_rate: l.vat_rate,
        confidence: unit_rounded(l.confidence),
    }
}

/// A Spanish NIF in its normal form; anything else as given.
fn tidy_id(id: &str) -> String {
    match Nif::parse(id) {
        Ok(nif) => nif.as_str().to_string(),
        Err(_) => normalize_foreign(id),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 23).unwrap()
    }

    fn f<T>(value: T) -> Option<Field<T>> {
        Some(Field::new(value, 0.9))
    }

    fn line(rate: Decimal, base: Decimal, vat: Decimal) -> VatLine {
        VatLine {
            rate,
            base,
            vat_amount: vat,
            surcharge_rate: None,
            surcharge_amount: None,
        }
    }

    /// A consistent invoice: 1.000 + 21 % − 15 % = 1.060.
    fn good() -> Fields {
        Fields {
            issuer_name: f("Juan Pérez".to_string()),
            issuer_nif: f("12345678Z".to_string()),
            recipient_nif: f("B12345674".to_string()),
            invoice_number: f("2026/7".to_string()),
            invoice_date: f(NaiveDate::from_ymd_opt(2026, 8, 5).unwrap()),
            base: f(dec!(1000)),
            vat_amount: f(dec!(210)),
            vat_breakdown: vec![line(dec!(21), dec!(1000), dec!(210))],
            irpf_rate: f(dec!(15)),
            irpf_amount: f(dec!(150)),
            total: f(dec!(1060)),
            ..Fields::default()
        }
    }

    fn run(fields: Fields) -> ExtractedInvoice {
        check(fields, Source::Text, "f.txt", today())
    }

    fn codes(invoice: &ExtractedInvoice) -> Vec<&str> {
        invoice.warnings.iter().map(|w| w.code.as_str()).collect()
    }

    #[test]
    fn lines_due_date_and_iban_reach_the_result_and_a_bad_iban_is_kept_with_a_warning() {
        let item = ItemLine {
            description: "Mano de obra".into(),
            quantity: Some(dec!(8)),
            unit_price: Some(dec!(125)),
            amount: Some(dec!(1000)),
            vat_rate: Some(dec!(21)),
            confidence: 0.876,
        };
        let inv = run(Fields {
            lines: vec![item],
            due_date: f(NaiveDate::from_ymd_opt(2026, 9, 4).unwrap()),
            iban: f("ES9121000418450200051332".to_string()),
            ..good()
        });
        assert_eq!(inv.lines[0].amount, Some(dec!(1000)));
        assert_eq!(inv.lines[0].confidence, 0.88);
        assert_eq!(inv.due_date, NaiveDate::from_ymd_opt(2026, 9, 4));
        assert_eq!(inv.confidence["due_date"], 0.9);
        assert_eq!(inv.confidence["iban"], 0.9);
        assert!(inv.warnings.is_empty(), "{:?}", inv.warnings);
        let inv = run(Fields {
            iban: f("ES9121000418450200051333".to_string()),
            ..good()
        });
        assert_eq!(inv.iban.as_deref(), Some("ES9121000418450200051333"));
        assert_eq!(codes(&inv), ["iban_invalid"]);
        assert!(inv.warnings[0].message.contains("ES9121000418450200051333"));
    }

    #[test]
    fn a_consistent_invoice_passes_every_check() {
        let inv = run(good());
        assert_eq!(
            inv.checks,
            Checks {
                totals_ok: true,
                nif_valid: true,
                recipient_nif_valid: Some(true),
                date_valid: true,
                vat_rate_valid: true,
            }
        );
        assert!(inv.warnings.is_empty(), "{:?}", inv.warnings);
        assert_eq!(inv.vat_rate, Some(dec!(21)));
        assert_eq!(inv.irpf_amount, dec!(150));
        assert_eq!(inv.currency, "EUR");
        assert_eq!(inv.source, "text");
        assert_eq!(inv.confidence["total"], 0.9);
        assert_eq!(inv.confidence["vat_rate"], 0.9);
    }

    #[test]
    fn totals_mismatch_names_every_figure() {
        let inv = run(Fields {
            irpf_rate: None,
            irpf_amount: None,
            total: f(dec!(120)),
            base: f(dec!(100)),
            vat_amount: f(dec!(21)),
            vat_breakdown: vec![line(dec!(21), dec!(100), dec!(21))],
            ..good()
        });
        assert!(!inv.checks.totals_ok);
        assert_eq!(codes(&inv), ["totals_mismatch"]);
        assert_eq!(
            inv.warnings[0].message,
            "La suma no cuadra: base 100,00 + IVA 21,00 − IRPF 0,00 = 121,00, pero el total es 120,00 (totals_mismatch)"
        );
    }

    #[test]
    fn line_and_surcharge_mismatches() {
        let mut fields = good();
        fields.vat_breakdown = vec![VatLine {
            surcharge_rate: Some(dec!(5.2)),
            surcharge_amount: Some(dec!(50)),
            ..line(dec!(21), dec!(1000), dec!(200))
        }];
        fields.vat_amount = f(dec!(200));
        fields.total = f(dec!(1100));
        let inv = run(fields);
        assert!(!inv.checks.totals_ok);
        assert_eq!(
            codes(&inv),
            [
                "vat_line_mismatch",
                "surcharge_mismatch",
                "equivalence_surcharge"
            ]
        );
    }

    #[test]
    fn several_rates_take_the_largest_base_and_surcharge_is_added() {
        let mut fields = good();
        fields.vat_breakdown = vec![
            VatLine {
                surcharge_rate: Some(dec!(1.4)),
                surcharge_amount: Some(dec!(7)),
                ..line(dec!(10), dec!(500), dec!(50))
            },
            VatLine {
                surcharge_rate: Some(dec!(5.2)),
                surcharge_amount: Some(dec!(52)),
                ..line(dec!(21), dec!(1000), dec!(210))
            },
        ];
        fields.base = f(dec!(1500));
        fields.vat_amount = f(dec!(260));
        fields.irpf_amount = None;
        fields.irpf_rate = None;
        fields.total = f(dec!(1819));
        let inv = run(fields);
        assert!(inv.checks.totals_ok);
        assert_eq!(inv.vat_rate, Some(dec!(21)));
        assert_eq!(codes(&inv), ["multiple_vat_rates", "equivalence_surcharge"]);
    }

    #[test]
    fn missing_fields_are_warned() {
        let inv = run(Fields::default());
        assert_eq!(
            inv.checks,
            Checks {
                totals_ok: false,
                nif_valid: false,
                recipient_nif_valid: None,
                date_valid: false,
                vat_rate_valid: false,
            }
        );
        assert_eq!(
            codes(&inv),
            [
                "total_missing",
                "vat_missing",
                "issuer_nif_missing",
                "date_missing",
                "vat_rate_missing",
                "number_missing"
            ]
        );
        let inv = run(Fields {
            base: None,
            vat_breakdown: Vec::new(),
            ..good()
        });
        assert_eq!(codes(&inv), ["base_missing", "vat_rate_missing"]);
    }

    #[test]
    fn tax_ids_invalid_placeholder_and_foreign() {
        let inv = run(Fields {
            issuer_nif: f("12345678A".to_string()),
            recipient_nif: f("00000000T".to_string()),
            ..good()
        });
        assert!(!inv.checks.nif_valid);
        assert_eq!(inv.checks.recipient_nif_valid, Some(true));
        assert_eq!(codes(&inv), ["issuer_nif_invalid", "nif_placeholder"]);
        assert!(
            inv.warnings[0]
                .message
                .contains("el carácter de control no coincide")
        );
        let inv = run(Fields {
            issuer_nif: f("FR 40303265045".to_string()),
            recipient_nif: f("B12345675".to_string()),
            ..good()
        });
        assert!(inv.checks.nif_valid);
        assert_eq!(inv.issuer_nif.as_deref(), Some("FR40303265045"));
        assert_eq!(inv.checks.recipient_nif_valid, Some(false));
        assert_eq!(codes(&inv), ["foreign_vat_id", "recipient_nif_invalid"]);
    }

    #[test]
    fn dates_in_the_future_or_too_old() {
        let on = |y, m, d| f(NaiveDate::from_ymd_opt(y, m, d).unwrap());
        let inv = run(Fields {
            invoice_date: on(2026, 11, 24),
            ..good()
        });
        assert!(!inv.checks.date_valid);
        assert_eq!(codes(&inv), ["date_in_future"]);
        assert!(
            run(Fields {
                invoice_date: on(2026, 11, 23),
                ..good()
            })
            .checks
            .date_valid
        );
        let inv = run(Fields {
            invoice_date: on(1999, 12, 31),
            ..good()
        });
        assert_eq!(codes(&inv), ["date_too_old", "vat_rate_invalid"]);
    }

    #[test]
    fn a_foreign_supplier_charges_its_own_states_rates() {
        let from = |issuer: &str, r: Decimal| Fields {
            issuer_nif: f(issuer.to_string()),
            vat_breakdown: vec![line(r, dec!(1000), round2(percent_of(dec!(1000), r)))],
            vat_amount: f(round2(percent_of(dec!(1000), r))),
            total: f(dec!(1000) + round2(percent_of(dec!(1000), r)) - dec!(150)),
            ..good()
        };
        assert!(run(from("DE812871812", dec!(19))).checks.vat_rate_valid);
        assert!(run(from("FR40303265045", dec!(5.5))).checks.vat_rate_valid);
        assert!(run(from("GB232153895", dec!(20))).checks.vat_rate_valid);
        assert!(
            run(from("DE812871812", dec!(21))).checks.vat_rate_valid,
            "OSS"
        );
        let inv = run(from("DE812871812", dec!(16)));
        assert!(!inv.checks.vat_rate_valid);
        assert!(codes(&inv).contains(&"vat_rate_invalid"));
        assert!(!run(from("B12345674", dec!(19))).checks.vat_rate_valid);
    }

    #[test]
    fn rates_are_checked_on_the_invoice_date() {
        let with_rate = |r: Decimal, y: i32| Fields {
            invoice_date: f(NaiveDate::from_ymd_opt(y, 3, 1).unwrap()),
            vat_breakdown: vec![line(r, dec!(1000), round2(percent_of(dec!(1000), r)))],
            vat_amount: f(round2(percent_of(dec!(1000), r))),
            total: f(dec!(1000) + round2(percent_of(dec!(1000), r)) - dec!(150)),
            ..good()
        };
        assert!(run(with_rate(dec!(18), 2011)).checks.vat_rate_valid);
        assert!(run(with_rate(dec!(5), 2023)).checks.vat_rate_valid);
        let inv = run(with_rate(dec!(18), 2026));
        assert!(!inv.checks.vat_rate_valid);
        assert_eq!(codes(&inv), ["vat_rate_invalid"]);
        assert_eq!(
            inv.warnings[0].message,
            "El tipo de IVA del 18 % no estaba vigente el 01/03/2026 (tipos vigentes: 21, 10, 4, 0) (vat_rate_invalid)"
        );
        let igic = run(Fields {
            indirect_tax: Some("IGIC".into()),
            ..with_rate(dec!(7), 2026)
        });
        assert!(igic.checks.vat_rate_valid);
        assert_eq!(codes(&igic), ["igic"]);
        let ipsi = run(Fields {
            indirect_tax: Some("IPSI".into()),
            ..with_rate(dec!(21), 2026)
        });
        assert!(!ipsi.checks.vat_rate_valid);
        assert_eq!(codes(&ipsi), ["vat_rate_invalid", "ipsi"]);
    }

    #[test]
    fn the_rate_is_implied_without_a_breakdown() {
        let inv = run(Fields {
            vat_breakdown: Vec::new(),
            ..good()
        });
        assert_eq!(inv.vat_rate, Some(dec!(21)));
        assert!(inv.checks.vat_rate_valid);
    }

    #[test]
    fn notes_currency_and_suplidos_become_warnings() {
        let inv = run(Fields {
            invoice_number: None,
            currency: Some("USD".into()),
            total: f(dec!(1090)),
            notes: vec![
                ("suplidos_outside_base".into(), "Suplidos 30,00".into()),
                ("amount_repaired".into(), "base 100000 → 1.000,00".into()),
            ],
            ..good()
        });
        assert!(inv.checks.totals_ok);
        assert_eq!(
            codes(&inv),
            [
                "number_missing",
                "foreign_currency",
                "suplidos_outside_base",
                "amount_repaired"
            ]
        );
    }

    #[test]
    fn credit_notes_withhold_with_the_base_sign() {
        let inv = run(Fields {
            base: f(dec!(-1000)),
            vat_amount: f(dec!(-210)),
            vat_breakdown: vec![line(dec!(21), dec!(-1000), dec!(-210))],
            total: f(dec!(-1060)),
            ..good()
        });
        assert!(inv.checks.totals_ok, "{:?}", inv.warnings);
    }
}
