//! Rules of a RegistroAlta as a whole: its type and what the type allows,
//! the correction flags, the dates, the recipients and the totals
//! (Validaciones §3.1.3 and the error list).

use chrono::NaiveDate;
use rust_decimal::{Decimal, dec};

use super::view::{IdField, Record, years_before};
use super::{Rule, rule, spanish_nif};
use crate::tax::nif::{Nif, NifKind};
use crate::xml_tree::Element;

const KINDS: [&str; 8] = ["F1", "F2", "F3", "R1", "R2", "R3", "R4", "R5"];
/// The types that name their recipients (1189, 1183).
const NAMED: [&str; 6] = ["F1", "F3", "R1", "R2", "R3", "R4"];
/// The AEAT takes no record of an invoice issued before this day (1152).
const FIRST_ISSUE_DATE: NaiveDate = NaiveDate::from_ymd_opt(2024, 10, 28).expect("a date");
/// NIF-IVA GB is refused for operations from this day (1255).
const BREXIT: NaiveDate = NaiveDate::from_ymd_opt(2021, 2, 1).expect("a date");
/// Σ(base + cuota) of an F2: 3,000 € and the 10 € the AEAT tolerates.
const F2_LIMIT: Decimal = dec!(3010);
/// ImporteTotal from which a record is a Macrodato.
const MACRODATO: Decimal = dec!(100000000);
/// The deviation the AEAT accepts in CuotaTotal and ImporteTotal.
const TOTAL_TOLERANCE: Decimal = dec!(10);
/// Lines of these regimes are not summed into ImporteTotal (§3.1.3.17).
const UNSUMMED_REGIMES: [&str; 5] = ["03", "05", "06", "08", "09"];

fn f2_sum(r: &Record) -> Decimal {
    r.lines()
        .iter()
        .map(|l| l.base.unwrap_or_default() + l.vat_or_zero())
        .sum()
}

fn total(r: &Record) -> Decimal {
    r.amount("ImporteTotal").unwrap_or_default()
}

fn total_off(r: &Record) -> bool {
    let lines = r.lines();
    if r.has("NumRegistroAcuerdoFacturacion")
        || lines
            .iter()
            .any(|l| l.regime.is_some_and(|k| UNSUMMED_REGIMES.contains(&k)))
    {
        return false;
    }
    let sum: Decimal = lines
        .iter()
        .map(|l| l.base.unwrap_or_default() + l.vat_or_zero() + l.surcharge_or_zero())
        .sum();
    r.amount("ImporteTotal")
        .is_some_and(|t| (t - sum).abs() > TOTAL_TOLERANCE)
}

fn total_vat_off(r: &Record) -> bool {
    if r.has("NumRegistroAcuerdoFacturacion") {
        return false;
    }
    let sum: Decimal = r
        .lines()
        .iter()
        .map(|l| l.vat_or_zero() + l.surcharge_or_zero())
        .sum();
    r.amount("CuotaTotal")
        .is_some_and(|t| (t - sum).abs() > TOTAL_TOLERANCE)
}

/// A recipient's IDOtro fields: CodigoPais, IDType, ID.
fn other(recipient: &Element) -> Option<(Option<&str>, Option<&str>, Option<&str>)> {
    recipient.child("IDOtro").map(|o| {
        (
            o.text_at(&["CodigoPais"]),
            o.text_at(&["IDType"]),
            o.text_at(&["ID"]),
        )
    })
}

fn any_recipient(r: &Record, broken: impl Fn(&Element) -> bool) -> bool {
    r.recipients().into_iter().any(broken)
}

fn any_other(
    r: &Record,
    broken: impl Fn(Option<&str>, Option<&str>, Option<&str>) -> bool,
) -> bool {
    any_recipient(r, |d| other(d).is_some_and(|(c, t, i)| broken(c, t, i)))
}

/// The prefix of a country's VAT numbers (Greece writes EL).
fn vat_prefix(country: &str) -> &str {
    if country == "GR" { "EL" } else { country }
}

fn natural_person(id: &str) -> bool {
    Nif::parse(id).is_ok_and(|nif| nif.as_str() == id && !matches!(nif.kind(), NifKind::Entity(_)))
}

/// FechaOperacion after `limit` is allowed only when every line is of
/// ClaveRegimen 14 or 15 (work certifications, successive supplies) and of
/// IVA or IGIC (1146, 1173).
fn later_operation_allowed(r: &Record) -> bool {
    let lines = r.lines();
    !lines.is_empty()
        && lines
            .iter()
            .all(|l| l.vat_or_igic() && l.regime.is_some_and(|k| k == "14" || k == "15"))
}

