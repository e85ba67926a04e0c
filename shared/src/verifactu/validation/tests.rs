//! Each rule against a record that breaks it and nothing else (the expected
//! codes are the AEAT's, from its list of error codes), and a valid record of
//! every invoice type and line kind that breaks none.

use chrono::NaiveDate;
use rust_decimal::{Decimal, dec};

use super::*;
use crate::invoice::kind::Kind;
use crate::tax::indirect::IndirectTax;
use crate::verifactu::test_support::{at, date, invoice, system};
use crate::verifactu::{
    BreakdownLine, Cancellation, Exemption, PreviousRecord, Qualification, Recipient,
    Rectification, RectificationMethod, RectifiedAmounts, Registration, Simplification, Treatment,
};

const ISSUER: &str = "A39200019";

fn today() -> NaiveDate {
    date(2026, 6, 3)
}

fn line(treatment: Treatment, rate: Option<Decimal>, base: Decimal) -> BreakdownLine {
    let taxed = treatment == Treatment::Qualified(Qualification::S1);
    BreakdownLine {
        tax: IndirectTax::Iva,
        regime: match treatment {
            Treatment::Exempt(Exemption::E2 | Exemption::E3) => "02",
            _ => "01",
        }
        .into(),
        treatment,
        rate,
        base,
        vat: rate.map(|r| if taxed { base * r / dec!(100) } else { r }),
        surcharge_rate: None,
        surcharge: None,
    }
}

fn s1(rate: Decimal, base: Decimal) -> BreakdownLine {
    line(Treatment::Qualified(Qualification::S1), Some(rate), base)
}

fn exempt(e: Exemption, base: Decimal) -> BreakdownLine {
    line(Treatment::Exempt(e), None, base)
}

fn surcharged(rate: Decimal, surcharge: Decimal, base: Decimal) -> BreakdownLine {
    BreakdownLine {
        regime: "18".into(),
        surcharge_rate: Some(surcharge),
        surcharge: Some(base * surcharge / dec!(100)),
        ..s1(rate, base)
    }
}

fn nif(nif: &str) -> Recipient {
    Recipient::Nif {
        name: "Cliente, S.L.".into(),
        nif: nif.into(),
    }
}

fn other(country: &str, id_type: &str, id: &str) -> Recipient {
    Recipient::Foreign {
        name: "Client".into(),
        country: country.into(),
        id_type: id_type.into(),
        id: id.into(),
    }
}

/// An F1 of 02-06-2026: 100 at 21 %, 50 at 10 %, 30 exempt (E1).
fn base() -> Registration {
    Registration {
        invoice: invoice(ISSUER, "F-1", date(2026, 6, 2)),
        issuer_name: "Emisor, S.A.".into(),
        correction: None,
        kind: Kind::F1,
        rectification: None,
        simplification: Simplification::default(),
        operation_date: None,
        description: "Servicios".into(),
        recipients: vec![nif("12345678Z"), other("FR", "02", "FR40303265045")],
        breakdown: vec![
            s1(dec!(21), dec!(100)),
            s1(dec!(10), dec!(50)),
            exempt(Exemption::E1, dec!(30)),
        ],
        total_vat: dec!(26),
        total: dec!(206),
        previous: Some(PreviousRecord {
            invoice: invoice(ISSUER, "F-0", date(2026, 6, 1)),
            hash: "A".repeat(64),
        }),
        system: system("Productor, S.L.", "B64717838"),
        generated_at: at("2026-06-02T11:22:33+02:00"),
    }
}

/// The registration with its totals summed from its lines.
fn with_lines(registration: Registration, lines: Vec<BreakdownLine>) -> Registration {
    let vat: Decimal = lines
        .iter()
        .map(|l| l.vat.unwrap_or_default() + l.surcharge.unwrap_or_default())
        .sum();
    let bases: Decimal = lines.iter().map(|l| l.base).sum();
    Registration {
        breakdown: lines,
        total_vat: vat,
        total: bases + vat,
        ..registration
    }
}

fn lines(lines: Vec<BreakdownLine>) -> Registration {
    with_lines(base(), lines)
}

