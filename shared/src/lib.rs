//! The core of the service: domain rules, use cases, port traits, HTTP
//! routers, the MCP endpoint and the embedded adapters, shared by both hosts
//! (`svc` in `infra/local`, the Lambda functions in `functions/`). The map of
//! the code (layers, request and write paths, table keys, where each rule
//! lives) is ARCHITECTURE.md at the repository root.

/// Adapters both hosts use, over HTTP and SMTP: webhook sender, SMTP email,
/// OpenAI-compatible AI, the AEAT over HTTPS and in-process; the usual `Ports`.
pub mod adapters;
/// The spreadsheet analysis engine and the cuestionario: deterministic, pure.
pub mod analyses;
/// Use cases: one async function per operation, reading through the ports and
/// returning the writes to commit.
pub mod app;
/// The service's configuration, read from the environment once per host.
pub mod config;
/// Invoice documents: the PDF with its QR code, Facturae, UBL, CII and Factur-X.
pub mod documents;
/// Accounts, plans and their daily quotas, live/test modes, API keys, idempotency keys and Madrid dates.
pub mod domain;
/// Adapters of one process and local files (SQLite table, queues and feed,
/// file blobs, Tesseract, local secrets) and the background work of `svc serve`.
pub mod embedded;
/// Received invoices: the book of expenses' fields, checks and deductible figures.
pub mod expense;
/// Reading invoices: e-invoices exactly, PDF text and OCR words through one
/// field parser, QR codes, and the checks every result goes through.
pub mod extraction;
/// The axum routers of each endpoint group and the request pipeline they share
/// (auth, rate limit, unit of work, errors, OpenAPI).
pub mod http;
/// Random identifiers and secrets.
pub mod ids;
/// Invoices: lines, totals, numbering, series, statuses, kinds (F1–R5),
/// payments and the stored invoice.
pub mod invoice;
/// A per-process memo of API keys and accounts, kept 2 s (`Ports::cache`).
pub mod item_cache;
/// The MCP endpoint: each tool is one REST operation called in-process.
pub mod mcp;
/// The service's CloudWatch metrics, as embedded-metric-format log lines.
pub mod metrics;
/// Ports: the traits the core needs from the outside world, their contract
/// suites, and the `Ports` bundle a use case receives.
pub mod ports;
/// Short hashes that logs show in place of NIFs and keys holding them.
pub mod redact;
/// The one pseudo-random generator (xorshift64*): seeded sample data and test corpora.
pub mod rng;
/// The key of `SVC_SECRETS_KEY`, which seals the issuers' certificates on
/// the embedded host: read by `config`, used by `embedded::LocalSecrets`.
pub mod secrets_key;
/// Spanish tax rules: NIF, VAT, IRPF, IGIC/IPSI, Modelo 130, quarters,
/// the filing calendar and money rounding.
pub mod tax;
/// VERI*FACTU billing records: their XML, fingerprint (huella), QR URL, chain
/// check, status and the AEAT's SOAP messages.
pub mod verifactu;
/// The web application: sign-up, sign-in, keys, members and the account's pages.
pub mod web;
/// Webhooks, the pure part: event types, signature, secrets, retry schedule,
/// endpoint health and the SSRF address rules.
pub mod webhooks;
/// A small XML element tree, looked up by local names, hardened against
/// hostile input.
pub mod xml_tree;
