//! Uploads end to end on `svc serve`: a file PUT to the URL the server
//! signs, with no API key, then read by id: an invoice PDF extracted at
//! once, and a sheet over the synchronous budget (> 6 MiB) analysed by a
//! job. And the server's refusals of a PUT its URL does not allow.

use crate::support;

use reqwest::Client;
use serde_json::{Value, json};
use support::{Svc, printed_value};

struct Api {
    client: Client,
    base: String,
    key: String,
}

impl Api {
    async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        let response = self
            .client
            .post(format!("{}{path}", self.base))
            .bearer_auth(&self.key)
            .header("idempotency-key", shared::ids::random_token(8))
            .json(body)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    async fn get(&self, path: &str) -> Value {
        serde_json::from_slice(&self.bytes(path).await).unwrap()
    }

    async fn bytes(&self, path: &str) -> Vec<u8> {
        let response = self
            .client
            .get(format!("{}{path}", self.base))
            .bearer_auth(&self.key)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 200);
        response.bytes().await.unwrap().to_vec()
    }

    /// Declares and PUTs `bytes` with the headers given (no API key); the upload.
    async fn upload(&self, name: &str, mime: &str, bytes: Vec<u8>) -> Value {
        let (status, upload) = self
            .post(
                "/api/v1/uploads",
                &json!({"name": name, "mime": mime, "size": bytes.len()}),
            )
            .await;
        assert_eq!(status, 201, "{upload}");
        let (status, body) = self.put(&upload, None, bytes).await;
        assert_eq!(status, 200, "{body}");
        upload
    }

    async fn put(
        &self,
        upload: &Value,
        content_type: Option<&str>,
        bytes: Vec<u8>,
    ) -> (u16, Value) {
        let url = upload["upload_url"].as_str().unwrap();
        assert!(url.starts_with(&self.base), "{url} is on the server");
        let mut request = self.client.put(url).body(bytes);
        for (name, value) in upload["headers"].as_object().unwrap() {
            if name != "content-length" {
                request = request.header(name, content_type.unwrap_or(value.as_str().unwrap()));
            }
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }
}

/// A sales sheet of about 7 MiB: rows with a long note each.
fn big_sheet() -> Vec<u8> {
    let note = "Pedido servido en dos entregas; ".repeat(25);
    let clients = ["Taller Ana SL", "Bar Lola", "Ferretería Pérez"];
    let rows: Vec<Value> = (0..8_000)
        .map(|i| {
            json!({"Fecha": format!("2026-{:02}-{:02}", 1 + i % 10, 1 + i % 28),
                "Cliente": clients[i % clients.len()], "Importe": 50 + (i % 17) * 10, "Notas": note})
        })
        .collect();
    let data = json!({"module": "ventas", "files": [{"name": "ventas-2026.xlsx", "rows": rows}]});
    serde_json::to_vec(&data).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_uploaded_to_the_server_are_extracted_and_analysed_by_id() {
    let dir = tempfile::tempdir().unwrap();
    let svc = Svc {
        storage: vec!["--data".into(), dir.path().display().to_string()],
    };
    let (_server, printed, base) = svc.serve();
    let api = Api {
        client: Client::new(),
        base,
        key: printed_value(&printed, "live key: "),
    };

    let invoice = json!({"customer": {"name": "Taller Ana SL", "tax_id": "B64717838", "address": "Calle Real 4",
        "postal_code": "10003", "city": "Cáceres"}, "irpf_rate": 15,
        "lines": [{"description": "Diseño de logotipo", "quantity": 1, "unit_price": 1000, "vat_rate": 21}]});
    let (status, issued) = api.post("/api/v1/invoices", &invoice).await;
    assert_eq!(status, 201, "{issued}");
    let pdf = api
        .bytes(&format!("/api/v1/invoices/{}/pdf", issued["id"]))
        .await;
    let upload = api.upload("factura.pdf", "application/pdf", pdf).await;
    let (status, extracted) = api
        .post(
            "/api/v1/invoices/extract",
            &json!({"files": [{"name": "factura.pdf", "upload_id": upload["id"]}]}),
        )
        .await;
    assert_eq!(status, 200, "{extracted}");
    assert_eq!(extracted["invoices"][0]["total"], 1060.0, "{extracted}");

    let sheet = big_sheet();
    assert!(sheet.len() > 6 * 1024 * 1024, "{} bytes", sheet.len());
    let upload = api.upload("ventas.json", "application/json", sheet).await;
    let (status, job) = api
        .post(
            "/api/v1/analyze",
            &json!({"type": "excel", "title": "Ventas 2026", "data": {"upload_id": upload["id"]}}),
        )
        .await;
    assert_eq!(status, 202, "over the sync budget: {job}");
    let path = format!("/api/v1/jobs/{}", job["id"].as_str().unwrap());
    let mut done = Value::Null;
    for _ in 0..600 {
        done = api.get(&path).await;
        if done["status"] == "succeeded" || done["status"] == "failed" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    assert_eq!(done["status"], "succeeded", "{done}");
    assert_eq!(done["result"]["title"], "Ventas 2026");
    assert!(done["result"]["report"]["key_figures"].is_array(), "{done}");

    let (status, declared) = api
        .post(
            "/api/v1/uploads",
            &json!({"name": "x.pdf", "mime": "application/pdf", "size": 4}),
        )
        .await;
    assert_eq!(status, 201);
    let (status, refused) = api
        .put(&declared, Some("image/png"), b"%PDF".to_vec())
        .await;
    assert_eq!(status, 403);
    assert_eq!(
        refused["error"]["code"], "content_type_mismatch",
        "{refused}"
    );
    assert!(
        refused["error"]["request_id"]
            .as_str()
            .unwrap()
            .starts_with("req_")
    );
    let mut forged = declared.clone();
    forged["upload_url"] = json!(format!("{}0", declared["upload_url"].as_str().unwrap()));
    let (status, refused) = api.put(&forged, None, b"%PDF".to_vec()).await;
    assert_eq!(
        (status, refused["error"]["code"].as_str()),
        (403, Some("signature_invalid"))
    );
}
