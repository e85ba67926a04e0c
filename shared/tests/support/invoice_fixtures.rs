//! The invoices every document format is checked against, issued through the
//! real pipeline (so they are exactly what the API stores): one rate; several
//! rates; equivalence surcharge; IRPF; discounts; an exempt line; reverse
//! charge; a simplified F2; rectifying by substitution and by differences; a
//! cancelled invoice; a test invoice; a 60-line invoice; a ticket with
//! VAT-inclusive prices and the full invoice (F3) that replaces it; an
//! invoice with IGIC (an issuer in Las Palmas) and one with IPSI (Melilla).

use axum::Router;
use axum::http::StatusCode;
use serde_json::{Value, json};

use shared::app::accounts;
use shared::domain::account::{Issuer, Plan};
use shared::invoice::model::Invoice;
use shared::tax::nif::Nif;

use super::{get, post_json, send};

fn customer() -> Value {
    json!({"name": "Taller Ana SL", "tax_id": "B64717838", "address": "Calle Real 4", "postal_code": "10003",
           "city": "Cáceres", "email": "facturas@tallerana.es"})
}

fn line(description: &str, quantity: f64, price: f64, rate: f64) -> Value {
    json!({"description": description, "quantity": quantity, "unit_price": price, "vat_rate": rate})
}

