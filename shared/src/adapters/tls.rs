//! The crypto under the service's TLS clients (webhook deliveries, the
//! AEAT): rustls on ring, as the AWS SDK's client (`infra_aws::sdk`). reqwest
//! takes rustls' process-wide provider, which `install` sets; aws-lc, its
//! default, would add about 2 MB to every Lambda package.

/// Makes ring rustls' process-wide provider, unless one is set already.
pub fn install() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}
