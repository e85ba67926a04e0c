//! What an invoice's tax QR code says, exactly: the AEAT cotejo URL of
//! VERI*FACTU and non-VERI*FACTU invoices (`…/ValidarQR?nif=…&numserie=…&
//! fecha=dd-mm-yyyy&importe=…`, production and pre-production hosts) and the
//! TicketBAI URL of the three Basque tax offices (`?id=TBAI-…&s=…&nf=…&i=…&
//! cr=…`); and how those values correct what was read from the printed text.

use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::Serialize;
use url::Url;
use utoipa::ToSchema;

use super::fields::{Field, Fields};
use super::layout::TextDocument;
use super::ticketbai::{self, TbaiId};
use crate::tax::money::as_number;

/// The AEAT's cotejo hosts: production and pre-production.
const AEAT_HOSTS: [&str; 2] = ["www2.agenciatributaria.gob.es", "prewww2.aeat.es"];
const VERIFACTU_PATH: &str = "/wlpl/tike-cont/validarqr";
const NO_VERIFACTU_PATH: &str = "/wlpl/tike-cont/validarqrnoverifactu";
/// The TicketBAI QR hosts of Bizkaia, Gipuzkoa and Araba (production and test).
const TICKETBAI_HOSTS: [&str; 5] = [
    "batuz.eus",
    "tbai.egoitza.gipuzkoa.eus",
    "tbai.prep.gipuzkoa.eus",
    "ticketbai.araba.eus",
    "pruebas-ticketbai.araba.eus",
];
/// Longest NumSerieFactura.
const MAX_NUMBER_CHARS: usize = 60;

/// Which system made the code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum QrKind {
    /// AEAT `ValidarQR`: an invoice sent to the AEAT as it was issued.
    Verifactu,
    /// AEAT `ValidarQRNoVerifactu`: an invoice kept by a non-VERI*FACTU system.
    NoVerifactu,
    /// A Basque TicketBAI invoice.
    Ticketbai,
}

/// The exact data of the invoice's tax QR code (or, for TicketBAI, of its
/// printed identifier when no code was read).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(example = json!({"kind": "verifactu", "nif": "B12345674", "number": "2026/0147",
    "date": "2026-08-05", "total": 1871.27,
    "url": "https://www2.agenciatributaria.gob.es/wlpl/TIKE-CONT/ValidarQR?nif=B12345674&numserie=2026%2F0147&fecha=05-08-2026&importe=1871.27"}))]
pub struct InvoiceQr {
    pub kind: QrKind,
    /// The issuer's tax id.
    pub nif: String,
    /// Series and number; null for a TicketBAI identifier read from the text alone.
    pub number: Option<String>,
    /// Issue date, `YYYY-MM-DD`.
    #[schema(value_type = String, format = Date)]
    pub date: NaiveDate,
    /// ImporteTotal: base + VAT + surcharge, before any IRPF withholding;
    /// null for a TicketBAI identifier read from the text alone.
    #[serde(serialize_with = "optional_amount")]
    #[schema(value_type = Option<f64>)]
    pub total: Option<Decimal>,
    /// The decoded URL; null for a TicketBAI identifier read from the text alone.
    pub url: Option<String>,
}

fn optional_amount<S: serde::Serializer>(x: &Option<Decimal>, s: S) -> Result<S::Ok, S::Error> {
    match x {
        Some(x) => as_number(x, s),
        None => s.serialize_none(),
    }
}

/// Why a decoded payload gives no invoice data.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QrError {
    #[error("not the URL of a VERI*FACTU or TicketBAI code")]
    NotInvoiceQr,
    #[error("the parameter `{0}` is missing")]
    Missing(&'static str),
    #[error("the parameter `{0}` has a bad value: {1}")]
    Bad(&'static str, String),
}

/// Reads a decoded QR payload.
pub fn parse_payload(payload: &str) -> Result<InvoiceQr, QrError> {
    let payload = payload.trim();
    let url = Url::parse(payload).map_err(|_| QrError::NotInvoiceQr)?;
    if !matches!(url.scheme(), "https" | "http") {
        return Err(QrError::NotInvoiceQr);
    }
    let host = url.host_str().unwrap_or_default();
    let path = url.path().trim_end_matches('/').to_ascii_lowercase();
    if AEAT_HOSTS.contains(&host) {
        let kind = match path.as_str() {
            VERIFACTU_PATH => QrKind::Verifactu,
            NO_VERIFACTU_PATH => QrKind::NoVerifactu,
            _ => return Err(QrError::NotInvoiceQr),
        };
        return aeat(kind, &url, payload);
    }
    if TICKETBAI_HOSTS.contains(&host) {
        return ticketbai_url(&url, payload);
    }
    Err(QrError::NotInvoiceQr)
}

/// The first parameter named `name`, percent-decoded and trimmed.
fn param(url: &Url, name: &'static str) -> Result<String, QrError> {
    url.query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.trim().to_string())
        .ok_or(QrError::Missing(name))
}

