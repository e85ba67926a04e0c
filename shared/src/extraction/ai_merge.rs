//! How an AI model's grounded proposal joins the parser's reading. The
//! parser's values stand, except where it read nothing, or where its values
//! fail the service's checks (`check`: the totals, a NIF's check character)
//! and the model's pass them. The fields taken from the model are named in
//! the note `ai_filled`; the model's unsupported values arrive as
//! `ai_value_unsupported` notes (see `grounding`).

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::checks::check;
use super::fields::{Field, Fields, Source};
use super::grounding::Grounded;

/// The confidence of a value the model proposed and the document prints.
pub const AI_CONFIDENCE: f32 = 0.7;

/// The parser's `fields` completed, or corrected, by the model's `grounded`
/// proposal, as checked on `today`.
pub fn merge(mut fields: Fields, grounded: Grounded, today: NaiveDate) -> Fields {
    let mut taken: Vec<&str> = Vec::new();
    let ai = |v: &Option<String>| v.clone().map(|v| Field::new(v, AI_CONFIDENCE));
    let mut fill =
        |name: &'static str, slot: &mut Option<Field<String>>, v: Option<Field<String>>| {
            if slot.is_none() && v.is_some() {
                *slot = v;
                taken.push(name);
            }
        };
    fill(
        "issuer_name",
        &mut fields.issuer_name,
        ai(&grounded.issuer_name),
    );
    fill(
        "issuer_nif",
        &mut fields.issuer_nif,
        ai(&grounded.issuer_nif),
    );
    fill(
        "recipient_name",
        &mut fields.recipient_name,
        ai(&grounded.recipient_name),
    );
    fill(
        "recipient_nif",
        &mut fields.recipient_nif,
        ai(&grounded.recipient_nif),
    );
    fill(
        "invoice_number",
        &mut fields.invoice_number,
        ai(&grounded.invoice_number),
    );
    let amount = |v: Option<Decimal>| v.map(|v| Field::new(v, AI_CONFIDENCE));
    let no_lines = fields.vat_breakdown.is_empty();
    let empty = [
        (
            "invoice_date",
            fields.invoice_date.is_none() && grounded.invoice_date.is_some(),
        ),
        (
            "base",
            no_lines && fields.base.is_none() && grounded.base.is_some(),
        ),
        (
            "vat_amount",
            no_lines && fields.vat_amount.is_none() && grounded.vat_amount.is_some(),
        ),
        (
            "irpf_rate",
            fields.irpf_rate.is_none() && grounded.irpf_rate.is_some(),
        ),
        (
            "irpf_amount",
            fields.irpf_amount.is_none() && grounded.irpf_amount.is_some(),
        ),
        ("total", fields.total.is_none() && grounded.total.is_some()),
        (
            "currency",
            fields.currency.is_none() && grounded.currency.is_some(),
        ),
    ];
    for (name, fills) in empty {
        if !fills {
            continue;
        }
        match name {
            "invoice_date" => {
                fields.invoice_date = grounded.invoice_date.map(|d| Field::new(d, AI_CONFIDENCE))
            }
            "base" => fields.base = amount(grounded.base),
            "vat_amount" => fields.vat_amount = amount(grounded.vat_amount),
            "irpf_rate" => fields.irpf_rate = amount(grounded.irpf_rate),
            "irpf_amount" => fields.irpf_amount = amount(grounded.irpf_amount),
            "total" => fields.total = amount(grounded.total),
            _ => fields.currency = grounded.currency.clone(),
        }
        taken.push(name);
    }
    let checked = check(fields.clone(), Source::Text, "", today).checks;
    if !checked.totals_ok
        && let Some(corrected) = with_amounts(&fields, &grounded)
        && check(corrected.clone(), Source::Text, "", today)
            .checks
            .totals_ok
    {
        fields = corrected;
        let irpf = grounded.irpf_amount.is_some();
        for (name, from_ai) in [
            ("base", true),
            ("vat_amount", true),
            ("irpf_amount", irpf),
            ("total", true),
        ] {
            if from_ai && !taken.contains(&name) {
                taken.push(name);
            }
        }
    }
    let ids = [
        ("issuer_nif", !checked.nif_valid, &grounded.issuer_nif),
        (
            "recipient_nif",
            checked.recipient_nif_valid == Some(false),
            &grounded.recipient_nif,
        ),
    ];
    for (name, invalid, proposed) in ids {
        if !invalid || taken.contains(&name) {
            continue;
        }
        let Some(proposed) = proposed else { continue };
        let mut corrected = fields.clone();
        let slot = match name {
            "issuer_nif" => &mut corrected.issuer_nif,
            _ => &mut corrected.recipient_nif,
        };
        *slot = Some(Field::new(proposed.clone(), AI_CONFIDENCE));
        let now = check(corrected.clone(), Source::Text, "", today).checks;
        let valid = match name {
            "issuer_nif" => now.nif_valid,
            _ => now.recipient_nif_valid == Some(true),
        };
        if valid {
            fields = corrected;
            taken.push(name);
        }
    }
    fields.notes.extend(grounded.notes);
    if !taken.is_empty() {
        fields.notes.push((
            "ai_filled".to_string(),
            format!(
                "Campos leídos por el modelo de IA y comprobados en el documento: {} (ai_filled)",
                taken.join(", ")
            ),
        ));
    }
    fields
}

