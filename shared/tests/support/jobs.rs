//! The harness of the jobs tests: the embedded host as `svc serve` runs it,
//! with its jobs queue (`SqliteQueue`, `svc serve`'s settings), its blobs
//! (`FileBlobs`, whose reads can be made to fail or hang) and its dispatcher
//! (sending a created job's message), and the in-process worker run on demand.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use chrono::{DateTime, Utc};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

use shared::app::{accounts, dispatch, jobs, outbox};
use shared::config::Config;
use shared::domain::account::{Issuer, Plan};
use shared::embedded::{FileBlobs, QueueSettings, SqliteQueue, dispatcher, job_worker};
use shared::ports::blobs::{BlobError, Blobs, PresignedPut};
use shared::ports::queue::NoQueue;
use shared::ports::table::Key;
use shared::tax::nif::Nif;

use super::{Harness, Reply, get, post_json, send};

pub const EXTRACT: &str = "/api/v1/invoices/extract";
pub const ANALYZE: &str = "/api/v1/analyze";
/// The jobs queue's visibility timeout (6 × the worker function's 600 s).
pub const VISIBILITY: Duration = Duration::from_secs(3600);
/// The longest the worker waits for the dispatcher's message (real time).
const DISPATCH_WAIT: Duration = Duration::from_secs(5);

/// Blobs whose reads can fail (`fail_reads`) or never return (`hang_next_read`).
pub struct FaultyBlobs {
    inner: FileBlobs,
    pub fail_reads: AtomicBool,
    pub hang_next_read: AtomicBool,
}

#[async_trait]
impl Blobs for FaultyBlobs {
    async fn put(&self, key: &str, bytes: Vec<u8>) -> Result<(), BlobError> {
        self.inner.put(key, bytes).await
    }

    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, BlobError> {
        if self.fail_reads.load(Ordering::SeqCst) {
            return Err(BlobError::Unavailable("injected".into()));
        }
        if self.hang_next_read.swap(false, Ordering::SeqCst) {
            std::future::pending::<()>().await;
        }
        self.inner.get(key).await
    }

    async fn delete(&self, key: &str) -> Result<(), BlobError> {
        self.inner.delete(key).await
    }

    async fn presign_put(
        &self,
        key: &str,
        mime: &str,
        size: u64,
        expires: DateTime<Utc>,
    ) -> Result<PresignedPut, BlobError> {
        self.inner.presign_put(key, mime, size, expires).await
    }
}

pub struct Env {
    pub h: Harness,
    pub blobs: Arc<FaultyBlobs>,
    data_dir: PathBuf,
}

/// A Pro account whose issuer NIF is set (the field parser's own NIF).
pub async fn start(config: Config) -> Env {
    let mut wired = None;
    let h = super::start_wired(config, Plan::Pro, Router::new(), |ports, wiring| {
        let settings = QueueSettings {
            visibility_timeout: VISIBILITY,
            max_receives: 5,
        };
        let dir = wiring.data_dir;
        let jobs =
            SqliteQueue::open(&dir.join("svc.db"), "jobs", settings, ports.clock.clone()).unwrap();
        let blobs = Arc::new(FaultyBlobs {
            inner: FileBlobs::new(dir),
            fail_reads: AtomicBool::new(false),
            hang_next_read: AtomicBool::new(false),
        });
        let ports = ports
            .with_queues(Arc::new(jobs), Arc::new(NoQueue))
            .with_blobs(blobs.clone());
        dispatcher::spawn(ports.clone(), wiring.feed);
        wired = Some((blobs, dir.to_path_buf()));
        ports
    })
    .await;
    let (blobs, data_dir) = wired.unwrap();
    let issuer = Issuer {
        name: Some("Ana García Pérez".into()),
        nif: Some(Nif::parse("12345678Z").unwrap()),
        address: Some("Calle Mayor 1".into()),
        postal_code: Some("28013".into()),
        city: Some("Madrid".into()),
        province: None,
        country: Some("ES".into()),
    };
    accounts::set_issuer(&h.ports, &h.account, &issuer)
        .await
        .unwrap();
    Env { h, blobs, data_dir }
}

fn files_under(dir: &Path, root: &Path, found: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, root, found);
        } else {
            found.push(
                path.strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
            );
        }
    }
}

impl Env {
    pub async fn post(
        &self,
        path: &str,
        key: &str,
        idempotency: Option<&str>,
        body: &Value,
    ) -> Reply {
        send(
            &self.h.app,
            post_json(path, key, idempotency, &body.to_string()),
        )
        .await
    }

    /// A POST with `Prefer: respond-async`.
    pub async fn post_preferring_async(&self, path: &str, key: &str, body: &Value) -> Reply {
        let req = Request::post(path)
            .header("authorization", format!("Bearer {key}"))
            .header("content-type", "application/json")
            .header("prefer", "wait=10, respond-async")
            .body(Body::from(body.to_string()))
            .unwrap();
        send(&self.h.app, req).await
    }

    /// What `svc serve` adds beside the API: the receiver of presigned PUTs,
    /// on this harness's blobs and clock.
    pub fn blob_receiver(&self) -> Router {
        shared::http::blob_put::router(
            Arc::new(FileBlobs::new(&self.data_dir)),
            self.h.clock.clone(),
        )
    }

