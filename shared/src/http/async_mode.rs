//! `AsyncMode`: whether a request asks to be answered with a job (202)
//! instead of its result: `?async=true`, or `Prefer: respond-async`
//! (RFC 7240). The query parameter, when present, decides (`false` answers
//! synchronously whatever `Prefer` says); other preferences are ignored.

use axum::extract::FromRequestParts;
use axum::http::header::HeaderMap;
use axum::http::request::Parts;
use utoipa::IntoParams;
use utoipa::openapi::Required;
use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{ObjectBuilder, Type};

use super::error::ApiError;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AsyncMode {
    /// Answer with a job.
    pub requested: bool,
    /// `Prefer: respond-async` was honoured (say so in `Preference-Applied`).
    pub preference_applied: bool,
}

impl<S: Send + Sync> FromRequestParts<S> for AsyncMode {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let query = parts.uri.query().unwrap_or("");
        let prefer = prefers_async(&parts.headers);
        let parameter = form_urlencoded::parse(query.as_bytes())
            .find(|(name, _)| name == "async")
            .map(|(_, value)| value);
        let requested = match parameter.as_deref() {
            None => prefer,
            Some("true") => true,
            Some("false") => false,
            Some(other) => {
                return Err(ApiError::invalid(
                    "parameter_invalid",
                    format!("async must be true or false, not {other:?}"),
                )
                .param("async"));
            }
        };
        Ok(AsyncMode {
            requested,
            preference_applied: requested && prefer,
        })
    }
}

/// The two triggers, as documented parameters of the operations that take them.
impl IntoParams for AsyncMode {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        let parameter = |name: &str, place: ParameterIn, kind: Type, text: &str| {
            ParameterBuilder::new()
                .name(name)
                .parameter_in(place)
                .required(Required::False)
                .schema(Some(ObjectBuilder::new().schema_type(kind)))
                .description(Some(text))
                .build()
        };
        vec![
            parameter(
                "async",
                ParameterIn::Query,
                Type::Boolean,
                "`true`: answer 202 with a job instead of the result (async mode); `false` or \
                 absent: answer with the result, unless `Prefer: respond-async` is sent. When \
                 present it decides over `Prefer`; another value is 400 `parameter_invalid`.",
            ),
            parameter(
                "Prefer",
                ParameterIn::Header,
                Type::String,
                "RFC 7240 preferences; `respond-async` asks for async mode (answered with \
                 `Preference-Applied: respond-async`). Other preferences are ignored.",
            ),
        ]
    }
}

/// Whether a `Prefer` header holds the preference `respond-async`: each
/// header is a comma-separated list of `token[=value]` with `;` parameters,
/// tokens compared without case, commas inside quoted values not splitting.
fn prefers_async(headers: &HeaderMap) -> bool {
    headers
        .get_all("prefer")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(split_list)
        .any(|preference| {
            let token = preference.split([';', '=']).next().unwrap_or("").trim();
            token.eq_ignore_ascii_case("respond-async")
        })
}

fn split_list(value: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut start, mut quoted, mut escaped) = (0, false, false);
    for (i, c) in value.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ',' if !quoted => {
                items.push(&value[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&value[start..]);
    items
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::Request;

    async fn mode(uri: &str, prefer: &[&str]) -> Result<AsyncMode, ApiError> {
        let mut req = Request::post(uri);
        for value in prefer {
            req = req.header("prefer", *value);
        }
        let (mut parts, ()) = req.body(()).unwrap().into_parts();
        AsyncMode::from_request_parts(&mut parts, &()).await
    }

    fn on(preference_applied: bool) -> AsyncMode {
        AsyncMode {
            requested: true,
            preference_applied,
        }
    }

    #[tokio::test]
    async fn the_parameter_or_the_preference_ask_for_a_job() {
        assert_eq!(mode("/x", &[]).await.unwrap(), AsyncMode::default());
        assert_eq!(mode("/x?async=true", &[]).await.unwrap(), on(false));
        assert_eq!(
            mode("/x?async=false", &[]).await.unwrap(),
            AsyncMode::default()
        );
        for prefer in [
            "respond-async",
            "Respond-Async",
            "wait=10, respond-async",
            "return=minimal; foo=\"a,b\", respond-async ;x=1",
            "respond-async=",
        ] {
            assert_eq!(mode("/x", &[prefer]).await.unwrap(), on(true), "{prefer}");
        }
        assert_eq!(
            mode("/x", &["wait=5", "respond-async"]).await.unwrap(),
            on(true)
        );
        assert_eq!(
            mode("/x?async=true", &["respond-async"]).await.unwrap(),
            on(true)
        );
        assert_eq!(
            mode("/x?async=false", &["respond-async"]).await.unwrap(),
            AsyncMode::default(),
            "the parameter decides"
        );
        for prefer in [
            "respond-asynchronously",
            "foo=\"x, respond-async\"",
            "wait=10",
        ] {
            assert_eq!(
                mode("/x", &[prefer]).await.unwrap(),
                AsyncMode::default(),
                "{prefer}"
            );
        }
    }

    #[tokio::test]
    async fn another_value_of_the_parameter_is_400() {
        for uri in ["/x?async=yes", "/x?async=", "/x?async=TRUE"] {
            let e = mode(uri, &[]).await.unwrap_err();
            assert_eq!(
                (e.code.as_str(), e.param.as_deref()),
                ("parameter_invalid", Some("async")),
                "{uri}"
            );
        }
    }
}
