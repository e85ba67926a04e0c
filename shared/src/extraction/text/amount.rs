//! Amounts and percentages as invoices print them: `1.234,56`, `1234,56`,
//! `1 234,56` (space, NBSP or U+202F grouping), `1,234.56`, `€1,234.56`,
//! `-231,98`, `(231,98)`, `231,98-`, `21 %`. The decimal mark of a lone
//! separator is decided by the digits after it and, for three digits, by the
//! document's own vote.

use rust_decimal::Decimal;

/// The decimal mark a document uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    Comma,
    Dot,
}

impl Mark {
    fn char(self) -> char {
        match self {
            Mark::Comma => ',',
            Mark::Dot => '.',
        }
    }
}

/// Longest digit run taken as an amount; longer runs are ids or noise.
const MAX_DIGITS: usize = 15;

/// The document's decimal mark: whichever of `,` and `.` is more often
/// followed by exactly two digits; a comma on a tie (the Spanish custom).
pub fn vote<'a>(texts: impl Iterator<Item = &'a str>) -> Mark {
    let (mut comma, mut dot) = (0usize, 0usize);
    for text in texts {
        let b = text.as_bytes();
        for i in 1..b.len().saturating_sub(2) {
            let two_after = b[i + 1].is_ascii_digit()
                && b[i + 2].is_ascii_digit()
                && b.get(i + 3).is_none_or(|c| !c.is_ascii_digit());
            if b[i - 1].is_ascii_digit() && two_after {
                match b[i] {
                    b',' => comma += 1,
                    b'.' => dot += 1,
                    _ => {}
                }
            }
        }
    }
    if dot > comma { Mark::Dot } else { Mark::Comma }
}

/// A number found in a text.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Number {
    pub value: Decimal,
    pub percent: bool,
    /// Printed without any separator (`154650`): a dropped decimal mark is possible.
    pub plain: bool,
    /// The separators were inconsistent (`1.200.00`) and were read by position.
    pub repaired: bool,
    /// Byte range in the text, sign, brackets and `%` included.
    pub start: usize,
    pub end: usize,
}

impl Number {
    pub fn is_money(&self) -> bool {
        !self.percent
    }
}

fn is_group_space(c: char) -> bool {
    matches!(c, ' ' | '\u{00A0}' | '\u{202F}' | '\u{2009}')
}

fn is_minus(c: char) -> bool {
    matches!(c, '-' | '\u{2212}' | '\u{2013}')
}

/// Letters that may touch an amount: a currency written after it.
fn currency_suffix(word: &str) -> bool {
    matches!(
        word.to_lowercase().as_str(),
        "eur" | "euro" | "euros" | "e" | "usd" | "gbp"
    )
}

/// Every number in `text`, left to right.
pub fn numbers(text: &str, mark: Mark) -> Vec<Number> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let at = |i: usize| chars.get(i).map(|&(_, c)| c);
    let byte = |i: usize| chars.get(i).map_or(text.len(), |&(b, _)| b);
    let digit = |i: usize| at(i).is_some_and(|c| c.is_ascii_digit());
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !digit(i) {
            i += 1;
            continue;
        }
        let start = i;
        let mut j = i;
        let mut group = 0usize;
        let mut first_group = true;
        let mut seen_mark = false;
        loop {
            while digit(j) {
                j += 1;
                group += 1;
            }
            let c = at(j);
            if matches!(c, Some('.' | ',')) && digit(j + 1) {
                j += 1;
                group = 0;
                first_group = false;
                seen_mark = true;
                continue;
            }
            // A space groups thousands only in the integer part, before 3 digits.
            let spaced_group = c.is_some_and(is_group_space)
                && !seen_mark
                && (if first_group { group <= 3 } else { group == 3 })
                && (1..=3).all(|k| digit(j + k))
                && !digit(j + 4);
            if spaced_group {
                j += 1;
                group = 0;
                first_group = false;
                continue;
            }
            break;
        }
        i = j.max(i + 1);
        // Tickets print cents without the zero: ",16" is 0,16.
        let bare_cents = start >= 1
            && j - start == 2
            && matches!(at(start - 1), Some(',' | '.'))
            && (start < 2 || at(start - 2).is_some_and(char::is_whitespace))
            && !at(j).is_some_and(char::is_alphanumeric);
        if bare_cents {
            let cents: i64 = text[byte(start)..byte(j)].parse().unwrap_or(0);
            found.push(Number {
                value: Decimal::new(cents, 2),
                percent: false,
                plain: false,
                repaired: false,
                start: byte(start - 1),
                end: byte(j),
            });
            continue;
        }
        if let Some(n) = read_run(text, &chars, start, j, mark) {
            found.push(Number {
                start: byte(n.0),
                end: byte(n.1),
                ..n.2
            });
        }
    }
    found
}

