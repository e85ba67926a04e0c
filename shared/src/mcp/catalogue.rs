//! The tools: each is one REST operation (`method`, `path`), with a
//! description written for a model, a strict input schema, the output
//! schema of the operation's response, and explicit annotations.
//!
//! Bodies of POST tools are the REST request bodies, so their schemas come
//! from the OpenAPI document (closed to unknown fields, enumerations made
//! explicit; an operation without a body takes only its path argument);
//! arguments of GET tools become query parameters and are described here.

use std::sync::{Arc, OnceLock};

use axum::http::Method;
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;
use serde_json::{Map, Value, json};

use super::{schemas, summary};
use crate::app::invoices::request::IRPF_RATES;
use crate::expense::Category;
use crate::http::openapi;
use crate::invoice::kind::Kind;
use crate::invoice::status::Status;
use crate::tax::calendar::Form;
use crate::tax::indirect::every_rate;

/// Arguments of a tool that its REST operation does not take as body or query.
pub const IDEMPOTENCY_KEY: &str = "idempotency_key";
pub const RUN_AS_JOB: &str = "run_as_job";
pub const CURSOR: &str = "cursor";

/// How a tool's REST answer becomes its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// The response body as it is.
    Body,
    /// The result, or in async mode the job (202) to poll with `get_job`.
    MaybeJob,
    /// A list page, with `next_cursor` added for the next call.
    List,
}

pub struct ToolSpec {
    pub name: &'static str,
    pub method: Method,
    /// The REST path; `{arg}` segments are filled from the tool argument of that name.
    pub path: &'static str,
    /// Tool arguments that the REST operation names otherwise: (argument, REST name).
    pub renames: &'static [(&'static str, &'static str)],
    pub output: Output,
    /// The one-line summary of the tool's answer (a job's is `summary::job`).
    pub summary: fn(&Value) -> String,
    /// The REST operation (`operationId`) whose schemas describe the tool.
    operation: &'static str,
    title: &'static str,
    description: &'static str,
    /// read-only, destructive, idempotent, open-world.
    hints: [bool; 4],
    /// The input schema of a GET tool; POST tools take their operation's body.
    parameters: fn() -> Value,
}

impl ToolSpec {
    /// The argument that fills the path's `{…}` segment, if it has one.
    pub fn path_argument(&self) -> Option<&'static str> {
        self.path
            .split('/')
            .find_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
    }

    /// The tool argument behind a REST parameter name (body fields keep theirs).
    pub fn argument(&self, rest_name: &str) -> String {
        match (rest_name, self.path_argument()) {
            ("Idempotency-Key", _) => IDEMPOTENCY_KEY.to_string(),
            ("async", _) => RUN_AS_JOB.to_string(),
            ("id", Some(path_argument)) => path_argument.to_string(),
            (other, _) => self
                .renames
                .iter()
                .find(|(_, rest)| *rest == other)
                .map_or(other, |(argument, _)| argument)
                .to_string(),
        }
    }
}

const READ: [bool; 4] = [true, false, true, false];

fn no_parameters() -> Value {
    json!({"type": "object", "properties": {}, "additionalProperties": false})
}

fn limit_and_cursor(item: &str, tool: &str) -> Value {
    json!({
        "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20,
            "description": format!("How many {item} to return, 1–100.")},
        "cursor": {"type": "string", "minLength": 1,
            "description": format!("Opaque: the `next_cursor` of the previous {tool} result, to get the next page.")}
    })
}

