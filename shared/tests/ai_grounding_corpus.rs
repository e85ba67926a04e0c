//! Grounding on real invoices (`../shared/corpus/real-invoices`, read by
//! path, never copied): an oracle model that proposes every true value, as
//! `truth.json` gives it, has nearly all of them kept; a liar model that
//! proposes near misses (an amount off by 1.11, a date three days later, a
//! tax id with another check character, a number or name with a character
//! more) has nearly none kept. Text-layer PDFs only, whose text is what a
//! model would be sent; left out when the layer prints none of the true
//! amounts (a broken font map: such a text is not the invoice).

use crate::real_corpus;

use chrono::NaiveDate;
use serde_json::{Map, Value};
use shared::extraction::grounding::{Grounded, ground};
use shared::extraction::pdf::read_pdf;
use shared::ports::ai::Proposal;

/// The truth's value of `field` as a model would copy it.
fn text(fields: &Map<String, Value>, field: &str) -> Option<String> {
    match fields.get(field)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) if field.ends_with("rate") => Some(n.to_string()),
        Value::Number(n) => n.as_f64().map(|x| format!("{x:.2}")),
        _ => None,
    }
}

const GROUNDED: [&str; 10] = [
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

fn proposal(values: &[(&str, Option<String>)]) -> Proposal {
    let get = |name: &str| {
        values
            .iter()
            .find(|(n, _)| *n == name)
            .and_then(|(_, v)| v.clone())
    };
    Proposal {
        issuer_name: get("issuer_name"),
        issuer_nif: get("issuer_nif"),
        recipient_nif: get("recipient_nif"),
        invoice_number: get("invoice_number"),
        invoice_date: get("invoice_date"),
        base: get("base"),
        vat_rate: get("vat_rate"),
        vat_amount: get("vat_amount"),
        irpf_amount: get("irpf_amount"),
        total: get("total"),
        ..Proposal::default()
    }
}

fn kept(g: &Grounded, field: &str) -> bool {
    match field {
        "issuer_name" => g.issuer_name.is_some(),
        "issuer_nif" => g.issuer_nif.is_some(),
        "recipient_nif" => g.recipient_nif.is_some(),
        "invoice_number" => g.invoice_number.is_some(),
        "invoice_date" => g.invoice_date.is_some(),
        "base" => g.base.is_some(),
        "vat_rate" => g.vat_rate.is_some(),
        "vat_amount" => g.vat_amount.is_some(),
        "irpf_amount" => g.irpf_amount.is_some(),
        _ => g.total.is_some(),
    }
}

/// A near miss of a true value.
fn near_miss(field: &str, value: &str) -> String {
    match field {
        "invoice_date" => NaiveDate::parse_from_str(value, "%Y-%m-%d")
            .map(|d| (d + chrono::Days::new(3)).to_string())
            .unwrap_or_default(),
        "base" | "vat_amount" | "irpf_amount" | "total" => {
            format!("{:.2}", value.parse::<f64>().unwrap_or(0.0) + 1.11)
        }
        "vat_rate" => format!("{}", value.parse::<f64>().unwrap_or(0.0) + 3.0),
        "issuer_nif" | "recipient_nif" => {
            let mut chars: Vec<char> = value.chars().collect();
            if let Some(last) = chars.last_mut() {
                *last = if *last == 'X' { 'Y' } else { 'X' };
            }
            chars.into_iter().collect()
        }
        _ => format!("{value}7"),
    }
}

#[tokio::test]
async fn true_values_are_kept_and_near_misses_dropped_on_real_invoices() {
    let Some(dir) = real_corpus::dir() else {
        eprintln!("grounding corpus NOT RUN: ../shared/corpus/real-invoices is absent");
        return;
    };
    let truth = real_corpus::load(&dir);
    let (mut true_kept, mut truths, mut lies_kept, mut lies) = (0, 0, 0, 0);
    let mut missed = Vec::new();
    let mut unreadable = Vec::new();
    for doc in truth.iter().filter(|d| d.text_layer) {
        let name = doc.file.as_str();
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let Ok(content) = read_pdf(bytes).await else {
            continue;
        };
        let text = content.text.plain_text();
        let fields = &doc.fields;
        let values: Vec<(&str, Option<String>)> =
            GROUNDED.iter().map(|&f| (f, text_of(fields, f))).collect();
        let oracle = ground(&proposal(&values), &text);
        let amounts = ["base", "vat_amount", "total"];
        if content.scanned || !amounts.iter().any(|f| kept(&oracle, f)) {
            unreadable.push(name);
            continue;
        }
        for (field, value) in &values {
            let Some(value) = value else { continue };
            truths += 1;
            if kept(&oracle, field) {
                true_kept += 1;
            } else {
                missed.push(format!("{name} {field}: {value}"));
            }
            let lie = near_miss(field, value);
            let liar = ground(&proposal(&[(field, Some(lie.clone()))]), &text);
            lies += 1;
            if kept(&liar, field) {
                lies_kept += 1;
                missed.push(format!("{name} {field}: lie {lie} kept"));
            }
        }
    }
    let recall = true_kept as f64 / truths.max(1) as f64;
    let false_kept = lies_kept as f64 / lies.max(1) as f64;
    eprintln!(
        "grounding on real text PDFs: {true_kept}/{truths} true values kept ({:.1} %), {lies_kept}/{lies} near misses kept ({:.1} %); left out, no readable text layer: {}\n{}",
        recall * 100.0,
        false_kept * 100.0,
        unreadable.join(", "),
        missed.join("\n")
    );
    assert!(truths > 50, "{truths} true values");
    assert!(recall >= 0.85, "{:.1} % kept", recall * 100.0);
    assert!(
        false_kept <= 0.05,
        "{:.1} % near misses kept",
        false_kept * 100.0
    );
}

/// Zero amounts (no IRPF) are not proposed: a model reads none.
fn text_of(fields: &Map<String, Value>, field: &str) -> Option<String> {
    text(fields, field).filter(|v| v != "0.00")
}
