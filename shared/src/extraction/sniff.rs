//! What kind of file a request carries, from its first bytes (magic numbers),
//! never from a file name or a declared content type.

/// A file kind the extraction reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    Pdf,
    Png,
    Jpeg,
    Webp,
    Xml,
}

impl FileKind {
    /// The media type of files of this kind.
    pub fn mime(self) -> &'static str {
        match self {
            FileKind::Pdf => "application/pdf",
            FileKind::Png => "image/png",
            FileKind::Jpeg => "image/jpeg",
            FileKind::Webp => "image/webp",
            FileKind::Xml => "application/xml",
        }
    }
}

/// How far into a file the `%PDF-` header may start: readers accept leading
/// junk (mail gateways and old generators prepend some).
const PDF_HEADER_WINDOW: usize = 1024;

pub fn sniff(bytes: &[u8]) -> Option<FileKind> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some(FileKind::Png)
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(FileKind::Jpeg)
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some(FileKind::Webp)
    } else if bytes[..bytes.len().min(PDF_HEADER_WINDOW)]
        .windows(5)
        .any(|w| w == b"%PDF-")
    {
        Some(FileKind::Pdf)
    } else if looks_like_xml(bytes) {
        Some(FileKind::Xml)
    } else {
        None
    }
}

/// An optional byte-order mark, optional whitespace, then `<`.
fn looks_like_xml(bytes: &[u8]) -> bool {
    let (body, step) = if let Some(rest) = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        (rest, 1)
    } else if let Some(rest) = bytes.strip_prefix(&[0xFF, 0xFE]) {
        (rest, 2)
    } else if let Some(rest) = bytes.strip_prefix(&[0xFE, 0xFF]) {
        (&rest[rest.len().min(1)..], 2)
    } else {
        (bytes, 1)
    };
    body.iter()
        .step_by(step)
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'<')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_numbers_name_the_kind() {
        assert_eq!(sniff(b"%PDF-1.7\n%\xe2\xe3"), Some(FileKind::Pdf));
        assert_eq!(sniff(b"garbage\r\n%PDF-1.4\n"), Some(FileKind::Pdf));
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"), Some(FileKind::Png));
        assert_eq!(
            sniff(&[0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]),
            Some(FileKind::Jpeg)
        );
        assert_eq!(sniff(b"RIFF\x24\0\0\0WEBPVP8 "), Some(FileKind::Webp));
    }

    #[test]
    fn xml_may_start_with_a_bom_and_blanks() {
        assert_eq!(sniff(b"<?xml version=\"1.0\"?><a/>"), Some(FileKind::Xml));
        assert_eq!(sniff(b"\xEF\xBB\xBF\r\n  <Facturae/>"), Some(FileKind::Xml));
        assert_eq!(sniff(b"\xFF\xFE<\0?\0x\0"), Some(FileKind::Xml));
        assert_eq!(sniff(b"\xFE\xFF\0<\0?"), Some(FileKind::Xml));
    }

    #[test]
    fn anything_else_is_unknown() {
        for bytes in [
            &b""[..],
            b"   ",
            b"Factura 1",
            b"RIFF\0\0\0\0WAVE",
            b"\x89PNX",
            b"{\"a\":1}",
            b"PK\x03\x04",
            &[0xFF, 0xD8],
        ] {
            assert_eq!(sniff(bytes), None, "{bytes:?}");
        }
    }
}