fn date(text: &str) -> Value {
    json!({"type": "string", "format": "date", "pattern": "^\\d{4}-\\d{2}-\\d{2}$", "description": text})
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

fn validate_tax_id_parameters() -> Value {
    object(
        json!({"tax_id": {"type": "string", "minLength": 1, "maxLength": 64,
            "description": "The identifier: a DNI-NIF (12345678Z), NIE (X1234567L), entity NIF/CIF (B12345674) or K/L/M NIF. Spaces, dots, hyphens, lower case and an ES prefix are accepted."}}),
        &["tax_id"],
    )
}

fn fiscal_calendar_parameters() -> Value {
    object(
        json!({
            "from": date("First day, YYYY-MM-DD; default today (Europe/Madrid)."),
            "to": date("Last day, YYYY-MM-DD; default 90 days after `from`, at most 3 years after it."),
            "forms": {"type": "array", "items": {"type": "string", "enum": Form::ALL.map(Form::code)}, "minItems": 1, "uniqueItems": true,
                "description": "Only these forms (modelos); default all."},
            "lang": {"type": "string", "enum": ["es", "en"], "default": "es", "description": "Language of the names."}
        }),
        &[],
    )
}

fn compare_verifactu_records_parameters() -> Value {
    object(
        json!({
            "year": {"type": "integer", "minimum": 2000, "maximum": 2100, "description": "The year, e.g. 2026."},
            "period": {"type": "integer", "minimum": 1, "maximum": 12,
                "description": "The month, 1–12 (a record counts in its operation date's month, or else its issue date's)."}
        }),
        &["year", "period"],
    )
}

fn list_analyses_parameters() -> Value {
    let mut properties = limit_and_cursor("analyses", "list_analyses");
    properties["type"] = json!({"type": "string", "enum": ["excel", "compare", "folder", "cuestionario"],
        "description": "Only analyses of this type."});
    properties["module"] = json!({"type": "string", "enum": ["stock", "ventas", "servicios", "entradas", "caja", "total"],
        "description": "Only analyses of this module."});
    properties["from"] = date("Created on or after this day (Europe/Madrid).");
    properties["to"] = date("Created on or before this day (Europe/Madrid).");
    object(properties, &[])
}

fn get_analysis_parameters() -> Value {
    object(
        json!({"analysis_id": {"type": "string", "pattern": "^an_[A-Za-z0-9]+$",
            "description": "The analysis id (an_…), from analyze or list_analyses."}}),
        &["analysis_id"],
    )
}

fn invoice_id() -> Value {
    json!({"type": "integer", "minimum": 1,
        "description": "The invoice's numeric id (the `id` of issue_invoice or list_invoices, not its number like F2026-000001)."})
}

/// The schema of the argument that fills a path segment.
fn path_argument(name: &str) -> Value {
    match name {
        "series_code" => json!({"type": "string", "pattern": "^[A-Z]{1,10}$",
            "description": "The series code (F, S, R, RS or one the account defined)."}),
        _ => invoice_id(),
    }
}

fn list_invoices_parameters() -> Value {
    let mut properties = limit_and_cursor("invoices", "list_invoices");
    properties["status"] = json!({"type": "string", "enum": Status::ALL.map(Status::code),
        "description": "Only invoices in this status."});
    properties["customer_id"] = json!({"type": "string", "pattern": "^cus_[A-Za-z0-9]+$",
        "description": "Only invoices of this address-book customer (cus_…)."});
    properties["kind"] = json!({"type": "string", "enum": Kind::ALL.map(Kind::code),
        "description": "F1 full invoice (or qualified simplified), F2 simplified (or full without the customer's tax id), F3 replacing simplified ones, R1–R5 rectifying."});
    properties["from"] = date("Issued on or after this day.");
    properties["to"] = date("Issued on or before this day.");
    properties["payment_status"] = json!({"type": "string", "enum": ["unpaid", "partially_paid", "paid", "overdue"],
        "description": "Only invoices in this payment status (as of today): `overdue` lists the ones to chase."});
    object(properties, &[])
}

fn list_expenses_parameters() -> Value {
    let mut properties = limit_and_cursor("expenses", "list_expenses");
    properties["from"] = date("Issued on or after this day.");
    properties["to"] = date("Issued on or before this day.");
    properties["year"] = json!({"type": "integer", "minimum": 2000, "maximum": 2100,
        "description": "With `quarter`: the expenses issued in that quarter."});
    properties["quarter"] = json!({"type": "integer", "minimum": 1, "maximum": 4,
        "description": "1–4, with `year`."});
    properties["supplier"] = json!({"type": "string", "minLength": 1, "maxLength": 120,
        "description": "The supplier's tax id, or a part of its name (any case)."});
    properties["category"] = json!({"type": "string", "enum": Category::ALL.map(Category::code),
        "description": "Only expenses of this category."});
    properties["status"] = json!({"type": "string", "enum": ["confirmed", "draft"],
        "description": "`draft`: imported from the AEAT and not yet confirmed."});
    object(properties, &[])
}

fn get_invoice_parameters() -> Value {
    object(json!({"invoice_id": invoice_id()}), &["invoice_id"])
}

fn get_job_parameters() -> Value {
    object(
        json!({"job_id": {"type": "string", "pattern": "^job_[A-Za-z0-9]+$",
            "description": "The job id (job_…) that extract_invoices or analyze returned."}}),
        &["job_id"],
    )
}

const EURO_NOTE: &str =
    "Amounts are euros (numbers or decimal strings, up to 2 decimals for money).";
const ESTIMATE_NOTE: &str = "Results are estimates for the general regime, computed by the service's own rules (not by a model) and not tax advice.";

fn specs() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "extract_invoices",
            method: Method::POST,
            path: "/api/v1/invoices/extract",
            renames: &[],
            output: Output::MaybeJob,
            summary: summary::extracted,
            operation: "extract_invoices",
            title: "Extract invoice data",
            description: "Read the data of up to 5 invoices (issuer, recipient, NIFs, number, dates, lines, VAT per rate, IRPF, total) from files the user gives: `files` with base64 `data` (PDF, JPEG, PNG, WebP, or e-invoice XML: Facturae, UBL, CII, Factur-X) and/or `texts` already extracted. Every invoice is checked by the service's rules (totals add up, NIF check digits, date, VAT rate); problems are listed in `warnings`, not errors. Items that cannot be read are in `errors` (a scanned PDF is `pdf_scanned`: send its pages as images). Uses 1 unit of the daily quota (free when all items are e-invoices). Set run_as_job for big or many images (it is chosen automatically above 1 MiB of arguments): the result is then a job to poll with get_job. A file uploaded beforehand through the REST API (POST /api/v1/uploads, up to 50 MiB) is given as `upload_id` instead of `data`.",
            hints: [false, false, false, false],
            parameters: no_parameters,
        },
        ToolSpec {
            name: "analyze",
            method: Method::POST,
            path: "/api/v1/analyze",
            renames: &[],
            output: Output::MaybeJob,
            summary: summary::analysis,
            operation: "analyze",
            title: "Analyse business data",
            description: "Analyse a small business's data and get a structured report (key figures, strengths, priorities, action plan). `type`: `excel` (spreadsheet rows of one module: stock, ventas, servicios, entradas, caja, or total), `compare` (two periods), `folder` (several documents) or `cuestionario` (30 yes/no answers). Send the rows as JSON objects mapping column names to values; columns are recognised by their names and contents in Spanish or English. Uses 1 unit of the daily quota; live analyses are stored (list_analyses, get_analysis). Set run_as_job for large data (chosen automatically above 1 MiB of arguments): the result is then a job to poll with get_job. Data uploaded beforehand through the REST API (POST /api/v1/uploads, application/json, up to 50 MiB) is given as `data: {\"upload_id\": …}`.",
            hints: [false, false, false, false],
            parameters: no_parameters,
        },
        ToolSpec {
            name: "validate_tax_id",
            method: Method::GET,
            path: "/api/v1/tax/nif",
            renames: &[("tax_id", "value")],
            output: Output::Body,
            summary: summary::tax_id,
            operation: "validate_tax_id",
            title: "Validate a Spanish tax id",
            description: "Check a Spanish tax identifier (DNI-NIF, NIE, entity NIF/CIF) with the official check-digit algorithms: whether it is valid, its kind and entity type, the normalised form, and for an invalid one the reason and, when one character is wrong, a suggestion. Does not check that the id is registered with the tax authority. No quota.",
            hints: READ,
            parameters: validate_tax_id_parameters,
        },
        ToolSpec {
            name: "calculate_vat",
            method: Method::POST,
            path: "/api/v1/tax/vat",
            renames: &[],
            output: Output::Body,
            summary: summary::vat,
            operation: "calculate_vat",
            title: "Calculate VAT (IVA)",
            description: "Spanish VAT (IVA) and equivalence surcharge (recargo de equivalencia) on an amount: from a base, or back from a VAT-included amount (`includes_vat`), so that base + VAT + surcharge equals the total to the cent. Rates by date (21, 10, 4, 0 today). No quota.",
            hints: READ,
            parameters: no_parameters,
        },
        ToolSpec {
            name: "calculate_withholding",
            method: Method::POST,
            path: "/api/v1/tax/withholding",
            renames: &[],
            output: Output::Body,
            summary: summary::withholding,
            operation: "calculate_withholding",
            title: "Calculate IRPF withholding",
            description: "IRPF withholding (retención) of an invoice by type of income (e.g. `professional` 15 %, `professional_new` 7 % in the first years of activity, `rental` 19 %), with its VAT and the total the customer pays (base + VAT + surcharge − withholding). No quota.",
            hints: READ,
            parameters: no_parameters,
        },
        ToolSpec {
            name: "estimate_model_130",
            method: Method::POST,
            path: "/api/v1/tax/model-130",
            renames: &[],
            output: Output::Body,
            summary: summary::model_130,
            operation: "estimate_model_130",
            title: "Estimate Modelo 130",
            description: "Estimate the quarterly IRPF instalment (Modelo 130, direct estimation) of a freelancer: every box 01–19, year to date. Income and withholdings left out are taken from the account's issued invoices, expenses (box 02) from its book of expenses (the deductible cost of the confirmed ones, capital goods by their amortisation; live keys), boxes 05/15 from its own returns of the earlier quarters; in simplified estimation (the default) box 02 adds 5 % for hard-to-justify expenses. `*_source` says which, and `invoices` / `expenses` / `amortisation` list what was counted. No quota.",
            hints: READ,
            parameters: no_parameters,
        },
        ToolSpec {
            name: "estimate_model_303",
            method: Method::POST,
            path: "/api/v1/tax/model-303",
            renames: &[],
            output: Output::Body,
            summary: summary::model_303,
            operation: "estimate_model_303",
            title: "Estimate Modelo 303",
            description: "Estimate the quarterly VAT return (Modelo 303) from the account's books (live keys): output VAT from the invoices issued in the quarter and the VAT self-assessed on intra-EU and reverse-charge purchases, input VAT from the confirmed expenses received in the quarter as far as deductible (deductible shares, equivalence surcharge not deductible), and the result (box 71), with `carried_forward` amounts to offset from earlier quarters. Every box as the form numbers it, and every invoice and expense counted with the boxes it went to; `not_handled` lists the parts left at 0. No quota.",
            hints: READ,
            parameters: no_parameters,
        },
        ToolSpec {
            name: "add_expense",
            method: Method::POST,
            path: "/api/v1/expenses",
            renames: &[],
            output: Output::Body,
            summary: summary::expense,
            operation: "create_expense",
            title: "Add an expense",
            description: "Add a received invoice (a supplier's invoice) to the account's book of expenses, so that its VAT and cost count in Modelos 303 and 130. Give its fields typed, or `extracted`: one element of `invoices` that extract_invoices returned (as it came, or corrected after asking the user), or `document`: the file (base64 `data`; an e-invoice is read exactly). Typed fields override `extracted`, which overrides the document. Needed in the end: supplier name and tax id, number, issue date and the lines (base and VAT rate per rate; quotas, IRPF and total are computed when left out). Set `category` (e.g. software, rent, vehicle, professional_services) and, for mixed use, `vat_deductible_percent` / `expense_deductible_percent` (a vehicle's VAT defaults to 50 %). The same supplier, number and date twice is refused naming the expense already in the book. Test keys store nothing. No quota.",
            hints: [false, false, false, false],
            parameters: no_parameters,
        },
        ToolSpec {
            name: "list_expenses",
            method: Method::GET,
            path: "/api/v1/expenses",
            renames: &[(CURSOR, "starting_after")],
            output: Output::List,
            summary: summary::expenses,
            operation: "list_expenses",
            title: "List expenses",
            description: "The account's book of expenses (received invoices), newest issue date first, optionally filtered by issue dates, a quarter, the supplier (tax id or part of the name), category or status (`draft`: imported from the AEAT, to confirm). Pass `next_cursor` back as `cursor` for the next page. Test keys keep no expenses.",
            hints: READ,
            parameters: list_expenses_parameters,
        },
        ToolSpec {
            name: "fiscal_calendar",
            method: Method::GET,
            path: "/api/v1/tax/calendar",
            renames: &[],
            output: Output::Body,
            summary: summary::deadlines,
            operation: "fiscal_calendar",
            title: "Tax calendar",
            description: "Upcoming Spanish tax filing deadlines (modelos 303, 130, 111, 115, 390, 347, 100…) between two days: the last day to file, moved past weekends and national holidays, and the direct-debit cut-off for forms with a payment. Default: the next 90 days. No quota.",
            hints: READ,
            parameters: fiscal_calendar_parameters,
        },
        ToolSpec {
            name: "get_usage",
            method: Method::GET,
            path: "/api/v1/usage",
            renames: &[],
            output: Output::Body,
            summary: summary::usage,
            operation: "get_usage",
            title: "Quota of today",
            description: "Today's quota of the key's account: units used and left (1 per extract_invoices or analyze call with a live key) and when it resets (midnight, Europe/Madrid). Check it before large work.",
            hints: READ,
            parameters: no_parameters,
        },
        ToolSpec {
            name: "list_analyses",
            method: Method::GET,
            path: "/api/v1/analyses",
            renames: &[(CURSOR, "starting_after")],
            output: Output::List,
            summary: summary::analyses,
            operation: "list_analyses",
            title: "List analyses",
            description: "The account's stored analyses, newest first (id, type, module, title, date), optionally filtered. Pass `next_cursor` back as `cursor` for the next page. Test keys store no analyses: their list is empty.",
            hints: READ,
            parameters: list_analyses_parameters,
        },
        ToolSpec {
            name: "get_analysis",
            method: Method::GET,
            path: "/api/v1/analyses/{analysis_id}",
            renames: &[],
            output: Output::Body,
            summary: summary::analysis,
            operation: "get_analysis",
            title: "Get an analysis",
            description: "One stored analysis with its full report, by id (an_… from analyze or list_analyses).",
            hints: READ,
            parameters: get_analysis_parameters,
        },
        ToolSpec {
            name: "issue_invoice",
            method: Method::POST,
            path: "/api/v1/invoices",
            renames: &[],
            output: Output::Body,
            summary: summary::issued,
            operation: "issue_invoice",
            title: "Issue an invoice",
            description: "Issue an invoice in the account's name: numbered without gaps in its series (full invoices F<year>-000001…, simplified ones S<year>-000001…, or the series named in `series`, see list_series; test keys TEST-…), with VAT per rate, IRPF withholding and equivalence surcharge computed by the service, a ledger entry and a VERI*FACTU record. An issued invoice can never be edited or deleted, only cancelled (cancel_invoice) or rectified, so confirm the details with the user first. Give the customer inline (`customer`) or by address-book id (`customer_id`); F1 needs the customer's tax id and address, without a tax id it is a simplified invoice (F2, up to 400 €). The answer may carry `warnings` (e.g. a business payment term over 60 days) to tell the user about. Amounts are euros without VAT (or with it, `prices_include_vat`). An issuer in the Canary Islands charges IGIC, one in Ceuta or Melilla IPSI, instead of VAT (by the issuer's postal code); `vat_rate` is then that tax's rate. `idempotency_key` is required: make up a new unique value (e.g. a UUID) for each new invoice and reuse the same value when retrying this same call after an error or timeout, so the invoice is issued once.",
            hints: [false, false, false, true],
            parameters: no_parameters,
        },
        ToolSpec {
            name: "list_invoices",
            method: Method::GET,
            path: "/api/v1/invoices",
            renames: &[(CURSOR, "starting_after")],
            output: Output::List,
            summary: summary::invoices,
            operation: "list_invoices",
            title: "List invoices",
            description: "The account's issued invoices, newest first, optionally filtered by status, customer, kind and issue dates. Pass `next_cursor` back as `cursor` for the next page. Test and live keys see separate invoices.",
            hints: READ,
            parameters: list_invoices_parameters,
        },
        ToolSpec {
            name: "get_invoice",
            method: Method::GET,
            path: "/api/v1/invoices/{invoice_id}",
            renames: &[],
            output: Output::Body,
            summary: summary::the_invoice,
            operation: "get_invoice",
            title: "Get an invoice",
            description: "One issued invoice by its numeric id: lines, totals per VAT rate, customer, status and history, and its VERI*FACTU record.",
            hints: READ,
            parameters: get_invoice_parameters,
        },
        ToolSpec {
            name: "cancel_invoice",
            method: Method::POST,
            path: "/api/v1/invoices/{invoice_id}/cancel",
            renames: &[],
            output: Output::Body,
            summary: summary::cancelled,
            operation: "cancel_invoice",
            title: "Cancel an invoice",
            description: "Cancel an invoice issued by mistake (it should not have existed at all): final and irreversible, with a reversing ledger entry and a VERI*FACTU cancellation record. To correct amounts or data of a real sale, the invoice is rectified instead, not cancelled. Confirm with the user first. An invoice already cancelled or rectified cannot be cancelled.",
            hints: [false, true, false, true],
            parameters: no_parameters,
        },
        ToolSpec {
            name: "set_invoice_status",
            method: Method::POST,
            path: "/api/v1/invoices/{invoice_id}/status",
            renames: &[],
            output: Output::Body,
            summary: summary::the_invoice,
            operation: "set_invoice_status",
            title: "Set an invoice's status",
            description: "Record what happened to an invoice: `accepted` or `rejected` by the customer, `paid` or `unpaid`. Allowed: issued → any of them; accepted → paid, unpaid, rejected; rejected → accepted; paid ↔ unpaid; nothing from cancelled. Setting the current status changes nothing. `paid` records a payment of what is outstanding dated today and `unpaid` a refund of everything paid; to record a real payment with its amount, date and method use record_payment.",
            hints: [false, false, true, false],
            parameters: no_parameters,
        },
        ToolSpec {
            name: "record_payment",
            method: Method::POST,
            path: "/api/v1/invoices/{invoice_id}/payments",
            renames: &[],
            output: Output::Body,
            summary: summary::payment,
            operation: "record_payment",
            title: "Record a payment",
            description: "Record a payment the customer made against an invoice (or a refund, as a negative amount): `amount` in euros, `date` when the money arrived (default today; not in the future, not before the issue date), `method` and an optional `reference`. Partial payments are fine; more than what is outstanding (`amount_due` of get_invoice) or a refund of more than was paid is refused. The answer is the invoice with `payment_status` (unpaid, partially_paid, paid, overdue), `amount_paid`, `amount_due` and `payments`; a payment completing the total marks it paid. Cancelled invoices and rectifying invoices take no payments: a rectified invoice's `amount_due` is net of its rectifications, and its payments are recorded against it. `idempotency_key` is required: a new unique value for each new payment, the same one when retrying this same call, so a payment is never recorded twice.",
            hints: [false, false, false, false],
            parameters: no_parameters,
        },
        ToolSpec {
            name: "send_invoice",
            method: Method::POST,
            path: "/api/v1/invoices/{invoice_id}/send",
            renames: &[],
            output: Output::Body,
            summary: summary::sent,
            operation: "send_invoice",
            title: "Email an invoice",
            description: "Email an issued invoice with its PDF (and, if asked, one e-invoice: facturae, ubl or cii) to `to` (default: the customer's email) and `cc`, with an optional personal `message`, in Spanish. It really sends an email, so confirm the recipients with the user first. `idempotency_key` is required: a new value for each email, the same value to retry this call after an error or timeout, so the email goes out once. A refused address is an error recorded on the invoice; with a test key nothing is sent and the result (`simulated: true`) shows what would have been.",
            hints: [false, false, false, true],
            parameters: no_parameters,
        },
        ToolSpec {
            name: "resubmit_verifactu_record",
            method: Method::POST,
            path: "/api/v1/invoices/{invoice_id}/verifactu/resubmit",
            renames: &[],
            output: Output::Body,
            summary: summary::resubmitted,
            operation: "resubmit_verifactu_record",
            title: "Resubmit a VERI*FACTU record",
            description: "Send an invoice's VERI*FACTU record to the tax authority (AEAT) again, corrected: the AEAT's correction path when it rejected the record (`verifactu.status` `rejected`), accepted it with errors (`accepted_with_errors`) or rejected the invoice's cancellation (`verifactu.cancellation_status` `rejected`). Do it only once the cause in `verifactu.answer` is fixed (the issuer's details are fixed by the account owner in the application, not with tools). The record is made again from the invoice with the account's current issuer name and is `pending` until the AEAT answers (get_invoice shows it). A pending or accepted record cannot be resubmitted; an accepted invoice is changed by rectifying it.",
            hints: [false, false, false, true],
            parameters: no_parameters,
        },
        ToolSpec {
            name: "compare_verifactu_records",
            method: Method::GET,
            path: "/api/v1/verifactu/records",
            renames: &[],
            output: Output::Body,
            summary: summary::verifactu_comparison,
            operation: "compare_verifactu_records",
            title: "Compare VERI*FACTU records with the AEAT",
            description: "Ask the tax authority (AEAT) which VERI*FACTU records of the account's issuer NIF it holds for one month and compare them with the account's own: `missing_at_aeat` (ours, sent or still pending, that it does not hold), `different` (it holds another record of the invoice, `hash`, or another state than ours, `state`), `only_at_aeat`, and how many match. Each entry has the invoice number, issue date, our invoice id, our status and the AEAT's state. With a live key the AEAT is asked with the account's certificate (an error says when it is missing or expired); a test key asks the AEAT simulator. No quota.",
            hints: [true, false, true, true],
            parameters: compare_verifactu_records_parameters,
        },
        ToolSpec {
            name: "list_series",
            method: Method::GET,
            path: "/api/v1/series",
            renames: &[],
            output: Output::Body,
            summary: summary::series_list,
            operation: "list_series",
            title: "List numbering series",
            description: "The account's invoice numbering series: the built-in F (full invoices), S (simplified), R (rectifying invoices of full ones, R1–R4) and RS (rectifying invoices of simplified ones, R5), and any the account defined, each with its pattern, purpose, whether it is its purpose's default, whether it has numbered invoices and the next number it would give.",
            hints: READ,
            parameters: no_parameters,
        },
        ToolSpec {
            name: "create_series",
            method: Method::POST,
            path: "/api/v1/series",
            renames: &[],
            output: Output::Body,
            summary: summary::series_defined,
            operation: "create_series",
            title: "Define a numbering series",
            description: "Define a numbering series: a code of 1–10 capital letters, a pattern such as `{code}{year}-{n:06}` (starts with {code}; {n} once; {year} needed when it restarts yearly), whether it restarts every year, and its purpose: `ordinary` (full invoices), `simplified` (tickets), `rectifying` (R1–R4) or `rectifying_simplified` (R5). Spanish law keeps full and simplified invoices, and rectifying ones, in separate series. With `default: true` it numbers every new invoice of its purpose that names no series; otherwise name it in issue_invoice's `series`.",
            hints: [false, false, false, false],
            parameters: no_parameters,
        },
        ToolSpec {
            name: "update_series",
            method: Method::PATCH,
            path: "/api/v1/series/{series_code}",
            renames: &[],
            output: Output::Body,
            summary: summary::series_changed,
            operation: "update_series",
            title: "Change a numbering series",
            description: "Change a numbering series: its description, or make it the default of its purpose. Its pattern, yearly restart and purpose change only while it has numbered no invoice (a series is never renumbered).",
            hints: [false, false, true, false],
            parameters: no_parameters,
        },
        ToolSpec {
            name: "delete_series",
            method: Method::DELETE,
            path: "/api/v1/series/{series_code}",
            renames: &[],
            output: Output::Body,
            summary: summary::series_deleted,
            operation: "delete_series",
            title: "Delete a numbering series",
            description: "Delete a series the account defined that has numbered no invoice and is not a default. Built-in series (F, S, R, RS) stay.",
            hints: [false, false, true, false],
            parameters: no_parameters,
        },
        ToolSpec {
            name: "get_job",
            method: Method::GET,
            path: "/api/v1/jobs/{job_id}",
            renames: &[],
            output: Output::Body,
            summary: summary::job_state,
            operation: "get_job",
            title: "Get a job",
            description: "The state of a job that extract_invoices or analyze started: `queued` or `running` (call again after a few seconds), `succeeded` with `result` (what the tool would have returned), or `failed` with `error` (a failed job costs no quota). Jobs are kept 24 hours after they finish.",
            hints: READ,
            parameters: get_job_parameters,
        },
    ]
}

