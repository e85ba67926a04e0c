//! Field accuracy: an extracted invoice (the API's JSON) against the ground
//! truth, field by field, exact after normalisation (names without case,
//! accents and punctuation; NIFs without separators and `ES`; amounts and
//! rates as decimals; no IRPF equals 0).

use std::str::FromStr;

use rust_decimal::Decimal;
use serde_json::Value as Json;

use super::invoice::Invoice;

pub const FIELDS: [&str; 10] = [
    "issuer_name",
    "issuer_nif",
    "recipient_nif",
    "invoice_number",
    "invoice_date",
    "base",
    "vat_rate",
    "vat_amount",
    "irpf_amount",
    "total",
];

/// One field's verdict, with both values as normalised for the comparison.
#[derive(Clone, Debug)]
pub struct Verdict {
    pub field: &'static str,
    pub exact: bool,
    pub expected: String,
    pub got: String,
}

fn fold(c: char) -> char {
    match c {
        'á' | 'à' | 'ä' | 'â' => 'a',
        'é' | 'è' | 'ë' | 'ê' => 'e',
        'í' | 'ì' | 'ï' | 'î' => 'i',
        'ó' | 'ò' | 'ö' | 'ô' => 'o',
        'ú' | 'ù' | 'ü' | 'û' => 'u',
        'ñ' => 'n',
        'ç' => 'c',
        c => c,
    }
}

pub fn name(s: &str) -> String {
    s.to_lowercase()
        .chars()
        .map(fold)
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn nif(s: &str) -> String {
    let compact: String = s
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_uppercase();
    match compact.strip_prefix("ES") {
        Some(rest) if rest.len() == 9 => rest.to_string(),
        _ => compact,
    }
}

fn text(v: &Json) -> String {
    v.as_str().unwrap_or("").to_string()
}

fn decimal(v: &Json) -> Option<Decimal> {
    match v {
        Json::Number(n) => Decimal::from_str(&n.to_string())
            .or_else(|_| Decimal::from_scientific(&n.to_string()))
            .ok(),
        Json::String(s) => Decimal::from_str(s).ok(),
        _ => None,
    }
    .map(|d| d.normalize())
}

fn shown(d: Option<Decimal>) -> String {
    d.map_or("null".into(), |d| d.to_string())
}

pub fn score(truth: &Invoice, got: &Json) -> Vec<Verdict> {
    let strings = [
        (
            "issuer_name",
            name(&truth.issuer.name),
            name(&text(&got["issuer_name"])),
        ),
        (
            "issuer_nif",
            truth.issuer.nif.clone(),
            nif(&text(&got["issuer_nif"])),
        ),
        (
            "recipient_nif",
            truth.recipient.nif.clone(),
            nif(&text(&got["recipient_nif"])),
        ),
        (
            "invoice_number",
            truth.number.clone(),
            text(&got["invoice_number"]).replace(' ', "").to_uppercase(),
        ),
        (
            "invoice_date",
            truth.date.format("%Y-%m-%d").to_string(),
            text(&got["invoice_date"]),
        ),
    ];
    let irpf =
        decimal(&got["irpf_amount"]).or(got["irpf_amount"].is_null().then_some(Decimal::ZERO));
    let numbers = [
        ("base", truth.base, decimal(&got["base"])),
        ("vat_rate", truth.main_vat_rate(), decimal(&got["vat_rate"])),
        ("vat_amount", truth.vat_amount, decimal(&got["vat_amount"])),
        ("irpf_amount", truth.irpf_amount, irpf),
        ("total", truth.total, decimal(&got["total"])),
    ];
    let mut verdicts: Vec<Verdict> = strings
        .into_iter()
        .map(|(field, expected, got)| Verdict {
            field,
            exact: !expected.is_empty() && expected.to_uppercase() == got.to_uppercase(),
            expected,
            got,
        })
        .collect();
    verdicts.extend(numbers.into_iter().map(|(field, expected, got)| Verdict {
        field,
        exact: got == Some(expected.normalize()),
        expected: expected.normalize().to_string(),
        got: shown(got),
    }));
    verdicts
}
