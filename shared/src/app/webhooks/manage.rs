//! Registering and managing webhooks, per account and mode: a test key
//! manages test-mode webhooks, which receive only test-mode events.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::WebhookError;
use super::sealing;
use super::store::{self, ROTATION_OVERLAP, Record, Space};
use crate::app::keys::Caller;
use crate::domain::account::Mode;
use crate::ports::Ports;
use crate::ports::table::{Condition, TableError, Write};
use crate::webhooks::event_type::Subscription;
use crate::webhooks::health::Health;
use crate::webhooks::secret::Secret;
use crate::webhooks::url::UrlError;

/// Webhooks per account and mode (Stripe's limit).
pub const MAX_WEBHOOKS: usize = 16;
const MAX_DESCRIPTION: usize = 500;
/// Rounds of read-modify-write before an update gives up to a concurrent writer.
const UPDATE_ROUNDS: usize = 5;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"url": "https://example.com/hooks/svc", "events": ["invoice.paid", "job.completed"],
    "description": "ERP sync"}))]
pub struct WebhookInput {
    /// Where events are POSTed: https (http only for test-mode webhooks),
    /// no credentials, no fragment, a public address, and port 443 or 8443
    /// (80 for http test-mode URLs; the operator may allow more with
    /// `SVC_WEBHOOK_PORTS`). Anything else is 400 `url_not_allowed`, which
    /// never says where the host resolves (see the tag's SSRF rules).
    pub url: String,
    /// Event types to receive, or `["*"]` for every type, present and future.
    pub events: Vec<String>,
    /// Up to 500 characters, for the account's own reference.
    pub description: Option<String>,
}

/// The fields to change; the others stay.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"enabled": true}))]
pub struct WebhookPatch {
    pub url: Option<String>,
    pub events: Option<Vec<String>>,
    /// `false` stops deliveries; `true` resumes them and clears `disabled_reason`
    /// and `failing_since`. Events created while disabled are not sent later.
    pub enabled: Option<bool>,
    /// An empty text removes the description.
    pub description: Option<String>,
}

#[derive(Clone, Debug, Serialize, ToSchema)]
#[schema(example = json!({"id": "we_019aa3b7c2e41f0c2a9d8e7b6a5c", "object": "webhook",
    "url": "https://example.com/hooks/svc", "events": ["invoice.paid", "job.completed"], "description": "ERP sync",
    "enabled": true, "disabled_reason": null, "failing_since": null, "livemode": true,
    "created_at": "2026-11-21T10:00:00Z",
    "secret": "whsec_5f2a9c0e41b7d3a8e6c1f0b29d4e7a1c3b5f8e0d2a4c6e8f0a1b3c5d7e9f1a2b"}))]
pub struct Webhook {
    /// `we_…`
    pub id: String,
    /// Always `webhook`.
    pub object: &'static str,
    pub url: String,
    /// The subscribed event types, or `["*"]`.
    pub events: Vec<String>,
    pub description: Option<String>,
    /// Whether events are delivered.
    pub enabled: bool,
    /// Why the service disabled the webhook (a `410 Gone` answer, or 3 days of
    /// failed attempts); null when enabled or disabled by the account.
    pub disabled_reason: Option<String>,
    /// The first failed attempt since the last success: the 3-day clock.
    pub failing_since: Option<DateTime<Utc>>,
    pub livemode: bool,
    pub created_at: DateTime<Utc>,
    /// The signing secret: in the responses of create and rotate-secret only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
    /// Until when the rotated-out secret still signs beside the new one
    /// (rotate-secret response only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_secret_expires_at: Option<DateTime<Utc>>,
}

fn view(r: &Record) -> Webhook {
    Webhook {
        id: r.id.clone(),
        object: "webhook",
        url: r.url.clone(),
        events: r.subscription.to_list(),
        description: r.description.clone(),
        enabled: r.health.enabled,
        disabled_reason: r.health.disabled_reason.clone(),
        failing_since: r.health.failing_since,
        livemode: r.space.mode.is_live(),
        created_at: r.created_at,
        secret: None,
        previous_secret_expires_at: None,
    }
}

