//! Analyses: a deterministic engine over the rows of spreadsheets (modules
//! `stock`, `ventas`, `servicios`, `entradas`, `caja`, `total`), two periods
//! compared, a folder of files, and the 30-question cuestionario. The same
//! request always gives the same report, byte for byte. Pure code: the use
//! case hands in today's date (`as_of`, Europe/Madrid).
//!
//! Missing columns (reference §1.5 against the API's 400): a file in which
//! none of the module's amount columns (`roles::amount_roles`) can be found
//! is a validation error naming the headers seen; a file with some of them
//! but not enough for the module's must-have (e.g. `cantidad` without
//! `precio`) is analysed and the report says what to add.

pub mod actions;
pub mod builder;
pub mod cells;
pub mod compare;
pub mod cuestionario;
pub mod detect;
pub mod folder;
pub mod format;
pub mod glossary;
pub mod modules;
pub mod normalize;
pub mod report;
pub mod request;
pub mod roles;
pub mod sample;
pub mod sniff;
pub mod stats;

use chrono::NaiveDate;

use builder::Builder;
use detect::{File, Frame};
pub use report::{Action, Analysis, Report};
pub use request::{AnalysisType, Cell, Kind, Lang, Module, Request, Row, Sheet, parse, read};

/// A request the engine cannot analyse; `param` is the request path at fault
/// (e.g. `data.files[0].rows`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct AnalysisError {
    pub code: &'static str,
    pub param: String,
    pub message: String,
    /// A limit was exceeded (rows, files, cells, text length): the HTTP
    /// layer answers 413 instead of 400.
    pub too_large: bool,
}

impl AnalysisError {
    pub fn invalid(code: &'static str, param: &str, message: String) -> Self {
        AnalysisError {
            code,
            param: param.to_string(),
            message,
            too_large: false,
        }
    }

    /// Code `analysis_too_large`.
    pub fn too_large(param: &str, message: String) -> Self {
        AnalysisError {
            code: "analysis_too_large",
            param: param.to_string(),
            message,
            too_large: true,
        }
    }
}

/// Analyses a validated request as of `as_of` (today in Europe/Madrid).
pub fn analyze<F: File>(request: &Request<F>, as_of: NaiveDate) -> Result<Analysis, AnalysisError> {
    let lang = request.lang;
    let mut b = Builder::new(lang);
    match &request.kind {
        Kind::Excel { module, files } => {
            let frames = frames(*module, files, "data.files", detect::frame::<F>)?;
            run_module(&mut b, *module, &frames, as_of);
        }
        Kind::Compare {
            module,
            a,
            b: later,
        } => {
            let earlier = frames(*module, a, "data.a.files", detect::frame::<F>)?;
            let later = frames(*module, later, "data.b.files", detect::frame::<F>)?;
            compare::analyze(&mut b, *module, &earlier, &later, as_of);
        }
        Kind::Folder { files } => {
            let scored = folder::classify(files, detect::frame::<F>)?;
            folder::analyze(&mut b, &scored, as_of);
        }
        Kind::Cuestionario { answers } => {
            cuestionario::check_answers(answers)?;
            cuestionario::analyze(&mut b, answers);
        }
    }
    Ok(finish(request, b, as_of))
}

/// Checks what `read` cannot see from the shapes alone: every file has at
/// least one usable amount column for its module.
pub fn validate<F: File>(request: &Request<F>) -> Result<(), AnalysisError> {
    let check = detect::check_frame::<F>;
    match &request.kind {
        Kind::Excel { module, files } => frames(*module, files, "data.files", check).map(drop),
        Kind::Compare { module, a, b } => {
            frames(*module, a, "data.a.files", check)?;
            frames(*module, b, "data.b.files", check).map(drop)
        }
        Kind::Folder { files } => folder::classify(files, check).map(drop),
        Kind::Cuestionario { answers } => cuestionario::check_answers(answers),
    }
}

