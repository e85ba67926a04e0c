//! Invoices: lines, totals, numbering, states and the issued invoice as it
//! is stored and shown (`model`), which the document writers read. Pure.

pub mod combinations;
pub mod email;
pub mod iban;
pub mod kind;
pub mod line;
pub mod model;
pub mod number;
pub mod party;
pub mod payments;
pub mod rectification;
pub mod series;
pub mod status;
pub mod totals;
pub mod warnings;