/// Every fixture invoice by name, in a fixed order.
pub async fn all() -> Vec<(&'static str, Invoice)> {
    let h = super::start(super::relaxed(), Plan::Pro, Router::new()).await;
    let issuer = Issuer {
        name: Some("Ana García Pérez".into()),
        nif: Some(Nif::parse("12345678Z").unwrap()),
        address: Some("Calle Mayor 1, 2º B".into()),
        postal_code: Some("28013".into()),
        city: Some("Madrid".into()),
        province: Some("Madrid".into()),
        country: Some("ES".into()),
    };
    accounts::set_issuer(&h.ports, &h.account, &issuer)
        .await
        .unwrap();
    let mut n = 0;
    let mut call = |key: String, path: String, body: Value| {
        n += 1;
        let app = h.app.clone();
        async move {
            let r = send(
                &app,
                post_json(
                    &path,
                    &key,
                    Some(&format!("fixture-{n}")),
                    &body.to_string(),
                ),
            )
            .await;
            assert!(
                r.status == StatusCode::CREATED || r.status == StatusCode::OK,
                "{path}: {}",
                r.json
            );
            serde_json::from_value::<Invoice>(r.json).unwrap()
        }
    };
    let live = h.live.clone();
    let issue = "/api/v1/invoices".to_string();
    let mut out = Vec::new();
    out.push((
        "one_rate",
        call(
            live.clone(),
            issue.clone(),
            json!({"customer": customer(),
        "lines": [line("Diseño de logotipo", 1.0, 1000.0, 21.0)], "due_date": "2026-12-21",
        "payment": {"method": "transfer", "iban": "ES9121000418450200051332"}}),
        )
        .await,
    ));
    out.push(("several_rates", call(live.clone(), issue.clone(), json!({"customer": customer(), "lines": [
        line("Servicio de mantenimiento", 2.0, 150.0, 21.0), line("Menú de trabajo", 3.0, 12.5, 10.0),
        line("Libro técnico", 1.0, 30.0, 4.0)]})).await));
    out.push(("surcharge", call(live.clone(), issue.clone(), json!({"customer": customer(), "equivalence_surcharge": true,
        "lines": [line("Cajas de azulejo", 10.0, 25.0, 21.0), line("Bolsas de pienso", 4.0, 12.5, 10.0)]})).await));
    out.push((
        "irpf",
        call(
            live.clone(),
            issue.clone(),
            json!({"customer": customer(), "irpf_rate": 15,
        "lines": [line("Asesoría fiscal – 3er trimestre", 1.0, 1234.56, 21.0)]}),
        )
        .await,
    ));
    out.push(("discounts", call(live.clone(), issue.clone(), json!({"customer": customer(), "lines": [
        {"description": "Piezas de recambio", "quantity": 3, "unit_price": 19.99, "vat_rate": 21, "discount_percent": 10},
        {"description": "Montaje", "quantity": 1.5, "unit_price": 40, "vat_rate": 21, "discount_percent": 5}]})).await));
    out.push(("exempt", call(live.clone(), issue.clone(), json!({"customer": customer(), "lines": [
        line("Consultoría", 1.0, 200.0, 21.0),
        {"description": "Curso de formación reglada", "quantity": 1, "unit_price": 300, "vat_rate": 0, "exemption": "E1"}]})).await));
    out.push(("reverse_charge", call(live.clone(), issue.clone(), json!({"customer": customer(), "lines": [
        {"description": "Ejecución de obra (inversión del sujeto pasivo)", "quantity": 1, "unit_price": 5000, "vat_rate": 0, "exemption": "S2"}]})).await));
    out.push((
        "simplified",
        call(
            live.clone(),
            issue.clone(),
            json!({"lines": [line("Corte de pelo", 1.0, 18.0, 21.0),
        line("Champú ñandú", 2.0, 6.5, 21.0)]}),
        )
        .await,
    ));
    let original = call(
        live.clone(),
        issue.clone(),
        json!({"customer": customer(), "irpf_rate": 7,
        "lines": [line("Traducción jurada", 10.0, 30.0, 21.0)]}),
    )
    .await;
    let original_path = format!("/api/v1/invoices/{}/rectify", original.id);
    out.push(("rectified_original", original));
    out.push((
        "rectifying_substitution",
        call(
            live.clone(),
            original_path.clone(),
            json!({"reason_code": "R1",
        "method": "substitution", "description": "Precio unitario corregido",
        "lines": [line("Traducción jurada", 10.0, 27.0, 21.0)]}),
        )
        .await,
    ));
    out.push((
        "rectifying_differences",
        call(
            live.clone(),
            original_path,
            json!({"reason_code": "R1",
        "method": "differences", "description": "Devolución de 2 unidades",
        "lines": [line("Traducción jurada (devolución)", -2.0, 27.0, 21.0)]}),
        )
        .await,
    ));
    let mistaken = call(
        live.clone(),
        issue.clone(),
        json!({"customer": customer(), "lines": [line("Factura duplicada", 1.0, 50.0, 21.0)]}),
    )
    .await;
    out.push((
        "cancelled",
        call(
            live.clone(),
            format!("/api/v1/invoices/{}/cancel", mistaken.id),
            json!({"reason": "Duplicada"}),
        )
        .await,
    ));
    out.push(("test_mode", call(h.test.clone(), issue.clone(), json!({"customer": customer(), "lines": [line("Prueba de integración", 1.0, 99.0, 21.0)]})).await));
    let lines: Vec<Value> = (1..=60)
        .map(|i| {
            line(
                &format!("Artículo nº {i:02} – ref. ÁÉÍÓÚ-{i}"),
                f64::from(i % 5 + 1),
                3.25 + f64::from(i),
                if i % 3 == 0 { 10.0 } else { 21.0 },
            )
        })
        .collect();
    out.push((
        "sixty_lines",
        call(
            live.clone(),
            issue.clone(),
            json!({"customer": customer(), "lines": lines}),
        )
        .await,
    ));
    let instalments = call(
        live.clone(),
        issue.clone(),
        json!({"customer": customer(), "lines": [line("Desarrollo web", 1.0, 3000.0, 21.0)],
        "due_dates": [{"date": "2026-12-21", "amount": 1210}, {"date": "2027-01-21", "amount": 1210},
            {"date": "2027-02-22", "amount": 1210}],
        "payment": {"method": "direct_debit", "iban": "ES9121000418450200051332"}}),
    )
    .await;
    out.push((
        "instalments",
        call(
            live.clone(),
            format!("/api/v1/invoices/{}/payments", instalments.id),
            json!({"amount": 1210, "method": "direct_debit", "reference": "Recibo 1/3"}),
        )
        .await,
    ));
    let ticket = call(
        live.clone(),
        issue.clone(),
        json!({"prices_include_vat": true, "lines": [line("Café con leche", 3.0, 1.6, 10.0),
            line("Tostada", 2.0, 2.35, 10.0), line("Agua con gas", 1.0, 1.95, 21.0)]}),
    )
    .await;
    out.push(("vat_included", ticket.clone()));
    out.push((
        "replacing_tickets",
        call(
            live.clone(),
            issue.clone(),
            json!({"customer": customer(), "replaces": [ticket.id]}),
        )
        .await,
    ));
    for (name, postal_code, city, rates) in [
        ("igic", "35001", "Las Palmas de Gran Canaria", [7.0, 3.0]),
        ("ipsi", "52001", "Melilla", [4.0, 0.5]),
    ] {
        let account = accounts::create(&h.ports, name, Plan::Pro, None)
            .await
            .unwrap();
        let issuer = Issuer {
            postal_code: Some(postal_code.into()),
            city: Some(city.into()),
            province: Some(city.into()),
            name: Some(format!("Comercial {city} SL")),
            nif: Some(
                Nif::parse(if name == "igic" {
                    "B35000009"
                } else {
                    "B52000007"
                })
                .unwrap(),
            ),
            ..issuer.clone()
        };
        accounts::set_issuer(&h.ports, &account.id, &issuer)
            .await
            .unwrap();
        let (_, key) =
            shared::app::keys::create(&h.ports, &account.id, shared::domain::account::Mode::Live)
                .await
                .unwrap();
        out.push((
            name,
            call(
                key.reveal(),
                issue.clone(),
                json!({"customer": customer(), "lines": [line("Material de oficina", 2.0, 40.0, rates[0]),
                    line("Libros", 1.0, 25.0, rates[1])]}),
            )
            .await,
        ));
    }
    let read = send(&h.app, get("/api/v1/invoices/1", Some(&h.live))).await;
    assert_eq!(read.status, StatusCode::OK);
    out
}
