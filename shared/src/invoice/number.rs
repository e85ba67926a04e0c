//! Invoice numbers: `F2026-000001` for ordinary invoices, `R2026-000001` for
//! rectifying ones, each series gap-free per year; test invoices carry a
//! `TEST-` prefix and their own counters. Six digits of padding; longer
//! sequences simply grow (the VERI*FACTU limit is 60 characters).

use crate::domain::account::Mode;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Series {
    Ordinary,
    Rectifying,
}

impl Series {
    pub fn letter(self) -> &'static str {
        match self {
            Series::Ordinary => "F",
            Series::Rectifying => "R",
        }
    }
}

/// The counter's name for a series and year, e.g. `F2026`.
pub fn counter_name(series: Series, year: i32) -> String {
    format!("{}{year}", series.letter())
}

pub fn format(series: Series, year: i32, sequence: u64, mode: Mode) -> String {
    let number = format!("{}{year}-{sequence:06}", series.letter());
    match mode {
        Mode::Live => number,
        Mode::Test => format!("TEST-{number}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_by_series_and_mode() {
        assert_eq!(
            format(Series::Ordinary, 2026, 1, Mode::Live),
            "F2026-000001"
        );
        assert_eq!(
            format(Series::Rectifying, 2026, 42, Mode::Live),
            "R2026-000042"
        );
        assert_eq!(
            format(Series::Ordinary, 2026, 1_234_567, Mode::Test),
            "TEST-F2026-1234567"
        );
        assert_eq!(counter_name(Series::Rectifying, 2027), "R2027");
    }
}
