//! Every integration test of the local host (`svc serve`, the `svc` binary, the README commands) in one binary: each module is one suite
//! (its file beside this one), and the modules they share are compiled
//! once. Run one suite with `cargo test -p svc --test main <suite>`.

mod support;

mod crash_recovery;
mod mcp_client;
mod readme_commands;
mod svc_binary;
mod svc_on_dynamodb;
mod uploads_on_serve;
