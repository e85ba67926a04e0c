//! Spanish presentation of figures, dates and codes: `1.234,56 €`,
//! `21/11/2026`, `Transferencia bancaria`.

use chrono::NaiveDate;
use rust_decimal::Decimal;

use crate::invoice::kind::Kind;
use crate::tax::money::round2;

/// A money amount with exactly two decimals: `-1.234,56 €`.
pub fn amount(x: Decimal) -> String {
    format!("{} €", figure(x))
}

/// The figure of an amount, without the currency: `-1.234,56`.
pub fn figure(x: Decimal) -> String {
    spanish(round2(x), 2)
}

/// A unit price: two decimals at least, more when the price has them.
pub fn price(x: Decimal) -> String {
    format!("{} €", spanish(x, 2))
}

/// A quantity or rate with only the decimals it has: `1,5`, `1.000`.
pub fn number(x: Decimal) -> String {
    spanish(x, 0)
}

pub fn percent(x: Decimal) -> String {
    format!("{} %", number(x))
}

pub fn date(d: NaiveDate) -> String {
    d.format("%d/%m/%Y").to_string()
}

/// `x` with `.` between thousands, `,` before the decimals and at least
/// `min_decimals` decimals.
fn spanish(x: Decimal, min_decimals: u32) -> String {
    let x = x.normalize();
    let digits = format!("{:.*}", x.scale().max(min_decimals) as usize, x.abs());
    let (integer, fraction) = digits.split_once('.').unwrap_or((&digits, ""));
    let sign = if x.is_sign_negative() && !x.is_zero() {
        "-"
    } else {
        ""
    };
    let separator = if fraction.is_empty() { "" } else { "," };
    format!("{sign}{}{separator}{fraction}", thousands(integer))
}

fn thousands(integer: &str) -> String {
    let mut out = String::new();
    for (i, c) in integer.chars().enumerate() {
        if i > 0 && (integer.len() - i).is_multiple_of(3) {
            out.push('.');
        }
        out.push(c);
    }
    out
}

/// The IBAN in groups of four, as printed on paper.
pub fn iban(raw: &str) -> String {
    let compact: Vec<char> = raw.chars().filter(|c| !c.is_whitespace()).collect();
    compact
        .chunks(4)
        .map(|group| group.iter().collect::<String>())
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn payment_method(code: &str) -> &str {
    match code {
        "transfer" => "Transferencia bancaria",
        "direct_debit" => "Domiciliación bancaria",
        "card" => "Tarjeta",
        "cash" => "Efectivo",
        "other" => "Otro medio de pago",
        other => other,
    }
}

/// The document title for the invoice type (F1–F3, R1–R5) and whether it
/// is a simplified invoice.
pub fn title(kind: Kind, simplified: bool) -> &'static str {
    match kind {
        Kind::R5 => "FACTURA RECTIFICATIVA SIMPLIFICADA",
        k if k.is_rectifying() => "FACTURA RECTIFICATIVA",
        _ if simplified => "FACTURA SIMPLIFICADA",
        _ => "FACTURA",
    }
}

/// The legal ground of a rectification (Ley 37/1992, art. 80; RD 1619/2012, art. 15).
pub fn rectification_reason(code: Kind) -> &'static str {
    match code {
        Kind::R1 => "error fundado en derecho o causas del art. 80 Uno, Dos y Seis LIVA",
        Kind::R2 => "concurso de acreedores (art. 80 Tres LIVA)",
        Kind::R3 => "créditos incobrables (art. 80 Cuatro LIVA)",
        Kind::R4 => "otras causas",
        Kind::R5 => "rectificación de factura simplificada",
        Kind::F1 | Kind::F2 | Kind::F3 => "",
    }
}

pub fn rectification_method(code: &str) -> &str {
    match code {
        "substitution" => "por sustitución",
        "differences" => "por diferencias",
        other => other,
    }
}

/// Spain goes without saying; other countries are shown by their ISO code.
pub fn country(code: &str) -> Option<&str> {
    (code != "ES").then_some(code)
}

#[cfg(test)]
mod tests {
    use rust_decimal::dec;

    use super::*;

    #[test]
    fn figures_are_spanish() {
        assert_eq!(amount(dec!(1234.5)), "1.234,50 €");
        assert_eq!(amount(dec!(-61.56)), "-61,56 €");
        assert_eq!(amount(dec!(0)), "0,00 €");
        assert_eq!(amount(dec!(1234567.891)), "1.234.567,89 €");
        assert_eq!(price(dec!(3.255)), "3,255 €");
        assert_eq!(price(dec!(40)), "40,00 €");
        assert_eq!(number(dec!(1.50)), "1,5");
        assert_eq!(number(dec!(-2)), "-2");
        assert_eq!(number(dec!(1000)), "1.000");
        assert_eq!(percent(dec!(5.20)), "5,2 %");
    }

    #[test]
    fn dates_and_ibans_read_as_on_paper() {
        assert_eq!(
            date(NaiveDate::from_ymd_opt(2026, 1, 2).unwrap()),
            "02/01/2026"
        );
        assert_eq!(
            iban("ES9121000418450200051332"),
            "ES91 2100 0418 4502 0005 1332"
        );
    }
}
