//! Reading cell values the way spreadsheets write them: Spanish and English
//! numbers ("1.234,56", "(1,234.56)", "21 %"), dates (Excel serials, d/m/y,
//! US m/d/y, "15-ene-2025", "enero 2025"), booleans ("sí", "x", "pagado").
//! Per-column conventions (decimal mark, day or month first) are decided
//! from the column's unambiguous values.

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::normalize::fold;
use super::request::Cell;

/// A cell borrowed from the request: what every column is made of.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value<'a> {
    Num(Decimal),
    Text(&'a str),
    Bool(bool),
    /// A date the engine made (a melted period column).
    Date(NaiveDate),
    Empty,
}

impl<'a> From<&'a Cell> for Value<'a> {
    fn from(cell: &'a Cell) -> Self {
        match cell {
            Cell::Number(n) => Value::Num(*n),
            Cell::Text(t) => Value::Text(t.as_str()),
            Cell::Bool(b) => Value::Bool(*b),
            Cell::Empty => Value::Empty,
        }
    }
}

impl Value<'_> {
    pub fn is_empty(&self) -> bool {
        matches!(self, Value::Empty)
    }
}

/// The decimal mark of a column of numbers written as text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecimalMark {
    Comma,
    Dot,
}

/// A number written as text, with its sign and symbols removed.
struct Core {
    negative: bool,
    digits: String,
}

fn core(text: &str) -> Option<Core> {
    let first = text.trim_start().chars().next()?;
    if !(first.is_ascii_digit() || "-−+(.,€$Ee".contains(first)) {
        return None;
    }
    let mut s: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '\u{a0}' && *c != '\u{202f}')
        .collect();
    if !s
        .bytes()
        .all(|b| b.is_ascii_digit() || b".,-+()".contains(&b))
    {
        for symbol in ["€", "EUR", "eur", "$", "%"] {
            s = s.replace(symbol, "");
        }
    }
    let mut negative = false;
    if s.starts_with('(') && s.ends_with(')') && s.len() > 2 {
        negative = true;
        s = s[1..s.len() - 1].to_string();
    }
    if let Some(rest) = s.strip_prefix(['-', '−']) {
        negative = !negative;
        s = rest.to_string();
    } else if let Some(rest) = s.strip_suffix(['-', '−']) {
        negative = !negative;
        s = rest.to_string();
    } else if let Some(rest) = s.strip_prefix('+') {
        s = rest.to_string();
    }
    let valid = !s.is_empty()
        && s.starts_with(|c: char| c.is_ascii_digit() || c == '.' || c == ',')
        && s.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
        && s.chars().any(|c| c.is_ascii_digit());
    valid.then_some(Core {
        negative,
        digits: s,
    })
}

/// What one text says about its decimal mark: `None` when it cannot tell
/// ("1.234", "1234").
fn evidence(digits: &str) -> Option<DecimalMark> {
    let dots = digits.matches('.').count();
    let commas = digits.matches(',').count();
    match (dots, commas) {
        (0, 0) => None,
        (d, c) if d > 0 && c > 0 => {
            if digits.rfind(',') > digits.rfind('.') {
                Some(DecimalMark::Comma)
            } else {
                Some(DecimalMark::Dot)
            }
        }
        (d, 0) if d > 1 => Some(DecimalMark::Comma),
        (0, c) if c > 1 => Some(DecimalMark::Dot),
        _ => {
            let mark = if dots == 1 { '.' } else { ',' };
            let after = digits.len() - digits.find(mark).unwrap_or(0) - 1;
            if after == 3 {
                None
            } else if mark == ',' {
                Some(DecimalMark::Comma)
            } else {
                Some(DecimalMark::Dot)
            }
        }
    }
}

/// The decimal mark of a column: the majority of its unambiguous texts,
/// Spanish (comma) when none can tell.
pub fn decimal_mark<'a>(values: impl Iterator<Item = Value<'a>>) -> DecimalMark {
    majority_mark(values.map(mark_evidence))
}

/// What one cell says about its column's decimal mark.
pub fn mark_evidence(value: Value) -> Option<DecimalMark> {
    match value {
        Value::Text(t) => evidence(&core(t)?.digits),
        _ => None,
    }
}

