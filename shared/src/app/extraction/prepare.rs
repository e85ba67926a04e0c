//! The cheap first phase of an extraction, run before the quota is charged:
//! decode each item, check its declared type against its bytes and its size,
//! read e-invoices (exact and free), open PDFs in their isolated child (text
//! layer, attachments, scan detection) and check image headers. What is left
//! for the second phase is the parsing and the OCR.

use base64::Engine;
use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use tokio::sync::Semaphore;
use tokio::task::{JoinError, JoinHandle};

use super::request::{ExtractRequest, FileInput, TextInput};
use super::uploaded::{self, Uploads};
use crate::app::uploads::UploadError;
use crate::extraction::einvoice::{self, EinvoiceError, Format};
use crate::extraction::image::ImageFormat;
use crate::extraction::image::{ImageError, inspect_image};
use crate::extraction::pdf::{PdfContent, PdfError, read_pdf};
use crate::extraction::sniff::{FileKind, sniff};
use crate::extraction::{Fields, Source, TextDocument};
use crate::ports::Ports;

/// Largest image (Textract's limit for the bytes of a document; the OCR
/// engines read it whole).
pub const MAX_IMAGE_BYTES: usize = 5 * 1024 * 1024;
/// Largest PDF or XML document (the largest upload; an inline one is bounded
/// by the body limit first). What is read of a PDF is bounded by the page
/// and object limits of `extraction::pdf`.
pub const MAX_DOCUMENT_BYTES: usize = 50 * 1024 * 1024;
/// Largest text item, in characters.
pub const MAX_TEXT_CHARS: usize = 200_000;
/// Fewer letters and digits than this cannot hold an invoice.
const MIN_USEFUL_CHARS: usize = 20;

/// Attachment names under which PDFs carry their e-invoice (Factur-X,
/// ZUGFeRD, XRechnung), compared without case.
const EINVOICE_ATTACHMENTS: [&str; 3] = ["factur-x.xml", "zugferd-invoice.xml", "xrechnung.xml"];

/// E-invoices are read one at a time in the whole process. Reading one
/// builds its tree, bounded by `xml_tree::LIMITS` but still tens of MB for
/// a document at those limits; taking turns keeps that to one tree however
/// many files a request carries (their reading is otherwise concurrent) and
/// however many requests arrive. A turn is short: the tree is dropped once
/// the invoices are read from it.
static EINVOICE_READER: Semaphore = Semaphore::const_new(1);

/// Why one item gave no invoice: its entry in `errors`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemError {
    pub code: &'static str,
    pub message: String,
}

impl ItemError {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        ItemError {
            code,
            message: message.into(),
        }
    }
}

/// What the second phase does with an item.
#[derive(Clone, Debug)]
pub enum Work {
    Failed(ItemError),
    /// Read exactly; only the checks are left.
    Einvoice {
        source: Source,
        invoices: Vec<Fields>,
    },
    /// Positioned text for the field parser, what was noticed on the way
    /// (`(code, message)`, added to the invoice's warnings) and the payloads
    /// of the QR codes found beside it (a PDF's first page).
    Text {
        source: Source,
        document: TextDocument,
        notes: Vec<(String, String)>,
        qr_codes: Vec<String>,
    },
    Image {
        bytes: Vec<u8>,
        format: ImageFormat,
    },
}

#[derive(Clone, Debug)]
pub struct Item {
    pub file_name: String,
    pub work: Work,
}

/// Every item of a request after the first phase, in request order (files, then texts).
#[derive(Clone, Debug)]
pub struct Prepared {
    pub items: Vec<Item>,
}

impl Prepared {
    /// A request costs a quota unit when at least one item goes to the parser
    /// or the OCR; e-invoices read natively and items rejected by the format
    /// checks cost nothing.
    pub fn chargeable(&self) -> bool {
        self.items.iter().any(|i| goes_to_reading(&i.work))
    }
}