fn rectifying(kind: Kind, method: RectificationMethod) -> Registration {
    let registration = Registration {
        kind,
        rectification: Some(Rectification {
            method,
            rectified: vec![invoice(ISSUER, "F-0", date(2026, 6, 1))],
            rectified_amounts: (method == RectificationMethod::Substitution).then_some(
                RectifiedAmounts {
                    base: dec!(100),
                    vat: dec!(21),
                    surcharge: None,
                },
            ),
        }),
        ..base()
    };
    match method {
        RectificationMethod::Differences => {
            with_lines(registration, vec![s1(dec!(21), dec!(-100))])
        }
        RectificationMethod::Substitution => registration,
    }
}

fn simplified(kind: Kind) -> Registration {
    Registration {
        kind,
        recipients: Vec::new(),
        ..base()
    }
}

fn codes_on(xml: &str, today: NaiveDate) -> Vec<u32> {
    let (_, element) = crate::xml_tree::parse(xml).expect("well-formed");
    violations(&element, today)
        .into_iter()
        .map(|v| v.code)
        .collect()
}

fn codes(registration: &Registration) -> Vec<u32> {
    codes_on(&registration.build().xml, today())
}

/// The record's XML with each `(from, to)` replaced once.
fn edited(registration: &Registration, edits: &[(&str, &str)]) -> String {
    let mut xml = registration.build().xml;
    for (from, to) in edits {
        assert!(xml.contains(from), "{from} in {xml}");
        xml = xml.replacen(from, to, 1);
    }
    xml
}

fn edit_codes(registration: &Registration, edits: &[(&str, &str)]) -> Vec<u32> {
    codes_on(&edited(registration, edits), today())
}

const BEFORE_KIND: &str = "<sf:TipoFactura>";
const BEFORE_DESCRIPTION: &str = "<sf:DescripcionOperacion>";
const BEFORE_RECIPIENTS: &str = "<sf:Destinatarios>";
const BEFORE_BREAKDOWN: &str = "<sf:Desglose>";

fn insert_before(anchor: &'static str, element: &str) -> (&'static str, String) {
    (anchor, format!("{element}{anchor}"))
}

#[test]
fn a_valid_record_of_every_type_and_line_kind_breaks_no_rule() {
    let every_line = vec![
        s1(dec!(21), dec!(100)),
        s1(dec!(4), dec!(10)),
        surcharged(dec!(21), dec!(5.2), dec!(100)),
        surcharged(dec!(10), dec!(1.4), dec!(100)),
        surcharged(dec!(4), dec!(0.5), dec!(100)),
        line(
            Treatment::Qualified(Qualification::S2),
            Some(dec!(0)),
            dec!(100),
        ),
        line(Treatment::Qualified(Qualification::N1), None, dec!(10)),
        line(Treatment::Qualified(Qualification::N2), None, dec!(10)),
        exempt(Exemption::E1, dec!(10)),
        exempt(Exemption::E2, dec!(10)),
        exempt(Exemption::E3, dec!(10)),
        exempt(Exemption::E4, dec!(10)),
        exempt(Exemption::E5, dec!(10)),
        exempt(Exemption::E6, dec!(10)),
    ];
    let f3 = Registration {
        kind: Kind::F3,
        simplification: Simplification {
            replaced: vec![invoice(ISSUER, "T-1", date(2026, 6, 1))],
            ..Simplification::default()
        },
        ..base()
    };
    let r3 = Registration {
        recipients: vec![nif("12345678Z"), other("ES", "07", "12345678Z")],
        ..rectifying(Kind::R3, RectificationMethod::Differences)
    };
    let records = [
        base(),
        lines(every_line),
        Registration {
            operation_date: Some(date(2026, 5, 28)),
            ..base()
        },
        Registration {
            previous: None,
            ..base()
        },
        simplified(Kind::F2),
        Registration {
            simplification: Simplification {
                without_recipient: true,
                ..Simplification::default()
            },
            ..with_lines(simplified(Kind::F2), vec![s1(dec!(21), dec!(5000))])
        },
        f3,
        rectifying(Kind::R1, RectificationMethod::Differences),
        rectifying(Kind::R2, RectificationMethod::Substitution),
        r3,
        rectifying(Kind::R4, RectificationMethod::Substitution),
        Registration {
            recipients: Vec::new(),
            ..rectifying(Kind::R5, RectificationMethod::Differences)
        },
        with_lines(
            Registration {
                operation_date: Some(date(2024, 11, 15)),
                ..base()
            },
            vec![
                s1(dec!(2), dec!(100)),
                surcharged(dec!(7.5), dec!(1), dec!(100)),
            ],
        ),
    ];
    for record in &records {
        assert_eq!(codes(record), [0u32; 0], "{}", record.build().xml);
    }
}

