//! A random Spanish invoice and its ground truth: parties with valid NIFs,
//! lines at one or several VAT rates, IRPF or equivalence surcharge, and the
//! totals computed per rate group, rounded half away from zero.

use chrono::NaiveDate;
use rust_decimal::Decimal;
use shared::tax::money::{percent_of, round2};
use shared::tax::nif::Nif;

use super::rng::Rng;

#[derive(Clone, Debug, PartialEq)]
pub struct Party {
    pub name: String,
    pub nif: String,
    /// A company (CIF) rather than a person (DNI or NIE).
    pub company: bool,
    pub street: String,
    pub city: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub description: String,
    pub quantity: Decimal,
    pub unit_price: Decimal,
    pub vat_rate: Decimal,
    pub amount: Decimal,
}

/// One VAT rate of the invoice with its base, quota and surcharge.
#[derive(Clone, Debug, PartialEq)]
pub struct RateGroup {
    pub rate: Decimal,
    pub base: Decimal,
    pub vat_amount: Decimal,
    pub surcharge_rate: Option<Decimal>,
    pub surcharge_amount: Decimal,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Invoice {
    pub issuer: Party,
    pub recipient: Party,
    pub number: String,
    pub date: NaiveDate,
    pub lines: Vec<Line>,
    /// Ascending by rate, highest last.
    pub groups: Vec<RateGroup>,
    pub base: Decimal,
    pub vat_amount: Decimal,
    pub surcharge_amount: Decimal,
    pub irpf_rate: Option<Decimal>,
    pub irpf_amount: Decimal,
    pub total: Decimal,
}

impl Invoice {
    /// The rate a single-figure reading reports: the one of the largest base.
    pub fn main_vat_rate(&self) -> Decimal {
        self.groups
            .iter()
            .max_by_key(|g| (g.base, g.rate))
            .map(|g| g.rate)
            .expect("an invoice has at least one rate")
    }
}

/// The identifier `body` completed with the control character the tax
/// engine accepts (digits tried first, as entities print them).
fn with_control(body: &str) -> String {
    "0123456789TRWAGMYFPDXBNJZSQVHLCKE"
        .chars()
        .map(|c| format!("{body}{c}"))
        .find(|nif| Nif::parse(nif).is_ok())
        .unwrap_or_else(|| panic!("no control character completes {body}"))
}

pub fn company_nif(rng: &mut Rng) -> String {
    let letter = rng.pick(&['A', 'B', 'B', 'B', 'E', 'G', 'J']);
    with_control(&format!("{letter}{:02}{}", rng.range(1, 99), rng.digits(5)))
}

pub fn person_nif(rng: &mut Rng) -> String {
    if rng.chance(25) {
        let prefix = rng.below(3);
        let digits = rng.digits(7);
        with_control(&format!("{}{digits}", ['X', 'Y', 'Z'][prefix]))
    } else {
        with_control(&format!("{:08}", rng.range(1_000_000, 99_999_999)))
    }
}

const ACTIVITIES: &[&str] = &[
    "Reformas",
    "Construcciones",
    "Distribuciones",
    "Talleres",
    "Consultoría",
    "Transportes",
    "Instalaciones Eléctricas",
    "Suministros Industriales",
    "Asesoría",
    "Gráficas",
    "Carpintería",
    "Frutas y Verduras",
    "Servicios Informáticos",
    "Climatización",
];
const PLACES: &[&str] = &[
    "Ibéricas",
    "del Levante",
    "Martínez",
    "Gómez e Hijos",
    "Norte",
    "Atlántico",
    "Sierra Nevada",
    "Castellanas",
    "Ruiz Hermanos",
    "La Mancha",
    "Peña",
    "Mediterráneo",
];
const FORMS: &[&str] = &[", S.L.", " S.L.", " SL", ", S.A.", " S.L.U.", " SA"];
const FIRST_NAMES: &[&str] = &[
    "María", "José", "Lucía", "Javier", "Carmen", "Antonio", "Laura", "Pablo", "Elena", "Sergio",
    "Nuria", "Andrés",
];
const SURNAMES: &[&str] = &[
    "García",
    "López",
    "Fernández",
    "Sánchez",
    "Romero",
    "Navarro",
    "Iglesias",
    "Ortega",
    "Castillo",
    "Muñoz",
    "Domínguez",
    "Vidal",
];
const STREETS: &[&str] = &[
    "Calle Mayor",
    "Avda. de la Constitución",
    "Calle Real",
    "Paseo de Gracia",
    "Calle San Vicente",
    "Plaza de España",
    "Calle Alcalá",
    "Ronda de Poniente",
];
const CITIES: &[&str] = &[
    "28013 Madrid",
    "08007 Barcelona",
    "46002 Valencia",
    "41001 Sevilla",
    "50001 Zaragoza",
    "29005 Málaga",
    "10003 Cáceres",
    "15003 A Coruña",
];

fn party(rng: &mut Rng, company: bool) -> Party {
    let name = if company {
        format!(
            "{} {}{}",
            rng.pick(ACTIVITIES),
            rng.pick(PLACES),
            rng.pick(FORMS)
        )
    } else {
        format!(
            "{} {} {}",
            rng.pick(FIRST_NAMES),
            rng.pick(SURNAMES),
            rng.pick(SURNAMES)
        )
    };
    let nif = if company {
        company_nif(rng)
    } else {
        person_nif(rng)
    };
    Party {
        name,
        nif,
        company,
        street: format!("{} {}", rng.pick(STREETS), rng.range(1, 120)),
        city: rng.pick(CITIES).to_string(),
    }
}

fn descriptions(rate: u32) -> &'static [&'static str] {
    match rate {
        21 => &[
            "Horas de consultoría",
            "Diseño de logotipo",
            "Mantenimiento mensual",
            "Reparación de fontanería",
            "Desarrollo web",
            "Material eléctrico",
            "Licencia de software",
            "Alquiler de maquinaria",
        ],
        10 => &[
            "Servicio de catering",
            "Transporte de viajeros",
            "Reforma de vivienda",
            "Menú del día",
        ],
        4 => &["Libros técnicos", "Pan y harinas", "Frutas y verduras"],
        _ => &["Formación reglada (exenta)", "Servicio médico exento"],
    }
}

