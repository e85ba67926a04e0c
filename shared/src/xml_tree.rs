//! An XML document as a small element tree, looked up by local names (the
//! e-invoice formats bind their children to prefixes in different ways:
//! Facturae leaves them unqualified, UBL and CII qualify them; SOAP messages
//! choose their own prefixes). Only the root's namespace is kept, because it
//! alone decides a document's format.
//!
//! Hostile input: a DOCTYPE that declares entities is refused (quick-xml
//! expands none, and a reference to an undeclared entity is an error), and
//! the tree is built within `LIMITS`. A tree costs far more than the markup
//! it comes from (an empty `<a/>` is 4 bytes of input and about 150 bytes of
//! tree), so a flood of small elements or attributes would otherwise turn a
//! 50 MB upload into gigabytes. Every count and length is checked before
//! what it counts is allocated, and reading stops at the first excess.
//! quick-xml itself allocates nothing per event here: the reader borrows its
//! events from the text (`from_str`), so no buffer of its own grows with a
//! long text or attribute.

use quick_xml::escape::resolve_predefined_entity;
use std::borrow::Cow;

use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::name::ResolveResult;
use quick_xml::{NsReader, XmlVersion};

/// Why a document cannot be read as a tree.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum XmlError {
    #[error("{0}")]
    Malformed(String),
    /// Over one of `Limits` (`limit` is its field's name): the document may
    /// be well-formed, but it is larger than any of these documents.
    #[error("{message}")]
    TooLarge {
        limit: &'static str,
        message: String,
    },
}

/// The most a document may hold. Memory grows with the counts (each element
/// and attribute is a few allocations) and with the lengths (names, values
/// and text are copied into the tree), so these bound a tree whatever the
/// file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of the document as UTF-8 text.
    pub bytes: usize,
    /// Elements nested in one another.
    pub depth: usize,
    /// Elements in the document.
    pub elements: usize,
    /// Attributes of one element, namespace declarations included.
    pub attributes_per_element: usize,
    /// Attributes in the document.
    pub attributes: usize,
    /// Bytes of an element's or attribute's qualified name.
    pub name_bytes: usize,
    /// Bytes of one attribute's value, as written.
    pub value_bytes: usize,
    /// Bytes of one element's text (a base64 attachment is one text).
    pub text_bytes: usize,
}

/// The limits of every document read here, each well above the largest real
/// one: a 1,000-line invoice has 12 (Facturae) to 18 (CII) elements per line
/// in our own documents and up to about 40 in richer ones, so about 40,000
/// elements; a 1,000-record VERI*FACTU message about as many. Facturae
/// reaches about 10 levels, a signed one about 15; a root declares at most a
/// dozen namespaces; the longest names are about 60 bytes; a Facturae or
/// UBL attachment is base64 text of a few MB. The document may be as large
/// as an upload (50 MiB). At these limits the tree of an `<a/>` flood is
/// about 38 MB (`cargo bench -p shared --bench xml`).
pub const LIMITS: Limits = Limits {
    bytes: 50 * 1024 * 1024,
    depth: 64,
    elements: 200_000,
    attributes_per_element: 100,
    attributes: 200_000,
    name_bytes: 512,
    value_bytes: 64 * 1024,
    text_bytes: 32 * 1024 * 1024,
};

#[derive(Debug, Default, Clone, PartialEq, Eq)]
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
    root_within(xml, &LIMITS)
}

