//! The analyze request as it arrives (`type`, `lang`, `title`, `data`), parsed
//! into a `Request` the engine trusts. Rows keep their columns in the order of
//! the JSON text; numbers are read from their text, so 19.99 stays 19.99.

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum AnalysisType {
    Excel,
    Compare,
    Folder,
    Cuestionario,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Module {
    Stock,
    Ventas,
    Servicios,
    Entradas,
    Caja,
    Total,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    Es,
    En,
}

/// One cell of a row: a JSON number, a string, or empty (null or "").
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Number(Decimal),
    Text(String),
    Empty,
}

/// One row: column name → cell, in the order the columns came.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Row(pub Vec<(String, Cell)>);

/// One spreadsheet (or one sheet of it).
#[derive(Clone, Debug, PartialEq)]
pub struct Sheet {
    pub name: String,
    pub rows: Vec<Row>,
    /// The full row count when `rows` is a cut of the sheet.
    pub total_rows: Option<u64>,
}

/// What to analyse.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    Excel {
        module: Module,
        files: Vec<Sheet>,
    },
    /// `a` is the earlier (base) period, `b` the later one.
    Compare {
        module: Module,
        a: Vec<Sheet>,
        b: Vec<Sheet>,
    },
    Folder {
        files: Vec<Sheet>,
    },
    /// Question id (`FIN1` …) → yes, no, or null (does not apply).
    Cuestionario {
        answers: BTreeMap<String, Option<bool>>,
    },
}

/// A validated analyze request.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub kind: Kind,
    pub lang: Lang,
    pub title: Option<String>,
}

impl Request {
    pub fn analysis_type(&self) -> AnalysisType {
        match self.kind {
            Kind::Excel { .. } => AnalysisType::Excel,
            Kind::Compare { .. } => AnalysisType::Compare,
            Kind::Folder { .. } => AnalysisType::Folder,
            Kind::Cuestionario { .. } => AnalysisType::Cuestionario,
        }
    }
}
