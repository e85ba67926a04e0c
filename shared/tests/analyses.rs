//! The analyses engine end to end: golden reports (es and en) for every
//! module, compare, folder and the cuestionario under
//! `tests/golden/analyses/` (rewritten with `UPDATE_GOLDEN=1`); every number
//! the texts show is a key figure; the same request gives the same bytes;
//! JSON bodies through `parse`; test-key samples keep the request's shape;
//! missing columns give a report that says what to add.

use std::path::Path;

use chrono::NaiveDate;
use rust_decimal::Decimal;
use shared::analyses::request::{Kind, Lang, Module, Request, Sheet};
use shared::analyses::{Analysis, AnalysisType, analyze, parse, sample};

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/analyses");

fn as_of() -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 1, 15).unwrap()
}

fn shell(kind: Kind, lang: Lang) -> Request {
    Request {
        kind,
        lang,
        title: None,
    }
}

/// Every analysis type and module, in both languages, on the built-in sample.
fn sample_cases() -> Vec<(String, Analysis)> {
    let mut cases = Vec::new();
    for lang in [Lang::Es, Lang::En] {
        let code = if lang == Lang::Es { "es" } else { "en" };
        for module in Module::ALL {
            let request = shell(
                Kind::Excel {
                    module,
                    files: vec![],
                },
                lang,
            );
            cases.push((
                format!("{}_{code}", module.as_str()),
                sample(&request, as_of()),
            ));
        }
        let compare = shell(
            Kind::Compare {
                module: Module::Ventas,
                a: vec![],
                b: vec![],
            },
            lang,
        );
        cases.push((format!("compare_ventas_{code}"), sample(&compare, as_of())));
        let folder = shell(Kind::Folder { files: vec![] }, lang);
        cases.push((format!("folder_{code}"), sample(&folder, as_of())));
        let cuestionario = shell(
            Kind::Cuestionario {
                answers: Default::default(),
            },
            lang,
        );
        cases.push((
            format!("cuestionario_{code}"),
            sample(&cuestionario, as_of()),
        ));
    }
    cases
}

/// More shapes: other seeds, cut sheets, compare of every module.
fn other_cases() -> Vec<Analysis> {
    let mut out = Vec::new();
    for lang in [Lang::Es, Lang::En] {
        for (i, module) in Module::ALL.into_iter().enumerate() {
            let mut sheet = sample::sheet(module, 300 + 37 * i, 99 + i as u64, 2025);
            sheet.total_rows = Some(5_000);
            let request = shell(
                Kind::Excel {
                    module,
                    files: vec![sheet],
                },
                lang,
            );
            out.push(analyze(&request, as_of()).unwrap());
            let compare = shell(
                Kind::Compare {
                    module,
                    a: vec![sample::sheet(module, 200, 5, 2024)],
                    b: vec![sample::sheet(module, 150, 6, 2025)],
                },
                lang,
            );
            out.push(analyze(&compare, as_of()).unwrap());
        }
    }
    out
}