#[test]
fn d8_an_s2_line_needs_tipo_impositivo_and_cuota_0() {
    let without = lines(vec![line(
        Treatment::Qualified(Qualification::S2),
        None,
        dec!(100),
    )]);
    assert_eq!(codes(&without), [1198]);
    let taxed = BreakdownLine {
        rate: Some(dec!(21)),
        ..line(
            Treatment::Qualified(Qualification::S2),
            Some(dec!(0)),
            dec!(100),
        )
    };
    assert_eq!(codes(&lines(vec![taxed])), [1198]);
    let f2 = with_lines(
        simplified(Kind::F2),
        vec![line(
            Treatment::Qualified(Qualification::S2),
            Some(dec!(0)),
            dec!(100),
        )],
    );
    assert_eq!(codes(&f2), [1197]);
}

#[test]
fn each_identity_chaining_and_system_rule_has_its_code() {
    let b = base();
    let long = format!("<sf:NumSerieFactura>{}<", "N".repeat(61));
    let hash = b.build().hash;
    let own = format!("<sf:TipoHuella>01</sf:TipoHuella><sf:Huella>{hash}<");
    let previous_hash = "A".repeat(64);
    let cases: Vec<(u32, Vec<(&str, String)>)> = vec![
        (1251, vec![("<sf:IDVersion>1.0<", "<sf:IDVersion>2.0<".into())]),
        (1219, vec![("<sf:IDEmisorFactura>A39200019</sf:IDEmisorFactura><sf:NumSerieFactura>F-1", "<sf:IDEmisorFactura>A39200010</sf:IDEmisorFactura><sf:NumSerieFactura>F-1".into())]),
        (1104, vec![("<sf:NumSerieFactura>F-1<", long.clone())]),
        (1130, vec![("<sf:NumSerieFactura>F-1<", "<sf:NumSerieFactura>F=1<".into())]),
        (1105, vec![("<sf:FechaExpedicionFactura>02-06-2026<", "<sf:FechaExpedicionFactura>2026-06-02<".into())]),
        (1247, vec![("<sf:TipoHuella>01<", "<sf:TipoHuella>02<".into())]),
        (1262, vec![(own.as_str(), format!("<sf:TipoHuella>01</sf:TipoHuella><sf:Huella>{}<", hash.to_lowercase()))]),
        (1244, vec![("<sf:FechaHoraHusoGenRegistro>2026-06-02T11:22:33+02:00<", "<sf:FechaHoraHusoGenRegistro>2026-06-02T09:22:33Z<".into())]),
        (1180, vec![("<sf:Encadenamiento><sf:RegistroAnterior>", "<sf:Encadenamiento><sf:PrimerRegistro>S</sf:PrimerRegistro><sf:RegistroAnterior>".into())]),
        (1269, vec![("<sf:RegistroAnterior><sf:IDEmisorFactura>A39200019<", "<sf:RegistroAnterior><sf:IDEmisorFactura>A39200010<".into())]),
        (1175, vec![("<sf:NumSerieFactura>F-0<", long.clone())]),
        (1174, vec![("<sf:FechaExpedicionFactura>01-06-2026<", "<sf:FechaExpedicionFactura>2026-06-01<".into())]),
        (2002, vec![(previous_hash.as_str(), "A".repeat(63))]),
        (2003, vec![(previous_hash.as_str(), "G".repeat(64))]),
        (1278, vec![(own.as_str(), format!("<sf:TipoHuella>01</sf:TipoHuella><sf:Huella>{}<", "A".repeat(64)))]),
        (1223, vec![("<sf:NombreSistemaInformatico>", "<sf:IDOtro><sf:IDType>02</sf:IDType><sf:ID>X</sf:ID></sf:IDOtro><sf:NombreSistemaInformatico>".into())]),
        (1176, vec![("<sf:NIF>B64717838<", "<sf:NIF>B64717839<".into())]),
        (1177, vec![("<sf:IdSistemaInformatico>TS<", "<sf:IdSistemaInformatico>TSX<".into())]),
        (1220, vec![("<sf:NombreSistemaInformatico>Test SIF<", format!("<sf:NombreSistemaInformatico>{}<", "S".repeat(31)))]),
        (1212, vec![("<sf:TipoUsoPosibleSoloVerifactu>S<", "<sf:TipoUsoPosibleSoloVerifactu>X<".into())]),
        (1213, vec![("<sf:TipoUsoPosibleMultiOT>N<", "<sf:TipoUsoPosibleMultiOT>X<".into())]),
        (1226, vec![("<sf:IndicadorMultiplesOT>N<", "<sf:IndicadorMultiplesOT>X<".into())]),
    ];
    for (code, edits) in cases {
        let edits: Vec<(&str, &str)> = edits.iter().map(|(f, t)| (*f, t.as_str())).collect();
        assert_eq!(edit_codes(&b, &edits), [code], "rule {code}");
    }
    let first = Registration {
        previous: None,
        ..base()
    };
    assert_eq!(
        edit_codes(
            &first,
            &[("<sf:PrimerRegistro>S<", "<sf:PrimerRegistro>N<")]
        ),
        [1274]
    );
}

