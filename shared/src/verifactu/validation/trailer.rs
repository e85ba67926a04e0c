//! Rules of what both records carry: the invoice's identity, the chaining,
//! the fingerprint and the invoicing system; and the RegistroAnulacion's own
//! flags (Validaciones §3.1.3.1, §3.1.4, and the error list).

use chrono::DateTime;

use super::view::{IdField, Record, date};
use super::{Rule, rule, spanish_nif};
use crate::xml_tree::Element;

/// Characters NumSerieFactura may not hold.
const NUMBER_FORBIDDEN: [char; 5] = ['"', '\'', '<', '>', '='];

fn fingerprint(text: &str) -> bool {
    text.len() == 64
        && text
            .chars()
            .all(|c| c.is_ascii_digit() || ('A'..='F').contains(&c))
}

fn too_long(text: Option<&str>, max: usize) -> bool {
    text.is_some_and(|t| t.chars().count() > max)
}

fn chaining<'a>(r: &Record<'a>) -> Option<&'a Element> {
    r.element.child("Encadenamiento")
}

fn previous<'a>(r: &Record<'a>) -> Option<&'a Element> {
    chaining(r).and_then(|c| c.child("RegistroAnterior"))
}

fn previous_text<'a>(r: &Record<'a>, name: &str) -> Option<&'a str> {
    previous(r).and_then(|p| p.text_at(&[name]))
}

fn system_text<'a>(r: &Record<'a>, name: &str) -> Option<&'a str> {
    r.text(&["SistemaInformatico", name])
}

fn system_flag_broken(r: &Record, name: &str) -> bool {
    !matches!(system_text(r, name), Some("S" | "N"))
}

/// A generation time with its offset, as `2024-01-01T19:20:30+01:00`.
fn timestamp(text: &str) -> bool {
    DateTime::parse_from_rfc3339(text).is_ok() && !text.ends_with('Z') && text.len() == 25
}

