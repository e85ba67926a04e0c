//! The analyze request as it arrives (`type`, `lang`, `title`, `data`), parsed
//! into a `Request` the engine trusts. `read` streams each file's rows
//! straight into columns (`Cells`); `parse` gives them as rows (`Sheet`).
//! Columns keep the order of the JSON text; numbers are read from their
//! text, so 19.99 stays 19.99.
//!
//! Wire shapes of `data`: excel `{module, files}`; compare `{module, a: {files},
//! b: {files}}` (a = earlier, b = later); folder `{files}`; cuestionario
//! `{answers: {FIN1: true, …}}` (null = does not apply). A file is `{name,
//! rows, total_rows?}`; a row maps column → string | number | bool | null.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use rust_decimal::Decimal;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use utoipa::ToSchema;

use super::AnalysisError;
use super::cells::{Builder, Cells};
use super::sniff::Value;

/// Rows per file.
pub const MAX_ROWS_PER_FILE: usize = 100_000;
/// Rows over all files of one request.
pub const MAX_ROWS_PER_REQUEST: usize = 200_000;
/// Files per request (per side in `compare`).
pub const MAX_FILES: usize = 20;
/// Cells (columns) per row.
pub const MAX_CELLS_PER_ROW: usize = 200;
/// Characters of a cell text, a column name, a file name or the title.
pub const MAX_TEXT_CHARS: usize = 1_000;

/// Marks a serde error raised by a limit, so it maps to "too large".
const LIMIT: &str = "limit exceeded: ";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum AnalysisType {
    Excel,
    Compare,
    Folder,
    Cuestionario,
}

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Module {
    Stock,
    Ventas,
    Servicios,
    Entradas,
    Caja,
    Total,
}

impl Module {
    pub const ALL: [Module; 6] = [
        Module::Stock,
        Module::Ventas,
        Module::Servicios,
        Module::Entradas,
        Module::Caja,
        Module::Total,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Module::Stock => "stock",
            Module::Ventas => "ventas",
            Module::Servicios => "servicios",
            Module::Entradas => "entradas",
            Module::Caja => "caja",
            Module::Total => "total",
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    Es,
    En,
}

/// One cell of a row: a JSON number, a string, a boolean, or empty (null or "").
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Number(Decimal),
    Text(String),
    Bool(bool),
    Empty,
}

/// One row: column name → cell, in the order the columns came.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Row(pub Vec<(Arc<str>, Cell)>);

/// One spreadsheet (or one sheet of it).
#[derive(Clone, Debug, PartialEq)]
pub struct Sheet {
    pub name: String,
    pub rows: Vec<Row>,
    /// The full row count when `rows` is a cut of the sheet.
    pub total_rows: Option<u64>,
}

/// What to analyse; `F` is how each file is held: rows as built in code
/// (`Sheet`) or columns as `read` gives them (`Cells`).
#[derive(Clone, Debug, PartialEq)]
pub enum Kind<F = Sheet> {
    Excel {
        module: Module,
        files: Vec<F>,
    },
    /// `a` is the earlier (base) period, `b` the later one.
    Compare {
        module: Module,
        a: Vec<F>,
        b: Vec<F>,
    },
    Folder {
        files: Vec<F>,
    },
    /// Question id (`FIN1` …) → yes, no, or null (does not apply).
    Cuestionario {
        answers: BTreeMap<String, Option<bool>>,
    },
}

/// A validated analyze request.
#[derive(Clone, Debug, PartialEq)]
pub struct Request<F = Sheet> {
    pub kind: Kind<F>,
    pub lang: Lang,
    pub title: Option<String>,
}

impl<F> Request<F> {
    pub fn analysis_type(&self) -> AnalysisType {
        match self.kind {
            Kind::Excel { .. } => AnalysisType::Excel,
            Kind::Compare { .. } => AnalysisType::Compare,
            Kind::Folder { .. } => AnalysisType::Folder,
            Kind::Cuestionario { .. } => AnalysisType::Cuestionario,
        }
    }

