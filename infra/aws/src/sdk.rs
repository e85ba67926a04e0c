//! The AWS SDK's configuration every adapter starts from: the standard
//! environment (credentials, `AWS_REGION`, `AWS_ENDPOINT_URL[_<SERVICE>]`
//! for an emulator), in `eu-west-1` when no region is configured, over an
//! HTTPS client of rustls on ring (see `shared::ports::tls`).

use aws_config::{BehaviorVersion, Region, SdkConfig};
use aws_smithy_http_client::tls::{Provider, rustls_provider::CryptoMode};

const DEFAULT_REGION: &str = "eu-west-1";

pub async fn config() -> SdkConfig {
    let https = aws_smithy_http_client::Builder::new()
        .tls_provider(Provider::Rustls(CryptoMode::Ring))
        .build_https();
    // The loader's own providers (region, credentials) use this client too.
    let config = aws_config::defaults(BehaviorVersion::latest())
        .http_client(https)
        .load()
        .await;
    match config.region() {
        Some(_) => config,
        None => config
            .into_builder()
            .region(Region::new(DEFAULT_REGION))
            .build(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_region_is_the_environments_or_eu_west_1() {
        // SAFETY: no other test of this binary reads these variables.
        unsafe {
            std::env::remove_var("AWS_REGION");
            std::env::remove_var("AWS_DEFAULT_REGION");
            std::env::set_var("AWS_CONFIG_FILE", "/nonexistent");
            std::env::set_var("AWS_EC2_METADATA_DISABLED", "true");
        }
        let region = || async { config().await.region().map(|r| r.to_string()) };
        assert_eq!(region().await.as_deref(), Some(DEFAULT_REGION));
        unsafe { std::env::set_var("AWS_REGION", "eu-south-2") };
        assert_eq!(region().await.as_deref(), Some("eu-south-2"));
    }
}