fn aeat(kind: QrKind, url: &Url, payload: &str) -> Result<InvoiceQr, QrError> {
    let nif = param(url, "nif")?.to_ascii_uppercase();
    if nif.len() != 9 || !nif.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(QrError::Bad("nif", nif));
    }
    let number = param(url, "numserie")?;
    if number.is_empty() || number.chars().count() > MAX_NUMBER_CHARS {
        return Err(QrError::Bad("numserie", number));
    }
    let fecha = param(url, "fecha")?;
    let date = NaiveDate::parse_from_str(&fecha, "%d-%m-%Y")
        .ok()
        .filter(|_| fecha.len() == 10)
        .ok_or(QrError::Bad("fecha", fecha))?;
    Ok(InvoiceQr {
        kind,
        nif,
        number: Some(number),
        date,
        total: Some(amount(url, "importe")?),
        url: Some(payload.to_string()),
    })
}

/// A plain decimal with `.` and at most two decimals, as both systems write it.
fn amount(url: &Url, name: &'static str) -> Result<Decimal, QrError> {
    let text = param(url, name)?;
    let digits = text.strip_prefix('-').unwrap_or(&text);
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let plain = !whole.is_empty()
        && whole.len() <= 12
        && fraction.len() <= 2
        && whole
            .bytes()
            .chain(fraction.bytes())
            .all(|b| b.is_ascii_digit());
    plain
        .then(|| text.parse::<Decimal>().ok())
        .flatten()
        .ok_or(QrError::Bad(name, text))
}

fn ticketbai_url(url: &Url, payload: &str) -> Result<InvoiceQr, QrError> {
    let id = param(url, "id")?;
    let id = ticketbai::parse_id(&id).map_err(|e| QrError::Bad("id", e.to_string()))?;
    let series = param(url, "s").unwrap_or_default();
    let number = param(url, "nf")?;
    if number.is_empty() || series.chars().count() + number.chars().count() > MAX_NUMBER_CHARS {
        return Err(QrError::Bad("nf", number));
    }
    let total = amount(url, "i")?;
    // The CRC covers the URL as encoded, up to its own parameter.
    if let Some((covered, crc)) = payload.rsplit_once("&cr=") {
        let computed = ticketbai::crc8(covered.as_bytes());
        if crc.parse::<u8>().ok() != Some(computed) {
            return Err(QrError::Bad(
                "cr",
                format!("{crc}, but the URL gives {computed:03}"),
            ));
        }
    }
    Ok(InvoiceQr {
        kind: QrKind::Ticketbai,
        nif: id.nif,
        number: Some(format!("{series}{number}")),
        date: id.date,
        total: Some(total),
        url: Some(payload.to_string()),
    })
}

impl From<TbaiId> for InvoiceQr {
    fn from(id: TbaiId) -> Self {
        InvoiceQr {
            kind: QrKind::Ticketbai,
            nif: id.nif,
            number: None,
            date: id.date,
            total: None,
            url: None,
        }
    }
}

/// The invoice's tax code: the first payload that is one, else a TicketBAI
/// identifier printed in the text.
pub fn read(payloads: &[String], document: &TextDocument) -> Option<InvoiceQr> {
    payloads
        .iter()
        .find_map(|p| parse_payload(p).ok())
        .or_else(|| ticketbai::find_id(document).map(InvoiceQr::from))
}

/// Letters and digits only, upper case: how two readings of one value are compared.
fn bare(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_uppercase)
        .collect()
}

