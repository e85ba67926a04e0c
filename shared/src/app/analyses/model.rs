//! The analysis as the API returns it (and stores it, for live keys), and the
//! short form lists and `analysis.completed` events carry.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::analyses::{Action, Analysis, AnalysisType, Lang, Module, Report};

#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[schema(example = json!({"id": "an_01a208400ea8b0107a0a80b13495", "object": "analysis", "type": "excel",
    "module": "ventas", "title": "Ventas octubre", "lang": "es", "created_at": "2026-11-23T11:52:25.512Z",
    "livemode": true,
    "report": {
        "summary": "Analizadas 6 filas, oct 2026. Facturación de 1.066,55 € en 6 operaciones, con un ticket medio de 177,76 €. «Taller Ana SL» concentra el 60,0 % de las ventas: si lo pierdes, la facturación bajaría 640,40 €.",
        "key_figures": [{"id": "revenue", "label": "Facturación", "value": 1066.55, "unit": "EUR"},
            {"id": "average_ticket", "label": "Ticket medio", "value": 177.76, "unit": "EUR"},
            {"id": "top1_share", "label": "Peso del mayor cliente", "value": 60.0, "unit": "pct"}],
        "strengths": [],
        "priorities": [{"id": "V1", "severity": "high", "text": "«Taller Ana SL» concentra el 60,0 % de las ventas: si lo pierdes, la facturación bajaría 640,40 €."}],
        "action_plan": [{"horizon": "quarter", "label": "Este trimestre", "items": [{"priority": "V1",
            "text": "Este trimestre: asegura a «Taller Ana SL» con contrato o anticipo y busca 5 clientes parecidos para bajar su peso de 60,0 %."}]}],
        "glossary": [{"term": "Ticket medio", "meaning": "Facturación dividida entre el número de ventas"}],
        "data_quality": {"rows_received": 6, "rows_analysed": 6,
            "columns_used": [{"file": "ventas-octubre.xlsx", "column": "Importe", "role": "importe", "by": "header"}],
            "columns_ignored": [], "rows_skipped": [], "notes": []},
        "period": {"from": "2026-10-01", "to": "2026-10-30"},
        "as_of": "2026-11-23"},
    "actions": [{"id": "compare_previous_period", "label": "Compara con el periodo anterior", "kind": "compare",
        "params": {"type": "compare", "module": "ventas"}}]}))]
pub struct AnalysisResource {
    /// `an_` and a token; ids sort by creation time.
    pub id: String,
    /// Always `analysis`.
    pub object: &'static str,
    #[serde(rename = "type")]
    pub kind: AnalysisType,
    /// For `excel` and `compare`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub module: Option<Module>,
    pub title: String,
    pub lang: Lang,
    pub created_at: DateTime<Utc>,
    /// False for test keys: sample data, not stored.
    pub livemode: bool,
    pub report: Report,
    /// Follow-ups a client can run, each a request to make (see `Action`).
    pub actions: Vec<Action>,
}

/// An analysis in a list, and the data of its `analysis.completed` event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": "an_01a208400ea8b0107a0a80b13495", "type": "excel", "module": "ventas",
    "title": "Ventas octubre", "created_at": "2026-11-23T11:52:25.512Z",
    "headline": "Ventas octubre: Facturación de 1.066,55 € en 6 operaciones, con un ticket medio de 177,76 €."}))]
pub struct AnalysisSummary {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: AnalysisType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module: Option<Module>,
    pub title: String,
    pub created_at: DateTime<Utc>,
    /// One sentence: the main finding.
    pub headline: String,
}

/// The resource of a finished analysis and its summary.
pub fn resource(
    id: String,
    analysis: Analysis,
    created_at: DateTime<Utc>,
    livemode: bool,
) -> (AnalysisResource, AnalysisSummary) {
    let summary = AnalysisSummary {
        id: id.clone(),
        kind: analysis.kind,
        module: analysis.module,
        title: analysis.title.clone(),
        created_at,
        headline: analysis.headline,
    };
    let resource = AnalysisResource {
        id,
        object: "analysis",
        kind: analysis.kind,
        module: analysis.module,
        title: analysis.title,
        lang: analysis.lang,
        created_at,
        livemode,
        report: analysis.report,
        actions: analysis.actions,
    };
    (resource, summary)
}
