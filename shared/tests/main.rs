//! Every integration test of the core crate, in one binary: each module
//! is one suite (its file beside this one), and the modules they share
//! (`support`, the seeded `corpus`, the `real_corpus` reader and the
//! `fake_openai` server) are compiled once. Run one suite with
//! `cargo test -p shared --test main <suite>`, e.g. `extraction_real`.

mod corpus;
mod fake_openai;
mod real_corpus;
mod support;

mod aeat_contract;
mod aeat_simulator;
mod ai_grounding_corpus;
mod ai_openai_contract;
mod analyses;
mod analyses_api;
mod analyses_pandas;
mod cash_accounting_api;
mod corpus_generator;
mod customers_api;
mod deadline;
mod documents_api;
mod einvoice_limits;
mod einvoice_read;
mod email_smtp_contract;
mod error_sanitising;
mod events_api;
mod expenses_api;
mod expenses_import;
mod extraction_ai;
mod extraction_api;
mod extraction_corpus;
mod extraction_hostile;
mod extraction_own_pdfs;
mod extraction_real;
mod extraction_real_pdf_text;
mod facturae;
mod fixtures_smoke;
mod igic_ipsi_api;
mod invoices_api;
mod invoices_send;
mod jobs_api;
mod jobs_worker;
mod layers;
mod mcp_api;
mod nif_stdnum;
mod payments_api;
mod pdf;
mod pipeline;
mod round_trips;
mod series_api;
mod simplified_api;
mod tax_api;
mod tax_books;
mod tax_boxes;
mod tax_irpf;
mod tax_oracle;
mod tenancy;
mod ubl_cii;
mod uploads_api;
mod verifactu_certificates;
mod verifactu_corrections;
mod verifactu_query_api;
mod verifactu_rules_api;
mod verifactu_submit;
mod verifactu_xsd;
mod web_app;
mod web_developers;
mod web_edge;
mod web_expenses;
mod web_invoices;
mod web_pages;
mod webhooks_api;
mod webhooks_delivery;
mod webhooks_sealing;
mod webhooks_ssrf;
mod webhooks_stripe;
