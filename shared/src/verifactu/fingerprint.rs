//! The huella (AEAT hash spec v0.1.2): SHA-256 over `Name=value` pairs joined
//! by `&`, each value trimmed and written exactly as in the XML, as 64
//! upper-case hex characters. A missing previous huella is written `Huella=`.

use sha2::{Digest, Sha256};

/// The literal strings a RegistroAlta's huella covers, in the spec's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegistrationHashInput<'a> {
    pub issuer_nif: &'a str,
    pub number: &'a str,
    pub issue_date: &'a str,
    pub kind: &'a str,
    pub total_vat: &'a str,
    pub total: &'a str,
    /// The previous record's huella, empty for the first record.
    pub previous_hash: &'a str,
    pub generated_at: &'a str,
}

/// The literal strings a RegistroAnulacion's huella covers, in the spec's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CancellationHashInput<'a> {
    pub issuer_nif: &'a str,
    pub number: &'a str,
    pub issue_date: &'a str,
    /// The previous record's huella, empty for the first record.
    pub previous_hash: &'a str,
    pub generated_at: &'a str,
}

impl RegistrationHashInput<'_> {
    fn fields(&self) -> [(&'static str, &str); 8] {
        [
            ("IDEmisorFactura", self.issuer_nif),
            ("NumSerieFactura", self.number),
            ("FechaExpedicionFactura", self.issue_date),
            ("TipoFactura", self.kind),
            ("CuotaTotal", self.total_vat),
            ("ImporteTotal", self.total),
            ("Huella", self.previous_hash),
            ("FechaHoraHusoGenRegistro", self.generated_at),
        ]
    }
}

impl CancellationHashInput<'_> {
    fn fields(&self) -> [(&'static str, &str); 5] {
        [
            ("IDEmisorFacturaAnulada", self.issuer_nif),
            ("NumSerieFacturaAnulada", self.number),
            ("FechaExpedicionFacturaAnulada", self.issue_date),
            ("Huella", self.previous_hash),
            ("FechaHoraHusoGenRegistro", self.generated_at),
        ]
    }
}

/// The huella of a RegistroAlta.
pub fn fingerprint_registration(input: &RegistrationHashInput) -> String {
    sha256_upper_hex(&hash_text(&input.fields()))
}

/// The huella of a RegistroAnulacion.
pub fn fingerprint_cancellation(input: &CancellationHashInput) -> String {
    sha256_upper_hex(&hash_text(&input.fields()))
}

fn hash_text(fields: &[(&str, &str)]) -> String {
    fields
        .iter()
        .map(|(name, value)| format!("{name}={}", value.trim()))
        .collect::<Vec<_>>()
        .join("&")
}