/// The mark most cells tell (`mark_evidence`), Spanish (comma) on a tie.
pub fn majority_mark(evidence: impl Iterator<Item = Option<DecimalMark>>) -> DecimalMark {
    let (mut comma, mut dot) = (0usize, 0usize);
    for mark in evidence {
        match mark {
            Some(DecimalMark::Comma) => comma += 1,
            Some(DecimalMark::Dot) => dot += 1,
            None => {}
        }
    }
    if dot > comma {
        DecimalMark::Dot
    } else {
        DecimalMark::Comma
    }
}

/// A number written as text, read with the column's decimal mark.
pub fn number_text(text: &str, mark: DecimalMark) -> Option<Decimal> {
    let c = core(text)?;
    let digits = &c.digits;
    let (decimal, thousands) = match evidence(digits).unwrap_or(mark) {
        DecimalMark::Comma => (',', '.'),
        DecimalMark::Dot => ('.', ','),
    };
    if digits.matches(decimal).count() > 1 {
        return None;
    }
    if let Some(int_part) = digits.split(decimal).next()
        && int_part.contains(thousands)
    {
        let groups: Vec<&str> = int_part.split(thousands).collect();
        let grouped = !groups[0].is_empty()
            && groups[0].len() <= 3
            && groups[1..].iter().all(|g| g.len() == 3);
        if !grouped {
            return None;
        }
    }
    let plain: String = digits
        .chars()
        .filter(|c| *c != thousands)
        .map(|c| if c == decimal { '.' } else { c })
        .collect();
    let plain = plain.trim_end_matches('.');
    let value = Decimal::from_str_exact(plain).ok()?;
    Some(if c.negative { -value } else { value })
}

/// The largest magnitude read as a number (10 000 million): beyond it a cell
/// is unreadable, which keeps every sum and product of 200,000 rows far from
/// `Decimal`'s range.
pub const MAX_MAGNITUDE: Decimal = Decimal::from_parts(1_410_065_408, 2, 0, false, 0);

/// A cell as a number: JSON numbers as they are, texts by `number_text`;
/// magnitudes over `MAX_MAGNITUDE` are unreadable.
pub fn number(value: Value, mark: DecimalMark) -> Option<Decimal> {
    let n = match value {
        Value::Num(n) => Some(n),
        Value::Text(t) => number_text(t, mark),
        _ => None,
    }?;
    (n.abs() <= MAX_MAGNITUDE).then_some(n)
}

/// Excel (1900 system) serial → date; serials outside 20 000–80 000 are not
/// taken for dates.
pub fn excel_serial(n: Decimal) -> Option<NaiveDate> {
    let days = n.trunc();
    if days < Decimal::from(20_000) || days > Decimal::from(80_000) {
        return None;
    }
    let days: i64 = days.try_into().ok()?;
    NaiveDate::from_ymd_opt(1899, 12, 30)?.checked_add_signed(chrono::Duration::days(days))
}

/// Day or month first in a column of numeric dates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DateOrder {
    DayFirst,
    MonthFirst,
}

fn split_numeric(text: &str) -> Option<Vec<u32>> {
    let t = text.trim();
    let t = t.split(['T', ' ']).next()?;
    let parts: Vec<&str> = t.split(['/', '-', '.']).collect();
    if parts.len() < 2 || parts.len() > 3 {
        return None;
    }
    parts
        .iter()
        .map(|p| {
            if p.is_empty() || p.len() > 4 || !p.bytes().all(|b| b.is_ascii_digit()) {
                None
            } else {
                p.parse().ok()
            }
        })
        .collect()
}

/// Day first unless only the second field ever exceeds 12 (a US export).
pub fn date_order<'a>(values: impl Iterator<Item = Value<'a>>) -> DateOrder {
    order_of(values.map(order_evidence))
}

/// What one cell says about its column's date order: whether the first and
/// the second field of a numeric date exceed 12.
pub fn order_evidence(value: Value) -> (bool, bool) {
    match value {
        Value::Text(t) => match split_numeric(t) {
            Some(f) if f.len() == 3 && f[0] <= 31 => (f[0] > 12, f[1] > 12),
            _ => (false, false),
        },
        _ => (false, false),
    }
}

/// The date order the cells tell (`order_evidence`).
pub fn order_of(evidence: impl Iterator<Item = (bool, bool)>) -> DateOrder {
    let (mut first, mut second) = (false, false);
    for (a, b) in evidence {
        first |= a;
        second |= b;
    }
    if second && !first {
        DateOrder::MonthFirst
    } else {
        DateOrder::DayFirst
    }
}

