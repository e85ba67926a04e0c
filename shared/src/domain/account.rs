//! Accounts, plans and modes.

use std::fmt;
use std::str::FromStr;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::tax::nif::Nif;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Plan {
    Mini,
    Pro,
    Max,
}

impl Plan {
    pub const ALL: [Plan; 3] = [Plan::Mini, Plan::Pro, Plan::Max];

    pub fn as_str(self) -> &'static str {
        match self {
            Plan::Mini => "mini",
            Plan::Pro => "pro",
            Plan::Max => "max",
        }
    }

    /// Live keys work on Pro and Max; test keys on every plan.
    pub fn allows_live_keys(self) -> bool {
        self != Plan::Mini
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Plan {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Plan::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| format!("unknown plan {s:?}; valid plans: mini, pro, max"))
    }
}

/// Live or test: which space a key acts in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Live,
    Test,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Live => "live",
            Mode::Test => "test",
        }
    }

    pub fn is_live(self) -> bool {
        self == Mode::Live
    }
}

impl FromStr for Mode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "live" => Ok(Mode::Live),
            "test" => Ok(Mode::Test),
            _ => Err(format!("unknown mode {s:?}; valid modes: live, test")),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AccountId(String);

impl AccountId {
    pub fn generate() -> Self {
        AccountId(crate::ids::new_id("acct"))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl FromStr for AccountId {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let token = s
            .strip_prefix("acct_")
            .filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or_else(|| format!("{s:?} is not an account id (acct_…)"))?;
        Ok(AccountId(format!("acct_{token}")))
    }
}

impl fmt::Display for AccountId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The details printed on the account's invoices as issuer. Each part stays
/// empty until set in the application (`svc issuer set`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Issuer {
    pub name: Option<String>,
    pub nif: Option<Nif>,
    pub address: Option<String>,
    pub postal_code: Option<String>,
    pub city: Option<String>,
    pub province: Option<String>,
    pub country: Option<String>,
}

/// Issuer details as typed, before `Issuer::parse` checks them.
pub struct IssuerFields<'a> {
    pub name: &'a str,
    pub nif: &'a str,
    pub address: &'a str,
    pub postal_code: &'a str,
    pub city: &'a str,
    /// Optional: empty for none.
    pub province: &'a str,
    pub country: &'a str,
}

impl Issuer {
    /// A complete issuer for demonstrations and tests: the issuer of the demo
    /// account `svc serve` creates on an empty data directory.
    pub fn demo() -> Issuer {
        Issuer {
            name: Some("Demo Autónoma".into()),
            nif: Nif::parse("12345678Z").ok(),
            address: Some("Calle Mayor 1".into()),
            postal_code: Some("28013".into()),
            city: Some("Madrid".into()),
            province: Some("Madrid".into()),
            country: Some("ES".into()),
        }
    }

    /// Issuer details as typed (in the application's form or `svc issuer
    /// set`): trimmed, the required parts present, the NIF checked by the tax
    /// engine, the country a two-letter code. Each problem names its field.
    pub fn parse(typed: &IssuerFields<'_>) -> Result<Issuer, Vec<(&'static str, String)>> {
        let mut problems = Vec::new();
        let mut required = |field: &'static str, value: &str| {
            let value = value.trim();
            if value.is_empty() {
                problems.push((field, "must not be empty".to_string()));
            }
            Some(value.to_string()).filter(|v| !v.is_empty())
        };
        let name = required("name", typed.name);
        let address = required("address", typed.address);
        let postal_code = required("postal_code", typed.postal_code);
        let city = required("city", typed.city);
        let nif = match Nif::parse(typed.nif.trim()) {
            Ok(nif) => Some(nif),
            Err(e) => {
                problems.push(("nif", e.to_string()));
                None
            }
        };
        let country = typed.country.trim().to_ascii_uppercase();
        if country.len() != 2 || !country.bytes().all(|b| b.is_ascii_uppercase()) {
            problems.push((
                "country",
                "use a two-letter ISO code such as ES".to_string(),
            ));
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(Issuer {
            name,
            nif,
            address,
            postal_code,
            city,
            province: Some(typed.province.trim().to_string()).filter(|p| !p.is_empty()),
            country: Some(country),
        })
    }

    /// The required parts that are still missing, by field name.
    pub fn missing_fields(&self) -> Vec<&'static str> {
        [
            ("name", self.name.is_none()),
            ("nif", self.nif.is_none()),
            ("address", self.address.is_none()),
            ("postal_code", self.postal_code.is_none()),
            ("city", self.city.is_none()),
        ]
        .into_iter()
        .filter_map(|(name, missing)| missing.then_some(name))
        .collect()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    pub id: AccountId,
    pub name: String,
    pub plan: Plan,
    pub issuer: Issuer,
    /// Days from the issue date to the default due date of the account's
    /// invoices (`payment_terms`).
    pub payment_terms_days: u32,
    /// The most a simplified invoice may amount to, VAT included: 400 €, or
    /// 3,000 € when the account carries on an activity RD 1619/2012 art.
    /// 4.2 lists (retail, restaurants, hospitality, …) (`simplified_limit`).
    pub simplified_limit: Decimal,
    /// The account opted into the special cash-accounting regime (régimen
    /// especial del criterio de caja, LIVA arts. 163 decies–163
    /// sexiesdecies): its output VAT accrues when customers pay, or on 31
    /// December of the year after the operation. Open to businesses whose
    /// volume of operations was at most 2,000,000 € the year before (art.
    /// 163 undecies); the option is made in the census declaration (Modelo
    /// 036/037) and binds for three years. Not checked here. Default false.
    pub cash_accounting: bool,
}