/// A rule's code, the record and the edits that break it.
type EditCase<'a> = (u32, &'a Registration, Vec<(&'static str, String)>);

#[test]
fn each_type_flag_and_date_rule_has_its_code() {
    let f1 = base();
    let r1 = rectifying(Kind::R1, RectificationMethod::Differences);
    let r2 = rectifying(Kind::R2, RectificationMethod::Substitution);
    let f2 = simplified(Kind::F2);
    let f1_kind = "<sf:TipoFactura>F1</sf:TipoFactura>";
    let ref_externa = format!("<sf:RefExterna>{}</sf:RefExterna>", "R".repeat(61));
    let cases: Vec<EditCase> = vec![
        (
            1106,
            &f1,
            vec![(f1_kind, "<sf:TipoFactura>F4</sf:TipoFactura>".into())],
        ),
        (
            1107,
            &r1,
            vec![(
                "<sf:TipoRectificativa>I<",
                "<sf:TipoRectificativa>X<".into(),
            )],
        ),
        (
            1114,
            &r1,
            vec![(
                "<sf:TipoRectificativa>I</sf:TipoRectificativa>",
                String::new(),
            )],
        ),
        (
            1115,
            &f1,
            vec![(
                f1_kind,
                format!("{f1_kind}<sf:TipoRectificativa>I</sf:TipoRectificativa>"),
            )],
        ),
        (
            1116,
            &f1,
            vec![insert_before(
                BEFORE_DESCRIPTION,
                "<sf:FacturasSustituidas/>",
            )],
        ),
        (
            1117,
            &f1,
            vec![insert_before(
                BEFORE_DESCRIPTION,
                "<sf:FacturasRectificadas/>",
            )],
        ),
        (
            1118,
            &r2,
            vec![(
                "<sf:ImporteRectificacion><sf:BaseRectificada>100.00</sf:BaseRectificada><sf:CuotaRectificada>21.00</sf:CuotaRectificada></sf:ImporteRectificacion>",
                String::new(),
            )],
        ),
        (
            1119,
            &r1,
            vec![insert_before(
                BEFORE_DESCRIPTION,
                "<sf:ImporteRectificacion/>",
            )],
        ),
        (
            1171,
            &f1,
            vec![insert_before(
                BEFORE_KIND,
                "<sf:Subsanacion>X</sf:Subsanacion>",
            )],
        ),
        (
            1153,
            &f1,
            vec![insert_before(
                BEFORE_KIND,
                "<sf:RechazoPrevio>X</sf:RechazoPrevio>",
            )],
        ),
        (
            1161,
            &f1,
            vec![insert_before(
                BEFORE_KIND,
                "<sf:RechazoPrevio>S</sf:RechazoPrevio>",
            )],
        ),
        (
            1136,
            &f1,
            vec![insert_before(
                BEFORE_RECIPIENTS,
                "<sf:FacturaSimplificadaArt7273>X</sf:FacturaSimplificadaArt7273>",
            )],
        ),
        (
            1183,
            &f2,
            vec![insert_before(
                BEFORE_BREAKDOWN,
                "<sf:FacturaSimplificadaArt7273>S</sf:FacturaSimplificadaArt7273>",
            )],
        ),
        (
            1184,
            &f1,
            vec![insert_before(
                BEFORE_RECIPIENTS,
                "<sf:FacturaSinIdentifDestinatarioArt61d>X</sf:FacturaSinIdentifDestinatarioArt61d>",
            )],
        ),
        (
            1185,
            &f1,
            vec![insert_before(
                BEFORE_RECIPIENTS,
                "<sf:FacturaSinIdentifDestinatarioArt61d>S</sf:FacturaSinIdentifDestinatarioArt61d>",
            )],
        ),
        (
            1137,
            &f1,
            vec![insert_before(
                BEFORE_RECIPIENTS,
                "<sf:Macrodato>X</sf:Macrodato>",
            )],
        ),
        (
            1138,
            &f1,
            vec![insert_before(
                BEFORE_RECIPIENTS,
                "<sf:Macrodato>S</sf:Macrodato>",
            )],
        ),
        (
            1151,
            &f1,
            vec![insert_before(
                BEFORE_RECIPIENTS,
                "<sf:EmitidaPorTerceroODestinatario>X</sf:EmitidaPorTerceroODestinatario>",
            )],
        ),
        (
            1186,
            &f1,
            vec![insert_before(
                BEFORE_RECIPIENTS,
                "<sf:EmitidaPorTerceroODestinatario>T</sf:EmitidaPorTerceroODestinatario>",
            )],
        ),
        (
            1187,
            &f1,
            vec![insert_before(BEFORE_RECIPIENTS, "<sf:Tercero/>")],
        ),
        (
            1157,
            &f1,
            vec![insert_before(BEFORE_BREAKDOWN, "<sf:Cupon>S</sf:Cupon>")],
        ),
        (
            1253,
            &f1,
            vec![(
                "<sf:NombreRazonEmisor>",
                format!("{ref_externa}<sf:NombreRazonEmisor>"),
            )],
        ),
        (
            1145,
            &f1,
            vec![insert_before(
                BEFORE_DESCRIPTION,
                "<sf:FechaOperacion>2026-06-01</sf:FechaOperacion>",
            )],
        ),
        (
            2005,
            &f1,
            vec![(
                "<sf:ImporteTotal>206.00<",
                "<sf:ImporteTotal>226.00<".into(),
            )],
        ),
        (
            2006,
            &f1,
            vec![("<sf:CuotaTotal>26.00<", "<sf:CuotaTotal>46.00<".into())],
        ),
    ];
    for (code, record, edits) in cases {
        let edits: Vec<(&str, &str)> = edits.iter().map(|(f, t)| (*f, t.as_str())).collect();
        assert_eq!(edit_codes(record, &edits), [code], "rule {code}");
    }
    let huge = lines(vec![s1(dec!(21), dec!(100000000))]);
    assert_eq!(codes(&huge), [1139]);
    assert_eq!(
        codes(&Registration {
            recipients: Vec::new(),
            ..base()
        }),
        [1189]
    );
    assert_eq!(
        codes(&Registration {
            recipients: vec![nif("12345678Z")],
            ..simplified(Kind::F2)
        }),
        [1190]
    );
    let ticket = with_lines(simplified(Kind::F2), vec![s1(dec!(21), dec!(2500))]);
    assert_eq!(codes(&ticket), [1150], "3,025 € over 3,000 € and 10 €");
    let built = base().build().xml;
    assert_eq!(codes_on(&built, date(2026, 6, 1)), [1112]);
    assert_eq!(codes_on(&built, date(2046, 6, 3)), [1133]);
    let early = Registration {
        invoice: invoice(ISSUER, "F-1", date(2024, 10, 27)),
        previous: None,
        ..base()
    };
    assert_eq!(codes(&early), [1152]);
    let operated = |day| Registration {
        operation_date: Some(day),
        ..base()
    };
    assert_eq!(codes(&operated(date(2006, 1, 1))), [1134]);
    assert_eq!(codes(&operated(date(2026, 6, 3))), [1146]);
    assert_eq!(
        codes(&operated(date(2026, 6, 10))),
        [1173, 1146],
        "an operation after today is also after the issue date"
    );
}

#[test]
fn each_recipient_rule_has_its_code() {
    let with = |recipient: Recipient| Registration {
        recipients: vec![nif("12345678Z"), recipient],
        ..base()
    };
    let cases = [
        (1123, with(nif("12345678A"))),
        (1193, with(nif(ISSUER))),
        (1102, with(other("FR", "08", "FR40303265045"))),
        (1101, with(other("USA", "04", "123"))),
        (1111, with(other("", "04", "123"))),
        (1122, with(other("FR", "02", "DE123456789"))),
        (1126, with(other("ES", "04", "123"))),
        (1131, with(other("ES", "07", "B64717838"))),
        (1255, with(other("GB", "02", "GB123456789"))),
        (
            1191,
            Registration {
                recipients: vec![other("FR", "02", "FR40303265045")],
                ..rectifying(Kind::R3, RectificationMethod::Differences)
            },
        ),
        (
            1192,
            Registration {
                recipients: vec![other("US", "04", "123")],
                ..rectifying(Kind::R2, RectificationMethod::Substitution)
            },
        ),
    ];
    for (code, record) in cases {
        assert_eq!(codes(&record), [code], "rule {code}");
    }
    let greek = with(other("GR", "02", "EL123456789"));
    assert_eq!(codes(&greek), [0u32; 0], "Greece's VAT numbers start EL");
}

fn regime(code: &str, l: BreakdownLine) -> BreakdownLine {
    BreakdownLine {
        regime: code.into(),
        ..l
    }
}

fn igic(l: BreakdownLine) -> BreakdownLine {
    BreakdownLine {
        tax: IndirectTax::Igic,
        ..l
    }
}

#[test]
fn each_line_rule_has_its_code() {
    let n1 = || line(Treatment::Qualified(Qualification::N1), None, dec!(10));
    let s2 = || {
        line(
            Treatment::Qualified(Qualification::S2),
            Some(dec!(0)),
            dec!(100),
        )
    };
    let on = |day: NaiveDate, l: Vec<BreakdownLine>| {
        with_lines(
            Registration {
                operation_date: Some(day),
                ..base()
            },
            l,
        )
    };
    let autumn_2024 = date(2024, 11, 1);
    let cases: Vec<(u32, Registration)> = vec![
        (
            1237,
            lines(vec![BreakdownLine {
                rate: Some(dec!(0)),
                ..n1()
            }]),
        ),
        (
            1238,
            lines(vec![BreakdownLine {
                rate: Some(dec!(0)),
                ..exempt(Exemption::E1, dec!(10))
            }]),
        ),
        (
            1207,
            lines(vec![
                igic(s1(dec!(7), dec!(100))),
                igic(BreakdownLine {
                    vat: Some(dec!(1)),
                    ..n1()
                }),
            ]),
        ),
        (1124, lines(vec![s1(dec!(22), dec!(100))])),
        (1194, lines(vec![s1(dec!(5), dec!(100))])),
        (1235, lines(vec![s1(dec!(2), dec!(100))])),
        (1206, lines(vec![regime("11", s1(dec!(10), dec!(100)))])),
        (
            1279,
            lines(vec![BreakdownLine {
                regime: "01".into(),
                ..surcharged(dec!(21), dec!(5.2), dec!(100))
            }]),
        ),
        (1280, lines(vec![regime("18", s1(dec!(21), dec!(100)))])),
        (
            1281,
            lines(vec![BreakdownLine {
                regime: "18".into(),
                surcharge_rate: Some(dec!(5.2)),
                surcharge: Some(dec!(5.2)),
                ..s2()
            }]),
        ),
        (
            1284,
            lines(vec![igic(BreakdownLine {
                surcharge_rate: Some(dec!(5.2)),
                ..s1(dec!(7), dec!(100))
            })]),
        ),
        (1127, lines(vec![surcharged(dec!(0), dec!(3), dec!(100))])),
        (
            1162,
            lines(vec![surcharged(dec!(21), dec!(1.4), dec!(100))]),
        ),
        (
            1163,
            lines(vec![surcharged(dec!(10), dec!(5.2), dec!(100))]),
        ),
        (1164, lines(vec![surcharged(dec!(4), dec!(1.4), dec!(100))])),
        (
            1160,
            on(
                date(2024, 9, 15),
                vec![surcharged(dec!(5), dec!(1.4), dec!(100))],
            ),
        ),
        (
            1167,
            on(
                date(2023, 6, 1),
                vec![surcharged(dec!(5), dec!(0.5), dec!(100))],
            ),
        ),
        (
            1168,
            on(
                date(2022, 8, 1),
                vec![surcharged(dec!(5), dec!(0.62), dec!(100))],
            ),
        ),
        (
            1166,
            on(autumn_2024, vec![surcharged(dec!(2), dec!(0.5), dec!(100))]),
        ),
        (
            1169,
            on(
                autumn_2024,
                vec![surcharged(dec!(7.5), dec!(0.5), dec!(100))],
            ),
        ),
        (
            1199,
            lines(vec![regime("01", exempt(Exemption::E2, dec!(10)))]),
        ),
        (1286, lines(vec![regime("02", s1(dec!(21), dec!(100)))])),
        (1200, lines(vec![regime("03", n1())])),
        (1201, lines(vec![regime("04", s1(dec!(21), dec!(100)))])),
        (1202, lines(vec![regime("06", s1(dec!(21), dec!(100)))])),
        (
            1203,
            lines(vec![regime("07", exempt(Exemption::E2, dec!(10)))]),
        ),
        (1205, lines(vec![regime("10", s1(dec!(21), dec!(100)))])),
        (1252, lines(vec![regime("08", s1(dec!(21), dec!(100)))])),
        (1147, lines(vec![regime("14", s1(dec!(21), dec!(100)))])),
        (
            1148,
            with_lines(
                Registration {
                    kind: Kind::F3,
                    operation_date: Some(date(2026, 6, 20)),
                    ..base()
                },
                vec![regime("14", s1(dec!(21), dec!(100)))],
            ),
        ),
    ];
    for (code, record) in cases {
        assert_eq!(
            codes(&record),
            [code],
            "rule {code}: {}",
            record.build().xml
        );
    }
    let b = base();
    let first_line = "<sf:ClaveRegimen>01</sf:ClaveRegimen><sf:CalificacionOperacion>S1</sf:CalificacionOperacion><sf:TipoImpositivo>21.00<";
    let ten = "<sf:ClaveRegimen>01</sf:ClaveRegimen><sf:CalificacionOperacion>S1</sf:CalificacionOperacion><sf:TipoImpositivo>10.00<";
    let e1 = "<sf:OperacionExenta>E1</sf:OperacionExenta>";
    let edits: Vec<(u32, Vec<(&str, &str)>)> = vec![
        (1218, vec![("<sf:Impuesto>01<", "<sf:Impuesto>04<")]),
        (1246, vec![("<sf:ClaveRegimen>01<", "<sf:ClaveRegimen>12<")]),
        (1245, vec![("<sf:ClaveRegimen>01</sf:ClaveRegimen>", "")]),
        (1195, vec![(e1, "")]),
        (
            1196,
            vec![(
                e1,
                "<sf:CalificacionOperacion>N1</sf:CalificacionOperacion><sf:OperacionExenta>E1</sf:OperacionExenta>",
            )],
        ),
        (
            1181,
            vec![(
                e1,
                "<sf:CalificacionOperacion>N3</sf:CalificacionOperacion>",
            )],
        ),
        (
            1182,
            vec![(e1, "<sf:OperacionExenta>E9</sf:OperacionExenta>")],
        ),
        (
            1208,
            vec![("<sf:CuotaRepercutida>5.00</sf:CuotaRepercutida>", "")],
        ),
        (
            1142,
            vec![
                ("<sf:CuotaRepercutida>21.00<", "<sf:CuotaRepercutida>35.00<"),
                ("<sf:CuotaTotal>26.00<", "<sf:CuotaTotal>40.00<"),
                ("<sf:ImporteTotal>206.00<", "<sf:ImporteTotal>220.00<"),
            ],
        ),
        (
            1143,
            vec![
                (
                    first_line,
                    "<sf:ClaveRegimen>01</sf:ClaveRegimen><sf:CalificacionOperacion>S1</sf:CalificacionOperacion><sf:TipoImpositivo>0.00<",
                ),
                ("<sf:CuotaRepercutida>21.00<", "<sf:CuotaRepercutida>-0.50<"),
                ("<sf:CuotaTotal>26.00<", "<sf:CuotaTotal>4.50<"),
                ("<sf:ImporteTotal>206.00<", "<sf:ImporteTotal>184.50<"),
            ],
        ),
        (
            1206,
            vec![(
                ten,
                "<sf:ClaveRegimen>11</sf:ClaveRegimen><sf:CalificacionOperacion>S1</sf:CalificacionOperacion><sf:TipoImpositivo>10.00<",
            )],
        ),
        (
            1257,
            vec![(
                "<sf:BaseImponibleOimporteNoSujeto>100.00</sf:BaseImponibleOimporteNoSujeto>",
                "<sf:BaseImponibleOimporteNoSujeto>100.00</sf:BaseImponibleOimporteNoSujeto><sf:BaseImponibleACoste>10.00</sf:BaseImponibleACoste>",
            )],
        ),
    ];
    for (code, edits) in edits {
        assert_eq!(edit_codes(&b, &edits), [code], "rule {code}");
    }
}

fn cancellation() -> Cancellation {
    Cancellation {
        invoice: invoice(ISSUER, "F-1", date(2026, 6, 2)),
        without_registration: false,
        after_rejection: false,
        previous: base().previous,
        system: base().system,
        generated_at: at("2026-06-03T09:00:00+02:00"),
    }
}

#[test]
fn each_cancellation_rule_has_its_code() {
    let xml = cancellation().build().xml;
    assert_eq!(codes_on(&xml, today()), [0u32; 0]);
    let flagged = Cancellation {
        without_registration: true,
        after_rejection: true,
        ..cancellation()
    }
    .build()
    .xml;
    assert_eq!(codes_on(&flagged, today()), [0u32; 0]);
    let id = "<sf:IDEmisorFacturaAnulada>A39200019<";
    let encadenamiento = "<sf:Encadenamiento>";
    for (code, from, to) in [
        (1219, id, "<sf:IDEmisorFacturaAnulada>A3920001<".to_string()),
        (
            1276,
            "<sf:SinRegistroPrevio>S<",
            "<sf:SinRegistroPrevio>X<".into(),
        ),
        (1275, "<sf:RechazoPrevio>S<", "<sf:RechazoPrevio>X<".into()),
        (
            1225,
            encadenamiento,
            format!("<sf:GeneradoPor>X</sf:GeneradoPor><sf:Generador/>{encadenamiento}"),
        ),
        (
            1224,
            encadenamiento,
            format!("<sf:GeneradoPor>E</sf:GeneradoPor>{encadenamiento}"),
        ),
    ] {
        assert!(flagged.contains(from), "{from}");
        assert_eq!(
            codes_on(&flagged.replacen(from, &to, 1), today()),
            [code],
            "rule {code}"
        );
    }
}

#[test]
fn a_violation_names_its_rule_and_the_first_rejecting_one_comes_first() {
    let xml = edited(
        &base(),
        &[
            ("<sf:CuotaTotal>26.00<", "<sf:CuotaTotal>46.00<"),
            ("<sf:IDVersion>1.0<", "<sf:IDVersion>2.0<"),
        ],
    );
    let (_, element) = crate::xml_tree::parse(&xml).unwrap();
    let v = first(&element, today()).unwrap();
    assert_eq!(
        (v.code, v.api_code, v.element),
        (1251, "aeat_rule_1251", "IDVersion")
    );
    assert!(v.message.contains("AEAT rule 1251"), "{}", v.message);
    let only_totals = edited(
        &base(),
        &[("<sf:CuotaTotal>26.00<", "<sf:CuotaTotal>46.00<")],
    );
    let v = first_of_xml(&only_totals, today()).unwrap();
    assert!(v.accepted_with_errors() && v.code == 2006);
}