fn golden(name: &str, text: &str) {
    let path = Path::new(GOLDEN).join(format!("{name}.json"));
    if std::env::var("UPDATE_GOLDEN").as_deref() == Ok("1") {
        std::fs::create_dir_all(GOLDEN).expect("the golden folder is created");
        std::fs::write(&path, text).expect("the golden file is written");
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{} is missing: run with UPDATE_GOLDEN=1", path.display()));
    assert_eq!(
        text,
        expected,
        "{name}: the report differs from {} (UPDATE_GOLDEN=1 rewrites it)",
        path.display()
    );
}

#[test]
fn golden_reports() {
    for (name, analysis) in sample_cases() {
        let mut text = serde_json::to_string_pretty(&analysis).unwrap();
        text.push('\n');
        golden(&name, &text);
    }
}

const MONTHS: [&str; 24] = [
    "ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sep", "oct", "nov", "dic", "Jan",
    "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// The text without «quoted names» and "ene 2025"-style months.
fn strip(text: &str) -> String {
    let mut out = String::new();
    let mut depth = 0;
    for c in text.chars() {
        match c {
            '«' => depth += 1,
            '»' => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    let words: Vec<&str> = out.split(' ').collect();
    let mut kept = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let year = words
            .get(i + 1)
            .map(|w| w.trim_end_matches(['.', ',', ':', ';', ')']));
        if MONTHS.contains(&words[i])
            && year.is_some_and(|y| y.len() == 4 && y.bytes().all(|b| b.is_ascii_digit()))
        {
            i += 2;
            continue;
        }
        kept.push(words[i]);
        i += 1;
    }
    kept.join(" ")
}

/// Numbers as the language writes them ("1.234,56" / "1,234.56").
fn numbers(text: &str, lang: Lang) -> Vec<Decimal> {
    let (group, decimal) = if lang == Lang::Es {
        ('.', ',')
    } else {
        (',', '.')
    };
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let starts = chars[i].is_ascii_digit() && (i == 0 || !chars[i - 1].is_alphanumeric());
        if !starts {
            i += 1;
            continue;
        }
        let mut s = String::new();
        while i < chars.len() {
            let c = chars[i];
            let joins =
                (c == group || c == decimal) && chars.get(i + 1).is_some_and(char::is_ascii_digit);
            if c.is_ascii_digit() {
                s.push(c);
            } else if joins && c == decimal {
                s.push('.');
            } else if !joins {
                break;
            }
            i += 1;
        }
        out.push(s.parse::<Decimal>().unwrap());
    }
    out
}

fn check_figures(analysis: &Analysis, context: &str) {
    let figures: Vec<Decimal> = analysis
        .report
        .key_figures
        .iter()
        .map(|f| f.value.abs())
        .collect();
    let mut texts = vec![analysis.report.summary.clone()];
    texts.extend(analysis.report.strengths.iter().map(|s| s.text.clone()));
    texts.extend(analysis.report.priorities.iter().map(|p| p.text.clone()));
    for text in texts {
        for n in numbers(&strip(&text), analysis.lang) {
            assert!(
                figures.contains(&n),
                "{context}: {n} in {text:?} is not a key figure ({figures:?})"
            );
        }
    }
}

#[test]
fn every_number_in_the_texts_is_a_key_figure() {
    for (name, analysis) in sample_cases() {
        check_figures(&analysis, &name);
        assert!(!analysis.report.summary.is_empty(), "{name}");
    }
    for (i, analysis) in other_cases().iter().enumerate() {
        check_figures(analysis, &format!("case {i}"));
    }
}

#[test]
fn the_scan_itself_finds_numbers() {
    assert_eq!(
        numbers(
            &strip("Ventas de 1.234,56 € en «Bar 24» y 42,5 %, ene 2025 – dic 2025."),
            Lang::Es
        ),
        [Decimal::new(123456, 2), Decimal::new(425, 1)]
    );
    assert_eq!(
        numbers("€1,234.56 and 7 days", Lang::En),
        [Decimal::new(123456, 2), Decimal::from(7)]
    );
}

#[test]
fn reports_keep_their_shape_limits() {
    for (name, a) in sample_cases() {
        let r = &a.report;
        assert!(r.strengths.len() <= 5 && r.priorities.len() <= 5, "{name}");
        let plan: usize = r.action_plan.iter().map(|g| g.items.len()).sum();
        assert_eq!(plan, r.priorities.len(), "{name}: one action per priority");
        let sentences = r.summary.matches(". ").count() + 1;
        assert!((2..=4).contains(&sentences), "{name}: {}", r.summary);
        assert!(!a.headline.is_empty() && !a.title.is_empty(), "{name}");
    }
}

#[test]
fn the_same_request_gives_the_same_bytes() {
    let request = shell(
        Kind::Excel {
            module: Module::Ventas,
            files: vec![sample::sheet(Module::Ventas, 500, 11, 2025)],
        },
        Lang::Es,
    );
    let one = serde_json::to_vec(&analyze(&request, as_of()).unwrap()).unwrap();
    let two = serde_json::to_vec(&analyze(&request, as_of()).unwrap()).unwrap();
    assert_eq!(one, two);
}

fn body(kind: &str, data: serde_json::Value) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({"type": kind, "lang": "es", "data": data})).unwrap()
}

#[test]
fn a_json_body_end_to_end() {
    let data = serde_json::json!({
        "module": "ventas",
        "files": [{
            "name": "export.xlsx",
            "total_rows": 10,
            "rows": [
                {"Fecha": "02/01/2025", "Cliente": "Ana", "Importe": 19.99},
                {"Fecha": 45700, "Cliente": "Luis", "Importe": "1.234,50"},
                {"Fecha": "15-feb-2025", "Cliente": "TOTAL", "Importe": 1254.49}
            ]
        }]
    });
    let request = parse(&body("excel", data)).unwrap();
    let analysis = analyze(&request, as_of()).unwrap();
    let revenue = analysis
        .report
        .key_figures
        .iter()
        .find(|f| f.id == "revenue")
        .unwrap();
    assert_eq!(
        revenue.value,
        Decimal::new(125449, 2),
        "the TOTAL row is skipped"
    );
    assert_eq!(analysis.report.data_quality.rows_analysed, 2);
    assert_eq!(analysis.report.data_quality.total_rows, Some(10));
    assert_eq!(
        analysis.report.data_quality.rows_skipped[0].reason,
        "total_row"
    );
    assert!(
        analysis
            .report
            .summary
            .starts_with("Según las 2 filas analizadas de 10 (20,0 %)"),
        "{}",
        analysis.report.summary
    );
    assert_eq!(analysis.title, "Análisis de ventas");
}

