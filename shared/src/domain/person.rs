//! The people who sign in to the application: their email address, their
//! password (hashed with Argon2id) and their role in the account they belong to.

use std::fmt;
use std::str::FromStr;

use argon2::{Algorithm, Argon2, Params, PasswordHash, PasswordHasher, PasswordVerifier, Version};

/// The fewest characters a password may have (OWASP: at least 8; 10 here).
pub const PASSWORD_MIN_CHARS: usize = 10;
/// The most: long enough for any passphrase, short enough to bound the hash's work.
pub const PASSWORD_MAX_CHARS: usize = 128;

/// An email address as a person types it, trimmed and lower-cased: the one
/// spelling the table is keyed by.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Email(String);

impl Email {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Email {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for Email {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let email = s.trim().to_lowercase();
        let (local, domain) = email
            .split_once('@')
            .ok_or("an email address has an @ (ana@example.com)")?;
        let labels_ok = domain.split('.').count() >= 2
            && domain
                .split('.')
                .all(|l| !l.is_empty() && !l.starts_with('-') && !l.ends_with('-'));
        if local.is_empty()
            || !labels_ok
            || email.len() > 254
            || email.chars().any(|c| c.is_whitespace() || c.is_control())
            || domain.contains('@')
            || email.parse::<lettre::Address>().is_err()
        {
            return Err(format!("{:?} is not an email address", s.trim()));
        }
        Ok(Email(email))
    }
}

/// What a person may do in their account.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Signed the account up: everything, including members, keys and the certificate.
    Owner,
    /// Invited by the owner: everything except members, keys and the certificate.
    Member,
}

impl Role {
    pub fn code(self) -> &'static str {
        match self {
            Role::Owner => "owner",
            Role::Member => "member",
        }
    }

    pub fn parse(code: &str) -> Option<Role> {
        match code {
            "owner" => Some(Role::Owner),
            "member" => Some(Role::Member),
            _ => None,
        }
    }

    pub fn manages_account(self) -> bool {
        self == Role::Owner
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PersonId(String);

impl PersonId {
    pub fn generate() -> Self {
        PersonId(crate::ids::new_id("per"))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for PersonId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for PersonId {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.strip_prefix("per_")
            .filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_hexdigit()))
            .map(|_| PersonId(s.to_string()))
            .ok_or_else(|| format!("{s:?} is not a person id (per_…)"))
    }
}

/// A password as typed, checked for length. Not printable, so it cannot reach a log.
pub struct Password(String);

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(…)")
    }
}

impl Password {
    pub fn parse(typed: &str) -> Result<Password, String> {
        let chars = typed.chars().count();
        if chars < PASSWORD_MIN_CHARS {
            return Err(format!(
                "a password has at least {PASSWORD_MIN_CHARS} characters"
            ));
        }
        if chars > PASSWORD_MAX_CHARS {
            return Err(format!(
                "a password has at most {PASSWORD_MAX_CHARS} characters"
            ));
        }
        Ok(Password(typed.to_string()))
    }

    /// A password as typed at sign-in: any length is compared, none is refused
    /// for its length (that would tell the rules to someone guessing).
    pub fn typed(typed: &str) -> Password {
        Password(typed.chars().take(PASSWORD_MAX_CHARS + 1).collect())
    }
}

fn hasher() -> Argon2<'static> {
    // OWASP's minimum for Argon2id: 19 MiB, 2 passes, 1 lane.
    let params = Params::new(19_456, 2, 1, None).expect("valid Argon2 parameters");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// The PHC string of `password` (`$argon2id$v=19$m=19456,t=2,p=1$…`), with
/// a fresh random salt. Takes tens of milliseconds: call it off the async threads.
pub fn hash_password(password: &Password) -> String {
    hasher()
        .hash_password(password.0.as_bytes())
        .expect("Argon2id hashes any password up to the maximum length")
        .to_string()
}

/// Whether `password` matches the stored PHC string; a malformed one matches nothing.
pub fn verify_password(password: &Password, phc: &str) -> bool {
    PasswordHash::new(phc).is_ok_and(|hash| {
        hasher()
            .verify_password(password.0.as_bytes(), &hash)
            .is_ok()
    })
}

/// A hash no password matches in practice, verified when no person has the
/// email typed, so that an unknown address takes as long as a known one.
pub fn decoy_hash() -> &'static str {
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DECOY.get_or_init(|| hash_password(&Password(crate::ids::random_token(16))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_are_trimmed_lower_cased_and_checked() {
        let email: Email = "  Ana.Garcia@Example.COM ".parse().unwrap();
        assert_eq!(email.as_str(), "ana.garcia@example.com");
        for bad in [
            "",
            "ana",
            "ana@",
            "@example.com",
            "ana@example",
            "ana@@example.com",
            "ana @example.com",
            "ana@-example.com",
            "ana@example..com",
        ] {
            assert!(bad.parse::<Email>().is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn passwords_have_a_length_range() {
        assert!(
            Password::parse("corta")
                .unwrap_err()
                .contains("at least 10")
        );
        assert!(
            Password::parse(&"x".repeat(129))
                .unwrap_err()
                .contains("at most 128")
        );
        assert!(Password::parse("una frase larga").is_ok());
    }

    #[test]
    fn a_hash_verifies_its_password_only() {
        let password = Password::parse("caballo grapa batería").unwrap();
        let phc = hash_password(&password);
        assert!(phc.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{phc}");
        assert!(verify_password(&password, &phc));
        assert!(!verify_password(
            &Password::typed("caballo grapa bateria"),
            &phc
        ));
        assert!(!verify_password(&password, "not a hash"));
        assert!(!verify_password(&password, decoy_hash()));
        assert_ne!(phc, hash_password(&password), "each hash has its own salt");
    }

    #[test]
    fn roles_and_ids_read_back() {
        for role in [Role::Owner, Role::Member] {
            assert_eq!(Role::parse(role.code()), Some(role));
        }
        assert!(Role::Owner.manages_account() && !Role::Member.manages_account());
        let id = PersonId::generate();
        assert_eq!(id.as_str().parse::<PersonId>().unwrap(), id);
        assert!("acct_12".parse::<PersonId>().is_err());
    }
}
