//! An XML document as a small element tree, looked up by local names (the
//! e-invoice formats bind their children to prefixes in different ways:
//! Facturae leaves them unqualified, UBL and CII qualify them; SOAP messages
//! choose their own prefixes). Only the root's namespace is kept, because it
//! alone decides a document's format.
//!
//! Hostile input: a DOCTYPE that declares entities is refused (quick-xml
//! expands none, and a reference to an undeclared entity is an error), and
//! nesting deeper than any of these documents needs is refused before it can
//! exhaust the stack.

use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesStart, Event};
use quick_xml::name::ResolveResult;
use quick_xml::{NsReader, XmlVersion};

/// Why a document cannot be read as a tree.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct XmlError(pub String);

/// Deeper than any e-invoice (Facturae reaches about 10 levels, a signed one
/// about 15) or AEAT message.
const MAX_DEPTH: usize = 64;

#[derive(Debug, Default, Clone)]
pub struct Element {
    pub name: String,
    attributes: Vec<(String, String)>,
    text: String,
    children: Vec<Element>,
}

/// The root element's namespace and local name.
#[derive(Debug)]
pub struct Root {
    pub namespace: String,
    pub name: String,
}

impl Element {
    /// The first child element, whatever its name.
    pub fn first_child(&self) -> Option<&Element> {
        self.children.first()
    }

    /// Every child element, in document order.
    pub fn elements(&self) -> &[Element] {
        &self.children
    }

    /// The first child with this local name.
    pub fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }

    pub fn children<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> {
        self.children.iter().filter(move |c| c.name == name)
    }

    /// The first element along a path of local names.
    pub fn find(&self, path: &[&str]) -> Option<&Element> {
        path.iter()
            .try_fold(self, |element, name| element.child(name))
    }

    /// Every element along a path of local names.
    pub fn find_all<'a>(&'a self, path: &[&str]) -> Vec<&'a Element> {
        path.iter().fold(vec![self], |found, name| {
            found
                .into_iter()
                .flat_map(|element| element.children.iter().filter(|c| c.name == *name))
                .collect()
        })
    }

    /// The trimmed text content (direct text only).
    pub fn text(&self) -> &str {
        self.text.trim()
    }

    /// The trimmed text at a path, when present and not empty.
    pub fn text_at(&self, path: &[&str]) -> Option<&str> {
        self.find(path).map(Element::text).filter(|t| !t.is_empty())
    }

    /// An attribute by local name.
    pub fn attribute(&self, name: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.trim())
    }
}

/// The root element's namespace and local name, reading no further.
pub fn root(xml: &str) -> Result<Root, XmlError> {
    let mut reader = NsReader::from_str(xml);
    loop {
        let (namespace, event) = reader.read_resolved_event().map_err(syntax)?;
        match event {
            Event::Start(start) | Event::Empty(start) => {
                return Ok(Root {
                    namespace: namespace_of(namespace),
                    name: start.local_name().as_ref().to_string(),
                });
            }
            Event::DocType(doctype) => refuse_entities(&doctype.xml10_content())?,
            Event::Eof => return Err(malformed("the document has no root element")),
            _ => {}
        }
    }
}

/// The whole document as a tree, with the root's namespace.
pub fn parse(xml: &str) -> Result<(Root, Element), XmlError> {
    let root = root(xml)?;
    let mut reader = NsReader::from_str(xml);
    let mut open: Vec<Element> = Vec::new();
    loop {
        let event = reader.read_event().map_err(syntax)?;
        match event {
            Event::Start(start) => {
                if open.len() >= MAX_DEPTH {
                    return Err(malformed(&format!(
                        "elements are nested more than {MAX_DEPTH} levels deep"
                    )));
                }
                open.push(element(&start)?);
            }
            Event::Empty(start) => {
                let element = element(&start)?;
                match open.last_mut() {
                    Some(parent) => parent.children.push(element),
                    None => return Ok((root, element)),
                }
            }
            Event::End(_) => {
                let Some(done) = open.pop() else {
                    return Err(malformed("a closing tag has no opening tag"));
                };
                match open.last_mut() {
                    Some(parent) => parent.children.push(done),
                    None => return Ok((root, done)),
                }
            }
            Event::Text(text) => push_text(&mut open, &text.xml10_content()),
            Event::CData(data) => push_text(&mut open, &data.xml10_content()),
            Event::GeneralRef(reference) => {
                let resolved = match reference.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    Ok(None) => resolve_predefined_entity(&reference)
                        .ok_or_else(|| {
                            malformed(&format!("the entity &{}; is not defined", &*reference))
                        })?
                        .to_string(),
                    Err(_) => {
                        return Err(malformed(&format!(
                            "&{}; is not a valid character reference",
                            &*reference
                        )));
                    }
                };
                push_text(&mut open, &resolved);
            }
            Event::DocType(doctype) => refuse_entities(&doctype.xml10_content())?,
            Event::Eof => {
                return Err(malformed(
                    "the document ends before its root element is closed",
                ));
            }
            Event::Decl(_) | Event::PI(_) | Event::Comment(_) => {}
        }
    }
}

