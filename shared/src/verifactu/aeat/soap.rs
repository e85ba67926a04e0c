//! SOAP 1.1 around the AEAT messages: the envelope, its body, and faults
//! (what the AEAT answers to a message it cannot take at all, e.g. one that
//! breaks the schema).

use quick_xml::escape::escape;

use crate::xml_tree::{self, Element};

pub const NS_SOAP: &str = "http://schemas.xmlsoap.org/soap/envelope/";

/// A SOAP fault: `faultcode` (e.g. `env:Client`, `env:Server`) and `faultstring`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub code: String,
    pub message: String,
}

/// `body` (one XML element, without declaration) in a SOAP 1.1 envelope.
pub fn envelope(body: &str) -> String {
    envelope_with_header("", body)
}

/// `envelope` with `header` (header elements; none when empty) in its Header.
pub fn envelope_with_header(header: &str, body: &str) -> String {
    let header = if header.is_empty() {
        "<env:Header/>".to_string()
    } else {
        format!("<env:Header>{header}</env:Header>")
    };
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><env:Envelope xmlns:env="{NS_SOAP}">{header}<env:Body>{body}</env:Body></env:Envelope>"#
    )
}

/// A fault as a SOAP 1.1 envelope.
pub fn fault_envelope(fault: &Fault) -> String {
    envelope(&format!(
        "<env:Fault><faultcode>{}</faultcode><faultstring>{}</faultstring></env:Fault>",
        escape(fault.code.as_str()),
        escape(fault.message.as_str())
    ))
}

/// What a SOAP message carries: its body's first element, or its fault.
#[derive(Debug)]
pub enum Body {
    Content(Element),
    Fault(Fault),
}

/// Reads an envelope; `Err` says why it is not one.
pub fn read(xml: &str) -> Result<Body, String> {
    read_with_header(xml).map(|(_, body)| body)
}

/// `read`, with the envelope's Header when it has one.
pub fn read_with_header(xml: &str) -> Result<(Option<Element>, Body), String> {
    let (root, envelope) = xml_tree::parse(strip_declaration_prefix(xml))
        .map_err(|e| format!("the message is not XML: {e}"))?;
    if root.name != "Envelope" || root.namespace != NS_SOAP {
        return Err(format!(
            "the message is not a SOAP 1.1 envelope (root {} in {:?})",
            root.name, root.namespace
        ));
    }
    let header = envelope.child("Header").cloned();
    let content = envelope
        .child("Body")
        .and_then(|body| body.first_child())
        .ok_or("the SOAP envelope has an empty Body")?;
    if content.name == "Fault" {
        let fault = Fault {
            code: content
                .text_at(&["faultcode"])
                .unwrap_or_default()
                .to_string(),
            message: content
                .text_at(&["faultstring"])
                .unwrap_or_default()
                .to_string(),
        };
        return Ok((header, Body::Fault(fault)));
    }
    Ok((header, Body::Content(content.clone())))
}

/// A byte-order mark or spaces before the declaration are tolerated.
fn strip_declaration_prefix(xml: &str) -> &str {
    xml.trim_start_matches('\u{feff}').trim_start()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_and_a_fault_round_trip() {
        let Body::Content(content) =
            read(&envelope("<a:X xmlns:a=\"urn:a\"><a:Y>1</a:Y></a:X>")).unwrap()
        else {
            panic!("a body");
        };
        assert_eq!(
            (content.name.as_str(), content.text_at(&["Y"])),
            ("X", Some("1"))
        );
        let fault = Fault {
            code: "env:Client".into(),
            message: "Codigo[4102].El XML no cumple el esquema & <más>".into(),
        };
        let Body::Fault(read_back) = read(&fault_envelope(&fault)).unwrap() else {
            panic!("a fault");
        };
        assert_eq!(read_back, fault);
    }

    #[test]
    fn other_documents_are_refused() {
        assert!(read("<x/>").unwrap_err().contains("not a SOAP"));
        assert!(read("nope").unwrap_err().contains("not XML"));
        let empty = format!(r#"<e:Envelope xmlns:e="{NS_SOAP}"><e:Body/></e:Envelope>"#);
        assert!(read(&empty).unwrap_err().contains("empty Body"));
    }
}
