//! `template.yaml` keeps the data safe and the traffic bounded: the table
//! cannot be deleted by accident, the bucket and every queue refuse plain
//! HTTP, no principal but the roles that talk to the AEAT (the submitter's
//! and the AEAT questions') may decrypt certificates (the web application
//! may seal them), webhook signing secrets have a key of their own that only
//! the functions that create, rotate, test or deliver webhooks may use,
//! every function writes only its own
//! item kinds (accounts, keys and certificates only the web application's),
//! the API is throttled before Lambda and the costly
//! functions are capped, email goes out as the SES identity only, scheduled
//! runs that fail are kept, and the submitter deploys gradually. checkov has no
//! CloudFormation check for deletion protection or TLS-only policies; these
//! tests are the check.

mod template;

use serde_norway::Value;
use template::{intrinsic, refers_to, resources_of, strings, template};

/// Whether `statement` denies everything over plain HTTP.
fn denies_plain_http(statement: &Value) -> bool {
    statement["Effect"].as_str() == Some("Deny")
        && statement["Principal"].as_str() == Some("*")
        && statement["Condition"]["Bool"]["aws:SecureTransport"].as_bool() == Some(false)
}

/// The IAM statements of a function: its inline `Policies`, or its role's.
fn statements<'a>(template: &'a Value, function: &str) -> Vec<&'a Value> {
    let properties = &template["Resources"][function]["Properties"];
    let documents: Vec<&Value> = match intrinsic(&properties["Role"], "GetAtt") {
        Some(role) => {
            let role = role.as_str().unwrap().trim_end_matches(".Arn");
            template["Resources"][role]["Properties"]["Policies"]
                .as_sequence()
                .unwrap()
                .iter()
                .map(|p| &p["PolicyDocument"])
                .collect()
        }
        None => properties["Policies"]
            .as_sequence()
            .map(|p| p.iter().collect())
            .unwrap_or_default(),
    };
    documents
        .into_iter()
        .filter_map(|d| d["Statement"].as_sequence())
        .flatten()
        .collect()
}

#[test]
fn the_table_is_protected_from_deletion() {
    let table = &template()["Resources"]["Table"];
    assert_eq!(
        table["Properties"]["DeletionProtectionEnabled"].as_bool(),
        Some(true)
    );
    assert_eq!(table["DeletionPolicy"].as_str(), Some("Retain"));
}

#[test]
fn the_bucket_and_every_queue_refuse_plain_http() {
    let template = template();
    let bucket_policies = resources_of(&template, "AWS::S3::BucketPolicy");
    let (_, policy) = bucket_policies
        .iter()
        .find(|(_, p)| refers_to(&p["Properties"]["Bucket"], "StagingBucket"))
        .expect("a policy on the staging bucket");
    let statements = policy["Properties"]["PolicyDocument"]["Statement"]
        .as_sequence()
        .unwrap();
    let deny = statements
        .iter()
        .find(|s| denies_plain_http(s))
        .expect("a TLS-only statement");
    assert_eq!(deny["Action"].as_str(), Some("s3:*"));
    let resources = deny["Resource"].as_sequence().unwrap();
    assert!(
        resources.iter().any(|r| {
            intrinsic(r, "GetAtt").and_then(Value::as_str) == Some("StagingBucket.Arn")
        })
    );
    assert!(resources.iter().any(|r| {
        intrinsic(r, "Sub").and_then(Value::as_str) == Some("${StagingBucket.Arn}/*")
    }));

    let queue_policies = resources_of(&template, "AWS::SQS::QueuePolicy");
    let queues = resources_of(&template, "AWS::SQS::Queue");
    assert!(queues.len() >= 8, "{queues:?}");
    for (queue, _) in queues {
        let (_, policy) = queue_policies
            .iter()
            .find(|(_, p)| {
                p["Properties"]["Queues"]
                    .as_sequence()
                    .is_some_and(|q| q.iter().any(|q| refers_to(q, queue)))
            })
            .unwrap_or_else(|| panic!("no policy on {queue}"));
        let statements = policy["Properties"]["PolicyDocument"]["Statement"]
            .as_sequence()
            .unwrap();
        assert!(
            statements.iter().any(|s| denies_plain_http(s)
                && s["Action"].as_str() == Some("sqs:*")
                && intrinsic(&s["Resource"], "GetAtt").and_then(Value::as_str)
                    == Some(format!("{queue}.Arn").as_str())),
            "{queue}"
        );
    }
}

