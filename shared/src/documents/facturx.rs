//! The Factur-X invoice: the PDF invoice as PDF/A-3b with the CII XML
//! embedded as `factur-x.xml` (an associated file of the document, listed
//! in `/EmbeddedFiles`), XMP metadata carrying the PDF/A identification and
//! the Factur-X extension schema, and an sRGB output intent.

use lopdf::{Dictionary, Document, Object, ObjectId, Stream};
use quick_xml::Reader;
use quick_xml::escape::escape;
use quick_xml::events::Event;

use super::pdf;
use crate::invoice::model::Invoice;

const FILE_NAME: &str = "factur-x.xml";
/// sRGB IEC 61966-2.1, ICC v2 (Debian's icc-profiles-free, Zlib licence).
const SRGB: &[u8] = include_bytes!("../../assets/icc/sRGB.icc");

pub fn facturx_pdf(invoice: &Invoice, cii_xml: &str) -> Vec<u8> {
    let mut doc = pdf::document(invoice);
    let profile = Profile::of(cii_xml);
    let metadata = doc.add_object(
        Stream::new(
            Dictionary::from_iter([
                ("Type", Object::Name(b"Metadata".to_vec())),
                ("Subtype", Object::Name(b"XML".to_vec())),
            ]),
            xmp(invoice, profile).into_bytes(),
        )
        .with_compression(false),
    );
    let intent = output_intent(&mut doc);
    let file = attachment(&mut doc, invoice, cii_xml, profile);
    let listed = vec![Object::string_literal(FILE_NAME), file.into()];
    let embedded = Dictionary::from_iter([("Names", Object::Array(listed))]);
    let names = Dictionary::from_iter([("EmbeddedFiles", Object::Dictionary(embedded))]);
    let catalog = doc
        .catalog_mut()
        .expect("printpdf writes a document catalog");
    catalog.set("Metadata", metadata);
    catalog.set("OutputIntents", vec![intent]);
    catalog.set("AF", vec![Object::Reference(file)]);
    catalog.set("Names", names);
    pdf::save(doc)
}

/// The Factur-X profile of the XML, from its guideline ID.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Profile {
    /// `fx:ConformanceLevel`.
    level: &'static str,
    /// `/AFRelationship`: MINIMUM and BASIC WL are not complete invoices, so only `Data`.
    relationship: &'static str,
}

impl Profile {
    fn of(cii_xml: &str) -> Profile {
        let id = guideline(cii_xml).unwrap_or_default();
        let (level, relationship) = match id.rsplit(':').next() {
            Some("minimum") => ("MINIMUM", "Data"),
            Some("basicwl") => ("BASIC WL", "Data"),
            Some("basic") => ("BASIC", "Alternative"),
            Some("extended") => ("EXTENDED", "Alternative"),
            _ => ("EN 16931", "Alternative"),
        };
        Profile {
            level,
            relationship,
        }
    }
}

/// `GuidelineSpecifiedDocumentContextParameter/ID`, whatever the prefixes.
fn guideline(xml: &str) -> Option<String> {
    let mut reader = Reader::from_str(xml);
    let mut path: Vec<String> = Vec::new();
    loop {
        match reader.read_event().ok()? {
            Event::Start(e) => path.push(e.local_name().as_ref().to_string()),
            Event::End(_) => {
                path.pop();
            }
            Event::Text(t)
                if path.len() >= 2
                    && path[path.len() - 2..]
                        == ["GuidelineSpecifiedDocumentContextParameter", "ID"] =>
            {
                return Some(t.xml10_content().trim().to_string());
            }
            Event::Eof => return None,
            _ => {}
        }
    }
}

fn output_intent(doc: &mut Document) -> Object {
    let profile = doc.add_object(Stream::new(
        Dictionary::from_iter([("N", Object::Integer(3))]),
        SRGB.to_vec(),
    ));
    let condition = Object::string_literal("sRGB IEC61966-2.1");
    Dictionary::from_iter([
        ("Type", Object::Name(b"OutputIntent".to_vec())),
        ("S", Object::Name(b"GTS_PDFA1".to_vec())),
        ("OutputConditionIdentifier", condition.clone()),
        ("Info", condition),
        (
            "RegistryName",
            Object::string_literal("http://www.color.org"),
        ),
        ("DestinationOutputProfile", Object::Reference(profile)),
    ])
    .into()
}

/// The embedded file and its file specification; returns the latter.
fn attachment(doc: &mut Document, invoice: &Invoice, xml: &str, profile: Profile) -> ObjectId {
    let params = Dictionary::from_iter([
        ("Size", Object::Integer(xml.len() as i64)),
        ("ModDate", pdf::date(invoice)),
    ]);
    let stream = doc.add_object(Stream::new(
        Dictionary::from_iter([
            ("Type", Object::Name(b"EmbeddedFile".to_vec())),
            ("Subtype", Object::Name(b"text/xml".to_vec())),
            ("Params", params.into()),
        ]),
        xml.as_bytes().to_vec(),
    ));
    let files = Dictionary::from_iter([
        ("F", Object::Reference(stream)),
        ("UF", Object::Reference(stream)),
    ]);
    doc.add_object(Dictionary::from_iter([
        ("Type", Object::Name(b"Filespec".to_vec())),
        ("F", Object::string_literal(FILE_NAME)),
        ("UF", Object::string_literal(FILE_NAME)),
        ("Desc", Object::string_literal("Factur-X invoice (CII XML)")),
        (
            "AFRelationship",
            Object::Name(profile.relationship.as_bytes().to_vec()),
        ),
        ("EF", files.into()),
    ]))
}

