//! The one contract suite of the `Secrets` port: the local key in this
//! crate's tests, KMS in `infra-aws` against moto.

use std::sync::Arc;

use super::secrets::{Secrets, SecretsError};

/// Runs every contract check; `other` is the same kind of adapter with
/// another key.
pub async fn run(secrets: Arc<dyn Secrets>, other: Arc<dyn Secrets>) {
    let s = &*secrets;
    let value: Vec<u8> = (0..20_000u32).map(|i| (i % 251) as u8).collect();
    let sealed = s.seal(&value, "acct_a").await.unwrap();
    assert!(
        !sealed.contains("AAECAwQFBgcICQ"),
        "the sealed text does not show the value"
    );
    assert_eq!(
        s.open(&sealed, "acct_a").await.unwrap().as_slice(),
        &value[..]
    );
    assert_ne!(
        s.seal(&value, "acct_a").await.unwrap(),
        sealed,
        "each seal is fresh"
    );

    let wrong_context = s.open(&sealed, "acct_b").await;
    assert!(
        matches!(wrong_context, Err(SecretsError::WrongKey(_))),
        "{wrong_context:?}"
    );
    let wrong_key = other.open(&sealed, "acct_a").await;
    assert!(
        matches!(wrong_key, Err(SecretsError::WrongKey(_))),
        "{wrong_key:?}"
    );
    let mut altered = sealed.clone();
    altered.truncate(sealed.len() - 4);
    altered.push_str("AAAA");
    assert!(matches!(
        s.open(&altered, "acct_a").await,
        Err(SecretsError::WrongKey(_))
    ));
    assert!(matches!(
        s.open("not sealed at all", "acct_a").await,
        Err(SecretsError::WrongKey(_))
    ));

    let empty = s.seal(b"", "acct_a").await.unwrap();
    assert!(s.open(&empty, "acct_a").await.unwrap().is_empty());
}
