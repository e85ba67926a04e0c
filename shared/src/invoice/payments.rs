//! What an invoice's customer owes and has paid: its instalments (due dates
//! with amounts), the payments recorded against it (refunds are negative
//! payments) and the payment state derived from both and today's Madrid
//! date. Pure.
//!
//! Rules:
//! - Payments cover the instalments in date order: instalment `n` is covered
//!   once the amount paid reaches the sum of instalments `1..=n`.
//! - `paid` once the amount paid reaches the total; otherwise `overdue` when
//!   an instalment's date has passed (it is before today) and it is not
//!   covered; otherwise `partially_paid` when something is paid, else `unpaid`.
//! - One balance per invoice, net of its rectifications: what is collected
//!   is `total + rectifications_total` (a credit by differences lowers it, a
//!   substitution replaces it). Rectifying invoices collect nothing
//!   themselves: `paid`, nothing due, no payments (record them against the
//!   rectified invoice). What a credit takes off covers the instalments as a
//!   payment would, so a fully credited invoice is never `overdue`.
//! - An invoice whose balance is not positive (a zero invoice, one credited
//!   in full) has nothing to collect: `paid`, nothing due, no payments but
//!   refunds of what was paid.
//! - A cancelled invoice is no longer due: nothing due, never `overdue`.
//! - An invoice stored before instalments existed has none: its `due_date`
//!   (if any) counts as one instalment of the total, and its `paid` status
//!   (set before payments were recorded) counts as the total paid on the day
//!   it was set.

use chrono::{DateTime, NaiveDate, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::invoice::model::HistoryKind;
use crate::invoice::model::Invoice;
use crate::invoice::status::Status;
use crate::tax::money::Money;

/// At most this many instalments per invoice (a monthly calendar for a year).
pub const MAX_INSTALMENTS: usize = 12;
/// The default payment term when the account sets none (Ley 3/2004 art. 4.1).
pub const DEFAULT_TERMS_DAYS: u32 = 30;
/// The longest payment term an account may set (Ley 3/2004 art. 4.3, B2B).
pub const MAX_TERMS_DAYS: u32 = 60;

/// How a payment was made: the codes of the invoice's `payment.method`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PaymentMethod {
    Transfer,
    DirectDebit,
    Card,
    Cash,
    Other,
}

impl PaymentMethod {
    pub const ALL: [PaymentMethod; 5] = [
        PaymentMethod::Transfer,
        PaymentMethod::DirectDebit,
        PaymentMethod::Card,
        PaymentMethod::Cash,
        PaymentMethod::Other,
    ];

    pub fn code(self) -> &'static str {
        match self {
            PaymentMethod::Transfer => "transfer",
            PaymentMethod::DirectDebit => "direct_debit",
            PaymentMethod::Card => "card",
            PaymentMethod::Cash => "cash",
            PaymentMethod::Other => "other",
        }
    }

    pub fn parse(code: &str) -> Option<PaymentMethod> {
        Self::ALL.into_iter().find(|m| m.code() == code)
    }

    /// The codes, comma separated, for messages.
    pub fn codes() -> String {
        Self::ALL.map(PaymentMethod::code).join(", ")
    }
}

/// The payment state derived from instalments, payments and today.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PaymentStatus {
    #[default]
    Unpaid,
    PartiallyPaid,
    Paid,
    Overdue,
}

/// One due date of the invoice and the amount due on it.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
pub struct Instalment {
    pub date: NaiveDate,
    pub amount: Money,
    /// When `invoice.overdue` was sent for this instalment (once at most).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overdue_notified_at: Option<DateTime<Utc>>,
}

impl Instalment {
    pub fn new(date: NaiveDate, amount: Decimal) -> Self {
        Instalment {
            date,
            amount: Money::from(amount),
            overdue_notified_at: None,
        }
    }
}