/// The simplified-invoice limit by default (RD 1619/2012 art. 4.1).
pub const SIMPLIFIED_LIMIT: Decimal = Decimal::from_parts(400, 0, 0, false, 0);
/// The limit for the activities of art. 4.2.
pub const SIMPLIFIED_LIMIT_ART_4_2: Decimal = Decimal::from_parts(3000, 0, 0, false, 0);

/// Checks a simplified-invoice limit: 400 € (art. 4.1) or 3,000 € (the
/// activities art. 4.2 lists); no other is in the regulation.
pub fn simplified_limit(euros: i64) -> Result<Decimal, String> {
    match Decimal::from(euros) {
        limit if limit == SIMPLIFIED_LIMIT || limit == SIMPLIFIED_LIMIT_ART_4_2 => Ok(limit),
        _ => Err(format!(
            "a simplified invoice is limited to 400 € (RD 1619/2012 art. 4.1) or 3000 € for the activities of art. 4.2, not {euros}"
        )),
    }
}

/// Checks a payment term in days: 0 (due on issue) to 60, the longest a
/// B2B term may be agreed (Ley 3/2004 art. 4.3); 30 when none is set (art. 4.1).
pub fn payment_terms(days: i64) -> Result<u32, String> {
    let max = crate::invoice::payments::MAX_TERMS_DAYS;
    u32::try_from(days)
        .ok()
        .filter(|d| *d <= max)
        .ok_or_else(|| {
            format!("payment terms are 0 to {max} days (Ley 3/2004 art. 4.3), not {days}")
        })
}

/// Daily units per plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuotaLimits {
    pub mini: u32,
    pub pro: u32,
    pub max: u32,
}

impl Default for QuotaLimits {
    fn default() -> Self {
        QuotaLimits {
            mini: 10,
            pro: 100,
            max: 500,
        }
    }
}

impl QuotaLimits {
    pub fn for_plan(&self, plan: Plan) -> u32 {
        match plan {
            Plan::Mini => self.mini,
            Plan::Pro => self.pro,
            Plan::Max => self.max,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_parse_and_gate_live_keys() {
        assert_eq!("pro".parse::<Plan>(), Ok(Plan::Pro));
        assert!("gold".parse::<Plan>().is_err());
        assert!(!Plan::Mini.allows_live_keys());
        assert!(Plan::Max.allows_live_keys());
    }

    #[test]
    fn account_ids_parse_only_their_shape() {
        assert!("acct_0a1b".parse::<AccountId>().is_ok());
        assert!("acct_".parse::<AccountId>().is_err());
        assert!("cus_0a1b".parse::<AccountId>().is_err());
        assert!("acct_zz".parse::<AccountId>().is_err());
    }

    #[test]
    fn the_simplified_limit_is_400_or_3000() {
        assert_eq!(simplified_limit(3000), Ok(SIMPLIFIED_LIMIT_ART_4_2));
        assert_eq!(simplified_limit(400), Ok(SIMPLIFIED_LIMIT));
        assert!(simplified_limit(1000).is_err());
    }

    #[test]
    fn payment_terms_are_capped_at_sixty_days() {
        assert_eq!(payment_terms(0), Ok(0));
        assert_eq!(payment_terms(60), Ok(60));
        assert!(payment_terms(61).is_err());
        assert!(payment_terms(-1).is_err());
    }

    #[test]
    fn issuer_reports_missing_required_fields() {
        let issuer = Issuer {
            name: Some("Ana".into()),
            city: Some("Madrid".into()),
            ..Issuer::default()
        };
        assert_eq!(issuer.missing_fields(), ["nif", "address", "postal_code"]);
    }

    #[test]
    fn typed_issuer_details_are_checked_field_by_field() {
        let typed = IssuerFields {
            name: " Taller Ana SL ",
            nif: "b64717838",
            address: "Calle Real 4",
            postal_code: "10003",
            city: "Cáceres",
            province: "",
            country: "es",
        };
        let issuer = Issuer::parse(&typed).unwrap();
        assert_eq!(issuer.name.as_deref(), Some("Taller Ana SL"));
        assert_eq!(issuer.nif.unwrap().as_str(), "B64717838");
        assert_eq!(
            (issuer.province, issuer.country.as_deref()),
            (None, Some("ES"))
        );
        let bad = IssuerFields {
            name: "",
            nif: "B64717839",
            country: "España",
            ..typed
        };
        let fields: Vec<_> = Issuer::parse(&bad)
            .unwrap_err()
            .into_iter()
            .map(|(f, _)| f)
            .collect();
        assert_eq!(fields, ["name", "nif", "country"]);
    }
}