#[test]
fn only_the_roles_that_talk_to_the_aeat_may_decrypt_certificates() {
    let template = template();
    let key = &template["Resources"]["CertificatesKey"]["Properties"]["KeyPolicy"];
    let key_statements = key["Statement"].as_sequence().unwrap();
    let deny = key_statements
        .iter()
        .find(|s| s["Effect"].as_str() == Some("Deny"))
        .expect("a deny statement");
    assert_eq!(deny["Principal"].as_str(), Some("*"));
    assert_eq!(strings(&deny["Action"]), ["kms:Decrypt", "kms:ReEncrypt*"]);
    // The roles that talk to the AEAT: the submitter's, and the one of the
    // API's questions to it.
    let except: Vec<&str> = deny["Condition"]["StringNotEquals"]["aws:PrincipalArn"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter_map(|r| intrinsic(r, "GetAtt").and_then(Value::as_str))
        .collect();
    assert_eq!(except, ["VerifactuRole.Arn", "AeatRole.Arn"]);
    for (function, role) in [
        ("VerifactuFunction", "VerifactuRole.Arn"),
        ("AeatFunction", "AeatRole.Arn"),
    ] {
        let properties = &template["Resources"][function]["Properties"];
        assert_eq!(
            intrinsic(&properties["Role"], "GetAtt").and_then(Value::as_str),
            Some(role)
        );
        assert!(refers_to(
            &properties["Environment"]["Variables"]["SVC_KMS_KEY_ID"],
            "CertificatesKey"
        ));
    }
    // The operator's statement: encrypt, never decrypt.
    let operator = key_statements
        .iter()
        .filter_map(|s| intrinsic(s, "If"))
        .find(|choice| choice[0].as_str() == Some("HasOperatorRole"))
        .map(|choice| &choice[1])
        .expect("the operator's statement");
    assert!(refers_to(&operator["Principal"]["AWS"], "OperatorRoleArn"));
    let actions = strings(&operator["Action"]);
    assert!(actions.contains(&"kms:GenerateDataKey"), "{actions:?}");
    assert!(
        !actions.iter().any(|a| a.contains("Decrypt")),
        "{actions:?}"
    );
    // No function but the submitter names the key in its permissions, and
    // the web function (its Business page uploads certificates), which may
    // only seal: a data key, for certificates, never a decryption.
    for (function, _) in resources_of(&template, "AWS::Serverless::Function") {
        if function == "VerifactuFunction" {
            continue;
        }
        for statement in statements(&template, function) {
            let actions = strings(&statement["Action"]);
            if !actions.iter().any(|a| a.starts_with("kms:")) {
                continue;
            }
            assert_eq!(function, "WebFunction", "{statement:?}");
            assert_eq!(actions, ["kms:GenerateDataKey"], "{statement:?}");
            assert_eq!(
                intrinsic(&statement["Resource"], "GetAtt").and_then(Value::as_str),
                Some("CertificatesKey.Arn")
            );
            assert_eq!(
                statement["Condition"]["StringEquals"]["kms:EncryptionContext:purpose"].as_str(),
                Some("svc-certificate")
            );
        }
    }
    let web = &template["Resources"]["WebFunction"]["Properties"];
    assert!(refers_to(
        &web["Environment"]["Variables"]["SVC_KMS_KEY_ID"],
        "CertificatesKey"
    ));
}

/// The `!GetAtt` targets in `value` (one or a list).
fn get_atts(value: &Value) -> Vec<&str> {
    match value {
        Value::Sequence(items) => items.iter().flat_map(get_atts).collect(),
        other => intrinsic(other, "GetAtt")
            .and_then(Value::as_str)
            .into_iter()
            .collect(),
    }
}

#[test]
fn only_the_functions_that_handle_webhooks_may_use_the_webhook_secrets_key() {
    let template = template();
    let resources = &template["Resources"];
    let key = &resources["WebhookSecretsKey"];
    assert_eq!(key["Type"].as_str(), Some("AWS::KMS::Key"));
    assert_eq!(key["DeletionPolicy"].as_str(), Some("Retain"));
    assert_eq!(key["UpdateReplacePolicy"].as_str(), Some("Retain"));
    assert_eq!(key["Properties"]["EnableKeyRotation"].as_bool(), Some(true));
    // The functions that create, rotate, test or deliver webhooks: the
    // webhooks API, the web application's webhooks pages, and the deliveries
    // worker, which only opens secrets. Their roles are the ones SAM makes
    // (`<function>Role`), so none of them names a role of its own.
    const SEAL: [&str; 2] = ["WebhooksFunctionRole.Arn", "WebFunctionRole.Arn"];
    const OPEN: [&str; 3] = [
        "WebhooksFunctionRole.Arn",
        "WebFunctionRole.Arn",
        "DeliveriesFunctionRole.Arn",
    ];
    for function in ["WebhooksFunction", "WebFunction", "DeliveriesFunction"] {
        let properties = &resources[function]["Properties"];
        assert_eq!(
            resources[function]["Type"].as_str(),
            Some("AWS::Serverless::Function")
        );
        assert!(properties["Role"].is_null(), "{function}");
        assert!(
            refers_to(
                &properties["Environment"]["Variables"]["SVC_KMS_WEBHOOK_KEY_ID"],
                "WebhookSecretsKey"
            ),
            "{function} has no SVC_KMS_WEBHOOK_KEY_ID"
        );
    }
    let key_statements = key["Properties"]["KeyPolicy"]["Statement"]
        .as_sequence()
        .unwrap();
    let deny = key_statements
        .iter()
        .find(|s| s["Effect"].as_str() == Some("Deny"))
        .expect("a deny statement");
    assert_eq!(deny["Principal"].as_str(), Some("*"));
    let denied = strings(&deny["Action"]);
    for action in [
        "kms:Decrypt",
        "kms:ReEncrypt*",
        "kms:Encrypt",
        "kms:GenerateDataKey*",
    ] {
        assert!(denied.contains(&action), "{action} not denied: {denied:?}");
    }
    assert_eq!(
        get_atts(&deny["Condition"]["StringNotEquals"]["aws:PrincipalArn"]),
        OPEN
    );
    // Besides the account's administration (through IAM, which the deny
    // still bounds), one statement seals and one opens, for webhook secrets
    // only.
    let allows: Vec<&Value> = key_statements
        .iter()
        .filter(|s| s["Effect"].as_str() == Some("Allow"))
        .collect();
    assert_eq!(allows.len(), 3, "{allows:?}");
    let admin = allows
        .iter()
        .find(|s| s["Sid"].as_str() == Some("AccountAdministersThroughIam"))
        .expect("the account administers the key");
    assert_eq!(
        intrinsic(&admin["Principal"]["AWS"], "Sub").and_then(Value::as_str),
        Some("arn:${AWS::Partition}:iam::${AWS::AccountId}:root")
    );
    for (action, principals) in [
        ("kms:GenerateDataKey", &SEAL[..]),
        ("kms:Decrypt", &OPEN[..]),
    ] {
        let statement = allows
            .iter()
            .find(|s| strings(&s["Action"]) == [action])
            .unwrap_or_else(|| panic!("no statement allows {action}"));
        assert_eq!(get_atts(&statement["Principal"]["AWS"]), principals);
        assert_eq!(
            statement["Condition"]["StringEquals"]["kms:EncryptionContext:purpose"].as_str(),
            Some("svc-webhook-secret"),
            "{action}"
        );
    }
    // No other function has the key (the MCP function's tools manage no
    // webhooks), none names it in its own permissions, and the functions of
    // the webhooks API have no certificates key.
    for (function, resource) in resources_of(&template, "AWS::Serverless::Function") {
        let variables = &resource["Properties"]["Environment"]["Variables"];
        if !OPEN.contains(&format!("{function}Role.Arn").as_str()) {
            assert!(
                variables["SVC_KMS_WEBHOOK_KEY_ID"].is_null(),
                "{function} has the webhook secrets key"
            );
        }
        for statement in statements(&template, function) {
            let text = serde_norway::to_string(statement).unwrap();
            assert!(!text.contains("WebhookSecretsKey"), "{function}: {text}");
        }
    }
    for function in ["WebhooksFunction", "DeliveriesFunction"] {
        let variables = &resources[function]["Properties"]["Environment"]["Variables"];
        assert!(variables["SVC_KMS_KEY_ID"].is_null(), "{function}");
    }
    assert!(
        template["Globals"]["Function"]["Environment"]["Variables"]["SVC_KMS_WEBHOOK_KEY_ID"]
            .is_null()
    );
    // The certificates key's policy names none of these roles.
    let certificates =
        serde_norway::to_string(&resources["CertificatesKey"]["Properties"]["KeyPolicy"]).unwrap();
    for role in OPEN {
        assert!(
            !certificates.contains(role.trim_end_matches(".Arn")),
            "{role}"
        );
    }
}

#[test]
fn every_function_writes_only_the_item_kinds_it_names() {
    let template = template();
    const WRITES: [&str; 3] = [
        "dynamodb:PutItem",
        "dynamodb:UpdateItem",
        "dynamodb:DeleteItem",
    ];
    for (function, _) in resources_of(&template, "AWS::Serverless::Function") {
        let statements = statements(&template, function);
        let writes: Vec<_> = statements
            .iter()
            .filter(|s| {
                strings(&s["Action"])
                    .iter()
                    .any(|a| WRITES.contains(a) || *a == "dynamodb:*" || *a == "*")
            })
            .collect();
        assert!(!writes.is_empty(), "{function} writes nothing");
        for statement in writes {
            let prefixes =
                strings(&statement["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"]);
            assert!(
                !prefixes.is_empty(),
                "{function}: a write without dynamodb:LeadingKeys: {statement:?}"
            );
            assert!(
                !prefixes.iter().any(|p| p.starts_with('*')),
                "{function} may write any item: {prefixes:?}"
            );
            // The web application opens accounts (sign-up), makes keys (its
            // keys page) and stores the issuer's details and certificate (its
            // Business page): no function of the API may.
            let forbidden: &[&str] = if function == "WebFunction" {
                &[]
            } else {
                &[
                    "APIKEY#",
                    "APIKEYID#",
                    "ACCOUNT#",
                    "ACCOUNTS",
                    "CERTIFICATES",
                ]
            };
            for forbidden in forbidden {
                assert!(
                    !prefixes.iter().any(|p| p.starts_with(forbidden)),
                    "{function} may write {forbidden} items: {prefixes:?}"
                );
            }
        }
        assert!(
            !statements
                .iter()
                .any(|s| strings(&s["Action"]).contains(&"dynamodb:BatchWriteItem")),
            "{function}: BatchWriteItem is not restricted by item"
        );
    }
}

#[test]
fn the_web_function_writes_its_own_items_and_what_the_api_writes() {
    let template = template();
    let web = statements(&template, "WebFunction");
    let writes: Vec<&str> = web
        .iter()
        .filter(|s| strings(&s["Action"]).contains(&"dynamodb:PutItem"))
        .flat_map(|s| strings(&s["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"]))
        .collect();
    // Its own: accounts (with the issuer's details and invitations), keys,
    // people, sessions, links, attempts, remembered browsers, letters and
    // certificates.
    assert_eq!(
        writes[..12],
        [
            "ACCOUNT#*",
            "ACCOUNTS",
            "APIKEY#*",
            "APIKEYID#*",
            "PERSON#*",
            "EMAIL#*",
            "SESSION#*",
            "LINK#*",
            "THROTTLE#*",
            "DEVICE#*",
            "MAIL#*",
            "CERTIFICATES"
        ]
    );
    // Its pages run the REST operations in-process as the signed-in
    // account: it writes what the MCP function's tools write, and the
    // webhooks operations' items.
    let mcp: Vec<&str> = statements(&template, "McpFunction")
        .iter()
        .filter(|s| strings(&s["Action"]).contains(&"dynamodb:PutItem"))
        .flat_map(|s| strings(&s["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"]))
        .collect();
    for kind in mcp.iter().chain(&["WEBHOOKS#*", "WEBHOOK#*"]) {
        assert!(writes.contains(kind), "WebFunction cannot write {kind}");
    }
    assert_eq!(writes.len(), 12 + mcp.len() + 2, "{writes:?}");
}

#[test]
fn the_dispatcher_takes_the_web_applications_letters_and_writes_their_links() {
    let template = template();
    let dispatcher = statements(&template, "DispatcherFunction");
    let writes: Vec<&str> = dispatcher
        .iter()
        .filter(|s| strings(&s["Action"]).contains(&"dynamodb:PutItem"))
        .flat_map(|s| strings(&s["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"]))
        .collect();
    assert_eq!(
        writes,
        [
            "WEBHOOKS#*",
            "WEBHOOK#*",
            "EVENTS#*",
            "LINK#*",
            "THROTTLE#*",
            "MAIL#*"
        ]
    );
    let filter = template["Resources"]["DispatcherFunction"]["Properties"]["Events"]["TableStream"]
        ["Properties"]["FilterCriteria"]["Filters"][0]["Pattern"]
        .as_str()
        .unwrap();
    assert!(filter.contains(r#""mail""#), "{filter}");
}

#[test]
fn the_functions_that_email_send_as_the_ses_identity_only() {
    let template = template();
    for function in [
        "InvoicesFunction",
        "McpFunction",
        "WebFunction",
        "DispatcherFunction",
    ] {
        let properties = &template["Resources"][function]["Properties"];
        let variables = &properties["Environment"]["Variables"];
        assert!(
            refers_to(&variables["SVC_EMAIL_FROM"], "EmailFrom"),
            "{function}"
        );
        let ses = intrinsic(&variables["SVC_EMAIL_SES"], "If").expect("SVC_EMAIL_SES");
        assert_eq!(ses[0].as_str(), Some("HasEmailIdentity"), "{function}");
        let statement = statements(&template, function)
            .into_iter()
            .filter_map(|s| intrinsic(s, "If"))
            .find(|choice| choice[0].as_str() == Some("HasEmailIdentity"))
            .map(|choice| &choice[1])
            .unwrap_or_else(|| panic!("{function}: no SES statement"));
        assert_eq!(
            strings(&statement["Action"]),
            ["ses:SendEmail", "ses:SendRawEmail"],
            "{function}"
        );
        let resources: Vec<&str> = statement["Resource"]
            .as_sequence()
            .unwrap()
            .iter()
            .filter_map(|r| intrinsic(r, "Sub").and_then(Value::as_str))
            .collect();
        assert!(
            resources
                .iter()
                .any(|r| r.ends_with(":identity/${EmailIdentity}")),
            "{function}: {resources:?}"
        );
        assert!(
            resources.iter().all(|r| !r.contains('*')),
            "{function}: {resources:?}"
        );
    }
    // The web function's links point at AppUrl, else the custom domain,
    // else (empty) the API Gateway domain of each request's context, whose
    // Host it must accept.
    let web = &template["Resources"]["WebFunction"]["Properties"]["Environment"]["Variables"];
    let url = intrinsic(&web["SVC_PUBLIC_URL"], "If").expect("SVC_PUBLIC_URL");
    assert_eq!(url[0].as_str(), Some("HasAppUrl"));
    assert!(refers_to(&url[1], "AppUrl"));
    let hosts = intrinsic(&web["SVC_PUBLIC_HOSTS"], "If").expect("SVC_PUBLIC_HOSTS");
    let without_app_url = intrinsic(&hosts[2], "Sub").and_then(Value::as_str).unwrap();
    assert!(
        without_app_url.starts_with("*.execute-api.${AWS::Region}.${AWS::URLSuffix},"),
        "{without_app_url}"
    );
}

#[test]
fn the_api_is_throttled_and_the_costly_functions_are_capped() {
    let template = template();
    let settings = &template["Resources"]["HttpApi"]["Properties"]["DefaultRouteSettings"];
    assert!(refers_to(
        &settings["ThrottlingRateLimit"],
        "ApiThrottlingRateLimit"
    ));
    assert!(refers_to(
        &settings["ThrottlingBurstLimit"],
        "ApiThrottlingBurstLimit"
    ));
    for (function, parameter) in [
        ("ExtractionFunction", "ExtractionReservedConcurrency"),
        ("AnalysesFunction", "AnalysesReservedConcurrency"),
        ("McpFunction", "McpReservedConcurrency"),
    ] {
        let properties = &template["Resources"][function]["Properties"];
        assert!(
            refers_to(&properties["ReservedConcurrentExecutions"], parameter),
            "{function}"
        );
        let default = template["Parameters"][parameter]["Default"]
            .as_u64()
            .unwrap();
        assert!((1..=50).contains(&default), "{parameter}: {default}");
    }
    for function in ["DispatcherFunction", "WorkerFunction", "VerifactuFunction"] {
        let properties = &template["Resources"][function]["Properties"];
        assert!(
            properties["ReservedConcurrentExecutions"].is_null(),
            "{function} draws on the unreserved pool the caps protect"
        );
    }
}

#[test]
fn failed_scheduled_runs_are_kept_and_the_submitter_deploys_gradually() {
    let template = template();
    for function in ["VerifactuFunction", "SchedulerFunction"] {
        let properties = &template["Resources"][function]["Properties"];
        let on_failure = &properties["EventInvokeConfig"]["DestinationConfig"]["OnFailure"];
        assert_eq!(on_failure["Type"].as_str(), Some("SQS"), "{function}");
        assert_eq!(
            intrinsic(&on_failure["Destination"], "GetAtt").and_then(Value::as_str),
            Some("ScheduleFailuresQueue.Arn"),
            "{function}"
        );
    }
    let submitter = &template["Resources"]["VerifactuFunction"]["Properties"];
    assert_eq!(submitter["AutoPublishAlias"].as_str(), Some("live"));
    let preference = &submitter["DeploymentPreference"];
    assert!(preference["Type"].as_str().unwrap().starts_with("Canary"));
    assert!(refers_to(
        &preference["Alarms"][0],
        "VerifactuAliasErrorsAlarm"
    ));
    let alarm = &template["Resources"]["VerifactuAliasErrorsAlarm"]["Properties"];
    assert_eq!(alarm["MetricName"].as_str(), Some("Errors"));
}

#[test]
fn the_aeat_endpoint_is_named_or_https() {
    let template = template();
    let pattern = template["Parameters"]["AeatEndpoint"]["AllowedPattern"]
        .as_str()
        .unwrap();
    assert_eq!(pattern, r"^(production|test|https://[^\s]+)$");
}
