//! An oracle for the tax returns, independent of the code under test: a
//! quarter worked by hand as a gestoría would (ten issued invoices, three
//! rectifications, eleven received invoices), and every exemption or
//! qualification code checked against the box the AEAT's form puts it in.
//! The expected figures are written from the law and the form, never read
//! from the service's output:
//! - Modelo 303 boxes: the 2026 form and its instructions (59: art. 25
//!   supplies and intra-EU services; 60: exempt under arts. 21–24; 120: not
//!   subject by the place-of-supply rules; 122: supplies with reverse charge;
//!   10/11, 36/37: intra-EU acquisitions of goods *and services*; 12/13 other
//!   reverse charge, incl. services from outside the EU), cross-checked with
//!   OCA `l10n_es_aeat_mod303/data/2024-10/l10n.es.aeat.map.tax.line.csv`
//!   (the 2026 export keeps that map): `s_iva0_g_i`, `s_iva0_sp_i` → 59;
//!   `s_iva0_g_e`, `s_iva0_e` → 60; `s_iva_e`, `s_iva_ns`, `s_iva_ns_b` →
//!   120; `s_iva0_isp` → 122; `p_iva*_ic_sc` → 10/11 and 36/37;
//!   `p_iva*_sp_ex` → 12/13 and 28/29.
//! - Accrual: LIVA art. 75.Uno (output VAT at the operation, not the
//!   invoice), art. 76 and 75.Uno.8º (intra-EU acquisitions: the 15th of the
//!   month after the transport starts, or the supplier's invoice if earlier),
//!   art. 89.Cinco (a rectification is declared when it is issued), art.
//!   99.Cuatro (domestic input VAT when the invoice is received).
//! - IGIC is not Modelo 303's (Ley 20/1991; the Canary Modelo 420).

use crate::support;

use axum::Router;
use chrono::Datelike;
use serde_json::{Value, json};

use shared::domain::account::Plan;
use support::Harness;
use support::boxes::post_ok as post;

/// A box's value; a box the return leaves out is 0.
fn value(boxes: &Value, number: &str) -> f64 {
    boxes
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["box"] == number)
        .map(|b| b["value"].as_f64().unwrap())
        .sum()
}

fn assert_boxes(boxes: &Value, expected: &[(&str, f64)]) {
    for (number, want) in expected {
        let got = value(boxes, number);
        assert!(
            (got - want).abs() < 0.001,
            "box {number}: {got}, by hand {want}\n{boxes}"
        );
    }
}

fn no_box_twice(boxes: &Value) {
    let mut numbers: Vec<&str> = boxes
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["box"].as_str().unwrap())
        .collect();
    numbers.sort_unstable();
    let before = numbers.len();
    numbers.dedup();
    assert_eq!(before, numbers.len(), "a box appears twice: {boxes}");
}

async fn model_303(h: &Harness, year: i32, quarter: u32) -> Value {
    let r = post(
        h,
        "/api/v1/tax/model-303",
        json!({"year": year, "quarter": quarter}),
    )
    .await;
    no_box_twice(&r.json["boxes"]);
    r.json["boxes"].clone()
}

async fn model_130(h: &Harness, year: i32, quarter: u32) -> Value {
    post(
        h,
        "/api/v1/tax/model-130",
        json!({"year": year, "quarter": quarter}),
    )
    .await
    .json["boxes"]
        .clone()
}

fn party(name: &str, tax_id: &str, country: &str, city: &str, postal_code: &str) -> Value {
    json!({"name": name, "tax_id": tax_id, "country": country, "address": "Calle 1",
        "city": city, "postal_code": postal_code})
}

fn domestic() -> Value {
    party("Taller Ana SL", "B64717838", "ES", "Cáceres", "10003")
}

fn line(description: &str, base: f64, rate: f64, exemption: Option<&str>) -> Value {
    let mut l = json!({"description": description, "quantity": 1, "unit_price": base,
        "vat_rate": rate});
    if let Some(code) = exemption {
        l["exemption"] = json!(code);
    }
    l
}