fn year(y: u32, digits: usize) -> i32 {
    match (digits, y) {
        (2, 0..=29) => 2000 + y as i32,
        (2, _) => 1900 + y as i32,
        _ => y as i32,
    }
}

/// A month name or abbreviation (Spanish or English) → 1–12.
pub fn month_number(word: &str) -> Option<u32> {
    const MONTHS: [&[&str]; 12] = [
        &["enero", "ene", "january", "jan"],
        &["febrero", "feb", "february"],
        &["marzo", "mar", "march"],
        &["abril", "abr", "april", "apr"],
        &["mayo", "may"],
        &["junio", "jun", "june"],
        &["julio", "jul", "july"],
        &["agosto", "ago", "august", "aug"],
        &["septiembre", "setiembre", "sep", "sept", "set", "september"],
        &["octubre", "oct", "october"],
        &["noviembre", "nov", "november"],
        &["diciembre", "dic", "december", "dec"],
    ];
    let w = word.trim_end_matches('.');
    MONTHS
        .iter()
        .position(|names| names.contains(&w))
        .map(|i| i as u32 + 1)
}

fn ymd(y: i32, m: u32, d: u32) -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(y, m, d)
}

/// A date written as text; month-only texts give the 1st of the month.
pub fn date_text(text: &str, order: DateOrder) -> Option<NaiveDate> {
    if let Some(f) = split_numeric(text) {
        let lens: Vec<usize> = text
            .trim()
            .split(['T', ' '])
            .next()?
            .split(['/', '-', '.'])
            .map(str::len)
            .collect();
        return match f.len() {
            3 if lens[0] == 4 => ymd(f[0] as i32, f[1], f[2]),
            3 if lens[2] == 4 || lens[2] == 2 => {
                let y = year(f[2], lens[2]);
                match order {
                    DateOrder::DayFirst => ymd(y, f[1], f[0]),
                    DateOrder::MonthFirst => ymd(y, f[0], f[1]),
                }
            }
            2 if lens[0] == 4 => ymd(f[0] as i32, f[1], 1),
            2 if lens[1] == 4 => ymd(f[1] as i32, f[0], 1),
            _ => None,
        };
    }
    let folded = fold(text);
    let words: Vec<&str> = folded
        .split(|c: char| c.is_whitespace() || c == '-' || c == '/' || c == ',')
        .filter(|w| !w.is_empty() && *w != "de" && *w != "del")
        .collect();
    match words.as_slice() {
        [d, m, y] if d.bytes().all(|b| b.is_ascii_digit()) => {
            let y_num: u32 = y.parse().ok()?;
            ymd(year(y_num, y.len()), month_number(m)?, d.parse().ok()?)
        }
        [m, d, y] if d.bytes().all(|b| b.is_ascii_digit()) && month_number(m).is_some() => {
            ymd(y.parse().ok()?, month_number(m)?, d.parse().ok()?)
        }
        [m, y] if y.bytes().all(|b| b.is_ascii_digit()) && (y.len() == 2 || y.len() == 4) => {
            ymd(year(y.parse().ok()?, y.len()), month_number(m)?, 1)
        }
        _ => None,
    }
}

/// A cell as a date: Excel serials and texts.
pub fn date(value: Value, order: DateOrder) -> Option<NaiveDate> {
    match value {
        Value::Num(n) => excel_serial(n),
        Value::Text(t) => date_text(t, order),
        Value::Date(d) => Some(d),
        _ => None,
    }
}

/// A cell as yes/no; empty is no.
pub fn boolean(value: Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(b),
        Value::Empty => Some(false),
        Value::Num(n) if n == Decimal::ONE => Some(true),
        Value::Num(n) if n.is_zero() => Some(false),
        Value::Num(_) | Value::Date(_) => None,
        Value::Text(t) => {
            let folded = fold(t);
            match folded.trim() {
                "si" | "s" | "x" | "✓" | "✔" | "1" | "true" | "yes" | "y" | "ok" | "hecho"
                | "facturado" | "facturada" | "pagado" | "pagada" | "cobrado" | "cobrada"
                | "paid" | "collected" | "invoiced" | "billed" | "done" => Some(true),
                "no" | "n" | "0" | "false" | "pendiente" | "-" | "" | "unpaid" | "pending"
                | "overdue" | "draft" | "impagado" | "impagada" | "vencido" | "vencida" => {
                    Some(false)
                }
                other if other.starts_with("no ") || other.starts_with("pendiente") => Some(false),
                other if other.starts_with("awaiting") || other.starts_with("not ") => Some(false),
                _ => None,
            }
        }
    }
}

