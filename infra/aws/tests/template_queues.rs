//! `template.yaml` declares the SQS queues with the settings of the embedded
//! host's queues, each with its dead-letter queue, and the staging bucket
//! whose lifecycle removes what a job left behind.

use infra_aws::environment::{DELIVERIES_QUEUE, JOBS_QUEUE, SUBMISSIONS_QUEUE};
use serde_norway::Value;

fn template() -> Value {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../template.yaml"))
        .unwrap();
    serde_norway::from_str(&text).unwrap()
}

#[test]
fn the_template_queues_have_the_embedded_settings() {
    let resources = &template()["Resources"];
    for (queue, dead_letters, settings) in [
        ("JobsQueue", "JobsDeadLetterQueue", JOBS_QUEUE),
        ("WebhooksQueue", "WebhooksDeadLetterQueue", DELIVERIES_QUEUE),
        (
            "SubmissionsQueue",
            "SubmissionsDeadLetterQueue",
            SUBMISSIONS_QUEUE,
        ),
    ] {
        assert_eq!(resources[queue]["Type"].as_str(), Some("AWS::SQS::Queue"));
        let p = &resources[queue]["Properties"];
        let timeout = settings.visibility_timeout.as_secs();
        assert_eq!(p["VisibilityTimeout"].as_u64(), Some(timeout), "{queue}");
        let redrive = &p["RedrivePolicy"];
        let max_receives = u64::from(settings.max_receives);
        assert_eq!(
            redrive["maxReceiveCount"].as_u64(),
            Some(max_receives),
            "{queue}"
        );
        let Value::Tagged(target) = &redrive["deadLetterTargetArn"] else {
            panic!("{queue}: the dead-letter target is not a !GetAtt");
        };
        assert_eq!(target.tag, "GetAtt");
        assert_eq!(
            target.value.as_str(),
            Some(format!("{dead_letters}.Arn").as_str())
        );
        assert_eq!(
            resources[dead_letters]["Type"].as_str(),
            Some("AWS::SQS::Queue")
        );
    }
}

#[test]
fn the_worker_runs_one_job_at_a_time_within_the_queues_visibility() {
    let resources = &template()["Resources"];
    let worker = &resources["WorkerFunction"]["Properties"];
    let timeout = worker["Timeout"].as_u64().unwrap();
    assert_eq!(timeout, 600, "5 files read by Textract, then the AI source");
    assert_eq!(
        worker["Events"]["Jobs"]["Properties"]["BatchSize"].as_u64(),
        Some(1)
    );
    assert_eq!(JOBS_QUEUE.visibility_timeout.as_secs(), 6 * timeout);
    let lease = shared::app::jobs::LEASE.num_seconds() as u64;
    assert!(
        timeout < lease && lease < JOBS_QUEUE.visibility_timeout.as_secs(),
        "a job's lease outlives its run and ends before its message returns"
    );
}

#[test]
fn the_template_staging_bucket_keeps_objects_one_day() {
    let bucket = &template()["Resources"]["StagingBucket"];
    assert_eq!(bucket["Type"].as_str(), Some("AWS::S3::Bucket"));
    let rule = &bucket["Properties"]["LifecycleConfiguration"]["Rules"][0];
    assert_eq!(rule["Status"].as_str(), Some("Enabled"));
    assert_eq!(rule["ExpirationInDays"].as_u64(), Some(1));
}