fn bare_nif(text: &str) -> String {
    let bare = bare(text);
    match bare.strip_prefix("ES") {
        Some(rest) if rest.len() == 9 => rest.to_string(),
        _ => bare,
    }
}

/// Puts the code's values in place of the printed ones, at confidence 1.0,
/// and returns a `qr_mismatch` note `(code, message)` for every printed value
/// that differs. The code's total is before withholding, so a printed total
/// matches it net of the IRPF read.
pub fn apply(fields: &mut Fields, qr: &InvoiceQr) -> Vec<(String, String)> {
    let mut notes = Vec::new();
    let mut mismatch = |what: &str, printed: &str, coded: &str| {
        notes.push((
            "qr_mismatch".to_string(),
            format!(
                "{what} ({printed}) no coincide con el código QR ({coded}); se usa el valor del código (qr_mismatch)"
            ),
        ));
    };
    if let Some(printed) = &fields.issuer_nif
        && bare_nif(&printed.value) != bare_nif(&qr.nif)
    {
        mismatch("El NIF del emisor impreso", &printed.value, &qr.nif);
    }
    fields.issuer_nif = Some(Field::exact(qr.nif.clone()));
    if let Some(number) = &qr.number {
        let value = match fields.invoice_number.take().map(|f| f.value) {
            // TicketBAI splits series and number: their printed form is kept.
            Some(printed)
                if qr.kind == QrKind::Ticketbai && same_number(qr.kind, &printed, number) =>
            {
                printed
            }
            Some(printed) => {
                if !same_number(qr.kind, &printed, number) {
                    mismatch("El número de factura impreso", &printed, number);
                }
                number.clone()
            }
            None => number.clone(),
        };
        fields.invoice_number = Some(Field::exact(value));
    }
    if let Some(printed) = &fields.invoice_date
        && printed.value != qr.date
    {
        mismatch(
            "La fecha impresa",
            &printed.value.format("%d/%m/%Y").to_string(),
            &qr.date.format("%d/%m/%Y").to_string(),
        );
    }
    fields.invoice_date = Some(Field::exact(qr.date));
    if let Some(gross) = qr.total {
        let withheld = fields.irpf_amount.as_ref().map_or(Decimal::ZERO, |f| {
            if gross.is_sign_negative() {
                -f.value.abs()
            } else {
                f.value.abs()
            }
        });
        let net = gross - withheld;
        if let Some(printed) = &fields.total {
            let close = |x: Decimal| (printed.value - x).abs() <= Decimal::new(1, 2);
            if !close(net) && !close(gross) {
                mismatch(
                    "El total impreso",
                    &printed.value.to_string(),
                    &gross.to_string(),
                );
            }
        }
        fields.total = Some(Field::exact(net));
    }
    notes
}

fn same_number(kind: QrKind, printed: &str, coded: &str) -> bool {
    let (printed, coded) = (bare(printed), bare(coded));
    match kind {
        QrKind::Ticketbai => !printed.is_empty() && coded.ends_with(&printed),
        QrKind::Verifactu | QrKind::NoVerifactu => printed == coded,
    }
}

#[cfg(test)]
mod tests {
    use rust_decimal::dec;

    use super::*;

