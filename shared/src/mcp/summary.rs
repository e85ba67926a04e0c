//! The short human summary of a tool result (`content[0].text`); the whole
//! result is in `structuredContent`. Each tool names its summary here
//! (`ToolSpec::summary`); a job the tool started has `job`'s.

use serde_json::Value;

fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => "—".to_string(),
        other => other.to_string(),
    }
}

fn euros(value: &Value) -> String {
    format!("{} €", text(value))
}

fn count(value: &Value) -> usize {
    value.as_array().map_or(0, Vec::len)
}

fn page(value: &Value, noun: &str, item: impl Fn(&Value) -> String) -> String {
    let items: Vec<String> = value["data"]
        .as_array()
        .into_iter()
        .flatten()
        .take(5)
        .map(item)
        .collect();
    let more = match &value["next_cursor"] {
        Value::String(cursor) => format!(" More follow: call again with cursor \"{cursor}\"."),
        _ => String::new(),
    };
    let n = count(&value["data"]);
    let listed = if items.is_empty() {
        String::new()
    } else {
        format!(": {}{}", items.join("; "), if n > 5 { "; …" } else { "" })
    };
    format!("{n} {noun}{listed}.{more}")
}

fn invoice(v: &Value) -> String {
    format!(
        "invoice {} (id {}), {}, {}, total {}, {}",
        text(&v["number"]),
        text(&v["id"]),
        text(&v["issue_date"]),
        text(&v["customer"]["name"]),
        euros(&v["total"]),
        text(&v["status"])
    )
}

/// The summary of a job the tool started (202) instead of answering.
pub fn job(v: &Value) -> String {
    format!(
        "Job {} ({}) is {}. Call get_job with job_id \"{}\" in a few seconds for the result.",
        text(&v["id"]),
        text(&v["kind"]),
        text(&v["status"]),
        text(&v["id"])
    )
}

pub fn extracted(v: &Value) -> String {
    let found: Vec<String> = v["invoices"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|i| {
            format!(
                "{} from {} total {} ({} warnings)",
                text(&i["number"]),
                text(&i["issuer"]["name"]),
                euros(&i["total"]),
                count(&i["warnings"])
            )
        })
        .collect();
    format!(
        "{} invoice(s) read{}; {} item(s) in errors.",
        found.len(),
        if found.is_empty() {
            String::new()
        } else {
            format!(": {}", found.join("; "))
        },
        count(&v["errors"])
    )
}

pub fn analysis(v: &Value) -> String {
    format!(
        "Analysis {} ({}): {}.",
        text(&v["id"]),
        text(&v["type"]),
        text(&v["title"])
    )
}

pub fn tax_id(v: &Value) -> String {
    match v["valid"].as_bool() {
        Some(true) => format!(
            "{} is a valid {}.",
            text(&v["normalized"]),
            text(&v["description"])
        ),
        _ => format!(
            "{} is not valid: {}.{}",
            text(&v["value"]),
            text(&v["message"]),
            match &v["suggestion"] {
                Value::String(s) => format!(" Did you mean {s}?"),
                _ => String::new(),
            }
        ),
    }
}

pub fn vat(v: &Value) -> String {
    format!(
        "Base {} + VAT {} % {} + surcharge {} = {}.",
        euros(&v["base"]),
        text(&v["vat_rate"]),
        euros(&v["vat_amount"]),
        euros(&v["surcharge_amount"]),
        euros(&v["total"])
    )
}

pub fn withholding(v: &Value) -> String {
    format!(
        "IRPF {} % of {} = {}; VAT {}; the customer pays {}.",
        text(&v["withholding_rate"]),
        euros(&v["base"]),
        euros(&v["withholding_amount"]),
        euros(&v["vat_amount"]),
        euros(&v["total_invoice"])
    )
}

pub fn model_130(v: &Value) -> String {
    format!(
        "Modelo 130 {} Q{}: result {} ({}). An estimate.",
        text(&v["year"]),
        text(&v["quarter"]),
        euros(&v["result"]),
        text(&v["meaning"])
    )
}

pub fn model_303(v: &Value) -> String {
    format!(
        "Modelo 303 {} Q{}: result {} ({}), from {} invoice(s) and {} expense(s). An estimate.",
        text(&v["year"]),
        text(&v["quarter"]),
        euros(&v["result"]),
        text(&v["outcome"]),
        count(&v["invoices"]),
        count(&v["expenses"])
    )
}

fn expense_line(v: &Value) -> String {
    format!(
        "expense {} (id {}) from {}, {}, total {}, VAT deducted {}, {}",
        text(&v["number"]),
        text(&v["id"]),
        text(&v["supplier"]["name"]),
        text(&v["issue_date"]),
        euros(&v["total"]),
        euros(&v["deductible"]["vat"]),
        text(&v["status"])
    )
}

pub fn expense(v: &Value) -> String {
    format!("Added {}.", expense_line(v))
}

pub fn expenses(v: &Value) -> String {
    page(v, "expense(s)", expense_line)
}

