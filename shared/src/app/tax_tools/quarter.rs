//! `quarter_summary`: a quarter of the live ledger, with the Modelo 303 boxes
//! and the Modelo 130 inputs it gives.

use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::Serialize;
use utoipa::ToSchema;

use super::{ESTIMATE_NOTICE, ToolError, check_quarter, check_year};
use crate::app::keys::Caller;
use crate::app::ledger;
use crate::ports::Ports;
use crate::tax::money::Money;
use crate::tax::money::Percent;
use crate::tax::money::as_number;
use crate::tax::quarter::quarter_dates;
use crate::tax::quarter::{model_303_boxes, summarize};

#[derive(Debug, Serialize, ToSchema, PartialEq)]
pub struct RateLine {
    pub rate: Percent,
    pub base: Money,
    pub amount: Money,
}

#[derive(Debug, Serialize, ToSchema, PartialEq)]
pub struct Box303 {
    #[serde(rename = "box")]
    pub number: &'static str,
    pub label: String,
    /// An amount in euros, or a rate in percent for the rate boxes.
    #[serde(serialize_with = "as_number")]
    #[schema(value_type = f64)]
    pub value: Decimal,
}

#[derive(Debug, Serialize, ToSchema, PartialEq)]
pub struct Totals {
    pub base: Money,
    pub vat: Money,
    pub surcharge: Money,
    pub irpf_withheld: Money,
    /// base + VAT + surcharge − IRPF.
    pub total: Money,
}

#[derive(Debug, Serialize, ToSchema, PartialEq)]
pub struct Model130Inputs {
    /// Σ invoice bases from 1 January to the quarter's end (box 01).
    pub income_year_to_date: Money,
    /// Σ IRPF withheld by clients in the same span (box 06).
    pub withholdings_year_to_date: Money,
}

#[derive(Debug, Serialize, ToSchema, PartialEq)]
#[schema(example = json!({"year": 2026, "quarter": 2, "from": "2026-04-01", "to": "2026-06-30", "livemode": true,
    "invoice_count": 2, "rectification_count": 0,
    "vat": [{"rate": 21.0, "base": 1000.0, "amount": 210.0}, {"rate": 10.0, "base": 200.0, "amount": 20.0}],
    "surcharge": [], "igic": [], "ipsi": [], "totals": {"base": 1200.0, "vat": 230.0, "surcharge": 0.0, "irpf_withheld": 180.0, "total": 1250.0},
    "model_303": [{"box": "04", "label": "Output VAT 10 %: base", "value": 200.0},
        {"box": "06", "label": "Output VAT 10 %: quota", "value": 20.0},
        {"box": "07", "label": "Output VAT 21 %: base", "value": 1000.0},
        {"box": "09", "label": "Output VAT 21 %: quota", "value": 210.0},
        {"box": "27", "label": "Total output VAT and surcharge", "value": 230.0}],
    "model_130": {"income_year_to_date": 1200.0, "withholdings_year_to_date": 180.0}, "notes": [],
    "estimate": "Estimate for the general regime, computed from the rules in force; not tax advice."}))]
pub struct QuarterResponse {
    pub year: i32,
    pub quarter: u8,
    pub from: NaiveDate,
    pub to: NaiveDate,
    pub livemode: bool,
    /// Ordinary invoices (F1, F2) issued in the quarter.
    pub invoice_count: usize,
    /// Rectifying invoices (R1–R5), which go to the modification boxes 14/15 and 25/26.
    pub rectification_count: usize,
    /// Output VAT of ordinary invoices per rate: base and quota.
    pub vat: Vec<RateLine>,
    /// Equivalence surcharge per rate.
    pub surcharge: Vec<RateLine>,
    /// IGIC per rate (issuers in the Canary Islands; rectifying invoices
    /// signed in): declared to the Canary Islands' tax agency in Modelo 420
    /// (quarterly) and 425 (yearly), never in Modelo 303.
    pub igic: Vec<RateLine>,
    /// IPSI per rate (issuers in Ceuta or Melilla): declared to the city,
    /// never in Modelo 303.
    pub ipsi: Vec<RateLine>,
    /// Every invoice's base, its VAT, IGIC or IPSI (`vat`), surcharge and IRPF.
    pub totals: Totals,
    /// Modelo 303 output boxes (01–09 per rate, 14/15, surcharge rows, 25/26, 27 total).
    pub model_303: Vec<Box303>,
    pub model_130: Model130Inputs,
    pub notes: Vec<String>,
    pub estimate: &'static str,
}

fn lines(
    map: &std::collections::BTreeMap<Decimal, crate::tax::quarter::RateTotals>,
) -> Vec<RateLine> {
    map.iter()
        .rev()
        .map(|(rate, t)| RateLine {
            rate: Percent::from(*rate),
            base: Money::from(t.base),
            amount: Money::from(t.amount),
        })
        .collect()
}

pub async fn quarter_summary(
    ports: &Ports,
    caller: &Caller,
    year: i32,
    quarter: u8,
) -> Result<QuarterResponse, ToolError> {
    let year = check_year(year)?;
    let quarter = check_quarter(quarter)?;
    let (from, to) = quarter_dates(year, quarter);
    let mut notes = Vec::new();
    let (entries, year_entries) = if caller.mode.is_live() {
        let january = NaiveDate::from_ymd_opt(year, 1, 1).expect("valid year");
        let year_entries = ledger::between(ports, &caller.account_id, january, to)
            .await
            .map_err(ToolError::storage)?;
        let entries = year_entries
            .iter()
            .filter(|e| e.issue_date >= from)
            .cloned()
            .collect();
        (entries, year_entries)
    } else {
        notes.push("Test keys have no ledger: test invoices never reach it.".into());
        (Vec::new(), Vec::new())
    };
    let s = summarize(&entries);
    if entries.is_empty() && caller.mode.is_live() {
        notes.push("The ledger has no invoices in this quarter.".into());
    }
    if !s.igic.is_empty() {
        notes.push("IGIC goes to the Canary Islands' tax agency (ATC) in Modelo 420, not in Modelo 303: see `igic`.".into());
    }
    if !s.ipsi.is_empty() {
        notes.push(
            "IPSI goes to the city of Ceuta or Melilla, not in Modelo 303: see `ipsi`.".into(),
        );
    }
    Ok(QuarterResponse {
        year,
        quarter,
        from,
        to,
        livemode: caller.mode.is_live(),
        invoice_count: s.invoice_count,
        rectification_count: s.rectification_count,
        vat: lines(&s.vat),
        surcharge: lines(&s.surcharge),
        igic: lines(&s.igic),
        ipsi: lines(&s.ipsi),
        totals: Totals {
            base: Money::from(s.base),
            vat: Money::from(s.vat_amount),
            surcharge: Money::from(s.surcharge_amount),
            irpf_withheld: Money::from(s.irpf_withheld),
            total: Money::from(s.total),
        },
        model_303: model_303_boxes(&s, year, quarter)
            .into_iter()
            .map(|b| Box303 {
                number: b.number,
                label: b.label,
                value: b.value,
            })
            .collect(),
        model_130: Model130Inputs {
            income_year_to_date: Money::from(
                year_entries.iter().map(|e| e.base()).sum::<Decimal>(),
            ),
            withholdings_year_to_date: Money::from(
                year_entries.iter().map(|e| e.irpf_amount).sum::<Decimal>(),
            ),
        },
        notes,
        estimate: ESTIMATE_NOTICE,
    })
}