struct Catalogue {
    specs: Vec<ToolSpec>,
    tools: Vec<Tool>,
}

fn catalogue() -> &'static Catalogue {
    static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
    CATALOGUE.get_or_init(|| {
        let specs = specs();
        let tools = specs
            .iter()
            .map(|spec| tool(openapi::served(), spec))
            .collect();
        Catalogue { specs, tools }
    })
}

/// The tools, in the order of `tools/list`.
pub fn tools() -> &'static [Tool] {
    &catalogue().tools
}

pub fn find(name: &str) -> Option<&'static ToolSpec> {
    catalogue().specs.iter().find(|s| s.name == name)
}

/// Whether the tool `name` takes `argument`.
pub fn takes(name: &str, argument: &str) -> bool {
    tools()
        .iter()
        .find(|t| t.name == name)
        .and_then(|t| t.input_schema.get("properties"))
        .is_some_and(|p| p.get(argument).is_some())
}

fn tool(doc: &Value, spec: &ToolSpec) -> Tool {
    let [read_only, destructive, idempotent, open_world] = spec.hints;
    let annotations = ToolAnnotations::with_title(spec.title)
        .read_only(read_only)
        .destructive(destructive)
        .idempotent(idempotent)
        .open_world(open_world);
    let description = match spec.operation {
        "calculate_vat" | "calculate_withholding" | "estimate_model_130" => {
            format!("{} {EURO_NOTE} {ESTIMATE_NOTE}", spec.description)
        }
        "issue_invoice" => format!("{} {EURO_NOTE}", spec.description),
        _ => spec.description.to_string(),
    };
    Tool::new(spec.name, description, Arc::new(input_schema(doc, spec)))
        .with_title(spec.title)
        .with_annotations(annotations)
        .with_raw_output_schema(Arc::new(output_schema(doc, spec)))
}

