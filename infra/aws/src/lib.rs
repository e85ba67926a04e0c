//! The AWS adapters of the service's ports.

pub mod dynamodb_table;
pub mod environment;
pub mod stream_dispatcher;
pub mod textract;

pub use dynamodb_table::DynamoTable;
