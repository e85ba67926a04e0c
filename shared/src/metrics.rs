//! The service's own metrics, written as CloudWatch embedded-metric-format
//! (EMF) lines on stdout: Lambda sends stdout to CloudWatch Logs, which
//! turns each line into metric values, so no metrics client or API call is
//! needed. The namespace is `SVC_METRICS_NAMESPACE` (the stack's name on
//! AWS; `svc` when unset); metrics have no dimensions, so an alarm names a
//! metric by namespace and name alone (see the alarms in `template.yaml`).
//!
//! Lines are written only on Lambda (`AWS_LAMBDA_FUNCTION_NAME` is set):
//! `svc serve` has no CloudWatch to read them, and its console stays
//! readable.

use std::io::Write as _;
use std::sync::OnceLock;

use serde_json::{Map, Value, json};

/// The variable naming the metrics' namespace.
pub const NAMESPACE_VAR: &str = "SVC_METRICS_NAMESPACE";
/// The namespace when `NAMESPACE_VAR` is unset.
pub const DEFAULT_NAMESPACE: &str = "svc";

/// Every metric the service writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// An HTTP request answered (1 each).
    Requests,
    /// An HTTP request answered 5xx (1 each; 0 with every other answer, so
    /// the average is the error rate).
    ServerErrors,
    /// An invoice issued (ordinary or rectifying), counted after its commit
    /// from its `invoice.issued` event.
    InvoicesIssued,
    /// VERI*FACTU records waiting for the AEAT's answer, after a sweep.
    VerifactuPendingRecords,
    /// How long the oldest of them has waited, after a sweep.
    VerifactuOldestPendingSeconds,
    /// A webhook delivery that ended failed (its retries spent, or its
    /// webhook disabled).
    DeliveriesFailed,
    /// An async job that ended failed.
    JobsFailed,
    /// Days until the soonest-expiring issuer certificate expires (negative
    /// once expired), from the hourly scheduler.
    CertificateDaysToExpiry,
}

impl Metric {
    pub const ALL: [Metric; 8] = [
        Metric::Requests,
        Metric::ServerErrors,
        Metric::InvoicesIssued,
        Metric::VerifactuPendingRecords,
        Metric::VerifactuOldestPendingSeconds,
        Metric::DeliveriesFailed,
        Metric::JobsFailed,
        Metric::CertificateDaysToExpiry,
    ];

    /// The CloudWatch metric name.
    pub const fn name(self) -> &'static str {
        match self {
            Metric::Requests => "Requests",
            Metric::ServerErrors => "ServerErrors",
            Metric::InvoicesIssued => "InvoicesIssued",
            Metric::VerifactuPendingRecords => "VerifactuPendingRecords",
            Metric::VerifactuOldestPendingSeconds => "VerifactuOldestPendingSeconds",
            Metric::DeliveriesFailed => "DeliveriesFailed",
            Metric::JobsFailed => "JobsFailed",
            Metric::CertificateDaysToExpiry => "CertificateDaysToExpiry",
        }
    }

    /// The CloudWatch unit.
    pub const fn unit(self) -> &'static str {
        match self {
            Metric::VerifactuOldestPendingSeconds => "Seconds",
            Metric::CertificateDaysToExpiry => "None",
            _ => "Count",
        }
    }
}

/// The EMF line of `values`, in `namespace`, at `timestamp_ms` (ms since the
/// epoch): one JSON object, no newline.
pub fn line(namespace: &str, values: &[(Metric, f64)], timestamp_ms: i64) -> String {
    let definitions: Vec<Value> = values
        .iter()
        .map(|(metric, _)| json!({"Name": metric.name(), "Unit": metric.unit()}))
        .collect();
    let mut root = Map::new();
    root.insert(
        "_aws".into(),
        json!({
            "Timestamp": timestamp_ms,
            "CloudWatchMetrics": [{
                "Namespace": namespace,
                "Dimensions": [[]],
                "Metrics": definitions,
            }],
        }),
    );
    for (metric, value) in values {
        root.insert(metric.name().into(), json!(value));
    }
    Value::Object(root).to_string()
}

struct Sink {
    namespace: String,
}

/// Where metrics go: `None` off Lambda.
fn sink() -> Option<&'static Sink> {
    static SINK: OnceLock<Option<Sink>> = OnceLock::new();
    SINK.get_or_init(|| {
        std::env::var_os("AWS_LAMBDA_FUNCTION_NAME")?;
        let namespace = std::env::var(NAMESPACE_VAR)
            .ok()
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| DEFAULT_NAMESPACE.to_string());
        Some(Sink { namespace })
    })
    .as_ref()
}

/// Whether metrics are written here (on Lambda): lets a caller skip the work
/// of measuring what nobody will read.
pub fn enabled() -> bool {
    sink().is_some()
}

/// Writes `values` as one EMF line on stdout, when `enabled`.
pub fn emit(values: &[(Metric, f64)]) {
    let Some(sink) = sink() else {
        return;
    };
    let now = chrono::Utc::now().timestamp_millis();
    let mut line = line(&sink.namespace, values, now);
    line.push('\n');
    // One write per line, so concurrent requests never interleave lines.
    let _ = std::io::stdout().lock().write_all(line.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_an_emf_document_naming_each_value_at_the_root() {
        let text = line(
            "svc-prod",
            &[(Metric::Requests, 1.0), (Metric::ServerErrors, 0.0)],
            1_764_230_400_000,
        );
        assert!(!text.contains('\n'));
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["_aws"]["Timestamp"], 1_764_230_400_000_i64);
        let directives = v["_aws"]["CloudWatchMetrics"].as_array().unwrap();
        assert_eq!(directives.len(), 1);
        let directive = &directives[0];
        assert_eq!(directive["Namespace"], "svc-prod");
        assert_eq!(directive["Dimensions"], json!([[]]));
        assert_eq!(
            directive["Metrics"],
            json!([
                {"Name": "Requests", "Unit": "Count"},
                {"Name": "ServerErrors", "Unit": "Count"}
            ])
        );
        assert_eq!(v["Requests"], 1.0);
        assert_eq!(v["ServerErrors"], 0.0);
        assert_eq!(v.as_object().unwrap().len(), 3, "{text}");
    }

    #[test]
    fn units_and_names_are_cloudwatchs() {
        let seconds = line("svc", &[(Metric::VerifactuOldestPendingSeconds, 90.0)], 0);
        assert!(seconds.contains(r#""Unit":"Seconds""#), "{seconds}");
        let days = line("svc", &[(Metric::CertificateDaysToExpiry, -2.0)], 0);
        let v: Value = serde_json::from_str(&days).unwrap();
        assert_eq!(v["CertificateDaysToExpiry"], -2.0);
        assert_eq!(
            v["_aws"]["CloudWatchMetrics"][0]["Metrics"][0]["Unit"],
            "None"
        );
        let mut names: Vec<&str> = Metric::ALL.iter().map(|m| m.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Metric::ALL.len());
        assert!(
            names
                .iter()
                .all(|n| n.chars().all(|c| c.is_ascii_alphanumeric()))
        );
    }

    #[test]
    fn nothing_is_written_off_lambda() {
        // The test binary runs outside Lambda, unless someone set the
        // variable for it.
        assert_eq!(
            enabled(),
            std::env::var_os("AWS_LAMBDA_FUNCTION_NAME").is_some()
        );
    }
}
