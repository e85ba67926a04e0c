//! The agent-tool endpoint `POST /api/mcp` as a Lambda function: stateless,
//! so any instance answers any request; its tools run every endpoint group's
//! operations in-process (OCR by AWS Textract, jobs on SQS).

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    shared::http::observe::init_logging();
    let state = infra_aws::environment::state_from_env().await?;
    lambda_http::run(shared::mcp::router(state)).await
}
