//! The tax tools as use cases: one function per tool, callable from HTTP and
//! from MCP alike. Requests and responses are the JSON shapes of the API.
//! Results are estimates for the general regime, computed by rules, never by a model.

pub mod books;
pub mod calendar;
pub mod model130;
pub mod model303;
pub mod nif;
pub mod quarter;
pub mod vat;
pub mod withholding;

/// Said in every tax-tool response.
pub const ESTIMATE_NOTICE: &str =
    "Estimate for the general regime, computed from the rules in force; not tax advice.";

/// A request the rules cannot answer: which parameter and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    pub code: &'static str,
    pub message: String,
    pub param: Option<&'static str>,
}

impl ToolError {
    pub fn invalid(param: &'static str, message: impl Into<String>) -> Self {
        ToolError {
            code: "parameter_invalid",
            message: message.into(),
            param: Some(param),
        }
    }

    pub fn storage(e: crate::ports::table::TableError) -> Self {
        ToolError {
            code: "storage",
            message: e.to_string(),
            param: None,
        }
    }
}

/// Years the tools accept.
pub const YEARS: std::ops::RangeInclusive<i32> = 2000..=2100;

pub fn check_year(year: i32) -> Result<i32, ToolError> {
    if YEARS.contains(&year) {
        Ok(year)
    } else {
        Err(ToolError::invalid(
            "year",
            format!("year {year} is outside {}–{}", YEARS.start(), YEARS.end()),
        ))
    }
}

pub fn check_quarter(quarter: u8) -> Result<u8, ToolError> {
    if (1..=4).contains(&quarter) {
        Ok(quarter)
    } else {
        Err(ToolError::invalid(
            "quarter",
            format!("quarter {quarter} does not exist; use 1, 2, 3 or 4"),
        ))
    }
}
