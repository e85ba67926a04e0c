//! Dates as Spanish invoices print them, always day first: `05/08/2026`,
//! `5-8-26`, `05.08.2026`, `5-ago-2026`, `5 ago. 2026`, `5 de agosto de 2026`,
//! Catalan `5 d'agost de 2026`, and ISO `2026-08-05` from software.
//! Impossible dates (`31/02/2026`) are not dates.

use chrono::NaiveDate;

use super::labels::fold;

const MONTHS: &[(&str, u32)] = &[
    ("enero", 1),
    ("ene", 1),
    ("gener", 1),
    ("gen", 1),
    ("january", 1),
    ("jan", 1),
    ("febrero", 2),
    ("feb", 2),
    ("febrer", 2),
    ("febr", 2),
    ("february", 2),
    ("marzo", 3),
    ("mar", 3),
    ("marc", 3),
    ("march", 3),
    ("abril", 4),
    ("abr", 4),
    ("april", 4),
    ("apr", 4),
    ("mayo", 5),
    ("may", 5),
    ("maig", 5),
    ("junio", 6),
    ("jun", 6),
    ("juny", 6),
    ("june", 6),
    ("julio", 7),
    ("jul", 7),
    ("juliol", 7),
    ("july", 7),
    ("agosto", 8),
    ("ago", 8),
    ("agost", 8),
    ("august", 8),
    ("aug", 8),
    ("septiembre", 9),
    ("setiembre", 9),
    ("sep", 9),
    ("sept", 9),
    ("set", 9),
    ("setembre", 9),
    ("september", 9),
    ("octubre", 10),
    ("oct", 10),
    ("october", 10),
    ("noviembre", 11),
    ("nov", 11),
    ("novembre", 11),
    ("november", 11),
    ("diciembre", 12),
    ("dic", 12),
    ("desembre", 12),
    ("des", 12),
    ("december", 12),
    ("dec", 12),
    // German, French, Dutch, Italian, Portuguese, Galician and Basque.
    ("januar", 1),
    ("janvier", 1),
    ("januari", 1),
    ("gennaio", 1),
    ("janeiro", 1),
    ("xaneiro", 1),
    ("urtarrila", 1),
    ("februar", 2),
    ("fevrier", 2),
    ("februari", 2),
    ("febbraio", 2),
    ("fevereiro", 2),
    ("febreiro", 2),
    ("otsaila", 2),
    ("marz", 3),
    ("mars", 3),
    ("maart", 3),
    ("marco", 3),
    ("martxoa", 3),
    ("avril", 4),
    ("aprile", 4),
    ("apirila", 4),
    ("mai", 5),
    ("mei", 5),
    ("maggio", 5),
    ("maio", 5),
    ("maiatza", 5),
    ("juni", 6),
    ("juin", 6),
    ("giugno", 6),
    ("junho", 6),
    ("xuno", 6),
    ("ekaina", 6),
    ("juli", 7),
    ("juillet", 7),
    ("luglio", 7),
    ("julho", 7),
    ("xullo", 7),
    ("uztaila", 7),
    ("aout", 8),
    ("augustus", 8),
    ("abuztua", 8),
    ("septembre", 9),
    ("settembre", 9),
    ("setembro", 9),
    ("iraila", 9),
    ("oktober", 10),
    ("octobre", 10),
    ("ottobre", 10),
    ("outubro", 10),
    ("urria", 10),
    ("okt", 10),
    ("novembro", 11),
    ("azaroa", 11),
    ("dezember", 12),
    ("decembre", 12),
    ("dicembre", 12),
    ("dezembro", 12),
    ("decembro", 12),
    ("abendua", 12),
    ("dez", 12),
];

/// Words between the parts of a written date ("5 de agosto de 2026", "d'agost").
const FILLERS: &[&str] = &["de", "del", "d", "th", "st", "nd", "rd", "of"];

fn month(word: &str) -> Option<u32> {
    MONTHS.iter().find(|(m, _)| *m == word).map(|&(_, n)| n)
}

/// An alphanumeric part of the text and the separator printed before it.
struct Part {
    word: String,
    sep: String,
}

/// Letters OCR reads for digits, inside a run of digits (`2O26`, `O5`).
fn misread_digit(c: char) -> Option<char> {
    match c {
        'o' => Some('0'),
        'l' | 'i' => Some('1'),
        _ => None,
    }
}

