//! The embedded engine under a function (`cargo lambda watch` with
//! `SVC_DATA_DIR`): the table, the queues and the blobs in one folder, as
//! `svc serve` keeps them.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use shared::embedded::{FileBlobs, QueueSettings, SqliteQueue, SqliteTable};
use shared::ports::{Clock, Ports, Table};

/// The embedded jobs queue. A job runs for at most 600 s (the worker
/// function's timeout: five files read by Textract, then the AI source); a
/// received job stays invisible 6 times that, as AWS advises for a queue
/// feeding a function, and goes to the dead-letter queue after 5 receives:
/// `JobsQueue` in `template.yaml` says the same.
pub const JOBS_QUEUE: QueueSettings = QueueSettings {
    visibility_timeout: Duration::from_secs(6 * 600),
    max_receives: 5,
};

/// The embedded deliveries queue: 6 times the deliveries function's 30 s
/// timeout (a batch of attempts of at most 10 s each), longer than a
/// delivery's 30 s lease; 5 receives, as `WebhooksQueue` in `template.yaml`.
pub const DELIVERIES_QUEUE: QueueSettings = QueueSettings {
    visibility_timeout: Duration::from_secs(6 * 30),
    max_receives: 5,
};

/// The embedded VERI*FACTU submission queue: 6 times the submitter
/// function's 120 s timeout, 5 receives, as `SubmissionsQueue` in
/// `template.yaml`.
pub const SUBMISSIONS_QUEUE: QueueSettings = QueueSettings {
    visibility_timeout: Duration::from_secs(6 * 120),
    max_receives: 5,
};

pub fn table(dir: &Path, clock: Arc<dyn Clock>) -> Result<Arc<dyn Table>, String> {
    let path = dir.join("svc.db");
    let table = SqliteTable::open(&path, clock).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Arc::new(table))
}

/// `ports` with the embedded queues `jobs`, `deliveries` and `submissions`
/// in `<data_dir>/svc.db`.
pub fn with_queues(ports: Ports, data_dir: &Path) -> Result<Ports, String> {
    let path = data_dir.join("svc.db");
    let open = |name, settings| {
        SqliteQueue::open(&path, name, settings, ports.clock.clone())
            .map_err(|e| format!("{}: {e}", path.display()))
    };
    let (jobs, deliveries, submissions) = (
        open("jobs", JOBS_QUEUE)?,
        open("deliveries", DELIVERIES_QUEUE)?,
        open("submissions", SUBMISSIONS_QUEUE)?,
    );
    Ok(ports
        .with_queues(Arc::new(jobs), Arc::new(deliveries))
        .with_submissions(Arc::new(submissions)))
}

/// `ports` with the embedded queues in `<data_dir>/svc.db` and the blobs
/// under `<data_dir>/blobs/`: what `svc` runs on.
pub fn with_embedded_queues_and_blobs(ports: Ports, data_dir: &Path) -> Result<Ports, String> {
    Ok(with_queues(ports, data_dir)?.with_blobs(Arc::new(FileBlobs::new(data_dir))))
}

#[cfg(test)]
mod tests {
    use shared::ports::clock::SystemClock;

    use super::*;

    #[tokio::test]
    async fn the_embedded_queues_and_blobs_live_in_the_data_dir() {
        let dir = tempfile::tempdir().unwrap();
        let clock: Arc<dyn Clock> = Arc::new(SystemClock);
        let table = SqliteTable::open(&dir.path().join("svc.db"), clock.clone()).unwrap();
        let ports = with_embedded_queues_and_blobs(
            shared::adapters::ports(Arc::new(table), clock),
            dir.path(),
        )
        .unwrap();
        ports
            .jobs
            .send(r#"{"job_id":"job_1"}"#, Duration::ZERO)
            .await
            .unwrap();
        let none = ports.deliveries.receive(1, Duration::ZERO).await.unwrap();
        assert!(none.is_empty(), "two queues");
        let jobs = ports.jobs.receive(1, Duration::ZERO).await.unwrap();
        assert_eq!(jobs[0].body, r#"{"job_id":"job_1"}"#);
        ports.blobs.put("jobs/job_1/input", vec![1]).await.unwrap();
        assert!(dir.path().join("blobs/jobs/job_1/input").is_file());
    }
}
