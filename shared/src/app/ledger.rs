//! The account's ledger of live issued invoices, ordered by accrual date.
//! Invoice issuing adds an entry in its transaction; the tax tools read it.
//! Test-mode invoices never reach it.
//!
//! Entries are keyed `<accrual date>#<number>`: the returns select by the
//! date the VAT accrued (LIVA art. 75), not the issue date, and a key range
//! is the one query that pages through a quarter in order. Entries written
//! before the accrual date was kept are keyed by their issue date, which is
//! also the accrual date they read back with (`LedgerEntry::accrual`), so
//! old and new keys answer the same range query without rewriting any.

use chrono::NaiveDate;

use crate::domain::account::AccountId;
use crate::ports::Ports;
use crate::ports::table::{Condition, Item, Key, TableError, Write};
use crate::tax::ledger_entry::LedgerEntry;

fn partition(account: &AccountId) -> String {
    format!("LEDGER#{account}")
}

/// The write that records an entry, for the issuing transaction.
pub fn record(account: &AccountId, entry: &LedgerEntry) -> Write {
    let sk = format!("{}#{}", entry.accrual(), entry.number);
    let json = serde_json::to_string(entry).expect("ledger entries serialise");
    Write::Put {
        item: Item::new(Key::new(partition(account), sk)).with("entry", json),
        condition: Some(Condition::Absent),
    }
}

/// The entries that accrued from `from` to `to`, both inclusive, oldest first.
pub async fn between(
    ports: &Ports,
    account: &AccountId,
    from: NaiveDate,
    to: NaiveDate,
) -> Result<Vec<LedgerEntry>, TableError> {
    crate::app::dated_items::between(
        ports,
        partition(account),
        (from, to),
        "entry",
        "ledger entry",
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::test_ports;
    use crate::invoice::kind::Kind;
    use crate::invoice::line::Treatment;
    use crate::tax::ledger_entry::RateGroup;
    use rust_decimal::dec;

    fn entry(number: &str, date: &str) -> LedgerEntry {
        LedgerEntry {
            tax: Default::default(),
            operation_date: None,
            accrual_date: None,
            customer_country: None,
            cash_accounting: false,
            invoice_id: format!("inv_{number}"),
            number: number.into(),
            kind: Kind::F1,
            issue_date: date.parse().unwrap(),
            groups: vec![RateGroup {
                vat_rate: dec!(21),
                base: dec!(100.00),
                vat_amount: dec!(21.00),
                surcharge_rate: dec!(0),
                surcharge_amount: dec!(0),
                treatment: Treatment::Taxed,
            }],
            irpf_rate: dec!(15),
            irpf_amount: dec!(15.00),
            total: dec!(106.00),
        }
    }

    #[tokio::test]
    async fn entries_are_read_back_by_date_range_per_account() {
        let (ports, _dir) = test_ports();
        let account: AccountId = "acct_01".parse().unwrap();
        let other: AccountId = "acct_02".parse().unwrap();
        let writes = vec![
            record(&account, &entry("F2026-1", "2026-03-31")),
            record(&account, &entry("F2026-2", "2026-04-01")),
            record(&account, &entry("F2026-3", "2026-06-30")),
            record(&account, &entry("F2026-4", "2026-07-01")),
            record(&other, &entry("F2026-1", "2026-05-05")),
        ];
        ports.table.transact(writes).await.unwrap();
        let q2 = between(
            &ports,
            &account,
            "2026-04-01".parse().unwrap(),
            "2026-06-30".parse().unwrap(),
        )
        .await
        .unwrap();
        let numbers: Vec<_> = q2.iter().map(|e| e.number.as_str()).collect();
        assert_eq!(numbers, ["F2026-2", "F2026-3"]);
        assert_eq!(q2[0], entry("F2026-2", "2026-04-01"));
        let err = ports
            .table
            .transact(vec![record(&account, &entry("F2026-2", "2026-04-01"))])
            .await;
        assert!(err.is_err(), "an entry is written once");
    }

    #[tokio::test]
    async fn an_invoice_issued_after_its_quarter_is_read_in_the_quarter_it_accrued() {
        // LIVA art. 75.Uno: issued 12-10 for an operation of 28-09 → Q3.
        let (ports, _dir) = test_ports();
        let account: AccountId = "acct_01".parse().unwrap();
        let mut late = entry("F2026-9", "2026-10-12");
        late.operation_date = Some("2026-09-28".parse().unwrap());
        late.accrual_date = late.operation_date;
        ports
            .table
            .transact(vec![record(&account, &late)])
            .await
            .unwrap();
        let read = |from: &str, to: &str| {
            between(&ports, &account, from.parse().unwrap(), to.parse().unwrap())
        };
        assert_eq!(read("2026-07-01", "2026-09-30").await.unwrap(), [late]);
        assert!(read("2026-10-01", "2026-12-31").await.unwrap().is_empty());
    }
}
