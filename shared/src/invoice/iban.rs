//! IBAN check (ISO 13616): country, length per country for the common SEPA
//! countries, and the mod-97 check digits.

/// Normalises (no spaces, upper case) and checks an IBAN.
pub fn parse(input: &str) -> Result<String, String> {
    let iban: String = input
        .chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_uppercase)
        .collect();
    if iban.len() < 15 || iban.len() > 34 || !iban.is_ascii() {
        return Err(format!(
            "{input:?} is not an IBAN (15 to 34 letters and digits)"
        ));
    }
    let (country, rest) = iban.split_at(2);
    if !country.bytes().all(|b| b.is_ascii_uppercase())
        || !rest.bytes().all(|b| b.is_ascii_alphanumeric())
    {
        return Err(format!("{input:?} is not an IBAN"));
    }
    if let Some(expected) = expected_length(country)
        && iban.len() != expected
    {
        return Err(format!(
            "a {country} IBAN has {expected} characters, not {}",
            iban.len()
        ));
    }
    let rearranged = format!("{rest}{country}", rest = &iban[4..]) + &iban[2..4];
    let remainder = rearranged.bytes().fold(0u32, |acc, b| {
        let value = if b.is_ascii_digit() {
            u32::from(b - b'0')
        } else {
            u32::from(b - b'A') + 10
        };
        if value >= 10 {
            (acc * 100 + value) % 97
        } else {
            (acc * 10 + value) % 97
        }
    });
    if remainder != 1 {
        return Err(format!("{input:?} has wrong IBAN check digits"));
    }
    Ok(iban)
}

fn expected_length(country: &str) -> Option<usize> {
    Some(match country {
        "ES" => 24,
        "PT" => 25,
        "FR" | "IT" | "MC" => 27,
        "DE" => 22,
        "NL" => 18,
        "BE" => 16,
        "IE" | "GB" => 22,
        "AD" => 24,
        "LU" => 20,
        "AT" => 20,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_and_invalid_ibans() {
        assert_eq!(
            parse("ES91 2100 0418 4502 0005 1332").unwrap(),
            "ES9121000418450200051332"
        );
        assert!(parse("DE89370400440532013000").is_ok());
        assert!(parse("GB82WEST12345698765432").is_ok());
        assert!(parse("ES9121000418450200051333").is_err(), "check digits");
        assert!(parse("ES91210004184502000513").is_err(), "length");
        assert!(parse("1234").is_err());
        assert!(parse("ES91 2100 0418 4502 0005 133ñ").is_err());
    }
}