fn sha256_upper_hex(text: &str) -> String {
    hex::encode_upper(Sha256::digest(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HASH_1: &str = "3C464DAF61ACB827C65FDA19F352A4E3BDC2C640E9E9FC4CC058073F38F12F60";
    const HASH_2: &str = "F7B94CFD8924EDFF273501B01EE5153E4CE8F259766F88CF6ACB8935802A2B97";
    const HASH_3: &str = "177547C0D57AC74748561D054A9CEC14B4C4EA23D1BEFD6F2E69E3A388F90C68";

    fn vector_1() -> RegistrationHashInput<'static> {
        RegistrationHashInput {
            issuer_nif: "89890001K",
            number: "12345678/G33",
            issue_date: "01-01-2024",
            kind: "F1",
            total_vat: "12.35",
            total: "123.45",
            previous_hash: "",
            generated_at: "2024-01-01T19:20:30+01:00",
        }
    }

    #[test]
    fn official_vector_1_first_registration() {
        let input = vector_1();
        assert_eq!(
            hash_text(&input.fields()),
            "IDEmisorFactura=89890001K&NumSerieFactura=12345678/G33&FechaExpedicionFactura=01-01-2024&TipoFactura=F1&CuotaTotal=12.35&ImporteTotal=123.45&Huella=&FechaHoraHusoGenRegistro=2024-01-01T19:20:30+01:00"
        );
        assert_eq!(fingerprint_registration(&input), HASH_1);
    }

    #[test]
    fn official_vector_2_chained_registration() {
        let input = RegistrationHashInput {
            number: "12345679/G34",
            previous_hash: HASH_1,
            generated_at: "2024-01-01T19:20:35+01:00",
            ..vector_1()
        };
        assert_eq!(
            hash_text(&input.fields()),
            "IDEmisorFactura=89890001K&NumSerieFactura=12345679/G34&FechaExpedicionFactura=01-01-2024&TipoFactura=F1&CuotaTotal=12.35&ImporteTotal=123.45&Huella=3C464DAF61ACB827C65FDA19F352A4E3BDC2C640E9E9FC4CC058073F38F12F60&FechaHoraHusoGenRegistro=2024-01-01T19:20:35+01:00"
        );
        assert_eq!(fingerprint_registration(&input), HASH_2);
    }

    #[test]
    fn official_vector_3_cancellation() {
        let input = CancellationHashInput {
            issuer_nif: "89890001K",
            number: "12345679/G34",
            issue_date: "01-01-2024",
            previous_hash: HASH_2,
            generated_at: "2024-01-01T19:20:40+01:00",
        };
        assert_eq!(
            hash_text(&input.fields()),
            "IDEmisorFacturaAnulada=89890001K&NumSerieFacturaAnulada=12345679/G34&FechaExpedicionFacturaAnulada=01-01-2024&Huella=F7B94CFD8924EDFF273501B01EE5153E4CE8F259766F88CF6ACB8935802A2B97&FechaHoraHusoGenRegistro=2024-01-01T19:20:40+01:00"
        );
        assert_eq!(fingerprint_cancellation(&input), HASH_3);
    }

    /// The records in `shared/standards/verifactu/examples` (josemmo fixtures).
    #[test]
    fn josemmo_example_huellas() {
        let f1 = RegistrationHashInput {
            issuer_nif: "00000000B",
            number: "PRUEBA-0002",
            issue_date: "02-06-2025",
            kind: "F1",
            total_vat: "26.00",
            total: "176.00",
            previous_hash: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            generated_at: "2025-06-02T11:22:33+02:00",
        };
        assert_eq!(
            fingerprint_registration(&f1),
            "8B042C064EE8260DE86766B4C4878DD1347377D00C7D7C97043E126B1215F2A6"
        );
        let f2 = RegistrationHashInput {
            issuer_nif: "A00000000",
            kind: "F2",
            total_vat: "21.00",
            total: "121.00",
            generated_at: "2025-06-02T20:30:40+02:00",
            ..f1
        };
        assert_eq!(
            fingerprint_registration(&f2),
            "4566062C5A5D7DA4E0E876C0994071CD807962629F8D3C1F33B91EDAA65B2BA1"
        );
        let cancellation = CancellationHashInput {
            issuer_nif: "A00000000",
            number: "12345679/G34",
            issue_date: "01-01-2024",
            previous_hash: HASH_2,
            generated_at: "2024-01-01T19:20:40+01:00",
        };
        assert_eq!(
            fingerprint_cancellation(&cancellation),
            "5DCAFD630E24AA03BCE2D3E6F595BAE802555F4604AF830F0340F3338B4935F6"
        );
    }

    #[test]
    fn values_are_trimmed_and_amount_text_matters() {
        let padded = RegistrationHashInput {
            issuer_nif: "  89890001K  ",
            number: " 12345678/G33 ",
            total: "123.45 ",
            ..vector_1()
        };
        assert_eq!(fingerprint_registration(&padded), HASH_1);
        let three_decimals = RegistrationHashInput {
            total: "123.450",
            ..vector_1()
        };
        assert!(fingerprint_registration(&three_decimals).starts_with("33578219"));
    }
}
