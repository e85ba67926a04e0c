//! AEAT filing calendar for the forms a freelancer or small company files in
//! common territory: filing windows, the weekend/holiday shift of the last day
//! (Ley 39/2015 art. 30) and the earlier direct-debit (domiciliación) cut-off.
//!
//! Only national holidays shift a deadline here; regional and local holidays,
//! which the AEAT also honours, are out of scope.

use std::fmt;
use std::str::FromStr;

use chrono::{Datelike, Days, NaiveDate, Weekday};

/// Business days between the direct-debit cut-off and the deadline (fits the
/// AEAT 2026 dates: 15 Jan for 20 Jan, 27 Jan for 30 Jan, 25 Jun for 30 Jun).
const DOMICILIATION_BUSINESS_DAYS: u32 = 3;

/// Fixed-date national holidays as (month, day).
const FIXED_HOLIDAYS: [(u32, u32); 9] = [
    (1, 1),
    (1, 6),
    (5, 1),
    (8, 15),
    (10, 12),
    (11, 1),
    (12, 6),
    (12, 8),
    (12, 25),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    M303,
    M130,
    M131,
    M111,
    M115,
    M349,
    M390,
    M190,
    M180,
    M184,
    M347,
    M100,
    M200,
    M202,
    /// IGIC, Canary Islands (Agencia Tributaria Canaria).
    M420,
}

impl Form {
    pub const ALL: [Form; 15] = [
        Form::M303,
        Form::M130,
        Form::M131,
        Form::M111,
        Form::M115,
        Form::M349,
        Form::M390,
        Form::M190,
        Form::M180,
        Form::M184,
        Form::M347,
        Form::M100,
        Form::M200,
        Form::M202,
        Form::M420,
    ];

    pub fn code(self) -> &'static str {
        match self {
            Form::M303 => "303",
            Form::M130 => "130",
            Form::M131 => "131",
            Form::M111 => "111",
            Form::M115 => "115",
            Form::M349 => "349",
            Form::M390 => "390",
            Form::M190 => "190",
            Form::M180 => "180",
            Form::M184 => "184",
            Form::M347 => "347",
            Form::M100 => "100",
            Form::M200 => "200",
            Form::M202 => "202",
            Form::M420 => "420",
        }
    }

    /// Whether the form can carry a payment, and so has a direct-debit cut-off;
    /// informative and annual-summary forms do not.
    pub fn has_payment(self) -> bool {
        !matches!(
            self,
            Form::M349 | Form::M390 | Form::M190 | Form::M180 | Form::M184 | Form::M347
        )
    }

    /// What the form is about, in Spanish and English.
    fn topic(self) -> (&'static str, &'static str) {
        match self {
            Form::M303 => ("IVA, autoliquidación trimestral", "VAT quarterly return"),
            Form::M130 => (
                "IRPF, pago fraccionado en estimación directa",
                "income tax instalment, direct estimation",
            ),
            Form::M131 => (
                "IRPF, pago fraccionado en estimación objetiva (módulos)",
                "income tax instalment, objective estimation (módulos)",
            ),
            Form::M111 => (
                "retenciones de trabajo y actividades profesionales",
                "withholdings on employment and professional income",
            ),
            Form::M115 => (
                "retenciones por alquiler de inmuebles urbanos",
                "withholdings on urban property rentals",
            ),
            Form::M349 => (
                "declaración recapitulativa de operaciones intracomunitarias",
                "recapitulative statement of intra-EU transactions",
            ),
            Form::M390 => ("IVA, resumen anual", "annual VAT summary"),
            Form::M190 => (
                "resumen anual de retenciones de trabajo y actividades (modelo 111)",
                "annual summary of employment and professional withholdings (form 111)",
            ),
            Form::M180 => (
                "resumen anual de retenciones por alquileres (modelo 115)",
                "annual summary of rental withholdings (form 115)",
            ),
            Form::M184 => (
                "declaración informativa de entidades en atribución de rentas",
                "information return of income-attribution entities",
            ),
            Form::M347 => (
                "operaciones con terceras personas de más de 3.005,06 €",
                "transactions with third parties over €3,005.06",
            ),
            Form::M100 => (
                "Renta (IRPF), declaración anual",
                "personal income tax annual return",
            ),
            Form::M200 => (
                "Impuesto sobre Sociedades, declaración anual (ejercicio natural)",
                "corporate income tax annual return (calendar-year companies)",
            ),
            Form::M202 => (
                "Impuesto sobre Sociedades, pago fraccionado",
                "corporate income tax instalment",
            ),
            Form::M420 => (
                "IGIC, autoliquidación trimestral (Agencia Tributaria Canaria)",
                "IGIC quarterly return (Canary Islands Tax Agency)",
            ),
        }
    }
}

