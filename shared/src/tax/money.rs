//! Money: `Decimal` amounts, never floats, and the service's one rounding
//! policy: to cents, half away from zero (the custom in Spain; RD 1619/2012
//! sets none), applied per VAT rate group.

use std::fmt;
use std::str::FromStr;

use rust_decimal::{Decimal, RoundingStrategy};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer};

/// Amounts may have at most this many digits before the decimal point.
pub const MAX_INTEGER_DIGITS: u32 = 12;
/// Inputs may carry at most this many decimals (prices with fractions of a cent).
pub const MAX_INPUT_DECIMALS: u32 = 6;

/// Rounds to cents, half away from zero: 0.105 → 0.11, −0.105 → −0.11.
pub fn round2(x: Decimal) -> Decimal {
    x.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero)
}

/// Truncates to cents (toward zero), as the AEAT computes some return boxes.
pub fn truncate2(x: Decimal) -> Decimal {
    x.round_dp_with_strategy(2, RoundingStrategy::ToZero)
}

/// `rate` percent of `base`, unrounded.
pub fn percent_of(base: Decimal, rate: Decimal) -> Decimal {
    base * rate / Decimal::ONE_HUNDRED
}

/// Formats with exactly two decimals (`1060` → `1060.00`).
pub fn cents(x: Decimal) -> String {
    format!("{:.2}", round2(x))
}

/// A non-negative amount received as a JSON number or a decimal string, with
/// at most 12 integer digits and 6 decimals.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Amount(Decimal);

impl Amount {
    pub fn value(self) -> Decimal {
        self.0
    }

    pub fn new(value: Decimal) -> Result<Self, String> {
        if value.is_sign_negative() && !value.is_zero() {
            return Err(format!("{value} is negative; amounts must be 0 or more"));
        }
        let integer_digits = value
            .trunc()
            .abs()
            .to_string()
            .trim_start_matches('0')
            .len() as u32;
        if integer_digits > MAX_INTEGER_DIGITS {
            return Err(format!(
                "{value} has more than {MAX_INTEGER_DIGITS} integer digits"
            ));
        }
        if value.normalize().scale() > MAX_INPUT_DECIMALS {
            return Err(format!(
                "{value} has more than {MAX_INPUT_DECIMALS} decimals"
            ));
        }
        Ok(Amount(value.normalize()))
    }
}

/// An amount of euros as the service keeps and shows it: exact (a
/// `Decimal`, never a float), written in JSON as a number, read from a
/// number or a decimal string.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Money(Decimal);

impl Money {
    pub fn value(self) -> Decimal {
        self.0
    }

    pub fn is_zero(self) -> bool {
        self.0.is_zero()
    }

    pub fn is_sign_negative(self) -> bool {
        self.0.is_sign_negative()
    }
}

impl From<Decimal> for Money {
    fn from(value: Decimal) -> Self {
        Money(value)
    }
}

impl From<Money> for Decimal {
    fn from(money: Money) -> Self {
        money.0
    }
}

impl std::ops::Add for Money {
    type Output = Money;
    fn add(self, other: Money) -> Money {
        Money(self.0 + other.0)
    }
}

impl std::ops::Sub for Money {
    type Output = Money;
    fn sub(self, other: Money) -> Money {
        Money(self.0 - other.0)
    }
}

impl std::ops::Neg for Money {
    type Output = Money;
    fn neg(self) -> Money {
        Money(-self.0)
    }
}

/// Scaling by a factor (a sign, a share).
impl std::ops::Mul<Money> for Decimal {
    type Output = Money;
    fn mul(self, money: Money) -> Money {
        Money(self * money.0)
    }
}

impl std::iter::Sum for Money {
    fn sum<I: Iterator<Item = Money>>(iter: I) -> Money {
        Money(iter.map(|m| m.0).sum())
    }
}

impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl serde::Serialize for Money {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        as_number(&self.0, s)
    }
}

impl<'de> Deserialize<'de> for Money {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        decimal_from_json(d).map(Money)
    }
}

impl utoipa::PartialSchema for Money {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        number_schema("An amount in euros, exact to the cent (unit prices: to 6 decimals).")
    }
}

impl utoipa::ToSchema for Money {}

/// A rate in percent (`21` is 21 %), exact, written in JSON as a number.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Percent(Decimal);

impl Percent {
    pub fn value(self) -> Decimal {
        self.0
    }

    pub fn is_zero(self) -> bool {
        self.0.is_zero()
    }
}

impl From<Decimal> for Percent {
    fn from(value: Decimal) -> Self {
        Percent(value)
    }
}

impl fmt::Display for Percent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl serde::Serialize for Percent {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        as_number(&self.0, s)
    }
}

impl<'de> Deserialize<'de> for Percent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        decimal_from_json(d).map(Percent)
    }
}

impl utoipa::PartialSchema for Percent {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        number_schema("A rate in percent: 21 is 21 %.")
    }
}

impl utoipa::ToSchema for Percent {}

/// A JSON number (a double in the document, exact in the service).
fn number_schema(description: &str) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::Number)
        .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
            utoipa::openapi::KnownFormat::Double,
        )))
        .description(Some(description))
        .into()
}

