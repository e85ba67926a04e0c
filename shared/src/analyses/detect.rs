//! From a sheet's rows to typed columns with roles (reference §1): columns
//! in the order they came, the header found inside the data when the keys are
//! placeholders (`__EMPTY`, `Unnamed: 0`), wide period-per-column layouts
//! melted to long rows, each column sniffed, and roles assigned greedily by
//! 0.6 × header score + 0.4 × type fit.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::cells::{self, Builder, Cells, Slot};
use super::normalize::{self, Header};
use super::request::{Lang, Module, Sheet};
use super::roles::{self, Expect, Role};
use super::sniff::{self, DateOrder, DecimalMark, Value};

/// Cells sniffed per column to judge its type (evenly spread over the rows).
const SNIFF_CELLS: usize = 2_000;
/// The lowest score that gives a column a role.
const MIN_SCORE: f64 = 0.5;
/// Rows scanned for a header inside the data.
const HEADER_SCAN_ROWS: usize = 10;

/// A file as a request holds it: rows built in code (`Sheet`) or columns
/// read from a JSON body (`Cells`). The engine reads columns.
pub trait File {
    fn cells(&self) -> Cow<'_, Cells>;
}

impl File for Cells {
    fn cells(&self) -> Cow<'_, Cells> {
        Cow::Borrowed(self)
    }
}

impl File for Sheet {
    fn cells(&self) -> Cow<'_, Cells> {
        let mut b = Builder::default();
        for row in &self.rows {
            for (at, (key, cell)) in row.0.iter().enumerate() {
                let j = b.column(key, at);
                b.set(j, Value::from(cell));
            }
            b.end_row();
        }
        Cow::Owned(b.finish(self.name.clone(), self.total_rows))
    }
}

/// A file's cells as the engine sees them: borrowed from the request (or
/// made from its rows), without the rows above a header found inside the
/// data, or melted.
#[derive(Clone, Debug)]
pub struct Table<'a> {
    pub file: String,
    pub headers: Vec<String>,
    cells: Cow<'a, Cells>,
    /// The first row of `cells` in the table.
    first: usize,
    pub rows_received: usize,
    /// The sheet's full row count when the client sent a cut.
    pub total_rows: Option<u64>,
    /// Rows at and above a header found inside the data.
    pub header_rows: usize,
    /// A period-per-column layout melted to (concepto, periodo, importe).
    pub melted: bool,
}

impl Table<'_> {
    pub fn len(&self) -> usize {
        self.cells.rows - self.first
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Column `j`'s slots, one per row, with its texts.
    fn column(&self, j: usize) -> (&[Slot], &cells::Column) {
        let column = &self.cells.columns[j];
        (&column.slots[self.first..], column)
    }

    fn value(&self, j: usize, i: usize) -> Value<'_> {
        let (slots, column) = self.column(j);
        column.value(slots[i])
    }

    fn values(&self, j: usize) -> impl Iterator<Item = Value<'_>> {
        let (slots, column) = self.column(j);
        slots.iter().map(|s| column.value(*s))
    }

    /// `f` of every value of column `j`, worked out once per distinct text.
    fn map<'s, T: Clone>(&'s self, j: usize, f: impl FnMut(Value<'s>) -> T) -> Vec<T> {
        let (slots, column) = self.column(j);
        map_slots(slots, column, f)
    }
}

/// `f` of the value of every slot of `column`, worked out once per distinct
/// text.
fn map_slots<'a, T: Clone>(
    slots: &[Slot],
    column: &'a cells::Column,
    mut f: impl FnMut(Value<'a>) -> T,
) -> Vec<T> {
    let mut texts: Vec<Option<T>> = vec![None; column.texts.len()];
    slots
        .iter()
        .map(|slot| match *slot {
            Slot::Text(id) => texts[id as usize]
                .get_or_insert_with(|| f(column.value(*slot)))
                .clone(),
            _ => f(column.value(*slot)),
        })
        .collect()
}

