//! How one document prints its values: font family, number, date and NIF
//! formats, and the label wordings (synonyms Spanish invoices use).

use chrono::{Datelike, NaiveDate};
use rust_decimal::Decimal;

use super::rng::Rng;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Helvetica,
    Times,
    Courier,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Numbers {
    /// `1.234,56`
    Spanish,
    /// `1234,56`
    Plain,
    /// `1,234.56`
    English,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Currency {
    None,
    /// `1.234,56 €`
    EuroAfter,
    /// `€1,234.56`
    EuroBefore,
    /// `1.234,56 EUR`
    Eur,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dates {
    /// `05/08/2026`
    Slash,
    /// `5-ago-2026`
    ShortMonth,
    /// `5 de agosto de 2026`
    Long,
    /// `2026-08-05`
    Iso,
    /// `05.08.2026`
    Dotted,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NifPrint {
    Plain,
    /// `B-12345674`, `12345678-Z`
    Hyphen,
    /// `ESB12345674`
    EsPrefix,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Labels {
    pub number: &'static str,
    pub date: &'static str,
    pub base: &'static str,
    /// `{r}` is replaced by the rate.
    pub vat: &'static str,
    pub irpf: &'static str,
    pub surcharge: &'static str,
    pub total: &'static str,
    pub tax_id: &'static str,
    pub customer: &'static str,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Style {
    pub family: Family,
    pub numbers: Numbers,
    pub currency: Currency,
    pub dates: Dates,
    pub nif: NifPrint,
    pub labels: Labels,
}

const MONTHS: [&str; 12] = [
    "enero",
    "febrero",
    "marzo",
    "abril",
    "mayo",
    "junio",
    "julio",
    "agosto",
    "septiembre",
    "octubre",
    "noviembre",
    "diciembre",
];

pub fn random(rng: &mut Rng) -> Style {
    let numbers = rng.pick(&[
        Numbers::Spanish,
        Numbers::Spanish,
        Numbers::Plain,
        Numbers::English,
    ]);
    let currency = match numbers {
        Numbers::English => rng.pick(&[Currency::EuroBefore, Currency::None, Currency::Eur]),
        _ => rng.pick(&[
            Currency::EuroAfter,
            Currency::EuroAfter,
            Currency::None,
            Currency::Eur,
        ]),
    };
    Style {
        family: rng.pick(&[Family::Helvetica, Family::Times, Family::Courier]),
        numbers,
        currency,
        dates: rng.pick(&[
            Dates::Slash,
            Dates::Slash,
            Dates::ShortMonth,
            Dates::Long,
            Dates::Iso,
            Dates::Dotted,
        ]),
        nif: rng.pick(&[
            NifPrint::Plain,
            NifPrint::Plain,
            NifPrint::Hyphen,
            NifPrint::EsPrefix,
        ]),
        labels: Labels {
            number: rng.pick(&[
                "Nº factura:",
                "Factura nº:",
                "Número de factura:",
                "Nº Factura",
                "Factura núm.",
            ]),
            date: rng.pick(&[
                "Fecha:",
                "Fecha de expedición:",
                "Fecha factura:",
                "Fecha de emisión",
            ]),
            base: rng.pick(&["Base imponible", "B.I.", "Subtotal", "Base imp."]),
            vat: rng.pick(&["IVA {r}", "IVA ({r})", "Cuota IVA {r}", "{r} IVA"]),
            irpf: rng.pick(&[
                "Retención IRPF -{r}",
                "IRPF -{r}",
                "Retención ({r})",
                "Ret. IRPF {r}",
            ]),
            surcharge: rng.pick(&["Recargo de equivalencia {r}", "R.E. {r}"]),
            total: rng.pick(&["Total factura", "Importe total", "TOTAL", "Total a pagar"]),
            tax_id: rng.pick(&["NIF:", "CIF:", "N.I.F.:", "NIF/CIF:"]),
            customer: rng.pick(&[
                "Cliente",
                "Datos del cliente",
                "Facturar a:",
                "Destinatario",
            ]),
        },
    }
}

impl Style {
    /// An amount as printed, with its sign and currency.
    pub fn amount(&self, x: Decimal) -> String {
        let digits = format!("{:.2}", x.abs());
        let (units, cents) = digits.split_once('.').unwrap();
        let (group, decimal) = match self.numbers {
            Numbers::Spanish => (".", ","),
            Numbers::Plain => ("", ","),
            Numbers::English => (",", "."),
        };
        let mut grouped = String::new();
        for (i, c) in units.chars().enumerate() {
            if i > 0 && (units.len() - i) % 3 == 0 {
                grouped.push_str(group);
            }
            grouped.push(c);
        }
        let sign = if x.is_sign_negative() && !x.is_zero() {
            "-"
        } else {
            ""
        };
        let number = format!("{grouped}{decimal}{cents}");
        match self.currency {
            Currency::None => format!("{sign}{number}"),
            Currency::EuroAfter => format!("{sign}{number} €"),
            Currency::EuroBefore => format!("{sign}€{number}"),
            Currency::Eur => format!("{sign}{number} EUR"),
        }
    }

    /// A plain number (quantities, unit prices, rates) in the document's
    /// decimal style, with the decimals it was made with.
    pub fn number(&self, x: Decimal) -> String {
        let text = x.to_string();
        match self.numbers {
            Numbers::English => text,
            _ => text.replace('.', ","),
        }
    }

    /// A percentage: `21 %`, `5,2 %`.
    pub fn rate(&self, rate: Decimal) -> String {
        format!("{} %", self.number(rate))
    }

    /// A label with `{r}` replaced by the rate.
    pub fn with_rate(&self, label: &str, rate: Decimal) -> String {
        label.replace("{r}", &self.rate(rate))
    }

    pub fn date(&self, d: NaiveDate) -> String {
        let month = MONTHS[d.month0() as usize];
        match self.dates {
            Dates::Slash => d.format("%d/%m/%Y").to_string(),
            Dates::ShortMonth => format!("{}-{}-{}", d.day(), &month[..3], d.year()),
            Dates::Long => format!("{} de {month} de {}", d.day(), d.year()),
            Dates::Iso => d.format("%Y-%m-%d").to_string(),
            Dates::Dotted => d.format("%d.%m.%Y").to_string(),
        }
    }

    pub fn nif(&self, nif: &str) -> String {
        match self.nif {
            NifPrint::Plain => nif.to_string(),
            NifPrint::Hyphen if nif.as_bytes()[0].is_ascii_digit() => {
                format!("{}-{}", &nif[..8], &nif[8..])
            }
            NifPrint::Hyphen => format!("{}-{}", &nif[..1], &nif[1..]),
            NifPrint::EsPrefix => format!("ES{nif}"),
        }
    }
}
