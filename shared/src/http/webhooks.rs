//! The webhooks group: registration, management, test sends, secret
//! rotation and the delivery log. The rules are in `webhooks.md`, the tag's
//! description in the OpenAPI document.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use utoipa::OpenApi;
use utoipa::openapi::tag::TagBuilder;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::ApiError;
use super::json::ApiJson;
use super::pagination::{List, ListQuery, NoFilters, PageParams};
use super::state::AppState;
use super::unit_of_work::UnitOfWork;
use crate::app::keys::Caller;
use crate::app::webhooks::{self, Attempt, Webhook, WebhookError, WebhookInput, WebhookPatch};

#[derive(OpenApi)]
struct WebhooksDoc;

pub fn routes() -> OpenApiRouter<AppState> {
    let mut doc = WebhooksDoc::openapi();
    doc.tags = Some(vec![
        TagBuilder::new()
            .name("webhooks")
            .description(Some(include_str!("webhooks.md")))
            .build(),
    ]);
    OpenApiRouter::with_openapi(doc)
        .routes(routes!(list_webhooks, create_webhook))
        .routes(routes!(get_webhook, update_webhook, delete_webhook))
        .routes(routes!(test_webhook))
        .routes(routes!(rotate_webhook_secret))
        .routes(routes!(list_webhook_deliveries))
        .routes(routes!(retry_webhook_delivery))
}

impl From<WebhookError> for ApiError {
    fn from(e: WebhookError) -> Self {
        let message = e.to_string();
        match e {
            WebhookError::Invalid { param, .. } => {
                ApiError::invalid("parameter_invalid", message).param(param)
            }
            WebhookError::UrlInvalid(_) => ApiError::invalid("url_invalid", message).param("url"),
            WebhookError::UrlNotAllowed(_) => {
                ApiError::invalid("url_not_allowed", message).param("url")
            }
            WebhookError::TooMany => ApiError::invalid(
                "webhook_limit_reached",
                format!("{message}; delete one first"),
            ),
            WebhookError::NotFound(_) => ApiError::not_found(message),
            WebhookError::Storage(t) => t.into(),
            WebhookError::NoSealingKey | WebhookError::Sealing(_) => {
                tracing::error!(error = %message, "webhooks");
                ApiError::unavailable(
                    "webhooks are unavailable: the service has no key to seal their secrets",
                )
            }
            WebhookError::Queue(_) | WebhookError::Malformed(_) | WebhookError::Busy(_) => {
                tracing::error!(error = %message, "webhooks");
                ApiError::unavailable("webhooks are temporarily unavailable; retry the request")
            }
        }
    }
}

/// List webhooks
///
/// The webhooks of the key's mode, newest first.
#[utoipa::path(get, path = "/api/v1/webhooks", tag = "webhooks", operation_id = "list_webhooks", params(PageParams),
    responses((status = 200, description = "A page of webhooks (without secrets)", body = List<Webhook>)))]
async fn list_webhooks(
    State(state): State<AppState>,
    caller: Caller,
    ListQuery { page, .. }: ListQuery<NoFilters>,
) -> Result<Json<List<Webhook>>, ApiError> {
    let (data, has_more) = webhooks::list(
        &state.ports,
        &caller,
        page.limit,
        page.starting_after.as_deref(),
    )
    .await?;
    Ok(Json(List::new(data, has_more)))
}

/// Register a webhook
///
/// Checks the URL (rules and where it resolves: 400 `url_invalid` or
/// `url_not_allowed`, saying why) and the event types (400
/// `parameter_invalid` with `param` = `events[i]`). The response shows the
/// signing `secret`, the only one that does. At most 16 webhooks per account
/// and mode (400 `webhook_limit_reached`).
#[utoipa::path(post, path = "/api/v1/webhooks", tag = "webhooks", operation_id = "create_webhook",
    request_body = WebhookInput,
    responses((status = 201, description = "The new webhook, with its secret", body = Webhook)))]
async fn create_webhook(
    State(state): State<AppState>,
    caller: Caller,
    uow: UnitOfWork,
    ApiJson(input): ApiJson<WebhookInput>,
) -> Result<(StatusCode, Json<Webhook>), ApiError> {
    let (webhook, writes) = webhooks::create(&state.ports, &caller, input).await?;
    uow.extend(writes);
    Ok((StatusCode::CREATED, Json(webhook)))
}

/// Get a webhook
#[utoipa::path(get, path = "/api/v1/webhooks/{id}", tag = "webhooks", operation_id = "get_webhook",
    params(("id" = String, Path, description = "we_…")),
    responses((status = 200, description = "The webhook (without its secret)", body = Webhook)))]
