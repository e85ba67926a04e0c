//! The issuers' certificates: imported by the operator
//! (`svc issuer certificate`), sealed at rest by the `Secrets` port, opened
//! only to send an issuer's live records. Never logged, never returned by
//! the API. One per account, in `CERTIFICATES/<account>`: the sealed PEM and
//! what may be shown in the clear (holder, NIF, validity, fingerprint).

use chrono::{DateTime, Utc};

use crate::app::accounts::{self, AccountError};
use crate::domain::account::AccountId;
use crate::metrics::{self, Metric};
use crate::ports::Ports;
use crate::ports::aeat::ClientIdentity;
use crate::ports::secrets::SecretsError;
use crate::ports::table::{Condition, Item, Key, Query, SortKey, TableError, Write};
use crate::verifactu::certificate::{Certificate, CertificateError, CertificateInfo};

const PK: &str = "CERTIFICATES";

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error(transparent)]
    Certificate(#[from] CertificateError),
    #[error(transparent)]
    Account(#[from] AccountError),
    #[error(
        "no key to seal certificates with: set SVC_SECRETS_KEY (embedded engine; `svc secrets-key` prints a new one) or SVC_KMS_KEY_ID (DynamoDB table)"
    )]
    NoSecrets,
    #[error(transparent)]
    Secrets(#[from] SecretsError),
    #[error(transparent)]
    Table(#[from] TableError),
}

fn key(account: &AccountId) -> Key {
    Key::new(PK, account.to_string())
}

/// The sealing context: a certificate opens only for its own account.
fn context(account: &AccountId) -> String {
    format!("certificate/{account}")
}

/// Reads `p12`, checks it and stores it sealed for `account`, replacing the
/// one before.
pub async fn import(
    ports: &Ports,
    account: &AccountId,
    p12: &[u8],
    password: &str,
) -> Result<CertificateInfo, ImportError> {
    accounts::get(ports, account).await?;
    let certificate = Certificate::from_pkcs12(p12, password, ports.clock.now())?;
    let secrets = ports.secrets.as_ref().ok_or(ImportError::NoSecrets)?;
    let sealed = secrets.seal(&certificate.pem, &context(account)).await?;
    let info = certificate.info;
    let item = Item::new(key(account))
        .with("sealed", sealed)
        .with("holder", info.holder.clone())
        .with("nif", info.nif.clone().unwrap_or_default())
        .with("subject", info.subject.clone())
        .with("issuer", info.issuer.clone())
        .with("not_before", info.not_before.to_rfc3339())
        .with("not_after", info.not_after.to_rfc3339())
        .with("fingerprint", info.fingerprint.clone())
        .with("imported_at", ports.clock.now().to_rfc3339());
    ports
        .table
        .transact(vec![Write::Put {
            item,
            condition: None,
        }])
        .await?;
    Ok(info)
}

/// What to know when the certificate speaks for another NIF than the issuer's.
pub fn nif_note(info: &CertificateInfo, issuer_nif: Option<&str>) -> Option<String> {
    let issuer = issuer_nif?;
    (info.nif.as_deref() != Some(issuer)).then(|| {
        format!(
            "the issuer's NIF is {issuer}; the AEAT accepts this certificate only if its holder may act for the issuer (a representative, apoderamiento or social collaborator)."
        )
    })
}

/// Removes the account's certificate; false when there was none.
pub async fn remove(ports: &Ports, account: &AccountId) -> Result<bool, TableError> {
    let delete = Write::Delete {
        key: key(account),
        condition: Some(Condition::Present),
    };
    match ports.table.transact(vec![delete]).await {
        Ok(()) => Ok(true),
        Err(TableError::ConditionFailed { .. }) => Ok(false),
        Err(e) => Err(e),
    }
}

fn time(item: &Item, name: &str) -> DateTime<Utc> {
    item.s(name)
        .and_then(|t| t.parse().ok())
        .unwrap_or_default()
}

/// What the stored certificate of `account` shows in the clear, if any.
pub async fn info(
    ports: &Ports,
    account: &AccountId,
) -> Result<Option<CertificateInfo>, TableError> {
    Ok(ports.table.get(&key(account)).await?.as_ref().map(decode))
}

fn decode(item: &Item) -> CertificateInfo {
    let text = |name: &str| item.s(name).unwrap_or_default().to_string();
    CertificateInfo {
        holder: text("holder"),
        nif: Some(text("nif")).filter(|n| !n.is_empty()),
        subject: text("subject"),
        issuer: text("issuer"),
        not_before: time(item, "not_before"),
        not_after: time(item, "not_after"),
        fingerprint: text("fingerprint"),
    }
}

/// Why a certificate (or its absence) cannot send live records at `now`,
/// from what is stored in the clear; None when it can (if the host can
/// open it).
fn lapsed(info: Option<&CertificateInfo>, now: DateTime<Utc>) -> Option<Unusable> {
    match info {
        None => Some(Unusable::Missing),
        Some(info) if info.not_after < now => Some(Unusable::Expired),
        Some(_) => None,
    }
}

/// Whether `account`'s certificate is missing or expired.
pub async fn standing(ports: &Ports, account: &AccountId) -> Result<Option<Unusable>, TableError> {
    Ok(lapsed(
        info(ports, account).await?.as_ref(),
        ports.clock.now(),
    ))
}

/// Why a live record of `account` cannot go now, as its `status_reason`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unusable {
    Missing,
    Expired,
    /// The host cannot open it (no key, or another key).
    Sealed(String),
}

