//! Rules of each DetalleDesglose: its codes and their combinations, the
//! rates the AEAT takes per date and their surcharges, and the quota
//! (Validaciones §3.1.3.15 and the error list). A rule is broken when any
//! line breaks it.

use chrono::NaiveDate;
use rust_decimal::{Decimal, dec};

use super::view::{Line, Record};
use super::{Rule, rule};

const REGIMES: [&str; 18] = [
    "01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "14", "15", "17", "18", "19",
    "20", "21",
];
const IVA_RATES: [Decimal; 7] = [
    dec!(0),
    dec!(2),
    dec!(4),
    dec!(5),
    dec!(7.5),
    dec!(10),
    dec!(21),
];
const SURCHARGE_RATES: [Decimal; 8] = [
    dec!(0),
    dec!(0.26),
    dec!(0.5),
    dec!(0.62),
    dec!(1),
    dec!(1.4),
    dec!(1.75),
    dec!(5.2),
];

fn day(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).expect("a date")
}

/// The record's tax date is outside `from..=to` (or unknown).
fn outside(r: &Record, from: NaiveDate, to: NaiveDate) -> bool {
    !r.tax_date().is_some_and(|d| (from..=to).contains(&d))
}

/// An IVA line subject and not exempt, without reverse charge.
fn iva_s1(l: &Line) -> bool {
    l.vat_tax() && l.qualified(&["S1"])
}

/// An IVA S1 line at `rate` with a surcharge rate that is not one of `allowed`.
fn surcharge_not(l: &Line, rate: Decimal, allowed: &[Decimal]) -> bool {
    iva_s1(l) && l.rate == Some(rate) && l.surcharge_rate.is_some_and(|s| !allowed.contains(&s))
}

/// An IVA S1 line at `rate` with surcharge `surcharge`.
fn surcharge_is(l: &Line, rate: Decimal, surcharge: Decimal) -> bool {
    iva_s1(l) && l.rate == Some(rate) && l.surcharge_rate == Some(surcharge)
}

/// |CuotaRepercutida − base × rate| may reach 1 % of the base, and 10 € in
/// any case.
fn quota_off(l: &Line) -> bool {
    let (Some(base), Some(rate), Some(vat)) = (l.base, l.rate, l.vat) else {
        return false;
    };
    let tolerance = (base.abs() / dec!(100)).max(dec!(10));
    (base * rate / dec!(100) - vat).abs() > tolerance
}

/// The quota check does not apply to rectifications by differences nor to
/// R2 and R3.
fn quota_checked(r: &Record) -> bool {
    !(r.flag_is("TipoRectificativa", "I") || r.kind_in(&["R2", "R3"]))
}

fn opposite_signs(a: Option<Decimal>, b: Option<Decimal>) -> bool {
    a.zip(b).is_some_and(|(a, b)| {
        !a.is_zero() && !b.is_zero() && a.is_sign_negative() != b.is_sign_negative()
    })
}