pub(super) fn space(caller: &Caller) -> Space {
    Space {
        account_id: caller.account_id.to_string(),
        mode: caller.mode,
    }
}

pub(super) async fn record(
    ports: &Ports,
    caller: &Caller,
    id: &str,
) -> Result<Record, WebhookError> {
    store::get_webhook(ports, &space(caller), id)
        .await?
        .ok_or_else(|| WebhookError::NotFound(format!("no webhook {id}")))
}

/// The URL if it meets the rules and the sender may reach it now.
async fn checked_url(ports: &Ports, raw: &str, mode: Mode) -> Result<String, WebhookError> {
    let url =
        crate::webhooks::url::parse(raw, mode, ports.sender.ports()).map_err(|e| match e {
            UrlError::Invalid(m) => WebhookError::UrlInvalid(m),
            UrlError::PortNotAllowed(m) => WebhookError::UrlNotAllowed(m),
        })?;
    ports
        .sender
        .vet(&url)
        .await
        .map_err(|r| WebhookError::UrlNotAllowed(r.to_string()))?;
    Ok(url.to_string())
}

fn subscription(events: &[String]) -> Result<Subscription, WebhookError> {
    Subscription::parse(events).map_err(|e| WebhookError::Invalid {
        param: e
            .index
            .map_or_else(|| "events".into(), |i| format!("events[{i}]")),
        message: e.message,
    })
}

fn description(text: Option<String>) -> Result<Option<String>, WebhookError> {
    match text {
        Some(t) if t.chars().count() > MAX_DESCRIPTION => Err(WebhookError::Invalid {
            param: "description".into(),
            message: format!("description has more than {MAX_DESCRIPTION} characters"),
        }),
        Some(t) if t.trim().is_empty() => Ok(None),
        other => Ok(other),
    }
}

/// The new webhook, its secret shown, and the write that stores it.
pub async fn create(
    ports: &Ports,
    caller: &Caller,
    input: WebhookInput,
) -> Result<(Webhook, Vec<Write>), WebhookError> {
    let subscription = subscription(&input.events)?;
    let description = description(input.description)?;
    let url = checked_url(ports, &input.url, caller.mode).await?;
    let space = space(caller);
    let (existing, _) = store::webhooks_page(ports, &space, MAX_WEBHOOKS, None).await?;
    if existing.len() >= MAX_WEBHOOKS {
        return Err(WebhookError::TooMany);
    }
    let now = ports.clock.now();
    let id = crate::ids::new_ordered_id("we", now);
    let secret = Secret::generate();
    let stored = sealing::seal(ports, &space, &id, &secret).await?;
    let record = Record {
        id,
        space,
        url,
        subscription,
        description,
        health: Health {
            enabled: true,
            disabled_reason: None,
            failing_since: None,
        },
        secret: stored,
        previous: None,
        created_at: now,
        version: 1,
    };
    let webhook = Webhook {
        secret: Some(secret.expose().to_string()),
        ..view(&record)
    };
    Ok((webhook, vec![store::put_webhook(&record, None)]))
}

pub async fn get(ports: &Ports, caller: &Caller, id: &str) -> Result<Webhook, WebhookError> {
    Ok(view(&record(ports, caller, id).await?))
}

/// Webhooks, newest first, after the webhook `starting_after`.
pub async fn list(
    ports: &Ports,
    caller: &Caller,
    limit: usize,
    starting_after: Option<&str>,
) -> Result<(Vec<Webhook>, bool), WebhookError> {
    let (records, has_more) =
        store::webhooks_page(ports, &space(caller), limit, starting_after).await?;
    Ok((records.iter().map(view).collect(), has_more))
}

