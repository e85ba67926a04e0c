//! The analysis as the API returns it (and stores it, for live keys), and the
//! short form lists and `analysis.completed` events carry.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::analyses::{Action, Analysis, AnalysisType, Lang, Module, Report};

#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[schema(example = json!({"id": "an_019aa3b7c2e41f0c2a9d8e7b6a5c", "object": "analysis", "type": "excel",
    "module": "ventas", "title": "Ventas 2026", "lang": "es", "created_at": "2026-11-21T10:00:00Z",
    "livemode": true,
    "report": {"summary": "Analizadas 1.240 filas (2 ene–20 nov 2026). Facturación: 84.310,00 €.",
        "key_figures": [{"id": "revenue", "label": "Facturación", "value": 84310.0, "unit": "EUR"}],
        "strengths": [], "priorities": [], "action_plan": [], "glossary": [],
        "data_quality": {"rows_received": 1240, "rows_used": 1240}, "period": {"from": "2026-01-02", "to": "2026-11-20"}},
    "actions": [{"id": "calendar", "label": "Ver el calendario fiscal", "kind": "tax_calendar", "params": {}}]}))]
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
#[schema(example = json!({"id": "an_019aa3b7c2e41f0c2a9d8e7b6a5c", "type": "excel", "module": "ventas",
    "title": "Ventas 2026", "created_at": "2026-11-21T10:00:00Z",
    "headline": "Facturación de 84.310,00 €; 3 clientes generan el 80 %."}))]
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
