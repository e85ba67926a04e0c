//! The special cash-accounting regime (régimen especial del criterio de
//! caja, LIVA arts. 163 decies–163 sexiesdecies): output VAT of an invoice
//! issued under it accrues when the customer pays, in proportion to what is
//! paid, or on 31 December of the year after the operation for whatever is
//! still unpaid then (art. 163 terdecies.Uno).
//!
//! How the ledger gives each quarter its figures:
//! - The invoice's ledger entry stays where the general rule puts it (its
//!   accrual date, art. 75), marked `cash_accounting`: Modelo 130 reads its
//!   income there (IRPF is not affected), and Modelo 303 puts its taxed
//!   groups in boxes 62/63 of that quarter, not in the output boxes.
//! - Each payment or refund writes a `Collection` in its own transaction,
//!   dated by the payment: per taxed group, `round2(x × paid after ÷ total)
//!   − round2(x × paid before ÷ total)` of base, VAT and surcharge. The
//!   shares of successive collections telescope to `round2(x × paid ÷
//!   total)`, so the collection that completes the total takes exactly the
//!   rest and no cent drifts; a refund gives a negative collection.
//!   Payments dated after the deadline accrue nothing: it all accrued then.
//! - The fourth quarter of the year after the operation adds what the
//!   collections up to 31 December left: the entry's taxed groups minus
//!   their collections (`uncollected`).
//!
//! Only Spanish VAT on taxed (S1) groups follows the regime: exempt, not
//! subject and reverse-charge groups have no output VAT to defer, and the
//! regime excludes exports, intra-EU supplies and reverse charge (art. 163
//! nonies.Cuatro).

use chrono::{Datelike, NaiveDate};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::ledger_entry::{LedgerEntry, RateGroup};
use super::money::round2;
use crate::invoice::line::Treatment;

/// The VAT of an invoice under the regime that accrued with one payment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Collection {
    pub invoice_id: String,
    pub number: String,
    pub payment_id: String,
    /// The payment's date: when this share accrued.
    pub date: NaiveDate,
    /// The taxed groups' shares, signed (a refund is negative).
    pub groups: Vec<RateGroup>,
}

/// The last day VAT of an operation accrued on `accrual` (general rule) can
/// wait for its collection: 31 December of the next year (art. 163
/// terdecies.Uno).
pub fn deadline(accrual: NaiveDate) -> NaiveDate {
    NaiveDate::from_ymd_opt(accrual.year() + 1, 12, 31).expect("31 December exists")
}

fn share(x: Decimal, paid_before: Decimal, paid_after: Decimal, total: Decimal) -> Decimal {
    round2(x * paid_after / total) - round2(x * paid_before / total)
}

/// The shares of the taxed groups that a payment taking the amount paid
/// from `paid_before` to `paid_after` (of `total`) makes accrue. Empty when
/// the invoice has nothing to collect.
pub fn collected(
    groups: &[RateGroup],
    total: Decimal,
    paid_before: Decimal,
    paid_after: Decimal,
) -> Vec<RateGroup> {
    if total <= Decimal::ZERO {
        return Vec::new();
    }
    groups
        .iter()
        .filter(|g| g.treatment == Treatment::Taxed)
        .map(|g| RateGroup {
            base: share(g.base, paid_before, paid_after, total),
            vat_amount: share(g.vat_amount, paid_before, paid_after, total),
            surcharge_amount: share(g.surcharge_amount, paid_before, paid_after, total),
            ..g.clone()
        })
        .collect()
}

fn same_rates(a: &RateGroup, b: &RateGroup) -> bool {
    a.vat_rate == b.vat_rate && a.surcharge_rate == b.surcharge_rate && a.treatment == b.treatment
}

