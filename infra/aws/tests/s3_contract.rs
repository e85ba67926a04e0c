//! The `Blobs` contract suite against S3, run when an emulator (or a real
//! endpoint) is configured through the SDK's standard endpoint variables.

mod support;

use std::sync::Arc;

use infra_aws::S3Blobs;
use shared::ids::random_token;
use shared::ports::blobs_contract;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s3_engine_passes_the_blobs_contract() {
    if !support::emulator_of("S3", "S3 contract suite") {
        return;
    }
    let bucket = format!("svc-contract-{}", random_token(6));
    let blobs = S3Blobs::from_env(&bucket).await;
    blobs.create_bucket().await.expect("create the bucket");
    blobs_contract::run(Arc::new(blobs)).await;
}