fn root_within(xml: &str, limits: &Limits) -> Result<Root, XmlError> {
    let mut reader = NsReader::from_str(xml);
    loop {
        let (namespace, event) = reader.read_resolved_event().map_err(syntax)?;
        match event {
            Event::Start(start) | Event::Empty(start) => {
                check_name(start.name().as_ref(), limits)?;
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

/// The whole document as a tree, with the root's namespace, within `LIMITS`.
pub fn parse(xml: &str) -> Result<(Root, Element), XmlError> {
    parse_within(xml, &LIMITS)
}

/// `parse` within other limits.
pub fn parse_within(xml: &str, limits: &Limits) -> Result<(Root, Element), XmlError> {
    if xml.len() > limits.bytes {
        return Err(too_large(
            "bytes",
            format!("the document is larger than {} bytes", limits.bytes),
        ));
    }
    let root = root_within(xml, limits)?;
    let mut tree = Builder::new(limits);
    let mut reader = NsReader::from_str(xml);
    loop {
        let event = reader.read_event().map_err(syntax)?;
        let done = match event {
            Event::Start(start) => tree.open(&start)?,
            Event::Empty(start) => {
                let element = tree.element(&start)?;
                tree.close(element)
            }
            Event::End(_) => {
                let Some(element) = tree.open.pop() else {
                    return Err(malformed("a closing tag has no opening tag"));
                };
                tree.close(element)
            }
            Event::Text(text) => tree.text(text.as_ref().len(), || text.xml10_content())?,
            Event::CData(data) => tree.text(data.as_ref().len(), || data.xml10_content())?,
            Event::GeneralRef(reference) => {
                let resolved = resolve_reference(&reference)?;
                tree.text(resolved.len(), || resolved.into())?
            }
            Event::DocType(doctype) => {
                refuse_entities(&doctype.xml10_content())?;
                None
            }
            Event::Eof => {
                return Err(malformed(
                    "the document ends before its root element is closed",
                ));
            }
            Event::Decl(_) | Event::PI(_) | Event::Comment(_) => None,
        };
        if let Some(element) = done {
            return Ok((root, element));
        }
    }
}

/// The tree being read: the open elements, and what has been counted
/// against the limits so far.
struct Builder<'l> {
    limits: &'l Limits,
    open: Vec<Element>,
    elements: usize,
    attributes: usize,
}

impl<'l> Builder<'l> {
    fn new(limits: &'l Limits) -> Self {
        Builder {
            limits,
            open: Vec::new(),
            elements: 0,
            attributes: 0,
        }
    }

    /// Opens an element that will have children; `None` (never done).
    fn open(&mut self, start: &BytesStart) -> Result<Option<Element>, XmlError> {
        if self.open.len() >= self.limits.depth {
            return Err(too_large(
                "depth",
                format!(
                    "elements are nested more than {} levels deep",
                    self.limits.depth
                ),
            ));
        }
        let element = self.element(start)?;
        self.open.push(element);
        Ok(None)
    }

    /// A closed element goes to its parent; the root, when closed, is the tree.
    fn close(&mut self, element: Element) -> Option<Element> {
        match self.open.last_mut() {
            Some(parent) => {
                parent.children.push(element);
                None
            }
            None => Some(element),
        }
    }

    /// An element with its attributes, each counted and measured before it
    /// is copied.
    fn element(&mut self, start: &BytesStart) -> Result<Element, XmlError> {
        if self.elements >= self.limits.elements {
            return Err(too_large(
                "elements",
                format!(
                    "the document has more than {} elements",
                    self.limits.elements
                ),
            ));
        }
        self.elements += 1;
        check_name(start.name().as_ref(), self.limits)?;
        let name = start.local_name().as_ref().to_string();
        let mut attributes = Vec::new();
        for attribute in start.attributes() {
            let attribute = attribute.map_err(|e| {
                malformed(&format!(
                    "an attribute of <{name}> is not well-formed ({e})"
                ))
            })?;
            self.count_attribute(&name, attributes.len())?;
            check_name(attribute.key.as_ref(), self.limits)?;
            if attribute.value.len() > self.limits.value_bytes {
                return Err(too_large(
                    "value_bytes",
                    format!(
                        "an attribute of <{name}> is longer than {} bytes",
                        self.limits.value_bytes
                    ),
                ));
            }
            let value = attribute
                .normalized_value(XmlVersion::Implicit1_0)
                .map_err(|e| {
                    malformed(&format!("an attribute of <{name}> has a bad value ({e})"))
                })?;
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

    /// One more attribute for `element`, which has `had` already.
    fn count_attribute(&mut self, element: &str, had: usize) -> Result<(), XmlError> {
        if had >= self.limits.attributes_per_element {
            return Err(too_large(
                "attributes_per_element",
                format!(
                    "<{element}> has more than {} attributes",
                    self.limits.attributes_per_element
                ),
            ));
        }
        if self.attributes >= self.limits.attributes {
            return Err(too_large(
                "attributes",
                format!(
                    "the document has more than {} attributes",
                    self.limits.attributes
                ),
            ));
        }
        self.attributes += 1;
        Ok(())
    }

    /// Appends text of `len` bytes as written (never fewer once decoded) to
    /// the open element, decoding it only when it fits; `None` (never done).
    fn text<'t>(
        &mut self,
        len: usize,
        decoded: impl FnOnce() -> Cow<'t, str>,
    ) -> Result<Option<Element>, XmlError> {
        let Some(current) = self.open.last_mut() else {
            return Ok(None);
        };
        if current.text.len() + len > self.limits.text_bytes {
            return Err(too_large(
                "text_bytes",
                format!(
                    "the text of <{}> is longer than {} bytes",
                    current.name, self.limits.text_bytes
                ),
            ));
        }
        current.text.push_str(&decoded());
        Ok(None)
    }
}

fn check_name(name: &str, limits: &Limits) -> Result<(), XmlError> {
    if name.len() > limits.name_bytes {
        return Err(too_large(
            "name_bytes",
            format!("a name is longer than {} bytes", limits.name_bytes),
        ));
    }
    Ok(())
}

/// A character reference or one of the five predefined entities, as text.
fn resolve_reference(reference: &BytesRef) -> Result<String, XmlError> {
    match reference.resolve_char_ref() {
        Ok(Some(c)) => Ok(c.to_string()),
        Ok(None) => resolve_predefined_entity(reference)
            .map(str::to_string)
            .ok_or_else(|| malformed(&format!("the entity &{}; is not defined", &**reference))),
        Err(_) => Err(malformed(&format!(
            "&{}; is not a valid character reference",
            &**reference
        ))),
    }
}

fn namespace_of(resolved: ResolveResult) -> String {
    match resolved {
        ResolveResult::Bound(namespace) => namespace.as_ref().to_string(),
        ResolveResult::Unbound | ResolveResult::Unknown(_) => String::new(),
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
    XmlError::Malformed(message.to_string())
}

fn too_large(limit: &'static str, message: String) -> XmlError {
    XmlError::TooLarge { limit, message }
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

    /// Small limits, so that each can be reached with a few bytes.
    const SMALL: Limits = Limits {
        bytes: 1_000,
        depth: 4,
        elements: 10,
        attributes_per_element: 3,
        attributes: 5,
        name_bytes: 8,
        value_bytes: 10,
        text_bytes: 20,
    };

    /// The limit a document goes over, or `None` when it is read.
    fn exceeded(xml: &str, limits: &Limits) -> Option<&'static str> {
        match parse_within(xml, limits) {
            Ok(_) => None,
            Err(XmlError::TooLarge { limit, .. }) => Some(limit),
            Err(XmlError::Malformed(m)) => panic!("{xml:?} is malformed: {m}"),
        }
    }

    #[test]
    fn deep_nesting_is_refused() {
        let xml = format!("{}{}", "<a>".repeat(10_000), "</a>".repeat(10_000));
        let error = parse(&xml).unwrap_err().to_string();
        assert!(error.contains("nested more than 64"), "{error}");
        let four = "<a><b><c><d/></c></b></a>";
        assert_eq!(exceeded(four, &SMALL), None);
        assert_eq!(exceeded("<a><b><c><d><e/></d></c></b></a>", &SMALL), None);
        assert_eq!(
            exceeded("<a><b><c><d><e></e></d></c></b></a>", &SMALL),
            Some("depth")
        );
    }

    #[test]
    fn the_element_count_is_bounded() {
        let flood = |n: usize| format!("<r>{}</r>", "<a/>".repeat(n));
        assert_eq!(exceeded(&flood(9), &SMALL), None, "the root and nine");
        assert_eq!(exceeded(&flood(10), &SMALL), Some("elements"));
        let error = parse(&flood(LIMITS.elements)).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("the document has more than {} elements", LIMITS.elements)
        );
    }

    #[test]
    fn attributes_are_bounded_per_element_and_in_all() {
        assert_eq!(exceeded(r#"<r a="1" b="2" c="3"/>"#, &SMALL), None);
        assert_eq!(
            exceeded(r#"<r a="1" b="2" c="3" d="4"/>"#, &SMALL),
            Some("attributes_per_element")
        );
        let spread = r#"<r a="1" b="2"><s a="1" b="2"/><t a="1" b="2"/></r>"#;
        assert_eq!(exceeded(spread, &SMALL), Some("attributes"));
        let declarations = format!(
            "<r {}/>",
            (0..=LIMITS.attributes_per_element)
                .map(|i| format!("xmlns:p{i}=\"urn:{i}\""))
                .collect::<Vec<_>>()
                .join(" ")
        );
        let error = parse(&declarations).unwrap_err().to_string();
        assert!(
            error.contains("<r> has more than 100 attributes"),
            "{error}"
        );
    }

    #[test]
    fn names_values_and_texts_are_bounded() {
        assert_eq!(exceeded("<abcdefgh/>", &SMALL), None);
        assert_eq!(exceeded("<abcdefghi/>", &SMALL), Some("name_bytes"));
        assert_eq!(exceeded("<r abcdefghi=\"\"/>", &SMALL), Some("name_bytes"));
        assert_eq!(exceeded("<r a=\"0123456789\"/>", &SMALL), None);
        assert_eq!(
            exceeded("<r a=\"01234567890\"/>", &SMALL),
            Some("value_bytes")
        );
        let text = |t: &str| format!("<r><t>{t}</t></r>");
        assert_eq!(exceeded(&text(&"x".repeat(20)), &SMALL), None);
        assert_eq!(exceeded(&text(&"x".repeat(21)), &SMALL), Some("text_bytes"));
        assert_eq!(
            exceeded(
                &text(&format!("{}&amp;<![CDATA[xx]]>", "x".repeat(18))),
                &SMALL
            ),
            Some("text_bytes"),
            "text, references and CDATA add up"
        );
        assert_eq!(exceeded(&"<r/>".repeat(251), &SMALL), Some("bytes"));
    }

    #[test]
    fn a_large_text_such_as_an_attachment_is_read_whole() {
        let attachment = "QUJD".repeat(2 * 1024 * 1024);
        let xml = format!("<r><AttachmentData>{attachment}</AttachmentData></r>");
        let (_, tree) = parse(&xml).unwrap();
        assert_eq!(
            tree.text_at(&["AttachmentData"]).map(str::len),
            Some(8 << 20)
        );
    }

    #[test]
    fn the_root_name_is_bounded_too() {
        let long = format!("<{}/>", "a".repeat(LIMITS.name_bytes + 1));
        assert!(matches!(
            root(&long),
            Err(XmlError::TooLarge {
                limit: "name_bytes",
                ..
            })
        ));
    }
}