    pub fn module(&self) -> Option<Module> {
        match self.kind {
            Kind::Excel { module, .. } | Kind::Compare { module, .. } => Some(module),
            _ => None,
        }
    }
}

/// `read`, with every file turned into rows (`Sheet`). Rows take several
/// times the memory of the columns `read` keeps.
pub fn parse(body: &[u8]) -> Result<Request, AnalysisError> {
    let request = read(body)?;
    let rows = |files: Vec<Cells>| files.into_iter().map(Sheet::from).collect();
    let kind = match request.kind {
        Kind::Excel { module, files } => Kind::Excel {
            module,
            files: rows(files),
        },
        Kind::Compare { module, a, b } => Kind::Compare {
            module,
            a: rows(a),
            b: rows(b),
        },
        Kind::Folder { files } => Kind::Folder { files: rows(files) },
        Kind::Cuestionario { answers } => Kind::Cuestionario { answers },
    };
    Ok(Request {
        kind,
        lang: request.lang,
        title: request.title,
    })
}

/// Parses and validates the JSON body of `POST /api/v1/analyze`, each
/// file's rows read straight into columns: shapes and limits here, then the
/// column check of the engine (a file in which none of the module's amount
/// columns can be found is a 400; a file with some but not all is analysed
/// and the report says what is missing).
pub fn read(body: &[u8]) -> Result<Request<Cells>, AnalysisError> {
    let request = match quick(body) {
        Some(request) => request,
        None => strict(body)?,
    };
    check_rows_total(&request)?;
    super::validate(&request)?;
    Ok(request)
}

/// One pass over the body, for a request that is right: None at the first
/// fault, which `strict` then names. The body is checked to be UTF-8 once,
/// not string by string.
fn quick(body: &[u8]) -> Option<Request<Cells>> {
    let text = std::str::from_utf8(body).ok()?;
    let wire = Wire::deserialize(&mut serde_json::Deserializer::from_str(text)).ok()?;
    let lang = lang(wire.lang.as_deref()).ok()?;
    if let Some(title) = &wire.title {
        check_text(title, "title").ok()?;
    }
    let Data {
        module,
        files,
        a,
        b,
        answers,
    } = wire.data;
    let kind = match (wire.kind, module, files, a, b, answers) {
        (AnalysisType::Excel, Some(module), Some(files), None, None, None) => {
            check_files(&files, "data.files").ok()?;
            Kind::Excel {
                module,
                files: files.into_iter().map(Cells::from).collect(),
            }
        }
        (AnalysisType::Compare, Some(module), None, Some(a), Some(b), None) => {
            check_files(&a.files, "data.a.files").ok()?;
            check_files(&b.files, "data.b.files").ok()?;
            Kind::Compare {
                module,
                a: a.files.into_iter().map(Cells::from).collect(),
                b: b.files.into_iter().map(Cells::from).collect(),
            }
        }
        (AnalysisType::Folder, None, Some(files), None, None, None) => {
            check_files(&files, "data.files").ok()?;
            Kind::Folder {
                files: files.into_iter().map(Cells::from).collect(),
            }
        }
        (AnalysisType::Cuestionario, None, None, None, None, Some(answers)) => {
            super::cuestionario::check_answers(&answers).ok()?;
            Kind::Cuestionario { answers }
        }
        _ => return None,
    };
    Some(Request {
        kind,
        lang,
        title: wire.title,
    })
}

