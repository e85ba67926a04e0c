//! Every operation of the OpenAPI document (the golden file the code is
//! checked against) is routed to a function by an `HttpApi` event of
//! `template.yaml`, the template routes nothing the document lacks, and each
//! route goes to the function whose binary serves it (the binary named after
//! its endpoint group, whose `main` runs that group's router). Every other
//! path reaches the web function, whose catch-all the API's routes outrank
//! (HTTP APIs pick the most specific route).

mod template;

use std::collections::BTreeSet;

use shared::http::Group;
use template::template;

/// Routes of the template that are not operations of the document.
const ONLY_IN_TEMPLATE: [(&str, &str); 2] = [
    // The agent-tool endpoint (MCP, JSON-RPC): described in the document's
    // introduction, not as an operation.
    ("ANY", "/api/mcp"),
    // OAuth discovery of MCP clients, answered 404 by the MCP function.
    ("ANY", "/.well-known/{proxy+}"),
];

/// The web application's routes (`shared::web::router`): the home page and
/// every other path, and the routes of their own that the stage throttles
/// (`THROTTLED_WEB_ROUTES`).
const WEB_ROUTES: [(&str, &str); 5] = [
    ("GET", "/"),
    ("ANY", "/{proxy+}"),
    ("POST", "/sign-in"),
    ("POST", "/sign-up"),
    ("POST", "/forgot"),
];

/// The web forms the stage throttles for all clients together: password
/// guessing, and sign-ups and resets, which send email.
const THROTTLED_WEB_ROUTES: [&str; 3] = ["POST /sign-in", "POST /sign-up", "POST /forgot"];

/// Operations of the document that only `svc serve` has.
const ONLY_IN_SVC_SERVE: [(&str, &str); 1] = [
    // The upload's body on `svc serve` (into its files directory); on AWS
    // the client PUTs to the presigned S3 URL that POST /api/v1/uploads gave.
    ("PUT", "/api/v1/uploads/{id}/content"),
];

const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];

fn document_routes() -> BTreeSet<(String, String)> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/src/http/openapi.json"
    ))
    .unwrap();
    let document: serde_json::Value = serde_json::from_str(&text).unwrap();
    let paths = document["paths"].as_object().expect("the document's paths");
    paths
        .iter()
        .flat_map(|(path, item)| {
            METHODS
                .into_iter()
                .filter(|method| item.get(*method).is_some())
                .map(|method| (method.to_uppercase(), path.clone()))
        })
        .filter(|(method, path)| !ONLY_IN_SVC_SERVE.contains(&(method.as_str(), path.as_str())))
        .collect()
}

/// The HttpApi events of every function: (method, path, function).
fn template_routes() -> Vec<(String, String, String)> {
    let template = template();
    let resources = template["Resources"].as_mapping().unwrap();
    let mut routes = Vec::new();
    for (name, resource) in resources {
        if resource["Type"].as_str() != Some("AWS::Serverless::Function") {
            continue;
        }
        let Some(events) = resource["Properties"]["Events"].as_mapping() else {
            continue;
        };
        for event in events.values() {
            if event["Type"].as_str() != Some("HttpApi") {
                continue;
            }
            let p = &event["Properties"];
            routes.push((
                p["Method"].as_str().unwrap().to_uppercase(),
                p["Path"].as_str().unwrap().to_string(),
                name.as_str().unwrap().to_string(),
            ));
        }
    }
    routes
}

#[test]
fn every_operation_of_the_document_is_routed_and_nothing_else() {
    let document = document_routes();
    let routes = template_routes();
    let routed: BTreeSet<(String, String)> = routes
        .iter()
        .map(|(method, path, _)| (method.clone(), path.clone()))
        .filter(|(method, path)| {
            let route = (method.as_str(), path.as_str());
            !ONLY_IN_TEMPLATE.contains(&route) && !WEB_ROUTES.contains(&route)
        })
        .collect();
    let unrouted: Vec<_> = document.difference(&routed).collect();
    assert!(
        unrouted.is_empty(),
        "operations of the OpenAPI document no function event routes on AWS: {unrouted:?}"
    );
    let undocumented: Vec<_> = routed.difference(&document).collect();
    assert!(
        undocumented.is_empty(),
        "routes of template.yaml that are no operation of the OpenAPI document: {undocumented:?}"
    );
    assert_eq!(
        routed.len() + ONLY_IN_TEMPLATE.len() + WEB_ROUTES.len(),
        routes.len(),
        "a route is given to two functions: {routes:?}"
    );
}