/// The first phase of a request whose uploads were found
/// (`uploaded::find`). The files given as `data` are read at once (a PDF off
/// the async workers), so a request takes about as long as its slowest
/// file; beside them, the uploads are read and prepared one at a time, each
/// read just before its turn and its bytes dropped once prepared, so that a
/// request holds one upload's bytes at most. An upload that cannot be read
/// (gone, or not of its declared size) fails the whole request.
pub async fn prepare(
    ports: &Ports,
    uploads: &Uploads,
    request: ExtractRequest,
) -> Result<Prepared, UploadError> {
    let mut names = Vec::with_capacity(request.files.len());
    let mut inline = Reading::default();
    let mut uploaded = Vec::new();
    for (index, file) in request.files.into_iter().enumerate() {
        names.push(file.name.trim().to_string());
        match uploads.of(index) {
            Some(upload) => uploaded.push((index, upload, file)),
            None => inline.start(index, file),
        }
    }
    let mut works: Vec<Option<Work>> = names.iter().map(|_| None).collect();
    for (index, upload, mut file) in uploaded {
        file.uploaded = Some(uploaded::read(ports, upload, index).await?);
        works[index] = Some(settle(tokio::spawn(prepare_file(file)).await));
    }
    for (index, work) in inline.finish().await {
        works[index] = Some(work);
    }
    let mut items = Vec::with_capacity(names.len() + request.texts.len());
    for (file_name, work) in names.into_iter().zip(works) {
        let work = work.unwrap_or_else(|| Work::Failed(stopped()));
        items.push(Item { file_name, work });
    }
    for text in request.texts {
        let file_name = text.name.trim().to_string();
        let work = prepare_text(text).await.unwrap_or_else(Work::Failed);
        items.push(Item { file_name, work });
    }
    Ok(Prepared { items })
}

/// Whether the request would cost a quota unit (`Prepared::chargeable`),
/// decided with as little of the first phase as that takes, for a request
/// that goes to a job, where it is prepared again: an XML file (read
/// natively, or rejected) or a file of a type not accepted never costs, so
/// it is not read; the others are prepared and dropped, the uploads one at a
/// time, until one of them would go to the parser or the OCR. Every upload
/// is still read, one at a time, for the same errors as `prepare` (gone, or
/// not of its declared size).
pub async fn chargeable(
    ports: &Ports,
    uploads: &Uploads,
    request: ExtractRequest,
) -> Result<bool, UploadError> {
    let mut chargeable = false;
    for text in request.texts {
        if !chargeable {
            chargeable = goes_to_reading(&prepare_text(text).await.unwrap_or_else(Work::Failed));
        }
    }
    let mut inline = Reading::default();
    let mut uploaded = Vec::new();
    for (index, file) in request.files.into_iter().enumerate() {
        match uploads.of(index) {
            Some(upload) => uploaded.push((index, upload, file)),
            None if may_charge(&file) => inline.start(index, file),
            None => {}
        }
    }
    for (index, upload, mut file) in uploaded {
        let bytes = uploaded::read(ports, upload, index).await?;
        if !chargeable && may_charge(&file) {
            file.uploaded = Some(bytes);
            chargeable = goes_to_reading(&settle(tokio::spawn(prepare_file(file)).await));
        }
    }
    for (_, work) in inline.finish().await {
        chargeable = chargeable || goes_to_reading(&work);
    }
    Ok(chargeable)
}

/// Files being prepared at once, each off in its own task.
#[derive(Default)]
struct Reading {
    tasks: Vec<(usize, JoinHandle<Result<Work, ItemError>>)>,
}

impl Reading {
    fn start(&mut self, index: usize, file: FileInput) {
        self.tasks.push((index, tokio::spawn(prepare_file(file))));
    }

    async fn finish(mut self) -> Vec<(usize, Work)> {
        let mut works = Vec::with_capacity(self.tasks.len());
        for (index, task) in std::mem::take(&mut self.tasks) {
            works.push((index, settle(task.await)));
        }
        works
    }
}

