//! The issuer's (or its representative's) certificate, as the AEAT's web
//! service wants it for the TLS client identity: read from a PKCS#12 file
//! (`.p12` / `.pfx`, as the FNMT and Windows export it), checked (the
//! password opens it, it holds a private key and the certificate for it, it
//! is valid now) and kept as PEM (the key in PKCS#8 and the chain), which is
//! what is sealed at rest and handed to the TLS client.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chrono::{DateTime, Utc};
use p12_keystore::{Pkcs12Archive, PrivateKeyBag};
use sha2::{Digest, Sha256};
use x509_parser::prelude::{FromDer, X509Certificate};
use zeroize::Zeroizing;

use crate::tax::nif::Nif;

/// X.520 serialNumber: the holder's NIF in Spanish certificates
/// (`IDCES-12345678Z`, or the bare NIF in older ones).
const OID_SERIAL_NUMBER: &str = "2.5.4.5";
/// organizationIdentifier: the entity's NIF (`VATES-B12345678`) in
/// certificates of companies and of their representatives.
const OID_ORGANIZATION_IDENTIFIER: &str = "2.5.4.97";
const OID_COMMON_NAME: &str = "2.5.4.3";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CertificateError {
    #[error("the file is not a PKCS#12 certificate (.p12 or .pfx): {0}")]
    Unreadable(String),
    #[error("the password does not open this PKCS#12 file (or the file is damaged)")]
    BadPassword,
    #[error(
        "the file holds no private key: export the certificate together with its private key (Windows: \"Yes, export the private key\"; Firefox: \"Backup\")"
    )]
    NoPrivateKey,
    #[error("the file holds a private key but not the certificate that goes with it")]
    NoCertificate,
    #[error(
        "the certificate expired on {0}: renew it with its authority (e.g. the FNMT) and import the new one"
    )]
    Expired(String),
    #[error("the certificate is not valid before {0}")]
    NotYetValid(String),
}

/// Who a certificate names and when it is valid: what may be shown and
/// stored in the clear.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CertificateInfo {
    /// The common name.
    pub holder: String,
    /// The NIF it speaks for: the entity's (organizationIdentifier) when it
    /// names one, else the holder's (serialNumber).
    pub nif: Option<String>,
    pub subject: String,
    pub issuer: String,
    pub not_before: DateTime<Utc>,
    pub not_after: DateTime<Utc>,
    /// SHA-256 of the certificate (DER), hex.
    pub fingerprint: String,
}

/// A checked certificate with its private key.
pub struct Certificate {
    pub info: CertificateInfo,
    /// The private key (PKCS#8) and the certificate chain, leaf first, as PEM.
    pub pem: Zeroizing<Vec<u8>>,
}

impl std::fmt::Debug for Certificate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Certificate")
            .field("info", &self.info)
            .field("pem", &"<private key and chain>")
            .finish()
    }
}

impl Certificate {
    /// Reads and checks a PKCS#12 file at `now`.
    pub fn from_pkcs12(
        data: &[u8],
        password: &str,
        now: DateTime<Utc>,
    ) -> Result<Certificate, CertificateError> {
        let archive = Pkcs12Archive::from_pkcs12(data, password).map_err(open_error)?;
        let key = archive.keys.first().ok_or(CertificateError::NoPrivateKey)?;
        let leaf = leaf_of(&archive, key).ok_or(CertificateError::NoCertificate)?;
        let info = info_of(leaf)?;
        if now > info.not_after {
            return Err(CertificateError::Expired(
                info.not_after.date_naive().to_string(),
            ));
        }
        if now < info.not_before {
            return Err(CertificateError::NotYetValid(info.not_before.to_rfc3339()));
        }
        let mut pem = Zeroizing::new(pem_block("PRIVATE KEY", key.key.as_der()));
        pem.extend(pem_block("CERTIFICATE", leaf));
        for bag in &archive.certs {
            let der = bag.cert.as_der();
            if der != leaf {
                pem.extend(pem_block("CERTIFICATE", der));
            }
        }
        Ok(Certificate { info, pem })
    }
}

fn open_error(e: p12_keystore::error::Error) -> CertificateError {
    use p12_keystore::error::Error;
    match e {
        // A wrong password fails the MAC, or (without one) the padding or
        // the structure of what it decrypted.
        Error::MacError(_)
        | Error::UnpadError
        | Error::Pkcs5Error(_)
        | Error::InvalidPrivateKey => CertificateError::BadPassword,
        other => CertificateError::Unreadable(other.to_string()),
    }
}

/// The certificate of `key`: the one with its local key id, else the first
/// that is not an authority's, else the only one.
fn leaf_of<'a>(archive: &'a Pkcs12Archive, key: &PrivateKeyBag) -> Option<&'a [u8]> {
    let by_id = key.local_key_id.as_ref().and_then(|id| {
        archive
            .certs
            .iter()
            .find(|c| c.local_key_id.as_deref() == Some(id.0.as_slice()))
    });
    let only = match archive.certs.as_slice() {
        [only] => Some(only),
        _ => None,
    };
    let bag = by_id
        .or_else(|| {
            archive.certs.iter().find(|c| {
                X509Certificate::from_der(c.cert.as_der()).is_ok_and(|(_, x509)| !x509.is_ca())
            })
        })
        .or(only)?;
    Some(bag.cert.as_der())
}

