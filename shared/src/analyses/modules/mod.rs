//! One file per module of reference §2; each reads its frames, computes the
//! key figures, applies its §3 rules and writes the texts through a Builder.

pub mod caja;
pub mod entradas;
pub mod servicios;
pub mod stock;
pub mod total;
pub mod ventas;

use std::collections::{BTreeMap, HashMap};
use std::ops::Index;

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::builder::Builder;
use super::detect::Frame;
use super::normalize::name_key;
use super::report::{Period, Severity, Unit};
use super::request::Module;
use super::roles::Role;

/// Names folded to one key per entity (§2.1), the first spelling kept for
/// display; raw texts are looked up once.
#[derive(Default)]
pub struct Names<'a> {
    raw: HashMap<&'a str, usize>,
    keys: BTreeMap<String, usize>,
    pub display: Vec<String>,
}

impl<'a> Names<'a> {
    pub fn id(&mut self, raw: &'a str) -> Option<usize> {
        if let Some(id) = self.raw.get(raw) {
            return Some(*id);
        }
        let key = name_key(raw);
        if key.is_empty() {
            return None;
        }
        let next = self.display.len();
        let id = *self.keys.entry(key).or_insert(next);
        if id == next {
            self.display.push(raw.trim().to_string());
        }
        self.raw.insert(raw, id);
        Some(id)
    }
}

/// A frame's numbers for one role, read as `x[i]`: None in every row when
/// the frame has no column for the role (and nothing is allocated for it).
pub struct Nums(Option<Vec<Option<Decimal>>>);

pub fn col(f: &Frame, role: Role) -> Nums {
    Nums(f.nums(role))
}

impl Index<usize> for Nums {
    type Output = Option<Decimal>;

    fn index(&self, i: usize) -> &Option<Decimal> {
        match &self.0 {
            Some(column) => &column[i],
            None => &None,
        }
    }
}

/// Per-entity totals keyed by display name, for the stats functions.
pub fn by_name(
    names: &Names,
    totals: &BTreeMap<usize, rust_decimal::Decimal>,
) -> BTreeMap<String, rust_decimal::Decimal> {
    totals
        .iter()
        .map(|(id, x)| (names.display[*id].clone(), *x))
        .collect()
}

/// The full row count of the sheets when any was sent cut (the others
/// count as complete), else None.
pub fn sheet_total(frames: &[Frame]) -> Option<u64> {
    frames
        .iter()
        .any(|f| f.table.total_rows.is_some())
        .then(|| {
            frames
                .iter()
                .map(|f| f.table.total_rows.unwrap_or(f.table.rows_received as u64))
                .sum()
        })
}

/// First and last date present.
pub fn period(dates: impl Iterator<Item = NaiveDate>) -> Option<Period> {
    let mut range: Option<(NaiveDate, NaiveDate)> = None;
    for d in dates {
        range = Some(match range {
            None => (d, d),
            Some((a, b)) => (a.min(d), b.max(d)),
        });
    }
    range.map(|(from, to)| Period { from, to })
}

/// Dates before 2000 or more than a year after `as_of` are kept but noted.
pub fn note_odd_dates(b: &mut Builder, dates: &[NaiveDate], as_of: NaiveDate) {
    let limit = as_of + chrono::Duration::days(366);
    let old = NaiveDate::from_ymd_opt(2000, 1, 1).unwrap_or(as_of);
    let odd = dates.iter().filter(|d| **d < old || **d > limit).count();
    if odd > 0 {
        b.note(
            format!("{odd} fechas anteriores a 2000 o de más de un año después de hoy: revísalas."),
            format!("{odd} dates before 2000 or over a year after today: check them."),
        );
    }
}

/// Amounts with a modified z-score over 3.5 are listed in the data-quality
/// note, never removed.
pub fn note_outliers(b: &mut Builder, amounts: impl Iterator<Item = rust_decimal::Decimal>) {
    let xs: Vec<f64> = amounts.map(super::stats::to_f64).collect();
    let n = super::stats::outliers(&xs);
    if n > 0 {
        b.note(
            format!("{n} importes atípicos (z-score modificado por encima de 3,5): revísalos; se han contado."),
            format!("{n} unusual amounts (modified z-score above 3.5): check them; they are counted."),
        );
    }
}

/// The degraded report of §1.5: the module's must-have columns are missing.
pub fn missing(b: &mut Builder, module: Module, frames: &[Frame], what: (&str, &str)) {
    let rows: usize = frames.iter().map(Frame::len).sum();
    b.scope(rows, None, None);
    let columns: usize = frames.iter().map(|f| f.columns.len()).sum();
    let seen = b.fig(
        "columns_seen",
        ("Columnas leídas", "Columns read"),
        columns.into(),
        Unit::Count,
    );
    for frame in frames {
        b.note_frame(frame, &[]);
    }
    b.quality.rows_analysed = 0;
    b.sentence(b.pick(
        format!(
            "No se ha encontrado ninguna columna de {} entre las {seen} columnas leídas.",
            what.0
        ),
        format!(
            "No {} column was found among the {seen} columns read.",
            what.1
        ),
    ));
    let text = b.pick(
        format!(
            "Añade una columna de {} para poder analizar {}.",
            what.0,
            module.as_str()
        ),
        format!(
            "Add a {} column so that {} can be analysed.",
            what.1,
            module.as_str()
        ),
    );
    let action = text.clone();
    b.priority(
        "DATA",
        Severity::High,
        rust_decimal::Decimal::ZERO,
        text,
        super::report::Horizon::Week,
        action,
    );
}

/// Whether a frame has at least one of the roles.
pub fn has_any(frame: &Frame, roles: &[Role]) -> bool {
    roles.iter().any(|r| frame.has(*r))
}

/// One sheet through one module's `analyze`: the report, for the modules' tests.
#[cfg(test)]
pub(crate) fn report_of(
    sheet: &super::request::Sheet,
    module: Module,
    lang: super::request::Lang,
    as_of: NaiveDate,
    analyze: fn(&mut Builder, &[Frame], NaiveDate),
) -> super::report::Report {
    let frames = vec![super::detect::frame(sheet, module)];
    let mut b = Builder::new(lang);
    analyze(&mut b, &frames, as_of);
    b.finish(as_of)
}

/// The value of key figure `id` of a report (panics when it is missing).
#[cfg(test)]
pub(crate) fn figure(report: &super::report::Report, id: &str) -> rust_decimal::Decimal {
    report
        .key_figures
        .iter()
        .find(|f| f.id == id)
        .unwrap_or_else(|| panic!("no key figure {id}"))
        .value
}