impl Drop for Reading {
    /// A request given up (an upload that cannot be read) stops the files
    /// still being read.
    fn drop(&mut self) {
        for (_, task) in &self.tasks {
            task.abort();
        }
    }
}

/// The work of a prepared file; a reader that stopped (panicked) leaves
/// the file unreadable.
fn settle(prepared: Result<Result<Work, ItemError>, JoinError>) -> Work {
    match prepared {
        Ok(prepared) => prepared.unwrap_or_else(Work::Failed),
        Err(_) => Work::Failed(stopped()),
    }
}

fn stopped() -> ItemError {
    ItemError::new(
        "file_unreadable",
        "the file stopped the reader; it cannot be read",
    )
}

/// Whether the second phase reads the item with the field parser or the
/// OCR, which is what costs a unit.
fn goes_to_reading(work: &Work) -> bool {
    matches!(work, Work::Text { .. } | Work::Image { .. })
}

/// Whether a file may cost a unit, by its declared type: a PDF or an image
/// may; an XML file is read natively or rejected, and a type not accepted
/// is rejected, so neither ever does.
fn may_charge(file: &FileInput) -> bool {
    matches!(
        file.mime.as_deref().and_then(declared_kind),
        Some(FileKind::Pdf | FileKind::Png | FileKind::Jpeg | FileKind::Webp)
    )
}

/// A mime type without its parameters, in lower case (`Text/XML;
/// charset=utf-8` → `text/xml`).
pub fn essence(mime: &str) -> String {
    mime.split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// The accepted mime types, by what the bytes must be.
fn declared_kind(mime: &str) -> Option<FileKind> {
    match essence(mime).as_str() {
        "application/pdf" => Some(FileKind::Pdf),
        "image/png" => Some(FileKind::Png),
        "image/jpeg" | "image/jpg" => Some(FileKind::Jpeg),
        "image/webp" => Some(FileKind::Webp),
        "application/xml" | "text/xml" => Some(FileKind::Xml),
        _ => None,
    }
}

fn kind_name(kind: FileKind) -> &'static str {
    match kind {
        FileKind::Pdf => "a PDF",
        FileKind::Png => "a PNG image",
        FileKind::Jpeg => "a JPEG image",
        FileKind::Webp => "a WebP image",
        FileKind::Xml => "an XML document",
    }
}

/// Lenient base64: standard or URL-safe alphabet, padding optional, white
/// space ignored, an optional `data:…;base64,` prefix.
pub fn decode_base64(data: &str) -> Result<Vec<u8>, ItemError> {
    let payload = match data.trim_start().strip_prefix("data:") {
        Some(rest) => rest.split_once(',').map(|(_, p)| p).unwrap_or(""),
        None => data,
    };
    let compact: String = payload
        .chars()
        .filter(|c| !c.is_ascii_whitespace())
        .collect();
    let url_safe = compact.contains(['-', '_']);
    let config =
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
    let engine = if url_safe {
        GeneralPurpose::new(&alphabet::URL_SAFE, config)
    } else {
        GeneralPurpose::new(&alphabet::STANDARD, config)
    };
    engine.decode(compact.as_bytes()).map_err(|e| {
        ItemError::new(
            "file_unreadable",
            format!("`data` is not valid base64 ({e})"),
        )
    })
}

