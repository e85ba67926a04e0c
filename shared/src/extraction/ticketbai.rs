//! The TicketBAI identifier of the Basque tax offices (Araba, Bizkaia,
//! Gipuzkoa), printed on every TicketBAI invoice and carried by its QR code:
//! `TBAI-<issuer NIF>-<DDMMYY>-<13 characters of the signature>-<CRC>`, where
//! CRC is the CRC-8 (polynomial 0x07, initial value 0, no reflection, no final
//! XOR) of the 36 characters before it, written as three decimal digits.

use chrono::NaiveDate;

use super::layout::TextDocument;

/// Characters of a whole identifier.
pub const ID_LEN: usize = 39;
/// Characters covered by the CRC: everything before its three digits.
const CRC_COVERED: usize = ID_LEN - 3;
/// Words after the one holding `TBAI-` joined to it, for an identifier a
/// reader split at its hyphens.
const MAX_SPLIT_WORDS: usize = 4;

/// A well-formed identifier whose CRC checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TbaiId {
    /// The issuer's tax id, as in the identifier.
    pub nif: String,
    /// The issue date.
    pub date: NaiveDate,
    /// The whole identifier.
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TbaiError {
    #[error("not a TicketBAI identifier (TBAI-NIF-DDMMYY-signature-CRC)")]
    Malformed,
    #[error("the date {0} of the identifier is not a real date")]
    BadDate(String),
    #[error("the identifier's CRC is {printed}, but its text gives {computed:03}")]
    BadCrc { printed: String, computed: u8 },
}

/// CRC-8 with polynomial x⁸ + x² + x + 1 (0x07), as TicketBAI defines it.
pub fn crc8(bytes: &[u8]) -> u8 {
    bytes.iter().fold(0u8, |crc, &byte| {
        (0..8).fold(crc ^ byte, |c, _| {
            if c & 0x80 != 0 {
                (c << 1) ^ 0x07
            } else {
                c << 1
            }
        })
    })
}

/// Reads an identifier, checking its form, date and CRC.
pub fn parse_id(text: &str) -> Result<TbaiId, TbaiError> {
    let text = text.trim();
    if text.len() != ID_LEN || !text.is_ascii() {
        return Err(TbaiError::Malformed);
    }
    let parts: Vec<&str> = text.split('-').collect();
    let ["TBAI", nif, date, signature, crc] = parts[..] else {
        return Err(TbaiError::Malformed);
    };
    let alphanumeric = |s: &str| s.bytes().all(|b| b.is_ascii_alphanumeric());
    if nif.len() != 9 || !alphanumeric(nif) || signature.len() != 13 {
        return Err(TbaiError::Malformed);
    }
    if crc.len() != 3 || !crc.bytes().all(|b| b.is_ascii_digit()) {
        return Err(TbaiError::Malformed);
    }
    let day_month_year = date.len() == 6 && date.bytes().all(|b| b.is_ascii_digit());
    let date = day_month_year
        .then(|| {
            let number = |range: std::ops::Range<usize>| date[range].parse::<u32>().ok();
            let year = 2000 + i32::try_from(number(4..6)?).ok()?;
            NaiveDate::from_ymd_opt(year, number(2..4)?, number(0..2)?)
        })
        .flatten()
        .ok_or_else(|| TbaiError::BadDate(date.to_string()))?;
    let computed = crc8(&text.as_bytes()[..CRC_COVERED]);
    if crc.parse::<u8>().ok() != Some(computed) {
        return Err(TbaiError::BadCrc {
            printed: crc.to_string(),
            computed,
        });
    }
    Ok(TbaiId {
        nif: nif.to_ascii_uppercase(),
        date,
        text: text.to_string(),
    })
}

/// The first identifier printed in the document whose CRC checks; a reader
/// may have split it into several words.
pub fn find_id(doc: &TextDocument) -> Option<TbaiId> {
    let words = &doc.words;
    words.iter().enumerate().find_map(|(i, word)| {
        let start = word.text.find("TBAI-")?;
        let joined: String = words[i..]
            .iter()
            .take(1 + MAX_SPLIT_WORDS)
            .map(|w| w.text.as_str())
            .collect();
        let candidate = joined.get(start..start + ID_LEN)?;
        parse_id(candidate).ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example of the TicketBAI technical specification.
    const EXAMPLE: &str = "TBAI-00000006Y-251019-btFpwP8dcLGAF-237";

    #[test]
    fn the_crc_is_crc8_with_polynomial_7() {
        assert_eq!(crc8(b"123456789"), 0xF4);
        assert_eq!(crc8(&EXAMPLE.as_bytes()[..36]), 237);
    }

    #[test]
    fn an_identifier_gives_the_issuer_and_the_date() {
        let id = parse_id(EXAMPLE).unwrap();
        assert_eq!(id.nif, "00000006Y");
        assert_eq!(id.date, NaiveDate::from_ymd_opt(2019, 10, 25).unwrap());
        assert_eq!(id.text, EXAMPLE);
    }

    #[test]
    fn bad_identifiers_are_refused_with_the_reason() {
        assert_eq!(
            parse_id("TBAI-00000006Y-251019-btFpwP8dcLGAF-238"),
            Err(TbaiError::BadCrc {
                printed: "238".into(),
                computed: 237
            })
        );
        assert_eq!(
            parse_id("TBAI-00000006Y-321319-btFpwP8dcLGAF-237"),
            Err(TbaiError::BadDate("321319".into()))
        );
        for bad in [
            "",
            "TBAI-00000006Y-251019-btFpwP8dcLGAF-23",
            "TBAX-00000006Y-251019-btFpwP8dcLGAF-237",
            "TBAI-0000006Y-2510190-btFpwP8dcLGAF-237",
            "TBAI-00000006Y-251019-btFpwP8dcLGAF-2x7",
            "TBAI-00000006Ñ-251019-btFpwP8dcLGA-237",
        ] {
            assert_eq!(parse_id(bad), Err(TbaiError::Malformed), "{bad}");
        }
    }

    #[test]
    fn the_identifier_is_found_among_the_words_even_split() {
        let whole = TextDocument::from_plain_text(&format!("Ticket 27174\nTBAI: {EXAMPLE}\n"));
        assert_eq!(find_id(&whole).unwrap().text, EXAMPLE);
        let split = TextDocument::from_plain_text(
            "Identificativo TicketBAI:TBAI-00000006Y- 251019-btFpwP8dcLGAF -237 Gracias",
        );
        assert_eq!(find_id(&split).unwrap().nif, "00000006Y");
        let misread = TextDocument::from_plain_text("TBAI-00000006Y-251019-btFpwP8dcLGAF-231");
        assert_eq!(find_id(&misread), None);
    }
}
