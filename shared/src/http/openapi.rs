//! The OpenAPI 3.1 document, generated from the routers (utoipa-axum), so every
//! route that exists is in it; and the `GET /api/v1/openapi.json` group.

use std::sync::OnceLock;

use axum::http::header;
use utoipa::openapi::header::Header;
use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::response::{Response, ResponseBuilder};
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme};
use utoipa::openapi::{Content, HeaderBuilder, OpenApi as Document, Ref, RefOr, Required};
use utoipa::{OpenApi, PartialSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::ErrorBody;
use super::state::AppState;

const DESCRIPTION: &str = r#"Invoicing, analysis and tax tools for Spanish freelancers and small companies.

**Authentication.** Every endpoint needs `Authorization: Bearer <key>`. Live keys (`svc_live_…`) work on the Pro and Max plans; test keys (`svc_test_…`) on every plan. Test keys act in a separate test space: they validate exactly like live keys but never touch the live ledger, numbering or VERI*FACTU chain, and use no quota. Failures are 401 with the codes `api_key_missing`, `api_key_malformed`, `api_key_unknown`, `api_key_revoked` and `api_plan_required` (a live key of a Mini account; it works again after an upgrade). A new key works at once; a revoked key, or a plan change, takes effect within 2 seconds on every instance (each keeps the keys and accounts it has read for at most 2 s).

**Errors.** Every failure has the body `{"error": {"type", "code", "message", "param"?, "request_id"}}`. `param` names the body field (dotted path, e.g. `lines[0].quantity`), query parameter or header at fault. Unknown body fields are rejected with 400 `parameter_unknown` (typos never pass silently); missing ones give `parameter_missing`, wrong types `parameter_invalid`, malformed JSON `json_invalid` with its line and column. A body over the size limit (`SVC_MAX_BODY_BYTES`: 6 MiB by default on `svc serve`, 4 MiB on AWS Lambda, whose 6 MB invocation payload must also hold the request's envelope and a base64-encoded binary body) is 413 `body_too_large`: send larger files as uploads; a body that is not `application/json` is 415 `unsupported_media_type`; an unknown path is 404 `route_not_found` and a wrong method 405 `method_not_allowed` (after authentication); a `Host` header that is not a plain `host[:port]` (with a user part, a path, an empty, oversized or second port, spaces) is 400 `host_invalid` before anything else. A request that cannot finish in the time a synchronous request has on AWS (about 29 s) is stopped before that, with no effect, and answered 503 `deadline_exceeded` with `Retry-After` (send long extractions and analyses in async mode); storage that cannot be reached is 503 `service_unavailable`; a 500 `internal_error` never carries internal details: quote its `request_id` to us. Every response carries `Request-Id`.

**Rate limit.** 30 requests per minute per key (a fixed window per clock minute, counted across all instances). An account holds at most 20 active (unrevoked) keys, live and test together, so that more keys cannot multiply the limit: a 21st is refused (409 on the application's Keys page, an error from `svc keys create`) until one is revoked. Every authenticated response carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset` (Unix time, in seconds, when the window ends). Over the limit: 429 `rate_limited` with `Retry-After` in seconds.

**Quota.** Analysis and extraction requests with a live key use 1 unit of the daily quota: Mini 10, Pro 100, Max 500 units per day by default. Days run from midnight to midnight in Europe/Madrid. When the units are used up: 429 `quota_exceeded` with `Retry-After` up to the next Madrid midnight. A unit is charged only when the request succeeds, and once per idempotency key. Reaching 80 % and 100 % of the quota emits one `quota.threshold` event each per day.

**Idempotency.** Every POST accepts an `Idempotency-Key` header (1–255 printable ASCII characters, e.g. a UUID); issuing, rectifying and sending invoices and recording payments require it (400 `idempotency_key_required`). Keys are scoped to the account and mode and kept 24 hours. Repeating a request with the same key, method, path and byte-identical body returns the first response with `Idempotent-Replayed: true` and does nothing again; the same key with another request is 422 `idempotency_key_reused`; while the first request is still running it is 409 `idempotency_key_in_use` (retry shortly: a request cut by a crash holds its key for at most 35 seconds, and none after the embedded server restarts). Only successful (2xx) responses are kept: a request that failed had no effect, and its key can be used again. The stored response is committed in the same storage transaction as the request's effects, so neither can exist without the other.

**Payments and due dates.** An invoice has `instalments` (`{date, amount}`, in date order, adding up to the total) and shows the last date as `due_date`. `POST /invoices` takes `due_dates` (1–12 instalments, ascending dates not before the issue date, amounts adding up to the total exactly: no rounding is done) or `due_date` (one instalment of the total), not both; without either, the total is due the account's payment terms after the issue date: 30 days (Ley 3/2004 art. 4.1) unless the account sets 0–60 (art. 4.3, the longest agreed B2B term). `POST /invoices/{id}/payments` records a payment (`amount` > 0) or a refund (`amount` < 0) with its effective `date` (default today; not in the future, not before the issue date), `method` (`transfer`, `direct_debit`, `card`, `cash`, `other`) and `reference`; it needs an `Idempotency-Key`. The amount paid stays between 0 and the total (400 `refund_exceeds_paid`, 400 `overpayment`); cancelled invoices and invoices with nothing to collect (total 0 or negative, i.e. credits) take none (409 `invalid_state`); rectifying invoices with a positive total take them like any other. The invoice derives `payment_status` from instalments, payments and today's Madrid date: `paid` once the amount paid reaches the total (and always when there is nothing to collect), `overdue` while an instalment whose date has passed is not covered (payments cover instalments in date order), `partially_paid` when something is paid, else `unpaid`; with `amount_paid`, `amount_due` (0 once cancelled) and `paid_at` (the last payment's date once fully paid). Every payment and refund sends `invoice.payment_received`; the payment completing the total sends `invoice.paid` and sets `status` `paid` (except from `rejected`); a refund below the total of a `paid` invoice sets it `unpaid` with `invoice.unpaid`. `POST /invoices/{id}/status` keeps working: `paid` records a payment of what is outstanding dated today (method `other`), `unpaid` a refund of everything paid, so status and payments agree. The first scheduled run of the Madrid day after an instalment's date sends `invoice.overdue` for it once if it is not covered (hourly on AWS, every 15 minutes on `svc serve`), test invoices included. Invoices issued before instalments existed have none: their `due_date`, if any, counts as one instalment for `payment_status` (no `invoice.overdue` is sent for them), and a `paid` status without payments counts as the total paid on the day it was set.

**E-invoices.** `GET /invoices/{id}/xml?format=facturae|ubl|cii` and `GET /invoices/{id}/pdf[?format=facturx]`, generated from the stored invoice (same bytes for the same invoice and state). Facturae 3.2.2 is unsigned; IRPF goes in TaxesWithheld (04) and the equivalence surcharge inside the VAT tax; simplified invoices without a customer use the buyer placeholder `00000000T` "Consumidor final"; rectifying invoices carry `Corrective` (method 01 substitution, 02 differences). UBL 2.1 and CII D16B follow EN 16931 (`urn:cen.eu:en16931:2017`): EN 16931 has no withholding element, so IRPF is sent as the prepaid amount (BT-113) and the amount due equals the invoice total; the equivalence surcharge has no element either, so it is added to its group's VAT rate (e.g. 21 % + 5.2 % = category S at 26.2 %) with a note splitting it; a negative total becomes a credit note (UBL `CreditNote` / CII 381), a substitution a corrected invoice (384), and every rectifying invoice references the rectified one (BT-25/26); categories S, E (with the legal ground), AE (reverse charge, VATEX-EU-AE), G (exports), K (intra-EU), O (not subject). Cancelled invoices are generated as issued with a "Factura anulada" note; test invoices say they have no tax validity.

**Async jobs.** `POST /invoices/extract` and `POST /analyze` take `?async=true` or `Prefer: respond-async` (RFC 7240; answered with `Preference-Applied: respond-async`). The request is checked and charged first, exactly as in the synchronous mode, and those errors (400, 413, 415, 429 `quota_exceeded`) come at once with no job created. Then the answer is 202 with the job (`{id: "job_…", object: "job", kind: "invoices.extract" | "analyze", status: "queued", created_at, expires_at, livemode, …}`), `Location: /api/v1/jobs/{id}` and `Retry-After` (seconds). `GET /jobs/{id}` shows `status` `queued` → `running` → `succeeded` (with `result`, what the synchronous request returns) or `failed` (with `error`, the error object above), `attempts` and the timestamps; the events `job.completed` and `job.failed` (`data: {job_id, kind, status, result}`) announce the end. An `Idempotency-Key` replay returns the same job and charges nothing. A job is kept 24 hours after it finishes (a job that never finishes, 24 hours after it was created), then it is 404. A run interrupted by a failure of the service is retried (3 runs at most); a job that fails gives back its quota unit: a failed job costs nothing. Test keys make jobs too (`livemode: false`, sample results, no quota).

**Large files (uploads).** Files and sheets too large for a request body (up to 50 MiB each) are uploaded first: `POST /uploads` with `{name, mime, size}` answers `{id: "upl_…", upload_url, method: "PUT", headers, expires_at, …}`; the file is sent with `PUT upload_url` and those headers, without the API key, within 15 minutes (a presigned S3 URL on AWS; the server's own URL on `svc serve`); the type and the size are bound in the URL's signature. Then `POST /invoices/extract` takes `{"name", "upload_id"}` in an item of `files` instead of `data`, and `POST /analyze` takes `data: {"upload_id": …}` (an `application/json` upload holding the `data` object). The upload is read with exactly the checks and the quota of an inline body; an unknown, expired (24 hours), other account's or not yet sent upload is 400 `upload_missing` with `param`. A request whose uploads hold more than 6 MiB (`SVC_SYNC_MAX_BYTES`) runs in async mode (202 with a job) even if async mode was not asked for.

**Agent tools (MCP).** `POST /api/mcp` serves the Model Context Protocol (streamable HTTP, stateless, JSON answers; legacy `initialize` clients up to 2025-11-25 and modern 2026-07-28 ones; GET and DELETE are 405). It takes the same `Authorization: Bearer` key (a 401 carries `WWW-Authenticate: Bearer realm="svc"`; there is no OAuth and `/.well-known/oauth-protected-resource` is 404). Its 24 tools are the operations `extract_invoices`, `analyze`, `validate_tax_id`, `calculate_vat`, `calculate_withholding`, `estimate_model_130`, `fiscal_calendar`, `get_usage`, `list_analyses`, `get_analysis`, `issue_invoice`, `list_invoices`, `get_invoice`, `cancel_invoice`, `set_invoice_status`, `record_payment`, `send_invoice`, `list_series`, `create_series`, `update_series`, `delete_series`, `resubmit_verifactu_record`, `compare_verifactu_records` and `get_job` of this document, run in-process as the key's caller: the same validation, quota, idempotency (`issue_invoice`, `record_payment` and `send_invoice` take a required `idempotency_key` argument, the `Idempotency-Key` of the call) and test mode. A tool's arguments are the operation's body (POST) or query parameters (GET), with the path id as an argument (`invoice_id`, `analysis_id`, `job_id`, `series_code`) and list cursors as `cursor`; its `structuredContent` is the operation's response body (lists add `next_cursor`), and its input and output schemas are the ones of this document. `extract_invoices` and `analyze` take `run_as_job` (default: true above 1 MiB of arguments) and then answer with the job. An error of the operation is a tool result with `isError: true` whose text names the argument at fault and the next step; an unknown tool or a malformed request is a JSON-RPC error. The rate limit counts `tools/call` requests; protocol requests (`initialize`, `tools/list`, `server/discover`) are free. Hosts other than loopback must be listed in `SVC_PUBLIC_HOSTS` (403 `host_not_allowed` otherwise).

**VERI\*FACTU submission.** Every issued or cancelled invoice adds a record to its issuer's chain; the service sends each chain's pending records to the tax authority (AEAT) in chain order, at most 1,000 per message, then waits what the answer asks (`TiempoEsperaEnvio`, 60 s at first) unless 1,000 records are waiting, and never has two messages of one issuer in flight. `verifactu.status` is `pending` until the answer, then `accepted`, `accepted_with_errors` or `rejected`, with the answer in `verifactu.answer` (`state`, `csv`, `code`, `description`, `duplicate`, `submitted_at`); a cancelled invoice has the same for its cancellation record (`cancellation_status`, `cancellation_answer`). While pending, `verifactu.status_reason` says why: `certificate_missing` (no certificate of the issuer is stored, so live records cannot be sent), `waiting` (the AEAT's flow control), or the last failure (`aeat_unavailable: …`, `aeat_fault: …`, retried with backoff from 30 s, doubling to 1 hour). A record the AEAT already holds (a resend after a lost answer) counts as accepted; after a message whose answer was lost the AEAT is first asked which records it holds (`ConsultaFactuSistemaFacturacion`), and those take the state it holds with `verifactu.answer.resolved_by_query: true` instead of being sent again. `GET /verifactu/records` compares a month's records with the AEAT's, and `GET /invoices/{id}/verifactu/record` gives an invoice's records as sent with the answers as received. Each answer emits `verifactu.accepted` or `verifactu.rejected` (`data`: `invoice_id`, `number`, `operation` `Alta`/`Anulacion`, `hash`, `status`, `answer`). Test invoices never reach the AEAT: their records are answered by the service's AEAT simulator, so test webhooks receive the same events with `livemode: false`; a test invoice can ask it for a chosen AEAT error code (`test_options.verifactu_error` of `POST /invoices`) to test rejection handling. A record rejected or accepted with errors is corrected, once the cause is fixed, with `POST /invoices/{id}/verifactu/resubmit` (a new record of the invoice at the chain's head: `Subsanacion`, with `RechazoPrevio` after a rejection); the cancellation of an invoice whose record was rejected carries `SinRegistroPrevio`. An issuer NIF belongs to one account: the live chain is the NIF's, so the account that sets it as its issuer's NIF holds it, and a live invoice, cancellation or resubmission of another account with the same issuer NIF is 409 `issuer_nif_taken` (test chains are per account). `GET /verifactu/chain/verify` checks only the caller's own records. Before a record is made (issuing, rectifying, cancelling), it is checked against the AEAT's record rules (“Validaciones y errores” of VERI*FACTU: NIF check characters, types and their recipients, dates, each breakdown line's codes, rates and surcharges, quotas and totals, chaining): a record the AEAT would refuse or take with errors is 400 `aeat_rule_<code>` with the AEAT's error code (e.g. `aeat_rule_1198`, `aeat_rule_1173`, `aeat_rule_2006`), `param` the AEAT element at fault (e.g. `FechaOperacion`, `Desglose/DetalleDesglose/TipoImpositivo`) and a message quoting the rule, and nothing is written; the AEAT simulator that answers test records checks the same rules and answers with the same codes.

**Conventions.** Timestamps are UTC (RFC 3339); calendar days ("today", quota days, tax dates) are Europe/Madrid."#;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Invoicing, analysis and tax-tools API",
        version = "1.0.0",
        description = "See the conventions below.",
    ),
    servers((url = "/", description = "This server")),
    components(schemas(ErrorBody)),
    tags(
        (name = "usage", description = "The daily quota"),
        (name = "tax", description = "Spanish tax tools, computed by rules (estimates for the general regime; no quota)"),
        (name = "customers", description = "The customer address book"),
        (name = "invoices", description = "Issued invoices, their lifecycle and VERI*FACTU records"),
        (name = "series", description = "Numbering series: which invoices each holds and how they are numbered"),
        (name = "extraction", description = "Invoice data read from e-invoices, PDFs, images and text, checked by the service's own rules"),
        (name = "analyses", description = "Analyses of spreadsheet rows and the business cuestionario: a structured report with key figures, strengths, priorities and an action plan"),
        (name = "openapi", description = "This document"),
        (name = "events", description = "The account's events of the last 30 days, as its webhooks receive them"),
        (name = "jobs", description = "Extractions and analyses requested in async mode"),
        (name = "uploads", description = "Files too large for a request body, sent to a presigned URL and used by id"),
    )
)]
struct ApiDoc;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_openapi))
}