pub static RULES: &[Rule] = &[
    rule!(
        1106,
        "TipoFactura",
        "El valor del campo TipoFactura no está incluido en la lista de valores permitidos",
        |r| !r.kind_in(&KINDS)
    ),
    rule!(
        1107,
        "TipoRectificativa",
        "El valor del campo TipoRectificativa es incorrecto (S o I)",
        |r| r.flag_outside("TipoRectificativa", &["S", "I"])
    ),
    rule!(
        1114,
        "TipoRectificativa",
        "Si la factura es de tipo rectificativa, el campo TipoRectificativa debe tener valor",
        |r| r.rectifying() && !r.has("TipoRectificativa")
    ),
    rule!(
        1115,
        "TipoRectificativa",
        "Si la factura no es de tipo rectificativa, el campo TipoRectificativa no debe tener valor",
        |r| !r.rectifying() && r.has("TipoRectificativa")
    ),
    rule!(
        1116,
        "FacturasSustituidas",
        "Debe informarse el campo FacturasSustituidas sólo si la factura es de tipo F3",
        |r| r.has("FacturasSustituidas") && r.kind() != "F3"
    ),
    rule!(
        1117,
        "FacturasRectificadas",
        "Si la factura no es de tipo rectificativa, el bloque FacturasRectificadas no podrá venir informado",
        |r| !r.rectifying() && r.has("FacturasRectificadas")
    ),
    rule!(
        1118,
        "ImporteRectificacion",
        "Si la factura es de tipo rectificativa por sustitución el bloque ImporteRectificacion es obligatorio",
        |r| r.rectifying() && r.flag_is("TipoRectificativa", "S") && !r.has("ImporteRectificacion")
    ),
    rule!(
        1119,
        "ImporteRectificacion",
        "Si la factura no es de tipo rectificativa por sustitución el bloque ImporteRectificacion no debe tener valor",
        |r| r.has("ImporteRectificacion")
            && !(r.rectifying() && r.flag_is("TipoRectificativa", "S"))
    ),
    rule!(
        1171,
        "Subsanacion",
        "El valor del campo Subsanacion o RechazoPrevio no se encuentra en los valores permitidos",
        |r| r.flag_outside("Subsanacion", &["S", "N"])
            || r.flag_outside("RechazoPrevio", &["N", "S", "X"])
    ),
    rule!(
        1153,
        "RechazoPrevio",
        "Valor del campo RechazoPrevio no válido, solo podrá incluirse el campo RechazoPrevio con valor X si se ha informado el campo Subsanacion y tiene el valor S",
        |r| r.flag_is("RechazoPrevio", "X") && !r.flag_is("Subsanacion", "S")
    ),
    rule!(
        1161,
        "RechazoPrevio",
        "El valor del campo RechazoPrevio no es válido, no podrá incluirse el campo RechazoPrevio con valor S si no se ha informado del campo Subsanacion o tiene el valor N",
        |r| r.flag_is("RechazoPrevio", "S") && !r.flag_is("Subsanacion", "S")
    ),
    rule!(
        1136,
        "FacturaSimplificadaArt7273",
        "El campo FacturaSimplificadaArticulos7273 solo acepta valores N o S",
        |r| r.flag_outside("FacturaSimplificadaArt7273", &["S", "N"])
    ),
    rule!(
        1183,
        "FacturaSimplificadaArt7273",
        "El campo FacturaSimplificadaArticulos7273 solo se podrá rellenar con S si TipoFactura es de tipo F1 o F3 o R1 o R2 o R3 o R4",
        |r| r.flag_is("FacturaSimplificadaArt7273", "S") && !r.kind_in(&NAMED)
    ),
    rule!(
        1184,
        "FacturaSinIdentifDestinatarioArt61d",
        "El campo FacturaSinIdentifDestinatarioArt61d solo acepta valores S o N",
        |r| r.flag_outside("FacturaSinIdentifDestinatarioArt61d", &["S", "N"])
    ),
    rule!(
        1185,
        "FacturaSinIdentifDestinatarioArt61d",
        "El campo FacturaSinIdentifDestinatarioArt61d solo se podrá rellenar con S si TipoFactura es de tipo F2 o R5",
        |r| r.flag_is("FacturaSinIdentifDestinatarioArt61d", "S") && !r.kind_in(&["F2", "R5"])
    ),
    rule!(
        1137,
        "Macrodato",
        "El campo Macrodato solo acepta valores N o S",
        |r| r.flag_outside("Macrodato", &["S", "N"])
    ),
    rule!(
        1138,
        "Macrodato",
        "El campo Macrodato solo debe ser informado con valor S si el valor de ImporteTotal es igual o superior a +-100.000.000",
        |r| r.flag_is("Macrodato", "S") && total(r).abs() < MACRODATO
    ),
    rule!(
        1139,
        "Macrodato",
        "Si el campo ImporteTotal está informado y es igual o superior a +-100.000.000 el campo Macrodato debe estar informado con valor S",
        |r| total(r).abs() >= MACRODATO && !r.flag_is("Macrodato", "S")
    ),
    rule!(
        1189,
        "Destinatarios",
        "Si TipoFactura es F1 o F3 o R1 o R2 o R3 o R4 el bloque Destinatarios tiene que estar cumplimentado",
        |r| r.kind_in(&NAMED) && r.recipients().is_empty()
    ),
    rule!(
        1190,
        "Destinatarios",
        "Si TipoFactura es F2 o R5 el bloque Destinatarios no puede estar cumplimentado",
        |r| r.kind_in(&["F2", "R5"]) && r.has("Destinatarios")
    ),
    rule!(
        1150,
        "ImporteTotal",
        "Cuando TipoFactura sea F2 y no este informado NumRegistroAcuerdoFacturacion o FacturaSinIdentifDestinatarioArt61d no sea S el sumatorio de BaseImponibleOimporteNoSujeto y CuotaRepercutida de todas las líneas de detalle no podrá ser superior a 3.000",
        |r| r.kind() == "F2"
            && !r.has("NumRegistroAcuerdoFacturacion")
            && !r.flag_is("FacturaSinIdentifDestinatarioArt61d", "S")
            && f2_sum(r) > F2_LIMIT
    ),
    rule!(
        1151,
        "EmitidaPorTerceroODestinatario",
        "El campo EmitidaPorTerceroODestinatario solo acepta valores T o D",
        |r| r.flag_outside("EmitidaPorTerceroODestinatario", &["T", "D"])
    ),
    rule!(
        1186,
        "Tercero",
        "Si EmitidaPorTercerosODestinatario es igual a T el bloque Tercero será de cumplimentación obligatoria",
        |r| r.flag_is("EmitidaPorTerceroODestinatario", "T") && !r.has("Tercero")
    ),
    rule!(
        1187,
        "Tercero",
        "Sólo se podrá cumplimentarse el bloque Tercero si el valor de EmitidaPorTercerosODestinatario es T",
        |r| r.has("Tercero") && !r.flag_is("EmitidaPorTerceroODestinatario", "T")
    ),
    rule!(
        1157,
        "Cupon",
        "El valor de cupón solo puede ser S o N si está informado. El valor de cupón sólo puede ser S si el tipo de factura es R1 o R5",
        |r| r.flag_outside("Cupon", &["S", "N"])
            || (r.flag_is("Cupon", "S") && !r.kind_in(&["R1", "R5"]))
    ),
    rule!(
        1253,
        "RefExterna",
        "El valor del campo RefExterna tiene un valor incorrecto (hasta 60 caracteres)",
        |r| r
            .text(&["RefExterna"])
            .is_some_and(|t| t.chars().count() > 60)
    ),
    rule!(
        1112,
        "IDFactura/FechaExpedicionFactura",
        "El campo FechaExpedicionFactura es superior a la fecha actual",
        |r| r.issue_date().is_some_and(|d| d > r.today)
    ),
    rule!(
        1133,
        "IDFactura/FechaExpedicionFactura",
        "El valor del campo FechaExpedicionFactura no debe ser inferior a la fecha actual menos veinte años",
        |r| r
            .issue_date()
            .is_some_and(|d| d < years_before(r.today, 20))
    ),
    rule!(
        1152,
        "IDFactura/FechaExpedicionFactura",
        "La fecha de expedición no puede ser inferior al 28 de octubre de 2024",
        |r| r.issue_date().is_some_and(|d| d < FIRST_ISSUE_DATE)
    ),
    rule!(
        1145,
        "FechaOperacion",
        "Formato de fecha incorrecto (FechaOperacion, dd-mm-aaaa)",
        |r| r.text(&["FechaOperacion"]).is_some() && r.operation_date().is_none()
    ),
    rule!(
        1134,
        "FechaOperacion",
        "El valor del campo FechaOperacion no debe ser inferior a la fecha actual menos veinte años",
        |r| r
            .operation_date()
            .is_some_and(|d| d < years_before(r.today, 20))
    ),
    rule!(
        1173,
        "FechaOperacion",
        "Sólo se permite que la fecha de operación sea superior a la fecha actual si los detalles del desglose son ClaveRegimen 14 o 15 e Impuesto 01, 03 o vacío",
        |r| r.operation_date().is_some_and(|d| d > r.today) && !later_operation_allowed(r)
    ),
    rule!(
        1146,
        "FechaOperacion",
        "Sólo se permite que la fecha de expedicion de la factura sea anterior a la fecha operación si los detalles del desglose son ClaveRegimen 14 o 15 e Impuesto 01, 03 o vacío",
        |r| r
            .operation_date()
            .zip(r.issue_date())
            .is_some_and(|(op, issued)| issued < op)
            && !later_operation_allowed(r)
    ),
    rule!(
        1123,
        "Destinatarios/IDDestinatario/NIF",
        "El formato del NIF es incorrecto",
        |r| any_recipient(r, |d| d.text_at(&["NIF"]).is_some_and(|n| !spanish_nif(n)))
    ),
    rule!(
        1193,
        "Destinatarios/IDDestinatario/NIF",
        "En el bloque Destinatarios si se identifica mediante NIF, el NIF debe estar identificado y ser distinto del NIF ObligadoEmision",
        |r| any_recipient(r, |d| {
            d.text_at(&["NIF"]).is_some() && d.text_at(&["NIF"]) == r.id(IdField::Issuer)
        })
    ),
    rule!(
        1102,
        "Destinatarios/IDDestinatario/IDOtro/IDType",
        "El valor del campo IDType es incorrecto (02 a 07)",
        |r| any_other(r, |_, t, _| {
            !t.is_some_and(|t| ["02", "03", "04", "05", "06", "07"].contains(&t))
        })
    ),
    rule!(
        1101,
        "Destinatarios/IDDestinatario/IDOtro/CodigoPais",
        "El valor del campo CodigoPais es incorrecto (ISO 3166-1 alfa-2)",
        |r| any_other(r, |c, _, _| {
            c.is_some_and(|c| c.len() != 2 || !c.chars().all(|ch| ch.is_ascii_uppercase()))
        })
    ),
    rule!(
        1111,
        "Destinatarios/IDDestinatario/IDOtro/CodigoPais",
        "El campo CodigoPais es obligatorio cuando IDType es distinto de 02",
        |r| any_other(r, |c, t, _| c.is_none() && t != Some("02"))
    ),
    rule!(
        1122,
        "Destinatarios/IDDestinatario/IDOtro/CodigoPais",
        "El campo CodigoPais indicado no coincide con los dos primeros dígitos del identificador",
        |r| any_other(r, |c, t, id| {
            t == Some("02")
                && c.zip(id)
                    .is_some_and(|(c, id)| !id.starts_with(vat_prefix(c)))
        })
    ),
    rule!(
        1126,
        "Destinatarios/IDDestinatario/IDOtro/CodigoPais",
        "El valor del CodigoPais solo puede ser ES cuando el IDType sea Pasaporte (03) o No Censado (07). Si IDType es No Censado (07) el CodigoPais debe ser ES",
        |r| any_other(r, |c, t, _| {
            (c == Some("ES") && !matches!(t, Some("03" | "07")))
                || (t == Some("07") && c != Some("ES"))
        })
    ),
    rule!(
        1131,
        "Destinatarios/IDDestinatario/IDOtro/ID",
        "El valor del campo ID ha de ser el NIF de una persona física cuando el campo IDType tiene valor No Censado (07)",
        |r| any_other(r, |_, t, id| t == Some("07")
            && !id.is_some_and(natural_person))
    ),
    rule!(
        1191,
        "Destinatarios/IDDestinatario",
        "Si TipoFactura es R3 sólo se admitirá NIF o IDType = No Censado (07)",
        |r| r.kind() == "R3" && any_other(r, |_, t, _| t != Some("07"))
    ),
    rule!(
        1192,
        "Destinatarios/IDDestinatario",
        "Si TipoFactura es R2 sólo se admitirá NIF o IDType = No Censado (07) o NIF-IVA (02)",
        |r| r.kind() == "R2" && any_other(r, |_, t, _| !matches!(t, Some("02" | "07")))
    ),
    rule!(
        1255,
        "Destinatarios/IDDestinatario/IDOtro",
        "Si FechaOperacion (FechaExpedicionFactura si no se informa FechaOperacion) es mayor o igual que 01/02/2021 no se permite el valor 'GB' para Identificaciones NIF-IVA",
        |r| r.tax_date().is_some_and(|d| d >= BREXIT)
            && any_other(r, |c, t, id| {
                t == Some("02") && (c == Some("GB") || id.is_some_and(|i| i.starts_with("GB")))
            })
    ),
    rule!(
        2005,
        "ImporteTotal",
        "El campo ImporteTotal tiene un valor incorrecto para el valor de los campos BaseImponibleOimporteNoSujeto, CuotaRepercutida y CuotaRecargoEquivalencia suministrados (más de 10 euros de diferencia)",
        total_off
    ),
    rule!(
        2006,
        "CuotaTotal",
        "El campo CuotaTotal tiene un valor incorrecto para el valor de los campos CuotaRepercutida y CuotaRecargoEquivalencia suministrados (más de 10 euros de diferencia)",
        total_vat_off
    ),
];
