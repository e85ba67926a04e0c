//! `infra/aws/operator-policy.json`, the operator's least-privilege IAM
//! policy (README, "Deploying to AWS"): it parses, fits an inline role
//! policy, grants what deploying each resource type of `template.yaml` and
//! running the admin commands and runbooks needs, on the stack's resources
//! by name pattern (`svc-*`, the stack names of `samconfig.toml`) and never
//! `*` but for the actions that have no resource-level permissions.

use serde_json::Value;

const POLICY: &str = include_str!("../operator-policy.json");
const SAMCONFIG: &str = include_str!("../../../samconfig.toml");

/// Actions IAM cannot restrict to a resource: the only ones on `*`.
const ANY_RESOURCE: [&str; 17] = [
    "sts:GetCallerIdentity",
    "cloudformation:ValidateTemplate",
    "kms:CreateKey",
    "lambda:CreateEventSourceMapping",
    "lambda:UpdateEventSourceMapping",
    "lambda:DeleteEventSourceMapping",
    "lambda:GetEventSourceMapping",
    "lambda:ListEventSourceMappings",
    "lambda:TagResource",
    "logs:DescribeLogGroups",
    "logs:CreateLogDelivery",
    "logs:GetLogDelivery",
    "logs:UpdateLogDelivery",
    "logs:DeleteLogDelivery",
    "logs:ListLogDeliveries",
    "logs:PutResourcePolicy",
    "logs:DescribeResourcePolicies",
];
const ANY_RESOURCE_READS: [&str; 4] = [
    "logs:GetQueryResults",
    "cloudwatch:DescribeAlarms",
    "cloudwatch:GetMetricData",
    "cloudwatch:ListMetrics",
];

fn policy() -> Value {
    serde_json::from_str(POLICY).expect("the operator policy is JSON")
}

