//! XML rendering of record trees and the RegFactuSistemaFacturacion envelope.
//! Written into a `String` (which cannot fail), with quick-xml escaping text.

use quick_xml::escape::escape;

use super::tree::{Node, group, text};

/// Namespace of the record content (prefix `sf`).
pub const NS_SUMINISTRO_INFORMACION: &str = "https://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/tike/cont/ws/SuministroInformacion.xsd";
/// Namespace of the submission envelope (prefix `sfLR`).
pub const NS_SUMINISTRO_LR: &str = "https://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/tike/cont/ws/SuministroLR.xsd";

const DECLARATION: &str = r#"<?xml version="1.0" encoding="UTF-8"?>"#;

/// A record element (`RegistroAlta` / `RegistroAnulacion`) declaring `sf`,
/// without an XML declaration so that it can be embedded.
pub(crate) fn record_xml(name: &str, children: &[Node]) -> String {
    let mut out = format!(r#"<sf:{name} xmlns:sf="{NS_SUMINISTRO_INFORMACION}">"#);
    write_all(children, &mut out);
    out.push_str(&format!("</sf:{name}>"));
    out
}

pub(crate) fn write_all(nodes: &[Node], out: &mut String) {
    for node in nodes {
        write_node(node, out);
    }
}

fn write_node(node: &Node, out: &mut String) {
    match node {
        Node::Text(name, value) => {
            out.push_str(&format!(
                "<sf:{name}>{}</sf:{name}>",
                escape(value.as_str())
            ));
        }
        Node::Group(name, children) => write_element(name, children, out),
        Node::Repeated(name, entries) => {
            for children in entries {
                write_element(name, children, out);
            }
        }
    }
}

fn write_element(name: &str, children: &[Node], out: &mut String) {
    out.push_str(&format!("<sf:{name}>"));
    write_all(children, out);
    out.push_str(&format!("</sf:{name}>"));
}

/// Wraps records (their XML) in a RegFactuSistemaFacturacion (Cabecera with
/// ObligadoEmision{NombreRazon, NIF}) for submission and for XSD validation.
pub fn submission_xml(issuer_name: &str, issuer_nif: &str, records: &[&str]) -> String {
    let obligado = group(
        "ObligadoEmision",
        vec![text("NombreRazon", issuer_name), text("NIF", issuer_nif)],
    );
    let mut out = format!(
        r#"{DECLARATION}<sfLR:RegFactuSistemaFacturacion xmlns:sfLR="{NS_SUMINISTRO_LR}" xmlns:sf="{NS_SUMINISTRO_INFORMACION}"><sfLR:Cabecera>"#
    );
    write_node(&obligado, &mut out);
    out.push_str("</sfLR:Cabecera>");
    for record in records {
        out.push_str(&format!(
            "<sfLR:RegistroFactura>{record}</sfLR:RegistroFactura>"
        ));
    }
    out.push_str("</sfLR:RegFactuSistemaFacturacion>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_repeated_elements_repeat() {
        let xml = record_xml(
            "R",
            &[
                text("A", " Smith & <Sons> "),
                Node::Repeated("B", vec![vec![text("C", "1")], vec![text("C", "2")]]),
            ],
        );
        assert_eq!(
            xml,
            format!(
                r#"<sf:R xmlns:sf="{NS_SUMINISTRO_INFORMACION}"><sf:A>Smith &amp; &lt;Sons&gt;</sf:A><sf:B><sf:C>1</sf:C></sf:B><sf:B><sf:C>2</sf:C></sf:B></sf:R>"#
            )
        );
    }

    #[test]
    fn the_envelope_carries_the_issuer_and_each_record() {
        let record = "<sf:RegistroAlta/>";
        let xml = submission_xml("Perico & Co", "A00000000", &[record, record]);
        assert!(xml.starts_with(DECLARATION));
        assert!(xml.contains(
            "<sfLR:Cabecera><sf:ObligadoEmision><sf:NombreRazon>Perico &amp; Co</sf:NombreRazon><sf:NIF>A00000000</sf:NIF></sf:ObligadoEmision></sfLR:Cabecera>"
        ));
        assert_eq!(
            xml.matches("<sfLR:RegistroFactura><sf:RegistroAlta/></sfLR:RegistroFactura>")
                .count(),
            2
        );
    }
}