/// The ten invoices of the third quarter of 2026, in issue order.
async fn issue_the_quarter(h: &Harness) {
    let invoices = [
        // 1. Consulting, 21 %, IRPF 15 %.
        json!({"customer": domestic(), "issue_date": "2026-07-03", "irpf_rate": 15,
            "lines": [line("Consultoría", 2000.0, 21.0, None)]}),
        // 2. Two reduced rates.
        json!({"customer": domestic(), "issue_date": "2026-07-10",
            "lines": [line("Servicio 10 %", 500.0, 10.0, None), line("Libros", 250.0, 4.0, None)]}),
        // 3. A retailer under the equivalence surcharge (5.2 % with 21 %, 1.4 % with 10 %).
        json!({"customer": party("Comercial Pérez", "11111111H", "ES", "Toledo", "45001"),
            "issue_date": "2026-07-15", "equivalence_surcharge": true,
            "lines": [line("Género", 1000.0, 21.0, None), line("Género 10 %", 200.0, 10.0, None)]}),
        // 4. Intra-EU supply of goods (art. 25), transport from 18-07.
        json!({"customer": party("Dupont SARL", "FR40303265045", "FR", "Paris", "75001"),
            "issue_date": "2026-07-20", "operation_date": "2026-07-18",
            "lines": [line("Máquina", 3000.0, 0.0, Some("E5"))]}),
        // 5. Export (art. 21).
        json!({"customer": party("Acme Inc", "US-12-3456789", "US", "Boston", "02108"),
            "issue_date": "2026-08-04",
            "lines": [line("Exportación", 1500.0, 0.0, Some("E2"))]}),
        // 6. A service to an EU business: not subject in Spain (art. 69.Uno.1º), Modelo 349.
        json!({"customer": party("Müller GmbH", "DE123456789", "DE", "Berlin", "10115"),
            "issue_date": "2026-08-12",
            "lines": [line("Desarrollo", 2400.0, 0.0, Some("N2"))]}),
        // 7. A service to a business outside the EU: not subject by the place-of-supply rules.
        json!({"customer": party("Zürich AG", "CHE-123.456.788", "CH", "Zürich", "8001"),
            "issue_date": "2026-08-25",
            "lines": [line("Diseño", 800.0, 0.0, Some("N2"))]}),
        // 8. Construction subcontract: reverse charge (art. 84.Uno.2º.f).
        json!({"customer": party("Construcciones Norte SA", "A28017895", "ES", "Madrid", "28001"),
            "issue_date": "2026-09-02",
            "lines": [line("Obra", 5000.0, 0.0, Some("S2"))]}),
        // 9. Exempt training (art. 20): in no box of Modelo 303.
        json!({"customer": domestic(), "issue_date": "2026-09-10",
            "lines": [line("Formación reglada", 600.0, 0.0, Some("E1"))]}),
        // 10. Issued in October for an operation of 28 September: a Q3 operation (art. 75).
        json!({"customer": domestic(), "issue_date": "2026-10-12", "operation_date": "2026-09-28",
            "lines": [line("Proyecto septiembre", 1200.0, 21.0, None)]}),
    ];
    for body in invoices {
        post(h, "/api/v1/invoices", body).await;
    }
}

/// Three rectifications by differences, issued today.
async fn rectify(h: &Harness) {
    for (id, body) in [
        (
            1,
            json!({"reason_code": "R1", "method": "differences", "description": "Descuento",
            "lines": [{"description": "Descuento", "quantity": -1, "unit_price": 500, "vat_rate": 21}]}),
        ),
        (
            3,
            json!({"reason_code": "R1", "method": "differences", "description": "Devolución",
            "lines": [{"description": "Devolución", "quantity": -1, "unit_price": 200, "vat_rate": 21}]}),
        ),
        (
            5,
            json!({"reason_code": "R1", "method": "differences", "description": "Rebaja",
            "lines": [{"description": "Rebaja", "quantity": -1, "unit_price": 300, "vat_rate": 0,
                "exemption": "E2"}]}),
        ),
    ] {
        post(h, &format!("/api/v1/invoices/{id}/rectify"), body).await;
    }
}

fn expense(supplier: &str, nif: &str, number: &str, date: &str, rest: Value) -> Value {
    let mut body = json!({"supplier_name": supplier, "supplier_tax_id": nif,
        "number": number, "issue_date": date, "received_date": date});
    for (k, v) in rest.as_object().unwrap() {
        body[k] = v.clone();
    }
    body
}

