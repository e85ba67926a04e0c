//! Invoices: lines, totals, numbering and states. Pure.

pub mod iban;
pub mod line;
pub mod number;
pub mod party;
pub mod status;
pub mod totals;
