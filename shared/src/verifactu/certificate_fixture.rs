//! Certificates for tests: a small authority and PKCS#12 files signed by it,
//! shaped as the FNMT's (a person's NIF in serialNumber, an entity's in
//! organizationIdentifier), valid, expired, without a key or in the legacy
//! encryption Windows exports.

use p12_keystore::{
    EncryptionAlgorithm, KeyStore, KeyStoreEntry, MacAlgorithm, PrivateKey, PrivateKeyChain,
};
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, IsCa, Issuer, KeyPair,
    date_time_ymd,
};

pub const NIF_PERSON: &str = "12345678Z";
pub const NIF_ENTITY: &str = "B12345674";

const SERIAL_NUMBER: [u64; 4] = [2, 5, 4, 5];
const ORGANIZATION_IDENTIFIER: [u64; 4] = [2, 5, 4, 97];

/// A certificate authority that signs client (and server) certificates.
pub struct Authority {
    key: KeyPair,
    params: CertificateParams,
    pub der: Vec<u8>,
    pub pem: String,
}

impl Authority {
    pub fn new() -> Authority {
        let key = KeyPair::generate().expect("a key");
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("params");
        let mut name = DistinguishedName::new();
        name.push(DnType::CommonName, "AC Pruebas Svc");
        name.push(DnType::OrganizationName, "Svc Test CA");
        params.distinguished_name = name;
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.not_before = date_time_ymd(2020, 1, 1);
        params.not_after = date_time_ymd(2040, 1, 1);
        let cert = params.self_signed(&key).expect("a CA certificate");
        Authority {
            der: cert.der().to_vec(),
            pem: cert.pem(),
            key,
            params,
        }
    }

    /// A certificate for `names` (DNS names) with its PKCS#8 key, as PEM:
    /// for a TLS server in tests.
    pub fn server(&self, names: &[&str]) -> (String, String) {
        let key = KeyPair::generate().expect("a key");
        let params =
            CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>())
                .expect("params");
        let issuer = Issuer::from_params(&self.params, &self.key);
        let cert = params
            .signed_by(&key, &issuer)
            .expect("a server certificate");
        (cert.pem(), key.serialize_pem())
    }
}

impl Default for Authority {
    fn default() -> Self {
        Authority::new()
    }
}

/// A client certificate to be issued by an `Authority`.
pub struct Fixture {
    pub authority: Authority,
    name: DistinguishedName,
    not_after: (i32, u8, u8),
}

impl Fixture {
    /// A person's certificate (FNMT "Persona Física").
    pub fn person() -> Fixture {
        let mut name = DistinguishedName::new();
        name.push(DnType::CountryName, "ES");
        name.push(
            DnType::CustomDnType(SERIAL_NUMBER.to_vec()),
            format!("IDCES-{NIF_PERSON}"),
        );
        name.push(DnType::CommonName, "NOMBRE GARCIA LOPEZ ANA - 12345678Z");
        Fixture::named(name)
    }

    /// A company representative's certificate: the person's NIF and the
    /// company's.
    pub fn representative() -> Fixture {
        let mut name = DistinguishedName::new();
        name.push(DnType::CountryName, "ES");
        name.push(
            DnType::CustomDnType(SERIAL_NUMBER.to_vec()),
            format!("IDCES-{NIF_PERSON}"),
        );
        name.push(
            DnType::CustomDnType(ORGANIZATION_IDENTIFIER.to_vec()),
            format!("VATES-{NIF_ENTITY}"),
        );
        name.push(DnType::OrganizationName, "EJEMPLO SL");
        name.push(DnType::CommonName, "12345678Z ANA GARCIA (R: B12345674)");
        Fixture::named(name)
    }

    fn named(name: DistinguishedName) -> Fixture {
        Fixture {
            authority: Authority::new(),
            name,
            not_after: (2028, 1, 1),
        }
    }

    /// The same holder, with a certificate that expired on 2025-06-30.
    pub fn expired(self) -> Fixture {
        Fixture {
            not_after: (2025, 6, 30),
            ..self
        }
    }

    fn issue(&self) -> (KeyPair, Vec<u8>) {
        let key = KeyPair::generate().expect("a key");
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("params");
        params.distinguished_name = self.name.clone();
        params.not_before = date_time_ymd(2024, 1, 1);
        let (y, m, d) = self.not_after;
        params.not_after = date_time_ymd(y, m, d);
        let issuer = Issuer::from_params(&self.authority.params, &self.authority.key);
        let cert = params.signed_by(&key, &issuer).expect("a certificate");
        (key, cert.der().to_vec())
    }

    fn store(&self, with_key: bool) -> KeyStore {
        let (key, der) = self.issue();
        let leaf = p12_keystore::Certificate::from_der(&der).expect("a certificate");
        let ca = p12_keystore::Certificate::from_der(&self.authority.der).expect("a CA");
        let mut store = KeyStore::new();
        if with_key {
            let key = PrivateKey::from_der(&key.serialize_der()).expect("a PKCS#8 key");
            let chain = PrivateKeyChain::new("key-1", key, [leaf, ca]);
            store.add_entry("certificado", KeyStoreEntry::PrivateKeyChain(chain));
        } else {
            store.add_entry("certificado", KeyStoreEntry::Certificate(leaf));
        }
        store
    }

    /// A PKCS#12 file as OpenSSL 3 writes it (AES-256, HMAC-SHA-256).
    pub fn pkcs12(&self, password: &str) -> Vec<u8> {
        self.store(true)
            .writer(password)
            .write()
            .expect("a PKCS#12 file")
    }

    /// A PKCS#12 file in the legacy encryption (3DES, HMAC-SHA-1).
    pub fn legacy_pkcs12(&self, password: &str) -> Vec<u8> {
        self.store(true)
            .writer(password)
            .encryption_algorithm(EncryptionAlgorithm::PbeWithShaAnd3KeyTripleDesCbc)
            .mac_algorithm(MacAlgorithm::HmacSha1)
            .write()
            .expect("a PKCS#12 file")
    }

    /// A PKCS#12 file with the certificate only.
    pub fn without_key(&self, password: &str) -> Vec<u8> {
        self.store(false)
            .writer(password)
            .write()
            .expect("a PKCS#12 file")
    }
}