pub static RULES: &[Rule] = &[
    rule!(
        1218,
        "Desglose/DetalleDesglose/Impuesto",
        "El valor del campo Impuesto es incorrecto (01, 02, 03 o 05)",
        |r| r.any_line(|l| !["01", "02", "03", "05"].contains(&l.tax))
    ),
    rule!(
        1246,
        "Desglose/DetalleDesglose/ClaveRegimen",
        "El valor del campo ClaveRegimen es incorrecto",
        |r| r.any_line(|l| l.regime.is_some_and(|k| !REGIMES.contains(&k)))
    ),
    rule!(
        1245,
        "Desglose/DetalleDesglose/ClaveRegimen",
        "Si el campo Impuesto está vacío o tiene valor 01 o 03 el campo ClaveRegimen debe de estar cumplimentado",
        |r| r.any_line(|l| l.vat_or_igic() && l.regime.is_none())
    ),
    rule!(
        1195,
        "Desglose/DetalleDesglose/CalificacionOperacion",
        "Al menos uno de los dos campos OperacionExenta o CalificacionOperacion deben estar informados",
        |r| r.any_line(|l| l.qualification.is_none() && l.exemption.is_none())
    ),
    rule!(
        1196,
        "Desglose/DetalleDesglose/CalificacionOperacion",
        "OperacionExenta o CalificacionOperacion no pueden ser ambos informados ya que son excluyentes entre sí",
        |r| r.any_line(|l| l.qualification.is_some() && l.exemption.is_some())
    ),
    rule!(
        1181,
        "Desglose/DetalleDesglose/CalificacionOperacion",
        "El valor del campo CalificacionOperacion es incorrecto",
        |r| r.any_line(|l| l.qualification.is_some() && !l.qualified(&["S1", "S2", "N1", "N2"]))
    ),
    rule!(
        1182,
        "Desglose/DetalleDesglose/OperacionExenta",
        "El valor del campo OperacionExenta es incorrecto (E1 a E6; E7 y E8 solo en IGIC)",
        |r| r.any_line(|l| {
            l.exemption.is_some()
                && !l.exempt(&["E1", "E2", "E3", "E4", "E5", "E6"])
                && !(l.tax == "03" && l.exempt(&["E7", "E8"]))
        })
    ),
    rule!(
        1197,
        "Desglose/DetalleDesglose/CalificacionOperacion",
        "Si CalificacionOperacion es S2 TipoFactura solo puede ser F1, F3, R1, R2, R3 y R4",
        |r| r.any_line(|l| l.qualified(&["S2"]))
            && !r.kind_in(&["F1", "F3", "R1", "R2", "R3", "R4"])
    ),
    rule!(
        1198,
        "Desglose/DetalleDesglose/TipoImpositivo",
        "Si CalificacionOperacion es S2 TipoImpositivo y CuotaRepercutida deberan tener valor 0 (no se admite que vayan vacíos o que no existan)",
        |r| r.any_line(|l| {
            l.qualified(&["S2"]) && !(l.rate == Some(Decimal::ZERO) && l.vat == Some(Decimal::ZERO))
        })
    ),
    rule!(
        1237,
        "Desglose/DetalleDesglose/CalificacionOperacion",
        "El valor del campo CalificacionOperacion está informado como N1 o N2 y el impuesto es IVA. No se puede informar de los campos TipoImpositivo, CuotaRepercutida, TipoRecargoEquivalencia y CuotaRecargoEquivalencia",
        |r| r.any_line(|l| l.vat_tax() && l.qualified(&["N1", "N2"]) && l.has_any_tax_amount())
    ),
    rule!(
        1238,
        "Desglose/DetalleDesglose/OperacionExenta",
        "Si la operacion es exenta no se puede informar ninguno de los campos TipoImpositivo, CuotaRepercutida, TipoRecargoEquivalencia y CuotaRecargoEquivalencia",
        |r| r.any_line(|l| l.exemption.is_some() && l.has_any_tax_amount())
    ),
    rule!(
        1207,
        "Desglose/DetalleDesglose/CuotaRepercutida",
        "La CuotaRepercutida solo podrá ser distinta de 0 si CalificacionOperacion es S1",
        |r| r.any_line(|l| !l.vat_or_zero().is_zero() && !l.qualified(&["S1"]))
    ),
    rule!(
        1208,
        "Desglose/DetalleDesglose/TipoImpositivo",
        "Si CalificacionOperacion es S1 y BaseImponibleACoste no está cumplimentada, TipoImpositivo y CuotaRepercutida son obligatorios",
        |r| r.any_line(|l| {
            l.qualified(&["S1"])
                && l.base_at_cost.is_none()
                && (l.rate.is_none() || l.vat.is_none())
        })
    ),
    rule!(
        1124,
        "Desglose/DetalleDesglose/TipoImpositivo",
        "El valor del campo TipoImpositivo no está incluido en la lista de valores permitidos (IVA: 0, 2, 4, 5, 7,5, 10 y 21)",
        |r| r.any_line(|l| iva_s1(l) && l.rate.is_some_and(|t| !IVA_RATES.contains(&t)))
    ),
    rule!(
        1194,
        "Desglose/DetalleDesglose/TipoImpositivo",
        "El valor del campo TipoImpositivo es incorrecto, el valor informado solo es permitido para FechaOperacion o FechaExpedicionFactura posterior o igual a 1 de julio de 2022 e inferior o igual a 30 de septiembre de 2024",
        |r| r.any_line(|l| iva_s1(l) && l.rate == Some(dec!(5)))
            && outside(r, day(2022, 7, 1), day(2024, 9, 30))
    ),
    rule!(
        1235,
        "Desglose/DetalleDesglose/TipoImpositivo",
        "El valor del campo TipoImpositivo es incorrecto, el valor informado sólo es permitido para FechaOperacion o FechaExpedicionFactura posterior o igual a 1 de octubre de 2024 e inferior o igual a 31 de diciembre de 2024",
        |r| r.any_line(|l| iva_s1(l) && (l.rate == Some(dec!(2)) || l.rate == Some(dec!(7.5))))
            && outside(r, day(2024, 10, 1), day(2024, 12, 31))
    ),
    rule!(
        1206,
        "Desglose/DetalleDesglose/TipoImpositivo",
        "Si ClaveRegimen es 11 TipoImpositivo ha de ser 21%",
        |r| r.any_line(|l| l.regime_is("11") && l.rate != Some(dec!(21)))
    ),
    rule!(
        1142,
        "Desglose/DetalleDesglose/CuotaRepercutida",
        "El campo CuotaRepercutida tiene un valor incorrecto para el valor de los campos BaseImponibleOimporteNoSujeto y TipoImpositivo suministrados (base por tipo, ±1 % de la base y en todo caso ±10 euros)",
        |r| quota_checked(r) && r.any_line(|l| l.qualified(&["S1"]) && quota_off(l))
    ),
    rule!(
        1143,
        "Desglose/DetalleDesglose/CuotaRepercutida",
        "Los campos CuotaRepercutida y BaseImponibleOimporteNoSujeto deben tener el mismo signo",
        |r| r.any_line(|l| opposite_signs(l.vat, l.base))
    ),
    rule!(
        1279,
        "Desglose/DetalleDesglose/TipoRecargoEquivalencia",
        "Si el impuesto es IVA(01) o vacio, solo se podrá informar TipoRecargoEquivalencia y CuotaRecargoEquivalencia si ClaveRegimen es 18",
        |r| r.any_line(|l| {
            l.vat_tax()
                && (l.surcharge_rate.is_some() || l.surcharge.is_some())
                && !l.regime_is("18")
        })
    ),
    rule!(
        1280,
        "Desglose/DetalleDesglose/TipoRecargoEquivalencia",
        "Si el impuesto es IVA(01) o vacio y se asigna ClaveRegimen a 18 es obligatorio informar TipoRecargoEquivalencia y CuotaRecargoEquivalencia",
        |r| r.any_line(|l| {
            l.vat_tax()
                && l.regime_is("18")
                && (l.surcharge_rate.is_none() || l.surcharge.is_none())
        })
    ),
    rule!(
        1281,
        "Desglose/DetalleDesglose/TipoRecargoEquivalencia",
        "Solo se puede cumplimentar TipoRecargoEquivalencia y CuotaRecargoEquivalencia cuando CalificacionOperacion es S1",
        |r| r.any_line(|l| {
            (l.surcharge_rate.is_some() || l.surcharge.is_some()) && !l.qualified(&["S1"])
        })
    ),
    rule!(
        1284,
        "Desglose/DetalleDesglose/CuotaRecargoEquivalencia",
        "Si se ha informado de TipoRecargoEquivalencia tambien se debe informar de CuotaRecargoEquivalencia y viceversa",
        |r| r.any_line(|l| l.surcharge_rate.is_some() != l.surcharge.is_some())
    ),
    rule!(
        1127,
        "Desglose/DetalleDesglose/TipoRecargoEquivalencia",
        "El valor del campo TipoRecargoEquivalencia no está incluido en la lista de valores permitidos",
        |r| r.any_line(|l| l.vat_tax()
            && l.surcharge_rate
                .is_some_and(|s| !SURCHARGE_RATES.contains(&s)))
    ),
    rule!(
        1162,
        "Desglose/DetalleDesglose/TipoRecargoEquivalencia",
        "Si el TipoImpositivo es 21%, sólo se admite TipoRecargoEquivalencia 5,2 ó 1,75",
        |r| r.any_line(|l| surcharge_not(l, dec!(21), &[dec!(5.2), dec!(1.75)]))
    ),
    rule!(
        1163,
        "Desglose/DetalleDesglose/TipoRecargoEquivalencia",
        "Si el TipoImpositivo es 10%, sólo se admite TipoRecargoEquivalencia 1,4",
        |r| r.any_line(|l| surcharge_not(l, dec!(10), &[dec!(1.4)]))
    ),
    rule!(
        1164,
        "Desglose/DetalleDesglose/TipoRecargoEquivalencia",
        "Si el TipoImpositivo es 4%, sólo se admite TipoRecargoEquivalencia 0,5",
        |r| r.any_line(|l| surcharge_not(l, dec!(4), &[dec!(0.5)]))
    ),
    rule!(
        1160,
        "Desglose/DetalleDesglose/TipoRecargoEquivalencia",
        "Si el TipoImpositivo es 5%, sólo se admite TipoRecargoEquivalencia 0,5 o 0,62",
        |r| r.any_line(|l| surcharge_not(l, dec!(5), &[dec!(0.5), dec!(0.62)]))
    ),
    rule!(
        1167,
        "Desglose/DetalleDesglose/TipoRecargoEquivalencia",
        "Si el TipoImpositivo es 5% sólo se admite TipoRecargoEquivalencia 0,5 si Fecha Operacion (Fecha Expedicion Factura si no se informa FechaOperacion) es mayor o igual que el 1 de julio de 2022 y el 31 de diciembre de 2022",
        |r| r.any_line(|l| surcharge_is(l, dec!(5), dec!(0.5)))
            && outside(r, day(2022, 7, 1), day(2022, 12, 31))
    ),
    rule!(
        1168,
        "Desglose/DetalleDesglose/TipoRecargoEquivalencia",
        "Si el TipoImpositivo es 5% sólo se admite TipoRecargoEquivalencia 0,62 si Fecha Operacion (Fecha Expedicion Factura si no se informa FechaOperacion) es mayor o igual que el 1 de enero de 2023 y el 30 de septiembre de 2024",
        |r| r.any_line(|l| surcharge_is(l, dec!(5), dec!(0.62)))
            && outside(r, day(2023, 1, 1), day(2024, 9, 30))
    ),
    rule!(
        1166,
        "Desglose/DetalleDesglose/TipoRecargoEquivalencia",
        "Si el TipoImpositivo es 2% entre el 1 de octubre de 2024 y el 31 de diciembre de 2024, sólo se admite TipoRecargoEquivalencia 0,26",
        |r| r.any_line(|l| surcharge_not(l, dec!(2), &[dec!(0.26)]))
    ),
    rule!(
        1169,
        "Desglose/DetalleDesglose/TipoRecargoEquivalencia",
        "Si el TipoImpositivo es 7,5% entre el 1 de octubre de 2024 y el 31 de diciembre de 2024, sólo se admite TipoRecargoEquivalencia 1",
        |r| r.any_line(|l| surcharge_not(l, dec!(7.5), &[dec!(1)]))
    ),
    rule!(
        1199,
        "Desglose/DetalleDesglose/OperacionExenta",
        "Si Impuesto es '01' (IVA), '03' (IGIC) o no se cumplimenta y ClaveRegimen es 01 no pueden marcarse las OperacionExenta E2, E3",
        |r| r.any_line(|l| l.vat_or_igic() && l.regime_is("01") && l.exempt(&["E2", "E3"]))
    ),
    rule!(
        1286,
        "Desglose/DetalleDesglose/ClaveRegimen",
        "Si el impuesto es IVA(01), IGIC(03) o vacio, si ClaveRegimen es 02 solo se podrá informar OperacionExenta",
        |r| r.any_line(|l| l.vat_or_igic() && l.regime_is("02") && l.exemption.is_none())
    ),
    rule!(
        1200,
        "Desglose/DetalleDesglose/ClaveRegimen",
        "Si ClaveRegimen es 03 CalificacionOperacion sólo puede ser S1",
        |r| r.any_line(|l| l.regime_is("03") && !l.qualified(&["S1"]))
    ),
    rule!(
        1201,
        "Desglose/DetalleDesglose/ClaveRegimen",
        "Si ClaveRegimen es 04 CalificacionOperacion sólo puede ser S2 o bien OperacionExenta",
        |r| r.any_line(|l| l.regime_is("04") && !(l.qualified(&["S2"]) || l.exemption.is_some()))
    ),
    rule!(
        1202,
        "Desglose/DetalleDesglose/ClaveRegimen",
        "Si ClaveRegimen es 06 TipoFactura no puede ser F2, F3, R5 y BaseImponibleACoste debe estar cumplimentado",
        |r| r.any_line(|l| l.regime_is("06"))
            && (r.kind_in(&["F2", "F3", "R5"])
                || r.any_line(|l| l.regime_is("06") && l.base_at_cost.is_none()))
    ),
    rule!(
        1203,
        "Desglose/DetalleDesglose/ClaveRegimen",
        "Si ClaveRegimen es 07 OperacionExenta no puede ser E2, E3, E4 y E5 o CalificacionOperacion no puede ser S2, N1, N2",
        |r| r.any_line(|l| {
            l.regime_is("07")
                && (l.exempt(&["E2", "E3", "E4", "E5"]) || l.qualified(&["S2", "N1", "N2"]))
        })
    ),
    rule!(
        1205,
        "Desglose/DetalleDesglose/ClaveRegimen",
        "Si ClaveRegimen es 10 CalificacionOperacion tiene que ser N1, TipoFactura F1 y Destinatarios estar identificada mediante NIF",
        |r| r.any_line(|l| l.regime_is("10"))
            && (r.any_line(|l| l.regime_is("10") && !l.qualified(&["N1"]))
                || r.kind() != "F1"
                || !r.recipients().iter().any(|d| d.child("NIF").is_some()))
    ),
    rule!(
        1252,
        "Desglose/DetalleDesglose/ClaveRegimen",
        "Si ClaveRegimen es 08 el campo CalificacionOperacion tiene que ser N2 e ir siempre informado",
        |r| r.any_line(|l| l.regime_is("08") && !l.qualified(&["N2"]))
    ),
    rule!(
        1257,
        "Desglose/DetalleDesglose/BaseImponibleACoste",
        "El campo BaseImponibleACoste solo puede estar cumplimentado si la ClaveRegimen es = '06' o Impuesto = '02' (IPSI) o Impuesto = '05' (Otros)",
        |r| r.any_line(|l| {
            l.base_at_cost.is_some() && !l.regime_is("06") && !matches!(l.tax, "02" | "05")
        })
    ),
    rule!(
        1147,
        "FechaOperacion",
        "Si ClaveRegimen es 14, FechaOperacion es obligatoria y debe ser posterior a la FechaExpedicionFactura",
        |r| r.any_line(|l| l.regime_is("14"))
            && r.operation_date()
                .zip(r.issue_date())
                .is_none_or(|(op, issued)| op <= issued)
    ),
    rule!(
        1148,
        "TipoFactura",
        "Si la ClaveRegimen es 14, el campo TipoFactura debe ser F1, R1, R2, R3 o R4",
        |r| r.any_line(|l| l.regime_is("14")) && !r.kind_in(&["F1", "R1", "R2", "R3", "R4"])
    ),
];
