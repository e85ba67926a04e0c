//! `fiscal_calendar`: tax deadlines in a date range.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use chrono::{Datelike, Days, NaiveDate};
use serde::Serialize;
use serde_json::value::RawValue;
use utoipa::ToSchema;

use super::ToolError;
use crate::tax::calendar::{Deadline, Form, Lang, deadlines};

/// The longest range one request may cover.
pub const MAX_RANGE_DAYS: u64 = 3 * 366;
/// The range when none is given: the next 90 days.
pub const DEFAULT_RANGE_DAYS: u64 = 90;

#[derive(Debug, Serialize, ToSchema, PartialEq)]
pub struct DeadlineItem {
    /// The form (modelo): `303`, `130`, …
    pub form: &'static str,
    /// `2026-1T` (quarter), `2025` (year), `2026-P1` (Modelo 202 instalment).
    pub period: String,
    /// First day of the filing window.
    pub start: NaiveDate,
    /// Last day, moved past weekends and national holidays.
    pub end: NaiveDate,
    /// Last day to file with direct debit of the payment, for forms with a payment.
    pub domiciliation_end: Option<NaiveDate>,
    pub description: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"object": "list", "from": "2026-01-01", "to": "2026-01-31", "lang": "es", "data": [
    {"form": "111", "period": "2025-4T", "start": "2026-01-01", "end": "2026-01-20", "domiciliation_end": "2026-01-15",
     "description": "Modelo 111: retenciones de trabajo y actividades profesionales (4T 2025)"},
    {"form": "303", "period": "2025-4T", "start": "2026-01-01", "end": "2026-01-30", "domiciliation_end": "2026-01-27",
     "description": "Modelo 303: IVA, autoliquidación trimestral (4T 2025)"}]}))]
pub struct CalendarResponse {
    pub object: &'static str,
    pub from: NaiveDate,
    pub to: NaiveDate,
    pub lang: &'static str,
    #[schema(value_type = Vec<DeadlineItem>)]
    pub data: Listed,
}

/// A year's deadlines, each with its `DeadlineItem` in both languages
/// already written as JSON: the rules are fixed, so a response only picks
/// and joins them.
#[derive(Debug)]
struct Year {
    deadlines: Vec<Deadline>,
    json: Vec<[Box<RawValue>; 2]>,
}

impl Year {
    fn of(deadlines: Vec<Deadline>) -> Year {
        let json = deadlines
            .iter()
            .map(|d| [Lang::Es, Lang::En].map(|lang| item_json(d, lang)))
            .collect();
        Year { deadlines, json }
    }
}

fn item_json(d: &Deadline, lang: Lang) -> Box<RawValue> {
    let item = DeadlineItem {
        form: d.form.code(),
        period: d.period.clone(),
        start: d.start,
        end: d.end,
        domiciliation_end: d.domiciliation_end,
        description: d.description(lang).to_string(),
    };
    serde_json::value::to_raw_value(&item).expect("a deadline serialises")
}

/// The deadlines of one response, in order: positions in remembered years,
/// serialized from their JSON.
#[derive(Debug)]
pub struct Listed {
    lang: Lang,
    years: Vec<(Arc<Year>, Vec<usize>)>,
}

impl Listed {
    pub fn deadlines(&self) -> impl Iterator<Item = &Deadline> {
        self.years
            .iter()
            .flat_map(|(year, picked)| picked.iter().map(|&i| &year.deadlines[i]))
    }
}

impl Serialize for Listed {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let lang = match self.lang {
            Lang::Es => 0,
            Lang::En => 1,
        };
        serializer.collect_seq(
            self.years
                .iter()
                .flat_map(|(year, picked)| picked.iter().map(move |&i| &*year.json[i][lang])),
        )
    }
}

/// Years whose deadlines are kept computed: more than any client asks for,
/// few enough that requests for many distinct years cannot grow the memo.
const REMEMBERED_YEARS: usize = 16;

