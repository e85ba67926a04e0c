//! What can go wrong with an invoice operation.

use crate::app::accounts::AccountError;
use crate::invoice::combinations::Refusal;
use crate::ports::table::TableError;

#[derive(Debug)]
pub enum InvoiceError {
    /// 400: a request field is wrong.
    Invalid {
        code: &'static str,
        param: String,
        message: String,
    },
    /// 409: the account's issuer details lack these fields.
    IssuerIncomplete(Vec<&'static str>),
    /// 404.
    NotFound(String),
    /// 409: the invoice is not in a state that allows this.
    InvalidState(String),
    /// 409: another account's issuer has this NIF (see `nif_claims`).
    IssuerNifTaken(String),
    Storage(TableError),
}

impl InvoiceError {
    pub fn invalid(code: &'static str, param: String, message: impl Into<String>) -> Self {
        InvoiceError::Invalid {
            code,
            param,
            message: message.into(),
        }
    }
}

impl From<Refusal> for InvoiceError {
    fn from(r: Refusal) -> Self {
        InvoiceError::invalid(r.code, r.field, r.message)
    }
}

impl From<AccountError> for InvoiceError {
    fn from(e: AccountError) -> Self {
        match e {
            AccountError::Table(t) => InvoiceError::Storage(t),
            other => InvoiceError::NotFound(other.to_string()),
        }
    }
}

impl From<TableError> for InvoiceError {
    fn from(e: TableError) -> Self {
        InvoiceError::Storage(e)
    }
}