/// The body read in the order that decides which fault is reported (the
/// head with `lang` and `title` first, then `data`), tracking the path to
/// name it.
fn strict(body: &[u8]) -> Result<Request<Cells>, AnalysisError> {
    let head: Head = from_slice(body)?;
    let lang = lang(head.lang.as_deref())?;
    if let Some(title) = &head.title {
        check_text(title, "title")?;
    }
    let kind = match head.kind {
        AnalysisType::Excel => {
            let body: Body<ExcelData> = from_slice(body)?;
            let data = body.data;
            check_files(&data.files, "data.files")?;
            Kind::Excel {
                module: data.module,
                files: data.files.into_iter().map(Cells::from).collect(),
            }
        }
        AnalysisType::Compare => {
            let body: Body<CompareData> = from_slice(body)?;
            let data = body.data;
            check_files(&data.a.files, "data.a.files")?;
            check_files(&data.b.files, "data.b.files")?;
            Kind::Compare {
                module: data.module,
                a: data.a.files.into_iter().map(Cells::from).collect(),
                b: data.b.files.into_iter().map(Cells::from).collect(),
            }
        }
        AnalysisType::Folder => {
            let body: Body<FolderData> = from_slice(body)?;
            check_files(&body.data.files, "data.files")?;
            Kind::Folder {
                files: body.data.files.into_iter().map(Cells::from).collect(),
            }
        }
        AnalysisType::Cuestionario => {
            let body: Body<CuestionarioData> = from_slice(body)?;
            let answers = body.data.answers;
            super::cuestionario::check_answers(&answers)?;
            Kind::Cuestionario { answers }
        }
    };
    Ok(Request {
        kind,
        lang,
        title: head.title,
    })
}

fn lang(lang: Option<&str>) -> Result<Lang, AnalysisError> {
    match lang {
        None | Some("es") => Ok(Lang::Es),
        Some("en") => Ok(Lang::En),
        Some(other) => Err(AnalysisError::invalid(
            "parameter_invalid",
            "lang",
            format!("unknown language {other:?}; accepted values: es, en"),
        )),
    }
}

fn check_rows_total(request: &Request<Cells>) -> Result<(), AnalysisError> {
    let total: usize = match &request.kind {
        Kind::Excel { files, .. } | Kind::Folder { files } => files.iter().map(|f| f.rows).sum(),
        Kind::Compare { a, b, .. } => a.iter().chain(b).map(|f| f.rows).sum(),
        Kind::Cuestionario { .. } => 0,
    };
    if total > MAX_ROWS_PER_REQUEST {
        return Err(AnalysisError::too_large(
            "data",
            format!("{total} rows in all; at most {MAX_ROWS_PER_REQUEST} rows per request"),
        ));
    }
    Ok(())
}

fn check_text(text: &str, param: &str) -> Result<(), AnalysisError> {
    if text.chars().count() > MAX_TEXT_CHARS {
        return Err(AnalysisError::too_large(
            param,
            format!("longer than {MAX_TEXT_CHARS} characters"),
        ));
    }
    Ok(())
}

fn check_files(files: &[WireFile], param: &str) -> Result<(), AnalysisError> {
    if files.is_empty() {
        return Err(AnalysisError::invalid(
            "parameter_invalid",
            param,
            "send at least one file".into(),
        ));
    }
    for (i, file) in files.iter().enumerate() {
        if file.rows.0.rows == 0 {
            return Err(AnalysisError::invalid(
                "parameter_invalid",
                &format!("{param}[{i}].rows"),
                "the file has no rows".into(),
            ));
        }
        if file.rows.0.all_empty() {
            return Err(AnalysisError::invalid(
                "parameter_invalid",
                &format!("{param}[{i}].rows"),
                "every cell of the file is empty".into(),
            ));
        }
    }
    Ok(())
}

fn from_slice<'de, T: Deserialize<'de>>(body: &'de [u8]) -> Result<T, AnalysisError> {
    let de = &mut serde_json::Deserializer::from_slice(body);
    let result: Result<T, _> = serde_path_to_error::deserialize(de);
    let value = result.map_err(|err| {
        let path = err.path().to_string();
        let inner = err.into_inner();
        error_from_serde(&path, &inner)
    })?;
    Ok(value)
}