impl Unusable {
    pub fn reason(&self) -> String {
        match self {
            Unusable::Missing => super::reason::CERTIFICATE_MISSING.to_string(),
            Unusable::Expired => super::reason::CERTIFICATE_EXPIRED.to_string(),
            Unusable::Sealed(why) => format!("{}: {why}", super::reason::CERTIFICATE_SEALED),
        }
    }
}

/// The TLS identity of `account`'s certificate, opened.
pub async fn identity(
    ports: &Ports,
    account: &AccountId,
) -> Result<Result<ClientIdentity, Unusable>, TableError> {
    let item = ports.table.get(&key(account)).await?;
    let info = item.as_ref().map(decode);
    if let Some(unusable) = lapsed(info.as_ref(), ports.clock.now()) {
        return Ok(Err(unusable));
    }
    let (Some(item), Some(info)) = (item, info) else {
        return Ok(Err(Unusable::Missing));
    };
    let Some(secrets) = &ports.secrets else {
        return Ok(Err(Unusable::Sealed("no key on this host".into())));
    };
    let sealed = item.s("sealed").unwrap_or_default();
    Ok(match secrets.open(sealed, &context(account)).await {
        Ok(pem) => Ok(ClientIdentity {
            fingerprint: info.fingerprint,
            pem,
        }),
        Err(SecretsError::Unavailable(e)) => return Err(TableError::Unavailable(e)),
        Err(e) => Err(Unusable::Sealed(e.to_string())),
    })
}

/// At a host's start: when certificates are stored, the host must hold the
/// key that opens them (a missing or wrong key is said at once, not when
/// the first live record fails).
/// When the soonest-expiring stored certificate expires; None when none is
/// stored.
pub async fn soonest_expiry(ports: &Ports) -> Result<Option<DateTime<Utc>>, TableError> {
    let mut query = Query::new(PK, SortKey::All).limit(100);
    let mut soonest: Option<DateTime<Utc>> = None;
    loop {
        let page = ports.table.query(&query).await?;
        for item in &page.items {
            let not_after = time(item, "not_after");
            soonest = Some(soonest.map_or(not_after, |s| s.min(not_after)));
        }
        match page.next {
            Some(next) => query = query.after(Some(next)),
            None => return Ok(soonest),
        }
    }
}

/// Writes `Metric::CertificateDaysToExpiry` (days to `soonest_expiry`, with
/// their fraction), when a certificate is stored.
pub async fn report_expiry(ports: &Ports) -> Result<(), TableError> {
    if let Some(expiry) = soonest_expiry(ports).await? {
        let days = (expiry - ports.clock.now()).num_seconds() as f64 / 86_400.0;
        metrics::emit(&[(Metric::CertificateDaysToExpiry, days)]);
    }
    Ok(())
}