/// The eleven received invoices of the quarter.
async fn receive_the_quarter(h: &Harness) {
    for body in [
        expense(
            "Gestoría López SL",
            "B12345674",
            "G-1",
            "2026-07-05",
            json!({"category": "professional_services", "irpf_rate": 15,
                "lines": [{"rate": 21, "base": 400}]}),
        ),
        expense(
            "Eléctrica Sur SA",
            "A28017895",
            "E-7",
            "2026-07-31",
            json!({"category": "supplies", "lines": [{"rate": 10, "base": 150}]}),
        ),
        expense(
            "Tienda Informática SL",
            "B12345674",
            "L-9",
            "2026-08-01",
            json!({"category": "equipment", "capital_good": true,
                "lines": [{"rate": 21, "base": 2000}]}),
        ),
        expense(
            "Aduana DUA",
            "B64717838",
            "DUA-26-1",
            "2026-08-03",
            json!({"category": "goods", "treatment": "import",
                "lines": [{"rate": 21, "base": 1000}]}),
        ),
        // Goods from France, transport from 18-09, invoiced 20-09, received
        // 05-10: accrued 20-09 (arts. 76, 75.Uno.8º), so in Q3 on both sides.
        json!({"supplier_name": "Fournisseur SA", "supplier_tax_id": "FR52422961982",
            "supplier_country": "FR", "number": "FA-88", "issue_date": "2026-09-20",
            "operation_date": "2026-09-18", "received_date": "2026-10-05",
            "category": "goods", "treatment": "intra_eu_goods",
            "lines": [{"rate": 21, "base": 800}]}),
        expense(
            "Cloud Tools Ltd",
            "NL820098395B01",
            "CT-7",
            "2026-08-10",
            json!({"supplier_country": "NL", "category": "software",
                "treatment": "intra_eu_services", "lines": [{"rate": 21, "base": 300}]}),
        ),
        expense(
            "Hosting Inc",
            "US-98-7654321",
            "H-2026-8",
            "2026-08-20",
            json!({"supplier_country": "US", "category": "software",
                "treatment": "non_eu_services", "lines": [{"rate": 21, "base": 100}]}),
        ),
        expense(
            "Reformas Centro SL",
            "B64717838",
            "RC-3",
            "2026-09-01",
            json!({"category": "other", "treatment": "reverse_charge",
                "lines": [{"rate": 21, "base": 1000}]}),
        ),
        expense(
            "Gasolinera Sol SL",
            "B64717838",
            "T-1",
            "2026-09-05",
            json!({"category": "vehicle", "lines": [{"rate": 21, "base": 100}]}),
        ),
        expense(
            "Suministros Canarios SL",
            "B35000009",
            "C-12",
            "2026-09-08",
            json!({"category": "goods", "tax": "igic", "lines": [{"rate": 7, "base": 200}]}),
        ),
        expense(
            "Gestoría López SL",
            "B12345674",
            "G-1-R",
            "2026-09-12",
            json!({"category": "professional_services", "lines": [{"rate": 21, "base": -50}]}),
        ),
    ] {
        post(h, "/api/v1/expenses", body).await;
    }
}