/// A decimal written as plain text: digits, an optional sign and at most one
/// dot (no exponent, no thousands separators), parsed exactly.
fn parse_text(s: &str) -> Result<Decimal, String> {
    let trimmed = s.trim();
    let plain = !trimmed.is_empty()
        && trimmed
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'.' || b == b'-' || b == b'+')
        && trimmed.bytes().filter(|&b| b == b'.').count() <= 1;
    if !plain {
        return Err(format!(
            "{s:?} is not a decimal number (use a dot for decimals, no thousands separator)"
        ));
    }
    Decimal::from_str_exact(trimmed).map_err(|_| format!("{s:?} is not a decimal number"))
}

impl FromStr for Amount {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Amount::new(parse_text(s)?)
    }
}

/// A decimal received as a JSON number or a decimal string, exactly: a JSON
/// number goes through its shortest decimal text, which is exact for the 15
/// significant digits amounts can have.
pub fn decimal_from_json<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
    struct DecimalVisitor;

    impl Visitor<'_> for DecimalVisitor {
        type Value = Decimal;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a number or a decimal string")
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Decimal, E> {
            Ok(Decimal::from(v))
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Decimal, E> {
            Ok(Decimal::from(v))
        }

        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Decimal, E> {
            if !v.is_finite() {
                return Err(E::custom("the number is not finite"));
            }
            Decimal::from_str_exact(&v.to_string())
                .or_else(|_| Decimal::from_scientific(&format!("{v:e}")))
                .map_err(|_| E::custom(format!("{v} is out of range")))
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<Decimal, E> {
            parse_text(v).map_err(E::custom)
        }
    }

    d.deserialize_any(DecimalVisitor)
}

/// Like `decimal_from_json`, for an optional field: absent or `null` is None.
pub fn optional_decimal_from_json<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Decimal>, D::Error> {
    #[derive(Deserialize)]
    struct Exact(#[serde(deserialize_with = "decimal_from_json")] Decimal);
    Ok(Option::<Exact>::deserialize(d)?.map(|e| e.0))
}

/// Serialises a decimal as a JSON number (amounts, rates and quantities are
/// JSON numbers in the API), through its exact shortest float text.
pub fn as_number<S: serde::Serializer>(x: &Decimal, s: S) -> Result<S::Ok, S::Error> {
    use rust_decimal::prelude::ToPrimitive;
    match x.to_f64() {
        Some(f) => s.serialize_f64(f),
        None => Err(serde::ser::Error::custom(format!(
            "{x} is not representable as a number"
        ))),
    }
}

/// `as_number` for an optional field (with `skip_serializing_if = "Option::is_none"`).
pub fn as_optional_number<S: serde::Serializer>(
    x: &Option<Decimal>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match x {
        Some(x) => as_number(x, s),
        None => s.serialize_none(),
    }
}

impl<'de> Deserialize<'de> for Amount {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = decimal_from_json(d)?;
        Amount::new(value).map_err(de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::dec;

    #[test]
    fn rounding_is_half_away_from_zero() {
        assert_eq!(round2(dec!(0.105)), dec!(0.11));
        assert_eq!(round2(dec!(0.525)), dec!(0.53));
        assert_eq!(round2(dec!(2.675)), dec!(2.68));
        assert_eq!(round2(dec!(-0.105)), dec!(-0.11));
        assert_eq!(round2(dec!(0.104)), dec!(0.10));
        assert_eq!(truncate2(dec!(246.919)), dec!(246.91));
        assert_eq!(cents(dec!(1060)), "1060.00");
    }

    #[test]
    fn amounts_come_as_numbers_or_strings_and_are_bounded() {
        let parse = |json: &str| serde_json::from_str::<Amount>(json).map(Amount::value);
        assert_eq!(parse("100").unwrap(), dec!(100));
        assert_eq!(parse("0.1").unwrap(), dec!(0.1));
        assert_eq!(parse("\"1234.56\"").unwrap(), dec!(1234.56));
        assert_eq!(parse("999999999999.99").unwrap(), dec!(999999999999.99));
        assert_eq!(parse("2.675").unwrap(), dec!(2.675));
        assert!(parse("1000000000000").is_err(), "13 integer digits");
        assert!(parse("-1").is_err());
        assert!(parse("\"1,5\"").is_err());
        assert!(parse("\"12abc\"").is_err());
        assert!(parse("0.1234567").is_err());
        assert!(parse("true").is_err());
        assert!(parse("1e400").is_err());
    }

    #[derive(Debug, serde::Deserialize)]
    struct Optional {
        #[serde(default, deserialize_with = "optional_decimal_from_json")]
        rate: Option<Decimal>,
    }

    #[test]
    fn optional_decimals_accept_null_and_absence() {
        let parse = |json: &str| serde_json::from_str::<Optional>(json).map(|o| o.rate);
        assert_eq!(parse("{}").unwrap(), None);
        assert_eq!(parse(r#"{"rate": null}"#).unwrap(), None);
        assert_eq!(parse(r#"{"rate": "7.5"}"#).unwrap(), Some(dec!(7.5)));
        assert!(parse(r#"{"rate": "x"}"#).is_err());
    }
}