fn error_from_serde(path: &str, inner: &serde_json::Error) -> AnalysisError {
    let message = inner.to_string();
    let text = message.split(" at line").next().unwrap_or(&message);
    let path = if path == "." { "" } else { path };
    if matches!(
        inner.classify(),
        serde_json::error::Category::Syntax | serde_json::error::Category::Eof
    ) {
        return AnalysisError::invalid(
            "json_invalid",
            "",
            format!(
                "the body is not valid JSON: {text} at line {} column {}",
                inner.line(),
                inner.column()
            ),
        );
    }
    if let Some(limit) = text.strip_prefix(LIMIT) {
        return AnalysisError::too_large(path, limit.to_string());
    }
    let quoted = quoted_name(text).unwrap_or_default();
    if text.starts_with("unknown field") {
        return AnalysisError::invalid(
            "parameter_unknown",
            &join(path, quoted),
            format!("unknown parameter `{quoted}`"),
        );
    }
    if text.starts_with("missing field") {
        return AnalysisError::invalid(
            "parameter_missing",
            &join(path, quoted),
            format!("missing required parameter `{quoted}`"),
        );
    }
    AnalysisError::invalid("parameter_invalid", path, text.to_string())
}

/// `missing field `x`` → `x`.
fn quoted_name(message: &str) -> Option<&str> {
    let start = message.find('`')? + 1;
    let len = message[start..].find('`')?;
    Some(&message[start..start + len])
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else if path == name || path.ends_with(&format!(".{name}")) {
        path.to_string()
    } else {
        format!("{path}.{name}")
    }
}

/// The whole body in one pass (`quick`); `data` holds what any type may
/// send, checked against `type` afterwards.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Wire {
    #[serde(rename = "type")]
    kind: AnalysisType,
    #[serde(default)]
    lang: Option<String>,
    #[serde(default)]
    title: Option<String>,
    data: Data,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Data {
    #[serde(default, deserialize_with = "present")]
    module: Option<Module>,
    #[serde(default, deserialize_with = "present")]
    files: Option<Files>,
    #[serde(default, deserialize_with = "present")]
    a: Option<Side>,
    #[serde(default, deserialize_with = "present")]
    b: Option<Side>,
    #[serde(default, deserialize_with = "present")]
    answers: Option<BTreeMap<String, Option<bool>>>,
}

/// A field that may be missing but not null (as in the typed shapes).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Head {
    #[serde(rename = "type")]
    kind: AnalysisType,
    #[serde(default)]
    lang: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(rename = "data")]
    _data: IgnoredAny,
}

