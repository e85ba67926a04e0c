//! A job as a table item: pk `JOB#<job_id>`, sk `JOB` (one partition per
//! job, so workers never contend with other accounts' jobs), `entity` =
//! "job" (the dispatcher sends the job's message when such an item is
//! created), times as RFC 3339 text in milliseconds, `lease_until` in epoch
//! milliseconds, the result and error as JSON text, and `ttl` =
//! `expires_at`.

use chrono::{DateTime, Utc};
use serde_json::Value as Json;

use super::model::{Job, JobError, Kind, Status, timestamp};
use crate::ports::table::{Item, Key, TTL, TableError};

pub fn key(id: &str) -> Key {
    Key::new(format!("JOB#{id}"), "JOB")
}

fn error_text(error: &JobError) -> String {
    serde_json::to_string(error).expect("job errors serialise")
}

impl Job {
    pub fn to_item(&self) -> Item {
        let mut item = Item::new(key(&self.id))
            .with("entity", "job")
            .with("id", self.id.as_str())
            .with("account_id", self.account_id.as_str())
            .with("mode", self.mode.as_str())
            .with("plan", self.plan.as_str())
            .with("key_id", self.key_id.as_str())
            .with("kind", self.kind.as_str())
            .with("status", self.status.as_str())
            .with("created_at", timestamp(self.created_at))
            .with(TTL, self.expires_at.timestamp())
            .with("attempts", i64::from(self.attempts))
            .with("version", self.version);
        let optional = [
            ("started_at", self.started_at.map(timestamp)),
            ("finished_at", self.finished_at.map(timestamp)),
            ("result", self.result.as_ref().map(Json::to_string)),
            ("error", self.error.as_ref().map(error_text)),
            ("quota_day", self.quota_day.clone()),
        ];
        for (name, value) in optional {
            if let Some(value) = value {
                item = item.with(name, value);
            }
        }
        if let Some(lease) = self.lease_until {
            item = item.with("lease_until", lease.timestamp_millis());
        }
        item
    }

    pub fn from_item(item: &Item) -> Result<Job, TableError> {
        let corrupt = |what: &str| TableError::Invalid(format!("job item {}: {what}", item.key));
        let text = |name: &str| item.s(name).ok_or_else(|| corrupt(name));
        let time = |name: &str| -> Result<Option<DateTime<Utc>>, TableError> {
            item.s(name)
                .map(|s| s.parse().map_err(|_| corrupt(name)))
                .transpose()
        };
        Ok(Job {
            id: text("id")?.to_string(),
            account_id: text("account_id")?
                .parse()
                .map_err(|_| corrupt("account_id"))?,
            mode: text("mode")?.parse().map_err(|_| corrupt("mode"))?,
            plan: text("plan")?.parse().map_err(|_| corrupt("plan"))?,
            key_id: text("key_id")?.to_string(),
            kind: Kind::parse(text("kind")?).ok_or_else(|| corrupt("kind"))?,
            status: Status::parse(text("status")?).ok_or_else(|| corrupt("status"))?,
            created_at: time("created_at")?.ok_or_else(|| corrupt("created_at"))?,
            started_at: time("started_at")?,
            finished_at: time("finished_at")?,
            expires_at: item
                .ttl()
                .and_then(|t| DateTime::from_timestamp(t, 0))
                .ok_or_else(|| corrupt("ttl"))?,
            attempts: item
                .n("attempts")
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| corrupt("attempts"))?,
            result: item
                .s("result")
                .map(|r| serde_json::from_str(r).map_err(|_| corrupt("result")))
                .transpose()?,
            error: item
                .s("error")
                .map(|e| serde_json::from_str(e).map_err(|_| corrupt("error")))
                .transpose()?,
            quota_day: item.s("quota_day").map(str::to_string),
            lease_until: item
                .n("lease_until")
                .map(|ms| DateTime::from_timestamp_millis(ms).ok_or_else(|| corrupt("lease_until")))
                .transpose()?,
            version: item.n("version").ok_or_else(|| corrupt("version"))?,
        })
    }
}

#[cfg(test)]
mod tests {
    use chrono::Duration;
    use serde_json::json;

    use super::*;
    use crate::app::jobs::model::tests::caller;

    #[test]
    fn a_job_reads_back_as_written() {
        let now = "2026-11-21T10:00:00.123456Z".parse().unwrap();
        let mut job = Job::new(&caller(), Kind::Analyze, Some("2026-11-21".into()), now);
        assert_eq!(timestamp(job.created_at), "2026-11-21T10:00:00.123Z");
        assert_eq!(timestamp(job.expires_at), "2026-11-22T10:00:01.000Z");
        assert_eq!(Job::from_item(&job.to_item()).unwrap(), job);
        job.status = Status::Failed;
        job.attempts = 3;
        job.started_at = Some(job.created_at);
        job.finished_at = Some(job.created_at);
        job.lease_until = Some(job.created_at + Duration::seconds(120));
        job.error = Some(JobError::invalid("report_too_large", "too big", None));
        job.result = Some(json!({"a": [1, 2]}));
        assert_eq!(Job::from_item(&job.to_item()).unwrap(), job);
    }
}
