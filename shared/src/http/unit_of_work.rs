//! The unit-of-work layer, on every POST. Handlers never write to the table
//! themselves: they add their writes to the request's `UnitOfWork`, and this
//! layer commits them in ONE transaction together with the quota charge and the
//! idempotency record holding the response. So an effect never exists without
//! its stored response, nor a stored response without its effect.
//!
//! With an `Idempotency-Key` (1–255 printable ASCII characters, scoped to the
//! account and mode, kept 24 h): the same key with the same method, path and
//! body replays the stored response with `Idempotent-Replayed: true`; with
//! another body it is 422 `idempotency_key_reused`; while the first request
//! runs it is 409 `idempotency_key_in_use`. Only successful (2xx) responses are
//! stored: a failed request has no effect and frees its key for a retry.
//!
//! A unit of work counts itself in flight while it runs (`AppState::in_flight`,
//! `crate::http::serving`): the embedded table commits a lone one's
//! transaction on its own thread.
//!
//! When a condition of the commit fails (a concurrent request won a race), the
//! handler runs again on fresh state, a few times, before giving up with 409.
//!
//! When the table's answer to the commit is lost or is an error, the commit
//! may have landed all the same (a DynamoDB 500 after committing, or the
//! SDK's retry of a committed transaction failing its own conditions): the
//! request reads its receipt (`crate::app::receipts`) and, if its commit
//! landed, answers as if the answer had come, so the effect is neither
//! reported as failed nor made twice.

use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use sha2::{Digest, Sha256};
use tokio::sync::OwnedMutexGuard;

use super::error::ApiError;
use super::state::AppState;
use crate::app::idempotency::{self, Begin, Lease, StoredResponse};
use crate::app::keys::Caller;
use crate::app::receipts::Receipt;
use crate::domain::idempotency_key::IdempotencyKey;
use crate::ports::table::{TableError, Write};

const ATTEMPTS: u32 = 10;
/// Response headers kept with a stored response and replayed (a job's 202
/// replays its `Location`, `Retry-After` and `Preference-Applied`).
const STORED_HEADERS: [header::HeaderName; 4] = [
    header::CONTENT_TYPE,
    header::LOCATION,
    header::RETRY_AFTER,
    header::HeaderName::from_static("preference-applied"),
];

/// The writes a handler wants committed with its response, and the locks it
/// holds until they are ordered (`Table::order`).
#[derive(Clone, Default)]
pub struct UnitOfWork {
    /// The writes to commit with the response, in the order added.
    writes: Arc<Mutex<Vec<Write>>>,
    /// The in-process locks held until the writes are ordered.
    locks: Arc<Mutex<Vec<OwnedMutexGuard<()>>>>,
}

impl UnitOfWork {
    /// Keeps a lock until this unit of work is ordered or abandoned.
    pub fn hold(&self, guard: OwnedMutexGuard<()>) {
        self.locks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(guard);
    }