async fn prepare_file(file: FileInput) -> Result<Work, ItemError> {
    let mime = file.mime.unwrap_or_default();
    let declared = declared_kind(&mime).ok_or_else(|| {
        ItemError::new(
            "mime_unsupported",
            format!(
                "mime {mime:?} is not accepted; send application/pdf, image/jpeg, image/png, image/webp, or application/xml for e-invoices"
            ),
        )
    })?;
    let limit = match declared {
        FileKind::Pdf | FileKind::Xml => MAX_DOCUMENT_BYTES,
        FileKind::Png | FileKind::Jpeg | FileKind::Webp => MAX_IMAGE_BYTES,
    };
    let bytes = match (file.uploaded, file.data) {
        (Some(bytes), _) => bytes,
        (None, Some(data)) => {
            if data.len() / 4 * 3 > limit + 3 {
                return Err(too_large(limit));
            }
            decode_base64(&data)?
        }
        (None, None) => Vec::new(),
    };
    if bytes.is_empty() {
        return Err(ItemError::new("file_unreadable", "the file is empty"));
    }
    if bytes.len() > limit {
        return Err(too_large(limit));
    }
    let actual = sniff(&bytes).ok_or_else(|| {
        ItemError::new(
            "file_unreadable",
            format!(
                "the bytes are not {} (nor any accepted type): the file is corrupt or of another kind",
                kind_name(declared)
            ),
        )
    })?;
    if actual != declared {
        return Err(ItemError::new(
            "mime_mismatch",
            format!(
                "declared as {} but the bytes are {}; send the right mime",
                mime.trim(),
                kind_name(actual)
            ),
        ));
    }
    match actual {
        FileKind::Xml => read_einvoice(&bytes, None).await,
        FileKind::Pdf => prepare_pdf(bytes).await,
        FileKind::Png => prepare_image(bytes, ImageFormat::Png),
        FileKind::Jpeg => prepare_image(bytes, ImageFormat::Jpeg),
        FileKind::Webp => prepare_image(bytes, ImageFormat::Webp),
    }
}

fn too_large(limit: usize) -> ItemError {
    ItemError::new(
        "file_too_large",
        format!("the file is larger than {} MiB", limit / (1024 * 1024)),
    )
}

fn source_of(format: Format) -> Source {
    match format {
        Format::Facturae => Source::Facturae,
        Format::Ubl => Source::Ubl,
        Format::Cii => Source::Cii,
    }
}

/// An e-invoice read natively, in its turn; `source` overrides the format's
/// own (Factur-X).
async fn read_einvoice(xml: &[u8], source: Option<Source>) -> Result<Work, ItemError> {
    // The permit is held until the tree is gone; `acquire` fails only on a
    // closed semaphore, and this one is never closed.
    let _turn = EINVOICE_READER.acquire().await.ok();
    match einvoice::read(xml) {
        Ok((format, invoices)) if !invoices.is_empty() => Ok(Work::Einvoice {
            source: source.unwrap_or(source_of(format)),
            invoices,
        }),
        Ok(_) => Err(ItemError::new(
            "no_invoice_found",
            "the e-invoice holds no invoice",
        )),
        Err(EinvoiceError::NotEinvoice) => Err(ItemError::new(
            "no_invoice_found",
            "the XML is not an e-invoice in a format read here (Facturae 3.x, UBL 2.1 Invoice or CreditNote, UN/CEFACT CII)",
        )),
        Err(e @ EinvoiceError::TooLarge(_)) => Err(ItemError::new("file_too_large", e.to_string())),
        Err(e) => Err(ItemError::new("file_unreadable", e.to_string())),
    }
}

/// The invoices of an e-invoice file, read exactly: an XML e-invoice, or a
/// PDF carrying one (Factur-X …). `None` for any other PDF or image, and
/// for a PDF that cannot be opened.
pub async fn read_einvoice_file(bytes: &[u8]) -> Result<Option<Vec<Fields>>, ItemError> {
    match sniff(bytes) {
        Some(FileKind::Xml) => read_einvoice(bytes, None).await.map(invoices_of),
        Some(FileKind::Pdf) => {
            let Ok(content) = read_pdf(bytes.to_vec()).await else {
                return Ok(None);
            };
            let Some(xml) = embedded_einvoice(&content) else {
                return Ok(None);
            };
            Ok(read_einvoice(xml, Some(Source::FacturX))
                .await
                .ok()
                .and_then(invoices_of))
        }
        _ => Ok(None),
    }
}

fn invoices_of(work: Work) -> Option<Vec<Fields>> {
    match work {
        Work::Einvoice { invoices, .. } => Some(invoices),
        _ => None,
    }
}

