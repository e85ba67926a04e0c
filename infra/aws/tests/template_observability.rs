//! `template.yaml` watches what it runs: every function traced by X-Ray and
//! logging to a log group of the stack that expires, the API's access log,
//! an alarm (to the alarm topic) on each dead-letter queue and on each
//! function, and the alarms on the service's own metrics naming exactly
//! what `shared::metrics` writes. checkov has no CloudFormation check for
//! tracing; these tests are the check.

mod template;

use serde_norway::Value;
use shared::metrics::Metric;
use template::{intrinsic, refers_to, resources_of, template};

fn functions(template: &Value) -> Vec<&str> {
    resources_of(template, "AWS::Serverless::Function")
        .into_iter()
        .map(|(name, _)| name)
        .collect()
}

/// Whether the alarm notifies the alarm topic (the stack's or the given one).
fn notifies_the_topic(alarm: &Value) -> bool {
    let actions = alarm["Properties"]["AlarmActions"].as_sequence();
    actions.is_some_and(|actions| {
        actions.iter().any(|action| {
            intrinsic(action, "If").is_some_and(|choice| {
                choice[0].as_str() == Some("CreateAlarmTopic")
                    && refers_to(&choice[1], "AlarmTopic")
                    && refers_to(&choice[2], "AlarmTopicArn")
            })
        })
    })
}

#[test]
fn every_function_is_traced_and_logs_to_a_group_that_expires() {
    let template = template();
    let globals = &template["Globals"]["Function"];
    assert_eq!(globals["Tracing"].as_str(), Some("Active"));
    let functions = functions(&template);
    assert!(functions.len() >= 19, "{functions:?}");
    let groups = resources_of(&template, "AWS::Logs::LogGroup");
    for function in functions {
        let tracing = &template["Resources"][function]["Properties"]["Tracing"];
        assert!(
            tracing.is_null() || tracing.as_str() == Some("Active"),
            "{function}"
        );
        let name = format!("/aws/lambda/${{{function}}}");
        let group = groups
            .iter()
            .find(|(_, g)| {
                intrinsic(&g["Properties"]["LogGroupName"], "Sub").and_then(Value::as_str)
                    == Some(name.as_str())
            })
            .unwrap_or_else(|| panic!("{function} has no log group named {name}"));
        assert!(
            refers_to(
                &group.1["Properties"]["RetentionInDays"],
                "LogRetentionDays"
            ),
            "{function}: {group:?}"
        );
    }
    let retention = &template["Parameters"]["LogRetentionDays"];
    assert_eq!(retention["Default"].as_u64(), Some(30));
}

#[test]
fn the_api_writes_an_access_log_without_headers() {
    let template = template();
    let api = &template["Resources"]["HttpApi"]["Properties"];
    let settings = &api["AccessLogSettings"];
    let destination = intrinsic(&settings["DestinationArn"], "GetAtt").unwrap();
    assert_eq!(destination.as_str(), Some("ApiAccessLogGroup.Arn"));
    let format: serde_json::Value =
        serde_json::from_str(settings["Format"].as_str().unwrap()).unwrap();
    for field in [
        "requestId",
        "routeKey",
        "status",
        "latency",
        "integrationError",
    ] {
        assert!(format.get(field).is_some(), "{field}: {format}");
    }
    let text = format.to_string().to_lowercase();
    assert!(
        !text.contains("header") && !text.contains("authorization"),
        "{text}"
    );
    let group = &template["Resources"]["ApiAccessLogGroup"]["Properties"];
    assert!(refers_to(&group["RetentionInDays"], "LogRetentionDays"));
}

#[test]
fn every_dead_letter_queue_has_an_alarm_on_its_first_message() {
    let template = template();
    let alarms = resources_of(&template, "AWS::CloudWatch::Alarm");
    for queue in [
        "JobsDeadLetterQueue",
        "WebhooksDeadLetterQueue",
        "SubmissionsDeadLetterQueue",
        "DispatcherFailuresQueue",
        "ScheduleFailuresQueue",
    ] {
        let queue_name = format!("{queue}.QueueName");
        let alarm = alarms
            .iter()
            .find(|(_, a)| {
                let p = &a["Properties"];
                p["MetricName"].as_str() == Some("ApproximateNumberOfMessagesVisible")
                    && intrinsic(&p["Dimensions"][0]["Value"], "GetAtt").and_then(Value::as_str)
                        == Some(queue_name.as_str())
            })
            .unwrap_or_else(|| panic!("no alarm on {queue}"));
        let p = &alarm.1["Properties"];
        assert_eq!(p["Namespace"].as_str(), Some("AWS/SQS"), "{queue}");
        assert_eq!(p["Threshold"].as_u64(), Some(0), "{queue}");
        assert_eq!(
            p["ComparisonOperator"].as_str(),
            Some("GreaterThanThreshold"),
            "{queue}"
        );
        assert!(notifies_the_topic(alarm.1), "{queue}");
    }
}