/// The number in `chars[start..end]` with its sign and suffixes, or None when
/// the run is part of a date, a code or a word.
fn read_run(
    text: &str,
    chars: &[(usize, char)],
    start: usize,
    end: usize,
    mark: Mark,
) -> Option<(usize, usize, Number)> {
    let at = |i: usize| chars.get(i).map(|&(_, c)| c);
    let before = start.checked_sub(1).and_then(at);
    let before2 = start.checked_sub(2).and_then(at);
    let after = at(end);
    if before.is_some_and(|c| c.is_alphabetic() || matches!(c, '/' | ':' | '_'))
        || before.is_some_and(is_minus) && before2.is_some_and(|c| c.is_alphanumeric())
        || matches!(after, Some('/' | ':' | '_'))
        || after.is_some_and(is_minus) && at(end + 1).is_some_and(|c| c.is_ascii_digit())
    {
        return None;
    }
    if after.is_some_and(char::is_alphabetic) {
        let tail_end = (end..chars.len())
            .find(|&k| !at(k).is_some_and(char::is_alphabetic))
            .unwrap_or(chars.len());
        let tail = &text[chars[end].0..chars.get(tail_end).map_or(text.len(), |&(b, _)| b)];
        if !currency_suffix(tail) {
            return None;
        }
    }
    let run: String = chars[start..end]
        .iter()
        .map(|&(_, c)| c)
        .filter(|c| !is_group_space(*c))
        .collect();
    let (magnitude, plain, repaired) = interpret(&run, mark)?;
    let mut first = start;
    let mut last = end;
    let mut negative = false;
    let mut k = start;
    while k > 0 && at(k - 1).is_some_and(|c| c == ' ' || c == '€' || c == '$') {
        k -= 1;
    }
    if k > 0 && at(k - 1).is_some_and(is_minus) {
        negative = true;
        first = k - 1;
    }
    let mut e = end;
    while at(e).is_some_and(|c| c == ' ' || c == '€') {
        e += 1;
    }
    let percent = at(e) == Some('%');
    if percent {
        last = e + 1;
    } else if after.is_some_and(is_minus) {
        negative = true;
        last = end + 1;
    } else if k > 0 && at(k - 1) == Some('(') && at(e) == Some(')') {
        negative = true;
        first = k - 1;
        last = e + 1;
    }
    let value = if negative { -magnitude } else { magnitude };
    Some((
        first,
        last,
        Number {
            value,
            percent,
            plain,
            repaired,
            start: 0,
            end: 0,
        },
    ))
}

/// Reads digits with `.`/`,` separators: `(magnitude, plain, repaired)`.
fn interpret(run: &str, mark: Mark) -> Option<(Decimal, bool, bool)> {
    let digits = run.chars().filter(char::is_ascii_digit).count();
    if digits == 0 || digits > MAX_DIGITS {
        return None;
    }
    let groups: Vec<&str> = run.split(['.', ',']).collect();
    let seps: Vec<char> = run.chars().filter(|c| matches!(c, '.' | ',')).collect();
    let (Some(last_group), Some(&last_sep)) = (groups.last(), seps.last()) else {
        return Some((run.parse().ok()?, true, false));
    };
    let decimals = last_group.len();
    let mixed = seps.iter().any(|&c| c != last_sep);
    let grouping_ok = |gs: &[&str]| {
        gs.first().is_some_and(|g| (1..=3).contains(&g.len()))
            && gs.iter().skip(1).all(|g| g.len() == 3)
    };
    let as_decimal = |int_groups: &[&str], frac: &str| -> Option<Decimal> {
        let int: String = int_groups.concat();
        format!("{int}.{frac}").parse().ok()
    };
    let int_groups = &groups[..groups.len() - 1];
    if mixed {
        let leading_same = seps[..seps.len() - 1].iter().all(|&c| c != last_sep);
        if !leading_same || !grouping_ok(int_groups) || decimals > 4 {
            return None;
        }
        return Some((as_decimal(int_groups, last_group)?, false, false));
    }
    match decimals {
        1 | 2 if seps.len() == 1 => Some((as_decimal(int_groups, last_group)?, false, false)),
        1 | 2 if grouping_ok(int_groups) => {
            Some((as_decimal(int_groups, last_group)?, false, true))
        }
        3 if seps.len() == 1 && (last_sep == mark.char() || groups[0] == "0") => {
            Some((as_decimal(int_groups, last_group)?, false, false))
        }
        3 if grouping_ok(&groups) => Some((groups.concat().parse().ok()?, false, false)),
        // Four decimals (telecom and energy bills) never group thousands.
        4 if seps.len() == 1 => Some((as_decimal(int_groups, last_group)?, false, false)),
        _ => None,
    }
}

/// The money amounts (not percentages) in a text.
pub fn amounts(text: &str, mark: Mark) -> Vec<Number> {
    numbers(text, mark)
        .into_iter()
        .filter(Number::is_money)
        .collect()
}

