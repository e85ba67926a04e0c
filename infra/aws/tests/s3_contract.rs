//! The `Blobs` contract suite against S3, run when an emulator (or a real
//! endpoint) is configured through the SDK's standard endpoint variables.
//! moto checks no signature, so the refusals of presigned PUTs (another
//! type, size, signature, an expired URL) are checked only with
//! `SVC_S3_ENFORCES_SIGNATURES=1` (real S3); what is checked everywhere is
//! that the signature covers the type and the length.

mod support;

use std::sync::Arc;

use async_trait::async_trait;
use infra_aws::S3Blobs;
use shared::ids::random_token;
use shared::ports::Blobs;
use shared::ports::blobs_contract::{self, PutSender};

struct Http(reqwest::Client);

#[async_trait]
impl PutSender for Http {
    async fn put(&self, url: &str, headers: &[(String, String)], body: Vec<u8>) -> u16 {
        let mut request = self.0.put(url);
        for (name, value) in headers {
            if !name.eq_ignore_ascii_case("content-length") {
                request = request.header(name, value);
            }
        }
        request.body(body).send().await.unwrap().status().as_u16()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn s3_engine_passes_the_blobs_contract() {
    if !support::emulator_of("S3", "S3 contract suite") {
        return;
    }
    let bucket = format!("svc-contract-{}", random_token(6));
    let blobs = Arc::new(S3Blobs::from_env(&bucket).await);
    blobs.create_bucket().await.expect("create the bucket");
    blobs_contract::run(blobs.clone()).await;

    let enforces = std::env::var("SVC_S3_ENFORCES_SIGNATURES").as_deref() == Ok("1");
    blobs_contract::run_presigned(blobs.clone(), &Http(reqwest::Client::new()), enforces).await;

    let expires = chrono::Utc::now() + chrono::Duration::minutes(15);
    let presigned = blobs
        .presign_put("uploads/acct_1/live/upl_1", "image/png", 1234, expires)
        .await
        .unwrap();
    let url = reqwest::Url::parse(&presigned.url).unwrap();
    let query = |name: &str| {
        url.query_pairs()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.into_owned())
    };
    assert_eq!(
        query("X-Amz-SignedHeaders").as_deref(),
        Some("content-length;content-type;host"),
        "{url}"
    );
    let lifetime: u64 = query("X-Amz-Expires").unwrap().parse().unwrap();
    assert!((890..=900).contains(&lifetime), "{lifetime}");
}
