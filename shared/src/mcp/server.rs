//! The MCP server handler: the tool list and tool calls. One is built per
//! HTTP request and holds nothing but the in-process REST routes.

use axum::Router;
use axum::http::request::Parts;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use super::{call, catalogue};
use crate::app::keys::Caller;

const INSTRUCTIONS: &str = "Invoicing, invoice extraction, business analyses and Spanish tax tools \
for freelancers (autónomos) and small companies in Spain. Amounts are euros. Tax results are \
estimates for the general regime, computed by the service's rules, not by a model. With a test \
key (svc_test_…) everything validates like live but returns sample data, issues TEST- invoices \
that never reach the ledger or the tax authority, and uses no quota. extract_invoices and analyze \
use 1 unit of the daily quota each (get_usage tells what is left); long work returns a job: poll \
get_job until it has finished.";

#[derive(Clone)]
pub struct McpServer {
    rest: Router,
}

impl McpServer {
    pub fn new(rest: Router) -> Self {
        McpServer { rest }
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("svc", env!("CARGO_PKG_VERSION"))
                    .with_title("Invoicing, analysis and tax tools (Spain)"),
            )
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(catalogue::tools().to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(spec) = catalogue::find(&request.name) else {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool {:?}; tools/list gives the tools of this server",
                    request.name
                ),
                None,
            ));
        };
        let caller = context
            .extensions
            .get::<Parts>()
            .and_then(|parts| parts.extensions.get::<Caller>())
            .cloned()
            .ok_or_else(|| ErrorData::internal_error("tool call without a caller", None))?;
        let arguments = request.arguments.unwrap_or_default();
        Ok(call::run(&self.rest, spec, caller, arguments).await.into())
    }
}