/// This OpenAPI document
#[utoipa::path(get, path = "/api/v1/openapi.json", tag = "openapi", operation_id = "get_openapi",
    responses((status = 200, description = "The OpenAPI 3.1 document of the API", content_type = "application/json")))]
async fn get_openapi() -> ([(header::HeaderName, &'static str); 1], &'static str) {
    static JSON: OnceLock<String> = OnceLock::new();
    let json = JSON.get_or_init(|| served().to_string());
    ([(header::CONTENT_TYPE, "application/json")], json.as_str())
}

/// The document as served: `document()` written out beside this file, so
/// that the function serving it links none of the handlers it describes. A
/// test keeps the two equal; `UPDATE_GOLDEN=1` rewrites the file.
const SERVED: &str = include_str!("openapi.json");

/// The served document, parsed once per process: what clients and the agent
/// tools' schemas read.
pub fn served() -> &'static serde_json::Value {
    static DOC: OnceLock<serde_json::Value> = OnceLock::new();
    DOC.get_or_init(|| serde_json::from_str(SERVED).expect("the served document parses"))
}

fn request_id_header() -> Header {
    HeaderBuilder::new()
        .schema(Some(String::schema()))
        .description(Some(
            "Identifier of this request, also in error bodies; quote it to support",
        ))
        .build()
}

fn idempotency_key_parameter() -> Parameter {
    ParameterBuilder::new()
        .name("Idempotency-Key")
        .parameter_in(ParameterIn::Header)
        .required(Required::False)
        .schema(Some(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .min_length(Some(1))
                .max_length(Some(255))
                .pattern(Some("^[ -~]+$")),
        ))
        .description(Some(
            "1–255 printable ASCII characters (e.g. a UUID). Repeating the request with the same key \
             replays the first successful response instead of running it again (kept 24 h).",
        ))
        .build()
}

fn error_response(description: &str, headers: &[(&str, &str)]) -> Response {
    let mut builder = ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            Content::new(Some(Ref::from_schema_name("ErrorBody"))),
        )
        .header("Request-Id", request_id_header());
    for (name, text) in headers {
        builder = builder.header(
            *name,
            HeaderBuilder::new()
                .schema(Some(i64::schema()))
                .description(Some(*text))
                .build(),
        );
    }
    builder.build()
}

