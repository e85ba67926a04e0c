//! `template.yaml` read for the tests that check it, and the short-form
//! intrinsics (`!Ref X`, `!GetAtt X.Arn`, `!Sub …`) as serde_norway reads
//! them: tagged values.

// Each test binary compiles this module and uses only part of it.
#![allow(dead_code)]

use serde_norway::Value;

pub fn template() -> Value {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../template.yaml"))
        .unwrap();
    serde_norway::from_str(&text).unwrap()
}

/// The value of the intrinsic `tag` (`Ref`, `GetAtt`, `Sub`, `If`), if
/// `value` is one.
pub fn intrinsic<'a>(value: &'a Value, tag: &str) -> Option<&'a Value> {
    match value {
        Value::Tagged(tagged) if tagged.tag == tag => Some(&tagged.value),
        _ => None,
    }
}

/// Whether `value` is `!Ref name`.
pub fn refers_to(value: &Value, name: &str) -> bool {
    intrinsic(value, "Ref").and_then(Value::as_str) == Some(name)
}

/// The resources of type `kind`, with their logical ids.
pub fn resources_of<'a>(template: &'a Value, kind: &str) -> Vec<(&'a str, &'a Value)> {
    template["Resources"]
        .as_mapping()
        .unwrap()
        .iter()
        .filter(|(_, r)| r["Type"].as_str() == Some(kind))
        .map(|(name, r)| (name.as_str().unwrap(), r))
        .collect()
}

/// A string or a list of strings (an IAM `Action` or `Resource`).
pub fn strings(value: &Value) -> Vec<&str> {
    match value {
        Value::String(s) => vec![s.as_str()],
        Value::Sequence(items) => items.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}