    fn date(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    #[test]
    fn the_official_example_is_read_with_its_encoded_number() {
        let url = "https://prewww2.aeat.es/wlpl/TIKE-CONT/ValidarQR?nif=89890001K&numserie=12345678%26G33&fecha=01-01-2024&importe=241.4";
        let qr = parse_payload(url).unwrap();
        assert_eq!(
            qr,
            InvoiceQr {
                kind: QrKind::Verifactu,
                nif: "89890001K".into(),
                number: Some("12345678&G33".into()),
                date: date(2024, 1, 1),
                total: Some(dec!(241.4)),
                url: Some(url.into()),
            }
        );
    }

    #[test]
    fn production_and_non_verifactu_urls_are_read() {
        let qr = parse_payload(
            " https://www2.agenciatributaria.gob.es/wlpl/TIKE-CONT/ValidarQRNoVerifactu?nif=b12345674&numserie=A%2F2025%2B1%20%C3%91&fecha=02-06-2025&importe=-1960.20\n",
        )
        .unwrap();
        assert_eq!(qr.kind, QrKind::NoVerifactu);
        assert_eq!(qr.nif, "B12345674");
        assert_eq!(qr.number.as_deref(), Some("A/2025+1 Ñ"));
        assert_eq!(qr.total, Some(dec!(-1960.20)));
        assert_eq!(qr.date, date(2025, 6, 2));
    }

    #[test]
    fn bad_urls_say_what_is_wrong() {
        let base = "https://www2.agenciatributaria.gob.es/wlpl/TIKE-CONT/ValidarQR";
        let cases = [
            ("not a url", QrError::NotInvoiceQr),
            (
                "https://example.com/ValidarQR?nif=B12345674",
                QrError::NotInvoiceQr,
            ),
            (
                "https://www2.agenciatributaria.gob.es/wlpl/Other?nif=B1",
                QrError::NotInvoiceQr,
            ),
            (
                "?numserie=1&fecha=01-01-2024&importe=1",
                QrError::Missing("nif"),
            ),
            (
                "?nif=B123&numserie=1&fecha=01-01-2024&importe=1",
                QrError::Bad("nif", "B123".into()),
            ),
            (
                "?nif=B12345674&numserie=&fecha=01-01-2024&importe=1",
                QrError::Bad("numserie", String::new()),
            ),
            (
                "?nif=B12345674&numserie=1&fecha=2024-01-01&importe=1",
                QrError::Bad("fecha", "2024-01-01".into()),
            ),
            (
                "?nif=B12345674&numserie=1&fecha=31-02-2024&importe=1",
                QrError::Bad("fecha", "31-02-2024".into()),
            ),
            (
                "?nif=B12345674&numserie=1&fecha=01-01-2024&importe=1,50",
                QrError::Bad("importe", "1,50".into()),
            ),
            (
                "?nif=B12345674&numserie=1&fecha=01-01-2024&importe=1.505",
                QrError::Bad("importe", "1.505".into()),
            ),
            (
                "?nif=B12345674&numserie=1&fecha=01-01-2024",
                QrError::Missing("importe"),
            ),
        ];
        for (url, error) in cases {
            let url = if url.starts_with('?') {
                format!("{base}{url}")
            } else {
                url.to_string()
            };
            assert_eq!(parse_payload(&url), Err(error), "{url}");
        }
    }

    const TBAI_URL: &str = "https://batuz.eus/QRTBAI/?id=TBAI-00000006Y-251019-btFpwP8dcLGAF-237&s=T&nf=27174&i=4.70&cr=007";

    #[test]
    fn a_ticketbai_url_gives_issuer_date_number_and_total() {
        let qr = parse_payload(TBAI_URL).unwrap();
        assert_eq!(qr.kind, QrKind::Ticketbai);
        assert_eq!(qr.nif, "00000006Y");
        assert_eq!(qr.date, date(2019, 10, 25));
        assert_eq!(qr.number.as_deref(), Some("T27174"));
        assert_eq!(qr.total, Some(dec!(4.70)));
        let gipuzkoa = "https://tbai.egoitza.gipuzkoa.eus/qr/?id=TBAI-00000006Y-251019-btFpwP8dcLGAF-237&s=T&nf=27174&i=4.70&cr=010";
        assert_eq!(parse_payload(gipuzkoa).unwrap().nif, "00000006Y");
        assert!(matches!(
            parse_payload(&TBAI_URL.replace("cr=007", "cr=008")),
            Err(QrError::Bad("cr", _))
        ));
        assert!(matches!(
            parse_payload(&TBAI_URL.replace("-237&", "-238&")),
            Err(QrError::Bad("id", _))
        ));
    }

    #[test]
    fn the_first_tax_code_wins_over_other_codes_and_the_printed_identifier() {
        let text = TextDocument::from_plain_text("TBAI-00000006Y-251019-btFpwP8dcLGAF-237");
        let payloads = [
            "https://www.endesa.com/es/otros-productos?qr=1".to_string(),
            TBAI_URL.to_string(),
        ];
        assert_eq!(read(&payloads, &text).unwrap().total, Some(dec!(4.70)));
        let from_text = read(&payloads[..1], &text).unwrap();
        assert_eq!((from_text.number, from_text.url), (None, None));
        assert_eq!(read(&[], &TextDocument::from_plain_text("Factura 1")), None);
    }

    fn verifactu(total: Decimal) -> InvoiceQr {
        InvoiceQr {
            kind: QrKind::Verifactu,
            nif: "B12345674".into(),
            number: Some("2026/0147".into()),
            date: date(2026, 8, 5),
            total: Some(total),
            url: Some("https://www2.agenciatributaria.gob.es/wlpl/TIKE-CONT/ValidarQR".into()),
        }
    }

    fn printed() -> Fields {
        Fields {
            issuer_nif: Some(Field::new("ES-B12345674".into(), 0.9)),
            invoice_number: Some(Field::new("2026/0147".into(), 0.8)),
            invoice_date: Some(Field::new(date(2026, 8, 5), 0.9)),
            total: Some(Field::new(dec!(1639.29), 0.9)),
            irpf_amount: Some(Field::new(dec!(231.98), 0.9)),
            ..Fields::default()
        }
    }

    #[test]
    fn agreeing_values_become_exact_without_warnings() {
        let mut fields = printed();
        fields.invoice_number = Some(Field::new("2026-0147".into(), 0.8));
        let notes = apply(&mut fields, &verifactu(dec!(1871.27)));
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(fields.issuer_nif, Some(Field::exact("B12345674".into())));
        assert_eq!(
            fields.invoice_number,
            Some(Field::exact("2026/0147".into()))
        );
        assert_eq!(fields.total, Some(Field::exact(dec!(1639.29))));
    }

    #[test]
    fn differing_values_are_replaced_and_named() {
        let mut fields = Fields {
            issuer_nif: Some(Field::new("A58818501".into(), 0.9)),
            invoice_number: Some(Field::new("2026/0174".into(), 0.8)),
            invoice_date: Some(Field::new(date(2026, 5, 8), 0.9)),
            total: Some(Field::new(dec!(1817.27), 0.9)),
            ..Fields::default()
        };
        let notes = apply(&mut fields, &verifactu(dec!(1871.27)));
        let messages: Vec<&str> = notes.iter().map(|(_, m)| m.as_str()).collect();
        assert_eq!(
            messages,
            [
                "El NIF del emisor impreso (A58818501) no coincide con el código QR (B12345674); se usa el valor del código (qr_mismatch)",
                "El número de factura impreso (2026/0174) no coincide con el código QR (2026/0147); se usa el valor del código (qr_mismatch)",
                "La fecha impresa (08/05/2026) no coincide con el código QR (05/08/2026); se usa el valor del código (qr_mismatch)",
                "El total impreso (1817.27) no coincide con el código QR (1871.27); se usa el valor del código (qr_mismatch)",
            ]
        );
        assert!(notes.iter().all(|(code, _)| code == "qr_mismatch"));
        assert_eq!(fields.invoice_number.unwrap().value, "2026/0147");
        assert_eq!(fields.invoice_date.unwrap().value, date(2026, 8, 5));
        assert_eq!(fields.total, Some(Field::exact(dec!(1871.27))));
    }

    #[test]
    fn missing_values_are_filled() {
        let mut fields = Fields::default();
        assert!(apply(&mut fields, &verifactu(dec!(10))).is_empty());
        assert_eq!(fields.invoice_number.unwrap().confidence, 1.0);
        assert_eq!(fields.total.unwrap().value, dec!(10));
    }

    #[test]
    fn a_ticketbai_number_matches_without_its_series() {
        let qr = parse_payload(TBAI_URL).unwrap();
        let mut fields = Fields {
            invoice_number: Some(Field::new("27174".into(), 0.7)),
            total: Some(Field::new(dec!(4.7), 0.7)),
            ..Fields::default()
        };
        assert!(apply(&mut fields, &qr).is_empty());
        assert_eq!(fields.invoice_number, Some(Field::exact("27174".into())));
        let from_text = InvoiceQr::from(
            ticketbai::parse_id("TBAI-00000006Y-251019-btFpwP8dcLGAF-237").unwrap(),
        );
        let mut fields = printed();
        apply(&mut fields, &from_text);
        assert_eq!(fields.invoice_number.unwrap().confidence, 0.8);
        assert_eq!(fields.issuer_nif.unwrap().value, "00000006Y");
    }
}
