//! Verifying the caller's VERI*FACTU chain: the one of its account's issuer
//! NIF in the caller's mode, of which only the records the account made are
//! read; every fingerprint is recomputed and every link checked
//! (`verifactu::verify_chain`).

use super::error::InvoiceError;
use super::store;
use crate::app::accounts::{self, AccountError};
use crate::app::keys::Caller;
use crate::ports::Ports;
use crate::verifactu::{self, ChainCheck};

/// What the check found.
#[derive(Debug, PartialEq, Eq)]
pub struct ChainVerification {
    /// The chain's issuer NIF.
    pub issuer_nif: String,
    /// How many records were checked.
    pub records: usize,
    pub check: ChainCheck,
}

#[derive(Debug)]
pub enum VerifyChainError {
    /// The account could not be read.
    Account(AccountError),
    /// The account has no issuer NIF, so no chain.
    NoIssuerNif,
    /// The records could not be read.
    Records(InvoiceError),
}

pub async fn verify_chain(
    ports: &Ports,
    caller: &Caller,
) -> Result<ChainVerification, VerifyChainError> {
    let account = accounts::get(ports, &caller.account_id)
        .await
        .map_err(VerifyChainError::Account)?;
    let issuer_nif = account
        .issuer
        .nif
        .map(|n| n.to_string())
        .ok_or(VerifyChainError::NoIssuerNif)?;
    let chain = store::chain_pk(caller, &issuer_nif);
    let records = store::chain_records(ports, &chain, &caller.account_id)
        .await
        .map_err(VerifyChainError::Records)?;
    Ok(ChainVerification {
        issuer_nif,
        records: records.len(),
        check: verifactu::verify_chain(&records),
    })
}