fn input_schema(doc: &Value, spec: &ToolSpec) -> JsonObject {
    let mut schema = if spec.method == Method::GET {
        (spec.parameters)()
    } else {
        body_schema(doc, spec)
    };
    schemas::closed(&mut schema);
    let mut schema = schemas::self_contained(doc, schema);
    explicit_enums(&mut schema);
    schema
}

fn body_schema(doc: &Value, spec: &ToolSpec) -> Value {
    let mut schema = match schemas::request(doc, spec.operation) {
        Value::Null => no_parameters(),
        body => schemas::inline_root(doc, body),
    };
    let mut add = |name: &str, property: Value, required: bool| {
        schema["properties"][name] = property;
        if required {
            match schema["required"].as_array_mut() {
                Some(list) => list.insert(0, json!(name)),
                None => schema["required"] = json!([name]),
            }
        }
    };
    if let Some(path_arg) = spec.path_argument() {
        add(path_arg, path_argument(path_arg), true);
    }
    match spec.output {
        Output::MaybeJob => add(
            RUN_AS_JOB,
            json!({"type": "boolean", "description": "Run as a job and answer at once with the job to poll with get_job. Default: true above 1 MiB of arguments, else false."}),
            false,
        ),
        _ if schemas::requires_header(doc, spec.operation, "Idempotency-Key") => add(
            IDEMPOTENCY_KEY,
            json!({"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[ -~]+$",
                "description": "A unique value per call (e.g. a UUID) that you make up. Reuse the same value to retry this call after an error or timeout: it then takes effect only once (one invoice issued, one email sent). A new invoice or email needs a new value."}),
            true,
        ),
        _ => {}
    }
    schema
}

