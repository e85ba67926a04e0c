//! The AWS SDK's configuration every adapter starts from: the standard
//! environment (credentials, `AWS_REGION`, `AWS_ENDPOINT_URL[_<SERVICE>]`
//! for an emulator), in `eu-west-1` when no region is configured, over an
//! HTTPS client of rustls on ring (see `shared::ports::tls`).

use aws_config::meta::region::RegionProviderChain;
use aws_config::{BehaviorVersion, Region, SdkConfig};
use aws_smithy_http_client::tls::{Provider, rustls_provider::CryptoMode};

const DEFAULT_REGION: &str = "eu-west-1";

pub async fn config() -> SdkConfig {
    let region = RegionProviderChain::default_provider().or_else(Region::new(DEFAULT_REGION));
    let https = aws_smithy_http_client::Builder::new()
        .tls_provider(Provider::Rustls(CryptoMode::Ring))
        .build_https();
    aws_config::defaults(BehaviorVersion::latest())
        .region(region)
        .http_client(https)
        .load()
        .await
}