/// The first percentage in a text, as a number (`21 %` → 21).
pub fn percent(text: &str, mark: Mark) -> Option<Decimal> {
    numbers(text, mark)
        .into_iter()
        .find(|n| n.percent)
        .map(|n| n.value.abs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::dec;

    fn one(text: &str) -> Option<Decimal> {
        let found = numbers(text, Mark::Comma);
        assert!(found.len() <= 1, "{text}: {found:?}");
        found.first().map(|n| n.value)
    }

    #[test]
    fn spanish_english_and_spaced_forms() {
        for (text, value) in [
            ("1.234,56", dec!(1234.56)),
            ("1234,56", dec!(1234.56)),
            ("1 234,56", dec!(1234.56)),
            ("1\u{00A0}234,56 €", dec!(1234.56)),
            ("1\u{202F}234\u{202F}567,89", dec!(1234567.89)),
            ("1,234.56", dec!(1234.56)),
            ("€1,234.56", dec!(1234.56)),
            ("€ 1.234,56", dec!(1234.56)),
            ("1.639,29€", dec!(1639.29)),
            ("1.639,29 EUR", dec!(1639.29)),
            ("100,00EUR", dec!(100.00)),
            ("9,9", dec!(9.9)),
            ("1234.56", dec!(1234.56)),
            ("1.234.567", dec!(1234567)),
            ("154650", dec!(154650)),
        ] {
            assert_eq!(one(text), Some(value), "{text}");
        }
    }

    #[test]
    fn cents_without_their_zero() {
        assert_eq!(one(",16"), Some(dec!(0.16)));
        assert_eq!(one("Cuota ,16"), Some(dec!(0.16)));
        assert_eq!(one(".07 C"), Some(dec!(0.07)));
        assert_eq!(one("12,16"), Some(dec!(12.16)));
        assert_eq!(one("227,8232"), Some(dec!(227.8232)), "four decimals");
        assert_eq!(one("1.084,8724"), Some(dec!(1084.8724)));
    }

    #[test]
    fn negative_forms() {
        for text in [
            "-231,98",
            "(231,98)",
            "231,98-",
            "− 231,98",
            "-231,98 €",
            "- 231,98",
        ] {
            assert_eq!(one(text), Some(dec!(-231.98)), "{text}");
        }
    }

    #[test]
    fn three_digits_after_a_lone_mark_follow_the_document() {
        assert_eq!(one("1.234"), Some(dec!(1234)));
        assert_eq!(
            numbers("1.234", Mark::Dot).first().map(|n| n.value),
            Some(dec!(1.234))
        );
        assert_eq!(
            numbers("1,234", Mark::Dot).first().map(|n| n.value),
            Some(dec!(1234))
        );
        assert_eq!(one("0,125"), Some(dec!(0.125)));
    }

    #[test]
    fn inconsistent_separators_are_read_by_position() {
        let n = numbers("1.200.00", Mark::Comma);
        assert_eq!(n[0].value, dec!(1200.00));
        assert!(n[0].repaired);
        assert!(numbers("154650", Mark::Comma)[0].plain);
    }

    #[test]
    fn percentages() {
        assert_eq!(percent("IVA 21%", Mark::Comma), Some(dec!(21)));
        assert_eq!(percent("IVA (21 %)", Mark::Comma), Some(dec!(21)));
        assert_eq!(percent("21,00 %", Mark::Comma), Some(dec!(21.00)));
        assert_eq!(percent("R.E. 5,2%", Mark::Comma), Some(dec!(5.2)));
        assert_eq!(percent("IRPF -15%", Mark::Comma), Some(dec!(15)));
        assert_eq!(percent("21.00%", Mark::Dot), Some(dec!(21.00)));
        let n = numbers("IVA 21% 324,77", Mark::Comma);
        assert_eq!(n.len(), 2);
        assert!(n[0].percent && !n[1].percent);
    }

    #[test]
    fn dates_codes_and_words_are_not_amounts() {
        for text in [
            "05/08/2026",
            "05-08-2026",
            "05.08.2026",
            "2026/0147",
            "B12345674",
            "A-123",
            "10:30",
            "3kg",
        ] {
            assert!(amounts(text, Mark::Comma).is_empty(), "{text}");
        }
        let qty_price = amounts("35 9,90 346,50", Mark::Comma);
        let values: Vec<_> = qty_price.iter().map(|n| n.value).collect();
        assert_eq!(values, [dec!(35), dec!(9.90), dec!(346.50)]);
    }

    #[test]
    fn the_vote_counts_two_digit_decimals() {
        assert_eq!(vote(["1,234.56", "10.00", "3,50"].into_iter()), Mark::Dot);
        assert_eq!(vote(["1.234,56", "10,00"].into_iter()), Mark::Comma);
        assert_eq!(vote(std::iter::empty()), Mark::Comma);
    }

    #[test]
    fn huge_runs_are_bounded_and_ignored() {
        let digits = "9".repeat(1_000_000);
        assert!(numbers(&digits, Mark::Comma).is_empty());
        let spaced = "1 ".repeat(200_000);
        assert_eq!(numbers(&spaced, Mark::Comma).len(), 200_000);
    }
}