#[derive(Deserialize)]
struct Body<T> {
    data: T,
    #[serde(rename = "type")]
    _kind: IgnoredAny,
    #[serde(default, rename = "lang")]
    _lang: Option<IgnoredAny>,
    #[serde(default, rename = "title")]
    _title: Option<IgnoredAny>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExcelData {
    module: Module,
    files: Files,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CompareData {
    module: Module,
    a: Side,
    b: Side,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Side {
    files: Files,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FolderData {
    files: Files,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CuestionarioData {
    answers: BTreeMap<String, Option<bool>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WireFile {
    name: Text,
    rows: Rows,
    #[serde(default)]
    total_rows: Option<u64>,
}

impl From<WireFile> for Cells {
    fn from(file: WireFile) -> Self {
        Cells {
            name: file.name.0,
            total_rows: file.total_rows,
            ..file.rows.0
        }
    }
}

/// The files of a request, at most `MAX_FILES`.
struct Files(Vec<WireFile>);

impl std::ops::Deref for Files {
    type Target = [WireFile];
    fn deref(&self) -> &[WireFile] {
        &self.0
    }
}

impl IntoIterator for Files {
    type Item = WireFile;
    type IntoIter = std::vec::IntoIter<WireFile>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'de> Deserialize<'de> for Files {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Files;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an array of files {name, rows, total_rows?}")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Files, A::Error> {
                let mut files = Vec::new();
                while let Some(file) = seq.next_element::<WireFile>()? {
                    if files.len() == MAX_FILES {
                        return Err(de::Error::custom(format!(
                            "{LIMIT}more than {MAX_FILES} files"
                        )));
                    }
                    files.push(file);
                }
                Ok(Files(files))
            }
        }
        d.deserialize_seq(V)
    }
}

/// A string of at most `MAX_TEXT_CHARS` characters.
struct Text(String);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        bounded(&s)?;
        Ok(Text(s))
    }
}

fn bounded<E: de::Error>(s: &str) -> Result<(), E> {
    if s.len() > MAX_TEXT_CHARS && s.chars().count() > MAX_TEXT_CHARS {
        return Err(E::custom(format!(
            "{LIMIT}a text longer than {MAX_TEXT_CHARS} characters"
        )));
    }
    Ok(())
}

/// The rows of a file, at most `MAX_ROWS_PER_FILE`, as columns (without
/// the file's name and total).
struct Rows(Cells);

impl<'de> Deserialize<'de> for Rows {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Rows;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an array of row objects")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Rows, A::Error> {
                let mut builder = Builder::default();
                let mut rows = 0;
                while seq.next_element_seed(RowSeed(&mut builder))?.is_some() {
                    if rows == MAX_ROWS_PER_FILE {
                        return Err(de::Error::custom(format!(
                            "{LIMIT}more than {MAX_ROWS_PER_FILE} rows in one file"
                        )));
                    }
                    rows += 1;
                }
                Ok(Rows(builder.finish(String::new(), None)))
            }
        }
        d.deserialize_seq(V)
    }
}

/// A row, written into the file's columns as it is read.
struct RowSeed<'a>(&'a mut Builder);

impl<'de> DeserializeSeed<'de> for RowSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        struct V<'a>(&'a mut Builder);
        impl<'de> Visitor<'de> for V<'_> {
            type Value = ();
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a row object mapping column names to cells")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
                let builder = self.0;
                let mut cells = 0;
                while let Some(ColumnName(key)) = map.next_key()? {
                    if cells == MAX_CELLS_PER_ROW {
                        return Err(de::Error::custom(format!(
                            "{LIMIT}more than {MAX_CELLS_PER_ROW} cells in one row"
                        )));
                    }
                    let column = match builder.find(&key, cells) {
                        Some(j) if builder.is_set(j) => {
                            return Err(de::Error::custom(format!("column {key:?} appears twice")));
                        }
                        Some(j) => j,
                        None => {
                            bounded(&key)?;
                            builder.column(&key, cells)
                        }
                    };
                    map.next_value_seed(CellSeed { builder, column })?;
                    cells += 1;
                }
                builder.end_row();
                Ok(())
            }
        }
        d.deserialize_map(V(self.0))
    }
}

/// A column name as the JSON text holds it: borrowed when it has no escapes.
struct ColumnName<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for ColumnName<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ColumnName<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a column name")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(ColumnName(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(ColumnName(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(ColumnName(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// A cell, written into its column.
struct CellSeed<'a> {
    builder: &'a mut Builder,
    column: usize,
}

