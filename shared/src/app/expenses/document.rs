//! The file kept with an expense: read from the request (base64 or an
//! upload), checked against what its bytes are, read for the fields when it
//! is an e-invoice, and kept in the blob store under `kept/` (which never
//! expires) until the expense is deleted.

use sha2::{Digest, Sha256};

use super::ExpenseError;
use crate::app::extraction::prepare::{
    MAX_DOCUMENT_BYTES, MAX_IMAGE_BYTES, decode_base64, essence, read_einvoice_file,
};
use crate::app::keys::Caller;
use crate::app::uploads;
use crate::domain::account::AccountId;
use crate::expense::{Document, DocumentInput};
use crate::extraction::Fields;
use crate::extraction::sniff::{FileKind, sniff};
use crate::ports::Ports;

/// A document read from the request, not stored yet.
pub struct Received {
    pub bytes: Vec<u8>,
    pub document: Document,
    /// The invoice it states, when it is an e-invoice.
    pub einvoice: Option<Fields>,
}

fn invalid(code: &'static str, param: &str, message: impl Into<String>) -> ExpenseError {
    ExpenseError::Invalid {
        code,
        field: param.to_string(),
        message: message.into(),
    }
}

/// Reads and checks the document of a request.
pub async fn receive(
    ports: &Ports,
    caller: &Caller,
    input: DocumentInput,
) -> Result<Received, ExpenseError> {
    let mut uploaded_name = None;
    let bytes = match (&input.data, &input.upload_id) {
        (Some(data), None) => decode_base64(data)
            .map_err(|e| invalid("file_unreadable", "document.data", e.message))?,
        (None, Some(id)) => {
            let upload = uploads::find(ports, caller, id, "document.upload_id").await?;
            uploaded_name = Some(upload.name.clone());
            uploads::read(ports, &upload, "document.upload_id").await?
        }
        _ => {
            return Err(invalid(
                "parameter_invalid",
                "document",
                "send the document as `data` (base64) or as `upload_id`, one of them",
            ));
        }
    };
    if bytes.is_empty() {
        return Err(invalid("file_unreadable", "document", "the file is empty"));
    }
    let kind = sniff(&bytes).ok_or_else(|| {
        invalid(
            "mime_unsupported",
            "document",
            "the file is not a PDF, JPEG, PNG, WebP or XML document",
        )
    })?;
    let limit = match kind {
        FileKind::Pdf | FileKind::Xml => MAX_DOCUMENT_BYTES,
        _ => MAX_IMAGE_BYTES,
    };
    if bytes.len() > limit {
        return Err(ExpenseError::TooLarge(format!(
            "the document is larger than {} MiB",
            limit / (1024 * 1024)
        )));
    }
    let mime = kind.mime();
    if let Some(declared) = &input.mime {
        let declared = essence(declared);
        let same = declared == mime
            || (kind == FileKind::Xml && declared == "text/xml")
            || (kind == FileKind::Jpeg && declared == "image/jpg");
        if !same {
            return Err(invalid(
                "mime_mismatch",
                "document.mime",
                format!("declared as {declared} but the bytes are {mime}"),
            ));
        }
    }
    let einvoice = read_einvoice_file(&bytes)
        .await
        .map_err(|e| match e.code {
            "file_too_large" => ExpenseError::TooLarge(e.message),
            code => invalid(code, "document", e.message),
        })?
        .map(|mut invoices| {
            if invoices.len() == 1 {
                Ok(invoices.remove(0))
            } else {
                Err(invalid(
                    "parameter_invalid",
                    "document",
                    format!(
                        "the e-invoice holds {} invoices; add them one by one",
                        invoices.len()
                    ),
                ))
            }
        })
        .transpose()?;
    let file_name = input
        .file_name
        .or(uploaded_name)
        .map(|n| {
            n.trim()
                .chars()
                .filter(|c| !c.is_control())
                .take(200)
                .collect::<String>()
        })
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "document".into());
    let document = Document {
        file_name,
        mime: mime.into(),
        size: bytes.len() as u64,
        sha256: hex::encode(Sha256::digest(&bytes)),
    };
    Ok(Received {
        bytes,
        document,
        einvoice,
    })
}

/// Where an expense's document is kept.
pub fn blob_key(account: &AccountId, expense_id: &str) -> String {
    format!(
        "{}/expenses/{account}/{expense_id}",
        crate::ports::blobs::KEPT
    )
}

pub async fn keep(
    ports: &Ports,
    account: &AccountId,
    expense_id: &str,
    bytes: Vec<u8>,
) -> Result<(), ExpenseError> {
    Ok(ports
        .blobs
        .put(&blob_key(account, expense_id), bytes)
        .await?)
}

pub async fn read(
    ports: &Ports,
    account: &AccountId,
    expense_id: &str,
) -> Result<Option<Vec<u8>>, ExpenseError> {
    Ok(ports.blobs.get(&blob_key(account, expense_id)).await?)
}

/// Removes the document; a failure is logged (the expense is gone already).
pub async fn forget(ports: &Ports, account: &AccountId, expense_id: &str) {
    if let Err(e) = ports.blobs.delete(&blob_key(account, expense_id)).await {
        tracing::warn!(expense = expense_id, error = %e, "an expense's document was not deleted");
    }
}
