//! An issuer NIF belongs to one account in live mode. Live VERI*FACTU
//! records chain by issuer NIF (the AEAT's chain is the NIF's), so two
//! accounts with the same issuer NIF would share a chain: each would sign
//! records linked to the other's and see the other's numbers. The account
//! that sets a NIF as its issuer's claims it in the same transaction, and
//! every live record commits with a check of the claim. Test records chain
//! per account, so the test space claims nothing.
//!
//! An account that changes its issuer NIF frees the old one only while that
//! NIF's live chain has no records: once it has, its chain stays its own.

use crate::app::invoices::store::live_chain_pk;
use crate::domain::account::AccountId;
use crate::ports::Ports;
use crate::ports::table::{Condition, Item, Key, TableError, Write};

#[derive(Debug, thiserror::Error)]
pub enum ClaimError {
    #[error(
        "the NIF {0} is the issuer NIF of another account, which holds its VERI*FACTU chain; an issuer NIF belongs to one account"
    )]
    Taken(String),
    #[error(transparent)]
    Storage(#[from] TableError),
}

fn key(nif: &str) -> Key {
    Key::new(format!("NIFCLAIM#{nif}"), "LIVE")
}

/// The write that claims `nif` for `account` (a check when it holds it
/// already): to commit with what needs the claim.
pub async fn claim(ports: &Ports, account: &AccountId, nif: &str) -> Result<Write, ClaimError> {
    let holder = Condition::equals("account_id", account.to_string());
    match ports.table.get(&key(nif)).await? {
        None => Ok(Write::Put {
            item: Item::new(key(nif)).with("account_id", account.to_string()),
            condition: Some(Condition::Absent),
        }),
        Some(item) if item.s("account_id") == Some(account.as_str()) => Ok(Write::Check {
            key: key(nif),
            condition: holder,
        }),
        Some(_) => Err(ClaimError::Taken(nif.to_string())),
    }
}

/// The write that frees `account`'s claim on `nif`, unless its live chain
/// has records (then none: the chain stays the account's).
pub async fn release(
    ports: &Ports,
    account: &AccountId,
    nif: &str,
) -> Result<Option<Write>, TableError> {
    let head = Key::new(live_chain_pk(nif), "HEAD");
    if ports.table.get(&head).await?.is_some() {
        return Ok(None);
    }
    Ok(Some(Write::Delete {
        key: key(nif),
        condition: Some(Condition::equals("account_id", account.to_string())),
    }))
}

/// Whether a failed condition of a commit was a claim's: another account
/// claimed the NIF meanwhile.
pub fn is_claim(failed: &Key) -> bool {
    failed.pk.starts_with("NIFCLAIM#")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::test_ports;

    #[tokio::test]
    async fn a_nif_is_claimed_by_one_account_and_freed_while_it_has_no_chain() {
        let (ports, _dir) = test_ports();
        let (a, b) = (AccountId::generate(), AccountId::generate());
        let first = claim(&ports, &a, "B64717838").await.unwrap();
        assert!(matches!(first, Write::Put { .. }));
        ports.table.transact(vec![first]).await.unwrap();
        assert!(matches!(
            claim(&ports, &a, "B64717838").await.unwrap(),
            Write::Check { .. }
        ));
        assert!(matches!(
            claim(&ports, &b, "B64717838").await,
            Err(ClaimError::Taken(nif)) if nif == "B64717838"
        ));
        let freed = release(&ports, &a, "B64717838").await.unwrap().unwrap();
        ports.table.transact(vec![freed]).await.unwrap();
        let second = claim(&ports, &b, "B64717838").await.unwrap();
        ports.table.transact(vec![second]).await.unwrap();

        let head = Item::new(Key::new(live_chain_pk("B64717838"), "HEAD"));
        ports.table.put(head, None).await.unwrap();
        assert!(release(&ports, &b, "B64717838").await.unwrap().is_none());
    }
}