impl<'de> DeserializeSeed<'de> for CellSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for CellSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string, number, boolean or null")
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.set(Value::Num(Decimal::from(v)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.set(Value::Num(Decimal::from(v)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        if !v.is_finite() {
            return Err(E::custom("the number is not finite"));
        }
        let n = float_decimal(v).ok_or_else(|| E::custom(format!("{v} is out of range")))?;
        self.set(Value::Num(n))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        self.set(Value::Bool(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        if v.trim().is_empty() {
            return self.set(Value::Empty);
        }
        bounded(v)?;
        self.set(Value::Text(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.set(Value::Empty)
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.set(Value::Empty)
    }
}

impl CellSeed<'_> {
    fn set<E>(self, value: Value) -> Result<(), E> {
        self.builder.set(self.column, value);
        Ok(())
    }
}

/// The number a JSON float was written as: the decimal of its shortest text,
/// which is the JSON text for the 15 significant digits a spreadsheet cell
/// can carry. Below 10⁹ with at most 6 decimals it is the first scale at
/// which the float is a whole number of units (exact: the units and the
/// power of ten are exact floats, so the division rounds like parsing does);
/// other floats go through their text.
fn float_decimal(v: f64) -> Option<Decimal> {
    if v.abs() < 1e9 && !(v == 0.0 && v.is_sign_negative()) {
        for scale in 0..=6 {
            let power = 10f64.powi(scale);
            let units = (v * power).round();
            if units / power == v {
                return Some(Decimal::new(units as i64, scale as u32));
            }
        }
    }
    Decimal::from_str_exact(&v.to_string())
        .or_else(|_| Decimal::from_scientific(&format!("{v:e}")))
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::dec;

    fn err(body: &str) -> AnalysisError {
        parse(body.as_bytes()).unwrap_err()
    }

    const ROWS: &str = r#"[{"fecha":"2025-01-03","cliente":"Ana","importe":19.99}]"#;

    #[test]
    fn excel_request_keeps_column_order_and_exact_numbers() {
        let body = r#"{"type":"excel","lang":"en","data":{"module":"ventas","files":[{"name":"a.xlsx","rows":[{"z":1,"importe":19.99,"a":"x","ok":true,"n":null}],"total_rows":9}]}}"#;
        let request = parse(body.as_bytes()).unwrap();
        assert_eq!(request.lang, Lang::En);
        let Kind::Excel { module, files } = request.kind else {
            panic!("excel")
        };
        assert_eq!(module, Module::Ventas);
        assert_eq!(files[0].total_rows, Some(9));
        let row = &files[0].rows[0].0;
        let names: Vec<&str> = row.iter().map(|(k, _)| &**k).collect();
        assert_eq!(names, ["z", "importe", "a", "ok", "n"]);
        assert_eq!(row[1].1, Cell::Number(dec!(19.99)));
        assert_eq!(row[3].1, Cell::Bool(true));
        assert_eq!(row[4].1, Cell::Empty);
    }

    #[test]
    fn errors_name_the_path() {
        let e = err(&format!(
            r#"{{"type":"excel","data":{{"module":"ventas","files":[{{"name":"a","rows":{ROWS},"extra":1}}]}}}}"#
        ));
        assert_eq!(
            (e.code, e.param.as_str()),
            ("parameter_unknown", "data.files[0].extra")
        );
        let e = err(r#"{"type":"excel","data":{"module":"ventas","files":[{"name":"a"}]}}"#);
        assert_eq!(
            (e.code, e.param.as_str()),
            ("parameter_missing", "data.files[0].rows")
        );
        let e = err(&format!(
            r#"{{"type":"excel","data":{{"module":"nada","files":[{{"name":"a","rows":{ROWS}}}]}}}}"#
        ));
        assert_eq!(
            (e.code, e.param.as_str()),
            ("parameter_invalid", "data.module")
        );
        let e = err(
            r#"{"type":"excel","data":{"module":"ventas","files":[{"name":"a","rows":[{"x":1},{"x":[1]}]}]}}"#,
        );
        assert_eq!(
            (e.code, e.param.as_str()),
            ("parameter_invalid", "data.files[0].rows[1].x")
        );
        let e =
            err(r#"{"type":"excel","data":{"module":"ventas","files":[{"name":"a","rows":[]}]}}"#);
        assert_eq!(
            (e.code, e.param.as_str()),
            ("parameter_invalid", "data.files[0].rows")
        );
        let e = err(&format!(
            r#"{{"type":"excel","lang":"fr","data":{{"module":"ventas","files":[{{"name":"a","rows":{ROWS}}}]}}}}"#
        ));
        assert_eq!(e.param, "lang");
        assert!(e.message.contains("es, en"));
        let e = err(r#"{"type":"excel""#);
        assert_eq!(e.code, "json_invalid");
        let e = err(r#"{"data":{}}"#);
        assert_eq!((e.code, e.param.as_str()), ("parameter_missing", "type"));
    }

    #[test]
    fn limits_are_too_large() {
        let rows = vec![r#"{"importe":1}"#; MAX_ROWS_PER_FILE + 1].join(",");
        let e = err(&format!(
            r#"{{"type":"excel","data":{{"module":"ventas","files":[{{"name":"a","rows":[{rows}]}}]}}}}"#
        ));
        assert!(e.too_large);
        assert_eq!(e.param, "data.files[0].rows");
        let long = "x".repeat(MAX_TEXT_CHARS + 1);
        let e = err(&format!(
            r#"{{"type":"excel","data":{{"module":"ventas","files":[{{"name":"a","rows":[{{"importe":"{long}"}}]}}]}}}}"#
        ));
        assert!(e.too_large);
        let files = vec![format!(r#"{{"name":"a","rows":{ROWS}}}"#); MAX_FILES + 1].join(",");
        let e = err(&format!(
            r#"{{"type":"folder","data":{{"files":[{files}]}}}}"#
        ));
        assert!(e.too_large);
        assert_eq!(e.param, "data.files");
    }

    #[test]
    fn compare_and_cuestionario_shapes() {
        let body = format!(
            r#"{{"type":"compare","data":{{"module":"ventas","a":{{"files":[{{"name":"a","rows":{ROWS}}}]}},"b":{{"files":[{{"name":"b","rows":{ROWS}}}]}}}}}}"#
        );
        assert!(matches!(
            parse(body.as_bytes()).unwrap().kind,
            Kind::Compare { .. }
        ));
        let request =
            parse(br#"{"type":"cuestionario","data":{"answers":{"FIN1":true,"FIN2":null}}}"#)
                .unwrap();
        let Kind::Cuestionario { answers } = request.kind else {
            panic!("cuestionario")
        };
        assert_eq!(answers["FIN1"], Some(true));
        assert_eq!(answers["FIN2"], None);
        let e = err(r#"{"type":"cuestionario","data":{"answers":{"XYZ9":true}}}"#);
        assert_eq!(
            (e.code, e.param.as_str()),
            ("parameter_invalid", "data.answers.XYZ9")
        );
    }

    #[test]
    fn floats_are_read_as_their_shortest_text() {
        let by_text = |v: f64| {
            Decimal::from_str_exact(&v.to_string())
                .or_else(|_| Decimal::from_scientific(&format!("{v:e}")))
                .ok()
        };
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut floats = vec![
            0.0,
            -0.0,
            0.1 + 0.2,
            1e-7,
            123_456_789.123_456,
            1e20,
            -2.5e-3,
        ];
        for _ in 0..50_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let units = (x >> 20) % 100_000_000_000;
            let sign = if x & 1 == 0 { 1.0 } else { -1.0 };
            floats.push(sign * units as f64 / 10f64.powi((x % 9) as i32));
        }
        for v in floats {
            assert_eq!(
                float_decimal(v).map(|d| d.serialize()),
                by_text(v).map(|d| d.serialize()),
                "{v}"
            );
        }
    }

    #[test]
    fn no_usable_column_is_a_validation_error() {
        let e = err(
            r#"{"type":"excel","data":{"module":"ventas","files":[{"name":"a","rows":[{"color":"rojo","talla":"M"}]}]}}"#,
        );
        assert_eq!(
            (e.code, e.param.as_str()),
            ("parameter_invalid", "data.files[0].rows")
        );
        assert!(e.message.contains("color"), "{}", e.message);
    }
}