fn namespace_of(resolved: ResolveResult) -> String {
    match resolved {
        ResolveResult::Bound(namespace) => namespace.as_ref().to_string(),
        ResolveResult::Unbound | ResolveResult::Unknown(_) => String::new(),
    }
}

fn element(start: &BytesStart) -> Result<Element, XmlError> {
    let name = start.local_name().as_ref().to_string();
    let mut attributes = Vec::new();
    for attribute in start.attributes() {
        let attribute = attribute.map_err(|e| {
            malformed(&format!(
                "an attribute of <{name}> is not well-formed ({e})"
            ))
        })?;
        let value = attribute
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|e| malformed(&format!("an attribute of <{name}> has a bad value ({e})")))?;
        attributes.push((
            attribute.key.local_name().as_ref().to_string(),
            value.into_owned(),
        ));
    }
    Ok(Element {
        name,
        attributes,
        ..Element::default()
    })
}

fn push_text(open: &mut [Element], text: &str) {
    if let Some(current) = open.last_mut() {
        current.text.push_str(text);
    }
}

/// A DOCTYPE may name a DTD, but internal entity declarations are the stuff
/// of entity-expansion attacks and have no place in an invoice.
fn refuse_entities(doctype: &str) -> Result<(), XmlError> {
    if doctype.contains("<!ENTITY") {
        return Err(malformed(
            "the DOCTYPE declares entities, which none of these documents use (refused for safety)",
        ));
    }
    Ok(())
}

fn syntax(error: quick_xml::Error) -> XmlError {
    malformed(&format!("the XML is not well-formed: {error}"))
}

fn malformed(message: &str) -> XmlError {
    XmlError(message.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_are_found_by_local_name_with_text_and_attributes() {
        let xml = r#"<?xml version="1.0"?>
            <r:Root xmlns:r="urn:r" xmlns:c="urn:c"><c:A><c:B n="1">x &amp; y&#x20;z</c:B><c:B n="2"/></c:A>
            <C><![CDATA[<raw>]]></C></r:Root>"#;
        let (root, tree) = parse(xml).unwrap();
        assert_eq!(
            (root.namespace.as_str(), root.name.as_str()),
            ("urn:r", "Root")
        );
        assert_eq!(tree.text_at(&["A", "B"]), Some("x & y z"));
        assert_eq!(tree.find_all(&["A", "B"]).len(), 2);
        assert_eq!(tree.find_all(&["A", "B"])[1].attribute("n"), Some("2"));
        assert_eq!(tree.text_at(&["C"]), Some("<raw>"));
        assert!(tree.find(&["A", "X"]).is_none());
    }

    #[test]
    fn malformed_documents_are_errors() {
        for xml in [
            "",
            "<a><b></a>",
            "<a>",
            "<a>&nbsp;</a>",
            "<a x='1' x='2'/>",
            "not xml at all",
        ] {
            assert!(parse(xml).is_err(), "{xml:?}");
        }
    }

    #[test]
    fn entity_declarations_are_refused() {
        let bomb = r#"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]><lolz>&lol2;</lolz>"#;
        let error = parse(bomb).unwrap_err().to_string();
        assert!(error.contains("DOCTYPE"), "{error}");
        assert!(root(bomb).is_err());
        let external = r#"<!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]><a>&x;</a>"#;
        assert!(parse(external).is_err());
    }

    #[test]
    fn deep_nesting_is_refused() {
        let xml = format!("{}{}", "<a>".repeat(10_000), "</a>".repeat(10_000));
        let error = parse(&xml).unwrap_err().to_string();
        assert!(error.contains("nested"), "{error}");
    }
}
