//! Every integration test of the AWS adapters (on the emulator), the SAM template and the Lambda packages in one binary: each module is one suite
//! (its file beside this one), and the modules they share are compiled
//! once. Run one suite with `cargo test -p infra-aws --test main <suite>`.

mod fake_bedrock;
mod fake_textract;
mod support;
mod template;

mod analyses_on_dynamodb;
mod bedrock_contract;
mod dispatcher_stream;
mod dynamodb_contract;
mod invoices_on_dynamodb;
mod jobs_on_aws;
mod kms_contract;
mod lambda_deadline;
mod lambda_packages;
mod lost_answers_on_dynamodb;
mod operator_policy;
mod payments_on_dynamodb;
mod s3_contract;
mod ses_contract;
mod sqs_contract;
mod template_observability;
mod template_queues;
mod template_routes;
mod template_safety;
mod template_table;
mod textract_contract;
mod uploads_on_aws;
