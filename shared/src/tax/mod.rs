//! Spanish tax rules: pure, one file per concern.

pub mod accrual;
pub mod amortisation;
pub mod calendar;
pub mod cash_accounting;
pub mod indirect;
pub mod ledger_entry;
pub mod model130;
pub mod model303;
pub mod money;
pub mod nif;
pub mod quarter;
pub mod vat;
pub mod withheld;
pub mod withholding;