/// A payment recorded against the invoice; a refund has a negative amount.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema, PartialEq)]
pub struct PaymentEntry {
    /// `pay_<token>`.
    pub id: String,
    /// Positive for a payment, negative for a refund.
    pub amount: Money,
    /// The effective payment date (Madrid).
    pub date: NaiveDate,
    pub method: PaymentMethod,
    pub reference: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// What the invoice shows about its payment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaymentState {
    pub status: PaymentStatus,
    pub amount_paid: Decimal,
    pub amount_due: Decimal,
    pub paid_at: Option<NaiveDate>,
}

/// The invoice's balance: its total as its rectifications left it.
pub fn payable(invoice: &Invoice) -> Decimal {
    (invoice.total + invoice.rectifications_total).value()
}

/// Whether the invoice has anything to collect.
pub fn collectible(invoice: &Invoice) -> bool {
    !invoice.kind.is_rectifying() && payable(invoice) > Decimal::ZERO
}

/// What covers the instalments: the amount paid and what credits took off.
fn coverage(invoice: &Invoice) -> Decimal {
    amount_paid(invoice) + (-invoice.rectifications_total.value()).max(Decimal::ZERO)
}

/// The instalments that apply: the stored ones, or for an invoice stored
/// before instalments existed its `due_date` as one instalment of the total.
pub fn instalments(invoice: &Invoice) -> Vec<Instalment> {
    if !invoice.instalments.is_empty() || !collectible(invoice) {
        return invoice.instalments.clone();
    }
    invoice
        .due_date
        .map(|date| Instalment::new(date, invoice.total.value()))
        .into_iter()
        .collect()
}

/// The date an invoice stored before payments existed was marked paid:
/// `Some` only for such an invoice in state `paid` without payments that
/// had something to collect.
pub fn legacy_paid_date(invoice: &Invoice) -> Option<NaiveDate> {
    if invoice.status != Status::Paid || !invoice.payments.is_empty() || !collectible(invoice) {
        return None;
    }
    let marked = invoice
        .events
        .iter()
        .rev()
        .find(|e| e.kind == HistoryKind::Paid);
    Some(marked.map_or(invoice.issue_date, |e| crate::domain::madrid::date(e.at)))
}

/// The one due date of formats that have one (EN 16931 BT-9): the first
/// instalment not covered yet, else the first; the `due_date` without instalments.
pub fn next_due_date(invoice: &Invoice) -> Option<NaiveDate> {
    let instalments = instalments(invoice);
    let paid = coverage(invoice);
    (0..instalments.len())
        .find(|&i| !covered(&instalments, i, paid))
        .or((!instalments.is_empty()).then_some(0))
        .map(|i| instalments[i].date)
        .or(invoice.due_date)
}

/// The amount paid: the sum of the payments (the total for a legacy `paid` invoice).
pub fn amount_paid(invoice: &Invoice) -> Decimal {
    if legacy_paid_date(invoice).is_some() {
        return invoice.total.value();
    }
    invoice.payments.iter().map(|p| p.amount.value()).sum()
}

/// Whether instalment `index` (of `instalments`, in date order) is covered by `paid`.
pub fn covered(instalments: &[Instalment], index: usize, paid: Decimal) -> bool {
    let upto: Decimal = instalments[..=index].iter().map(|i| i.amount.value()).sum();
    paid >= upto
}

/// The indexes of the instalments that are not covered and whose
/// `invoice.overdue` was not sent: the ones the due-date index holds.
pub fn open_instalments(invoice: &Invoice) -> Vec<usize> {
    if invoice.status == Status::Cancelled || !collectible(invoice) {
        return Vec::new();
    }
    let paid = coverage(invoice);
    (0..invoice.instalments.len())
        .filter(|&i| {
            invoice.instalments[i].overdue_notified_at.is_none()
                && !covered(&invoice.instalments, i, paid)
        })
        .collect()
}

