//! The sample invoice test keys get: the worked example of the reference
//! (a renovation company's invoice with 21 % VAT and 15 % IRPF), dated a week
//! before today so that its checks pass.

use chrono::{Days, NaiveDate};
use rust_decimal::{Decimal, dec};

use crate::extraction::{Field, Fields, ItemLine, VatLine};

pub fn fields(today: NaiveDate) -> Fields {
    let date = today.checked_sub_days(Days::new(7)).unwrap_or(today);
    Fields {
        issuer_name: Some(Field::exact("Reformas Ibéricas Martínez, S.L.".into())),
        issuer_nif: Some(Field::exact("B12345674".into())),
        recipient_name: Some(Field::exact("Ana García Pérez".into())),
        recipient_nif: Some(Field::exact("12345678Z".into())),
        invoice_number: Some(Field::exact("2026/0147".into())),
        invoice_date: Some(Field::exact(date)),
        base: Some(Field::exact(dec!(1546.50))),
        vat_amount: Some(Field::exact(dec!(324.77))),
        vat_breakdown: vec![VatLine {
            rate: dec!(21),
            base: dec!(1546.50),
            vat_amount: dec!(324.77),
            surcharge_rate: None,
            surcharge_amount: None,
        }],
        irpf_rate: Some(Field::exact(dec!(15))),
        irpf_amount: Some(Field::exact(dec!(231.98))),
        total: Some(Field::exact(dec!(1639.29))),
        currency: Some("EUR".into()),
        notes: Vec::new(),
        indirect_tax: None,
        lines: vec![
            item(
                "Azulejos porcelánicos 60x60",
                dec!(35),
                dec!(9.90),
                dec!(346.50),
            ),
            item(
                "Mano de obra alicatado baño",
                dec!(24),
                dec!(50),
                dec!(1200),
            ),
        ],
        due_date: Some(Field::exact(date + Days::new(30))),
        iban: Some(Field::exact("ES9121000418450200051332".into())),
    }
}

fn item(description: &str, quantity: Decimal, unit_price: Decimal, amount: Decimal) -> ItemLine {
    ItemLine {
        description: description.into(),
        quantity: Some(quantity),
        unit_price: Some(unit_price),
        amount: Some(amount),
        vat_rate: Some(dec!(21)),
        confidence: 1.0,
    }
}
