//! Warnings: what the law leaves room for but an adviser would point out.
//! The invoice is issued; the warning names the field and the article.

use chrono::{Months, NaiveDate};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::kind::Kind;
use super::payments::Instalment;

/// Something to check on an issued invoice.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = InvoiceWarning)]
pub struct Warning {
    /// `payment_term_over_60_days`, `r2_conditions`, `r3_too_early` or `r3_too_late`.
    pub code: String,
    pub message: String,
    /// The request field it is about.
    pub param: String,
}

fn warning(code: &str, param: String, message: String) -> Warning {
    Warning {
        code: code.into(),
        message,
        param,
    }
}

/// The longest payment term two businesses may agree (Ley 3/2004 art. 4.3).
pub const MAX_B2B_TERM_DAYS: i64 = 60;

/// A B2B instalment due more than 60 days after the operation (the goods
/// or services received, Ley 3/2004 art. 4.1; the issue date when none is
/// given): the term is void beyond that (art. 4.3, art. 9). `by_dates`:
/// the request gave `due_dates` (the warning names the entry).
pub fn payment_terms(
    business_customer: bool,
    operation: NaiveDate,
    instalments: &[Instalment],
    by_dates: bool,
) -> Vec<Warning> {
    if !business_customer {
        return Vec::new();
    }
    instalments
        .iter()
        .enumerate()
        .filter(|(_, i)| (i.date - operation).num_days() > MAX_B2B_TERM_DAYS)
        .map(|(n, i)| {
            let param = if by_dates {
                format!("due_dates[{n}].date")
            } else {
                "due_date".into()
            };
            warning(
                "payment_term_over_60_days",
                param,
                format!(
                    "{} is {} days after the operation ({operation}): between businesses the \
                     payment term may not exceed 60 days (art. 4.3 Ley 3/2004)",
                    i.date,
                    (i.date - operation).num_days()
                ),
            )
        })
        .collect()
}

/// The periods of a rectification for a bad debt (R3, art. 80.Cuatro Ley
/// 37/1992): at least six months (small businesses, turnover up to
/// 6,010,121.04 €) or one year since the VAT accrued without payment, the
/// debt claimed in court or by notarial demand, and the rectification made
/// within the six months after that period. A concurso (R2, art. 80.Tres)
/// needs the customer's insolvency declared after the accrual and the
/// rectification within three months of the end of the creditors' one-month
/// period, dates the request does not carry.
pub fn rectification(kind: Kind, accrued: NaiveDate, today: NaiveDate) -> Vec<Warning> {
    let param = "reason_code".to_string();
    match kind {
        Kind::R2 => vec![warning(
            "r2_conditions",
            param,
            format!(
                "R2 (concurso) applies only to operations accrued ({accrued}) before the \
                 customer's insolvency was declared, and the rectification is issued within \
                 three months of the end of the one-month period for creditors to claim \
                 (art. 80.Tres Ley 37/1992): check those dates"
            ),
        )],
        Kind::R3 => {
            let months = |n| {
                accrued
                    .checked_add_months(Months::new(n))
                    .unwrap_or(accrued)
            };
            if today < months(6) {
                vec![warning(
                    "r3_too_early",
                    param,
                    format!(
                        "a bad debt (R3) is rectified once six months (small businesses) or one \
                         year have passed since the VAT accrued ({accrued}) without payment, \
                         the debt claimed in court or by notarial demand; the earliest date is \
                         {} (art. 80.Cuatro Ley 37/1992)",
                        months(6)
                    ),
                )]
            } else if today > months(18) {
                vec![warning(
                    "r3_too_late",
                    param,
                    format!(
                        "a bad debt (R3) is rectified within six months after the six-month or \
                         one-year period since the VAT accrued ({accrued}); the latest date was \
                         {} (art. 80.Cuatro Ley 37/1992)",
                        months(18)
                    ),
                )]
            } else {
                Vec::new()
            }
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use rust_decimal::dec;

    use super::*;

    fn day(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    #[test]
    fn a_b2b_term_over_60_days_from_the_operation_is_pointed_out() {
        // Ley 3/2004 art. 4.3: never more than 60 calendar days.
        let operation = day("2026-10-01");
        let at = |d: &str| Instalment::new(day(d), dec!(100));
        assert!(payment_terms(true, operation, &[at("2026-11-30")], false).is_empty());
        let late = payment_terms(true, operation, &[at("2026-12-01")], false);
        assert_eq!(late.len(), 1);
        assert_eq!(
            (late[0].code.as_str(), late[0].param.as_str()),
            ("payment_term_over_60_days", "due_date")
        );
        assert!(late[0].message.contains("61 days") && late[0].message.contains("Ley 3/2004"));
        let split = payment_terms(true, operation, &[at("2026-10-31"), at("2027-01-15")], true);
        assert_eq!(split.len(), 1);
        assert_eq!(split[0].param, "due_dates[1].date");
        assert!(payment_terms(false, operation, &[at("2027-06-01")], false).is_empty());
    }

    #[test]
    fn r3_dates_must_fit_the_periods_of_art_80_cuatro() {
        let accrued = day("2026-01-15");
        assert_eq!(
            rectification(Kind::R3, accrued, day("2026-07-14"))[0].code,
            "r3_too_early"
        );
        assert!(rectification(Kind::R3, accrued, day("2026-07-15")).is_empty());
        assert!(rectification(Kind::R3, accrued, day("2027-07-15")).is_empty());
        assert_eq!(
            rectification(Kind::R3, accrued, day("2027-07-16"))[0].code,
            "r3_too_late"
        );
        assert_eq!(
            rectification(Kind::R2, accrued, day("2026-02-01"))[0].code,
            "r2_conditions"
        );
        assert!(rectification(Kind::R1, accrued, day("2026-02-01")).is_empty());
    }
}