/// The VAT rates the invoice's lines use.
fn rate_set(rng: &mut Rng) -> Vec<u32> {
    match rng.below(20) {
        0..=8 => vec![21],
        9 => vec![10],
        10 => vec![4],
        11..=13 => vec![21, 10],
        14 | 15 => vec![21, 4],
        16 => vec![21, 10, 4],
        _ => vec![21, 0],
    }
}

fn line(rng: &mut Rng, rate: u32) -> Line {
    let quantity = if rng.chance(25) {
        Decimal::new(rng.range(5, 200) as i64, 1)
    } else {
        Decimal::from(rng.range(1, 20))
    };
    let cents = if rng.chance(50) {
        rng.range(500, 20_000)
    } else {
        rng.range(2_000, 250_000)
    };
    let unit_price = Decimal::new(cents as i64, 2);
    Line {
        description: rng.pick(descriptions(rate)).to_string(),
        quantity,
        unit_price,
        vat_rate: Decimal::from(rate),
        amount: round2(quantity * unit_price),
    }
}

fn surcharge_rate(vat_rate: u32) -> Option<Decimal> {
    match vat_rate {
        21 => Some(Decimal::new(52, 1)),
        10 => Some(Decimal::new(14, 1)),
        4 => Some(Decimal::new(5, 1)),
        _ => None,
    }
}

fn date(rng: &mut Rng) -> NaiveDate {
    let first = NaiveDate::from_ymd_opt(2024, 1, 1).unwrap();
    let last = NaiveDate::from_ymd_opt(2026, 11, 20).unwrap();
    let days = (last - first).num_days() as u64;
    first + chrono::Days::new(rng.range(0, days))
}

fn number(rng: &mut Rng, year: i32) -> String {
    let sequence = rng.range(1, 2_400);
    match rng.below(3) {
        0 => format!("F{year}-{sequence:04}"),
        1 => format!("{year}/{sequence:04}"),
        _ => format!("{}-{sequence}", rng.pick(&['A', 'B', 'R'])),
    }
}

pub fn generate(rng: &mut Rng) -> Invoice {
    let rates = rate_set(rng);
    let issuer_company = rng.chance(55);
    let issuer = party(rng, issuer_company);
    let recipient_company = !issuer_company || rng.chance(70);
    let recipient = party(rng, recipient_company);
    let date = date(rng);
    let number = number(rng, chrono::Datelike::year(&date));
    let count = rng.range(rates.len() as u64, 8) as usize;
    let lines: Vec<Line> = (0..count)
        .map(|i| {
            let rate = if i < rates.len() {
                rates[i]
            } else {
                rng.pick(&rates)
            };
            line(rng, rate)
        })
        .collect();
    let irpf_rate = match (issuer_company, rng.below(10)) {
        (false, 0..=5) => Some(Decimal::from(15)),
        (false, 6 | 7) => Some(Decimal::from(7)),
        _ => None,
    };
    let surcharge = irpf_rate.is_none() && issuer_company && rng.chance(25);
    let mut sorted = rates.clone();
    sorted.sort_unstable();
    let groups: Vec<RateGroup> = sorted
        .iter()
        .map(|&r| {
            let rate = Decimal::from(r);
            let base: Decimal = lines
                .iter()
                .filter(|l| l.vat_rate == rate)
                .map(|l| l.amount)
                .sum();
            let surcharge_rate = surcharge.then(|| surcharge_rate(r)).flatten();
            RateGroup {
                rate,
                base,
                vat_amount: round2(percent_of(base, rate)),
                surcharge_rate,
                surcharge_amount: surcharge_rate
                    .map_or(Decimal::ZERO, |s| round2(percent_of(base, s))),
            }
        })
        .collect();
    let base: Decimal = groups.iter().map(|g| g.base).sum();
    let vat_amount: Decimal = groups.iter().map(|g| g.vat_amount).sum();
    let surcharge_amount: Decimal = groups.iter().map(|g| g.surcharge_amount).sum();
    let irpf_amount = irpf_rate.map_or(Decimal::ZERO, |r| round2(percent_of(base, r)));
    Invoice {
        issuer,
        recipient,
        number,
        date,
        lines,
        groups,
        base,
        vat_amount,
        surcharge_amount,
        irpf_rate,
        irpf_amount,
        total: base + vat_amount + surcharge_amount - irpf_amount,
    }
}