#[test]
fn samples_keep_the_type_and_module() {
    let data =
        serde_json::json!({"module": "caja", "files": [{"name": "b", "rows": [{"Importe": 1}]}]});
    let request = parse(&body("excel", data)).unwrap();
    let analysis = sample(&request, as_of());
    assert_eq!(
        (analysis.kind, analysis.module),
        (AnalysisType::Excel, Some(Module::Caja))
    );
    assert_eq!(analysis, sample(&request, as_of()));
}

#[test]
fn a_missing_must_have_is_a_report_that_says_so() {
    let sheet = Sheet {
        name: "v".into(),
        rows: vec![shared::analyses::Row(vec![
            ("Cliente".into(), shared::analyses::Cell::Text("Ana".into())),
            (
                "Cantidad".into(),
                shared::analyses::Cell::Number(Decimal::ONE),
            ),
        ])],
        total_rows: None,
    };
    let request = shell(
        Kind::Excel {
            module: Module::Ventas,
            files: vec![sheet],
        },
        Lang::Es,
    );
    let analysis = analyze(&request, as_of()).unwrap();
    assert!(
        analysis
            .report
            .summary
            .contains("No se ha encontrado ninguna columna de importe"),
        "{}",
        analysis.report.summary
    );
    assert_eq!(analysis.report.priorities[0].id, "DATA");
}

/// Random headers and random cells never panic: every request is either a
/// report or an error naming its path.
#[test]
fn random_sheets_never_panic() {
    use shared::analyses::{Cell, Row};
    use shared::rng::Rng;
    const HEADERS: [&str; 24] = [
        "Fecha",
        "Importe",
        "Cliente",
        "Cantidad",
        "Precio",
        "Base",
        "IVA",
        "Total",
        "Proveedor",
        "Horas",
        "Tarifa",
        "Existencias",
        "Coste",
        "Saldo",
        "Debe",
        "Haber",
        "Tipo",
        "Concepto",
        "__EMPTY",
        "Unnamed: 3",
        "ene-25",
        "feb-25",
        "mar-25",
        "Vencimiento",
    ];
    const TEXTS: [&str; 14] = [
        "1.234,56",
        "(12,5)",
        "−3",
        "31/02/2025",
        "45658",
        "TOTAL",
        "sí",
        "",
        "1,234.56",
        "abc",
        "12/13/2025",
        "9999999999999999999999",
        "Ana S.L.",
        "0,21",
    ];
    let mut rng = Rng::new(7);
    for case in 0..150 {
        let columns: Vec<&str> = (0..1 + rng.below(7))
            .map(|_| HEADERS[rng.below(24) as usize])
            .collect();
        let rows: Vec<Row> = (0..1 + rng.below(40))
            .map(|_| {
                let mut cells: Vec<(std::sync::Arc<str>, Cell)> = Vec::new();
                for c in &columns {
                    if cells.iter().any(|(k, _)| **k == **c) {
                        continue;
                    }
                    let cell = match rng.below(4) {
                        0 => Cell::Text(TEXTS[rng.below(14) as usize].into()),
                        1 => Cell::Number(Decimal::new(
                            rng.below(2_000_000_000) as i64 - 1_000_000_000,
                            rng.below(4) as u32,
                        )),
                        2 => Cell::Empty,
                        _ => Cell::Number(Decimal::from(40_000 + rng.below(10_000))),
                    };
                    cells.push(((*c).into(), cell));
                }
                Row(cells)
            })
            .collect();
        let sheet = Sheet {
            name: format!("r{case}"),
            rows,
            total_rows: Some(rng.below(100)),
        };
        let module = Module::ALL[case % 6];
        let lang = if case % 2 == 0 { Lang::Es } else { Lang::En };
        let kinds = [
            Kind::Excel {
                module,
                files: vec![sheet.clone()],
            },
            Kind::Compare {
                module,
                a: vec![sheet.clone()],
                b: vec![sheet.clone()],
            },
            Kind::Folder { files: vec![sheet] },
        ];
        for kind in kinds {
            let request = shell(kind, lang);
            if let Ok(analysis) = analyze(&request, as_of()) {
                check_figures(&analysis, &format!("random case {case}"));
            }
        }
    }
}