impl fmt::Display for Form {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl FromStr for Form {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let code = s.trim();
        Form::ALL
            .into_iter()
            .find(|form| form.code() == code)
            .ok_or_else(|| {
                let valid: Vec<&str> = Form::ALL.iter().map(|form| form.code()).collect();
                format!("unknown form {code:?}; valid codes: {}", valid.join(", "))
            })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    Es,
    En,
}

impl FromStr for Lang {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "es" => Ok(Lang::Es),
            "en" => Ok(Lang::En),
            _ => Err(format!("unknown language {:?}; valid: es, en", s.trim())),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deadline {
    pub form: Form,
    /// `2026-1T` (quarter), `2025` (year), `2026-P1` (202 instalment).
    pub period: String,
    pub start: NaiveDate,
    /// Last day to file, already moved past weekends and national holidays.
    pub end: NaiveDate,
    /// Last day to file with direct debit of the payment, for forms with one.
    pub domiciliation_end: Option<NaiveDate>,
    pub description_es: String,
    pub description_en: String,
}

impl Deadline {
    pub fn description(&self, lang: Lang) -> &str {
        match lang {
            Lang::Es => &self.description_es,
            Lang::En => &self.description_en,
        }
    }
}

/// Every deadline of the given forms whose `end` lies in [from, to], sorted by
/// end date then form code. Repeated forms are listed once.
pub fn deadlines(from: NaiveDate, to: NaiveDate, forms: &[Form]) -> Vec<Deadline> {
    let mut forms = forms.to_vec();
    forms.sort_by_key(|form| form.code());
    forms.dedup();
    // Shifted ends stay in the filing year: no nominal end is later than 20 December.
    let mut found: Vec<Deadline> = (from.year()..=to.year())
        .flat_map(|year| {
            forms
                .iter()
                .flat_map(move |&form| windows(form, year).into_iter().map(move |w| (form, w)))
        })
        .filter_map(|(form, window)| {
            let end = next_business_day_from(window.end);
            (from <= end && end <= to).then(|| deadline(form, window, end))
        })
        .collect();
    found.sort_by_key(|d| (d.end, d.form.code()));
    found
}

pub fn is_national_holiday(d: NaiveDate) -> bool {
    FIXED_HOLIDAYS.contains(&(d.month(), d.day()))
        || good_friday(d.year()).is_some_and(|friday| friday == d)
}

pub fn is_business_day(d: NaiveDate) -> bool {
    !matches!(d.weekday(), Weekday::Sat | Weekday::Sun) && !is_national_holiday(d)
}

/// The first business day on or after `d` (`d` itself if it is one); clamps at
/// chrono's last date.
pub fn next_business_day_from(d: NaiveDate) -> NaiveDate {
    let mut day = d;
    while !is_business_day(day) {
        match day.succ_opt() {
            Some(next) => day = next,
            None => break,
        }
    }
    day
}

/// The direct-debit cut-off for a (shifted) deadline: the business day that
/// lies `DOMICILIATION_BUSINESS_DAYS` business days before it; clamps at
/// chrono's first date.
pub fn domiciliation_end_for(deadline: NaiveDate) -> NaiveDate {
    let mut day = deadline;
    let mut remaining = DOMICILIATION_BUSINESS_DAYS;
    while remaining > 0 {
        match day.pred_opt() {
            Some(previous) => day = previous,
            None => break,
        }
        if is_business_day(day) {
            remaining -= 1;
        }
    }
    day
}

/// Easter Sunday by the anonymous Gregorian computus (Meeus/Jones/Butcher);
/// `None` only outside chrono's date range.
pub fn easter_sunday(year: i32) -> Option<NaiveDate> {
    let a = year.rem_euclid(19);
    let (b, c) = (year.div_euclid(100), year.rem_euclid(100));
    let (d, e) = (b.div_euclid(4), b.rem_euclid(4));
    let f = (b + 8).div_euclid(25);
    let g = (b - f + 1).div_euclid(3);
    let h = (19 * a + b - d - g + 15).rem_euclid(30);
    let (i, k) = (c / 4, c % 4);
    let l = (32 + 2 * e + 2 * i - h - k).rem_euclid(7);
    let m = (a + 11 * h + 22 * l) / 451;
    // Always in 107..=149 because every term above is reduced, so month is 3 or 4.
    let n = h + l - 7 * m + 114;
    NaiveDate::from_ymd_opt(year, (n / 31).unsigned_abs(), (n % 31 + 1).unsigned_abs())
}

fn good_friday(year: i32) -> Option<NaiveDate> {
    easter_sunday(year)?.checked_sub_days(Days::new(2))
}

/// Start of the Renta campaign, following the usual AEAT pattern: the first
/// Wednesday of April, or the next one when that is Holy Wednesday.
pub fn renta_start(year: i32) -> Option<NaiveDate> {
    let april_first = NaiveDate::from_ymd_opt(year, 4, 1)?;
    let offset = (7 + Weekday::Wed.num_days_from_monday()
        - april_first.weekday().num_days_from_monday())
        % 7;
    let first_wednesday = april_first.checked_add_days(Days::new(offset.into()))?;
    let holy_wednesday = easter_sunday(year)?.checked_sub_days(Days::new(4));
    if holy_wednesday == Some(first_wednesday) {
        first_wednesday.checked_add_days(Days::new(7))
    } else {
        Some(first_wednesday)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Period {
    Quarter { year: i32, quarter: u8 },
    Year(i32),
    Instalment { year: i32, number: u8 },
}

impl Period {
    fn code(self) -> String {
        match self {
            Period::Quarter { year, quarter } => format!("{year}-{quarter}T"),
            Period::Year(year) => year.to_string(),
            Period::Instalment { year, number } => format!("{year}-P{number}"),
        }
    }

    fn label_es(self) -> String {
        match self {
            Period::Quarter { year, quarter } => format!("{quarter}T {year}"),
            Period::Year(year) => format!("ejercicio {year}"),
            Period::Instalment { year, number } => {
                let ordinal = if matches!(number, 1 | 3) { "er" } else { "º" };
                format!("{number}.{ordinal} pago {year}")
            }
        }
    }

    fn label_en(self) -> String {
        match self {
            Period::Quarter { year, quarter } => format!("Q{quarter} {year}"),
            Period::Year(year) => format!("tax year {year}"),
            Period::Instalment { year, number } => {
                let ordinal = match number {
                    1 => "st",
                    2 => "nd",
                    3 => "rd",
                    _ => "th",
                };
                format!("{number}{ordinal} instalment {year}")
            }
        }
    }
}

/// A filing window before the weekend/holiday shift of its last day.
#[derive(Clone, Copy, Debug)]
struct Window {
    period: Period,
    start: NaiveDate,
    end: NaiveDate,
}

fn deadline(form: Form, window: Window, end: NaiveDate) -> Deadline {
    let (topic_es, topic_en) = form.topic();
    let mut description_es = format!(
        "Modelo {}: {topic_es} ({})",
        form.code(),
        window.period.label_es()
    );
    let mut description_en = format!(
        "Form {}: {topic_en} ({})",
        form.code(),
        window.period.label_en()
    );
    if form == Form::M100 {
        description_es.push_str(
            "; inicio según el patrón habitual de la AEAT (primer miércoles de abril, \
             o el siguiente si cae en Semana Santa)",
        );
        description_en.push_str(
            "; start date follows the usual AEAT pattern (first Wednesday of April, \
             or the next one if that falls in Holy Week)",
        );
    }
    Deadline {
        form,
        period: window.period.code(),
        start: window.start,
        end,
        domiciliation_end: match form {
            Form::M420 => igic_domiciliation_end(window.start),
            _ => form.has_payment().then(|| domiciliation_end_for(end)),
        },
        description_es,
        description_en,
    }
}

/// The filing windows of `form` whose last day falls in `year`; windows that
/// do not fit in chrono's date range are skipped.
fn windows(form: Form, year: i32) -> Vec<Window> {
    let previous = Period::Year(year - 1);
    let found = match form {
        Form::M303 | Form::M130 | Form::M131 | Form::M349 => quarterly(year, 30),
        Form::M111 | Form::M115 => quarterly(year, 20),
        Form::M420 => quarterly(year, 31),
        Form::M390 => vec![window(previous, year, (1, 1), (1, 30))],
        Form::M190 | Form::M180 | Form::M184 => vec![window(previous, year, (1, 1), (1, 31))],
        Form::M347 => vec![february(previous, year)],
        Form::M100 => vec![renta(previous, year)],
        Form::M200 => vec![window(previous, year, (7, 1), (7, 25))],
        Form::M202 => [(1, 4), (2, 10), (3, 12)]
            .into_iter()
            .map(|(number, month)| {
                window(
                    Period::Instalment { year, number },
                    year,
                    (month, 1),
                    (month, 20),
                )
            })
            .collect(),
    };
    found.into_iter().flatten().collect()
}

/// Modelo 420 is paid by direct debit until the 15th of its filing month,
/// the 20th in January (tax-depth.md §3).
fn igic_domiciliation_end(start: NaiveDate) -> Option<NaiveDate> {
    let day = if start.month() == 1 { 20 } else { 15 };
    NaiveDate::from_ymd_opt(start.year(), start.month(), day)
}

/// Q4 of the previous year filed in January (1 to `q4_last_day`), then Q1-Q3
/// filed from the 1st to the 20th of April, July and October.
fn quarterly(year: i32, q4_last_day: u32) -> Vec<Option<Window>> {
    let q4 = window(
        Period::Quarter {
            year: year - 1,
            quarter: 4,
        },
        year,
        (1, 1),
        (1, q4_last_day),
    );
    let rest = [(1, 4), (2, 7), (3, 10)].map(|(quarter, month)| {
        window(
            Period::Quarter { year, quarter },
            year,
            (month, 1),
            (month, 20),
        )
    });
    std::iter::once(q4).chain(rest).collect()
}

fn window(period: Period, year: i32, start: (u32, u32), end: (u32, u32)) -> Option<Window> {
    Some(Window {
        period,
        start: NaiveDate::from_ymd_opt(year, start.0, start.1)?,
        end: NaiveDate::from_ymd_opt(year, end.0, end.1)?,
    })
}

fn february(period: Period, year: i32) -> Option<Window> {
    Some(Window {
        period,
        start: NaiveDate::from_ymd_opt(year, 2, 1)?,
        end: NaiveDate::from_ymd_opt(year, 3, 1)?.pred_opt()?,
    })
}

fn renta(period: Period, year: i32) -> Option<Window> {
    Some(Window {
        period,
        start: renta_start(year)?,
        end: NaiveDate::from_ymd_opt(year, 6, 30)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ymd(year: i32, month: u32, day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(year, month, day).unwrap()
    }

    /// The single deadline of `form` for `period`, searched over 2024-2029.
    fn find(form: Form, period: &str) -> Deadline {
        let all = deadlines(ymd(2024, 1, 1), ymd(2029, 12, 31), &[form]);
        let mut matching = all.into_iter().filter(|d| d.period == period);
        let found = matching.next().expect("deadline exists");
        assert!(matching.next().is_none(), "one deadline per period");
        found
    }

    /// Asserts the (shifted) end date and its weekday for each form.
    fn assert_end(forms: &[Form], period: &str, end: NaiveDate, weekday: Weekday) {
        assert_eq!(end.weekday(), weekday, "test data");
        for &form in forms {
            assert_eq!(find(form, period).end, end, "{form} {period}");
        }
    }

    const Q_FORMS: [Form; 6] = [
        Form::M303,
        Form::M130,
        Form::M131,
        Form::M111,
        Form::M115,
        Form::M349,
    ];
    const ANNUAL_INFO: [Form; 3] = [Form::M190, Form::M180, Form::M184];

    #[test]
    fn row_111_115_q4_2025_tue_20_jan_2026() {
        assert_end(
            &[Form::M111, Form::M115],
            "2025-4T",
            ymd(2026, 1, 20),
            Weekday::Tue,
        );
        assert_eq!(find(Form::M111, "2025-4T").start, ymd(2026, 1, 1));
    }

    #[test]
    fn row_111_115_q4_2026_wed_20_jan_2027() {
        assert_end(
            &[Form::M111, Form::M115],
            "2026-4T",
            ymd(2027, 1, 20),
            Weekday::Wed,
        );
    }

    #[test]
    fn row_303_130_131_349_q4_2025_fri_30_jan_2026() {
        let forms = [Form::M303, Form::M130, Form::M131, Form::M349];
        assert_end(&forms, "2025-4T", ymd(2026, 1, 30), Weekday::Fri);
    }

    #[test]
    fn row_303_130_131_349_q4_2026_mon_1_feb_2027() {
        let forms = [Form::M303, Form::M130, Form::M131, Form::M349];
        assert_end(&forms, "2026-4T", ymd(2027, 2, 1), Weekday::Mon);
    }

    #[test]
    fn row_390_2025_fri_30_jan_2026() {
        assert_end(&[Form::M390], "2025", ymd(2026, 1, 30), Weekday::Fri);
    }

    #[test]
    fn row_390_2026_mon_1_feb_2027() {
        assert_end(&[Form::M390], "2026", ymd(2027, 2, 1), Weekday::Mon);
    }

    #[test]
    fn row_190_180_184_2025_mon_2_feb_2026() {
        assert_end(&ANNUAL_INFO, "2025", ymd(2026, 2, 2), Weekday::Mon);
    }

    #[test]
    fn row_190_180_184_2026_mon_1_feb_2027() {
        assert_end(&ANNUAL_INFO, "2026", ymd(2027, 2, 1), Weekday::Mon);
    }

    #[test]
    fn row_347_2025_mon_2_mar_2026() {
        assert_end(&[Form::M347], "2025", ymd(2026, 3, 2), Weekday::Mon);
        assert_eq!(find(Form::M347, "2025").start, ymd(2026, 2, 1));
    }

    #[test]
    fn row_347_2026_mon_1_mar_2027() {
        assert_end(&[Form::M347], "2026", ymd(2027, 3, 1), Weekday::Mon);
    }

    #[test]
    fn row_q1_2026_and_202_first_mon_20_apr_2026() {
        assert_end(&Q_FORMS, "2026-1T", ymd(2026, 4, 20), Weekday::Mon);
        assert_end(&[Form::M202], "2026-P1", ymd(2026, 4, 20), Weekday::Mon);
    }

    #[test]
    fn row_q1_2027_and_202_first_tue_20_apr_2027() {
        assert_end(&Q_FORMS, "2027-1T", ymd(2027, 4, 20), Weekday::Tue);
        assert_end(&[Form::M202], "2027-P1", ymd(2027, 4, 20), Weekday::Tue);
    }

    #[test]
    fn row_renta_2025_8_apr_to_tue_30_jun_2026() {
        let renta = find(Form::M100, "2025");
        assert_eq!(renta.start, ymd(2026, 4, 8));
        assert_end(&[Form::M100], "2025", ymd(2026, 6, 30), Weekday::Tue);
        assert_eq!(renta.domiciliation_end, Some(ymd(2026, 6, 25)));
    }

    #[test]
    fn row_renta_2026_ends_wed_30_jun_2027() {
        assert_end(&[Form::M100], "2026", ymd(2027, 6, 30), Weekday::Wed);
        // Not yet published by the AEAT [U]: the usual pattern gives Wed 7 Apr 2027.
        assert_eq!(find(Form::M100, "2026").start, ymd(2027, 4, 7));
    }

    #[test]
    fn row_q2_2026_mon_20_jul_2026() {
        assert_end(&Q_FORMS, "2026-2T", ymd(2026, 7, 20), Weekday::Mon);
    }

    #[test]
    fn row_q2_2027_tue_20_jul_2027() {
        assert_end(&Q_FORMS, "2027-2T", ymd(2027, 7, 20), Weekday::Tue);
    }

    #[test]
    fn row_200_2025_mon_27_jul_2026() {
        assert_end(&[Form::M200], "2025", ymd(2026, 7, 27), Weekday::Mon);
        assert_eq!(find(Form::M200, "2025").start, ymd(2026, 7, 1));
    }

    #[test]
    fn row_200_2026_mon_26_jul_2027() {
        assert_end(&[Form::M200], "2026", ymd(2027, 7, 26), Weekday::Mon);
    }

    #[test]
    fn row_q3_2026_and_202_second_tue_20_oct_2026() {
        assert_end(&Q_FORMS, "2026-3T", ymd(2026, 10, 20), Weekday::Tue);
        assert_end(&[Form::M202], "2026-P2", ymd(2026, 10, 20), Weekday::Tue);
    }

    #[test]
    fn row_q3_2027_and_202_second_wed_20_oct_2027() {
        assert_end(&Q_FORMS, "2027-3T", ymd(2027, 10, 20), Weekday::Wed);
        assert_end(&[Form::M202], "2027-P2", ymd(2027, 10, 20), Weekday::Wed);
    }

    #[test]
    fn row_202_third_2026_mon_21_dec_2026() {
        assert_end(&[Form::M202], "2026-P3", ymd(2026, 12, 21), Weekday::Mon);
        assert_eq!(find(Form::M202, "2026-P3").start, ymd(2026, 12, 1));
    }

    #[test]
    fn row_202_third_2027_mon_20_dec_2027() {
        assert_end(&[Form::M202], "2027-P3", ymd(2027, 12, 20), Weekday::Mon);
    }

    #[test]
    fn note_2028_111_115_thu_20_jan() {
        assert_end(
            &[Form::M111, Form::M115],
            "2027-4T",
            ymd(2028, 1, 20),
            Weekday::Thu,
        );
    }

    #[test]
    fn note_2028_303_130_390_mon_31_jan() {
        assert_end(
            &[Form::M303, Form::M130],
            "2027-4T",
            ymd(2028, 1, 31),
            Weekday::Mon,
        );
        assert_end(&[Form::M390], "2027", ymd(2028, 1, 31), Weekday::Mon);
    }

    #[test]
    fn note_2028_190_180_184_mon_31_jan() {
        assert_end(&ANNUAL_INFO, "2027", ymd(2028, 1, 31), Weekday::Mon);
    }

    #[test]
    fn note_2028_347_tue_29_feb() {
        assert_end(&[Form::M347], "2027", ymd(2028, 2, 29), Weekday::Tue);
    }

    #[test]
    fn easter_sundays() {
        for (year, month, day) in [
            (1818, 3, 22),
            (2000, 4, 23),
            (2019, 4, 21),
            (2024, 3, 31),
            (2025, 4, 20),
            (2026, 4, 5),
            (2027, 3, 28),
            (2028, 4, 16),
            (2038, 4, 25),
        ] {
            assert_eq!(easter_sunday(year), Some(ymd(year, month, day)), "{year}");
        }
    }

    #[test]
    fn good_friday_is_a_holiday() {
        assert!(is_national_holiday(ymd(2026, 4, 3)));
        assert!(is_national_holiday(ymd(2027, 3, 26)));
        assert!(!is_national_holiday(ymd(2026, 4, 2)));
        assert!(!is_national_holiday(ymd(2026, 4, 6)));
    }

    #[test]
    fn fixed_national_holidays() {
        for (month, day) in FIXED_HOLIDAYS {
            assert!(is_national_holiday(ymd(2026, month, day)), "{day}/{month}");
        }
        assert!(!is_national_holiday(ymd(2026, 3, 19)));
        assert!(!is_national_holiday(ymd(2026, 12, 24)));
    }

    #[test]
    fn next_business_day() {
        assert_eq!(next_business_day_from(ymd(2026, 1, 20)), ymd(2026, 1, 20));
        assert_eq!(next_business_day_from(ymd(2026, 1, 31)), ymd(2026, 2, 2));
        assert_eq!(next_business_day_from(ymd(2027, 1, 6)), ymd(2027, 1, 7));
        assert_eq!(next_business_day_from(ymd(2026, 4, 3)), ymd(2026, 4, 6));
        // Fri 25 Dec 2026 → Mon 28 Dec; Tue 8 Dec 2026 → Wed 9 Dec.
        assert_eq!(next_business_day_from(ymd(2026, 12, 25)), ymd(2026, 12, 28));
        assert_eq!(next_business_day_from(ymd(2026, 12, 8)), ymd(2026, 12, 9));
        // Sat 1 Jan 2028 → Mon 3 Jan; Thu 6 Jan 2028 → Fri 7 Jan.
        assert_eq!(next_business_day_from(ymd(2028, 1, 1)), ymd(2028, 1, 3));
        assert_eq!(next_business_day_from(ymd(2028, 1, 6)), ymd(2028, 1, 7));
    }

    #[test]
    fn domiciliation_matches_aeat_2026() {
        assert_eq!(
            find(Form::M111, "2025-4T").domiciliation_end,
            Some(ymd(2026, 1, 15))
        );
        assert_eq!(
            find(Form::M303, "2025-4T").domiciliation_end,
            Some(ymd(2026, 1, 27))
        );
        assert_eq!(
            find(Form::M100, "2025").domiciliation_end,
            Some(ymd(2026, 6, 25))
        );
    }

    #[test]
    fn domiciliation_skips_weekends_and_holidays() {
        // Q1 2027 ends Tue 20 Apr: 19 Mon, 16 Fri, 15 Thu.
        assert_eq!(
            find(Form::M130, "2027-1T").domiciliation_end,
            Some(ymd(2027, 4, 15))
        );
        // Mon 1 Feb 2027: 29 Fri, 28 Thu, 27 Wed.
        assert_eq!(
            find(Form::M303, "2026-4T").domiciliation_end,
            Some(ymd(2027, 1, 27))
        );
        // Thu 7 Jan 2027 (6 Jan holiday, 1 Jan holiday): 5 Tue, 4 Mon, 31 Dec Thu.
        assert_eq!(domiciliation_end_for(ymd(2027, 1, 7)), ymd(2026, 12, 31));
    }

    #[test]
    fn domiciliation_only_for_forms_with_payment() {
        let all = deadlines(ymd(2026, 1, 1), ymd(2026, 12, 31), &Form::ALL);
        for d in &all {
            assert_eq!(d.domiciliation_end.is_some(), d.form.has_payment(), "{d:?}");
        }
        for form in [
            Form::M349,
            Form::M390,
            Form::M190,
            Form::M180,
            Form::M184,
            Form::M347,
        ] {
            assert!(!form.has_payment(), "{form}");
        }
        for form in [
            Form::M303,
            Form::M130,
            Form::M131,
            Form::M111,
            Form::M115,
            Form::M100,
            Form::M200,
            Form::M202,
        ] {
            assert!(form.has_payment(), "{form}");
        }
    }

    #[test]
    fn renta_start_follows_aeat_pattern() {
        assert_eq!(renta_start(2024), Some(ymd(2024, 4, 3)));
        assert_eq!(renta_start(2025), Some(ymd(2025, 4, 2)));
        assert_eq!(renta_start(2026), Some(ymd(2026, 4, 8)));
    }

    #[test]
    fn full_year_is_sorted_and_complete() {
        let all = deadlines(ymd(2026, 1, 1), ymd(2026, 12, 31), &Form::ALL);
        // 7 quarterly forms (420 among them) × 4, 202 × 3, and 390, 190,
        // 180, 184, 347, 100, 200.
        assert_eq!(all.len(), 7 * 4 + 3 + 7);
        let igic: Vec<_> = all
            .iter()
            .filter(|d| d.form == Form::M420)
            .map(|d| (d.period.as_str(), d.end, d.domiciliation_end))
            .collect();
        assert_eq!(
            igic[0],
            ("2025-4T", ymd(2026, 2, 2), Some(ymd(2026, 1, 20))),
            "Q4 until 31 January (a Saturday in 2026), direct debit until the 20th"
        );
        assert_eq!(
            igic[1],
            ("2026-1T", ymd(2026, 4, 20), Some(ymd(2026, 4, 15)))
        );
        let keys: Vec<_> = all.iter().map(|d| (d.end, d.form.code())).collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
        assert_eq!(all[0].form, Form::M111);
        assert_eq!(all[0].period, "2025-4T");
        assert!(
            all.iter()
                .all(|d| d.start <= d.end && is_business_day(d.end))
        );
    }

    #[test]
    fn range_is_inclusive_and_filters_on_end() {
        let day = ymd(2026, 1, 30);
        let found = deadlines(day, day, &[Form::M303, Form::M111]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].form, Form::M303);
        // The 347 window starts in February 2026 but ends on 2 March.
        assert!(deadlines(ymd(2026, 2, 1), ymd(2026, 2, 28), &[Form::M347]).is_empty());
    }

    #[test]
    fn empty_and_reversed_ranges_and_repeated_forms() {
        assert!(deadlines(ymd(2026, 12, 31), ymd(2026, 1, 1), &Form::ALL).is_empty());
        assert!(deadlines(ymd(2026, 1, 1), ymd(2026, 12, 31), &[]).is_empty());
        let once = deadlines(ymd(2026, 1, 1), ymd(2026, 12, 31), &[Form::M303]);
        let twice = deadlines(
            ymd(2026, 1, 1),
            ymd(2026, 12, 31),
            &[Form::M303, Form::M303],
        );
        assert_eq!(once, twice);
    }

    #[test]
    fn chrono_limits_do_not_panic() {
        let min = NaiveDate::MIN;
        let max = NaiveDate::MAX;
        let low = deadlines(min, ymd(min.year() + 1, 12, 31), &Form::ALL);
        let high = deadlines(ymd(max.year() - 1, 1, 1), max, &Form::ALL);
        assert!(!low.is_empty() && !high.is_empty());
        assert_eq!(next_business_day_from(max), max);
        assert_eq!(domiciliation_end_for(min), min);
        assert!(easter_sunday(i32::MIN).is_none());
        assert!(easter_sunday(i32::MAX).is_none());
        assert!(renta_start(i32::MAX).is_none());
    }

    #[test]
    fn descriptions_name_form_and_period() {
        let q3 = find(Form::M303, "2026-3T");
        assert_eq!(
            q3.description(Lang::Es),
            "Modelo 303: IVA, autoliquidación trimestral (3T 2026)"
        );
        assert_eq!(
            q3.description(Lang::En),
            "Form 303: VAT quarterly return (Q3 2026)"
        );
        let p1 = find(Form::M202, "2026-P1");
        assert!(p1.description_es.contains("1.er pago 2026"));
        assert!(p1.description_en.contains("1st instalment 2026"));
        let renta = find(Form::M100, "2025");
        assert!(renta.description_es.contains("patrón habitual de la AEAT"));
        assert!(renta.description_en.contains("usual AEAT pattern"));
        for d in deadlines(ymd(2026, 1, 1), ymd(2026, 12, 31), &Form::ALL) {
            assert!(d.description_es.starts_with(&format!("Modelo {}:", d.form)));
            assert!(d.description_en.starts_with(&format!("Form {}:", d.form)));
        }
    }

    #[test]
    fn form_codes_round_trip() {
        for form in Form::ALL {
            assert_eq!(form.code().parse::<Form>(), Ok(form));
        }
        assert_eq!(" 130 ".parse::<Form>(), Ok(Form::M130));
        let err = "999".parse::<Form>().unwrap_err();
        assert!(err.contains("999") && err.contains("303") && err.contains("202"));
    }

    #[test]
    fn lang_parses() {
        assert_eq!("es".parse::<Lang>(), Ok(Lang::Es));
        assert_eq!("EN".parse::<Lang>(), Ok(Lang::En));
        assert!("fr".parse::<Lang>().unwrap_err().contains("es, en"));
    }
}