/// The folded text with ordinal signs dropped (`1º` is a day) and misread
/// digits repaired in runs that are otherwise digits.
fn clean(text: &str) -> Vec<char> {
    let without_ordinals: String = text.chars().filter(|c| !matches!(c, 'º' | 'ª')).collect();
    let mut chars: Vec<char> = fold(&without_ordinals).chars().collect();
    let mut start = 0;
    while start < chars.len() {
        let end = (start..chars.len())
            .find(|&i| !chars[i].is_alphanumeric())
            .unwrap_or(chars.len());
        let run = &chars[start..end];
        let digits = run.iter().filter(|c| c.is_ascii_digit()).count();
        let misread = run.iter().filter(|c| misread_digit(**c).is_some()).count();
        if digits >= 1 && misread <= 2 && digits + misread == run.len() && digits >= misread {
            for c in &mut chars[start..end] {
                *c = misread_digit(*c).unwrap_or(*c);
            }
        }
        start = end + 1;
    }
    chars
}

fn parts(text: &str) -> Vec<Part> {
    let mut parts = Vec::new();
    let mut sep = String::new();
    let mut word = String::new();
    for c in clean(text) {
        let alnum = c.is_alphanumeric();
        let switches = !word.is_empty()
            && (!alnum
                || word.chars().last().is_some_and(|l| l.is_ascii_digit()) != c.is_ascii_digit());
        if switches {
            parts.push(Part {
                word: std::mem::take(&mut word),
                sep: std::mem::take(&mut sep),
            });
        }
        if alnum {
            word.push(c);
        } else if !c.is_whitespace() {
            sep.push(c);
        }
    }
    if !word.is_empty() {
        parts.push(Part { word, sep });
    }
    parts
}

fn digits(p: &Part, lens: &[usize]) -> Option<u32> {
    let all = p.word.chars().all(|c| c.is_ascii_digit());
    (all && lens.contains(&p.word.len()))
        .then(|| p.word.parse().ok())
        .flatten()
}

fn year(p: &Part) -> Option<i32> {
    let y = digits(p, &[2, 4])? as i32;
    let y = if p.word.len() == 2 { 2000 + y } else { y };
    (1900..=2199).contains(&y).then_some(y)
}

fn numeric_sep(sep: &str) -> bool {
    matches!(sep, "/" | "-" | ".")
}

/// The date starting at part `i`, and the number of parts it takes.
fn date_at(p: &[Part], i: usize) -> Option<(NaiveDate, usize)> {
    let first = p.get(i)?;
    if let (Some(y), Some(m), Some(d)) = (
        digits(first, &[4]),
        p.get(i + 1).and_then(|x| digits(x, &[1, 2])),
        p.get(i + 2).and_then(|x| digits(x, &[1, 2])),
    ) {
        let sep = &p[i + 1].sep;
        if matches!(sep.as_str(), "-" | "/" | ".") && p[i + 2].sep == *sep {
            return NaiveDate::from_ymd_opt(y as i32, m, d).map(|date| (date, 3));
        }
    }
    if let Some(found) = month_first_in_words(p, i) {
        return Some(found);
    }
    let day = digits(first, &[1, 2])?;
    let second = p.get(i + 1)?;
    if let Some(m) = digits(second, &[1, 2]) {
        let third = p.get(i + 2)?;
        let same_sep = numeric_sep(&second.sep) && third.sep == second.sep;
        let y = year(third)?;
        // Day first always; month first only where day first is impossible
        // (`02/17/26` from English-locale software).
        let date = NaiveDate::from_ymd_opt(y, m, day).or_else(|| {
            (m > 12)
                .then(|| NaiveDate::from_ymd_opt(y, day, m))
                .flatten()
        });
        return same_sep.then_some(date).flatten().map(|date| (date, 3));
    }
    let mut j = i + 1;
    while p.get(j).is_some_and(|x| FILLERS.contains(&x.word.as_str())) {
        j += 1;
    }
    let m = month(&p.get(j)?.word)?;
    j += 1;
    while p.get(j).is_some_and(|x| FILLERS.contains(&x.word.as_str())) {
        j += 1;
    }
    let y = year(p.get(j)?)?;
    NaiveDate::from_ymd_opt(y, m, day).map(|date| (date, j + 1 - i))
}