pub static COMMON: &[Rule] = &[
    rule!(
        1251,
        "IDVersion",
        "El valor del campo IDVersion tiene un valor incorrecto",
        |r| r.text(&["IDVersion"]) != Some("1.0")
    ),
    rule!(
        1219,
        "IDFactura/IDEmisorFactura",
        "El valor del campo IDEmisorFactura es incorrecto",
        |r| !r.id(IdField::Issuer).is_some_and(spanish_nif)
    ),
    rule!(
        1104,
        "IDFactura/NumSerieFactura",
        "El valor del campo NumSerieFactura es incorrecto (1 a 60 caracteres)",
        |r| r.id(IdField::Number).is_none_or(|n| n.chars().count() > 60)
    ),
    rule!(
        1130,
        "IDFactura/NumSerieFactura",
        "El campo NumSerieFactura contiene caracteres no permitidos (\" ' < > =)",
        |r| r
            .id(IdField::Number)
            .is_some_and(|n| n.contains(NUMBER_FORBIDDEN))
    ),
    rule!(
        1105,
        "IDFactura/FechaExpedicionFactura",
        "El valor del campo FechaExpedicionFactura es incorrecto",
        |r| r.issue_date().is_none()
    ),
    rule!(
        1247,
        "TipoHuella",
        "El valor del campo TipoHuella es incorrecto (01, SHA-256)",
        |r| r.text(&["TipoHuella"]) != Some("01")
    ),
    rule!(
        1262,
        "Huella",
        "La longitud de huella no cumple con las especificaciones (64 caracteres hexadecimales en mayúsculas)",
        |r| !r.text(&["Huella"]).is_some_and(fingerprint)
    ),
    rule!(
        1244,
        "FechaHoraHusoGenRegistro",
        "El campo FechaHoraHusoGenRegistro tiene un formato incorrecto",
        |r| !r.text(&["FechaHoraHusoGenRegistro"]).is_some_and(timestamp)
    ),
    rule!(
        1180,
        "Encadenamiento",
        "Error en el bloque de Encadenamiento (PrimerRegistro o RegistroAnterior, uno de los dos)",
        |r| chaining(r).is_none_or(|c| {
            c.child("PrimerRegistro").is_some() == c.child("RegistroAnterior").is_some()
        })
    ),
    rule!(
        1274,
        "Encadenamiento/PrimerRegistro",
        "Valor incorrecto campo primer registro (S)",
        |r| chaining(r)
            .and_then(|c| c.child("PrimerRegistro"))
            .is_some_and(|p| p.text() != "S")
    ),
    rule!(
        1269,
        "Encadenamiento/RegistroAnterior",
        "El bloque Registro Anterior no esta informado correctamente",
        |r| previous(r).is_some_and(|p| {
            [
                "IDEmisorFactura",
                "NumSerieFactura",
                "FechaExpedicionFactura",
                "Huella",
            ]
            .iter()
            .any(|name| p.text_at(&[name]).is_none())
                || !p.text_at(&["IDEmisorFactura"]).is_some_and(spanish_nif)
        })
    ),
    rule!(
        1175,
        "Encadenamiento/RegistroAnterior/NumSerieFactura",
        "El valor del campo NumSerieFactura del bloque RegistroAnterior es incorrecto",
        |r| too_long(previous_text(r, "NumSerieFactura"), 60)
    ),
    rule!(
        1174,
        "Encadenamiento/RegistroAnterior/FechaExpedicionFactura",
        "El valor del campo FechaExpedicionFactura del bloque RegistroAnterior es incorrecto",
        |r| previous_text(r, "FechaExpedicionFactura").is_some_and(|d| date(d).is_none())
    ),
    rule!(
        2002,
        "Encadenamiento/RegistroAnterior/Huella",
        "La longitud de huella del registro anterior no cumple con las especificaciones",
        |r| previous_text(r, "Huella").is_some_and(|h| h.len() != 64)
    ),
    rule!(
        2003,
        "Encadenamiento/RegistroAnterior/Huella",
        "El contenido de la huella del registro anterior no cumple con las especificaciones",
        |r| previous_text(r, "Huella").is_some_and(|h| h.len() == 64 && !fingerprint(h))
    ),
    rule!(
        1278,
        "Encadenamiento/RegistroAnterior/Huella",
        "El valor de la huella del registro anterior debe ser diferente a la huella del registro actual",
        |r| previous_text(r, "Huella").is_some()
            && previous_text(r, "Huella") == r.text(&["Huella"])
    ),
    rule!(
        1223,
        "SistemaInformatico",
        "En el bloque SistemaInformatico si se cumplimenta NIF, no deberá existir la agrupación IDOtro y viceversa, pero es obligatorio que se cumplimente uno de los dos",
        |r| r
            .element
            .child("SistemaInformatico")
            .is_none_or(|s| { s.child("NIF").is_some() == s.child("IDOtro").is_some() })
    ),
    rule!(
        1176,
        "SistemaInformatico/NIF",
        "El valor de campo NIF del bloque SistemaInformatico es incorrecto",
        |r| system_text(r, "NIF").is_some_and(|n| !spanish_nif(n))
    ),
    rule!(
        1177,
        "SistemaInformatico/IdSistemaInformatico",
        "El valor de campo IdSistemaInformatico del bloque SistemaInformatico es incorrecto (1 o 2 caracteres)",
        |r| system_text(r, "IdSistemaInformatico").is_none_or(|id| id.chars().count() > 2)
    ),
    rule!(
        1220,
        "SistemaInformatico/NombreSistemaInformatico",
        "El valor del campo NombreSistemaInformatico es incorrecto (1 a 30 caracteres)",
        |r| system_text(r, "NombreSistemaInformatico").is_none_or(|n| n.chars().count() > 30)
    ),
    rule!(
        1212,
        "SistemaInformatico/TipoUsoPosibleSoloVerifactu",
        "El campo TipoUsoPosibleSoloVerifactu solo acepta valores N o S",
        |r| system_flag_broken(r, "TipoUsoPosibleSoloVerifactu")
    ),
    rule!(
        1213,
        "SistemaInformatico/TipoUsoPosibleMultiOT",
        "El campo TipoUsoPosibleMultiOT solo acepta valores N o S",
        |r| system_flag_broken(r, "TipoUsoPosibleMultiOT")
    ),
    rule!(
        1226,
        "SistemaInformatico/IndicadorMultiplesOT",
        "El campo IndicadorMultiplesOT solo acepta valores N o S",
        |r| system_flag_broken(r, "IndicadorMultiplesOT")
    ),
];

pub static CANCELLATION: &[Rule] = &[
    rule!(
        1276,
        "SinRegistroPrevio",
        "Valor incorrecto campo SinRegistroPrevio (S o N)",
        |r| r.flag_outside("SinRegistroPrevio", &["S", "N"])
    ),
    rule!(
        1275,
        "RechazoPrevio",
        "Valor incorrecto campo RechazoPrevio (S o N en una anulación)",
        |r| r.flag_outside("RechazoPrevio", &["S", "N"])
    ),
    rule!(
        1225,
        "GeneradoPor",
        "El valor del campo GeneradoPor es incorrecto (E, D o T)",
        |r| r.flag_outside("GeneradoPor", &["E", "D", "T"])
    ),
    rule!(
        1224,
        "GeneradoPor",
        "Si se informa el campo GeneradoPor deberá existir la agrupación Generador y viceversa",
        |r| r.has("GeneradoPor") != r.has("Generador")
    ),
];