/// The XMP packet: PDF/A-3B identification, the document properties that
/// mirror the Info dictionary, and the Factur-X properties with their schema.
fn xmp(invoice: &Invoice, profile: Profile) -> String {
    let date = invoice.created_at.format("%Y-%m-%dT%H:%M:%S+00:00");
    let title = escape(pdf::title(invoice));
    let producer = pdf::PRODUCER;
    let level = profile.level;
    format!(
        r#"<?xpacket begin="{bom}" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:pdfaid="http://www.aiim.org/pdfa/ns/id/">
<pdfaid:part>3</pdfaid:part>
<pdfaid:conformance>B</pdfaid:conformance>
</rdf:Description>
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
<dc:format>application/pdf</dc:format>
<dc:title><rdf:Alt><rdf:li xml:lang="x-default">{title}</rdf:li></rdf:Alt></dc:title>
</rdf:Description>
<rdf:Description rdf:about="" xmlns:pdf="http://ns.adobe.com/pdf/1.3/">
<pdf:Producer>{producer}</pdf:Producer>
</rdf:Description>
<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/">
<xmp:CreateDate>{date}</xmp:CreateDate>
<xmp:ModifyDate>{date}</xmp:ModifyDate>
<xmp:MetadataDate>{date}</xmp:MetadataDate>
</rdf:Description>
<rdf:Description rdf:about="" xmlns:fx="urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#">
<fx:DocumentType>INVOICE</fx:DocumentType>
<fx:DocumentFileName>{FILE_NAME}</fx:DocumentFileName>
<fx:Version>1.0</fx:Version>
<fx:ConformanceLevel>{level}</fx:ConformanceLevel>
</rdf:Description>
{EXTENSION_SCHEMA}
</rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>"#,
        bom = '\u{FEFF}',
    )
}

/// The PDF/A extension schema that declares the `fx` properties
/// (Factur-X 1.0, `Factur-X_extension_schema.xmp`).
const EXTENSION_SCHEMA: &str = r#"<rdf:Description rdf:about=""
 xmlns:pdfaExtension="http://www.aiim.org/pdfa/ns/extension/"
 xmlns:pdfaSchema="http://www.aiim.org/pdfa/ns/schema#"
 xmlns:pdfaProperty="http://www.aiim.org/pdfa/ns/property#">
<pdfaExtension:schemas>
<rdf:Bag>
<rdf:li rdf:parseType="Resource">
<pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema>
<pdfaSchema:namespaceURI>urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#</pdfaSchema:namespaceURI>
<pdfaSchema:prefix>fx</pdfaSchema:prefix>
<pdfaSchema:property>
<rdf:Seq>
<rdf:li rdf:parseType="Resource">
<pdfaProperty:name>DocumentFileName</pdfaProperty:name>
<pdfaProperty:valueType>Text</pdfaProperty:valueType>
<pdfaProperty:category>external</pdfaProperty:category>
<pdfaProperty:description>name of the embedded XML invoice file</pdfaProperty:description>
</rdf:li>
<rdf:li rdf:parseType="Resource">
<pdfaProperty:name>DocumentType</pdfaProperty:name>
<pdfaProperty:valueType>Text</pdfaProperty:valueType>
<pdfaProperty:category>external</pdfaProperty:category>
<pdfaProperty:description>INVOICE</pdfaProperty:description>
</rdf:li>
<rdf:li rdf:parseType="Resource">
<pdfaProperty:name>Version</pdfaProperty:name>
<pdfaProperty:valueType>Text</pdfaProperty:valueType>
<pdfaProperty:category>external</pdfaProperty:category>
<pdfaProperty:description>The actual version of the Factur-X XML schema</pdfaProperty:description>
</rdf:li>
<rdf:li rdf:parseType="Resource">
<pdfaProperty:name>ConformanceLevel</pdfaProperty:name>
<pdfaProperty:valueType>Text</pdfaProperty:valueType>
<pdfaProperty:category>external</pdfaProperty:category>
<pdfaProperty:description>The conformance level of the embedded Factur-X data</pdfaProperty:description>
</rdf:li>
</rdf:Seq>
</pdfaSchema:property>
</rdf:li>
</rdf:Bag>
</pdfaExtension:schemas>
</rdf:Description>"#;

#[cfg(test)]
mod tests {
    use super::*;

    fn with_guideline(id: &str) -> String {
        format!(
            "<rsm:CrossIndustryInvoice xmlns:rsm=\"r\" xmlns:ram=\"a\">\
             <rsm:ExchangedDocumentContext><ram:BusinessProcessSpecifiedDocumentContextParameter>\
             <ram:ID>A1</ram:ID></ram:BusinessProcessSpecifiedDocumentContextParameter>\
             <ram:GuidelineSpecifiedDocumentContextParameter><ram:ID> {id} </ram:ID>\
             </ram:GuidelineSpecifiedDocumentContextParameter></rsm:ExchangedDocumentContext>\
             </rsm:CrossIndustryInvoice>"
        )
    }

    #[test]
    fn the_profile_follows_the_guideline_id() {
        let level = |id: &str| Profile::of(&with_guideline(id));
        assert_eq!(level("urn:cen.eu:en16931:2017").level, "EN 16931");
        assert_eq!(
            level("urn:cen.eu:en16931:2017#compliant#urn:factur-x.eu:1p0:basic").level,
            "BASIC"
        );
        assert_eq!(
            level("urn:factur-x.eu:1p0:minimum"),
            Profile {
                level: "MINIMUM",
                relationship: "Data"
            }
        );
        assert_eq!(level("urn:factur-x.eu:1p0:basicwl").relationship, "Data");
        assert_eq!(Profile::of("not xml <").level, "EN 16931");
    }
}
