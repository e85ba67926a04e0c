//! Tool schemas taken from the OpenAPI document, so a tool's arguments and
//! results are described by the very schemas of its REST operation: a
//! request or response schema, made self-contained (the components it
//! refers to, transitively, copied under `$defs`).

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

const COMPONENTS: &str = "#/components/schemas/";

fn operation<'a>(doc: &'a Value, operation_id: &str) -> &'a Value {
    doc["paths"]
        .as_object()
        .into_iter()
        .flat_map(|paths| paths.values())
        .filter_map(Value::as_object)
        .flat_map(|methods| methods.values())
        .find(|op| op["operationId"] == operation_id)
        .unwrap_or_else(|| panic!("no operation {operation_id} in the OpenAPI document"))
}

/// The JSON body schema of an operation's request.
pub fn request(doc: &Value, operation_id: &str) -> Value {
    operation(doc, operation_id)["requestBody"]["content"]["application/json"]["schema"].clone()
}

/// The JSON body schema of an operation's result: its first success
/// response other than 202 (which answers with a job).
pub fn result(doc: &Value, operation_id: &str) -> Value {
    let responses = &operation(doc, operation_id)["responses"];
    let status = responses
        .as_object()
        .into_iter()
        .flat_map(|r| r.keys())
        .find(|s| s.starts_with('2') && *s != "202")
        .unwrap_or_else(|| panic!("{operation_id} documents no success response"));
    response(doc, operation_id, status)
}

/// Whether the operation requires the header `name`.
pub fn requires_header(doc: &Value, operation_id: &str, name: &str) -> bool {
    operation(doc, operation_id)["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|p| p["in"] == "header" && p["name"] == name && p["required"] == true)
}

/// The JSON body schema of an operation's response with `status`.
pub fn response(doc: &Value, operation_id: &str, status: &str) -> Value {
    let schema =
        &operation(doc, operation_id)["responses"][status]["content"]["application/json"]["schema"];
    assert!(
        !schema.is_null(),
        "{operation_id} documents no JSON response {status}"
    );
    schema.clone()
}

/// `schema` with a `$ref` at its root replaced by what it names, so that
/// properties can be added to it and its root has a `type`.
pub fn inline_root(doc: &Value, schema: Value) -> Value {
    match schema["$ref"]
        .as_str()
        .and_then(|r| r.strip_prefix(COMPONENTS))
    {
        Some(name) => doc["components"]["schemas"][name].clone(),
        None => schema,
    }
}

/// Marks every object schema with named properties as closed
/// (`additionalProperties: false`): request bodies reject unknown fields.
pub fn closed(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if map.contains_key("properties") && !map.contains_key("additionalProperties") {
                map.insert("additionalProperties".into(), Value::Bool(false));
            }
            map.values_mut().for_each(closed);
        }
        Value::Array(items) => items.iter_mut().for_each(closed),
        _ => {}
    }
}

/// `schema` with its component references moved under `$defs`, as a JSON
/// object whose root is an object schema.
pub fn self_contained(doc: &Value, mut schema: Value) -> Map<String, Value> {
    let mut defs = BTreeMap::new();
    let mut pending = Vec::new();
    rewrite(&mut schema, &mut pending);
    while let Some(name) = pending.pop() {
        if defs.contains_key(&name) {
            continue;
        }
        let mut def = doc["components"]["schemas"][&name].clone();
        assert!(!def.is_null(), "component {name} is missing");
        rewrite(&mut def, &mut pending);
        defs.insert(name, def);
    }
    let mut root = match schema {
        Value::Object(map) => map,
        other => Map::from_iter([("allOf".to_string(), json!([other]))]),
    };
    if !root.contains_key("type") {
        root.insert("type".into(), json!("object"));
    }
    if !defs.is_empty() {
        root.insert("$defs".into(), json!(defs));
    }
    root
}

fn rewrite(schema: &mut Value, found: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get_mut("$ref")
                && let Some(name) = reference.strip_prefix(COMPONENTS).map(str::to_string)
            {
                *reference = format!("#/$defs/{name}");
                found.push(name);
            }
            map.values_mut().for_each(|v| rewrite(v, found));
        }
        Value::Array(items) => items.iter_mut().for_each(|v| rewrite(v, found)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> Value {
        json!({
            "paths": {"/x": {"post": {"operationId": "make_x",
                "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/X"}}}},
                "responses": {"200": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/X"}}}}}}}},
            "components": {"schemas": {
                "X": {"type": "object", "properties": {"y": {"$ref": "#/components/schemas/Y"},
                    "free": {"type": "object", "additionalProperties": {"type": "string"}}}},
                "Y": {"type": "object", "properties": {"x": {"$ref": "#/components/schemas/X"}}},
                "Unused": {"type": "string"}
            }}
        })
    }

    #[test]
    fn the_result_is_the_first_success_but_a_job() {
        let mut d = doc();
        let op = &mut d["paths"]["/x"]["post"];
        op["responses"]["202"] = op["responses"]["200"].clone();
        op["responses"]["201"] = op["responses"]
            .as_object_mut()
            .unwrap()
            .remove("200")
            .unwrap();
        op["parameters"] = json!([{"in": "header", "name": "K", "required": true}]);
        assert_eq!(result(&d, "make_x")["$ref"], "#/components/schemas/X");
        assert!(requires_header(&d, "make_x", "K"));
        assert!(!requires_header(&d, "make_x", "L"));
    }

    #[test]
    fn references_are_copied_transitively_and_cycles_end() {
        let d = doc();
        let schema = self_contained(&d, response(&d, "make_x", "200"));
        assert_eq!(schema["$ref"], "#/$defs/X");
        assert_eq!(schema["type"], "object");
        let defs = schema["$defs"].as_object().unwrap();
        assert_eq!(defs.keys().collect::<Vec<_>>(), ["X", "Y"]);
        assert_eq!(defs["Y"]["properties"]["x"]["$ref"], "#/$defs/X");
    }

    #[test]
    fn an_inlined_request_closes_its_objects_but_not_free_maps() {
        let d = doc();
        let mut schema = inline_root(&d, request(&d, "make_x"));
        closed(&mut schema);
        assert_eq!(schema["additionalProperties"], false);
        assert_eq!(
            schema["properties"]["free"]["additionalProperties"]["type"],
            "string"
        );
        assert_eq!(schema["properties"]["y"]["$ref"], "#/components/schemas/Y");
    }
}