/// Every deadline whose end lies in `year` (ends never move into the next
/// year), sorted as `deadlines` sorts them; computed once per year and process,
/// as the rules are fixed.
fn year_deadlines(year: i32) -> Arc<Year> {
    static MEMO: OnceLock<Mutex<HashMap<i32, Arc<Year>>>> = OnceLock::new();
    let memo = MEMO.get_or_init(Mutex::default);
    if let Some(known) = memo.lock().unwrap_or_else(|e| e.into_inner()).get(&year) {
        return known.clone();
    }
    let bounds = NaiveDate::from_ymd_opt(year, 1, 1).zip(NaiveDate::from_ymd_opt(year, 12, 31));
    let computed = Arc::new(Year::of(match bounds {
        Some((first, last)) => deadlines(first, last, &Form::ALL),
        None => Vec::new(),
    }));
    let mut memo = memo.lock().unwrap_or_else(|e| e.into_inner());
    if memo.len() >= REMEMBERED_YEARS {
        memo.clear();
    }
    memo.insert(year, computed.clone());
    computed
}

/// Parses a comma-separated list of forms; empty or absent means all.
pub fn parse_forms(raw: Option<&str>) -> Result<Vec<Form>, ToolError> {
    match raw.map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(Form::ALL.to_vec()),
        Some(list) => list
            .split(',')
            .map(|f| {
                f.parse()
                    .map_err(|e: String| ToolError::invalid("forms", e))
            })
            .collect(),
    }
}

pub fn parse_lang(raw: Option<&str>) -> Result<Lang, ToolError> {
    raw.map_or(Ok(Lang::Es), |l| {
        l.parse().map_err(|e: String| ToolError::invalid("lang", e))
    })
}

pub fn fiscal_calendar(
    from: Option<NaiveDate>,
    to: Option<NaiveDate>,
    forms: &[Form],
    lang: Lang,
    today: NaiveDate,
) -> Result<CalendarResponse, ToolError> {
    let from = from.unwrap_or(today);
    let to = match to {
        Some(to) => to,
        None => from
            .checked_add_days(Days::new(DEFAULT_RANGE_DAYS))
            .ok_or_else(|| ToolError::invalid("from", "date out of range"))?,
    };
    if to < from {
        return Err(ToolError::invalid(
            "to",
            format!("to ({to}) is before from ({from})"),
        ));
    }
    if (to - from).num_days() as u64 > MAX_RANGE_DAYS {
        return Err(ToolError::invalid(
            "to",
            format!("the range may span at most {MAX_RANGE_DAYS} days"),
        ));
    }
    let years = (from.year()..=to.year())
        .map(|year| {
            let year = year_deadlines(year);
            let picked = (year.deadlines.iter().enumerate())
                .filter(|(_, d)| from <= d.end && d.end <= to && forms.contains(&d.form))
                .map(|(i, _)| i)
                .collect();
            (year, picked)
        })
        .collect();
    Ok(CalendarResponse {
        object: "list",
        from,
        to,
        lang: match lang {
            Lang::Es => "es",
            Lang::En => "en",
        },
        data: Listed { lang, years },
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn remembered_years_give_what_the_rules_give() {
        let day = |s: &str| s.parse::<NaiveDate>().unwrap();
        let ranges = [
            ("2026-01-01", "2026-12-31"),
            ("2025-11-15", "2027-02-10"),
            ("2026-04-01", "2026-04-20"),
            ("2024-12-31", "2025-01-31"),
        ];
        for forms in [
            Form::ALL.to_vec(),
            vec![Form::M303, Form::M130],
            vec![Form::M111],
        ] {
            for (from, to) in ranges {
                let (from, to) = (day(from), day(to));
                let answered =
                    fiscal_calendar(Some(from), Some(to), &forms, Lang::En, from).unwrap();
                let expected: Vec<_> = deadlines(from, to, &forms)
                    .into_iter()
                    .map(|d| (d.form.code(), d.period.clone(), d.end, d.description_en))
                    .collect();
                let got: Vec<_> = answered
                    .data
                    .deadlines()
                    .map(|d| {
                        (
                            d.form.code(),
                            d.period.clone(),
                            d.end,
                            d.description_en.clone(),
                        )
                    })
                    .collect();
                assert_eq!(got, expected, "{from}..{to} {forms:?}");
                let served = serde_json::to_value(&answered).unwrap();
                let served: Vec<_> = served["data"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| {
                        (
                            d["form"].clone(),
                            d["period"].clone(),
                            d["end"].clone(),
                            d["description"].clone(),
                        )
                    })
                    .collect();
                let expected: Vec<_> = expected
                    .iter()
                    .map(|(form, period, end, description)| {
                        (json!(form), json!(period), json!(end), json!(description))
                    })
                    .collect();
                assert_eq!(served, expected);
            }
        }
    }
}
