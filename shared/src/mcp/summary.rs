//! The short human summary of a tool result (`content[0].text`); the whole
//! result is in `structuredContent`.

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

fn job(v: &Value) -> String {
    format!(
        "Job {} ({}) is {}. Call get_job with job_id \"{}\" in a few seconds for the result.",
        text(&v["id"]),
        text(&v["kind"]),
        text(&v["status"]),
        text(&v["id"])
    )
}

/// The summary of `tool`'s result `v` (`accepted`: it is a job, 202).
pub fn of(tool: &str, accepted: bool, v: &Value) -> String {
    if accepted {
        return job(v);
    }
    match tool {
        "extract_invoices" => {
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
        "analyze" | "get_analysis" => format!(
            "Analysis {} ({}): {}.",
            text(&v["id"]),
            text(&v["type"]),
            text(&v["title"])
        ),
        "validate_tax_id" => match v["valid"].as_bool() {
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
        },
        "calculate_vat" => format!(
            "Base {} + VAT {} % {} + surcharge {} = {}.",
            euros(&v["base"]),
            text(&v["vat_rate"]),
            euros(&v["vat_amount"]),
            euros(&v["surcharge_amount"]),
            euros(&v["total"])
        ),
        "calculate_withholding" => format!(
            "IRPF {} % of {} = {}; VAT {}; the customer pays {}.",
            text(&v["withholding_rate"]),
            euros(&v["base"]),
            euros(&v["withholding_amount"]),
            euros(&v["vat_amount"]),
            euros(&v["total_invoice"])
        ),
        "estimate_model_130" => format!(
            "Modelo 130 {} Q{}: result {} ({}). An estimate.",
            text(&v["year"]),
            text(&v["quarter"]),
            euros(&v["result"]),
            text(&v["meaning"])
        ),
        "fiscal_calendar" => page(v, "deadline(s)", |d| {
            format!("{} until {}", text(&d["description"]), text(&d["end"]))
        }),
        "get_usage" => format!(
            "{} of {} units used today, {} left; resets at {}.",
            text(&v["used"]),
            text(&v["daily_limit"]),
            text(&v["remaining"]),
            text(&v["resets_at"])
        ),
        "list_analyses" => page(v, "analysis(es)", |a| {
            format!(
                "{} {} ({})",
                text(&a["id"]),
                text(&a["title"]),
                text(&a["created_at"])
            )
        }),
        "list_invoices" => page(v, "invoice(s)", invoice),
        "issue_invoice" => format!("Issued {}.", invoice(v)),
        "get_invoice" | "set_invoice_status" => capitalise(&invoice(v)),
        "record_payment" => format!(
            "Recorded the payment on {}: {} paid, {} due ({}).",
            invoice(v),
            euros(&v["amount_paid"]),
            euros(&v["amount_due"]),
            text(&v["payment_status"])
        ),
        "list_series" => page(v, "series", series),
        "create_series" => format!("Defined the {}.", series(v)),
        "update_series" => format!("Changed the {}.", series(v)),
        "delete_series" => format!("Deleted the series {}.", text(&v["code"])),
        "cancel_invoice" => format!("Cancelled {}.", invoice(v)),
        "send_invoice" => format!(
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
        ),
        "resubmit_verifactu_record" => format!(
            "Resubmitted the VERI*FACTU record of {}; it is pending until the AEAT answers.",
            invoice(v)
        ),
        "get_job" => match v["status"].as_str() {
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
        },
        _ => String::new(),
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

    use super::*;

    #[test]
    fn summaries_name_the_figures() {
        let vat = json!({"base": 100, "vat_rate": 21, "vat_amount": 21, "surcharge_amount": 0, "total": 121});
        assert_eq!(
            of("calculate_vat", false, &vat),
            "Base 100 € + VAT 21 % 21 € + surcharge 0 € = 121 €."
        );
        let page = json!({"data": [{"id": 3, "number": "F2026-000003", "issue_date": "2026-11-20",
            "customer": {"name": "Ana"}, "total": 121.0, "status": "issued"}], "has_more": true, "next_cursor": "3"});
        assert_eq!(
            of("list_invoices", false, &page),
            "1 invoice(s): invoice F2026-000003 (id 3), 2026-11-20, Ana, total 121.0 €, issued. More follow: call again with cursor \"3\"."
        );
        let job = json!({"id": "job_1", "kind": "analyze", "status": "queued"});
        assert!(of("analyze", true, &job).contains("get_job with job_id \"job_1\""));
    }
}
