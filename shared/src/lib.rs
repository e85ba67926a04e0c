//! The core of the service: domain, use cases, HTTP routers and the embedded
//! adapters, host-agnostic. See DESIGN.md beside the project for the map.

pub mod analyses;
pub mod app;
pub mod config;
pub mod documents;
pub mod domain;
pub mod embedded;
pub mod extraction;
pub mod http;
pub mod ids;
pub mod invoice;
pub mod mcp;
pub mod metrics;
pub mod ports;
pub mod redact;
pub mod tax;
pub mod verifactu;
pub mod webhooks;
pub mod xml_tree;
