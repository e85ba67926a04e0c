//! The AWS SDK's configuration every adapter starts from: the standard
//! environment (credentials, `AWS_REGION`, `AWS_ENDPOINT_URL[_<SERVICE>]`
//! for an emulator) over an HTTPS client of rustls on ring (see
//! `shared::adapters::tls`). The region is never guessed: a host that uses AWS
//! checks one is configured at start (`require_region`).

use aws_config::{BehaviorVersion, SdkConfig};
use aws_smithy_http_client::tls::{Provider, rustls_provider::CryptoMode};

pub const MISSING_REGION: &str = "no AWS region is configured: set AWS_REGION (e.g. AWS_REGION=eu-west-1, the stack's region) or the region of your AWS profile";

pub async fn config() -> SdkConfig {
    let https = aws_smithy_http_client::Builder::new()
        .tls_provider(Provider::Rustls(CryptoMode::Ring))
        .build_https();
    // The loader's own providers (region, credentials) use this client too.
    aws_config::defaults(BehaviorVersion::latest())
        .http_client(https)
        .load()
        .await
}

/// Whether the environment names the AWS region; the error says how to.
pub async fn require_region() -> Result<(), String> {
    match config().await.region() {
        Some(_) => Ok(()),
        None => Err(MISSING_REGION.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_region_is_the_environments_and_never_guessed() {
        // SAFETY: no other test of this binary reads these variables.
        unsafe {
            std::env::remove_var("AWS_REGION");
            std::env::remove_var("AWS_DEFAULT_REGION");
            std::env::set_var("AWS_CONFIG_FILE", "/nonexistent");
            std::env::set_var("AWS_EC2_METADATA_DISABLED", "true");
        }
        assert_eq!(config().await.region(), None);
        assert_eq!(require_region().await, Err(MISSING_REGION.to_string()));
        unsafe { std::env::set_var("AWS_REGION", "eu-south-2") };
        let region = config().await.region().map(|r| r.to_string());
        assert_eq!(region.as_deref(), Some("eu-south-2"));
        assert_eq!(require_region().await, Ok(()));
    }
}
