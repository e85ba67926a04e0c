//! Signing secrets at rest: sealed by the `Secrets` port, bound to their
//! webhook (the sealing context, of `Kind::WebhookSecret`): with the key
//! that seals the issuers' certificates on the embedded engine
//! (`SVC_SECRETS_KEY`), with a KMS key of their own on AWS
//! (`SVC_KMS_WEBHOOK_KEY_ID`: the certificates' key opens only for the
//! roles that talk to the AEAT). Whoever reads the table cannot sign events
//! as the service.
//!
//! Items written before sealing hold the secret in clear (`secret`,
//! `previous_secret`): they are read as they are and keep signing, and are
//! sealed at the webhook's next change by its account (`PATCH`, rotation),
//! which needs the key; a delivery worker's write of the webhook's health
//! keeps the form it read, so a sealed secret is never written back in
//! clear. Like certificates, a host without the key refuses to create
//! webhooks rather than keep their secrets in clear.

use super::WebhookError;
use super::store::Space;
use crate::ports::Ports;
use crate::ports::secrets::{Kind, SecretsError};
use crate::webhooks::secret::Secret;

/// A signing secret as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stored {
    /// Sealed by the `Secrets` port for its webhook.
    Sealed(String),
    /// In clear, as written before secrets were sealed.
    Clear(Secret),
}

/// The sealing context: a secret opens only for its own webhook.
fn context(space: &Space, webhook_id: &str) -> String {
    format!("{}{space}/{webhook_id}", Kind::WEBHOOK_SECRET_PREFIX)
}

/// `secret` sealed for the webhook; an error where the host has no key.
pub async fn seal(
    ports: &Ports,
    space: &Space,
    webhook_id: &str,
    secret: &Secret,
) -> Result<Stored, WebhookError> {
    let secrets = ports.secrets.as_ref().ok_or(WebhookError::NoSealingKey)?;
    secrets
        .seal(secret.expose().as_bytes(), &context(space, webhook_id))
        .await
        .map(Stored::Sealed)
        .map_err(WebhookError::Sealing)
}

/// `stored` sealed, if it is not yet and the host holds the key.
pub async fn sealed(
    ports: &Ports,
    space: &Space,
    webhook_id: &str,
    stored: Stored,
) -> Result<Stored, WebhookError> {
    match (&stored, &ports.secrets) {
        (Stored::Clear(secret), Some(_)) => seal(ports, space, webhook_id, secret).await,
        _ => Ok(stored),
    }
}

/// The secret in `stored`.
pub async fn open(
    ports: &Ports,
    space: &Space,
    webhook_id: &str,
    stored: &Stored,
) -> Result<Secret, SecretsError> {
    let sealed = match stored {
        Stored::Clear(secret) => return Ok(secret.clone()),
        Stored::Sealed(sealed) => sealed,
    };
    let secrets = ports.secrets.as_ref().ok_or_else(|| {
        SecretsError::WrongKey("no key to open signing secrets on this host".into())
    })?;
    let bytes = secrets.open(sealed, &context(space, webhook_id)).await?;
    let text = String::from_utf8(bytes.to_vec())
        .map_err(|_| SecretsError::WrongKey("the opened secret is not text".into()))?;
    Ok(Secret::from_stored(text))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::app::test_ports;
    use crate::domain::account::Mode;
    use crate::embedded::LocalSecrets;
    use crate::secrets_key::SecretsKey;

    fn space() -> Space {
        Space {
            account_id: "acct_1".into(),
            mode: Mode::Test,
        }
    }

    #[tokio::test]
    async fn a_secret_opens_for_its_own_webhook_only() {
        let (ports, _dir) = test_ports();
        let key = SecretsKey::parse(&SecretsKey::generate()).unwrap();
        let ports = ports.with_secrets(Arc::new(LocalSecrets::new(key)));
        let secret = Secret::generate();
        let stored = seal(&ports, &space(), "we_1", &secret).await.unwrap();
        let Stored::Sealed(text) = &stored else {
            panic!("sealed: {stored:?}")
        };
        assert!(!text.contains(&secret.expose()[6..]));
        assert_eq!(
            Kind::of(&context(&space(), "we_1")),
            Kind::WebhookSecret,
            "an adapter tells signing secrets by their context"
        );
        let opened = open(&ports, &space(), "we_1", &stored).await.unwrap();
        assert_eq!(opened, secret);
        assert!(open(&ports, &space(), "we_2", &stored).await.is_err());
        let clear = Stored::Clear(secret.clone());
        assert_eq!(
            open(&ports, &space(), "we_1", &clear).await.unwrap(),
            secret
        );
        let migrated = sealed(&ports, &space(), "we_1", clear).await.unwrap();
        assert!(matches!(migrated, Stored::Sealed(_)));
    }

    #[tokio::test]
    async fn a_host_without_the_key_refuses_to_seal() {
        let (ports, _dir) = test_ports();
        let refused = seal(&ports, &space(), "we_1", &Secret::generate()).await;
        assert!(matches!(refused, Err(WebhookError::NoSealingKey)));
        let clear = Stored::Clear(Secret::generate());
        let kept = sealed(&ports, &space(), "we_1", clear.clone())
            .await
            .unwrap();
        assert_eq!(kept, clear);
    }
}
