//! Received invoices (the book of expenses): their fields in layers, their
//! checks, and the deductible VAT and cost the tax returns take from them.

pub mod input;
pub mod kinds;
pub mod model;
pub mod payment;

pub use input::{DocumentInput, ExpenseFields, ExtractedFields, LineInput};
pub use kinds::{Category, Source, Status, Treatment};
pub use model::{
    Amortisation, Deductible, Document, Entry, Expense, ExpenseLine, FieldError, Supplier,
};
pub use payment::Paid;
