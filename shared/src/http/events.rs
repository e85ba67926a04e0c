//! The events group: the account's events of the last 30 days, the same
//! envelopes its webhooks receive.

use axum::Json;
use axum::extract::{Path, State};
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa::openapi::schema::{Object, ObjectBuilder, Type};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::ApiError;
use super::pagination::{List, ListQuery, PageParams};
use super::state::AppState;
use crate::app::events::{self, EventsError, Filter};
use crate::app::keys::Caller;
use crate::app::outbox::Envelope;
use crate::webhooks::event_type::EventType;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_events))
        .routes(routes!(get_event))
}

impl From<EventsError> for ApiError {
    fn from(e: EventsError) -> Self {
        match e {
            EventsError::NotFound(id) => ApiError::not_found(format!("no event {id}")),
            EventsError::Storage(t) => t.into(),
        }
    }
}

fn event_type_schema() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(EventType::SUBSCRIBABLE.map(EventType::code)))
        .build()
}

#[derive(Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
struct EventFilters {
    /// Only events of this type.
    #[serde(rename = "type")]
    #[param(rename = "type", schema_with = event_type_schema)]
    kind: Option<String>,
    /// `false`: only events that some webhook they were sent to has not
    /// acknowledged with a 2xx yet (still retrying, or given up). `true`: only
    /// events every such webhook acknowledged, including events no webhook was
    /// subscribed to.
    delivery_success: Option<bool>,
}

/// List events
///
/// The events of the last 30 days in the key's mode, newest first, exactly as
/// webhooks receive them: use it to recover what an endpoint missed. Each
/// event is `{id, type, created_at, livemode, data}`; `data` by type:
///
/// | type | data |
/// |---|---|
/// | `invoice.issued`, `invoice.cancelled`, `invoice.rejected`, `invoice.accepted`, `invoice.paid`, `invoice.unpaid` | `object`: the invoice summary after the change, `{id, object, number, kind, status, livemode, issue_date, customer_id, base, vat_amount, irpf_amount, total}` as in the invoice |
/// | `invoice.payment_received` | `object` as above, `payment`: the payment recorded `{id, amount, date, method, reference, created_at}` (a refund has a negative `amount`), and the invoice's `payment_status`, `amount_paid`, `amount_due` after it |
/// | `invoice.overdue` | `object` as above, `instalment`: `{number, date, amount}` (`number` from 1 in the invoice's `instalments`), and `payment_status`, `amount_paid`, `amount_due`; once per instalment, the first scheduled run of the Madrid day after its date, while payments do not cover it |
/// | `invoice.sent` | `object`: the invoice summary, and `send`: `{id, message_id, to, cc, attachments}` (file names) of the email the provider accepted; live only (test keys send nothing) |
/// | `invoice.send_failed` | `object`: the invoice summary, and `send`: `{id, message_id, bounce, recipients}` of an email the provider accepted and later reported as bounced: `bounce` `permanent` (the address takes no mail) or `transient` (the provider gave up retrying), `recipients` `[{address, diagnostic}]`; on AWS (Amazon SES reports bounces; over SMTP they go to the sender's mailbox), live only. A refusal at sending time is the `send` request's own error instead |
/// | `analysis.completed` | the analysis as listed by `GET /api/v1/analyses`: `{id, type, module?, title, created_at, headline}` |
/// | `job.completed`, `job.failed` | `{job_id, kind, status, result}`: `kind` `invoices.extract` or `analyze`; `status` `succeeded` or `failed`; `result` the job's result (null when failed; `GET /api/v1/jobs/{id}` has its `error`) |
/// | `quota.threshold` | `{percent, used, limit, day, resets_at}`: `percent` 80 or 100 of the daily quota `limit`, reached on the Madrid `day`; live only |
/// | `fiscal.deadline` | `{form, period, end, days_left, description}`: a tax form (`303`, `130`, …) of `period` (`2026-1T`, `2025`, `2026-P1`) due on `end` (Madrid date), `days_left` 7 or 1 (less when the reminder was late); live only |
/// | `verifactu.accepted`, `verifactu.rejected` | `object`: the invoice summary, and `answer`: the tax authority's answer for the invoice's record |
///
/// `fiscal.deadline` is sent 7 days and 1 day before each deadline that
/// applies to the account, once each: people (DNI/NIE issuer) get 303, 390,
/// 130 and 100; companies get 303, 390, 200 and 202; an account without an
/// issuer NIF gets 303 and 390. A reminder missed (the service was down) is
/// sent late with the real `days_left`; when both are due only the 1-day one is.
#[utoipa::path(get, path = "/api/v1/events", tag = "events", operation_id = "list_events", params(PageParams, EventFilters),
    responses((status = 200, description = "A page of events", body = List<Envelope>)))]
async fn list_events(
    State(state): State<AppState>,
    caller: Caller,
    ListQuery { page, filters: q }: ListQuery<EventFilters>,
) -> Result<Json<List<Envelope>>, ApiError> {
    let kind = q
        .kind
        .map(|kind| {
            EventType::parse_subscribable(&kind).ok_or_else(|| {
                ApiError::invalid(
                    "parameter_invalid",
                    format!(
                        "unknown event type {kind:?}; valid types: {}",
                        EventType::SUBSCRIBABLE.map(EventType::code).join(", ")
                    ),
                )
                .param("type")
            })
        })
        .transpose()?;
    let filter = Filter {
        kind,
        delivery_success: q.delivery_success,
    };
    let (found, has_more) = events::list(
        &state.ports,
        &caller.account_id,
        caller.mode,
        page.limit,
        page.starting_after.as_deref(),
        &filter,
    )
    .await?;
    let data = found.iter().map(|e| e.envelope()).collect();
    Ok(Json(List::new(data, has_more)))
}

/// Get an event
///
/// One event of the last 30 days; older ones, another account's and the
/// other mode's are 404.
#[utoipa::path(get, path = "/api/v1/events/{id}", tag = "events", operation_id = "get_event",
    params(("id" = String, Path, description = "evt_…")),
    responses((status = 200, description = "The event", body = Envelope)))]
async fn get_event(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<Envelope>, ApiError> {
    let event = events::get(&state.ports, &caller.account_id, caller.mode, &id).await?;
    Ok(Json(event.envelope()))
}