#[test]
fn the_mcp_and_discovery_routes_stay_on_the_mcp_function() {
    let routes = template_routes();
    for (method, path) in ONLY_IN_TEMPLATE {
        assert!(
            routes
                .iter()
                .any(|(m, p, f)| m == method && p == path && f == "McpFunction"),
            "{method} {path}: {routes:?}"
        );
    }
}

#[test]
fn every_path_outside_the_api_reaches_the_web_function() {
    let routes = template_routes();
    let web: BTreeSet<(&str, &str)> = routes
        .iter()
        .filter(|(_, _, f)| f == "WebFunction")
        .map(|(method, path, _)| (method.as_str(), path.as_str()))
        .collect();
    assert_eq!(web, BTreeSet::from(WEB_ROUTES));
    assert_eq!(function_of_binary("web"), "WebFunction");
    // One catch-all: every other route is the API's, under /api/ (or the
    // MCP function's /.well-known/), so no path outside those reaches
    // another function, and the catch-all never outranks an API route.
    for (method, path, function) in &routes {
        if function == "WebFunction" {
            continue;
        }
        assert!(
            path.starts_with("/api/") || path.starts_with("/.well-known/"),
            "{method} {path} ({function}) is outside /api/"
        );
        assert!(
            !path.contains('+') || path.starts_with("/.well-known/"),
            "{path}"
        );
    }
}

#[test]
fn the_stage_throttles_the_sign_in_sign_up_and_reset_routes() {
    let template = template();
    let settings = &template["Resources"]["HttpApi"]["Properties"]["RouteSettings"];
    for key in THROTTLED_WEB_ROUTES {
        let route = &settings[key];
        assert_eq!(route["ThrottlingBurstLimit"].as_u64(), Some(5), "{key}");
        assert_eq!(route["ThrottlingRateLimit"].as_u64(), Some(2), "{key}");
    }
    // Settings of a route key the API lacks fail the deployment.
    let routes = template_routes();
    for key in settings.as_mapping().unwrap().keys() {
        let key = key.as_str().unwrap();
        assert!(
            routes
                .iter()
                .any(|(method, path, _)| format!("{method} {path}") == key),
            "RouteSettings name {key}, which no HttpApi event routes"
        );
    }
}

/// The function whose `BuildProperties.Binary` is `binary`.
fn function_of_binary(binary: &str) -> String {
    let template = template();
    let resources = template["Resources"].as_mapping().unwrap();
    let found = resources
        .iter()
        .find(|(_, r)| r["Metadata"]["BuildProperties"]["Binary"].as_str() == Some(binary));
    let (name, _) = found.unwrap_or_else(|| panic!("no function builds the binary {binary}"));
    name.as_str().unwrap().to_string()
}

#[test]
fn each_groups_routes_go_to_the_function_of_its_binary() {
    let routes = template_routes();
    for group in Group::ALL {
        // The functions' binaries are named after their groups.
        let binary = format!("{group:?}").to_lowercase();
        let function = function_of_binary(&binary);
        let document = group.routes().into_openapi();
        let served: BTreeSet<(String, String)> = document
            .paths
            .paths
            .iter()
            .flat_map(|(path, item)| {
                [
                    ("GET", item.get.is_some()),
                    ("POST", item.post.is_some()),
                    ("PUT", item.put.is_some()),
                    ("PATCH", item.patch.is_some()),
                    ("DELETE", item.delete.is_some()),
                ]
                .into_iter()
                .filter(|(_, present)| *present)
                .map(|(method, _)| (method.to_string(), path.clone()))
            })
            .filter(|(method, path)| !ONLY_IN_SVC_SERVE.contains(&(method.as_str(), path.as_str())))
            .collect();
        let routed: BTreeSet<(String, String)> = routes
            .iter()
            .filter(|(_, _, f)| *f == function)
            .map(|(method, path, _)| (method.clone(), path.clone()))
            .collect();
        assert_eq!(
            routed, served,
            "{function} (binary {binary}) and the {group:?} group"
        );
    }
}
