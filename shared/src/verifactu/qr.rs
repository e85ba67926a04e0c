//! The cotejo URL the invoice QR code encodes (AEAT QR spec, VERI*FACTU mode).

use chrono::NaiveDate;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

use super::record::date_text;

const PRODUCTION: &str = "https://www2.agenciatributaria.gob.es/wlpl/TIKE-CONT/ValidarQR";
const TEST: &str = "https://prewww2.aeat.es/wlpl/TIKE-CONT/ValidarQR";

/// Everything but the RFC 3986 unreserved characters is encoded, so `&`,
/// `/`, `+` and spaces cannot be misread inside a query value.
const QUERY_VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The cotejo URL on the production or test host, parameters in the spec's
/// order and percent-encoded (`&`→%26, `/`→%2F, `+`→%2B, space→%20).
/// `total` is the ImporteTotal string of the record.
pub fn qr_url(
    issuer_nif: &str,
    number: &str,
    issue_date: NaiveDate,
    total: &str,
    production: bool,
) -> String {
    let base = if production { PRODUCTION } else { TEST };
    format!(
        "{base}?nif={}&numserie={}&fecha={}&importe={}",
        encode(issuer_nif),
        encode(number),
        encode(&date_text(issue_date)),
        encode(total),
    )
}

fn encode(value: &str) -> String {
    utf8_percent_encode(value.trim(), QUERY_VALUE).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new_year_2024() -> NaiveDate {
        NaiveDate::from_ymd_opt(2024, 1, 1).expect("a valid date")
    }

    #[test]
    fn official_example_on_the_test_host() {
        assert_eq!(
            qr_url("89890001K", "12345678&G33", new_year_2024(), "241.4", false),
            "https://prewww2.aeat.es/wlpl/TIKE-CONT/ValidarQR?nif=89890001K&numserie=12345678%26G33&fecha=01-01-2024&importe=241.4"
        );
    }

    #[test]
    fn production_host_and_reserved_characters() {
        let date = NaiveDate::from_ymd_opt(2025, 6, 2).expect("a valid date");
        assert_eq!(
            qr_url("B12345674", "A/2025+1 Ñ", date, "-1960.20", true),
            "https://www2.agenciatributaria.gob.es/wlpl/TIKE-CONT/ValidarQR?nif=B12345674&numserie=A%2F2025%2B1%20%C3%91&fecha=02-06-2025&importe=-1960.20"
        );
    }
}
