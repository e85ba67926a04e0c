//! Elements with at most one attribute, written indented, text escaped by quick-xml.

use quick_xml::escape::escape;

pub enum Node {
    /// An optional element that is absent.
    Empty,
    Leaf {
        name: &'static str,
        attribute: Option<(&'static str, String)>,
        text: String,
    },
    Branch {
        name: &'static str,
        children: Vec<Node>,
    },
}

pub fn leaf(name: &'static str, text: impl Into<String>) -> Node {
    Node::Leaf {
        name,
        attribute: None,
        text: text.into(),
    }
}

pub fn leaf_with(
    name: &'static str,
    (key, value): (&'static str, impl Into<String>),
    text: impl Into<String>,
) -> Node {
    Node::Leaf {
        name,
        attribute: Some((key, value.into())),
        text: text.into(),
    }
}

pub fn branch(name: &'static str, children: Vec<Node>) -> Node {
    Node::Branch { name, children }
}

pub fn optional<T>(value: Option<T>, node: impl FnOnce(T) -> Node) -> Node {
    value.map_or(Node::Empty, node)
}

/// The XML declaration and the root element with its namespace declarations.
pub fn document(root: &'static str, namespaces: &[(&str, &str)], children: Vec<Node>) -> String {
    let mut out = format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<{root}");
    for (key, value) in namespaces {
        out.push_str(&format!(" {key}=\"{}\"", escape(*value)));
    }
    out.push_str(">\n");
    for child in &children {
        write(child, 1, &mut out);
    }
    out.push_str(&format!("</{root}>\n"));
    out
}

fn write(node: &Node, depth: usize, out: &mut String) {
    let indent = "  ".repeat(depth);
    match node {
        Node::Empty => {}
        Node::Leaf {
            name,
            attribute,
            text,
        } => {
            let attribute = attribute
                .as_ref()
                .map(|(key, value)| format!(" {key}=\"{}\"", escape(value.as_str())))
                .unwrap_or_default();
            out.push_str(&format!(
                "{indent}<{name}{attribute}>{}</{name}>\n",
                escape(text.as_str())
            ));
        }
        Node::Branch { name, children } if children.iter().all(|c| matches!(c, Node::Empty)) => {
            out.push_str(&format!("{indent}<{name}/>\n"));
        }
        Node::Branch { name, children } => {
            out.push_str(&format!("{indent}<{name}>\n"));
            for child in children {
                write(child, depth + 1, out);
            }
            out.push_str(&format!("{indent}</{name}>\n"));
        }
    }
}
