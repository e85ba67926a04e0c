//! An analysis whose `data` is an upload: `data: {"upload_id": "upl_…"}`
//! names an `application/json` upload holding the `data` object. The body
//! is rewritten with the upload in place of the reference, so the engine
//! reads it, and reports its errors with their `param`, as if inline.

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::value::RawValue;

use crate::app::keys::Caller;
use crate::app::uploads::{self, JSON, UploadError};
use crate::ports::Ports;

const PARAM: &str = "data.upload_id";

#[derive(Deserialize)]
struct Outer<'a> {
    #[serde(borrow)]
    data: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Reference {
    upload_id: String,
}

/// The upload `body`'s `data` names, if it names one. A reference is a few
/// bytes: a larger `data` is inline.
fn reference(body: &[u8]) -> Option<String> {
    let outer: Outer = serde_json::from_slice(body).ok()?;
    let data = outer.data?.get();
    if data.len() > 1024 {
        return None;
    }
    serde_json::from_str::<Reference>(data)
        .ok()
        .map(|r| r.upload_id)
}

/// `body` with its `data` read from the upload it names, and the bytes
/// read; `None` when its `data` is inline.
pub async fn read(
    ports: &Ports,
    caller: &Caller,
    body: &[u8],
) -> Result<Option<(Vec<u8>, u64)>, UploadError> {
    let Some(id) = reference(body) else {
        return Ok(None);
    };
    let upload = uploads::find(ports, caller, &id, PARAM).await?;
    if upload.mime != JSON {
        return Err(invalid(format!(
            "upload {id} is {}; the data of an analysis is an {JSON} upload",
            upload.mime
        )));
    }
    let data = uploads::read(ports, &upload, PARAM).await?;
    let body = body.to_vec();
    let spliced = tokio::task::spawn_blocking(move || splice(body, &data))
        .await
        .map_err(|e| UploadError::Unavailable(format!("the upload was not read: {e}")))??;
    Ok(Some((spliced, upload.size)))
}

fn invalid(message: String) -> UploadError {
    UploadError::Invalid {
        code: "parameter_invalid",
        param: PARAM.to_string(),
        message,
    }
}

/// The object `body` with `data` replaced by the JSON text `data`.
fn splice(body: Vec<u8>, data: &[u8]) -> Result<Vec<u8>, UploadError> {
    if let Err(e) = serde_json::from_slice::<IgnoredAny>(data) {
        return Err(invalid(format!("the upload is not JSON: {e}")));
    }
    let members: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(&body).map_err(|e| invalid(e.to_string()))?;
    let mut spliced = Vec::with_capacity(body.len() + data.len());
    spliced.push(b'{');
    for (i, (name, value)) in members.iter().enumerate() {
        if i > 0 {
            spliced.push(b',');
        }
        spliced.extend(serde_json::to_vec(name).expect("strings serialise"));
        spliced.push(b':');
        if name == "data" {
            spliced.extend_from_slice(data);
        } else {
            spliced.extend(serde_json::to_vec(value).expect("values serialise"));
        }
    }
    spliced.push(b'}');
    Ok(spliced)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_lone_upload_id_is_a_reference() {
        let r = |body: &str| reference(body.as_bytes());
        assert_eq!(
            r(r#"{"type":"excel","data":{"upload_id":"upl_1"}}"#),
            Some("upl_1".into())
        );
        assert_eq!(
            r(r#"{"type":"excel","data":{"module":"ventas","files":[]}}"#),
            None
        );
        assert_eq!(
            r(r#"{"type":"excel","data":{"upload_id":"upl_1","module":"x"}}"#),
            None
        );
        assert_eq!(r(r#"{"type":"excel"}"#), None);
        assert_eq!(r("not json"), None);
    }

    #[test]
    fn the_upload_takes_the_place_of_the_reference() {
        let body = br#"{"type":"excel","title":"T","data":{"upload_id":"upl_1"}}"#.to_vec();
        let spliced = splice(body, br#"{"module":"ventas","files":[]}"#).unwrap();
        let value: serde_json::Value = serde_json::from_slice(&spliced).unwrap();
        assert_eq!(
            value,
            serde_json::json!({"type": "excel", "title": "T", "data": {"module": "ventas", "files": []}})
        );
        let body = br#"{"data":{"upload_id":"upl_1"}}"#.to_vec();
        assert!(matches!(
            splice(body, b"{not json"),
            Err(UploadError::Invalid { .. })
        ));
    }
}