fn list(value: &Value) -> Vec<&str> {
    match value {
        Value::String(s) => vec![s.as_str()],
        Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn granted(policy: &Value, action: &str) -> bool {
    policy["Statement"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| list(&s["Action"]).contains(&action))
}

#[test]
fn the_policy_is_a_valid_inline_policy_of_allows() {
    let policy = policy();
    assert_eq!(policy["Version"], "2012-10-17");
    // An inline role policy holds 10,240 characters without whitespace (a
    // managed policy only 6,144).
    let compact = serde_json::to_string(&policy).unwrap();
    assert!(compact.len() < 10_240, "{} characters", compact.len());
    let statements = policy["Statement"].as_array().unwrap();
    let mut sids: Vec<&str> = statements
        .iter()
        .map(|s| s["Sid"].as_str().unwrap())
        .collect();
    sids.sort_unstable();
    sids.dedup();
    assert_eq!(sids.len(), statements.len(), "Sids are unique");
    for statement in statements {
        assert_eq!(statement["Effect"], "Allow", "{statement}");
        let actions = list(&statement["Action"]);
        assert!(!actions.is_empty(), "{statement}");
        for action in &actions {
            let (service, name) = action.split_once(':').expect("service:Action");
            assert!(!service.is_empty() && !name.contains('*'), "{action}");
        }
        assert!(!list(&statement["Resource"]).is_empty(), "{statement}");
    }
}

#[test]
fn only_actions_without_resource_permissions_apply_to_any_resource() {
    let policy = policy();
    for statement in policy["Statement"].as_array().unwrap() {
        let resources = list(&statement["Resource"]);
        if resources != ["*"] {
            continue;
        }
        for action in list(&statement["Action"]) {
            assert!(
                ANY_RESOURCE.contains(&action) || ANY_RESOURCE_READS.contains(&action),
                "{action} on any resource"
            );
        }
        if list(&statement["Action"]).contains(&"lambda:CreateEventSourceMapping") {
            assert_eq!(
                statement["Condition"]["StringLike"]["lambda:FunctionArn"],
                "arn:aws:lambda:*:*:function:svc-*"
            );
        }
    }
}

#[test]
fn the_stacks_resources_are_named_by_the_stack_prefix() {
    let stacks: Vec<&str> = SAMCONFIG
        .lines()
        .filter_map(|l| l.trim().strip_prefix("stack_name = "))
        .map(|name| name.trim_matches('"'))
        .collect();
    assert_eq!(stacks, ["svc-dev", "svc-prod"]);
    assert!(stacks.iter().all(|s| s.starts_with("svc-")));
    let policy = policy();
    for statement in policy["Statement"].as_array().unwrap() {
        for resource in list(&statement["Resource"]) {
            if resource == "*" {
                continue;
            }
            assert!(resource.starts_with("arn:aws:"), "{resource}");
            let named_by_stack = resource.contains("svc-")
                || resource.contains("aws-sam-cli-managed-default")
                || resource.contains(":transform/Serverless-2016-10-31")
                || resource.contains("deploymentconfig:CodeDeployDefault.")
                || resource.starts_with("arn:aws:apigateway:")
                || statement["Condition"]["StringLike"]["aws:ResourceTag/aws:cloudformation:stack-name"]
                    == "svc-*";
            assert!(named_by_stack, "{resource} is not the stack's");
        }
    }
}

#[test]
fn every_resource_type_of_the_template_can_be_deployed() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../template.yaml"))
        .unwrap();
    let template: serde_norway::Value = serde_norway::from_str(&text).unwrap();
    let policy = policy();
    // SAM's own: each function's role, schedules, the canary's CodeDeploy.
    for action in [
        "iam:CreateRole",
        "iam:PassRole",
        "events:PutRule",
        "lambda:CreateEventSourceMapping",
        "codedeploy:CreateDeploymentGroup",
        "cloudformation:CreateChangeSet",
    ] {
        assert!(granted(&policy, action), "{action}");
    }
    for (name, resource) in template["Resources"].as_mapping().unwrap() {
        let name = name.as_str().unwrap();
        let kind = resource["Type"].as_str().unwrap();
        let needs = match kind {
            "AWS::DynamoDB::Table" => "dynamodb:CreateTable",
            "AWS::SQS::Queue" => "sqs:CreateQueue",
            "AWS::SQS::QueuePolicy" => "sqs:SetQueueAttributes",
            "AWS::S3::Bucket" => "s3:CreateBucket",
            "AWS::S3::BucketPolicy" => "s3:PutBucketPolicy",
            "AWS::Logs::LogGroup" => "logs:CreateLogGroup",
            "AWS::CloudWatch::Alarm" => "cloudwatch:PutMetricAlarm",
            "AWS::CloudWatch::Dashboard" => "cloudwatch:PutDashboard",
            "AWS::SNS::Topic" => "sns:CreateTopic",
            "AWS::SNS::Subscription" => "sns:Subscribe",
            "AWS::SNS::TopicPolicy" => "sns:SetTopicAttributes",
            "AWS::SES::ConfigurationSet" => "ses:CreateConfigurationSet",
            "AWS::SES::ConfigurationSetEventDestination" => {
                "ses:CreateConfigurationSetEventDestination"
            }
            "AWS::KMS::Key" => "kms:CreateKey",
            "AWS::IAM::Role" => "iam:CreateRole",
            "AWS::Serverless::Function" => "lambda:CreateFunction",
            "AWS::Serverless::HttpApi"
            | "AWS::ApiGatewayV2::DomainName"
            | "AWS::ApiGatewayV2::ApiMapping" => "apigateway:POST",
            other => panic!("{name}: add what deploying a {other} needs to the operator policy"),
        };
        assert!(granted(&policy, needs), "{name} ({kind}) needs {needs}");
    }
}

#[test]
fn the_operator_never_decrypts_certificates_nor_scans_the_table() {
    let policy = policy();
    for action in [
        "kms:Decrypt",
        "kms:CreateGrant",
        "dynamodb:Scan",
        "dynamodb:BatchWriteItem",
        "sqs:PurgeQueue",
    ] {
        assert!(!granted(&policy, action), "{action}");
    }
    for action in [
        "kms:GenerateDataKey",
        "sqs:StartMessageMoveTask",
        "dynamodb:PutItem",
    ] {
        assert!(granted(&policy, action), "{action}");
    }
}
