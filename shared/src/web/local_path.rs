//! Where the application may send a browser back to (`next=`, `back=`, the
//! `Location` of every 303): a path of this origin, parsed once at the edge.
//! A lenient check let `/\t/evil.example` through, which browsers read as
//! `//evil.example` (they drop tabs and line breaks), and `/%0a/x` reach the
//! `Location` header, which could not hold it. Anything that is not plainly
//! local becomes `/`.

use std::fmt;
use std::ops::Deref;

use axum::http::HeaderValue;
use percent_encoding::percent_decode_str;

/// A path (with its query) of this application, safe as a `Location`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalPath(String);

/// Longer targets are not ones this application makes.
const MAX_LEN: usize = 2048;

impl LocalPath {
    /// `/` followed by neither `/` nor `\`, in visible ASCII only (no
    /// whitespace or control characters, which browsers drop or refuse);
    /// decoded once, it must not start with `//`, `/\` or `/` and a space,
    /// nor hold a control character anywhere.
    pub fn parse(raw: &str) -> Option<LocalPath> {
        let plain = raw.len() <= MAX_LEN
            && raw.bytes().all(|b| b.is_ascii_graphic())
            && local_start(raw.as_bytes());
        let decoded: Vec<u8> = percent_decode_str(raw).collect();
        let decoded_plain = local_start(&decoded) && !decoded.iter().any(|b| b.is_ascii_control());
        (plain && decoded_plain).then(|| LocalPath(raw.to_string()))
    }

    /// The overview, where any refused target leads.
    pub fn root() -> LocalPath {
        LocalPath("/".into())
    }

    /// The `Location` value (always valid: `parse` kept only visible ASCII).
    pub fn header_value(&self) -> HeaderValue {
        HeaderValue::from_str(&self.0).unwrap_or(HeaderValue::from_static("/"))
    }
}

/// A leading `/` not followed by `/`, `\` or whitespace.
fn local_start(bytes: &[u8]) -> bool {
    bytes.first() == Some(&b'/')
        && !bytes
            .get(1)
            .is_some_and(|b| matches!(b, b'/' | b'\\') || b.is_ascii_whitespace())
}

/// A target from a query or a form, or `/` when it is missing or not local
/// (an open redirect would send a signed-in person anywhere).
pub fn local_path(candidate: Option<&str>) -> LocalPath {
    candidate
        .and_then(LocalPath::parse)
        .unwrap_or_else(LocalPath::root)
}

/// A path the application built itself (`/expenses?mode=test`): parsed
/// like any other, so a mistake leads to `/`, never to a bad header.
impl From<&str> for LocalPath {
    fn from(path: &str) -> Self {
        local_path(Some(path))
    }
}

impl From<&String> for LocalPath {
    fn from(path: &String) -> Self {
        local_path(Some(path))
    }
}

impl From<&LocalPath> for LocalPath {
    fn from(path: &LocalPath) -> Self {
        path.clone()
    }
}

/// Read as the text it is (a hidden `next` field, a link).
impl Deref for LocalPath {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for LocalPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::{LocalPath, local_path};

    #[test]
    fn paths_of_this_application_are_kept() {
        for good in [
            "/",
            "/invoices?page=2",
            "/developers/keys",
            "/expenses?mode=test&q=caf%C3%A9%20bar",
            "/customers/cus_1?mode=live#top",
            "/a%2Fb",
        ] {
            assert_eq!(local_path(Some(good)).to_string(), good, "{good}");
        }
    }

    #[test]
    fn anything_a_browser_could_read_as_another_origin_is_the_overview() {
        for bad in [
            "/%09/",
            "/%09/example.org",
            "/\t/",
            "/\t/evil.example",
            "/%0a/",
            "/%0a/x",
            "/%0D%0A/x",
            "/\r\n/x",
            "/\n/x",
            "/\\",
            "/\\evil.example",
            "//",
            "//evil.example",
            "/%2F%2F",
            "/%2f%2fevil.example",
            "/%5C",
            "/%5cevil.example",
            "/%20/evil.example",
            "/ /evil.example",
            "/x%00y",
            "/x y",
            "http://evil",
            "https:evil",
            "https://evil.example/",
            "\\\\evil",
            "\\/evil",
            "javascript:alert(1)",
            "evil.example",
            "",
            "/caf\u{e9}",
        ] {
            assert_eq!(local_path(Some(bad)), LocalPath::root(), "{bad:?}");
            assert_eq!(LocalPath::parse(bad), None, "{bad:?}");
        }
        assert_eq!(local_path(None), LocalPath::root());
        let long = format!("/{}", "a".repeat(3000));
        assert_eq!(local_path(Some(&long)), LocalPath::root());
    }

    #[test]
    fn every_kept_path_is_a_valid_location() {
        for raw in ["/", "/invoices?page=2", "/%09/", "/\n"] {
            let path = local_path(Some(raw));
            assert_eq!(path.header_value().to_str().unwrap(), &*path);
        }
    }
}