/// A duration "7:30" or "01:30:00" → hours (7.5, 1.5).
pub fn duration_hours(value: Value) -> Option<Decimal> {
    let Value::Text(t) = value else { return None };
    let parts: Vec<&str> = t.trim().split(':').collect();
    let digits = |p: &&str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    if !(2..=3).contains(&parts.len()) || !parts.iter().all(digits) {
        return None;
    }
    let n = |i: usize| -> Option<Decimal> {
        parts.get(i).map_or(Some(Decimal::ZERO), |p| p.parse().ok())
    };
    let (h, m, s) = (n(0)?, n(1)?, n(2)?);
    Some(h + m / Decimal::from(60) + s / Decimal::from(3600))
}

/// A header naming a period ("ene", "2025-01", "T1", "1T 2025") → a sortable
/// key (year × 100 + month, year 0 when absent; quarters as their first month).
pub fn period_header(header: &str) -> Option<u32> {
    let folded = fold(header);
    let t = folded.trim();
    if let Some(m) = month_number(t) {
        return Some(m);
    }
    let q = |s: &str| -> Option<u32> {
        let n: u32 = s.parse().ok()?;
        (1..=4).contains(&n).then_some(n * 3 - 2)
    };
    let words: Vec<&str> = t
        .split([' ', '-', '/', '_', '.'])
        .filter(|w| !w.is_empty())
        .collect();
    let quarter = |w: &str| {
        w.strip_prefix(['t', 'q'])
            .and_then(q)
            .or_else(|| w.strip_suffix(['t', 'q']).and_then(q))
    };
    let digits = |w: &str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit());
    let full_year = |w: &str| -> Option<u32> {
        let y: u32 = w.parse().ok().filter(|_| w.len() == 4 && digits(w))?;
        (1990..=2100).contains(&y).then_some(y)
    };
    let short_year = |w: &str| -> Option<u32> {
        let y: u32 = w.parse().ok().filter(|_| w.len() == 2 && digits(w))?;
        Some(year(y, 2) as u32)
    };
    let numeric_month = |w: &str| -> Option<u32> {
        let m: u32 = w.parse().ok().filter(|_| w.len() <= 2 && digits(w))?;
        (1..=12).contains(&m).then_some(m)
    };
    match words.as_slice() {
        [w] => quarter(w),
        [a, b] => [(a, b), (b, a)].into_iter().find_map(|(m, y)| {
            let named = month_number(m).or_else(|| quarter(m));
            match (full_year(y), named) {
                (Some(y), Some(m)) => Some(y * 100 + m),
                (Some(y), None) => numeric_month(m).map(|m| y * 100 + m),
                (None, Some(m)) => short_year(y).map(|y| y * 100 + m),
                (None, None) => None,
            }
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::dec;

    #[test]
    fn spanish_and_english_numbers() {
        let es = DecimalMark::Comma;
        assert_eq!(number_text("1.234,56", es), Some(dec!(1234.56)));
        assert_eq!(number_text("1,234.56", es), Some(dec!(1234.56)));
        assert_eq!(number_text("1.234.567", es), Some(dec!(1234567)));
        assert_eq!(number_text("1,234,567", es), Some(dec!(1234567)));
        assert_eq!(number_text("12,5", es), Some(dec!(12.5)));
        assert_eq!(number_text("3.75", es), Some(dec!(3.75)));
        assert_eq!(number_text("(1.234,56)", es), Some(dec!(-1234.56)));
        assert_eq!(number_text("−12,50 €", es), Some(dec!(-12.50)));
        assert_eq!(number_text("12,50-", es), Some(dec!(-12.50)));
        assert_eq!(number_text("1\u{a0}234,5\u{a0}€", es), Some(dec!(1234.5)));
        assert_eq!(number_text("21 %", es), Some(dec!(21)));
        assert_eq!(number_text("$1,200.00", es), Some(dec!(1200.00)));
        assert_eq!(number_text("abc", es), None);
        assert_eq!(number_text("12.34.5", es), None);
        assert_eq!(MAX_MAGNITUDE, dec!(10_000_000_000));
        assert_eq!(number(Value::Num(dec!(10_000_000_001)), es), None);
        assert_eq!(
            number(Value::Text("-10.000.000.000"), es),
            Some(dec!(-10_000_000_000))
        );
    }

    #[test]
    fn the_ambiguous_thousands_mark_follows_the_column() {
        let texts = |v: &[&'static str]| v.iter().map(|t| Value::Text(t)).collect::<Vec<_>>();
        let spanish = texts(&["1.234", "12,5"]);
        let mark = decimal_mark(spanish.iter().copied());
        assert_eq!(number(spanish[0], mark), Some(dec!(1234)));
        let english = texts(&["1.234", "3.75", "0.5"]);
        let mark = decimal_mark(english.iter().copied());
        assert_eq!(number(english[0], mark), Some(dec!(1.234)));
        let none = texts(&["1.234", "2.500"]);
        let mark = decimal_mark(none.iter().copied());
        assert_eq!(number(none[1], mark), Some(dec!(2500)));
        let comma = texts(&["1,234"]);
        assert_eq!(
            number(comma[0], decimal_mark(comma.iter().copied())),
            Some(dec!(1.234))
        );
    }

    #[test]
    fn dates_in_many_shapes() {
        let d = |y, m, dd| NaiveDate::from_ymd_opt(y, m, dd);
        let df = DateOrder::DayFirst;
        assert_eq!(excel_serial(dec!(45658)), d(2025, 1, 1));
        assert_eq!(excel_serial(dec!(45658.75)), d(2025, 1, 1));
        assert_eq!(excel_serial(dec!(1500)), None);
        assert_eq!(date_text("03/02/2025", df), d(2025, 2, 3));
        assert_eq!(
            date_text("03/02/2025", DateOrder::MonthFirst),
            d(2025, 3, 2)
        );
        assert_eq!(date_text("3-2-25", df), d(2025, 2, 3));
        assert_eq!(date_text("3.2.95", df), d(1995, 2, 3));
        assert_eq!(date_text("2025-02-03T10:00:00", df), d(2025, 2, 3));
        assert_eq!(date_text("15-ene-2025", df), d(2025, 1, 15));
        assert_eq!(date_text("15 de enero de 2025", df), d(2025, 1, 15));
        assert_eq!(date_text("Jan 15, 2025", df), d(2025, 1, 15));
        assert_eq!(date_text("ene-25", df), d(2025, 1, 1));
        assert_eq!(date_text("Septiembre 2024", df), d(2024, 9, 1));
        assert_eq!(date_text("2025-01", df), d(2025, 1, 1));
        assert_eq!(date_text("01/2025", df), d(2025, 1, 1));
        assert_eq!(date_text("31/02/2025", df), None);
        assert_eq!(date_text("hola", df), None);
    }

    #[test]
    fn us_dates_are_read_month_first() {
        let us = [Value::Text("01/02/2025"), Value::Text("12/25/2025")];
        assert_eq!(date_order(us.iter().copied()), DateOrder::MonthFirst);
        let es = [Value::Text("01/02/2025"), Value::Text("25/12/2025")];
        assert_eq!(date_order(es.iter().copied()), DateOrder::DayFirst);
    }

    #[test]
    fn booleans_and_periods() {
        assert_eq!(boolean(Value::Text("Sí")), Some(true));
        assert_eq!(boolean(Value::Text("pendiente")), Some(false));
        assert_eq!(boolean(Value::Text("quizá")), None);
        assert_eq!(boolean(Value::Text("Paid")), Some(true));
        assert_eq!(boolean(Value::Text("No cobrado")), Some(false));
        assert_eq!(boolean(Value::Text("Awaiting payment")), Some(false));
        assert_eq!(duration_hours(Value::Text("7:30")), Some(dec!(7.5)));
        assert_eq!(duration_hours(Value::Text("01:30:00")), Some(dec!(1.5)));
        assert_eq!(duration_hours(Value::Text("7.5")), None);
        assert_eq!(period_header("Ene"), Some(1));
        assert_eq!(period_header("2025-03"), Some(202503));
        assert_eq!(period_header("03/2025"), Some(202503));
        assert_eq!(period_header("T2"), Some(4));
        assert_eq!(period_header("1T 2025"), Some(202501));
        assert_eq!(period_header("Concepto"), None);
        assert_eq!(period_header("Total"), None);
    }
}