/// The table of a file's cells; `rows_received` counts the rows the client
/// sent (`cells` may hold only some of them).
fn table(cells: Cow<'_, Cells>, rows_received: usize) -> Table<'_> {
    let mut table = Table {
        file: cells.name.clone(),
        headers: cells.headers.clone(),
        total_rows: cells.total_rows,
        cells,
        first: 0,
        rows_received,
        header_rows: 0,
        melted: false,
    };
    promote_header(&mut table);
    melt(&mut table);
    table
}

/// Keys that say the real header is inside the data.
fn generic(key: &str) -> bool {
    let k = key.trim();
    let lower = k.to_ascii_lowercase();
    k.is_empty()
        || k.starts_with("__EMPTY")
        || lower.starts_with("unnamed")
        || lower.starts_with("column") && lower[6..].bytes().all(|b| b.is_ascii_digit())
        || lower.starts_with("field") && lower[5..].bytes().all(|b| b.is_ascii_digit())
        || k.bytes().all(|b| b.is_ascii_digit())
        || (k.len() <= 2 && k.bytes().all(|b| b.is_ascii_uppercase()))
}

fn all_phrases() -> Vec<Vec<String>> {
    let mut set = BTreeSet::new();
    for module in Module::ALL {
        for (_, synonyms) in roles::roles(module) {
            for s in synonyms {
                set.insert(normalize::phrase(s));
            }
        }
    }
    set.into_iter().collect()
}

fn cell_text(value: Value<'_>) -> Option<Cow<'_, str>> {
    match value {
        Value::Text(t) => Some(Cow::Borrowed(t)),
        Value::Num(n) => Some(Cow::Owned(n.to_string())),
        Value::Date(d) => Some(Cow::Owned(d.to_string())),
        _ => None,
    }
}

/// §1.1 step 7: with placeholder keys, the row among the first ten with most
/// synonym hits (≥ 2) becomes the header and the rows above it are dropped.
fn promote_header(table: &mut Table) {
    let generic_count = table.headers.iter().filter(|h| generic(h)).count();
    if generic_count * 2 < table.headers.len() || table.headers.is_empty() {
        return;
    }
    let phrases = all_phrases();
    let hits = |i: usize| {
        (0..table.headers.len())
            .filter(|j| match table.value(*j, i) {
                Value::Text(t) => {
                    let h = normalize::header(t);
                    phrases.iter().any(|p| normalize::score(&h, p) >= 0.75)
                }
                _ => false,
            })
            .count()
    };
    let best = (0..table.len().min(HEADER_SCAN_ROWS))
        .map(|i| (hits(i), i))
        .filter(|(h, _)| *h >= 2)
        .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    let Some((_, row)) = best else { return };
    for j in 0..table.headers.len() {
        if let Some(text) = cell_text(table.value(j, row)) {
            table.headers[j] = text.into_owned();
        }
    }
    table.first += row + 1;
    table.header_rows = row + 1;
}

/// §1.1 step 8: ≥ 3 period headers → long rows (concepto, periodo, importe).
fn melt(table: &mut Table) {
    let periods: Vec<(usize, u32)> = table
        .headers
        .iter()
        .enumerate()
        .filter_map(|(j, h)| sniff::period_header(h).map(|p| (j, p)))
        .collect();
    if periods.len() < 3 {
        return;
    }
    let concept = (0..table.headers.len())
        .filter(|j| !periods.iter().any(|(p, _)| p == j))
        .find(|j| table.values(*j).any(|v| matches!(v, Value::Text(_))));
    let mut melted = Builder::default();
    for header in ["concepto", "periodo", "importe"] {
        melted.column(header, melted.width());
    }
    for i in 0..table.len() {
        for (j, key) in &periods {
            let value = table.value(*j, i);
            if value.is_empty() {
                continue;
            }
            melted.set(0, concept.map_or(Value::Empty, |c| table.value(c, i)));
            let (year, month) = (*key / 100, *key % 100);
            melted.set(
                1,
                match NaiveDate::from_ymd_opt(year as i32, month, 1) {
                    Some(d) if year > 0 => Value::Date(d),
                    _ => Value::Empty,
                },
            );
            melted.set(2, value);
            melted.end_row();
        }
    }
    let cells = melted.finish(table.file.clone(), table.total_rows);
    table.headers = cells.headers.clone();
    table.cells = Cow::Owned(cells);
    table.first = 0;
    table.melted = true;
}

/// What a column's values look like.
#[derive(Clone, Debug)]
pub struct Column {
    pub header: Header,
    pub generic: bool,
    pub mark: DecimalMark,
    pub order: DateOrder,
    pub non_empty: usize,
    pub number: f64,
    pub date: f64,
    pub boolean: f64,
    pub text: f64,
    pub vat_rate: f64,
    pub distinct: f64,
    pub decimals: bool,
    pub abs_sum: f64,
}

const VAT_RATES: [Decimal; 12] = [
    Decimal::ZERO,
    Decimal::from_parts(2, 0, 0, false, 0),
    Decimal::from_parts(3, 0, 0, false, 0),
    Decimal::from_parts(4, 0, 0, false, 0),
    Decimal::from_parts(5, 0, 0, false, 0),
    Decimal::from_parts(7, 0, 0, false, 0),
    Decimal::from_parts(95, 0, 0, false, 1),
    Decimal::from_parts(10, 0, 0, false, 0),
    Decimal::from_parts(135, 0, 0, false, 1),
    Decimal::from_parts(15, 0, 0, false, 0),
    Decimal::from_parts(20, 0, 0, false, 0),
    Decimal::from_parts(21, 0, 0, false, 0),
];

/// A VAT or IGIC rate (as % or as a fraction).
pub fn is_vat_rate(n: Decimal) -> bool {
    let pct = if n > Decimal::ZERO && n < Decimal::ONE {
        n * Decimal::ONE_HUNDRED
    } else {
        n
    };
    VAT_RATES.contains(&pct.normalize())
}

/// What sniffing learns of one value.
#[derive(Clone)]
struct Facts {
    number: Option<Decimal>,
    date: bool,
    boolean: bool,
    text: bool,
}

/// Sniffs an even sample of column `j`'s cells (each distinct text once).
fn sniff_column(table: &Table, j: usize) -> Column {
    let header = &table.headers[j];
    let step = (table.len() / SNIFF_CELLS).max(1);
    let (slots, column) = table.column(j);
    let sample: Vec<Slot> = slots
        .iter()
        .step_by(step)
        .filter(|s| **s != Slot::Empty)
        .copied()
        .collect();
    let mark = sniff::majority_mark(map_slots(&sample, column, sniff::mark_evidence).into_iter());
    let order = sniff::order_of(map_slots(&sample, column, sniff::order_evidence).into_iter());
    let facts = map_slots(&sample, column, |v| {
        let number = sniff::number(v, mark);
        let date = sniff::date(v, order).is_some();
        Facts {
            number,
            date,
            boolean: sniff::boolean(v).is_some(),
            text: matches!(v, Value::Text(_)) && number.is_none() && !date,
        }
    });
    let n = sample.len().max(1) as f64;
    let share = |f: fn(&Facts) -> bool| facts.iter().filter(|x| f(x)).count() as f64 / n;
    let numbers: Vec<Decimal> = facts.iter().filter_map(|x| x.number).collect();
    let distinct: BTreeSet<Cow<str>> = sample
        .iter()
        .filter_map(|s| cell_text(column.value(*s)))
        .collect();
    Column {
        header: normalize::header(header),
        generic: generic(header),
        mark,
        order,
        non_empty: sample.len(),
        number: numbers.len() as f64 / n,
        date: share(|x| x.date),
        boolean: share(|x| x.boolean),
        text: share(|x| x.text),
        vat_rate: numbers.iter().filter(|x| is_vat_rate(**x)).count() as f64 / n,
        distinct: distinct.len() as f64 / n,
        decimals: numbers.iter().any(|x| !x.fract().is_zero()),
        abs_sum: numbers
            .iter()
            .map(|x| f64::try_from(x.abs()).unwrap_or(0.0))
            .sum(),
    }
}

fn fit(expect: Expect, column: &Column) -> f64 {
    match expect {
        Expect::Date => column.date,
        Expect::Number => column.number,
        Expect::VatRate => column.vat_rate,
        Expect::Text => column.text,
        Expect::Id => {
            if column.non_empty > 0 {
                1.0
            } else {
                0.0
            }
        }
        Expect::Bool => column.boolean.max(column.date),
    }
}

/// §1.1 step 6: disambiguators that rule a role out for a header.
fn vetoed(role: Role, header: &Header) -> bool {
    let has = |w: &str| header.has(w);
    let cost = has("coste") || has("costo") || has("compra") || has("cost");
    match role {
        Role::Precio | Role::PrecioVenta | Role::Tarifa => cost,
        Role::Importe => has("iva") || has("unitario") || cost,
        Role::Base => has("total") && !has("sin"),
        Role::Total => has("sin") || has("neto") || has("base") || has("linea"),
        Role::CuotaIva => header.hints.rate || has("tipo"),
        Role::TipoIva => {
            has("cuota") || has("importe") || (header.hints.money && !header.hints.rate)
        }
        Role::Coste => has("hora"),
        Role::Existencias => has("vendidas") || has("minimo") || has("maximo"),
        Role::Fecha => has("vencimiento") || has("caducidad") || has("ultima"),
        _ => false,
    }
}

fn header_score(role: Role, header: &Header, phrases: &[Vec<String>]) -> f64 {
    if vetoed(role, header) {
        return 0.0;
    }
    phrases
        .iter()
        .map(|p| normalize::score(header, p))
        .fold(0.0, f64::max)
}

/// A table with its columns sniffed and roles given.
#[derive(Clone, Debug)]
pub struct Frame<'a> {
    pub table: Table<'a>,
    pub columns: Vec<Column>,
    /// Role → column index and whether the header (not only values) matched.
    pub roles: BTreeMap<Role, (usize, bool)>,
}

pub fn frame<F: File>(file: &F, module: Module) -> Frame<'_> {
    let cells = file.cells();
    let rows = cells.rows;
    framed(table(cells, rows), module)
}