/// The payment state of the invoice on `today`.
pub fn state(invoice: &Invoice, today: NaiveDate) -> PaymentState {
    let paid = amount_paid(invoice);
    if !collectible(invoice) {
        return PaymentState {
            status: PaymentStatus::Paid,
            amount_paid: paid,
            amount_due: Decimal::ZERO,
            paid_at: None,
        };
    }
    let open = invoice.status != Status::Cancelled;
    let payable = payable(invoice);
    let amount_due = if open {
        (payable - paid).max(Decimal::ZERO)
    } else {
        Decimal::ZERO
    };
    if paid >= payable {
        let last = invoice.payments.iter().map(|p| p.date).max();
        return PaymentState {
            status: PaymentStatus::Paid,
            amount_paid: paid,
            amount_due,
            paid_at: last.or_else(|| legacy_paid_date(invoice)),
        };
    }
    let instalments = instalments(invoice);
    let covering = coverage(invoice);
    let late = (0..instalments.len())
        .any(|i| instalments[i].date < today && !covered(&instalments, i, covering));
    let status = if open && late {
        PaymentStatus::Overdue
    } else if paid > Decimal::ZERO {
        PaymentStatus::PartiallyPaid
    } else {
        PaymentStatus::Unpaid
    };
    PaymentState {
        status,
        amount_paid: paid,
        amount_due,
        paid_at: None,
    }
}

/// Sets the invoice's derived payment fields for `today`.
pub fn refresh(invoice: &mut Invoice, today: NaiveDate) {
    let state = state(invoice, today);
    invoice.payment_status = state.status;
    invoice.amount_paid = Money::from(state.amount_paid);
    invoice.amount_due = Money::from(state.amount_due);
    invoice.paid_at = state.paid_at;
}

/// Why a payment cannot be recorded.
#[derive(Debug, PartialEq, Eq)]
pub enum PaymentRefusal {
    /// 409: the invoice cannot take payments (cancelled, nothing to collect).
    State(String),
    /// 400 on this field with this code.
    Invalid {
        code: &'static str,
        field: &'static str,
        message: String,
    },
}

fn invalid(code: &'static str, field: &'static str, message: String) -> PaymentRefusal {
    PaymentRefusal::Invalid {
        code,
        field,
        message,
    }
}

/// Checks a payment of `amount` dated `date` against the invoice on `today`:
/// not zero, at most 2 decimals, dated from the issue date to today, never
/// taking the amount paid below zero (a refund of more than was paid) nor
/// above the balance (an overpayment). A rectifying invoice takes none (its
/// rectified invoice does); an invoice with nothing to collect takes only
/// refunds.
pub fn check(
    invoice: &Invoice,
    amount: Decimal,
    date: NaiveDate,
    today: NaiveDate,
) -> Result<(), PaymentRefusal> {
    if invoice.status == Status::Cancelled {
        return Err(PaymentRefusal::State(
            "the invoice is cancelled: it takes no payments".into(),
        ));
    }
    if let Some(rectified) = &invoice.rectifies {
        return Err(PaymentRefusal::State(format!(
            "a rectifying invoice collects nothing itself: record payments against {}, \
             whose balance it changed",
            rectified.number
        )));
    }
    if !collectible(invoice) && !amount.is_sign_negative() {
        return Err(PaymentRefusal::State(format!(
            "the invoice's balance is {}: there is nothing to collect",
            Money::from(payable(invoice))
        )));
    }
    if amount.is_zero() {
        return Err(invalid(
            "parameter_invalid",
            "amount",
            "amount must not be 0 (negative for a refund)".into(),
        ));
    }
    if amount.normalize().scale() > 2 {
        return Err(invalid(
            "parameter_invalid",
            "amount",
            "amount has more than 2 decimals".into(),
        ));
    }
    if date > today {
        return Err(invalid(
            "parameter_invalid",
            "date",
            format!("{date} is in the future (today is {today} in Madrid)"),
        ));
    }
    if date < invoice.issue_date {
        return Err(invalid(
            "parameter_invalid",
            "date",
            format!(
                "{date} is before the invoice's issue date {}",
                invoice.issue_date
            ),
        ));
    }
    let paid = amount_paid(invoice);
    let after = paid + amount;
    if after < Decimal::ZERO {
        return Err(invalid(
            "refund_exceeds_paid",
            "amount",
            format!("a refund of {} is more than the {paid} paid", -amount),
        ));
    }
    let payable = payable(invoice);
    if amount > Decimal::ZERO && after > payable {
        return Err(invalid(
            "overpayment",
            "amount",
            format!(
                "{amount} is more than the {} outstanding (balance {}, paid {paid})",
                Money::from(payable - paid),
                Money::from(payable)
            ),
        ));
    }
    Ok(())
}

