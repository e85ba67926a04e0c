//! The result of an analysis: the report (summary, key figures, strengths,
//! priorities, action plan, glossary, data quality, period) and the
//! machine-actionable follow-ups.

use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::Serialize;
use serde_json::Value as Json;
use utoipa::ToSchema;

use super::request::{AnalysisType, Lang, Module};
use crate::tax::money::as_number;

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

#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct Report {
    /// 2–4 sentences: scope, headline figure, main strength, main priority.
    pub summary: String,
    /// Every figure the texts quote, rounded as shown.
    pub key_figures: Vec<KeyFigure>,
    /// At most 5, by € impact.
    pub strengths: Vec<Strength>,
    /// At most 5, by severity weight × € at stake.
    pub priorities: Vec<Priority>,
    /// One action per priority, grouped by horizon (this week, month, quarter).
    pub action_plan: Vec<PlanGroup>,
    /// The glossary terms the texts use.
    pub glossary: Vec<GlossaryEntry>,
    pub data_quality: DataQuality,
    /// First and last date of the data; absent when it has no dates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub period: Option<Period>,
    /// The reference date for aging (today in Europe/Madrid).
    pub as_of: NaiveDate,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, ToSchema)]
pub enum Unit {
    #[serde(rename = "EUR")]
    Eur,
    #[serde(rename = "pct")]
    Pct,
    #[serde(rename = "days")]
    Days,
    #[serde(rename = "months")]
    Months,
    #[serde(rename = "hours")]
    Hours,
    #[serde(rename = "count")]
    Count,
}

/// One figure: `value` is rounded as displayed (EUR 2 dp, pct 1 dp, days 0 dp,
/// months and hours 1 dp, counts whole).
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct KeyFigure {
    pub id: String,
    pub label: String,
    #[serde(serialize_with = "as_number")]
    #[schema(value_type = f64)]
    pub value: Decimal,
    pub unit: Unit,
    /// In `compare`: the change from the earlier period.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta: Option<Delta>,
}

/// Change of a figure between the earlier period `a` and the later one.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct Delta {
    /// The value in the earlier period.
    #[serde(serialize_with = "as_number")]
    #[schema(value_type = f64)]
    pub previous: Decimal,
    /// Later − earlier, in the figure's unit (percentage points for `pct`).
    #[serde(serialize_with = "as_number")]
    #[schema(value_type = f64)]
    pub change: Decimal,
    /// Change as % of |earlier| (money, and counts when both ≥ 20).
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "optional_number"
    )]
    #[schema(value_type = Option<f64>)]
    pub change_pct: Option<Decimal>,
    pub direction: Direction,
    pub significance: Significance,
}

fn optional_number<S: serde::Serializer>(x: &Option<Decimal>, s: S) -> Result<S::Ok, S::Error> {
    match x {
        Some(x) => as_number(x, s),
        None => s.serialize_none(),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Improves,
    Worsens,
    Unchanged,
    /// A size rather than a goal (e.g. rows, units): neither better nor worse.
    Neutral,
}

/// `strong` (ratios ≥ 5 pp), `significant` (≥ 10 % and ≥ max(1 % of revenue,
/// 100 €), or ≥ 2 pp), `slight` (3–10 %), `stable`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Significance {
    Strong,
    Significant,
    Slight,
    Stable,
}

#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct Strength {
    /// The rule that found it (reference §3.2, e.g. `V3`).
    pub id: String,
    pub text: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    High,
    Medium,
    Low,
}

#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct Priority {
    pub id: String,
    pub severity: Severity,
    pub text: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Horizon {
    /// Within 7 days.
    Week,
    /// Within 30 days.
    Month,
    /// Within 90 days.
    Quarter,
}

#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct PlanGroup {
    pub horizon: Horizon,
    /// "Esta semana" / "This week" …
    pub label: String,
    pub items: Vec<PlanItem>,
}

#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct PlanItem {
    /// The priority this action answers.
    pub priority: String,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct GlossaryEntry {
    pub term: String,
    pub meaning: String,
}

/// What was read and how: the mapping of columns to roles, what was left
/// out and why, and how much of the sheet was received.
#[derive(Clone, Debug, Default, PartialEq, Serialize, ToSchema)]
pub struct DataQuality {
    pub rows_received: u64,
    pub rows_analysed: u64,
    /// The sheet's full row count when the client sent a cut; figures refer
    /// to the rows received only, never extrapolated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_rows: Option<u64>,
    pub columns_used: Vec<ColumnUse>,
    pub columns_ignored: Vec<ColumnRef>,
    pub rows_skipped: Vec<Skipped>,
    /// Other observations (formats guessed, values unreadable, duplicates).
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct ColumnUse {
    pub file: String,
    pub column: String,
    /// The role given (`fecha`, `importe`, `cliente` …).
    pub role: String,
    /// `header` (matched by name) or `values` (by its values alone).
    pub by: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct ColumnRef {
    pub file: String,
    pub column: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct Skipped {
    pub file: String,
    /// `empty`, `total_row`, `header_above`, `no_amount`, `unreadable_date` …
    pub reason: String,
    pub count: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct Period {
    pub from: NaiveDate,
    pub to: NaiveDate,
}

/// A follow-up a client can run. Kinds: `analyze` (params: the body of a
/// `POST /api/v1/analyze` to run, e.g. another module on the same data),
/// `compare` (params `{module}`: send the previous period with this one),
/// `tax_calendar` (params `{method, path}`: `GET /api/v1/tax/calendar`),
/// `tax_tool` (params `{method, path}` of another tax tool, e.g. the 130
/// estimate), `cuestionario` (params `{type: "cuestionario"}`).
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct Action {
    pub id: String,
    pub label: String,
    pub kind: String,
    #[schema(value_type = Object)]
    pub params: Json,
}