/// The frame of the rows a check needs: the first ten (a header inside the
/// data) and the rows the sniffing samples, so that the roles found are
/// those of the full frame at a fraction of the cost.
pub fn check_frame<F: File>(file: &F, module: Module) -> Frame<'_> {
    let cells = file.cells();
    let step = (cells.rows / SNIFF_CELLS).max(1);
    let sample = cells.select((0..cells.rows).filter(|i| *i < HEADER_SCAN_ROWS || i % step == 0));
    framed(table(Cow::Owned(sample), cells.rows), module)
}

fn framed(table: Table<'_>, module: Module) -> Frame<'_> {
    let columns: Vec<Column> = (0..table.headers.len())
        .map(|j| sniff_column(&table, j))
        .collect();
    let roles = assign(module, &columns);
    Frame {
        table,
        columns,
        roles,
    }
}

fn assign(module: Module, columns: &[Column]) -> BTreeMap<Role, (usize, bool)> {
    let specs: Vec<(Role, Vec<Vec<String>>)> = roles::roles(module)
        .into_iter()
        .map(|(r, syn)| (r, syn.iter().map(|s| normalize::phrase(s)).collect()))
        .collect();
    let mut candidates: Vec<(f64, usize, usize)> = Vec::new();
    for (j, column) in columns.iter().enumerate() {
        if column.non_empty == 0 {
            continue;
        }
        for (k, (role, phrases)) in specs.iter().enumerate() {
            let h = header_score(*role, &column.header, phrases);
            let score = 0.6 * h + 0.4 * fit(role.expect(), column);
            if h > 0.0 && score >= MIN_SCORE {
                candidates.push((score, j, k));
            }
        }
    }
    candidates.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let mut roles: BTreeMap<Role, (usize, bool)> = BTreeMap::new();
    let mut taken = BTreeSet::new();
    for (_, j, k) in candidates {
        let role = specs[k].0;
        if taken.contains(&j) || roles.contains_key(&role) {
            continue;
        }
        roles.insert(role, (j, true));
        taken.insert(j);
    }
    by_values(module, columns, &mut roles, &taken);
    roles
}

/// §1.3: columns without a usable header get a role from their values alone.
fn by_values(
    module: Module,
    columns: &[Column],
    roles: &mut BTreeMap<Role, (usize, bool)>,
    taken: &BTreeSet<usize>,
) {
    let free: Vec<usize> = (0..columns.len())
        .filter(|j| !taken.contains(j) && columns[*j].generic && columns[*j].non_empty > 0)
        .collect();
    let dates: Vec<usize> = free
        .iter()
        .copied()
        .filter(|j| columns[*j].date >= 0.9)
        .collect();
    if let [only] = dates.as_slice()
        && !roles.contains_key(&Role::Fecha)
    {
        roles.insert(Role::Fecha, (*only, false));
    }
    let amount = match module {
        Module::Stock => Role::Existencias,
        Module::Servicios | Module::Ventas | Module::Caja | Module::Total => Role::Importe,
        Module::Entradas => Role::Base,
    };
    let biggest = free
        .iter()
        .copied()
        .filter(|j| columns[*j].number >= 0.9 && columns[*j].date < 0.9)
        .filter(|j| columns[*j].decimals || module == Module::Stock)
        .max_by(|a, b| {
            columns[*a]
                .abs_sum
                .total_cmp(&columns[*b].abs_sum)
                .then(b.cmp(a))
        });
    if let Some(j) = biggest
        && !roles.contains_key(&amount)
    {
        roles.insert(amount, (j, false));
    }
    let entity = match module {
        Module::Ventas | Module::Servicios => Role::Cliente,
        Module::Stock => Role::Descripcion,
        Module::Entradas => Role::Proveedor,
        Module::Caja | Module::Total => Role::Concepto,
    };
    let text = free.iter().copied().find(|j| {
        let c = &columns[*j];
        c.text >= 0.9 && (0.01..=0.5).contains(&c.distinct)
    });
    if let Some(j) = text
        && !roles.contains_key(&entity)
    {
        roles.insert(entity, (j, false));
    }
}

impl Frame<'_> {
    pub fn len(&self) -> usize {
        self.table.len()
    }

    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    pub fn has(&self, role: Role) -> bool {
        self.roles.contains_key(&role)
    }

    /// The column given `role`: its index and what it looks like.
    fn column(&self, role: Role) -> Option<(usize, &Column)> {
        let (j, _) = *self.roles.get(&role)?;
        Some((j, &self.columns[j]))
    }

    pub fn column_header(&self, role: Role) -> Option<&Header> {
        let (j, _) = *self.roles.get(&role)?;
        Some(&self.columns[j].header)
    }

    pub fn header(&self, role: Role) -> Option<&str> {
        let (j, _) = *self.roles.get(&role)?;
        Some(&self.table.headers[j])
    }

    pub fn nums(&self, role: Role) -> Option<Vec<Option<Decimal>>> {
        let (j, column) = self.column(role)?;
        let mut out = self.table.map(j, |v| {
            sniff::number(v, column.mark).or_else(|| {
                (role == Role::Horas)
                    .then(|| sniff::duration_hours(v))
                    .flatten()
            })
        });
        let rate = matches!(role, Role::TipoIva | Role::Descuento) || column.header.hints.rate;
        if rate && out.iter().flatten().all(|x| x.abs() <= Decimal::ONE) {
            for x in out.iter_mut().flatten() {
                *x *= Decimal::ONE_HUNDRED;
            }
        }
        Some(out)
    }

    pub fn dates(&self, role: Role) -> Option<Vec<Option<NaiveDate>>> {
        let (j, column) = self.column(role)?;
        Some(self.table.map(j, |v| sniff::date(v, column.order)))
    }

    pub fn texts(&self, role: Role) -> Option<Vec<Option<Cow<'_, str>>>> {
        let (j, _) = self.column(role)?;
        Some(self.table.values(j).map(cell_text).collect())
    }

    /// The text cells of the role's column, read row by row (`PerText`).
    pub fn per_text<T: Clone>(&self, role: Role) -> Option<PerText<'_, T>> {
        let (j, _) = self.column(role)?;
        let (slots, column) = self.table.column(j);
        Some(PerText {
            slots,
            column,
            done: vec![None; column.texts.len()],
        })
    }

    /// Yes/no; a date (e.g. "fecha cobro") counts as yes.
    pub fn bools(&self, role: Role) -> Option<Vec<Option<bool>>> {
        let (j, column) = self.column(role)?;
        Some(self.table.map(j, |v| {
            sniff::boolean(v).or_else(|| sniff::date(v, column.order).map(|_| true))
        }))
    }

    /// Rows that are totals or subtotals of the sheet ("Total", "Suma").
    pub fn total_rows(&self) -> Vec<bool> {
        let mut totals = vec![false; self.len()];
        for j in (0..self.columns.len()).filter(|j| self.columns[*j].text > 0.0) {
            let labels = self.table.map(j, |v| match v {
                Value::Text(t) => is_total_label(t),
                _ => false,
            });
            for (total, label) in totals.iter_mut().zip(labels) {
                *total |= label;
            }
        }
        totals
    }

    /// Which columns were used and how, and which were left out.
    pub fn mapping_note(&self, lang: Lang) -> (Vec<(String, String, bool)>, Vec<String>) {
        let mut used: Vec<(usize, String, bool)> = self
            .roles
            .iter()
            .map(|(role, (j, by_header))| (*j, role.name(lang).to_string(), *by_header))
            .collect();
        used.sort();
        let ignored = (0..self.columns.len())
            .filter(|j| !used.iter().any(|(u, _, _)| u == j) && self.columns[*j].non_empty > 0)
            .map(|j| self.table.headers[j].to_string())
            .collect();
        (
            used.into_iter()
                .map(|(j, role, h)| (self.table.headers[j].to_string(), role, h))
                .collect(),
            ignored,
        )
    }

    /// The headers seen, for error messages.
    pub fn seen(&self) -> String {
        self.table
            .headers
            .iter()
            .map(|h| format!("{h:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A column's text cells, each distinct text worked out once, the first
/// time a row asks for it.
pub struct PerText<'s, T> {
    slots: &'s [Slot],
    column: &'s cells::Column,
    done: Vec<Option<Option<T>>>,
}

impl<'s, T: Clone> PerText<'s, T> {
    /// `f` of row `i`'s text; None when the cell is not a text.
    pub fn get(&mut self, i: usize, f: impl FnOnce(&'s str) -> Option<T>) -> Option<T> {
        let Slot::Text(id) = self.slots[i] else {
            return None;
        };
        let text = &self.column.texts[id as usize];
        self.done[id as usize]
            .get_or_insert_with(|| f(text))
            .clone()
    }
}

fn is_total_label(text: &str) -> bool {
    let first = text.trim_start().chars().next().unwrap_or(' ');
    if !matches!(first, 't' | 'T' | 's' | 'S') {
        return false;
    }
    let folded = normalize::fold(text);
    let word = folded
        .split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or("");
    matches!(word, "total" | "totales" | "subtotal" | "suma")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyses::request::{Cell, Row};
    use rust_decimal::dec;

    fn sheet(rows: Vec<Vec<(&str, Cell)>>) -> Sheet {
        Sheet {
            name: "t.xlsx".into(),
            rows: rows
                .into_iter()
                .map(|r| {
                    Row(r
                        .into_iter()
                        .map(|(k, c)| (std::sync::Arc::from(k), c))
                        .collect())
                })
                .collect(),
            total_rows: None,
        }
    }

    fn text(s: &str) -> Cell {
        Cell::Text(s.into())
    }

    fn num(n: Decimal) -> Cell {
        Cell::Number(n)
    }

    fn role_header<'a>(f: &'a Frame, role: Role) -> Option<&'a str> {
        f.header(role)
    }

    #[test]
    fn messy_spanish_headers() {
        let s = sheet(vec![
            vec![
                ("Fecha Emisión", text("03/01/2025")),
                ("Nº Fra.", text("F-1")),
                ("Razón Social", text("Talleres Pérez SL")),
                ("Cant.", num(dec!(2))),
                ("P.U. (€)", text("1.234,50")),
                ("Precio coste", text("800,00")),
                ("Importe total", text("2.469,00")),
                ("Color", text("rojo")),
            ],
            vec![
                ("Fecha Emisión", text("25/01/2025")),
                ("Nº Fra.", text("F-2")),
                ("Razón Social", text("Ana")),
                ("Cant.", num(dec!(1))),
                ("P.U. (€)", text("10,5")),
                ("Precio coste", text("5")),
                ("Importe total", text("10,5")),
                ("Color", text("azul")),
            ],
        ]);
        let f = frame(&s, Module::Ventas);
        assert_eq!(role_header(&f, Role::Fecha), Some("Fecha Emisión"));
        assert_eq!(role_header(&f, Role::Documento), Some("Nº Fra."));
        assert_eq!(role_header(&f, Role::Cliente), Some("Razón Social"));
        assert_eq!(role_header(&f, Role::Cantidad), Some("Cant."));
        assert_eq!(role_header(&f, Role::Precio), Some("P.U. (€)"));
        assert_eq!(role_header(&f, Role::Coste), Some("Precio coste"));
        assert_eq!(role_header(&f, Role::Total), Some("Importe total"));
        assert_eq!(f.nums(Role::Precio).unwrap()[0], Some(dec!(1234.50)));
        assert_eq!(
            f.dates(Role::Fecha).unwrap()[1],
            NaiveDate::from_ymd_opt(2025, 1, 25)
        );
        let (_, ignored) = f.mapping_note(Lang::Es);
        assert_eq!(ignored, ["Color"]);
    }

    #[test]
    fn english_export_with_serial_dates_and_us_dates() {
        let s = sheet(vec![
            vec![
                ("Invoice Date", num(dec!(45658))),
                ("Due date", text("01/31/2025")),
                ("Customer", text("Acme Ltd")),
                ("Amount", num(dec!(100.5))),
            ],
            vec![
                ("Invoice Date", num(dec!(45690))),
                ("Due date", text("02/13/2025")),
                ("Customer", text("Beta")),
                ("Amount", num(dec!(20))),
            ],
        ]);
        let f = frame(&s, Module::Ventas);
        assert_eq!(role_header(&f, Role::Fecha), Some("Invoice Date"));
        assert_eq!(role_header(&f, Role::Vencimiento), Some("Due date"));
        assert_eq!(role_header(&f, Role::Cliente), Some("Customer"));
        assert_eq!(role_header(&f, Role::Importe), Some("Amount"));
        assert_eq!(
            f.dates(Role::Fecha).unwrap()[0],
            NaiveDate::from_ymd_opt(2025, 1, 1)
        );
        assert_eq!(
            f.dates(Role::Vencimiento).unwrap()[1],
            NaiveDate::from_ymd_opt(2025, 2, 13)
        );
    }

    #[test]
    fn header_on_row_four() {
        let mut rows = vec![
            vec![
                ("Informe de ventas 2025", text("Mi tienda")),
                ("__EMPTY", Cell::Empty),
                ("__EMPTY_1", Cell::Empty),
            ],
            vec![
                ("Informe de ventas 2025", Cell::Empty),
                ("__EMPTY", Cell::Empty),
                ("__EMPTY_1", Cell::Empty),
            ],
            vec![
                ("Informe de ventas 2025", text("Fecha")),
                ("__EMPTY", text("Cliente")),
                ("__EMPTY_1", text("Importe")),
            ],
        ];
        for i in 1..=3 {
            rows.push(vec![
                ("Informe de ventas 2025", text(&format!("0{i}/02/2025"))),
                ("__EMPTY", text(&format!("Cliente {i}"))),
                ("__EMPTY_1", num(Decimal::from(i * 10))),
            ]);
        }
        let s = sheet(rows);
        let f = frame(&s, Module::Ventas);
        assert_eq!(f.table.header_rows, 3);
        assert_eq!(f.len(), 3);
        assert_eq!(role_header(&f, Role::Fecha), Some("Fecha"));
        assert_eq!(role_header(&f, Role::Importe), Some("Importe"));
        assert_eq!(f.nums(Role::Importe).unwrap()[2], Some(dec!(30)));

        let pandas = sheet(vec![
            vec![
                ("Unnamed: 0", text("Proveedor")),
                ("Unnamed: 1", text("Base imponible")),
            ],
            vec![
                ("Unnamed: 0", text("Iberdrola")),
                ("Unnamed: 1", text("120,40")),
            ],
        ]);
        let f = frame(&pandas, Module::Entradas);
        assert_eq!(role_header(&f, Role::Proveedor), Some("Proveedor"));
        assert_eq!(f.nums(Role::Base).unwrap(), [Some(dec!(120.40))]);
    }

    #[test]
    fn wide_month_columns_are_melted() {
        let s = sheet(vec![
            vec![
                ("Concepto", text("Ventas")),
                ("ene-25", num(dec!(100))),
                ("feb-25", num(dec!(120))),
                ("mar-25", num(dec!(90))),
            ],
            vec![
                ("Concepto", text("Alquiler")),
                ("ene-25", num(dec!(-50))),
                ("feb-25", num(dec!(-50))),
                ("mar-25", Cell::Empty),
            ],
        ]);
        let f = frame(&s, Module::Total);
        assert!(f.table.melted);
        assert_eq!(f.len(), 5);
        assert_eq!(
            f.dates(Role::Fecha).unwrap()[1],
            NaiveDate::from_ymd_opt(2025, 2, 1)
        );
        assert_eq!(f.nums(Role::Importe).unwrap()[3], Some(dec!(-50)));
        assert_eq!(
            f.texts(Role::Concepto).unwrap()[4].as_deref(),
            Some("Alquiler")
        );
    }

    #[test]
    fn headerless_columns_by_values() {
        let s = sheet(vec![
            vec![
                ("A", text("2025-01-02")),
                ("B", text("Ana")),
                ("C", num(dec!(10.5))),
            ],
            vec![
                ("A", text("2025-01-03")),
                ("B", text("Ana")),
                ("C", num(dec!(7.25))),
            ],
            vec![
                ("A", text("2025-01-04")),
                ("B", text("Luis")),
                ("C", num(dec!(3.10))),
            ],
            vec![
                ("A", text("2025-01-05")),
                ("B", text("Ana")),
                ("C", num(dec!(1.10))),
            ],
        ]);
        let f = frame(&s, Module::Ventas);
        assert_eq!(role_header(&f, Role::Fecha), Some("A"));
        assert_eq!(role_header(&f, Role::Importe), Some("C"));
        assert_eq!(role_header(&f, Role::Cliente), Some("B"));
        assert!(!f.roles[&Role::Importe].1);
    }

    #[test]
    fn vat_rate_versus_vat_amount_and_cost_beside_price() {
        let s = sheet(vec![
            vec![
                ("Base", num(dec!(100))),
                ("IVA", num(dec!(21))),
                ("IVA €", num(dec!(21))),
                ("Total con IVA", num(dec!(121))),
            ],
            vec![
                ("Base", num(dec!(50))),
                ("IVA", num(dec!(10))),
                ("IVA €", num(dec!(5))),
                ("Total con IVA", num(dec!(55))),
            ],
        ]);
        let f = frame(&s, Module::Entradas);
        assert_eq!(role_header(&f, Role::TipoIva), Some("IVA"));
        assert_eq!(role_header(&f, Role::CuotaIva), Some("IVA €"));
        assert_eq!(role_header(&f, Role::Total), Some("Total con IVA"));
        assert_eq!(role_header(&f, Role::Base), Some("Base"));
    }

    #[test]
    fn totals_rows_are_recognised() {
        assert!(is_total_label("TOTAL"));
        assert!(is_total_label("Subtotal enero"));
        assert!(is_total_label("Suma"));
        assert!(!is_total_label("Sumatorio Ltd"));
        assert!(!is_total_label("Talleres"));
    }

    #[test]
    fn time_tracker_export_in_english() {
        let s = sheet(vec![
            vec![
                ("User", text("Marta")),
                ("Client", text("Acme")),
                ("Project", text("Web")),
                ("Duration", text("01:30:00")),
                ("Billable", text("Yes")),
            ],
            vec![
                ("User", text("Jorge")),
                ("Client", text("Acme")),
                ("Project", text("App")),
                ("Duration", text("7:45")),
                ("Billable", text("No")),
            ],
        ]);
        let f = frame(&s, Module::Servicios);
        assert_eq!(role_header(&f, Role::Persona), Some("User"));
        assert_eq!(role_header(&f, Role::Cliente), Some("Client"));
        assert_eq!(role_header(&f, Role::Proyecto), Some("Project"));
        assert_eq!(role_header(&f, Role::Horas), Some("Duration"));
        assert_eq!(
            f.nums(Role::Horas).unwrap(),
            [Some(dec!(1.5)), Some(dec!(7.75))]
        );
        assert_eq!(
            f.bools(Role::Facturable).unwrap(),
            [Some(true), Some(false)]
        );
    }

    #[test]
    fn bank_statement_newest_first() {
        let s = sheet(vec![
            vec![
                ("Fecha operación", text("03/02/2025")),
                ("Fecha valor", text("03/02/2025")),
                ("Concepto", text("Recibo luz")),
                ("Importe", text("-60,00")),
                ("Saldo", text("940,00")),
            ],
            vec![
                ("Fecha operación", text("01/02/2025")),
                ("Fecha valor", text("01/02/2025")),
                ("Concepto", text("Transferencia")),
                ("Importe", text("1.000,00")),
                ("Saldo", text("1.000,00")),
            ],
        ]);
        let f = frame(&s, Module::Caja);
        assert_eq!(role_header(&f, Role::Fecha), Some("Fecha operación"));
        assert_eq!(role_header(&f, Role::Importe), Some("Importe"));
        assert_eq!(role_header(&f, Role::Saldo), Some("Saldo"));
        assert_eq!(f.nums(Role::Saldo).unwrap()[1], Some(dec!(1000)));
    }
}
