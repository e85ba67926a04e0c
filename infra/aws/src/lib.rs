//! The AWS adapters of the service's ports.

pub mod bedrock;
pub mod dynamodb_table;
pub mod environment;
pub mod gateway_edge;
pub mod http_function;
pub mod kms_secrets;
pub mod s3_blobs;
pub mod sdk;
pub mod ses_email;
pub mod ses_feedback;
pub mod sqs_queue;
pub mod sqs_worker;
pub mod stream_dispatcher;
pub mod textract;

pub use dynamodb_table::DynamoTable;
pub use kms_secrets::{KmsKeys, KmsSecrets};
pub use s3_blobs::S3Blobs;
pub use ses_email::SesEmail;
pub use sqs_queue::SqsQueue;