async fn get_webhook(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<Webhook>, ApiError> {
    Ok(Json(webhooks::get(&state.ports, &caller, &id).await?))
}

/// Update a webhook
///
/// Changes the fields sent: `url` (checked as on registration), `events`,
/// `description`, `enabled`. `{"enabled": true}` re-enables a disabled
/// webhook and clears `disabled_reason` and `failing_since`.
#[utoipa::path(patch, path = "/api/v1/webhooks/{id}", tag = "webhooks", operation_id = "update_webhook",
    params(("id" = String, Path, description = "we_…")), request_body = WebhookPatch,
    responses((status = 200, description = "The updated webhook", body = Webhook)))]
async fn update_webhook(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    ApiJson(patch): ApiJson<WebhookPatch>,
) -> Result<Json<Webhook>, ApiError> {
    Ok(Json(
        webhooks::update(&state.ports, &caller, &id, patch).await?,
    ))
}

/// Delete a webhook
///
/// Deliveries still pending for it end without being sent.
#[utoipa::path(delete, path = "/api/v1/webhooks/{id}", tag = "webhooks", operation_id = "delete_webhook",
    params(("id" = String, Path, description = "we_…")),
    responses((status = 200, description = "The deleted webhook", body = Webhook)))]
async fn delete_webhook(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<Webhook>, ApiError> {
    Ok(Json(webhooks::delete(&state.ports, &caller, &id).await?))
}

/// Send a test event
///
/// Sends a signed `webhook.test` event to this webhook now and answers with
/// the attempt (also in the delivery log). A failed test is not retried.
#[utoipa::path(post, path = "/api/v1/webhooks/{id}/test", tag = "webhooks", operation_id = "test_webhook",
    params(("id" = String, Path, description = "we_…")),
    responses((status = 200, description = "The attempt: status code, duration, response, error", body = Attempt)))]
async fn test_webhook(
    State(state): State<AppState>,
    caller: Caller,
    uow: UnitOfWork,
    Path(id): Path<String>,
) -> Result<Json<Attempt>, ApiError> {
    let (attempt, writes) = webhooks::test(&state.ports, &caller, &id).await?;
    uow.extend(writes);
    Ok(Json(attempt))
}

/// Rotate the signing secret
///
/// A new secret, shown in this response only. The previous secret keeps
/// signing beside it for 24 hours (`previous_secret_expires_at`): deliveries
/// carry one `v1=` signature per secret meanwhile.
#[utoipa::path(post, path = "/api/v1/webhooks/{id}/rotate-secret", tag = "webhooks", operation_id = "rotate_webhook_secret",
    params(("id" = String, Path, description = "we_…")),
    responses((status = 200, description = "The webhook with its new secret", body = Webhook)))]
async fn rotate_webhook_secret(
    State(state): State<AppState>,
    caller: Caller,
    uow: UnitOfWork,
    Path(id): Path<String>,
) -> Result<Json<Webhook>, ApiError> {
    let (webhook, writes) = webhooks::rotate_secret(&state.ports, &caller, &id).await?;
    uow.extend(writes);
    Ok(Json(webhook))
}

/// List a webhook's delivery attempts
///
/// Every attempt (scheduled, manual retry, test) of the last 30 days, newest
/// first.
#[utoipa::path(get, path = "/api/v1/webhooks/{id}/deliveries", tag = "webhooks", operation_id = "list_webhook_deliveries",
    params(("id" = String, Path, description = "we_…"), PageParams),
    responses((status = 200, description = "A page of attempts", body = List<Attempt>)))]
async fn list_webhook_deliveries(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    ListQuery { page, .. }: ListQuery<NoFilters>,
) -> Result<Json<List<Attempt>>, ApiError> {
    let (data, has_more) = webhooks::attempts(
        &state.ports,
        &caller,
        &id,
        page.limit,
        page.starting_after.as_deref(),
    )
    .await?;
    Ok(Json(List::new(data, has_more)))
}

/// Retry a delivery
///
/// Sends the delivery's event again now (whatever its state) and answers
/// with the attempt. A success finishes a pending or failed delivery.
#[utoipa::path(post, path = "/api/v1/webhooks/{id}/deliveries/{delivery_id}/retry", tag = "webhooks",
    operation_id = "retry_webhook_delivery",
    params(("id" = String, Path, description = "we_…"), ("delivery_id" = String, Path, description = "dlv_…, from the delivery log")),
    responses((status = 200, description = "The attempt", body = Attempt)))]
async fn retry_webhook_delivery(
    State(state): State<AppState>,
    caller: Caller,
    uow: UnitOfWork,
    Path((id, delivery_id)): Path<(String, String)>,
) -> Result<Json<Attempt>, ApiError> {
    let (attempt, writes) = webhooks::retry(&state.ports, &caller, &id, &delivery_id).await?;
    uow.extend(writes);
    Ok(Json(attempt))
}
