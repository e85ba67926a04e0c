//! The AEAT's VERI*FACTU web service as messages (SOAP 1.1,
//! `RegFactuSistemaFacturacion` in, `RespuestaRegFactuSistemaFacturacion`
//! out; the query `ConsultaFactuSistemaFacturacion` and its answer): what a
//! submitter writes and reads, and what the simulator reads and answers.
//! Pure: no transport here.

pub mod answer;
pub mod query;
pub mod simulated_errors;
pub mod soap;
pub mod submission;

pub use answer::{Answer, AnswerLine, Duplicate, RecordError, RecordState, SendState};
pub use soap::Fault;
pub use submission::{InvoiceKey, MAX_RECORDS, Operation, Submission, SubmittedRecord};