pub async fn check_key(ports: &Ports) -> Result<(), String> {
    let page = ports
        .table
        .query(&Query::new(PK, SortKey::All).limit(1))
        .await
        .map_err(|e| e.to_string())?;
    let Some(item) = page.items.first() else {
        return Ok(());
    };
    let account = &item.key.sk;
    let Some(secrets) = &ports.secrets else {
        return Err(format!(
            "issuer certificates are stored (e.g. for {account}) but SVC_SECRETS_KEY is not set: set it to the key they were imported with (SVC_KMS_KEY_ID on a DynamoDB table)"
        ));
    };
    let account_id: AccountId = account.parse()?;
    secrets
        .open(item.s("sealed").unwrap_or_default(), &context(&account_id))
        .await
        .map(|_| ())
        .map_err(|e| format!("the stored certificate of {account} cannot be opened: {e}"))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::app::test_ports_at;
    use crate::domain::account::Plan;
    use crate::embedded::LocalSecrets;
    use crate::secrets_key::SecretsKey;
    use crate::verifactu::certificate_fixture::{Fixture, NIF_PERSON};

    fn sealing(ports: Ports) -> Ports {
        let key = SecretsKey::parse(&SecretsKey::generate()).unwrap();
        ports.with_secrets(Arc::new(LocalSecrets::new(key)))
    }

    #[tokio::test]
    async fn a_certificate_is_stored_sealed_and_opens_for_its_account() {
        let (ports, clock, _dir) = test_ports_at("2026-11-24T10:00:00Z");
        let ports = sealing(ports);
        let account = accounts::create(&ports, "A", Plan::Pro, None)
            .await
            .unwrap();
        let other = accounts::create(&ports, "B", Plan::Pro, None)
            .await
            .unwrap();
        assert_eq!(
            identity(&ports, &account.id).await.unwrap().err(),
            Some(Unusable::Missing)
        );
        assert_eq!(soonest_expiry(&ports).await.unwrap(), None);
        let p12 = Fixture::person().pkcs12("pw");
        let info = import(&ports, &account.id, &p12, "pw").await.unwrap();
        assert_eq!(info.nif.as_deref(), Some(NIF_PERSON));
        assert_eq!(soonest_expiry(&ports).await.unwrap(), Some(info.not_after));
        assert_eq!(
            super::info(&ports, &account.id).await.unwrap(),
            Some(info.clone())
        );

        let stored = ports.table.get(&key(&account.id)).await.unwrap().unwrap();
        let sealed = stored.s("sealed").unwrap();
        let opened = identity(&ports, &account.id).await.unwrap().unwrap();
        let pem = std::str::from_utf8(&opened.pem).unwrap();
        assert!(pem.contains("BEGIN PRIVATE KEY"));
        // No line of the key is stored in the clear (a fixed fragment such
        // as "MII" would also turn up by chance in the sealed base64).
        let key_lines = pem
            .lines()
            .filter(|l| !l.starts_with("-----") && l.len() >= 32);
        assert!(!sealed.contains("PRIVATE KEY"));
        for line in key_lines {
            assert!(!sealed.contains(line), "{line}");
        }
        assert_eq!(opened.fingerprint, info.fingerprint);
        assert_eq!(
            identity(&ports, &other.id).await.unwrap().err(),
            Some(Unusable::Missing)
        );
        check_key(&ports).await.unwrap();

        clock.set("2028-01-02T00:00:00Z".parse().unwrap());
        assert_eq!(
            identity(&ports, &account.id).await.unwrap().err(),
            Some(Unusable::Expired)
        );
        assert!(remove(&ports, &account.id).await.unwrap());
        assert!(!remove(&ports, &account.id).await.unwrap());
        assert_eq!(super::info(&ports, &account.id).await.unwrap(), None);
    }

    #[tokio::test]
    async fn a_host_without_the_key_or_with_another_says_so_at_start() {
        let (ports, _clock, _dir) = test_ports_at("2026-11-24T10:00:00Z");
        check_key(&ports).await.unwrap();
        let sealed = sealing(ports.clone());
        let account = accounts::create(&sealed, "A", Plan::Pro, None)
            .await
            .unwrap();
        let p12 = Fixture::person().pkcs12("pw");
        import(&sealed, &account.id, &p12, "pw").await.unwrap();

        let missing = check_key(&ports).await.unwrap_err();
        assert!(missing.contains("SVC_SECRETS_KEY is not set"), "{missing}");
        let other = check_key(&sealing(ports.clone())).await.unwrap_err();
        assert!(other.contains("another SVC_SECRETS_KEY"), "{other}");
        assert!(matches!(
            identity(&ports, &account.id).await.unwrap().err(),
            Some(Unusable::Sealed(_))
        ));
        assert!(matches!(
            import(&ports, &account.id, &p12, "pw").await,
            Err(ImportError::NoSecrets)
        ));
    }

    #[tokio::test]
    async fn import_refuses_unknown_accounts_and_bad_files() {
        let (ports, _clock, _dir) = test_ports_at("2026-11-24T10:00:00Z");
        let ports = sealing(ports);
        let p12 = Fixture::person().pkcs12("pw");
        let nobody: AccountId = "acct_0000000000000000".parse().unwrap();
        assert!(matches!(
            import(&ports, &nobody, &p12, "pw").await,
            Err(ImportError::Account(AccountError::NotFound(_)))
        ));
        let account = accounts::create(&ports, "A", Plan::Pro, None)
            .await
            .unwrap();
        assert!(matches!(
            import(&ports, &account.id, &p12, "nope").await,
            Err(ImportError::Certificate(CertificateError::BadPassword))
        ));
        assert_eq!(super::info(&ports, &account.id).await.unwrap(), None);
    }
}
