//! The AEAT's record rules, checked before a record is made and by the
//! simulator: every rule of "Sistemas Informáticos de Facturación y Sistemas
//! VERI*FACTU — Validaciones y errores" (§3.1.3 RegistroAlta, §3.1.4
//! RegistroAnulacion, and the list of error codes the service answers with)
//! that a record shows by itself, one table entry per rule, each with the
//! AEAT's code. A broken rule answers the API with 400 `aeat_rule_<code>`
//! (`param`: the AEAT element) and the simulator with that code; codes
//! 2000–2999 are the AEAT's "aceptado con errores", the rest reject.
//!
//! Implemented, by table (`alta::RULES`, `breakdown::RULES`,
//! `trailer::COMMON`, `trailer::CANCELLATION`):
//! - identity and trailer (both records): 1251 IDVersion; 1219 IDEmisorFactura
//!   a valid NIF; 1104 NumSerieFactura ≤ 60; 1130 its characters; 1105
//!   FechaExpedicionFactura a date; 1247 TipoHuella; 1262 Huella; 1244
//!   FechaHoraHusoGenRegistro; 1180, 1274, 1269, 1175, 1174, 2002, 2003,
//!   1278 Encadenamiento; 1223, 1176, 1177, 1220, 1212, 1213, 1226
//!   SistemaInformatico;
//! - RegistroAnulacion: 1276 SinRegistroPrevio, 1275 RechazoPrevio, 1225
//!   GeneradoPor, 1224 GeneradoPor with Generador;
//! - RegistroAlta: 1106, 1107, 1114–1119 type and rectification; 1171, 1153,
//!   1161 Subsanacion/RechazoPrevio; 1136, 1183, 1184, 1185 simplified flags;
//!   1137–1139 Macrodato; 1189, 1190 Destinatarios by type; 1150 the F2
//!   limit; 1151, 1186, 1187 Tercero; 1157 Cupon; 1253 RefExterna; 1112,
//!   1133, 1152 issue date; 1145, 1134, 1173, 1146 operation date; 2005
//!   ImporteTotal; 2006 CuotaTotal; recipients 1123, 1193, 1102, 1101, 1111,
//!   1122, 1126, 1131, 1191, 1192, 1255;
//! - DetalleDesglose: 1218, 1246, 1245, 1195, 1196, 1181, 1182, 1197, 1198,
//!   1237, 1238, 1207, 1208, 1124, 1194, 1235, 1206, 1142, 1143, 1279,
//!   1280, 1281, 1284, 1127, 1160, 1162–1164, 1166–1169, 1199, 1286, 1200,
//!   1201, 1202, 1203, 1205, 1252, 1257, 1147, 1148.
//!
//! Not implemented: what needs the AEAT's data — the census (1109, 1110,
//! 1121, 1149, 1154, 2001, 4104…), the chain it holds (3000–3002, 2007; the
//! simulator checks those itself), billing agreements (1128), the obligado
//! of the message (1108, checked by the simulator); 1156 (IDType 02 "with a
//! wrong TipoFactura": the AEAT does not say which); 1125 (its limit is not
//! published); 1165, 1170, 1277 (surcharge with a 0 % rate: windows the
//! AEAT's own texts contradict); 1210 and 1216 (the rejecting twins of 2005
//! and 2006, whose tolerance is not published); 1260 (the IPSI regime keys
//! of §15 replaced it); 1254 (a date before 1152 allows); 1140, 1144 (no
//! BaseImponibleACoste is written); 1188, 1211, 1155, 1158, 1159 and the
//! Generador's identity (third-party issue is not offered).

mod alta;
mod breakdown;
#[cfg(test)]
mod tests;
mod trailer;
mod view;

use chrono::NaiveDate;

use crate::xml_tree::Element;
pub use view::Record;

/// One AEAT rule: its code, the element it is about, what the AEAT says,
/// and the test that the record breaks it.
pub struct Rule {
    pub code: u32,
    pub api_code: &'static str,
    pub element: &'static str,
    pub says: &'static str,
    pub broken: fn(&Record) -> bool,
}

macro_rules! rule {
    ($code:literal, $element:literal, $says:literal, $broken:expr) => {
        $crate::verifactu::validation::Rule {
            code: $code,
            api_code: concat!("aeat_rule_", $code),
            element: $element,
            says: $says,
            broken: $broken,
        }
    };
}
pub(crate) use rule;

/// A rule a record breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub code: u32,
    /// `aeat_rule_<code>`, the API's error code.
    pub api_code: &'static str,
    /// The AEAT element the rule is about.
    pub element: &'static str,
    pub message: String,
}

impl Violation {
    fn of(rule: &Rule) -> Self {
        Violation {
            code: rule.code,
            api_code: rule.api_code,
            element: rule.element,
            message: format!(
                "the VERI*FACTU record breaks AEAT rule {} ({}): {} (AEAT, Validaciones y errores VERI*FACTU)",
                rule.code, rule.element, rule.says
            ),
        }
    }

    /// The AEAT registers the record with this error ("aceptado con errores").
    pub fn accepted_with_errors(&self) -> bool {
        (2000..3000).contains(&self.code)
    }
}

fn tables(record: &Record) -> Vec<&'static [Rule]> {
    if record.is_cancellation() {
        vec![trailer::COMMON, trailer::CANCELLATION]
    } else {
        vec![trailer::COMMON, alta::RULES, breakdown::RULES]
    }
}

/// Every rule a RegistroAlta or RegistroAnulacion element breaks on
/// `today`, in table order.
pub fn violations(record: &Element, today: NaiveDate) -> Vec<Violation> {
    let record = Record {
        element: record,
        today,
    };
    tables(&record)
        .into_iter()
        .flatten()
        .filter(|rule| (rule.broken)(&record))
        .map(Violation::of)
        .collect()
}

/// The first rule the record breaks, rejecting ones before those the AEAT
/// accepts with errors.
pub fn first(record: &Element, today: NaiveDate) -> Option<Violation> {
    let all = violations(record, today);
    let rejecting = all.iter().find(|v| !v.accepted_with_errors()).cloned();
    rejecting.or_else(|| all.into_iter().next())
}

/// The first rule a built record (its XML) breaks.
pub fn first_of_xml(xml: &str, today: NaiveDate) -> Option<Violation> {
    match crate::xml_tree::parse(xml) {
        Ok((_, element)) => first(&element, today),
        Err(e) => Some(Violation {
            code: 4102,
            api_code: "aeat_rule_4102",
            element: "RegistroFactura",
            message: format!("the VERI*FACTU record is not well-formed XML: {e}"),
        }),
    }
}

/// Whether `text` is a Spanish NIF in its normal form.
fn spanish_nif(text: &str) -> bool {
    crate::tax::nif::Nif::parse(text).is_ok_and(|nif| nif.as_str() == text)
}