/// What of an entry's taxed groups its collections up to the deadline left
/// uncollected: it accrues on the deadline. The reversing entry of a
/// cancelled invoice (negative total; nothing negative is ever collected)
/// takes none of the invoice's collections: with the invoice's own rest it
/// gives back, on the deadline, the VAT its payments made accrue.
pub fn uncollected(entry: &LedgerEntry, collections: &[Collection]) -> Vec<RateGroup> {
    let until = deadline(entry.accrual());
    let reverses = entry.total.is_sign_negative();
    let counted: Vec<&RateGroup> = collections
        .iter()
        .filter(|c| !reverses && c.invoice_id == entry.invoice_id && c.date <= until)
        .flat_map(|c| &c.groups)
        .collect();
    entry
        .groups
        .iter()
        .filter(|g| g.treatment == Treatment::Taxed)
        .map(|g| {
            let paid = counted.iter().filter(|c| same_rates(c, g));
            let mut rest = g.clone();
            for c in paid {
                rest.base -= c.base;
                rest.vat_amount -= c.vat_amount;
                rest.surcharge_amount -= c.surcharge_amount;
            }
            rest
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::invoice::kind::Kind;
    use rust_decimal::dec;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn taxed(rate: Decimal, base: Decimal, vat: Decimal) -> RateGroup {
        RateGroup {
            vat_rate: rate,
            base,
            vat_amount: vat,
            surcharge_rate: dec!(0),
            surcharge_amount: dec!(0),
            treatment: Treatment::Taxed,
        }
    }

    fn figures(groups: &[RateGroup]) -> Vec<(Decimal, Decimal)> {
        groups.iter().map(|g| (g.base, g.vat_amount)).collect()
    }

    #[test]
    fn the_deadline_is_31_december_of_the_next_year() {
        // LIVA art. 163 terdecies.Uno: "el 31 de diciembre del año
        // inmediato posterior a aquel en que se haya realizado la operación".
        assert_eq!(deadline(d("2026-02-10")), d("2027-12-31"));
        assert_eq!(deadline(d("2026-12-31")), d("2027-12-31"));
    }

    #[test]
    fn vat_accrues_in_proportion_to_what_is_paid() {
        // 1,000 + 21 % = 1,210 paid in two halves of 605: 500/105 each.
        let groups = [taxed(dec!(21), dec!(1000), dec!(210))];
        let first = collected(&groups, dec!(1210), dec!(0), dec!(605));
        let second = collected(&groups, dec!(1210), dec!(605), dec!(1210));
        assert_eq!(figures(&first), [(dec!(500), dec!(105))]);
        assert_eq!(figures(&second), [(dec!(500), dec!(105))]);
    }

    #[test]
    fn the_payment_completing_the_total_takes_the_rest_to_the_cent() {
        // 100 + 21 % = 121 paid in thirds: 40.33, 40.33, 40.34.
        // 100 × 40.33 / 121 = 33.33; × 80.66 / 121 = 66.66…→ 66.66; all: 100.
        // VAT 21 × 40.33 / 121 = 6.999…→ 7.00; × 80.66 / 121 = 13.998…→ 14.00; all: 21.
        let groups = [taxed(dec!(21), dec!(100), dec!(21))];
        let paid = [dec!(0), dec!(40.33), dec!(80.66), dec!(121)];
        let shares: Vec<_> = paid
            .windows(2)
            .map(|w| figures(&collected(&groups, dec!(121), w[0], w[1]))[0])
            .collect();
        assert_eq!(
            shares,
            [
                (dec!(33.33), dec!(7.00)),
                (dec!(33.33), dec!(7.00)),
                (dec!(33.34), dec!(7.00))
            ]
        );
    }

    #[test]
    fn a_refund_reverses_its_share_and_untaxed_groups_never_defer() {
        let groups = [
            taxed(dec!(21), dec!(1000), dec!(210)),
            RateGroup {
                treatment: Treatment::E1,
                ..taxed(dec!(0), dec!(100), dec!(0))
            },
        ];
        let refund = collected(&groups, dec!(1310), dec!(1310), dec!(655));
        assert_eq!(figures(&refund), [(dec!(-500), dec!(-105))]);
        assert!(collected(&groups, dec!(-10), dec!(0), dec!(0)).is_empty());
    }

    #[test]
    fn what_is_unpaid_on_the_deadline_accrues_then() {
        // Operation 10-02-2026, 1,000 + 21 %; 302.50 paid on 01-03-2027
        // (250/52.50); another 302.50 on 02-01-2028, after the deadline.
        // On 31-12-2027 the rest accrues: 750/157.50.
        let entry = LedgerEntry {
            invoice_id: "inv_1".into(),
            number: "F2026-1".into(),
            kind: Kind::F1,
            tax: Default::default(),
            issue_date: d("2026-02-10"),
            operation_date: None,
            accrual_date: Some(d("2026-02-10")),
            customer_country: None,
            cash_accounting: true,
            groups: vec![taxed(dec!(21), dec!(1000), dec!(210))],
            irpf_rate: dec!(0),
            irpf_amount: dec!(0),
            total: dec!(1210),
        };
        let paid = |date: &str, base, vat| Collection {
            invoice_id: "inv_1".into(),
            number: "F2026-1".into(),
            payment_id: format!("pay_{date}"),
            date: d(date),
            groups: vec![taxed(dec!(21), base, vat)],
        };
        let collections = [
            paid("2027-03-01", dec!(250), dec!(52.50)),
            paid("2028-01-02", dec!(250), dec!(52.50)),
        ];
        assert_eq!(
            figures(&uncollected(&entry, &collections)),
            [(dec!(750), dec!(157.50))]
        );
        // Cancelled (issued by mistake) after the first payment: its
        // reversing entry gives back 1,000/210, so with the rest 750/157.50
        // the deadline returns the 250/52.50 collected: nothing accrued.
        let reversal = LedgerEntry {
            number: "F2026-1-ANULADA".into(),
            total: dec!(-1210),
            groups: vec![taxed(dec!(21), dec!(-1000), dec!(-210))],
            ..entry.clone()
        };
        assert_eq!(
            figures(&uncollected(&reversal, &collections)),
            [(dec!(-1000), dec!(-210))]
        );
    }
}