/// An English date, month first: `November 2, 2026`, `Nov. 2nd 2026`.
fn month_first_in_words(p: &[Part], i: usize) -> Option<(NaiveDate, usize)> {
    let m = month(&p.get(i)?.word)?;
    let day = digits(p.get(i + 1)?, &[1, 2])?;
    let mut j = i + 2;
    while p.get(j).is_some_and(|x| FILLERS.contains(&x.word.as_str())) {
        j += 1;
    }
    let y = digits(p.get(j)?, &[4])?;
    NaiveDate::from_ymd_opt(y as i32, m, day).map(|date| (date, j + 1 - i))
}

/// Every date in a text, left to right.
pub fn dates(text: &str) -> Vec<NaiveDate> {
    let p = parts(text);
    let mut found = Vec::new();
    let mut i = 0;
    while i < p.len() {
        match date_at(&p, i) {
            Some((date, len)) => {
                found.push(date);
                i += len;
            }
            None => i += 1,
        }
    }
    found
}

/// The first date in a text.
pub fn first_date(text: &str) -> Option<NaiveDate> {
    let p = parts(text);
    (0..p.len()).find_map(|i| date_at(&p, i).map(|(d, _)| d))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(y: i32, m: u32, day: u32) -> Option<NaiveDate> {
        NaiveDate::from_ymd_opt(y, m, day)
    }

    #[test]
    fn day_first_numeric_and_written_forms() {
        for text in [
            "05/08/2026",
            "5/8/26",
            "05-08-2026",
            "05.08.2026",
            "05 / 08 / 2026",
            "5-ago-2026",
            "5 ago. 2026",
            "05/ago/2026",
            "5 de agosto de 2026",
            "5 agosto 2026",
            "5 de Agosto del 2026",
            "5 d'agost de 2026",
            "5 AGO 26",
            "2026-08-05",
            "2026.08.05",
            "Fecha: 05/08/2026 ",
            "Madrid, 5 de agosto de 2026",
        ] {
            assert_eq!(first_date(text), d(2026, 8, 5), "{text}");
        }
        assert_eq!(first_date("1 de març de 2026"), d(2026, 3, 1));
        assert_eq!(first_date("12 setembre 2025"), d(2025, 9, 12));
        assert_eq!(first_date("03/04/2026"), d(2026, 4, 3), "never month first");
        assert_eq!(first_date("1º de agosto de 2026"), d(2026, 8, 1));
        assert_eq!(
            first_date("O5/08/2O26"),
            d(2026, 8, 5),
            "OCR letters for digits"
        );
        assert_eq!(first_date("05/O8/2026"), d(2026, 8, 5));
        assert_eq!(first_date("5-ago-2O26"), d(2026, 8, 5));
        assert_eq!(first_date("l5/l0/2026"), d(2026, 10, 15));
    }

    #[test]
    fn dates_in_other_languages() {
        for text in [
            "November 2, 2026",
            "Invoice Date: Nov. 2nd, 2026",
            "2. November 2026",
            "2 novembre 2026",
            "2 de novembro de 2026",
            "2 november 2026",
        ] {
            assert_eq!(first_date(text), d(2026, 11, 2), "{text}");
        }
        assert_eq!(first_date("11. Juli 2014"), d(2014, 7, 11));
        assert_eq!(
            first_date("02/17/26"),
            d(2026, 2, 17),
            "month first only when day first is impossible"
        );
        assert_eq!(first_date("05/13/2026"), d(2026, 5, 13));
        assert_eq!(first_date("13/13/2026"), None);
    }

    #[test]
    fn impossible_or_partial_dates_are_none() {
        for text in [
            "31/02/2026",
            "32/01/2026",
            "29/02/2026",
            "5 de agosto",
            "2026/0147",
            "91 555 12 34",
            "05 08 2026",
            "",
            "5 foo 2026",
        ] {
            assert_eq!(first_date(text), None, "{text}");
        }
        assert_eq!(first_date("29/02/2028"), d(2028, 2, 29));
    }

    #[test]
    fn several_dates_in_one_text() {
        assert_eq!(
            dates("Periodo 01/07/2026 - 31/07/2026"),
            [d(2026, 7, 1).unwrap(), d(2026, 7, 31).unwrap()]
        );
        let long = "1/1/2026 ".repeat(50_000);
        assert_eq!(dates(&long).len(), 50_000);
    }
}