pub fn deadlines(v: &Value) -> String {
    page(v, "deadline(s)", |d| {
        format!("{} until {}", text(&d["description"]), text(&d["end"]))
    })
}

pub fn usage(v: &Value) -> String {
    format!(
        "{} of {} units used today, {} left; resets at {}.",
        text(&v["used"]),
        text(&v["daily_limit"]),
        text(&v["remaining"]),
        text(&v["resets_at"])
    )
}

pub fn analyses(v: &Value) -> String {
    page(v, "analysis(es)", |a| {
        format!(
            "{} {} ({})",
            text(&a["id"]),
            text(&a["title"]),
            text(&a["created_at"])
        )
    })
}

pub fn invoices(v: &Value) -> String {
    page(v, "invoice(s)", invoice)
}

pub fn issued(v: &Value) -> String {
    format!("Issued {}.", invoice(v))
}

/// An invoice as it is now.
pub fn the_invoice(v: &Value) -> String {
    capitalise(&invoice(v))
}

pub fn payment(v: &Value) -> String {
    format!(
        "Recorded the payment on {}: {} paid, {} due ({}).",
        invoice(v),
        euros(&v["amount_paid"]),
        euros(&v["amount_due"]),
        text(&v["payment_status"])
    )
}

pub fn series_list(v: &Value) -> String {
    page(v, "series", series)
}

pub fn series_defined(v: &Value) -> String {
    format!("Defined the {}.", series(v))
}

pub fn series_changed(v: &Value) -> String {
    format!("Changed the {}.", series(v))
}

pub fn series_deleted(v: &Value) -> String {
    format!("Deleted the series {}.", text(&v["code"]))
}

pub fn cancelled(v: &Value) -> String {
    format!("Cancelled {}.", invoice(v))
}

pub fn sent(v: &Value) -> String {
    format!(
        "{} invoice {} to {} ({}): {}.",
        if v["simulated"] == true {
            "Simulated sending (test key, nothing sent) of"
        } else {
            "Sent"
        },
        text(&v["number"]),
        text(&v["to"]),
        text(&v["subject"]),
        v["attachments"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|a| text(&a["filename"]))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

pub fn resubmitted(v: &Value) -> String {
    format!(
        "Resubmitted the VERI*FACTU record of {}; it is pending until the AEAT answers.",
        invoice(v)
    )
}

pub fn verifactu_comparison(v: &Value) -> String {
    let listed = |name: &str| v[name].as_array().map_or(0, Vec::len);
    format!(
        "VERI*FACTU records of {}-{:02} against the AEAT: {} matching, {} missing at the AEAT, {} different, {} only at the AEAT.",
        v["year"],
        v["period"].as_u64().unwrap_or_default(),
        v["matching"],
        listed("missing_at_aeat"),
        listed("different"),
        listed("only_at_aeat")
    )
}

/// A job polled with get_job: its result or error once it has finished.
pub fn job_state(v: &Value) -> String {
    match v["status"].as_str() {
        Some("succeeded") => format!(
            "Job {} succeeded; its result is in `result`.",
            text(&v["id"])
        ),
        Some("failed") => format!(
            "Job {} failed: {}",
            text(&v["id"]),
            text(&v["error"]["message"])
        ),
        _ => job(v),
    }
}

fn series(v: &Value) -> String {
    format!(
        "series {} ({}{}; next number {})",
        text(&v["code"]),
        text(&v["purpose"]),
        if v["default"] == true {
            ", the default"
        } else {
            ""
        },
        text(&v["next_number"])
    )
}

fn capitalise(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::catalogue::find;
    use super::job;

    #[test]
    fn summaries_name_the_figures() {
        let vat = json!({"base": 100, "vat_rate": 21, "vat_amount": 21, "surcharge_amount": 0, "total": 121});
        assert_eq!(
            (find("calculate_vat").unwrap().summary)(&vat),
            "Base 100 € + VAT 21 % 21 € + surcharge 0 € = 121 €."
        );
        let page = json!({"data": [{"id": 3, "number": "F2026-000003", "issue_date": "2026-11-20",
            "customer": {"name": "Ana"}, "total": 121.0, "status": "issued"}], "has_more": true, "next_cursor": "3"});
        assert_eq!(
            (find("list_invoices").unwrap().summary)(&page),
            "1 invoice(s): invoice F2026-000003 (id 3), 2026-11-20, Ana, total 121.0 €, issued. More follow: call again with cursor \"3\"."
        );
        let comparison = json!({"year": 2026, "period": 3, "matching": 4,
            "missing_at_aeat": [{}], "different": [], "only_at_aeat": []});
        assert_eq!(
            (find("compare_verifactu_records").unwrap().summary)(&comparison),
            "VERI*FACTU records of 2026-03 against the AEAT: 4 matching, 1 missing at the AEAT, 0 different, 0 only at the AEAT."
        );
        let started = json!({"id": "job_1", "kind": "analyze", "status": "queued"});
        assert!(job(&started).contains("get_job with job_id \"job_1\""));
    }
}