/// Rates, codes and kinds as `enum`s the model can read: REST schemas give
/// some as `^(a|b)$` patterns, and rates only in their descriptions.
fn explicit_enums(schema: &mut Map<String, Value>) {
    fn walk(value: &mut Value, key: &str) {
        match value {
            Value::Object(map) => {
                match key {
                    "vat_rate" => {
                        map.insert("enum".into(), numbers(&every_rate()));
                    }
                    "irpf_rate" => {
                        map.insert("enum".into(), numbers(&IRPF_RATES));
                    }
                    "mime" => {
                        map.insert(
                            "enum".into(),
                            json!([
                                "application/pdf",
                                "image/jpeg",
                                "image/png",
                                "image/webp",
                                "application/xml",
                                "text/xml"
                            ]),
                        );
                    }
                    "exemption" => {
                        map.insert(
                            "enum".into(),
                            json!(["E1", "E2", "E3", "E4", "E5", "E6", "N1", "N2", "S2"]),
                        );
                    }
                    _ => {}
                }
                let choices = map
                    .get("pattern")
                    .and_then(Value::as_str)
                    .and_then(alternatives)
                    .map(|words| json!(words));
                if let Some(choices) = choices {
                    map.remove("pattern");
                    map.insert("enum".into(), choices);
                }
                for (k, v) in map.iter_mut() {
                    walk(v, k);
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| walk(v, key)),
            _ => {}
        }
    }
    for (k, v) in schema.iter_mut() {
        walk(v, k);
    }
}

/// Percentages as JSON numbers: integers when whole (21), else decimals (7.5).
fn numbers(rates: &[Decimal]) -> Value {
    rates
        .iter()
        .map(|r| match r.to_i64().filter(|_| r.fract().is_zero()) {
            Some(whole) => json!(whole),
            None => json!(r.to_f64()),
        })
        .collect()
}

/// The words of a `^(a|b|c)$` pattern.
fn alternatives(pattern: &str) -> Option<Vec<&str>> {
    let inner = pattern.strip_prefix("^(")?.strip_suffix(")$")?;
    let words: Vec<&str> = inner.split('|').collect();
    words
        .iter()
        .all(|w| {
            !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        })
        .then_some(words)
}

fn output_schema(doc: &Value, spec: &ToolSpec) -> JsonObject {
    let result = schemas::result(doc, spec.operation);
    let schema = match spec.output {
        Output::Body => schemas::inline_root(doc, result),
        Output::MaybeJob => json!({
            "type": "object",
            "description": "The result; or, when run as a job, the job (`object: \"job\"`) to poll with get_job.",
            "anyOf": [result, schemas::response(doc, spec.operation, "202")]
        }),
        Output::List => {
            let mut page = schemas::inline_root(doc, result);
            page["properties"]["next_cursor"] = json!({"type": ["string", "null"],
                "description": "Give it as `cursor` to get the next page; null on the last page."});
            match page["required"].as_array_mut() {
                Some(list) => list.push(json!("next_cursor")),
                None => page["required"] = json!(["next_cursor"]),
            }
            page
        }
    };
    schemas::self_contained(doc, schema)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_a_unique_name_and_all_four_hints() {
        let tools = tools();
        assert_eq!(tools.len(), 27);
        let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), tools.len());
        for tool in tools {
            let a = tool.annotations.as_ref().expect("annotations");
            assert!(a.read_only_hint.is_some() && a.destructive_hint.is_some());
            assert!(a.idempotent_hint.is_some() && a.open_world_hint.is_some());
            assert_eq!(tool.input_schema["type"], "object");
            assert_eq!(
                tool.input_schema["additionalProperties"], false,
                "{}",
                tool.name
            );
            assert_eq!(tool.output_schema.as_ref().unwrap()["type"], "object");
        }
        let cancel = tools.iter().find(|t| t.name == "cancel_invoice").unwrap();
        assert_eq!(
            cancel.annotations.as_ref().unwrap().destructive_hint,
            Some(true)
        );
    }

    #[test]
    fn post_tools_take_their_rest_body_with_enums_made_explicit() {
        let issue = tools().iter().find(|t| t.name == "issue_invoice").unwrap();
        let schema = Value::Object((*issue.input_schema).clone());
        assert_eq!(schema["required"][0], IDEMPOTENCY_KEY);
        assert!(schema["properties"]["lines"].is_object());
        let line = &schema["$defs"]["LineRequest"];
        assert_eq!(line["additionalProperties"], false);
        for test_only in ["TestOptions", "VerifactuErrorRequest"] {
            assert_eq!(schema["$defs"][test_only]["additionalProperties"], false);
        }
        assert_eq!(line["properties"]["vat_rate"]["enum"][0], 21);
        assert_eq!(schema["properties"]["irpf_rate"]["enum"][6], 15.0);
        let payment = &schema["$defs"]["PaymentRequest"]["properties"]["method"];
        assert_eq!(
            payment["enum"],
            json!(["transfer", "direct_debit", "card", "cash", "other"])
        );
        let status = find("set_invoice_status").unwrap();
        assert_eq!(status.argument("id"), "invoice_id");
        assert_eq!(
            find("list_invoices").unwrap().argument("starting_after"),
            CURSOR
        );
        assert_eq!(
            find("issue_invoice").unwrap().argument("Idempotency-Key"),
            IDEMPOTENCY_KEY
        );
    }

    #[test]
    fn only_plain_alternations_become_enums() {
        assert_eq!(
            alternatives("^(paid|unpaid)$"),
            Some(vec!["paid", "unpaid"])
        );
        assert_eq!(alternatives("^R[1-5]$"), None);
        assert_eq!(alternatives("^(303|130)(,(303|130))*$"), None);
    }
}
