//! The static files of the application, compiled in: the vendored styles
//! and the API reference's Redoc (see `static/VENDOR.md`) and its own CSS
//! and script. Vendored names carry their version and may be cached for
//! good; the own files for an hour.

use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

pub const PICO: &str = "/static/pico-2.1.1.classless.min.css";
pub const APP_CSS: &str = "/static/app.css";
pub const APP_JS: &str = "/static/app.js";
pub const HTMX: &str = "/static/htmx-2.0.11.min.js";
pub const REDOC: &str = "/static/redoc-3.0.1.standalone.js";

struct Asset {
    name: &'static str,
    bytes: &'static [u8],
    content_type: &'static str,
    immutable: bool,
}

const ASSETS: [Asset; 5] = [
    Asset {
        name: "pico-2.1.1.classless.min.css",
        bytes: include_bytes!("static/pico-2.1.1.classless.min.css"),
        content_type: "text/css; charset=utf-8",
        immutable: true,
    },
    Asset {
        name: "htmx-2.0.11.min.js",
        bytes: include_bytes!("static/htmx-2.0.11.min.js"),
        content_type: "text/javascript; charset=utf-8",
        immutable: true,
    },
    Asset {
        name: "app.css",
        bytes: include_bytes!("static/app.css"),
        content_type: "text/css; charset=utf-8",
        immutable: false,
    },
    Asset {
        name: "app.js",
        bytes: include_bytes!("static/app.js"),
        content_type: "text/javascript; charset=utf-8",
        immutable: false,
    },
    Asset {
        name: "redoc-3.0.1.standalone.js",
        bytes: include_bytes!("static/redoc-3.0.1.standalone.js"),
        content_type: "text/javascript; charset=utf-8",
        immutable: true,
    },
];

pub async fn serve(Path(name): Path<String>) -> Response {
    let Some(asset) = ASSETS.iter().find(|a| a.name == name) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let cache = if asset.immutable {
        "public, max-age=31536000, immutable"
    } else {
        "public, max-age=3600"
    };
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static(asset.content_type),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static(cache)),
        ],
        asset.bytes,
    )
        .into_response()
}