    fn release_locks(&self) {
        self.locks.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    pub fn add(&self, write: Write) {
        self.writes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(write);
    }

    pub fn extend(&self, writes: impl IntoIterator<Item = Write>) {
        self.writes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(writes);
    }

    fn take(&self) -> Vec<Write> {
        std::mem::take(&mut *self.writes.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl<S: Send + Sync> FromRequestParts<S> for UnitOfWork {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<UnitOfWork>()
            .cloned()
            .ok_or_else(|| ApiError::internal("writes are only possible in a POST request"))
    }
}

/// Marks a route whose requests must carry an `Idempotency-Key` (400 otherwise).
pub async fn require_idempotency_key(req: Request, next: Next) -> Response {
    if req.headers().contains_key("idempotency-key") {
        next.run(req).await
    } else {
        ApiError::invalid(
            "idempotency_key_required",
            "this request needs an `Idempotency-Key` header (1–255 printable ASCII characters, e.g. a UUID)",
        )
        .param("Idempotency-Key")
        .into_response()
    }
}

fn fingerprint(method: &Method, uri: &axum::http::Uri, body: &[u8]) -> String {
    let mut hash = Sha256::new();
    hash.update(method.as_str());
    hash.update([0]);
    hash.update(uri.path_and_query().map(|p| p.as_str()).unwrap_or("/"));
    hash.update([0]);
    hash.update(body);
    hex::encode(hash.finalize())
}

fn parse_key(parts: &Parts) -> Result<Option<IdempotencyKey>, ApiError> {
    let Some(raw) = parts.headers.get("idempotency-key") else {
        return Ok(None);
    };
    raw.to_str()
        .map_err(|_| "Idempotency-Key may only contain printable ASCII characters")
        .and_then(str::parse)
        .map(Some)
        .map_err(|message| {
            ApiError::invalid("idempotency_key_invalid", message).param("Idempotency-Key")
        })
}

async fn read_body(body: Body, limit: usize) -> Result<Bytes, ApiError> {
    match Limited::new(body, limit).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.downcast_ref::<LengthLimitError>().is_some() => Err(ApiError::status(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body_too_large",
            format!("the request body is larger than {limit} bytes"),
        )),
        Err(e) => Err(ApiError::invalid(
            "body_unreadable",
            format!("the request body could not be read: {e}"),
        )),
    }
}

fn replay(stored: StoredResponse) -> Response {
    let mut response = Response::new(Body::from(stored.body));
    *response.status_mut() = StatusCode::from_u16(stored.status).unwrap_or(StatusCode::OK);
    for (name, value) in stored.headers {
        if let (Ok(name), Ok(value)) = (
            header::HeaderName::try_from(name),
            HeaderValue::try_from(value),
        ) {
            response.headers_mut().insert(name, value);
        }
    }
    response
        .headers_mut()
        .insert("idempotent-replayed", HeaderValue::from_static("true"));
    response
}

pub async fn unit_of_work(State(state): State<AppState>, req: Request, next: Next) -> Response {
    if req.method() != Method::POST {
        return next.run(req).await;
    }
    let served = state.in_flight.serve(run(&state, req, next));
    match served.await {
        Ok(response) => response,
        Err(error) => error.into_response(),
    }
}

async fn run(state: &AppState, req: Request, next: Next) -> Result<Response, ApiError> {
    let caller = req
        .extensions()
        .get::<Caller>()
        .cloned()
        .ok_or_else(|| ApiError::internal("POST served without the auth layer"))?;
    let (parts, body) = req.into_parts();
    let key = parse_key(&parts)?;
    let body = read_body(body, state.config.max_body_bytes).await?;
    let lease = match key {
        None => None,
        Some(key) => {
            let fingerprint = fingerprint(&parts.method, &parts.uri, &body);
            match idempotency::begin(
                &state.ports,
                &caller.account_id,
                caller.mode,
                &key,
                &fingerprint,
            )
            .await?
            {
                Begin::Started(lease) => Some(lease),
                Begin::Replay(stored) => return Ok(replay(stored)),
                Begin::Mismatch => {
                    return Err(ApiError::idempotency(
                        StatusCode::UNPROCESSABLE_ENTITY,
                        "idempotency_key_reused",
                        "this Idempotency-Key was used with another request (method, path or body); use a new key",
                    )
                    .param("Idempotency-Key"));
                }
                Begin::InFlight => return Err(in_use()),
            }
        }
    };
    let outcome = commit_loop(state, &parts, &body, &next, lease.as_ref()).await;
    if let (Some(lease), Ok((_, false)) | Err(_)) = (&lease, &outcome)
        && let Err(e) = idempotency::release(&state.ports, lease).await
    {
        tracing::warn!(error = %e, "could not release an idempotency key; it frees itself when its lease ends");
    }
    outcome.map(|(response, _)| response)
}

/// Whether a commit whose answer was an error landed all the same; when
/// that cannot be read either, the error stands.
async fn landed(state: &AppState, receipt: &Receipt<'_>) -> bool {
    receipt.landed(&state.ports).await.unwrap_or_else(|e| {
        tracing::warn!(error = %e, "could not read whether a commit landed");
        false
    })
}

fn in_use() -> ApiError {
    ApiError::idempotency(
        StatusCode::CONFLICT,
        "idempotency_key_in_use",
        "a request with this Idempotency-Key is still running; retry in a moment",
    )
    .param("Idempotency-Key")
}

/// Runs the handler and commits its writes; `true` when something was committed.
async fn commit_loop(
    state: &AppState,
    parts: &Parts,
    body: &Bytes,
    next: &Next,
    lease: Option<&Lease>,
) -> Result<(Response, bool), ApiError> {
    for attempt in 0..ATTEMPTS {
        let uow = UnitOfWork::default();
        let mut req = Request::from_parts(parts.clone(), Body::from(body.clone()));
        req.extensions_mut().insert(uow.clone());
        let response = next.clone().run(req).await;
        if !response.status().is_success() {
            return Ok((response, false));
        }
        let (rparts, rbody) = response.into_parts();
        let rbytes = rbody
            .collect()
            .await
            .map_err(|e| ApiError::internal(format!("response body: {e}")))?
            .to_bytes();
        let mut writes = uow.take();
        if let Some(lease) = lease {
            let stored = StoredResponse {
                status: rparts.status.as_u16(),
                headers: STORED_HEADERS
                    .iter()
                    .filter_map(|h| {
                        let value = rparts.headers.get(h)?.to_str().ok()?;
                        Some((h.as_str().to_string(), value.to_string()))
                    })
                    .collect(),
                body: rbytes.to_vec(),
            };
            writes.push(idempotency::complete(lease, &stored));
        }
        let response = Response::from_parts(rparts, Body::from(rbytes));
        if writes.is_empty() {
            return Ok((response, false));
        }
        let record_index = writes.len() - 1;
        let receipt = Receipt::new(lease);
        writes.extend(receipt.write(&state.ports));
        let committed = match state.ports.table.order(writes).await {
            Ok(ordered) => {
                // Ordered: the next writer of the same items may start; they
                // see these writes and commit after them.
                uow.release_locks();
                ordered.durable().await
            }
            Err(e) => Err(e),
        };
        let committed = match committed {
            Err(e) if landed(state, &receipt).await => {
                tracing::warn!(error = %e, "the table's answer to a commit was lost; the commit had landed");
                Ok(())
            }
            other => other,
        };
        match committed {
            Ok(()) => return Ok((response, true)),
            Err(TableError::ConditionFailed { index: Some(i), .. })
                if lease.is_some() && i == record_index =>
            {
                return Err(in_use());
            }
            Err(TableError::ConditionFailed { .. } | TableError::Conflict) => {
                crate::app::race::pause(attempt).await;
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(ApiError::concurrent_update())
}
