//! An HTTP API function: a router served by the Lambda runtime, whose
//! handlers are bounded by each invocation's deadline, read from its Lambda
//! context (see `shared::http::deadline`), and see what API Gateway
//! vouches for (the public origin and the client's address, as the
//! `shared::http::edge::Edge` extension; see `gateway_edge`).

use axum::Router;
use axum::extract::Request;
use axum::middleware::map_request;
use lambda_http::RequestExt;
use shared::http::deadline;

use crate::gateway_edge;

/// Serves `router` until the runtime stops.
pub async fn serve(router: Router) -> Result<(), lambda_http::Error> {
    lambda_http::run(adapted(router)).await
}

/// `router` as the Lambda runtime serves it: with deadlines and the gateway's edge.
pub fn adapted(router: Router) -> Router {
    with_gateway_edge(with_deadlines(router))
}

/// `router` with each request setting the deadline of its invocation.
pub fn with_deadlines(router: Router) -> Router {
    router.layer(map_request(invocation_deadline))
}

/// `router` with each request carrying the edge its request context names.
pub fn with_gateway_edge(router: Router) -> Router {
    router.layer(map_request(attach_edge))
}

async fn invocation_deadline(req: Request) -> Request {
    deadline::set(req.lambda_context_ref().map(|context| context.deadline()));
    req
}

async fn attach_edge(mut req: Request) -> Request {
    if let Some(edge) = req.request_context_ref().and_then(gateway_edge::edge) {
        req.extensions_mut().insert(edge);
    }
    req
}
