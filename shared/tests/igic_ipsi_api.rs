//! IGIC and IPSI over HTTP, in-process on the embedded engine: an issuer in
//! the Canary Islands invoices with IGIC, one in Melilla with IPSI — their
//! rates, their VERI*FACTU `Impuesto`, the quarter summary that keeps them
//! out of Modelo 303, the forms their calendar announces and the VAT tool.

use crate::support;

use axum::Router;
use axum::http::StatusCode;
use serde_json::{Value, json};

use shared::app::{accounts, fiscal_deadlines};
use shared::domain::account::{Issuer, Plan};
use shared::tax::calendar::Form;
use support::{Harness, Reply, get, post_json, send};

async fn harness_in(postal_code: &str, city: &str) -> Harness {
    let h = support::start(support::relaxed(), Plan::Pro, Router::new()).await;
    let issuer = Issuer {
        postal_code: Some(postal_code.into()),
        city: Some(city.into()),
        province: Some(city.into()),
        ..support::madrid_issuer()
    };
    accounts::set_issuer(&h.ports, &h.account, &issuer)
        .await
        .unwrap();
    h
}

fn body(rates: &[f64]) -> Value {
    let lines: Vec<Value> = rates
        .iter()
        .map(
            |r| json!({"description": "Material", "quantity": 1, "unit_price": 100, "vat_rate": r}),
        )
        .collect();
    json!({"customer": {"name": "Taller Ana SL", "tax_id": "B64717838", "address": "Calle Real 4"}, "lines": lines})
}

async fn issue(h: &Harness, key: &str, body: Value) -> Reply {
    let idem = shared::ids::random_token(8);
    send(
        &h.app,
        post_json("/api/v1/invoices", key, Some(&idem), &body.to_string()),
    )
    .await
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[tokio::test]
async fn an_issuer_in_the_canary_islands_invoices_with_igic() {
    let h = harness_in("35001", "Las Palmas de Gran Canaria").await;
    let r = issue(&h, &h.live, body(&[7.0, 9.5])).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    let inv = &r.json;
    assert_eq!(inv["tax"], "igic");
    assert_eq!((num(&inv["vat_amount"]), num(&inv["total"])), (16.5, 216.5));
    let lines = inv["verifactu"]["record"]["Desglose"]["DetalleDesglose"].to_string();
    assert!(
        lines.contains("\"Impuesto\":\"03\"") && !lines.contains("\"Impuesto\":\"01\""),
        "{lines}"
    );

    let vat = issue(&h, &h.live, body(&[21.0])).await;
    assert_eq!(
        (vat.status, vat.param()),
        (StatusCode::BAD_REQUEST, "lines[0].vat_rate")
    );
    assert!(
        vat.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("IGIC"),
        "{}",
        vat.json
    );
    let mut surcharged = body(&[7.0]);
    surcharged["equivalence_surcharge"] = json!(true);
    let re = issue(&h, &h.live, surcharged).await;
    assert_eq!(
        (re.code(), re.param()),
        ("surcharge_not_applicable", "equivalence_surcharge")
    );

    let q = send(
        &h.app,
        get("/api/v1/tax/quarter?year=2026&quarter=4", Some(&h.live)),
    )
    .await
    .json;
    assert_eq!(q["vat"], json!([]), "{q}");
    let igic: Vec<(f64, f64)> = q["igic"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (num(&l["rate"]), num(&l["amount"])))
        .collect();
    assert_eq!(igic, [(9.5, 9.5), (7.0, 7.0)]);
    let box27 = q["model_303"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["box"] == "27")
        .unwrap()
        .clone();
    assert_eq!(num(&box27["value"]), 0.0, "IGIC never reaches Modelo 303");
    assert!(q["notes"].to_string().contains("420"), "{q}");

    let account = accounts::get(&h.ports, &h.account).await.unwrap();
    let forms = fiscal_deadlines::forms_for(&account);
    assert!(
        forms.contains(&Form::M420) && !forms.contains(&Form::M303) && !forms.contains(&Form::M390)
    );
}

#[tokio::test]
async fn an_issuer_in_melilla_invoices_with_ipsi() {
    let h = harness_in("52001", "Melilla").await;
    let r = issue(&h, &h.live, body(&[4.0, 0.5])).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    assert_eq!(r.json["tax"], "ipsi");
    assert_eq!(num(&r.json["vat_amount"]), 4.5);
    let lines = r.json["verifactu"]["record"]["Desglose"].to_string();
    assert!(lines.contains("\"Impuesto\":\"02\""), "{lines}");
    let rectified = send(
        &h.app,
        post_json(
            &format!("/api/v1/invoices/{}/rectify", r.json["id"]),
            &h.live,
            Some("r1"),
            &json!({"reason_code": "R1", "method": "differences", "description": "Devolución"})
                .to_string(),
        ),
    )
    .await;
    assert_eq!(
        (
            rectified.status,
            rectified.json["tax"].clone(),
            num(&rectified.json["vat_amount"])
        ),
        (StatusCode::CREATED, json!("ipsi"), -4.5),
        "{}",
        rectified.json
    );
    let q = send(
        &h.app,
        get("/api/v1/tax/quarter?year=2026&quarter=4", Some(&h.live)),
    )
    .await
    .json;
    assert_eq!(q["ipsi"].as_array().unwrap().len(), 2, "{q}");
    assert_eq!(q["rectification_count"], 1);
    let account = accounts::get(&h.ports, &h.account).await.unwrap();
    let forms = fiscal_deadlines::forms_for(&account);
    assert!(!forms.contains(&Form::M303) && forms.contains(&Form::M130));
}

#[tokio::test]
async fn the_vat_tool_takes_the_tax() {
    let h = harness_in("28013", "Madrid").await;
    let post = |body: Value| {
        let app = h.app.clone();
        let key = h.live.clone();
        async move {
            send(
                &app,
                post_json("/api/v1/tax/vat", &key, None, &body.to_string()),
            )
            .await
        }
    };
    let igic =
        post(json!({"amount": 107, "vat_rate": 7, "includes_vat": true, "tax": "igic"})).await;
    assert_eq!(
        (
            igic.status,
            num(&igic.json["base"]),
            igic.json["tax"].clone()
        ),
        (StatusCode::OK, 100.0, json!("igic"))
    );
    let wrong = post(json!({"amount": 100, "vat_rate": 21, "tax": "igic"})).await;
    assert_eq!(wrong.param(), "vat_rate");
    let re =
        post(json!({"amount": 100, "vat_rate": 7, "tax": "igic", "equivalence_surcharge": true}))
            .await;
    assert_eq!(re.param(), "equivalence_surcharge");
    let ipsi = post(json!({"amount": 100, "vat_rate": 0.5, "tax": "ipsi"})).await;
    assert_eq!(num(&ipsi.json["vat_amount"]), 0.5);
    let madrid_issuer_is_vat = issue(&h, &h.live, body(&[7.0])).await;
    assert_eq!(
        madrid_issuer_is_vat.status,
        StatusCode::BAD_REQUEST,
        "7 % is not a VAT rate"
    );
}