fn embedded_einvoice(content: &PdfContent) -> Option<&[u8]> {
    let named = content.attachments.iter().find(|a| {
        EINVOICE_ATTACHMENTS
            .iter()
            .any(|n| a.name.eq_ignore_ascii_case(n))
    });
    named
        .or_else(|| {
            content
                .attachments
                .iter()
                .find(|a| einvoice::detect(&a.bytes).is_some())
        })
        .map(|a| a.bytes.as_slice())
}

async fn prepare_pdf(bytes: Vec<u8>) -> Result<Work, ItemError> {
    let content = read_pdf(bytes).await.map_err(|e| match e {
        PdfError::Encrypted => ItemError::new(
            "pdf_encrypted",
            "the PDF is encrypted or password-protected; send it without protection",
        ),
        PdfError::Unreadable(m) => {
            ItemError::new("file_unreadable", format!("the PDF cannot be read: {m}"))
        }
        PdfError::TooLarge(m) => ItemError::new("file_too_large", m),
    })?;
    let mut notes = Vec::new();
    if let Some(xml) = embedded_einvoice(&content) {
        match read_einvoice(xml, Some(Source::FacturX)).await {
            Ok(work) => return Ok(work),
            Err(e) => notes.push((
                "einvoice_unreadable".to_string(),
                format!(
                    "El PDF lleva una factura electrónica que no se pudo leer; se leyó su texto ({})",
                    e.message
                ),
            )),
        }
    }
    if content.scanned {
        return Err(ItemError::new(
            "pdf_scanned",
            "the PDF has no usable text layer (a scan); send its pages as images (image/jpeg, image/png or image/webp) to have them read by OCR",
        ));
    }
    Ok(Work::Text {
        source: Source::PdfText,
        document: content.text,
        notes,
        qr_codes: content.qr_codes,
    })
}

fn prepare_image(bytes: Vec<u8>, format: ImageFormat) -> Result<Work, ItemError> {
    inspect_image(&bytes, format).map_err(|e| match e {
        ImageError::TooLarge(m) => ItemError::new("file_too_large", m),
        ImageError::Unreadable(m) => {
            ItemError::new("file_unreadable", format!("the image cannot be read: {m}"))
        }
    })?;
    Ok(Work::Image { bytes, format })
}