#[test]
fn every_function_has_an_errors_and_throttles_alarm() {
    let template = template();
    let alarms = resources_of(&template, "AWS::CloudWatch::Alarm");
    for function in functions(&template) {
        let watched = |metric: &str| {
            alarms.iter().any(|(_, a)| {
                notifies_the_topic(a)
                    && a["Properties"]["Metrics"]
                        .as_sequence()
                        .into_iter()
                        .flatten()
                        .any(|m| {
                            let stat = &m["MetricStat"]["Metric"];
                            stat["MetricName"].as_str() == Some(metric)
                                && refers_to(&stat["Dimensions"][0]["Value"], function)
                        })
            })
        };
        assert!(watched("Errors"), "{function}: no errors alarm");
        assert!(watched("Throttles"), "{function}: no throttles alarm");
    }
}

#[test]
fn the_alarms_on_the_services_metrics_name_what_the_code_writes() {
    let template = template();
    let variables = &template["Globals"]["Function"]["Environment"]["Variables"];
    assert!(refers_to(
        &variables[shared::metrics::NAMESPACE_VAR],
        "AWS::StackName"
    ));
    let alarms = resources_of(&template, "AWS::CloudWatch::Alarm");
    let alarm_on = |metric: Metric| {
        let (_, alarm) = alarms
            .iter()
            .find(|(_, a)| a["Properties"]["MetricName"].as_str() == Some(metric.name()))
            .unwrap_or_else(|| panic!("no alarm on {}", metric.name()));
        let p = &alarm["Properties"];
        assert!(refers_to(&p["Namespace"], "AWS::StackName"), "{p:?}");
        assert!(p["Dimensions"].is_null(), "the code writes no dimensions");
        assert!(notifies_the_topic(alarm));
        p.clone()
    };
    let oldest = alarm_on(Metric::VerifactuOldestPendingSeconds);
    assert_eq!(oldest["Threshold"].as_u64(), Some(3600));
    assert_eq!(
        oldest["ComparisonOperator"].as_str(),
        Some("GreaterThanThreshold")
    );
    let expiry = alarm_on(Metric::CertificateDaysToExpiry);
    assert_eq!(expiry["Threshold"].as_u64(), Some(30));
    assert_eq!(
        expiry["ComparisonOperator"].as_str(),
        Some("LessThanThreshold")
    );
    assert_eq!(expiry["Statistic"].as_str(), Some("Minimum"));
}

#[test]
fn the_stream_lag_and_the_apis_5xx_rate_are_alarmed_and_shown() {
    let template = template();
    let lag = &template["Resources"]["DispatcherIteratorAgeAlarm"];
    assert_eq!(
        lag["Properties"]["MetricName"].as_str(),
        Some("IteratorAge")
    );
    assert!(refers_to(
        &lag["Properties"]["Dimensions"][0]["Value"],
        "DispatcherFunction"
    ));
    assert!(notifies_the_topic(lag));
    let rate = &template["Resources"]["Api5xxRateAlarm"];
    let metrics = rate["Properties"]["Metrics"].as_sequence().unwrap();
    let names: Vec<_> = metrics
        .iter()
        .filter_map(|m| m["MetricStat"]["Metric"]["MetricName"].as_str())
        .collect();
    assert_eq!(names, ["5xx", "Count"]);
    assert!(notifies_the_topic(rate));

    let dashboard = &template["Resources"]["Dashboard"];
    assert_eq!(
        dashboard["Type"].as_str(),
        Some("AWS::CloudWatch::Dashboard")
    );
    let body = intrinsic(&dashboard["Properties"]["DashboardBody"], "Sub")
        .and_then(Value::as_str)
        .unwrap();
    let body: serde_json::Value = serde_json::from_str(body).unwrap();
    let text = body.to_string();
    for metric in Metric::ALL {
        assert!(
            text.contains(&format!("\"{}\"", metric.name())),
            "{}",
            metric.name()
        );
    }
}
