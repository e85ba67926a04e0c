//! An HTTP API function: a router served by the Lambda runtime, whose
//! handlers are bounded by each invocation's deadline, read from its Lambda
//! context (see `shared::http::deadline`).

use axum::Router;
use axum::extract::Request;
use axum::middleware::map_request;
use lambda_http::RequestExt;
use shared::http::deadline;

/// Serves `router` until the runtime stops.
pub async fn serve(router: Router) -> Result<(), lambda_http::Error> {
    lambda_http::run(with_deadlines(router)).await
}

/// `router` with each request setting the deadline of its invocation.
pub fn with_deadlines(router: Router) -> Router {
    router.layer(map_request(invocation_deadline))
}

async fn invocation_deadline(req: Request) -> Request {
    deadline::set(req.lambda_context_ref().map(|context| context.deadline()));
    req
}