    pub async fn job(&self, id: &str, key: &str) -> Reply {
        send(&self.h.app, get(&format!("/api/v1/jobs/{id}"), Some(key))).await
    }

    /// The job item dispatched once more, as a feed delivering twice does.
    pub async fn dispatch_again(&self, job_id: &str) {
        let key = Key::new(format!("JOB#{job_id}"), "JOB");
        let item = self.h.ports.table.get(&key).await.unwrap().unwrap();
        dispatch::dispatch(&self.h.ports, &item, &mut Default::default())
            .await
            .unwrap();
    }

    /// The worker's use case on one job's message, outside the queue.
    pub async fn work_on(&self, job_id: &str) -> shared::ports::queue::Disposition {
        jobs::work(&self.h.ports, &json!({"job_id": job_id}).to_string()).await
    }

    /// The staged blobs' keys (files under `<data dir>/blobs/`).
    pub fn staged(&self) -> Vec<String> {
        let root = self.data_dir.join("blobs");
        let mut found = Vec::new();
        files_under(&root, &root, &mut found);
        found
    }

    /// Asserts that the jobs queue holds no message: none comes back even
    /// after the visibility timeout (the clock moves past it).
    pub async fn assert_queue_empty(&self) {
        self.advance(VISIBILITY);
        assert_eq!(
            self.work_now().await,
            0,
            "a message is left in the jobs queue"
        );
    }

    /// One round of the in-process worker, waiting for the dispatcher's
    /// message if none is visible yet: the number of messages it took.
    pub async fn work(&self) -> usize {
        job_worker::poll(&self.h.ports, DISPATCH_WAIT)
            .await
            .unwrap()
    }

    /// One round of the worker on what is visible now.
    pub async fn work_now(&self) -> usize {
        job_worker::poll(&self.h.ports, Duration::ZERO)
            .await
            .unwrap()
    }

    /// Works until `GET` shows the job finished (the dispatcher's message
    /// may come with others').
    pub async fn work_until_finished(&self, id: &str, key: &str) {
        for _ in 0..10 {
            if self.job(id, key).await.json["status"]
                .as_str()
                .is_some_and(|s| s == "succeeded" || s == "failed")
            {
                return;
            }
            self.work().await;
        }
        panic!("job {id} did not finish");
    }

    /// A worker that takes the job's message and dies in the middle of the
    /// run, its lease taken (its blob read never returns; the task is aborted).
    pub async fn kill_worker_mid_job(&self, id: &str) {
        self.blobs.hang_next_read.store(true, Ordering::SeqCst);
        let ports = self.h.ports.clone();
        let worker = tokio::spawn(async move { job_worker::poll(&ports, DISPATCH_WAIT).await });
        for _ in 0..1000 {
            // Killed inside its hanging read (the flag consumed), not before
            // it: a kill between taking the job and reading would leave the
            // hang to the next worker.
            let reading = !self.blobs.hang_next_read.load(Ordering::SeqCst);
            if reading && self.job(id, &self.h.live).await.json["status"] == "running" {
                worker.abort();
                return;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("job {id} was not taken");
    }

    pub fn advance(&self, by: Duration) {
        self.h
            .clock
            .advance(chrono::Duration::from_std(by).unwrap());
    }

    pub async fn used(&self) -> u64 {
        send(&self.h.app, get("/api/v1/usage", Some(&self.h.live)))
            .await
            .json["used"]
            .as_u64()
            .unwrap()
    }

    /// The recorded events of a type, of both modes.
    pub async fn events(&self, kind: &str) -> Vec<outbox::Event> {
        let mut events = super::events(&self.h).await;
        events.retain(|e| e.kind == kind);
        events
    }

    /// Issues an invoice and returns its PDF (a text PDF the field parser reads).
    pub async fn invoice_pdf(&self) -> Vec<u8> {
        let body = json!({"customer": {"name": "Taller Ana SL", "tax_id": "B64717838", "address": "Calle Real 4",
            "postal_code": "10003", "city": "Cáceres"}, "irpf_rate": 15,
            "lines": [{"description": "Diseño de logotipo", "quantity": 1, "unit_price": 1000, "vat_rate": 21}]});
        let r = self
            .post("/api/v1/invoices", &self.h.live, Some("issue-1"), &body)
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
        let req = Request::get("/api/v1/invoices/1/pdf")
            .header("authorization", format!("Bearer {}", self.h.live))
            .body(Body::empty())
            .unwrap();
        let response = self.h.app.clone().oneshot(req).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        response
            .into_body()
            .collect()
            .await
            .unwrap()
            .to_bytes()
            .to_vec()
    }
}

pub fn pdf_request(pdf: &[u8]) -> Value {
    json!({"files": [{"name": "factura.pdf", "mime": "application/pdf", "data": B64.encode(pdf)}]})
}

pub fn ventas() -> Value {
    let clients = ["Taller Ana SL", "Bar Lola", "Ferretería Pérez"];
    let rows: Vec<Value> = (0..30)
        .map(|i| {
            json!({"Fecha": format!("2026-{:02}-{:02}", 1 + i % 10, 1 + i % 28),
                "Cliente": clients[i % clients.len()], "Importe": 50 + (i % 17) * 10})
        })
        .collect();
    json!({"type": "excel", "title": "Ventas 2026",
        "data": {"module": "ventas", "files": [{"name": "ventas.xlsx", "rows": rows}]}})
}
