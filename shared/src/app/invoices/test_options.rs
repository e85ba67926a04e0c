//! The issue request's `test_options`: what a test invoice may ask of the
//! service's AEAT simulator, so that integrators can exercise their handling
//! of the AEAT's answers. Test keys only: a live invoice goes to the AEAT
//! as it is.

use serde::Deserialize;
use utoipa::ToSchema;

use super::error::InvoiceError;
use super::request::text;
use crate::domain::account::Mode;
use crate::verifactu::aeat::RecordError;

/// DescripcionErrorRegistro is at most 1,500 characters (RespuestaSuministro.xsd).
const MAX_DESCRIPTION: usize = 1500;
const PARAM: &str = "test_options";

/// Test keys only (400 `parameter_invalid` with a live key).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"verifactu_error": {"code": 1104, "description": "El valor del campo NumSerieFactura es incorrecto."}}))]
pub struct TestOptions {
    /// The AEAT simulator answers this invoice's VERI*FACTU registration
    /// record with this error, once: `verifactu.status` becomes `rejected`
    /// (or `accepted_with_errors` for codes 2000–2999) with the code and
    /// description in `verifactu.answer`, and `verifactu.rejected` (or
    /// `verifactu.accepted`) is emitted. A corrected record sent with
    /// `POST /invoices/{id}/verifactu/resubmit` is answered normally.
    pub verifactu_error: Option<VerifactuErrorRequest>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct VerifactuErrorRequest {
    /// An AEAT error code (CodigoErrorRegistro), 1000–9999, e.g. 1104 (a
    /// wrong NumSerieFactura) or 2001 (a recipient NIF not in the census):
    /// 2000–2999 accept the record with errors, any other rejects it.
    #[schema(minimum = 1000, maximum = 9999)]
    pub code: u32,
    /// DescripcionErrorRegistro, up to 1,500 characters; default: a text
    /// that names the code as simulated.
    #[schema(max_length = 1500)]
    pub description: Option<String>,
}

/// The AEAT error a test invoice asks the simulator to answer its
/// registration with.
pub fn simulated_error(
    options: Option<TestOptions>,
    mode: Mode,
) -> Result<Option<RecordError>, InvoiceError> {
    let Some(options) = options else {
        return Ok(None);
    };
    if mode.is_live() {
        return Err(InvoiceError::invalid(
            "parameter_invalid",
            PARAM.into(),
            "test_options works with test keys (svc_test_…) only: a live invoice's record goes to the AEAT as it is",
        ));
    }
    let Some(asked) = options.verifactu_error else {
        return Ok(None);
    };
    if !(1000..=9999).contains(&asked.code) {
        return Err(InvoiceError::invalid(
            "parameter_invalid",
            format!("{PARAM}.verifactu_error.code"),
            format!(
                "{} is not an AEAT error code (1000–9999; 2000–2999 accept the record with errors)",
                asked.code
            ),
        ));
    }
    let param = format!("{PARAM}.verifactu_error.description");
    let description = asked
        .description
        .as_deref()
        .map(|d| text(d, MAX_DESCRIPTION, &param, false))
        .transpose()?
        .flatten()
        .unwrap_or_else(|| {
            format!(
                "Error {} simulado (test_options.verifactu_error).",
                asked.code
            )
        });
    Ok(Some(RecordError {
        code: asked.code,
        description,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asking(code: u32, description: Option<&str>) -> Option<TestOptions> {
        Some(TestOptions {
            verifactu_error: Some(VerifactuErrorRequest {
                code,
                description: description.map(str::to_string),
            }),
        })
    }

    fn param(result: Result<Option<RecordError>, InvoiceError>) -> String {
        match result {
            Err(InvoiceError::Invalid { param, .. }) => param,
            other => panic!("a 400, not {other:?}"),
        }
    }

    #[test]
    fn a_test_invoice_gets_the_error_it_asks_for() {
        let asked = simulated_error(asking(1104, Some("  NumSerieFactura mal  ")), Mode::Test);
        assert_eq!(
            asked.unwrap(),
            Some(RecordError {
                code: 1104,
                description: "NumSerieFactura mal".into()
            })
        );
        let default = simulated_error(asking(2001, None), Mode::Test)
            .unwrap()
            .unwrap();
        assert_eq!(
            default.description,
            "Error 2001 simulado (test_options.verifactu_error)."
        );
        assert_eq!(simulated_error(None, Mode::Live).unwrap(), None);
        let empty = Some(TestOptions {
            verifactu_error: None,
        });
        assert_eq!(simulated_error(empty, Mode::Test).unwrap(), None);
    }

    #[test]
    fn live_keys_and_bad_values_are_refused_naming_the_field() {
        assert_eq!(
            param(simulated_error(asking(1104, None), Mode::Live)),
            "test_options"
        );
        for code in [0, 999, 10000] {
            assert_eq!(
                param(simulated_error(asking(code, None), Mode::Test)),
                "test_options.verifactu_error.code"
            );
        }
        let long = "x".repeat(1501);
        assert_eq!(
            param(simulated_error(asking(1104, Some(&long)), Mode::Test)),
            "test_options.verifactu_error.description"
        );
    }
}
