//! `template.yaml` declares the same table that `DynamoTable::create_table`
//! creates (and that the emulator tests run against).

use infra_aws::dynamodb_table::{
    BILLING_MODE, KEY_ATTRIBUTE_TYPE, PARTITION_KEY, SORT_KEY, STREAM_VIEW_TYPE, TTL_ATTRIBUTE,
};
use serde_norway::Value;

fn template() -> Value {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../template.yaml"))
        .unwrap();
    serde_norway::from_str(&text).unwrap()
}

fn pairs(list: &Value, name: &str, value: &str) -> Vec<(String, String)> {
    list.as_sequence()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v[name].as_str().unwrap().to_string(),
                v[value].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn the_template_table_matches_the_adapter_definition() {
    let template = template();
    let table = &template["Resources"]["Table"];
    assert_eq!(table["Type"].as_str(), Some("AWS::DynamoDB::Table"));
    let p = &table["Properties"];
    assert_eq!(p["BillingMode"].as_str(), Some(BILLING_MODE));
    assert_eq!(
        pairs(&p["KeySchema"], "AttributeName", "KeyType"),
        [
            (PARTITION_KEY.to_string(), "HASH".to_string()),
            (SORT_KEY.to_string(), "RANGE".to_string())
        ]
    );
    assert_eq!(
        pairs(&p["AttributeDefinitions"], "AttributeName", "AttributeType"),
        [
            (PARTITION_KEY.to_string(), KEY_ATTRIBUTE_TYPE.to_string()),
            (SORT_KEY.to_string(), KEY_ATTRIBUTE_TYPE.to_string())
        ]
    );
    assert_eq!(
        p["TimeToLiveSpecification"]["AttributeName"].as_str(),
        Some(TTL_ATTRIBUTE)
    );
    assert_eq!(
        p["TimeToLiveSpecification"]["Enabled"].as_bool(),
        Some(true)
    );
    assert_eq!(
        p["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"].as_bool(),
        Some(true)
    );
    assert_eq!(
        p["StreamSpecification"]["StreamViewType"].as_str(),
        Some(STREAM_VIEW_TYPE)
    );
}

#[test]
fn every_function_has_the_table_name_and_arm64() {
    let template = template();
    let globals = &template["Globals"]["Function"];
    assert_eq!(globals["Runtime"].as_str(), Some("provided.al2023"));
    assert_eq!(globals["Architectures"][0].as_str(), Some("arm64"));
    assert!(
        globals["Environment"]["Variables"]
            .get("TABLE_NAME")
            .is_some()
    );
    let functions: Vec<_> = template["Resources"]
        .as_mapping()
        .unwrap()
        .values()
        .filter(|r| r["Type"].as_str() == Some("AWS::Serverless::Function"))
        .collect();
    assert!(!functions.is_empty());
    for f in functions {
        assert_eq!(
            f["Metadata"]["BuildMethod"].as_str(),
            Some("rust-cargolambda")
        );
    }
}
