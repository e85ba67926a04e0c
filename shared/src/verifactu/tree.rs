//! A record as a tree of AEAT elements holding final strings, rendered both
//! as XML and as the JSON view.

use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Node {
    Text(&'static str, String),
    Group(&'static str, Vec<Node>),
    /// An element that may repeat (IDDestinatario, DetalleDesglose…): one
    /// element per entry in XML, always an array in JSON.
    Repeated(&'static str, Vec<Vec<Node>>),
}

/// A text element. The AEAT trims every value before storing and hashing it,
/// so the tree holds the trimmed value.
pub(crate) fn text(name: &'static str, value: impl AsRef<str>) -> Node {
    Node::Text(name, value.as_ref().trim().to_owned())
}

pub(crate) fn group(name: &'static str, children: Vec<Node>) -> Node {
    Node::Group(name, children)
}

/// The JSON object of some sibling elements, keyed by element name.
pub(crate) fn to_json(children: &[Node]) -> Value {
    let mut object = Map::new();
    for child in children {
        let (name, value) = match child {
            Node::Text(name, value) => (*name, Value::String(value.clone())),
            Node::Group(name, children) => (*name, to_json(children)),
            Node::Repeated(name, entries) => (
                *name,
                Value::Array(entries.iter().map(|entry| to_json(entry)).collect()),
            ),
        };
        object.insert(name.to_owned(), value);
    }
    Value::Object(object)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_nests_groups_and_makes_repeated_elements_arrays() {
        let children = vec![
            text("A", "  x y  "),
            group("B", vec![text("C", "1")]),
            Node::Repeated("D", vec![vec![text("E", "2")]]),
        ];
        assert_eq!(
            to_json(&children),
            json!({"A": "x y", "B": {"C": "1"}, "D": [{"E": "2"}]})
        );
    }
}
