//! The analyze request as it arrives (`type`, `lang`, `title`, `data`), parsed
//! into a `Request` the engine trusts. Rows keep their columns in the order of
//! the JSON text; numbers are read from their text, so 19.99 stays 19.99.
//!
//! Wire shapes of `data`: excel `{module, files}`; compare `{module, a: {files},
//! b: {files}}` (a = earlier, b = later); folder `{files}`; cuestionario
//! `{answers: {FIN1: true, …}}` (null = does not apply). A file is `{name,
//! rows, total_rows?}`; a row maps column → string | number | bool | null.

use std::collections::BTreeMap;
use std::fmt;

use rust_decimal::Decimal;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use utoipa::ToSchema;

use super::AnalysisError;

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

    pub fn module(&self) -> Option<Module> {
        match self.kind {
            Kind::Excel { module, .. } | Kind::Compare { module, .. } => Some(module),
            _ => None,
        }
    }
}

/// Parses and validates the JSON body of `POST /api/v1/analyze`: shapes and
/// limits here, then the column check of the engine (a file in which none of
/// the module's amount columns can be found is a 400; a file with some but
/// not all is analysed and the report says what is missing).
pub fn parse(body: &[u8]) -> Result<Request, AnalysisError> {
    let head: Head = from_slice(body)?;
    let lang = match head.lang.as_deref() {
        None | Some("es") => Lang::Es,
        Some("en") => Lang::En,
        Some(other) => {
            return Err(AnalysisError::invalid(
                "parameter_invalid",
                "lang",
                format!("unknown language {other:?}; accepted values: es, en"),
            ));
        }
    };
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
                files: data.files.into_iter().map(Sheet::from).collect(),
            }
        }
        AnalysisType::Compare => {
            let body: Body<CompareData> = from_slice(body)?;
            let data = body.data;
            check_files(&data.a.files, "data.a.files")?;
            check_files(&data.b.files, "data.b.files")?;
            Kind::Compare {
                module: data.module,
                a: data.a.files.into_iter().map(Sheet::from).collect(),
                b: data.b.files.into_iter().map(Sheet::from).collect(),
            }
        }
        AnalysisType::Folder => {
            let body: Body<FolderData> = from_slice(body)?;
            check_files(&body.data.files, "data.files")?;
            Kind::Folder {
                files: body.data.files.into_iter().map(Sheet::from).collect(),
            }
        }
        AnalysisType::Cuestionario => {
            let body: Body<CuestionarioData> = from_slice(body)?;
            let answers = body.data.answers;
            super::cuestionario::check_answers(&answers)?;
            Kind::Cuestionario { answers }
        }
    };
    let request = Request {
        kind,
        lang,
        title: head.title,
    };
    check_rows_total(&request)?;
    super::validate(&request)?;
    Ok(request)
}

fn check_rows_total(request: &Request) -> Result<(), AnalysisError> {
    let total: usize = match &request.kind {
        Kind::Excel { files, .. } | Kind::Folder { files } => {
            files.iter().map(|f| f.rows.len()).sum()
        }
        Kind::Compare { a, b, .. } => a.iter().chain(b).map(|f| f.rows.len()).sum(),
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
        if file.rows.0.is_empty() {
            return Err(AnalysisError::invalid(
                "parameter_invalid",
                &format!("{param}[{i}].rows"),
                "the file has no rows".into(),
            ));
        }
        if file
            .rows
            .0
            .iter()
            .all(|r| r.0.iter().all(|(_, c)| *c == Cell::Empty))
        {
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

impl From<WireFile> for Sheet {
    fn from(file: WireFile) -> Self {
        Sheet {
            name: file.name.0,
            rows: file.rows.0,
            total_rows: file.total_rows,
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
        bounded(s).map(Text)
    }
}

fn bounded<E: de::Error>(s: String) -> Result<String, E> {
    if s.len() > MAX_TEXT_CHARS && s.chars().count() > MAX_TEXT_CHARS {
        return Err(E::custom(format!(
            "{LIMIT}a text longer than {MAX_TEXT_CHARS} characters"
        )));
    }
    Ok(s)
}

/// The rows of a file, at most `MAX_ROWS_PER_FILE`.
struct Rows(Vec<Row>);

impl<'de> Deserialize<'de> for Rows {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Rows;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an array of row objects")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Rows, A::Error> {
                let mut rows = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
                let mut width = 8;
                while let Some(row) = seq.next_element_seed(RowSeed(width))? {
                    width = row.0.len();
                    if rows.len() == MAX_ROWS_PER_FILE {
                        return Err(de::Error::custom(format!(
                            "{LIMIT}more than {MAX_ROWS_PER_FILE} rows in one file"
                        )));
                    }
                    rows.push(row);
                }
                Ok(Rows(rows))
            }
        }
        d.deserialize_seq(V)
    }
}

impl<'de> Deserialize<'de> for Row {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        RowSeed(8).deserialize(d)
    }
}

/// A row expected to have about `.0` cells (the previous row's count), so
/// that rows hold no spare capacity.
struct RowSeed(usize);

impl<'de> DeserializeSeed<'de> for RowSeed {
    type Value = Row;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Row, D::Error> {
        struct V(usize);
        impl<'de> Visitor<'de> for V {
            type Value = Row;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a row object mapping column names to cells")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Row, A::Error> {
                let mut cells: Vec<(String, Cell)> =
                    Vec::with_capacity(map.size_hint().unwrap_or(self.0).min(64));
                while let Some(key) = map.next_key::<String>()? {
                    let key = bounded(key)?;
                    if cells.len() == MAX_CELLS_PER_ROW {
                        return Err(de::Error::custom(format!(
                            "{LIMIT}more than {MAX_CELLS_PER_ROW} cells in one row"
                        )));
                    }
                    if cells.iter().any(|(k, _)| *k == key) {
                        return Err(de::Error::custom(format!("column {key:?} appears twice")));
                    }
                    let cell = map.next_value_seed(CellSeed)?;
                    cells.push((key, cell));
                }
                cells.shrink_to_fit();
                Ok(Row(cells))
            }
        }
        d.deserialize_map(V(self.0))
    }
}

struct CellSeed;

impl<'de> DeserializeSeed<'de> for CellSeed {
    type Value = Cell;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Cell, D::Error> {
        d.deserialize_any(CellVisitor)
    }
}

struct CellVisitor;

impl<'de> Visitor<'de> for CellVisitor {
    type Value = Cell;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string, number, boolean or null")
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Cell, E> {
        Ok(Cell::Number(Decimal::from(v)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Cell, E> {
        Ok(Cell::Number(Decimal::from(v)))
    }
    /// Through the shortest text of the float, which is the JSON text for
    /// the 15 significant digits a spreadsheet cell can carry.
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Cell, E> {
        if !v.is_finite() {
            return Err(E::custom("the number is not finite"));
        }
        Decimal::from_str_exact(&v.to_string())
            .or_else(|_| Decimal::from_scientific(&format!("{v:e}")))
            .map(Cell::Number)
            .map_err(|_| E::custom(format!("{v} is out of range")))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Cell, E> {
        Ok(Cell::Bool(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Cell, E> {
        self.visit_string(v.to_string())
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Cell, E> {
        if v.trim().is_empty() {
            return Ok(Cell::Empty);
        }
        bounded(v).map(Cell::Text)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Cell, E> {
        Ok(Cell::Empty)
    }
    fn visit_none<E: de::Error>(self) -> Result<Cell, E> {
        Ok(Cell::Empty)
    }
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
        let names: Vec<&str> = row.iter().map(|(k, _)| k.as_str()).collect();
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