#[tokio::test]
async fn a_quarter_worked_by_hand_fills_modelo_303_as_the_form_says() {
    let h = support::start(support::relaxed(), Plan::Pro, Router::new()).await;
    h.set_issuer().await;
    issue_the_quarter(&h).await;
    receive_the_quarter(&h).await;

    let q3 = model_303(&h, 2026, 3).await;
    assert_boxes(
        &q3,
        &[
            // 21 %: invoices 1, 3 and 10 (10 is a September operation).
            ("07", 4200.0),
            ("08", 21.0),
            ("09", 882.0),
            // 10 %: invoices 2 and 3.
            ("04", 700.0),
            ("06", 70.0),
            // 4 %: invoice 2.
            ("01", 250.0),
            ("03", 10.0),
            // Surcharge: 1,000 × 5.2 % and 200 × 1.4 %.
            ("22", 1000.0),
            ("24", 52.0),
            ("19", 200.0),
            ("21", 2.8),
            // Nothing rectified in Q3.
            ("14", 0.0),
            ("15", 0.0),
            ("25", 0.0),
            ("26", 0.0),
            // Self-assessed: intra-EU goods 800 + services 300 at 21 %.
            ("10", 1100.0),
            ("11", 231.0),
            // Other reverse charge: the US service 100 + the Spanish works 1,000.
            ("12", 1100.0),
            ("13", 231.0),
            // 27 = 882 + 70 + 10 + 52 + 2.80 + 231 + 231.
            ("27", 1478.8),
            // Deducted, domestic current: fees 400/84, electricity 150/15,
            // the US service 100/21, the works 1,000/210, fuel at 50 %
            // (LIVA 95.Tres) 50/10.50; nothing of the IGIC purchase.
            ("28", 1700.0),
            ("29", 340.5),
            ("30", 2000.0),
            ("31", 420.0),
            ("32", 1000.0),
            ("33", 210.0),
            // Intra-EU acquisitions of goods and services, current: 1,100 / 231.
            ("36", 1100.0),
            ("37", 231.0),
            ("38", 0.0),
            ("39", 0.0),
            // The supplier's credit note.
            ("40", -50.0),
            ("41", -10.5),
            // 45 = 340.50 + 420 + 210 + 231 − 10.50.
            ("45", 1191.0),
            // 46 = 1,478.80 − 1,191.
            ("46", 287.8),
            // Informative: 59 = 3,000 (art. 25) + 2,400 (EU service);
            // 60 = 1,500 (export); 120 = 800; 122 = 5,000. The exempt
            // training (art. 20) is in none; no 0 % taxed sales.
            ("59", 5400.0),
            ("60", 1500.0),
            ("120", 800.0),
            ("122", 5000.0),
            ("150", 0.0),
            ("152", 0.0),
        ],
    );

    let m130 = model_130(&h, 2026, 3).await;
    // Income of the year to Q3: every base accrued, exempt and abroad included:
    // 2,000 + 750 + 1,200 + 3,000 + 1,500 + 2,400 + 800 + 5,000 + 600 + 1,200.
    assert_boxes(&m130, &[("01", 18450.0), ("06", 300.0)]);

    let q4 = model_303(&h, 2026, 4).await;
    assert_boxes(
        &q4,
        &[
            ("07", 0.0),
            ("09", 0.0),
            ("10", 0.0),
            ("11", 0.0),
            ("36", 0.0),
            ("37", 0.0),
        ],
    );

    rectify(&h).await;
    let today = chrono::Utc::now().date_naive();
    let quarter = (today.month0() / 3) + 1;
    let now = model_303(&h, today.year(), quarter).await;
    assert_boxes(
        &now,
        &[
            // Rectifications are declared when issued (LIVA art. 89.Cinco):
            // −500 and −200 at 21 %; −200 of surcharge base at 5.2 %.
            ("14", -700.0),
            ("15", -147.0),
            ("25", -200.0),
            ("26", -10.4),
            // The export credited by 300 lowers box 60, not box 14.
            ("60", -300.0),
            ("07", 0.0),
            ("09", 0.0),
        ],
    );
    let q3_again = model_303(&h, 2026, 3).await;
    assert_eq!(
        q3, q3_again,
        "a rectification issued later leaves Q3 as filed"
    );
}

/// One 100 € line per code, one invoice each, in its own quarter: the box
/// the 2026 form (and OCA's map) puts it in, and no other informative box.
#[tokio::test]
async fn every_exemption_and_qualification_code_lands_in_its_box() {
    let eu = || party("Müller GmbH", "DE123456789", "DE", "Berlin", "10115");
    let outside = || party("Acme Inc", "US-12-3456789", "US", "Boston", "02108");
    let cases: [(&str, Value, Option<&str>); 10] = [
        ("E1", domestic(), None),
        ("E2", outside(), Some("60")),
        ("E3", outside(), Some("60")),
        ("E4", domestic(), Some("60")),
        (
            "E5",
            party("Dupont SARL", "FR40303265045", "FR", "Paris", "75001"),
            Some("59"),
        ),
        ("E6", domestic(), None),
        ("N1", domestic(), None),
        ("N2", eu(), Some("59")),
        ("N2", outside(), Some("120")),
        (
            "S2",
            party(
                "Construcciones Norte SA",
                "A28017895",
                "ES",
                "Madrid",
                "28001",
            ),
            Some("122"),
        ),
    ];
    let informative = ["59", "60", "120", "122", "150", "14", "07"];
    for (code, customer, expected) in cases {
        let h = support::start(support::relaxed(), Plan::Pro, Router::new()).await;
        h.set_issuer().await;
        post(
            &h,
            "/api/v1/invoices",
            json!({"customer": customer, "issue_date": "2026-08-03",
                "lines": [line("Operación", 100.0, 0.0, Some(code))]}),
        )
        .await;
        let boxes = model_303(&h, 2026, 3).await;
        for number in informative {
            let want = if Some(number) == expected { 100.0 } else { 0.0 };
            assert!(
                (value(&boxes, number) - want).abs() < 0.001,
                "{code} to {customer}: box {number} should be {want}\n{boxes}"
            );
        }
        assert_eq!(value(&boxes, "27"), 0.0, "{code}: no output VAT");
    }
}