/// The parser's fields with the model's whole set of amounts (base, VAT,
/// IRPF, total), when it proposed one; the VAT lines go unless they add up
/// to the new base and VAT.
fn with_amounts(fields: &Fields, grounded: &Grounded) -> Option<Fields> {
    let (base, vat, total) = (grounded.base?, grounded.vat_amount?, grounded.total?);
    let mut corrected = fields.clone();
    let field = |v: Decimal| Some(Field::new(v, AI_CONFIDENCE));
    corrected.base = field(base);
    corrected.vat_amount = field(vat);
    corrected.total = field(total);
    corrected.irpf_amount = grounded.irpf_amount.and_then(field);
    let lines = &corrected.vat_breakdown;
    let line_base: Decimal = lines.iter().map(|l| l.base).sum();
    let line_vat: Decimal = lines.iter().map(|l| l.vat_amount).sum();
    if line_base != base || line_vat != vat {
        corrected.vat_breakdown.clear();
    }
    Some(corrected)
}

#[cfg(test)]
mod tests {
    use rust_decimal::dec;

    use super::*;
    use crate::extraction::VatLine;

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 23).unwrap()
    }

    fn parsed() -> Fields {
        Fields {
            issuer_name: Some(Field::new("Reformas Martínez SL".into(), 0.9)),
            issuer_nif: Some(Field::new("B12345674".into(), 0.9)),
            invoice_date: Some(Field::new(
                NaiveDate::from_ymd_opt(2026, 8, 5).unwrap(),
                0.9,
            )),
            base: Some(Field::new(dec!(100), 0.9)),
            vat_amount: Some(Field::new(dec!(21), 0.9)),
            vat_breakdown: vec![VatLine {
                rate: dec!(21),
                base: dec!(100),
                vat_amount: dec!(21),
                surcharge_rate: None,
                surcharge_amount: None,
            }],
            total: Some(Field::new(dec!(121), 0.9)),
            ..Fields::default()
        }
    }

    fn note<'a>(fields: &'a Fields, code: &str) -> Option<&'a str> {
        fields
            .notes
            .iter()
            .find(|(c, _)| c == code)
            .map(|(_, m)| m.as_str())
    }

    #[test]
    fn the_model_fills_only_what_the_parser_left_empty() {
        let grounded = Grounded {
            issuer_name: Some("Otro Nombre SL".into()),
            invoice_number: Some("F-7".into()),
            recipient_nif: Some("12345678Z".into()),
            total: Some(dec!(150)),
            notes: vec![("ai_value_unsupported".into(), "iban".into())],
            ..Grounded::default()
        };
        let merged = merge(parsed(), grounded, today());
        assert_eq!(merged.issuer_name.unwrap().value, "Reformas Martínez SL");
        assert_eq!(merged.total.unwrap().value, dec!(121));
        assert_eq!(merged.invoice_number.unwrap().confidence, AI_CONFIDENCE);
        assert_eq!(merged.recipient_nif.unwrap().value, "12345678Z");
        let notes: Vec<&str> = merged.notes.iter().map(|(c, _)| c.as_str()).collect();
        assert_eq!(notes, ["ai_value_unsupported", "ai_filled"]);
    }

    #[test]
    fn amounts_that_fail_the_checks_give_way_to_a_set_that_passes() {
        let mut wrong = parsed();
        wrong.total = Some(Field::new(dec!(21), 0.6));
        let grounded = Grounded {
            base: Some(dec!(100)),
            vat_amount: Some(dec!(21)),
            total: Some(dec!(121)),
            ..Grounded::default()
        };
        let merged = merge(wrong.clone(), grounded.clone(), today());
        assert_eq!(merged.total.as_ref().unwrap().value, dec!(121));
        assert_eq!(merged.vat_breakdown.len(), 1, "the lines still add up");
        assert!(note(&merged, "ai_filled").unwrap().contains("total"));
        let still_wrong = Grounded {
            total: Some(dec!(122)),
            ..grounded
        };
        let kept = merge(wrong, still_wrong, today());
        assert_eq!(kept.total.as_ref().unwrap().value, dec!(21));
        assert_eq!(note(&kept, "ai_filled"), None);
    }

    #[test]
    fn amounts_that_pass_are_not_replaced() {
        let grounded = Grounded {
            base: Some(dec!(200)),
            vat_amount: Some(dec!(42)),
            total: Some(dec!(242)),
            ..Grounded::default()
        };
        let merged = merge(parsed(), grounded, today());
        assert_eq!(merged, parsed());
    }

    #[test]
    fn an_invalid_nif_gives_way_to_a_valid_printed_one() {
        let mut typo = parsed();
        typo.issuer_nif = Some(Field::new("B12345675".into(), 0.9));
        let grounded = |nif: &str| Grounded {
            issuer_nif: Some(nif.into()),
            ..Grounded::default()
        };
        let merged = merge(typo.clone(), grounded("B12345674"), today());
        assert_eq!(merged.issuer_nif.unwrap().value, "B12345674");
        let kept = merge(typo, grounded("B12345676"), today());
        assert_eq!(kept.issuer_nif.unwrap().value, "B12345675");
        let valid = merge(parsed(), grounded("12345678Z"), today());
        assert_eq!(valid.issuer_nif.unwrap().value, "B12345674");
    }
}
