//! The AWS adapters of the service's ports.

pub mod dynamodb_table;
pub mod environment;
pub mod jobs_worker;
pub mod textract;

pub use dynamodb_table::DynamoTable;
