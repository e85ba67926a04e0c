//! One run of a job: the use case of the synchronous request (the same
//! code, as the same caller), on the request body the job staged, with the
//! uploads it names read now (one at a time, as the request would).

use serde_json::Value as Json;

use super::model::{Job, JobError, Kind};
use crate::analyses::request;
use crate::app::analyses::{self, AnalysesError};
use crate::app::extraction::{self, ExtractRequest};
use crate::app::uploads::UploadError;
use crate::ports::Ports;
use crate::ports::table::Write;

/// A run that gave a result: the job's `result` and the use case's own
/// writes, committed with the job's end.
pub struct Output {
    pub result: Json,
    pub writes: Vec<Write>,
}

#[derive(Debug)]
pub enum RunError {
    /// The service's own fault (storage, the OCR engine, a crash): another
    /// attempt may succeed. The reason is logged, never shown.
    Transient(String),
    /// The request cannot give a result; the job fails at once.
    Rejected(JobError),
}

/// Runs the job on its input. On the `last` attempt an extraction whose OCR
/// engine failed on some items keeps those items' `ocr_failed` errors, as
/// the synchronous answer would; before it, the run is tried again.
pub async fn run(ports: &Ports, job: &Job, input: Vec<u8>, last: bool) -> Result<Output, RunError> {
    match job.kind {
        Kind::Extract => extract(ports, job, &input, last).await,
        Kind::Analyze => analyze(ports, job, input).await,
    }
}

async fn extract(ports: &Ports, job: &Job, input: &[u8], last: bool) -> Result<Output, RunError> {
    let mut request: ExtractRequest = serde_json::from_slice(input).map_err(|e| {
        RunError::Rejected(JobError::internal(format!(
            "the job's staged request cannot be read ({e}); submit it again"
        )))
    })?;
    let uploads = extraction::uploaded::find(ports, &job.caller(), &mut request)
        .await
        .map_err(upload_failure)?;
    let prepared = extraction::prepare(ports, &uploads, request)
        .await
        .map_err(upload_failure)?;
    let extraction = extraction::run(ports, &job.caller(), prepared)
        .await
        .map_err(|e| RunError::Transient(e.to_string()))?;
    if !last && extraction.errors.iter().any(|e| e.code == "ocr_failed") {
        return Err(RunError::Transient(
            "the OCR engine failed on an item".into(),
        ));
    }
    Ok(Output {
        result: serde_json::to_value(&extraction).expect("extractions serialise"),
        writes: Vec::new(),
    })
}

/// An upload the request names that cannot be read: gone (it expired) or
/// not what it declared fails the job; an unreachable store is retried.
fn upload_failure(e: UploadError) -> RunError {
    match e {
        UploadError::Unavailable(reason) => RunError::Transient(reason),
        UploadError::Missing { param, message } => {
            RunError::Rejected(JobError::invalid("upload_missing", message, Some(param)))
        }
        UploadError::Invalid {
            code,
            param,
            message,
        } => RunError::Rejected(JobError::invalid(code, message, Some(param))),
        UploadError::TooLarge(message) | UploadError::Unsupported(message) => {
            RunError::Rejected(JobError::invalid("upload_invalid", message, None))
        }
    }
}

async fn analyze(ports: &Ports, job: &Job, input: Vec<u8>) -> Result<Output, RunError> {
    let input = match analyses::uploaded::read(ports, &job.caller(), &input).await {
        Ok(Some((spliced, _))) => spliced,
        Ok(None) => input,
        Err(e) => return Err(upload_failure(e)),
    };
    let (ports, caller) = (ports.clone(), job.caller());
    // Off the async workers, as the synchronous request does.
    let outcome = tokio::task::spawn_blocking(move || {
        let request = request::read(&input)?;
        analyses::run(&ports, &caller, &request)
    })
    .await
    .map_err(|e| RunError::Transient(format!("the analysis stopped: {e}")))?;
    match outcome {
        Ok((resource, writes)) => Ok(Output {
            result: serde_json::to_value(&resource).expect("analyses serialise"),
            writes,
        }),
        Err(AnalysesError::Invalid(e)) => Err(RunError::Rejected(JobError::invalid(
            e.code,
            e.message,
            Some(e.param).filter(|p| !p.is_empty()),
        ))),
        Err(AnalysesError::ReportTooLarge { bytes, limit }) => {
            Err(RunError::Rejected(JobError::invalid(
                "report_too_large",
                format!(
                    "the analysis would take {bytes} bytes, over the {limit} an analysis may keep; send fewer files or columns"
                ),
                None,
            )))
        }
        Err(e @ (AnalysesError::NotFound(_) | AnalysesError::Storage(_))) => {
            Err(RunError::Transient(format!("{e:?}")))
        }
    }
}
