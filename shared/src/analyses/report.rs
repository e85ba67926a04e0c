//! The result of an analysis: the report (summary, key figures, strengths,
//! priorities, action plan, glossary, data quality, period) and the
//! machine-actionable follow-ups.

use serde::Serialize;
use serde_json::Value as Json;
use utoipa::ToSchema;

use super::request::{AnalysisType, Lang, Module};

/// What the engine returns; the use case adds id, timestamps and mode.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct Analysis {
    #[serde(rename = "type")]
    pub kind: AnalysisType,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub module: Option<Module>,
    pub title: String,
    pub lang: Lang,
    pub report: Report,
    pub actions: Vec<Action>,
    /// One sentence for lists of analyses.
    #[serde(skip)]
    pub headline: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, ToSchema)]
pub struct Report {
    pub summary: String,
    #[schema(value_type = Vec<Object>)]
    pub key_figures: Vec<Json>,
    #[schema(value_type = Vec<Object>)]
    pub strengths: Vec<Json>,
    #[schema(value_type = Vec<Object>)]
    pub priorities: Vec<Json>,
    #[schema(value_type = Vec<Object>)]
    pub action_plan: Vec<Json>,
    #[schema(value_type = Vec<Object>)]
    pub glossary: Vec<Json>,
    #[schema(value_type = Object)]
    pub data_quality: Json,
    #[schema(value_type = Option<Object>)]
    pub period: Option<Json>,
}

/// A follow-up a client can run: `kind` names what (`analyze`,
/// `tax_calendar`, `compare` …) and `params` the request to make.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct Action {
    pub id: String,
    pub label: String,
    pub kind: String,
    #[schema(value_type = Object)]
    pub params: Json,
}
