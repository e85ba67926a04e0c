//! The body of `POST /api/v1/analyze` as the OpenAPI document describes it.
//! The engine's reader (`analyses::request::read`) reads the body itself, so
//! these types only give the document its schema; they serialise to the wire
//! shape, and like the parser they admit no unknown fields.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value as Json;
use utoipa::ToSchema;

use crate::analyses::{AnalysisType, Lang, Module};

/// An analysis request. Limits: 20 files (per period in `compare`), 100,000
/// rows per file and 200,000 per request, 200 columns per row, 1,000
/// characters per text (title, file name, column name, cell); over a limit
/// is 413 `analysis_too_large` naming the field.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AnalyzeRequest {
    /// Says the shape of `data`.
    #[serde(rename = "type")]
    pub kind: AnalysisType,
    /// The language of the report: `es` (default) or `en`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lang: Option<Lang>,
    /// Default: named after the type and module.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub data: AnalyzeData,
}

/// `data`, by `type`.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub enum AnalyzeData {
    Excel(AnalyzeExcelData),
    Compare(AnalyzeCompareData),
    Folder(AnalyzeFolderData),
    Cuestionario(AnalyzeCuestionarioData),
    Upload(AnalyzeUploadData),
}

/// `type: excel`: the rows of one or more sheets of one module.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AnalyzeExcelData {
    pub module: Module,
    /// 1–20 files.
    pub files: Vec<AnalyzeFile>,
}

/// `type: compare`: two periods of one module, `a` the earlier (base), `b`
/// the later; key figures carry their change from `a` to `b`.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AnalyzeCompareData {
    pub module: Module,
    pub a: AnalyzePeriod,
    pub b: AnalyzePeriod,
}

#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AnalyzePeriod {
    /// 1–20 files.
    pub files: Vec<AnalyzeFile>,
}

/// `type: folder`: several documents of the business in one request; each
/// file's module is recognised from its columns.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AnalyzeFolderData {
    /// 1–20 files.
    pub files: Vec<AnalyzeFile>,
}

/// `type: cuestionario`: answers to the 30-question business check-up.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AnalyzeCuestionarioData {
    /// Question id (`FIN1`–`FIN5`, `FIS1`–`FIS5`, `VEN1`–`VEN5`, `OPE1`–`OPE5`,
    /// `DIG1`–`DIG5`, `PER1`–`PER5`) → `true` (yes), `false` (no) or `null`
    /// (does not apply). Questions left out, like `null`, do not count in the
    /// score.
    pub answers: BTreeMap<String, Option<bool>>,
}

/// Any `type`: the `data` object is in an `application/json` upload (`POST
/// /api/v1/uploads`, up to 50 MiB), read as if it were inline.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AnalyzeUploadData {
    /// `upl_…`
    pub upload_id: String,
}

/// One spreadsheet, or one sheet of it.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AnalyzeFile {
    /// The file or sheet name, used in the report.
    pub name: String,
    /// 1–100,000 rows, each an object from column name to a string, number,
    /// boolean or null, as the sheet's header row names them. Numbers are
    /// read from their text, so 19.99 stays 19.99; strings such as
    /// "1.234,56 €" and dates in the usual Spanish forms are recognised.
    #[schema(value_type = Vec<Object>)]
    pub rows: Vec<BTreeMap<String, Json>>,
    /// The sheet's full row count when `rows` is its first part; the report
    /// then covers the rows received and says so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_rows: Option<u64>,
}