/// Applies the patch and commits it, again on fresh state if a delivery
/// worker changed the webhook meanwhile.
pub async fn update(
    ports: &Ports,
    caller: &Caller,
    id: &str,
    patch: WebhookPatch,
) -> Result<Webhook, WebhookError> {
    let url = match &patch.url {
        Some(raw) => Some(checked_url(ports, raw, caller.mode).await?),
        None => None,
    };
    let subscription = patch.events.as_deref().map(subscription).transpose()?;
    let description = patch
        .description
        .map(|d| description(Some(d)))
        .transpose()?;
    for _ in 0..UPDATE_ROUNDS {
        let current = record(ports, caller, id).await?;
        let (secret, previous) = sealed_secrets(ports, &current).await?;
        let health = match patch.enabled {
            Some(true) if !current.health.enabled => Health {
                enabled: true,
                disabled_reason: None,
                failing_since: None,
            },
            Some(false) => Health {
                enabled: false,
                ..current.health.clone()
            },
            _ => current.health.clone(),
        };
        let updated = Record {
            url: url.clone().unwrap_or_else(|| current.url.clone()),
            subscription: subscription
                .clone()
                .unwrap_or_else(|| current.subscription.clone()),
            description: description
                .clone()
                .unwrap_or_else(|| current.description.clone()),
            health,
            secret,
            previous,
            version: current.version + 1,
            ..current.clone()
        };
        match ports
            .table
            .transact(vec![store::put_webhook(&updated, Some(current.version))])
            .await
        {
            Ok(()) => return Ok(view(&updated)),
            Err(TableError::ConditionFailed { .. }) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(TableError::Conflict.into())
}

/// The record's secrets sealed, those written in clear before sealing too
/// (the migration: at the account's next change of the webhook).
async fn sealed_secrets(
    ports: &Ports,
    current: &Record,
) -> Result<(sealing::Stored, Option<(sealing::Stored, DateTime<Utc>)>), WebhookError> {
    let (space, id) = (&current.space, current.id.as_str());
    let secret = sealing::sealed(ports, space, id, current.secret.clone()).await?;
    let previous = match &current.previous {
        Some((stored, until)) => Some((
            sealing::sealed(ports, space, id, stored.clone()).await?,
            *until,
        )),
        None => None,
    };
    Ok((secret, previous))
}

/// Deletes the webhook; deliveries in flight for it end without a send.
pub async fn delete(ports: &Ports, caller: &Caller, id: &str) -> Result<Webhook, WebhookError> {
    let current = record(ports, caller, id).await?;
    match ports
        .table
        .delete(
            &store::webhook_key(&current.space, id),
            Some(Condition::Present),
        )
        .await
    {
        Ok(()) => Ok(view(&current)),
        Err(TableError::ConditionFailed { .. }) => {
            Err(WebhookError::NotFound(format!("no webhook {id}")))
        }
        Err(e) => Err(e.into()),
    }
}

/// A new secret, shown in the response; the previous one keeps signing for
/// 24 h beside it (an older rotated-out secret stops at once).
pub async fn rotate_secret(
    ports: &Ports,
    caller: &Caller,
    id: &str,
) -> Result<(Webhook, Vec<Write>), WebhookError> {
    let current = record(ports, caller, id).await?;
    let until = ports.clock.now() + ROTATION_OVERLAP;
    let secret = Secret::generate();
    let (old, _) = sealed_secrets(ports, &current).await?;
    let updated = Record {
        secret: sealing::seal(ports, &current.space, id, &secret).await?,
        previous: Some((old, until)),
        version: current.version + 1,
        ..current.clone()
    };
    let webhook = Webhook {
        secret: Some(secret.expose().to_string()),
        previous_secret_expires_at: Some(until),
        ..view(&updated)
    };
    Ok((
        webhook,
        vec![store::put_webhook(&updated, Some(current.version))],
    ))
}