/// The analysis of built-in sample data of the request's type and module
/// (test keys): same shape as a real one, always the same.
pub fn sample<F>(request: &Request<F>, as_of: NaiveDate) -> Analysis {
    let sample = sample::request(request);
    match analyze(&sample, as_of) {
        Ok(analysis) => analysis,
        Err(e) => unreachable!("the built-in sample is valid: {e}"),
    }
}

/// How a file becomes a frame: `detect::frame` (all rows) or
/// `detect::check_frame` (the rows validation needs).
pub type Framer<F> = for<'a> fn(&'a F, Module) -> Frame<'a>;

fn frames<'a, F: File>(
    module: Module,
    files: &'a [F],
    param: &str,
    framer: Framer<F>,
) -> Result<Vec<Frame<'a>>, AnalysisError> {
    files
        .iter()
        .enumerate()
        .map(|(i, sheet)| {
            let frame = framer(sheet, module);
            if modules::has_any(&frame, roles::amount_roles(module)) {
                Ok(frame)
            } else {
                let wanted: Vec<&str> = roles::amount_roles(module)
                    .iter()
                    .map(|r| r.name(Lang::En))
                    .collect();
                Err(AnalysisError::invalid(
                    "parameter_invalid",
                    &format!("{param}[{i}].rows"),
                    format!(
                        "no column for module `{}` was found: expected one of {} ; columns seen: {}",
                        module.as_str(),
                        wanted.join(", "),
                        frame.seen()
                    ),
                ))
            }
        })
        .collect()
}

pub(crate) fn run_module(b: &mut Builder, module: Module, frames: &[Frame], as_of: NaiveDate) {
    match module {
        Module::Ventas => modules::ventas::analyze(b, frames, as_of),
        Module::Stock => modules::stock::analyze(b, frames, as_of),
        Module::Servicios => modules::servicios::analyze(b, frames, as_of),
        Module::Entradas => modules::entradas::analyze(b, frames, as_of),
        Module::Caja => modules::caja::analyze(b, frames, as_of),
        Module::Total => modules::total::analyze(b, frames, as_of),
    }
}

fn default_title<F>(request: &Request<F>) -> String {
    let module = request.module().map(|m| match (m, request.lang) {
        (Module::Stock, Lang::Es) => "stock",
        (Module::Ventas, Lang::Es) => "ventas",
        (Module::Servicios, Lang::Es) => "servicios y horas",
        (Module::Entradas, Lang::Es) => "compras y gastos",
        (Module::Caja, Lang::Es) => "caja",
        (Module::Total, Lang::Es) => "resultados",
        (Module::Stock, Lang::En) => "stock",
        (Module::Ventas, Lang::En) => "sales",
        (Module::Servicios, Lang::En) => "services and hours",
        (Module::Entradas, Lang::En) => "purchases and costs",
        (Module::Caja, Lang::En) => "cash",
        (Module::Total, Lang::En) => "profit and loss",
    });
    match (request.analysis_type(), request.lang, module) {
        (AnalysisType::Excel, Lang::Es, Some(m)) => format!("Análisis de {m}"),
        (AnalysisType::Excel, Lang::En, Some(m)) => format!("Analysis of {m}"),
        (AnalysisType::Compare, Lang::Es, Some(m)) => format!("Comparación de {m}"),
        (AnalysisType::Compare, Lang::En, Some(m)) => format!("Comparison of {m}"),
        (AnalysisType::Folder, Lang::Es, _) => "Análisis de carpeta".into(),
        (AnalysisType::Folder, Lang::En, _) => "Folder analysis".into(),
        (_, Lang::Es, _) => "Cuestionario de salud del negocio".into(),
        (_, Lang::En, _) => "Business health questionnaire".into(),
    }
}

fn finish<F>(request: &Request<F>, b: Builder, as_of: NaiveDate) -> Analysis {
    let headline = b.headline();
    let actions = b.actions.clone();
    let report = b.finish(as_of);
    let title = request
        .title
        .clone()
        .unwrap_or_else(|| default_title(request));
    Analysis {
        kind: request.analysis_type(),
        module: request.module(),
        headline: format!("{title}: {headline}"),
        title,
        lang: request.lang,
        report,
        actions,
    }
}