/// Checks requested instalments against the issue date and the total:
/// 1–12 of them, dates in ascending order, none before the issue date,
/// amounts positive with at most 2 decimals, adding up to the total exactly
/// (no rounding is applied: the client splits the cents). Returns the
/// offending field (relative, e.g. `[1].date`) and a message.
pub fn check_schedule(
    requested: &[(NaiveDate, Decimal)],
    issue_date: NaiveDate,
    total: Decimal,
) -> Result<Vec<Instalment>, (String, String)> {
    if requested.is_empty() || requested.len() > MAX_INSTALMENTS {
        return Err((
            String::new(),
            format!("between 1 and {MAX_INSTALMENTS} instalments"),
        ));
    }
    if total <= Decimal::ZERO {
        return Err((
            String::new(),
            format!("the invoice's total is {total}: there is nothing to collect in instalments"),
        ));
    }
    let mut previous: Option<NaiveDate> = None;
    for (i, (date, amount)) in requested.iter().enumerate() {
        if *date < issue_date {
            return Err((
                format!("[{i}].date"),
                format!("{date} is before the issue date {issue_date}"),
            ));
        }
        if previous.is_some_and(|p| *date <= p) {
            return Err((
                format!("[{i}].date"),
                "instalment dates must be in ascending order, each after the previous".into(),
            ));
        }
        previous = Some(*date);
        if *amount <= Decimal::ZERO || amount.normalize().scale() > 2 {
            return Err((
                format!("[{i}].amount"),
                "an instalment amount is more than 0, with at most 2 decimals".into(),
            ));
        }
    }
    let sum: Decimal = requested.iter().map(|(_, a)| *a).sum();
    if sum != total {
        return Err((
            String::new(),
            format!(
                "the instalments add up to {sum}; they must add up to the invoice total {total} exactly"
            ),
        ));
    }
    Ok(requested
        .iter()
        .map(|(date, amount)| Instalment::new(*date, amount.normalize()))
        .collect())
}

#[cfg(test)]
mod tests {
    use rust_decimal::dec;

    use super::*;
    use crate::invoice::model::HistoryEvent;

