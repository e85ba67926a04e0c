//! Files embedded in a PDF: the catalog's `/Names/EmbeddedFiles` name tree
//! (followed through `/Kids`) and its `/AF` array (PDF/A-3, Factur-X). All are
//! returned; the caller picks the e-invoice among them by name.

use std::collections::HashSet;

use lopdf::{Dictionary, Document, Object, ObjectId};
use serde::{Deserialize, Serialize};

/// Most attachments returned.
pub const MAX_ATTACHMENTS: usize = 16;
/// Largest attachment, decompressed: e-invoice XML is a few hundred kilobytes.
pub const MAX_ATTACHMENT_BYTES: usize = 8 << 20;
/// Deepest name-tree nesting followed, and most tree nodes visited.
const MAX_TREE_DEPTH: usize = 16;
const MAX_TREE_NODES: usize = 4096;

/// One embedded file: its name (`/UF`, else `/F`, else its name-tree key)
/// and its decoded bytes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attachment {
    pub name: String,
    #[serde(with = "base64_bytes")]
    pub bytes: Vec<u8>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("an embedded file is larger than {MAX_ATTACHMENT_BYTES} bytes decompressed")]
pub struct AttachmentTooLarge;

pub fn attachments(doc: &Document) -> Result<Vec<Attachment>, AttachmentTooLarge> {
    let Ok(catalog) = doc.catalog() else {
        return Ok(Vec::new());
    };
    let mut specs: Vec<(Option<String>, &Dictionary)> = Vec::new();
    if let Some(root) = catalog
        .get(b"Names")
        .ok()
        .and_then(|o| dict(doc, o))
        .and_then(|names| dict(doc, names.get(b"EmbeddedFiles").ok()?))
    {
        let mut visited = HashSet::new();
        name_tree(doc, root, 0, &mut visited, &mut specs);
    }
    if let Some(af) = catalog
        .get(b"AF")
        .ok()
        .and_then(|o| resolve(doc, o)?.as_array().ok())
    {
        specs.extend(af.iter().filter_map(|o| dict(doc, o)).map(|d| (None, d)));
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (key, spec) in specs {
        if out.len() == MAX_ATTACHMENTS {
            break;
        }
        let Some((id, stream)) = embedded_stream(doc, spec) else {
            continue;
        };
        if !seen.insert(id) {
            continue;
        }
        let bytes = match stream.get_plain_content_with_limit(MAX_ATTACHMENT_BYTES) {
            Ok(bytes) => bytes,
            Err(lopdf::Error::Decompress(lopdf::DecompressError::MemoryLimitExceeded {
                ..
            })) => return Err(AttachmentTooLarge),
            Err(_) => continue,
        };
        let name = [b"UF".as_slice(), b"F"]
            .iter()
            .find_map(|k| lopdf::decode_text_string(resolve(doc, spec.get(k).ok()?)?).ok())
            .or(key)
            .unwrap_or_default();
        out.push(Attachment { name, bytes });
    }
    Ok(out)
}

fn resolve<'a>(doc: &'a Document, object: &'a Object) -> Option<&'a Object> {
    doc.dereference(object).ok().map(|(_, o)| o)
}

fn dict<'a>(doc: &'a Document, object: &'a Object) -> Option<&'a Dictionary> {
    resolve(doc, object)?.as_dict().ok()
}

/// Collects the `(key, filespec)` pairs of a name-tree node and its kids.
fn name_tree<'a>(
    doc: &'a Document,
    node: &'a Dictionary,
    depth: usize,
    visited: &mut HashSet<*const Dictionary>,
    specs: &mut Vec<(Option<String>, &'a Dictionary)>,
) {
    if depth > MAX_TREE_DEPTH || visited.len() >= MAX_TREE_NODES || !visited.insert(node) {
        return;
    }
    if let Some(names) = node
        .get(b"Names")
        .ok()
        .and_then(|o| resolve(doc, o)?.as_array().ok())
    {
        for pair in names.chunks(2) {
            if let [key, value] = pair
                && let Some(spec) = dict(doc, value)
            {
                let key = resolve(doc, key).and_then(|k| lopdf::decode_text_string(k).ok());
                specs.push((key, spec));
            }
        }
    }
    if let Some(kids) = node
        .get(b"Kids")
        .ok()
        .and_then(|o| resolve(doc, o)?.as_array().ok())
    {
        for kid in kids.iter().filter_map(|k| dict(doc, k)) {
            name_tree(doc, kid, depth + 1, visited, specs);
        }
    }
}

/// The embedded-file stream of a filespec (`/EF/UF`, else `/EF/F`).
fn embedded_stream<'a>(
    doc: &'a Document,
    spec: &'a Dictionary,
) -> Option<(ObjectId, &'a lopdf::Stream)> {
    let ef = dict(doc, spec.get(b"EF").ok()?)?;
    [b"UF".as_slice(), b"F"].iter().find_map(|k| {
        let id = ef.get(k).ok()?.as_reference().ok()?;
        Some((id, doc.get_object(id).ok()?.as_stream().ok()?))
    })
}

/// Attachment bytes as base64 in the child's JSON answer, not a number array.
mod base64_bytes {
    use base64::Engine;
    use base64::engine::general_purpose::STANDARD;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&STANDARD.encode(bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(d)?;
        STANDARD.decode(text).map_err(serde::de::Error::custom)
    }
}
