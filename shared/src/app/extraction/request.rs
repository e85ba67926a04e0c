//! The extraction request as it arrives: `files` (base64 documents, or
//! uploads by id) and `texts` (text already extracted), at most five items
//! in all.

use serde::Deserialize;
use utoipa::ToSchema;

/// Items per request, files and texts together (API-SPEC §8).
pub const MAX_ITEMS: usize = 5;

/// One document: base64 `data`, or an `upload_id` (exactly one of them).
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "factura-0147.pdf", "mime": "application/pdf", "data": "JVBERi0xLjcK…"}))]
pub struct FileInput {
    /// The file name, returned as `file_name` with its result.
    #[schema(min_length = 1, max_length = 255)]
    pub name: String,
    /// `application/pdf`, `image/jpeg`, `image/png`, `image/webp`, or
    /// `application/xml` / `text/xml` for e-invoices. It must match the bytes.
    /// Required with `data`; with `upload_id` it is the upload's, and if
    /// given must be the same.
    #[serde(default)]
    pub mime: Option<String>,
    /// The file's bytes in base64 (standard or URL-safe alphabet, padding
    /// optional, line breaks and a `data:…;base64,` prefix tolerated).
    #[serde(default)]
    pub data: Option<String>,
    /// An upload (`upl_…`, see `POST /api/v1/uploads`) holding the file,
    /// instead of `data`: for files too large for the request body (up to
    /// 50 MiB).
    #[serde(default)]
    pub upload_id: Option<String>,
    /// The bytes of `upload_id`, while its turn to be prepared lasts
    /// (`prepare`).
    #[serde(skip)]
    pub uploaded: Option<Vec<u8>>,
}

/// Text already extracted from an invoice (e.g. by the client's own OCR).
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "ticket.txt", "text": "Factura nº 2026/0147\nFecha: 05/08/2026\n…"}))]
pub struct TextInput {
    #[schema(min_length = 1, max_length = 255)]
    pub name: String,
    pub text: String,
}

/// Up to five items in all; results come in the order files then texts.
#[derive(Clone, Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ExtractRequest {
    #[serde(default)]
    #[schema(max_items = 5)]
    pub files: Vec<FileInput>,
    #[serde(default)]
    #[schema(max_items = 5)]
    pub texts: Vec<TextInput>,
}

/// A request that cannot be run at all (nothing is charged).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct RequestError {
    pub code: &'static str,
    pub param: String,
    pub message: String,
}

impl ExtractRequest {
    /// Checks the item count and names.
    pub fn validate(&self) -> Result<(), RequestError> {
        let count = self.files.len() + self.texts.len();
        if count == 0 {
            return Err(RequestError {
                code: "parameter_missing",
                param: "files".into(),
                message: "send at least one item in `files` (base64 documents) or `texts` (extracted text)".into(),
            });
        }
        if count > MAX_ITEMS {
            return Err(RequestError {
                code: "parameter_invalid",
                param: if self.files.len() > MAX_ITEMS {
                    "files"
                } else {
                    "texts"
                }
                .into(),
                message: format!(
                    "at most {MAX_ITEMS} items per request (files and texts together); {count} were sent"
                ),
            });
        }
        for (i, file) in self.files.iter().enumerate() {
            let error = |code, param: String, message: &str| RequestError {
                code,
                param,
                message: message.to_string(),
            };
            match (&file.data, &file.upload_id, &file.mime) {
                (Some(_), Some(_), _) => {
                    return Err(error(
                        "parameter_invalid",
                        format!("files[{i}]"),
                        "give the file as `data` (base64) or as `upload_id`, not both",
                    ));
                }
                (None, None, _) => {
                    return Err(error(
                        "parameter_missing",
                        format!("files[{i}]"),
                        "give the file as `data` (base64) or as `upload_id` (POST /api/v1/uploads)",
                    ));
                }
                (Some(_), None, None) => {
                    return Err(error(
                        "parameter_missing",
                        format!("files[{i}].mime"),
                        "give the file's `mime` with its `data`",
                    ));
                }
                _ => {}
            }
        }
        let names = self
            .files
            .iter()
            .map(|f| &f.name)
            .enumerate()
            .map(|(i, n)| (format!("files[{i}].name"), n))
            .chain(
                self.texts
                    .iter()
                    .enumerate()
                    .map(|(i, t)| (format!("texts[{i}].name"), &t.name)),
            );
        for (param, name) in names {
            let len = name.trim().chars().count();
            if len == 0 || len > 255 {
                return Err(RequestError {
                    code: "parameter_invalid",
                    param,
                    message: "a name has 1 to 255 characters".into(),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str) -> FileInput {
        FileInput {
            name: name.into(),
            mime: Some("application/pdf".into()),
            data: Some(String::new()),
            upload_id: None,
            uploaded: None,
        }
    }

    #[test]
    fn counts_items_in_both_lists() {
        let empty = ExtractRequest::default();
        assert_eq!(empty.validate().unwrap_err().code, "parameter_missing");
        let six = ExtractRequest {
            files: (0..3).map(|i| file(&format!("{i}.pdf"))).collect(),
            texts: (0..3)
                .map(|i| TextInput {
                    name: format!("{i}.txt"),
                    text: "x".into(),
                })
                .collect(),
        };
        let e = six.validate().unwrap_err();
        assert_eq!((e.code, e.param.as_str()), ("parameter_invalid", "texts"));
        let blank = ExtractRequest {
            files: vec![file("a.pdf"), file(" ")],
            texts: vec![],
        };
        assert_eq!(blank.validate().unwrap_err().param, "files[1].name");
        assert!(
            ExtractRequest {
                files: vec![file("a.pdf")],
                texts: vec![]
            }
            .validate()
            .is_ok()
        );
    }

    #[test]
    fn a_file_is_data_or_an_upload() {
        let one = |f: FileInput| {
            ExtractRequest {
                files: vec![file("a.pdf"), f],
                texts: vec![],
            }
            .validate()
            .map_err(|e| (e.code, e.param))
        };
        let uploaded = FileInput {
            data: None,
            mime: None,
            upload_id: Some("upl_1".into()),
            ..file("b.pdf")
        };
        assert_eq!(one(uploaded.clone()), Ok(()));
        let both = FileInput {
            data: Some("JVBE".into()),
            ..uploaded.clone()
        };
        assert_eq!(one(both), Err(("parameter_invalid", "files[1]".into())));
        let neither = FileInput {
            upload_id: None,
            ..uploaded
        };
        assert_eq!(one(neither), Err(("parameter_missing", "files[1]".into())));
        let untyped = FileInput {
            mime: None,
            ..file("c.pdf")
        };
        assert_eq!(
            one(untyped),
            Err(("parameter_missing", "files[1].mime".into()))
        );
    }
}
