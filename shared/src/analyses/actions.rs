//! The machine-actionable follow-ups of a report (kinds documented on
//! `report::Action`).

use serde_json::json;

use super::report::Action;
use super::request::{Lang, Module};

fn label(lang: Lang, es: &str, en: &str) -> String {
    match lang {
        Lang::Es => es.into(),
        Lang::En => en.into(),
    }
}

/// Send the previous period of the same module to `compare`.
pub fn compare(module: Module, lang: Lang) -> Action {
    Action {
        id: "compare_previous_period".into(),
        label: label(
            lang,
            "Compara con el periodo anterior",
            "Compare with the previous period",
        ),
        kind: "compare".into(),
        params: json!({"type": "compare", "module": module.as_str()}),
    }
}

/// Run another module on the same business.
pub fn analyze(module: Module, lang: Lang) -> Action {
    let (es, en) = match module {
        Module::Stock => ("Analiza tu stock", "Analyse your stock"),
        Module::Ventas => ("Analiza tus ventas", "Analyse your sales"),
        Module::Servicios => (
            "Analiza tus horas y servicios",
            "Analyse your hours and services",
        ),
        Module::Entradas => (
            "Analiza tus compras y gastos",
            "Analyse your purchases and costs",
        ),
        Module::Caja => ("Analiza tu caja", "Analyse your cash"),
        Module::Total => (
            "Analiza tu cuenta de resultados",
            "Analyse your profit and loss",
        ),
    };
    Action {
        id: format!("analyze_{}", module.as_str()),
        label: label(lang, es, en),
        kind: "analyze".into(),
        params: json!({"type": "excel", "module": module.as_str()}),
    }
}

/// Open the tax calendar.
pub fn tax_calendar(lang: Lang) -> Action {
    Action {
        id: "tax_calendar".into(),
        label: label(
            lang,
            "Consulta el calendario fiscal",
            "Open the tax calendar",
        ),
        kind: "tax_calendar".into(),
        params: json!({"method": "GET", "path": "/api/v1/tax/calendar"}),
    }
}

/// Estimate the next Modelo 130.
pub fn model_130(lang: Lang) -> Action {
    Action {
        id: "model_130".into(),
        label: label(
            lang,
            "Estima tu próximo modelo 130",
            "Estimate your next form 130",
        ),
        kind: "tax_tool".into(),
        params: json!({"method": "POST", "path": "/api/v1/tax/model-130"}),
    }
}

/// Answer the cuestionario.
pub fn cuestionario(lang: Lang) -> Action {
    Action {
        id: "cuestionario".into(),
        label: label(
            lang,
            "Responde el cuestionario de salud",
            "Answer the health questionnaire",
        ),
        kind: "cuestionario".into(),
        params: json!({"type": "cuestionario"}),
    }
}