const RATE_HEADERS: [(&str, &str); 3] = [
    (
        "X-RateLimit-Limit",
        "Requests allowed per minute with this key",
    ),
    (
        "X-RateLimit-Remaining",
        "Requests left in the current window",
    ),
    (
        "X-RateLimit-Reset",
        "Unix time (seconds) when the window ends",
    ),
];

fn has_body(op: &utoipa::openapi::path::Operation) -> bool {
    op.request_body.is_some()
}

/// The whole API: every endpoint group, the error responses every operation
/// can give, and the bearer security scheme.
pub fn document() -> Document {
    let mut doc = ApiDoc::openapi();
    doc.info.description = Some(DESCRIPTION.to_string());
    for group in super::Group::ALL {
        let (_, api) = group.routes().split_for_parts();
        doc.merge(api);
    }
    let components = doc.components.get_or_insert_with(Default::default);
    components.add_security_scheme(
        "bearer",
        SecurityScheme::Http(
            HttpBuilder::new()
                .scheme(HttpAuthScheme::Bearer)
                .bearer_format("svc_live_… or svc_test_…")
                .build(),
        ),
    );
    let shared = [
        (
            "400",
            "BadRequest",
            error_response("Malformed request: see `code` and `param`", &[]),
        ),
        (
            "401",
            "Unauthorized",
            error_response(
                "Missing, malformed, unknown or revoked key, or a live key on the Mini plan",
                &[],
            ),
        ),
        (
            "404",
            "NotFound",
            error_response(
                "Unknown route or object (objects of another account are unknown too)",
                &[],
            ),
        ),
        (
            "405",
            "MethodNotAllowed",
            error_response("The path exists but not with this method", &[]),
        ),
        (
            "429",
            "TooManyRequests",
            error_response(
                "Rate limit (`rate_limited`) or daily quota (`quota_exceeded`) reached",
                &[("Retry-After", "Seconds to wait before retrying")],
            ),
        ),
        (
            "500",
            "InternalError",
            error_response(
                "Unexpected failure; safe to retry with the same Idempotency-Key",
                &[],
            ),
        ),
    ];
    for (_, name, response) in &shared {
        components
            .responses
            .insert(name.to_string(), RefOr::T(response.clone()));
    }
    // Responses of operations with a JSON body; the last one is for POST only.
    let with_body = [
        (
            "409",
            "Conflict",
            error_response(
                "The Idempotency-Key is in use by a running request, a state conflict, or the request kept losing races with concurrent ones (`concurrent_update`: retry it)",
                &[],
            ),
        ),
        (
            "413",
            "PayloadTooLarge",
            error_response("The body is larger than the limit", &[]),
        ),
        (
            "415",
            "UnsupportedMediaType",
            error_response("The body is not JSON", &[]),
        ),
        (
            "422",
            "IdempotencyKeyReused",
            error_response("The Idempotency-Key was used with another request", &[]),
        ),
    ];
    for (_, name, response) in &with_body {
        components
            .responses
            .insert(name.to_string(), RefOr::T(response.clone()));
    }
    for item in doc.paths.paths.values_mut() {
        let operations = [
            &mut item.get,
            &mut item.post,
            &mut item.put,
            &mut item.delete,
            &mut item.patch,
        ];
        for (op, is_post) in operations
            .into_iter()
            .zip([false, true, false, false, false])
        {
            let Some(op) = op.as_mut() else { continue };
            if is_post {
                let params = op.parameters.get_or_insert_with(Vec::new);
                if !params
                    .iter()
                    .any(|p| matches!(p, RefOr::T(p) if p.name == "Idempotency-Key"))
                {
                    params.push(RefOr::T(idempotency_key_parameter()));
                }
            }
            op.security = Some(vec![SecurityRequirement::new(
                "bearer",
                Vec::<String>::new(),
            )]);
            let extra: &[_] = match (is_post, has_body(op)) {
                (true, _) => &with_body,
                (false, true) => &with_body[..3],
                (false, false) => &[],
            };
            for (status, name, _) in shared.iter().chain(extra) {
                op.responses
                    .responses
                    .entry(status.to_string())
                    .or_insert_with(|| {
                        RefOr::Ref(Ref::new(format!("#/components/responses/{name}")))
                    });
            }
            for response in op.responses.responses.values_mut() {
                if let RefOr::T(r) = response {
                    r.headers
                        .entry("Request-Id".to_string())
                        .or_insert_with(|| RefOr::T(request_id_header()));
                    for (name, text) in RATE_HEADERS {
                        r.headers.entry(name.to_string()).or_insert_with(|| {
                            RefOr::T(
                                HeaderBuilder::new()
                                    .schema(Some(i64::schema()))
                                    .description(Some(text))
                                    .build(),
                            )
                        });
                    }
                }
            }
        }
    }
    doc
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Schemas are named after their types, and a second type of the same
    /// name silently replaces the first in the document: every name must
    /// mean one schema across the groups (`#[schema(as = …)]` renames).
    #[test]
    fn no_two_types_share_a_schema_name() {
        let mut seen: std::collections::BTreeMap<String, (crate::http::Group, String)> =
            std::collections::BTreeMap::new();
        for group in crate::http::Group::ALL {
            let Some(components) = group.routes().into_openapi().components else {
                continue;
            };
            for (name, schema) in components.schemas {
                let json = serde_json::to_string(&schema).expect("schemas serialise");
                match seen.get(&name) {
                    Some((other, first)) => {
                        assert_eq!(
                            first, &json,
                            "{name}: one in {other:?}, another in {group:?}"
                        )
                    }
                    None => {
                        seen.insert(name, (group, json));
                    }
                }
            }
        }
    }

    #[test]
    fn the_served_document_is_the_generated_one() {
        let generated =
            serde_json::to_string_pretty(&document()).expect("the document serialises") + "\n";
        if std::env::var("UPDATE_GOLDEN").as_deref() == Ok("1") {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/http/openapi.json");
            std::fs::write(path, &generated).expect("the document is written");
            return;
        }
        let differs = SERVED
            .lines()
            .zip(generated.lines())
            .position(|(served, generated)| served != generated);
        assert!(
            differs.is_none() && SERVED.len() == generated.len(),
            "src/http/openapi.json is not the generated document (first difference at line {}); \
             rewrite it with `UPDATE_GOLDEN=1 cargo test -p shared --lib openapi`",
            differs.map_or(
                SERVED.lines().count().min(generated.lines().count()),
                |line| line
            ) + 1
        );
    }
}