fn info_of(der: &[u8]) -> Result<CertificateInfo, CertificateError> {
    let (_, x509) = X509Certificate::from_der(der)
        .map_err(|e| CertificateError::Unreadable(format!("its certificate: {e}")))?;
    let attribute = |oid: &str| {
        x509.subject()
            .iter_attributes()
            .find(|a| a.attr_type().to_id_string() == oid)
            .and_then(|a| a.as_str().ok())
            .map(str::to_string)
    };
    let time = |t: i64| DateTime::from_timestamp(t, 0).unwrap_or_default();
    let validity = x509.validity();
    let nif = attribute(OID_ORGANIZATION_IDENTIFIER)
        .and_then(|v| nif_in(&v))
        .or_else(|| attribute(OID_SERIAL_NUMBER).and_then(|v| nif_in(&v)));
    Ok(CertificateInfo {
        holder: attribute(OID_COMMON_NAME).unwrap_or_default(),
        nif,
        subject: x509.subject().to_string(),
        issuer: x509.issuer().to_string(),
        not_before: time(validity.not_before.timestamp()),
        not_after: time(validity.not_after.timestamp()),
        fingerprint: hex::encode(Sha256::digest(der)),
    })
}

/// The NIF in a subject attribute: `IDCES-12345678Z`, `VATES-B12345678`,
/// or a bare NIF.
fn nif_in(value: &str) -> Option<String> {
    let value = value.trim();
    let bare = ["IDCES-", "VATES-", "IDCES", "VATES"]
        .iter()
        .find_map(|prefix| value.strip_prefix(prefix))
        .unwrap_or(value);
    Nif::parse(bare).ok().map(|nif| nif.to_string())
}

fn pem_block(label: &str, der: &[u8]) -> Vec<u8> {
    let body = STANDARD.encode(der);
    let mut out = format!("-----BEGIN {label}-----\n");
    for line in body.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(line).unwrap_or_default());
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verifactu::certificate_fixture::{Fixture, NIF_ENTITY, NIF_PERSON};
    use chrono::TimeZone;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 24, 10, 0, 0).unwrap()
    }

    /// What the first certificate of a PEM (the leaf) says.
    fn leaf_info(pem: &str) -> CertificateInfo {
        let leaf = pem
            .split("-----BEGIN CERTIFICATE-----")
            .nth(1)
            .and_then(|rest| rest.split("-----END CERTIFICATE-----").next())
            .unwrap();
        info_of(
            &STANDARD
                .decode(leaf.split_whitespace().collect::<String>())
                .unwrap(),
        )
        .unwrap()
    }

    #[test]
    fn a_person_certificate_is_read_with_its_nif_and_validity() {
        let p12 = Fixture::person().pkcs12("s3cret");
        let cert = Certificate::from_pkcs12(&p12, "s3cret", now()).unwrap();
        assert_eq!(cert.info.nif.as_deref(), Some(NIF_PERSON));
        assert_eq!(cert.info.holder, "NOMBRE GARCIA LOPEZ ANA - 12345678Z");
        assert_eq!(cert.info.not_after.date_naive().to_string(), "2028-01-01");
        assert_eq!(cert.info.fingerprint.len(), 64);
        let text = std::str::from_utf8(&cert.pem).unwrap();
        assert!(text.starts_with("-----BEGIN PRIVATE KEY-----\n"));
        assert_eq!(text.matches("BEGIN CERTIFICATE").count(), 2, "leaf and CA");
        let again = leaf_info(text);
        assert_eq!(again, cert.info);
    }

    #[test]
    fn a_representative_certificate_speaks_for_the_entity() {
        let p12 = Fixture::representative().pkcs12("pw");
        let cert = Certificate::from_pkcs12(&p12, "pw", now()).unwrap();
        assert_eq!(cert.info.nif.as_deref(), Some(NIF_ENTITY));
    }

    #[test]
    fn legacy_encrypted_files_as_windows_exports_them_are_read() {
        let p12 = Fixture::person().legacy_pkcs12("pw");
        let cert = Certificate::from_pkcs12(&p12, "pw", now()).unwrap();
        assert_eq!(cert.info.nif.as_deref(), Some(NIF_PERSON));
    }

    #[test]
    fn import_errors_say_what_is_wrong() {
        let p12 = Fixture::person().pkcs12("right");
        assert_eq!(
            Certificate::from_pkcs12(&p12, "wrong", now()).unwrap_err(),
            CertificateError::BadPassword
        );
        let expired = Fixture::person().expired().pkcs12("pw");
        let err = Certificate::from_pkcs12(&expired, "pw", now()).unwrap_err();
        assert_eq!(err, CertificateError::Expired("2025-06-30".into()));
        assert!(err.to_string().contains("expired on 2025-06-30"));
        let no_key = Fixture::person().without_key("pw");
        assert_eq!(
            Certificate::from_pkcs12(&no_key, "pw", now()).unwrap_err(),
            CertificateError::NoPrivateKey
        );
        assert!(matches!(
            Certificate::from_pkcs12(b"not a p12 file", "pw", now()).unwrap_err(),
            CertificateError::Unreadable(_)
        ));
    }

    #[test]
    fn nifs_are_read_in_the_forms_certificates_carry() {
        assert_eq!(nif_in("IDCES-12345678Z").as_deref(), Some("12345678Z"));
        assert_eq!(nif_in("VATES-B12345674").as_deref(), Some("B12345674"));
        assert_eq!(nif_in("12345678Z").as_deref(), Some("12345678Z"));
        assert_eq!(nif_in("PASDE-C01234567"), None);
    }
}
