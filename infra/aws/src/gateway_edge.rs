//! What API Gateway vouches for about a request (`shared::http::edge::Edge`):
//! the origin it served the request at and the client's address, from the
//! HTTP API's request context (`requestContext.domainName`, `stage`,
//! `http.sourceIp`). The gateway writes these itself; a client can only
//! write headers (`Host`, `X-Forwarded-For`), which are not read for either.

use lambda_http::request::RequestContext;
use shared::http::authority::Authority;
use shared::http::edge::Edge;

/// The edge of an HTTP API (v2) request; None for any other context, or a
/// domain that is not a plain host name.
pub fn edge(context: &RequestContext) -> Option<Edge> {
    #[allow(unreachable_patterns)]
    let context = match context {
        RequestContext::ApiGatewayV2(context) => context,
        _ => return None,
    };
    let domain = Authority::parse(context.domain_name.as_deref()?)?;
    let stage = match context.stage.as_deref() {
        None | Some("" | "$default") => String::new(),
        Some(stage) => format!("/{}", stage_segment(stage)?),
    };
    Some(Edge {
        origin: format!("https://{domain}{stage}"),
        client: context
            .http
            .source_ip
            .as_deref()
            .and_then(|ip| ip.parse().ok()),
    })
}

/// A stage name as a path segment (API Gateway allows letters, digits, `-`
/// and `_`).
fn stage_segment(stage: &str) -> Option<&str> {
    stage
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_'))
        .then_some(stage)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// The request context of the sample web event, changed by `adjust`.
    fn context(adjust: impl FnOnce(&mut Value)) -> RequestContext {
        let event: Value =
            serde_json::from_str(include_str!("../../../events/web-get.json")).unwrap();
        let mut context = event["requestContext"].clone();
        adjust(&mut context);
        serde_json::from_value(context).unwrap()
    }

    #[test]
    fn the_origin_and_client_come_from_the_request_context() {
        let edge = edge(&context(|_| {})).unwrap();
        assert_eq!(
            edge.origin,
            "https://abcdef1234.execute-api.eu-west-1.amazonaws.com"
        );
        assert_eq!(edge.client, Some("203.0.113.7".parse().unwrap()));
    }

    #[test]
    fn a_named_stage_is_part_of_the_origin() {
        let edge = edge(&context(|c| c["stage"] = json!("prod"))).unwrap();
        assert_eq!(
            edge.origin,
            "https://abcdef1234.execute-api.eu-west-1.amazonaws.com/prod"
        );
    }

    #[test]
    fn an_odd_domain_or_stage_gives_no_origin_and_an_odd_ip_no_client() {
        assert_eq!(
            edge(&context(
                |c| c["domainName"] = json!("a.example@evil.example")
            )),
            None
        );
        assert_eq!(edge(&context(|c| c["stage"] = json!("a/../b"))), None);
        let edge = edge(&context(|c| c["http"]["sourceIp"] = json!("nowhere"))).unwrap();
        assert_eq!(edge.client, None);
    }
}
