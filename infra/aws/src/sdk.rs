//! The AWS SDK's configuration every adapter starts from: the standard
//! environment (credentials, `AWS_REGION`, `AWS_ENDPOINT_URL[_<SERVICE>]`
//! for an emulator), in `eu-west-1` when no region is configured.

use aws_config::meta::region::RegionProviderChain;
use aws_config::{BehaviorVersion, Region, SdkConfig};

const DEFAULT_REGION: &str = "eu-west-1";

pub async fn config() -> SdkConfig {
    let region = RegionProviderChain::default_provider().or_else(Region::new(DEFAULT_REGION));
    aws_config::defaults(BehaviorVersion::latest())
        .region(region)
        .load()
        .await
}
