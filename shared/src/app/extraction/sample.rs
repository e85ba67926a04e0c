//! The sample invoice test keys get: the worked example of the reference
//! (a renovation company's invoice with 21 % VAT and 15 % IRPF), dated a week
//! before today so that its checks pass.

use chrono::{Days, NaiveDate};
use rust_decimal::dec;

use crate::extraction::{Field, Fields, VatLine};

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
    }
}