    fn day(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn invoice(total: Decimal, instalments: &[(&str, Decimal)]) -> Invoice {
        let mut invoice: Invoice =
            serde_json::from_value(crate::invoice::model::tests::stored_before_payments()).unwrap();
        invoice.total = Money::from(total);
        invoice.instalments = instalments
            .iter()
            .map(|(d, a)| Instalment::new(day(d), *a))
            .collect();
        invoice
    }

    fn pay(invoice: &mut Invoice, amount: Decimal, date: &str) {
        invoice.payments.push(PaymentEntry {
            id: format!("pay_{}", invoice.payments.len()),
            amount: Money::from(amount),
            date: day(date),
            method: PaymentMethod::Transfer,
            reference: None,
            created_at: "2026-11-01T10:00:00Z".parse().unwrap(),
        });
    }

    const TWO: [(&str, Decimal); 2] = [("2026-11-30", dec!(60)), ("2026-12-31", dec!(61))];

    #[test]
    fn payments_move_the_state_from_unpaid_to_paid_and_back() {
        let mut i = invoice(dec!(121), &TWO);
        let today = day("2026-11-20");
        assert_eq!(state(&i, today).status, PaymentStatus::Unpaid);
        assert_eq!(state(&i, today).amount_due, dec!(121));
        pay(&mut i, dec!(50), "2026-11-10");
        let s = state(&i, today);
        assert_eq!(
            (s.status, s.amount_paid, s.amount_due, s.paid_at),
            (PaymentStatus::PartiallyPaid, dec!(50), dec!(71), None)
        );
        pay(&mut i, dec!(71), "2026-11-15");
        let s = state(&i, today);
        assert_eq!(
            (s.status, s.amount_due, s.paid_at),
            (PaymentStatus::Paid, dec!(0), Some(day("2026-11-15")))
        );
        pay(&mut i, dec!(-21), "2026-11-16");
        assert_eq!(state(&i, today).status, PaymentStatus::PartiallyPaid);
    }

    #[test]
    fn the_next_due_date_is_the_first_instalment_not_covered() {
        let mut i = invoice(dec!(121), &TWO);
        assert_eq!(next_due_date(&i), Some(day("2026-11-30")));
        pay(&mut i, dec!(60), "2026-11-10");
        assert_eq!(next_due_date(&i), Some(day("2026-12-31")));
        pay(&mut i, dec!(61), "2026-11-10");
        assert_eq!(
            next_due_date(&i),
            Some(day("2026-11-30")),
            "all covered: the first"
        );
        let mut legacy = invoice(dec!(121), &[]);
        assert_eq!(next_due_date(&legacy), None);
        legacy.due_date = Some(day("2027-01-01"));
        assert_eq!(next_due_date(&legacy), Some(day("2027-01-01")));
    }

    #[test]
    fn an_instalment_past_its_date_and_not_covered_is_overdue() {
        let mut i = invoice(dec!(121), &TWO);
        assert_eq!(
            state(&i, day("2026-11-30")).status,
            PaymentStatus::Unpaid,
            "due today is not late"
        );
        assert_eq!(state(&i, day("2026-12-01")).status, PaymentStatus::Overdue);
        pay(&mut i, dec!(59.99), "2026-11-10");
        assert_eq!(state(&i, day("2026-12-01")).status, PaymentStatus::Overdue);
        assert_eq!(open_instalments(&i), [0, 1]);
        pay(&mut i, dec!(0.01), "2026-11-10");
        assert_eq!(
            state(&i, day("2026-12-01")).status,
            PaymentStatus::PartiallyPaid
        );
        assert_eq!(open_instalments(&i), [1]);
        assert_eq!(state(&i, day("2027-01-01")).status, PaymentStatus::Overdue);
        i.instalments[1].overdue_notified_at = Some("2027-01-01T00:00:00Z".parse().unwrap());
        assert!(open_instalments(&i).is_empty(), "notified once");
        i.status = Status::Cancelled;
        let s = state(&i, day("2027-01-01"));
        assert_eq!(
            (s.status, s.amount_due),
            (PaymentStatus::PartiallyPaid, dec!(0))
        );
    }

    #[test]
    fn invoices_stored_before_payments_read_sensibly() {
        let mut i = invoice(dec!(121), &[]);
        i.due_date = Some(day("2026-12-21"));
        assert_eq!(state(&i, day("2026-12-21")).status, PaymentStatus::Unpaid);
        assert_eq!(state(&i, day("2026-12-22")).status, PaymentStatus::Overdue);
        assert!(open_instalments(&i).is_empty(), "no index items for them");
        i.status = Status::Paid;
        i.events.push(HistoryEvent {
            kind: HistoryKind::Paid,
            at: "2026-12-01T23:30:00Z".parse().unwrap(),
            detail: None,
        });
        let s = state(&i, day("2027-01-10"));
        assert_eq!(
            (s.status, s.amount_paid, s.amount_due, s.paid_at),
            (
                PaymentStatus::Paid,
                dec!(121),
                dec!(0),
                Some(day("2026-12-02"))
            )
        );
        i.due_date = None;
        i.status = Status::Issued;
        assert_eq!(state(&i, day("2030-01-01")).status, PaymentStatus::Unpaid);
    }

    #[test]
    fn nothing_to_collect_reads_paid() {
        let mut i = invoice(dec!(-50), &[]);
        let s = state(&i, day("2026-12-01"));
        assert_eq!((s.status, s.amount_due), (PaymentStatus::Paid, dec!(0)));
        i.status = Status::Paid;
        assert_eq!(state(&i, day("2026-12-01")).amount_paid, dec!(0));
        let e = check(&i, dec!(10), day("2026-11-21"), day("2026-12-01")).unwrap_err();
        assert!(matches!(e, PaymentRefusal::State(_)));
    }

    #[test]
    fn payments_are_checked_against_dates_and_what_is_outstanding() {
        let mut i = invoice(dec!(121), &TWO);
        let today = day("2026-12-01");
        let field = |r: Result<(), PaymentRefusal>| match r {
            Err(PaymentRefusal::Invalid { code, field, .. }) => (code, field),
            other => panic!("{other:?}"),
        };
        let issued = i.issue_date;
        assert!(check(&i, dec!(121), issued, today).is_ok());
        assert_eq!(
            field(check(&i, dec!(121.01), today, today)),
            ("overpayment", "amount")
        );
        assert_eq!(
            field(check(&i, dec!(-1), today, today)),
            ("refund_exceeds_paid", "amount")
        );
        assert_eq!(field(check(&i, dec!(0), today, today)).1, "amount");
        assert_eq!(field(check(&i, dec!(1.001), today, today)).1, "amount");
        assert_eq!(
            field(check(&i, dec!(1), day("2026-12-02"), today)).1,
            "date"
        );
        assert_eq!(
            field(check(&i, dec!(1), issued.pred_opt().unwrap(), today)).1,
            "date"
        );
        pay(&mut i, dec!(100), "2026-11-30");
        assert!(check(&i, dec!(-100), today, today).is_ok());
        i.status = Status::Cancelled;
        assert!(matches!(
            check(&i, dec!(1), today, today),
            Err(PaymentRefusal::State(_))
        ));
    }

    #[test]
    fn schedules_add_up_exactly_in_ascending_order() {
        let issue = day("2026-11-21");
        let ok = check_schedule(
            &[
                (day("2026-12-21"), dec!(60.50)),
                (day("2027-01-21"), dec!(60.5)),
            ],
            issue,
            dec!(121),
        )
        .unwrap();
        assert_eq!(ok[0].amount.to_string(), "60.5");
        let err = |r: Result<Vec<Instalment>, (String, String)>| r.unwrap_err().0;
        assert_eq!(
            err(check_schedule(
                &[(day("2026-12-21"), dec!(120.99))],
                issue,
                dec!(121)
            )),
            ""
        );
        assert_eq!(
            err(check_schedule(
                &[(day("2026-11-20"), dec!(121))],
                issue,
                dec!(121)
            )),
            "[0].date"
        );
        assert_eq!(
            err(check_schedule(
                &[(day("2026-12-21"), dec!(60)), (day("2026-12-21"), dec!(61))],
                issue,
                dec!(121)
            )),
            "[1].date"
        );
        assert_eq!(
            err(check_schedule(
                &[(day("2026-12-21"), dec!(-1))],
                issue,
                dec!(-1)
            )),
            ""
        );
        assert_eq!(
            err(check_schedule(
                &[
                    (day("2026-12-21"), dec!(0.005)),
                    (day("2026-12-22"), dec!(120.995))
                ],
                issue,
                dec!(121)
            )),
            "[0].amount"
        );
        let many: Vec<_> = (1..=13)
            .map(|d| (day("2026-11-30") + chrono::Days::new(d), dec!(1)))
            .collect();
        assert_eq!(err(check_schedule(&many, issue, dec!(13))), "");
    }

    #[test]
    fn methods_parse_from_their_codes() {
        for m in PaymentMethod::ALL {
            assert_eq!(PaymentMethod::parse(m.code()), Some(m));
            assert_eq!(serde_json::to_value(m).unwrap(), m.code());
        }
        assert_eq!(PaymentMethod::parse("cheque"), None);
    }
}