async fn prepare_text(text: TextInput) -> Result<Work, ItemError> {
    if text.text.chars().count() > MAX_TEXT_CHARS {
        return Err(ItemError::new(
            "file_too_large",
            format!("the text is longer than {MAX_TEXT_CHARS} characters"),
        ));
    }
    let trimmed = text.text.trim_start_matches('\u{feff}').trim_start();
    if trimmed.starts_with('<') && einvoice::detect(trimmed.as_bytes()).is_some() {
        return read_einvoice(trimmed.as_bytes(), None).await;
    }
    let document = TextDocument::from_plain_text(&text.text);
    if document.useful_chars() < MIN_USEFUL_CHARS {
        return Err(ItemError::new(
            "no_invoice_found",
            "the text is too short to hold an invoice",
        ));
    }
    Ok(Work::Text {
        source: Source::Text,
        document,
        notes: Vec::new(),
        qr_codes: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_read_leniently() {
        let expected = b"%PDF-1.7 hi?>".to_vec();
        for data in [
            "JVBERi0xLjcgaGk/Pg==",
            "JVBERi0xLjcgaGk/Pg",
            "JVBERi0x\nLjcgaGk/Pg==",
            "JVBERi0xLjcgaGk_Pg",
            "data:application/pdf;base64,JVBERi0xLjcgaGk/Pg==",
        ] {
            assert_eq!(decode_base64(data).unwrap(), expected, "{data}");
        }
        assert_eq!(
            decode_base64("not base64!").unwrap_err().code,
            "file_unreadable"
        );
    }

    #[test]
    fn mimes_are_matched_by_essence() {
        assert_eq!(declared_kind("Application/PDF"), Some(FileKind::Pdf));
        assert_eq!(declared_kind("image/jpg"), Some(FileKind::Jpeg));
        assert_eq!(
            declared_kind("text/xml; charset=utf-8"),
            Some(FileKind::Xml)
        );
        assert_eq!(declared_kind("image/gif"), None);
    }
}

/// A request's uploads are read in turn: it holds one upload's bytes at most.
#[cfg(test)]
mod turns {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;
    use std::collections::HashMap;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};

    use async_trait::async_trait;
    use chrono::{DateTime, Utc};

    use super::*;
    use crate::app::keys::Caller;
    use crate::app::test_ports;
    use crate::app::uploads::{self, NewUpload};
    use crate::domain::account::{Mode, Plan};
    use crate::ports::blobs::{BlobError, Blobs, PresignedPut};

    /// The bytes allocated and not yet freed by the thread that counts
    /// (`held_at_most`), and their peak; other threads are not counted.
    struct Counting;

    thread_local! {
        static COUNTING: Cell<bool> = const { Cell::new(false) };
        static HELD: Cell<usize> = const { Cell::new(0) };
        static PEAK: Cell<usize> = const { Cell::new(0) };
    }

    fn count(grown: usize, shrunk: usize) {
        if COUNTING.try_with(Cell::get) != Ok(true) {
            return;
        }
        let held = HELD.with(Cell::get).saturating_sub(shrunk) + grown;
        HELD.with(|h| h.set(held));
        PEAK.with(|p| p.set(p.get().max(held)));
    }

    // SAFETY: every call is the system allocator's, with its arguments.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            count(layout.size(), 0);
            unsafe { System.alloc(layout) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            count(0, layout.size());
            unsafe { System.dealloc(ptr, layout) }
        }
        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            count(layout.size(), 0);
            unsafe { System.alloc_zeroed(layout) }
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            count(new_size, layout.size());
            unsafe { System.realloc(ptr, layout, new_size) }
        }
    }

    #[global_allocator]
    static ALLOCATOR: Counting = Counting;

    /// The most bytes `work` held at once above what was held before it,
    /// on this thread (a current-thread runtime runs the spawned tasks
    /// there too).
    async fn held_at_most<T>(work: impl Future<Output = T>) -> (T, usize) {
        COUNTING.with(|c| c.set(true));
        HELD.with(|h| h.set(0));
        PEAK.with(|p| p.set(0));
        let out = work.await;
        COUNTING.with(|c| c.set(false));
        (out, PEAK.with(Cell::get))
    }

    /// Blobs in memory that count their reads; a read copies the bytes on
    /// the reading thread, as a store's download would.
    #[derive(Default)]
    struct MemoryBlobs {
        blobs: Mutex<HashMap<String, Vec<u8>>>,
        reads: AtomicUsize,
    }

    #[async_trait]
    impl Blobs for MemoryBlobs {
        async fn put(&self, key: &str, bytes: Vec<u8>) -> Result<(), BlobError> {
            self.blobs.lock().unwrap().insert(key.to_string(), bytes);
            Ok(())
        }
        async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, BlobError> {
            self.reads.fetch_add(1, Ordering::SeqCst);
            Ok(self.blobs.lock().unwrap().get(key).cloned())
        }
        async fn delete(&self, key: &str) -> Result<(), BlobError> {
            self.blobs.lock().unwrap().remove(key);
            Ok(())
        }
        async fn presign_put(
            &self,
            key: &str,
            _: &str,
            _: u64,
            _: DateTime<Utc>,
        ) -> Result<PresignedPut, BlobError> {
            Ok(PresignedPut {
                url: format!("/blobs/{key}"),
                headers: Vec::new(),
            })
        }
    }

    const SIZE: usize = 4 * 1024 * 1024;

    fn caller() -> Caller {
        Caller {
            account_id: "acct_0123456789abcdef01234567".parse().unwrap(),
            plan: Plan::Pro,
            mode: Mode::Live,
            key_id: "key_1".into(),
        }
    }

    /// Three uploads of `SIZE` bytes declared as XML (that are not: they
    /// are rejected once read, and nothing of them is kept), the second one
    /// never sent when `second_sent` is false; and the request naming them.
    async fn three_uploads(
        second_sent: bool,
    ) -> (Ports, Arc<MemoryBlobs>, ExtractRequest, tempfile::TempDir) {
        let (ports, dir) = test_ports();
        let blobs = Arc::new(MemoryBlobs::default());
        let ports = ports.with_blobs(blobs.clone());
        let mut files = Vec::new();
        for i in 0..3 {
            let new = NewUpload {
                name: format!("{i}.xml"),
                mime: "application/xml".into(),
                size: SIZE as u64,
            };
            let (resource, write) = uploads::create(&ports, &caller(), new).await.unwrap();
            ports.table.transact(vec![write]).await.unwrap();
            let upload = uploads::find(&ports, &caller(), &resource.id, "id")
                .await
                .unwrap();
            if i != 1 || second_sent {
                blobs
                    .put(&upload.blob_key(), vec![b'x'; SIZE])
                    .await
                    .unwrap();
            }
            files.push(FileInput {
                name: format!("{i}.xml"),
                mime: None,
                data: None,
                upload_id: Some(resource.id),
                uploaded: None,
            });
        }
        let request = ExtractRequest {
            files,
            texts: Vec::new(),
        };
        (ports, blobs, request, dir)
    }

    #[tokio::test]
    async fn uploads_are_read_and_prepared_one_at_a_time() {
        let (ports, blobs, mut request, _dir) = three_uploads(true).await;
        let found = uploaded::find(&ports, &caller(), &mut request)
            .await
            .unwrap();
        assert_eq!(found.total(), 3 * SIZE as u64);
        assert_eq!(
            blobs.reads.load(Ordering::SeqCst),
            0,
            "finding reads nothing"
        );
        let (prepared, held) = held_at_most(prepare(&ports, &found, request)).await;
        let prepared = prepared.unwrap();
        assert_eq!(blobs.reads.load(Ordering::SeqCst), 3);
        let codes: Vec<_> = prepared
            .items
            .iter()
            .map(|i| match &i.work {
                Work::Failed(e) => e.code,
                _ => "read",
            })
            .collect();
        assert_eq!(codes, ["file_unreadable"; 3]);
        // Reading them all before preparing any would hold three.
        assert!(
            (SIZE..2 * SIZE).contains(&held),
            "held {held} bytes at once for uploads of {SIZE}"
        );
    }

    #[tokio::test]
    async fn a_job_bound_request_reads_its_xml_uploads_only_to_check_them() {
        let (ports, blobs, mut request, _dir) = three_uploads(true).await;
        let found = uploaded::find(&ports, &caller(), &mut request)
            .await
            .unwrap();
        let (charged, held) = held_at_most(chargeable(&ports, &found, request)).await;
        assert!(!charged.unwrap(), "XML never costs a unit");
        assert_eq!(blobs.reads.load(Ordering::SeqCst), 3);
        assert!(
            held < 2 * SIZE,
            "held {held} bytes at once for uploads of {SIZE}"
        );
    }

    #[tokio::test]
    async fn an_upload_never_sent_fails_the_request_with_its_param() {
        for job_bound in [false, true] {
            let (ports, _blobs, mut request, _dir) = three_uploads(false).await;
            let found = uploaded::find(&ports, &caller(), &mut request)
                .await
                .unwrap();
            let failed = if job_bound {
                chargeable(&ports, &found, request).await.map(|_| ())
            } else {
                prepare(&ports, &found, request).await.map(|_| ())
            };
            match failed {
                Err(UploadError::Missing { param, .. }) => {
                    assert_eq!(param, "files[1].upload_id")
                }
                other => panic!("{other:?}"),
            }
        }
    }
}
