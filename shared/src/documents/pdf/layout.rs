//! The invoice laid out on A4 pages: the VERI*FACTU QR and the document data
//! at the top of the first page, the parties, the rectified invoice, the
//! lines (the table header repeated on every page they run onto), the VAT
//! breakdown with the totals, the legal mentions, and on every page a footer
//! with "Página n de m" and, when they apply, the TEST and ANULADA marks.

use rust_decimal::Decimal;

use crate::invoice::line::Treatment;
use crate::invoice::model::{GroupView, Invoice, LineView};
use crate::invoice::party::Party;
use crate::invoice::status::Status;

use super::canvas::{Face, MM_PER_PT, PAGE_HEIGHT, PAGE_WIDTH, Page, Rgb, Style};
use super::{format, qr};

const LEFT: f32 = 15.0;
const RIGHT: f32 = 195.0;
const TOP: f32 = 14.0;
/// Content ends here; the footer sits below.
const BOTTOM: f32 = 277.0;
const FOOTER: f32 = 284.0;
const QR_SIZE: f32 = 32.0;
/// Width of the document title and data at the top right.
const DATA_WIDTH: f32 = 80.0;
const PAD: f32 = 3.0;
const GAP: f32 = 6.0;

const INK: Rgb = Rgb::hex(0x1F2933);
const MUTED: Rgb = Rgb::hex(0x5F6B7A);
const ACCENT: Rgb = Rgb::hex(0x1F4E79);
const SHADE: Rgb = Rgb::hex(0xEEF2F7);
const RULE: Rgb = Rgb::hex(0xD3DAE3);
const WHITE: Rgb = Rgb::hex(0xFFFFFF);
const RED: Rgb = Rgb::hex(0xC62828);
const AMBER: Rgb = Rgb::hex(0xD99A1E);
const AMBER_SHADE: Rgb = Rgb::hex(0xFFF5E1);

const BODY: Style = Style::new(Face::Regular, 9.0, INK);
const SMALL: Style = Style::new(Face::Regular, 7.5, MUTED);
const HEADING: Style = Style::new(Face::Bold, 7.5, MUTED);
const CELL: Style = Style::new(Face::Regular, 8.5, INK);
const CELL_HEAD: Style = Style::new(Face::Bold, 8.0, WHITE);

pub fn pages(invoice: &Invoice) -> Vec<Page> {
    let mut flow = Flow::new(invoice);
    flow.y = header(flow.page(), invoice);
    parties(&mut flow);
    rectification(&mut flow);
    lines(&mut flow);
    summary(&mut flow);
    mentions(&mut flow);
    let mut pages = flow.pages;
    let count = pages.len();
    for (index, page) in pages.iter_mut().enumerate() {
        footer(page, invoice, index + 1, count);
    }
    pages
}

/// Fills pages top to bottom, starting a new one when the next piece does not fit.
struct Flow<'a> {
    invoice: &'a Invoice,
    pages: Vec<Page>,
    /// Where the next piece goes, in mm from the top of the current page.
    y: f32,
}

impl<'a> Flow<'a> {
    fn new(invoice: &'a Invoice) -> Flow<'a> {
        Flow {
            invoice,
            pages: vec![blank(invoice)],
            y: TOP,
        }
    }

    fn page(&mut self) -> &mut Page {
        self.pages.last_mut().expect("a flow always has a page")
    }

    /// Moves to a new page unless `height` more fits on this one; true if it moved.
    fn room(&mut self, height: f32) -> bool {
        if self.y + height <= BOTTOM {
            return false;
        }
        self.pages.push(blank(self.invoice));
        let invoice = self.invoice;
        self.y = continuation(self.page(), invoice);
        true
    }
}

/// A page with the watermark the invoice needs, if any.
fn blank(invoice: &Invoice) -> Page {
    let mut page = Page::default();
    let cancelled = invoice.status == Status::Cancelled;
    let marks: Vec<&str> = [(cancelled, "ANULADA"), (!invoice.livemode, "TEST")]
        .into_iter()
        .filter_map(|(applies, mark)| applies.then_some(mark))
        .collect();
    if marks.is_empty() {
        return page;
    }
    let text = marks.join(" · ");
    let tint = if cancelled {
        Rgb::hex(0xF6D3D3)
    } else {
        Rgb::hex(0xF7E1BA)
    };
    let style = Style::new(Face::Bold, 100.0, tint);
    let style = style.fit(&text, 220.0);
    let angle: f32 = 35.0;
    let (sin, cos) = angle.to_radians().sin_cos();
    let half = style.width(&text) / 2.0;
    // Half the cap height, so the text's middle (not its baseline) crosses the centre.
    let lift = style.size * 0.36 * MM_PER_PT;
    // The trailing space ends the rotated word for text extractors, which
    // would otherwise drop the next upright word along with it (poppler's -nodiag).
    page.rotated(
        PAGE_WIDTH / 2.0 - half * cos + lift * sin,
        PAGE_HEIGHT / 2.0 + half * sin + lift * cos,
        angle,
        style,
        &format!("{text} "),
    );
    page
}

fn header(page: &mut Page, invoice: &Invoice) -> f32 {
    let qr_bottom = verifactu(page, &invoice.verifactu.qr_url);
    let data_bottom = document_data(page, invoice);
    qr_bottom.max(data_bottom) + GAP
}

/// The QR with its label and legend, top left, clear of other marks by 4 mm or more.
fn verifactu(page: &mut Page, url: &str) -> f32 {
    page.text(LEFT, TOP, BODY.colored(MUTED), "QR tributario:");
    let top = TOP + 4.5;
    page.squares(qr::squares(url, LEFT, top, QR_SIZE));
    let x = LEFT + QR_SIZE + 7.0;
    page.text(
        x,
        top + 8.0,
        Style::new(Face::Bold, 13.0, ACCENT),
        "VERI*FACTU",
    );
    let legend = BODY.wrap(
        "Factura verificable en la sede electrónica de la AEAT",
        RIGHT - DATA_WIDTH - x - 4.0,
    );
    page.paragraph(x, top + 14.0, BODY, &legend);
    top + QR_SIZE
}

/// Title, number and dates at the top right, then the ANULADA / TEST stamps.
fn document_data(page: &mut Page, invoice: &Invoice) -> f32 {
    let title = format::title(invoice.kind, invoice.is_simplified());
    let style = Style::new(Face::Bold, 16.0, ACCENT);
    let style = style.fit(title, DATA_WIDTH);
    page.text_right(RIGHT, TOP + 4.0, style, title);
    let mut y = TOP + 12.0;
    for (label, value) in facts(invoice) {
        y = fact(page, y, label, &value);
    }
    for stamp in stamps(invoice) {
        let style = Style::new(Face::Bold, 10.0, RED);
        let width = style.width(stamp) + 2.0 * PAD;
        page.frame(RIGHT - width, y - 1.5, width, 7.5, RED, 1.5);
        page.text_right(RIGHT - PAD, y + 3.8, style, stamp);
        y += 9.5;
    }
    y
}

/// A label with its value at the right, or below it when too long to share
/// the line; returns the next baseline.
fn fact(page: &mut Page, y: f32, label: &str, value: &str) -> f32 {
    page.text(RIGHT - DATA_WIDTH, y, BODY.colored(MUTED), label);
    let style = BODY.bold();
    if style.width(value) <= DATA_WIDTH - BODY.width(label) - GAP {
        page.text_right(RIGHT, y, style, value);
        return y + 5.0;
    }
    let mut y = y;
    for line in style.wrap(value, DATA_WIDTH) {
        y += style.leading();
        page.text_right(RIGHT, y, style, &line);
    }
    y + 5.0
}

fn facts(invoice: &Invoice) -> Vec<(&'static str, String)> {
    let mut facts = vec![
        ("Serie y número", invoice.number.clone()),
        ("Fecha de expedición", format::date(invoice.issue_date)),
    ];
    if let Some(d) = invoice.operation_date {
        facts.push(("Fecha de operación", format::date(d)));
    }
    if let Some(d) = invoice.due_date {
        facts.push(("Vencimiento", format::date(d)));
    }
    facts
}

fn stamps(invoice: &Invoice) -> Vec<&'static str> {
    let mut stamps = Vec::new();
    if invoice.status == Status::Cancelled {
        stamps.push("FACTURA ANULADA");
    }
    if !invoice.livemode {
        stamps.push("TEST · SIN VALIDEZ FISCAL");
    }
    stamps
}

/// The running head of the pages after the first.
fn continuation(page: &mut Page, invoice: &Invoice) -> f32 {
    let right = format!("Factura {} · continuación", invoice.number);
    let name = BODY.bold().wrap(
        &invoice.issuer.name,
        RIGHT - LEFT - BODY.width(&right) - GAP,
    );
    page.text(
        LEFT,
        TOP,
        BODY.bold(),
        name.first().map_or("", String::as_str),
    );
    page.text_right(RIGHT, TOP, BODY.colored(MUTED), &right);
    page.rule(LEFT, RIGHT, TOP + 3.0, RULE, 0.6);
    TOP + 8.0
}

fn footer(page: &mut Page, invoice: &Invoice, number: usize, count: usize) {
    let issuer = &invoice.issuer;
    let pages = format!("Página {number} de {count}");
    let left = format!(
        "Factura {} · NIF {} · {}",
        invoice.number, issuer.tax_id, issuer.name
    );
    let left = SMALL.wrap(&left, RIGHT - LEFT - SMALL.width(&pages) - GAP);
    page.rule(LEFT, RIGHT, FOOTER, RULE, 0.6);
    page.text(
        LEFT,
        FOOTER + 4.5,
        SMALL,
        left.first().map_or("", String::as_str),
    );
    page.text_right(RIGHT, FOOTER + 4.5, SMALL, &pages);
}

/// Lines of text in a shaded box with a coloured bar on its left.
struct Block {
    lines: Vec<(Style, String)>,
}

impl Block {
    fn new(heading: &str, lines: Vec<(Style, String)>) -> Block {
        let mut all = vec![(HEADING, heading.to_string())];
        all.extend(lines);
        Block { lines: all }
    }

    fn wrapped(&self, width: f32) -> Vec<(Style, String)> {
        self.lines
            .iter()
            .flat_map(|(style, text)| {
                style
                    .wrap(text, width - 2.0 * PAD - 1.0)
                    .into_iter()
                    .map(|line| (*style, line))
            })
            .collect()
    }

    fn height(&self, width: f32) -> f32 {
        let text: f32 = self.wrapped(width).iter().map(|(s, _)| s.leading()).sum();
        text + 2.0 * PAD
    }

    fn draw(&self, page: &mut Page, x: f32, y: f32, (w, h): (f32, f32), (shade, bar): (Rgb, Rgb)) {
        page.fill(x, y, w, h, shade);
        page.fill(x, y, 1.0, h, bar);
        let mut top = y + PAD;
        for (style, line) in self.wrapped(w) {
            page.text(x + PAD + 1.0, top + 0.78 * style.leading(), style, &line);
            top += style.leading();
        }
    }
}

fn parties(flow: &mut Flow) {
    let invoice = flow.invoice;
    let mut blocks = vec![Block::new("EMISOR", issuer_lines(invoice))];
    if let Some(customer) = &invoice.customer {
        blocks.push(Block::new("CLIENTE", customer_lines(customer)));
    }
    let width = (RIGHT - LEFT - GAP) / 2.0;
    let height = blocks.iter().map(|b| b.height(width)).fold(0.0, f32::max);
    let y = flow.y;
    for (i, block) in blocks.iter().enumerate() {
        let x = LEFT + i as f32 * (width + GAP);
        block.draw(flow.page(), x, y, (width, height), (SHADE, ACCENT));
    }
    flow.y += height + GAP;
}

fn name(text: &str) -> (Style, String) {
    (BODY.bold().sized(10.0), text.to_string())
}

fn body(text: String) -> (Style, String) {
    (BODY, text)
}

/// "28013 Madrid (Madrid)", leaving out what is missing.
fn place(postal_code: Option<&str>, city: Option<&str>, province: Option<&str>) -> String {
    let province = province
        .filter(|p| Some(*p) != city)
        .map(|p| format!("({p})"));
    [postal_code, city, province.as_deref()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ")
}

fn issuer_lines(invoice: &Invoice) -> Vec<(Style, String)> {
    let issuer = &invoice.issuer;
    let mut lines = vec![
        name(&issuer.name),
        body(format!("NIF: {}", issuer.tax_id)),
        body(issuer.address.clone()),
        body(place(
            Some(&issuer.postal_code),
            Some(&issuer.city),
            issuer.province.as_deref(),
        )),
    ];
    lines.extend(format::country(&issuer.country).map(|c| body(c.to_string())));
    lines
}

fn customer_lines(customer: &crate::invoice::party::Party) -> Vec<(Style, String)> {
    let id_label = if customer.country == "ES" {
        "NIF"
    } else {
        "Id. fiscal"
    };
    let mut lines = vec![name(&customer.name)];
    lines.extend(
        customer
            .tax_id
            .as_ref()
            .map(|id| body(format!("{id_label}: {id}"))),
    );
    lines.extend(customer.address.clone().map(body));
    let place = place(
        customer.postal_code.as_deref(),
        customer.city.as_deref(),
        None,
    );
    lines.extend((!place.is_empty()).then(|| body(place)));
    lines.extend(format::country(&customer.country).map(|c| body(c.to_string())));
    lines.extend(customer.email.clone().map(body));
    lines
}

/// What a substitution changes, as art. 15.5 RD 1619/2012 lets an invoice
/// state it: the amount of the rectification (base, tax and surcharge),
/// besides the correct and the rectified amounts. Worded as a rise or a
/// fall in one sum, so that no figure reads as one of the invoice's own.
fn substitution_change(invoice: &Invoice, r: &crate::invoice::model::Rectifies) -> String {
    let new = (invoice.base + invoice.vat_amount + invoice.surcharge_amount).value();
    let old = (r.rectified_base + r.rectified_vat + r.rectified_surcharge).value();
    let way = if new < old { "menos" } else { "más" };
    format!(
        "Importe de la rectificación: {} {way} que la factura rectificada",
        format::amount((new - old).abs())
    )
}

fn rectification(flow: &mut Flow) {
    let Some(r) = &flow.invoice.rectifies else {
        return;
    };
    let mut lines = vec![
        (
            BODY.bold(),
            format!(
                "Rectifica la factura {} de {}",
                r.number,
                format::date(r.issue_date)
            ),
        ),
        body(format!(
            "Rectificación {} · causa {}: {}",
            format::rectification_method(&r.method),
            r.reason_code,
            format::rectification_reason(r.reason_code)
        )),
        body(format!("Motivo: {}", r.description)),
    ];
    if r.method == "substitution" {
        let mut amounts = format!(
            "Importes de la factura rectificada: base imponible {}, cuota de {} {}",
            format::amount(r.rectified_base.value()),
            flow.invoice.tax.label(),
            format::amount(r.rectified_vat.value())
        );
        if !r.rectified_surcharge.is_zero() {
            amounts += &format!(
                ", recargo de equivalencia {}",
                format::amount(r.rectified_surcharge.value())
            );
        }
        lines.push(body(amounts));
        lines.push(body(substitution_change(flow.invoice, r)));
    }
    let block = Block::new("FACTURA RECTIFICADA", lines);
    let width = RIGHT - LEFT;
    let height = block.height(width);
    let y = flow.y;
    block.draw(flow.page(), LEFT, y, (width, height), (AMBER_SHADE, AMBER));
    flow.y += height + GAP;
}

const DESCRIPTION_X: f32 = LEFT + 2.0;
const DESCRIPTION_WIDTH: f32 = 80.0;
/// The numeric columns of the lines table, by title and right edge.
const COLUMNS: [(&str, f32); 5] = [
    ("Cantidad", 112.0),
    ("Precio unit.", 136.0),
    ("Dto.", 148.0),
    ("IVA", 166.0),
    ("Importe", RIGHT - 2.0),
];
const HEAD_HEIGHT: f32 = 7.0;
/// Space above the first and below the last line of a cell.
const CELL_PAD: f32 = 1.3;

struct Row {
    description: Vec<String>,
    cells: [Vec<String>; 5],
}

impl Row {
    fn new(line: &LineView) -> Row {
        let mut tax = vec![vat_rate(line.vat_rate.value(), line.exemption.as_deref())];
        if !line.surcharge_rate.is_zero() {
            tax.push(format!(
                "RE {}",
                format::percent(line.surcharge_rate.value())
            ));
        }
        let discount = if line.discount_percent.is_zero() {
            String::new()
        } else {
            format::percent(line.discount_percent.value())
        };
        Row {
            description: CELL.wrap(&line.description, DESCRIPTION_WIDTH),
            cells: [
                vec![format::number(line.quantity)],
                vec![format::price(line.unit_price.value())],
                vec![discount],
                tax,
                vec![format::amount(line.base.value())],
            ],
        }
    }

    fn height(&self) -> f32 {
        let lines = self
            .cells
            .iter()
            .map(Vec::len)
            .chain([self.description.len()])
            .max()
            .unwrap_or(1);
        lines as f32 * CELL.leading() + 2.0 * CELL_PAD
    }
}

/// "21 %", or "0 % (E1)" with the exemption or reverse-charge code.
fn vat_rate(rate: Decimal, exemption: Option<&str>) -> String {
    match exemption {
        Some(code) => format!("{} ({code})", format::percent(rate)),
        None => format::percent(rate),
    }
}

fn lines(flow: &mut Flow) {
    let rows: Vec<Row> = flow.invoice.lines.iter().map(Row::new).collect();
    flow.room(HEAD_HEIGHT + rows.first().map_or(0.0, Row::height));
    table_head(flow);
    for row in &rows {
        if flow.room(row.height()) {
            table_head(flow);
        }
        draw_row(flow, row);
    }
}

fn table_head(flow: &mut Flow) {
    let y = flow.y;
    let tax = flow.invoice.tax.label();
    let page = flow.page();
    page.fill(LEFT, y, RIGHT - LEFT, HEAD_HEIGHT, ACCENT);
    let baseline = y + 4.6;
    page.text(DESCRIPTION_X, baseline, CELL_HEAD, "Descripción");
    for (title, right) in COLUMNS {
        let title = if title == "IVA" { tax } else { title };
        page.text_right(right, baseline, CELL_HEAD, title);
    }
    flow.y += HEAD_HEIGHT;
}

/// Where the room for a numeric column's values begins.
fn column_left(column: usize) -> f32 {
    let previous = match column {
        0 => DESCRIPTION_X + DESCRIPTION_WIDTH,
        _ => COLUMNS[column - 1].1,
    };
    previous + 2.0
}

fn draw_row(flow: &mut Flow, row: &Row) {
    let y = flow.y;
    let height = row.height();
    let baseline = y + CELL_PAD + 0.78 * CELL.leading();
    let page = flow.page();
    page.paragraph(DESCRIPTION_X, baseline, CELL, &row.description);
    for (column, cell) in row.cells.iter().enumerate() {
        let (_, right) = COLUMNS[column];
        let width = right - column_left(column);
        for (i, text) in cell.iter().enumerate() {
            let style = CELL.fit(text, width);
            page.text_right(right, baseline + i as f32 * CELL.leading(), style, text);
        }
    }
    page.rule(LEFT, RIGHT, y + height, RULE, 0.5);
    flow.y += height;
}

const BREAKDOWN_WIDTH: f32 = 104.0;
/// The breakdown's first column, wider for "Base imponible".
const BASE_COLUMN: f32 = 28.0;
const TOTALS_X: f32 = 126.0;
const SUMMARY_ROW: f32 = 5.5;
const TOTAL_BAND: f32 = 9.0;

/// The VAT breakdown at the left and the totals at the right, kept together.
fn summary(flow: &mut Flow) {
    let invoice = flow.invoice;
    let (titles, rows) = breakdown(invoice);
    let totals = totals(invoice);
    let breakdown_height = (rows.len() + 2) as f32 * SUMMARY_ROW;
    let totals_height = (totals.len() - 1) as f32 * SUMMARY_ROW + TOTAL_BAND;
    flow.y += GAP;
    flow.room(breakdown_height.max(totals_height));
    let y = flow.y;
    breakdown_table(flow.page(), y, &titles, &rows);
    totals_table(flow.page(), y, &totals);
    flow.y += breakdown_height.max(totals_height);
}

fn breakdown(invoice: &Invoice) -> (Vec<String>, Vec<Vec<String>>) {
    let surcharge = invoice
        .breakdown
        .iter()
        .any(|g| !g.surcharge_rate.is_zero());
    let tax = invoice.tax.label();
    let mut titles = vec![
        "Base imponible".to_string(),
        format!("Tipo {tax}"),
        format!("Cuota {tax}"),
    ];
    if surcharge {
        titles.extend(["Tipo RE".to_string(), "Cuota RE".to_string()]);
    }
    let rows = invoice
        .breakdown
        .iter()
        .map(|g| breakdown_row(g, surcharge))
        .collect();
    (titles, rows)
}

fn breakdown_row(group: &GroupView, surcharge: bool) -> Vec<String> {
    let mut row = vec![
        format::amount(group.base.value()),
        vat_rate(group.vat_rate.value(), group.exemption.as_deref()),
        format::amount(group.vat_amount.value()),
    ];
    if surcharge {
        row.extend([
            format::percent(group.surcharge_rate.value()),
            format::amount(group.surcharge_amount.value()),
        ]);
    }
    row
}

fn breakdown_table(page: &mut Page, y: f32, titles: &[String], rows: &[Vec<String>]) {
    page.text(LEFT, y + 3.5, HEADING, "DESGLOSE POR TIPO IMPOSITIVO");
    let column = (BREAKDOWN_WIDTH - BASE_COLUMN) / (titles.len() - 1) as f32;
    let right = |i: usize| LEFT + BASE_COLUMN + i as f32 * column - 2.0;
    let head = y + SUMMARY_ROW;
    page.fill(LEFT, head, BREAKDOWN_WIDTH, SUMMARY_ROW, SHADE);
    for (i, title) in titles.iter().enumerate() {
        page.text_right(right(i), head + 3.8, HEADING.colored(INK), title);
    }
    for (r, row) in rows.iter().enumerate() {
        let top = head + (r + 1) as f32 * SUMMARY_ROW;
        for (i, text) in row.iter().enumerate() {
            let width = if i == 0 { BASE_COLUMN } else { column } - 3.0;
            page.text_right(right(i), top + 3.8, CELL.fit(text, width), text);
        }
        page.rule(LEFT, LEFT + BREAKDOWN_WIDTH, top + SUMMARY_ROW, RULE, 0.5);
    }
}

/// Label and amount rows; the last one is the amount due.
fn totals(invoice: &Invoice) -> Vec<(String, String)> {
    let mut rows = vec![
        (
            "Base imponible".to_string(),
            format::amount(invoice.base.value()),
        ),
        (
            format!("Cuota de {}", invoice.tax.label()),
            format::amount(invoice.vat_amount.value()),
        ),
    ];
    if invoice
        .breakdown
        .iter()
        .any(|g| !g.surcharge_rate.is_zero())
    {
        rows.push((
            "Recargo de equivalencia".to_string(),
            format::amount(invoice.surcharge_amount.value()),
        ));
    }
    if invoice.irpf_rate.is_zero() {
        rows.push((
            "Total factura".to_string(),
            format::amount(invoice.total.value()),
        ));
        return rows;
    }
    let gross = invoice.base + invoice.vat_amount + invoice.surcharge_amount;
    rows.push(("Total factura".to_string(), format::amount(gross.value())));
    rows.push((
        format!(
            "Retención IRPF ({})",
            format::percent(invoice.irpf_rate.value())
        ),
        format::amount((-invoice.irpf_amount).value()),
    ));
    rows.push((
        "Total a pagar".to_string(),
        format::amount(invoice.total.value()),
    ));
    rows
}

fn totals_table(page: &mut Page, y: f32, rows: &[(String, String)]) {
    let Some(((due_label, due), others)) = rows.split_last() else {
        return;
    };
    let mut top = y;
    let room = |style: Style, label: &str| RIGHT - TOTALS_X - 4.0 - style.width(label) - GAP;
    for (label, value) in others {
        let label_style = BODY.colored(MUTED);
        page.text(TOTALS_X + 2.0, top + 3.8, label_style, label);
        let style = BODY.fit(value, room(label_style, label));
        page.text_right(RIGHT - 2.0, top + 3.8, style, value);
        page.rule(TOTALS_X, RIGHT, top + SUMMARY_ROW, RULE, 0.5);
        top += SUMMARY_ROW;
    }
    let style = Style::new(Face::Bold, 11.0, WHITE);
    page.fill(
        TOTALS_X,
        top + 1.0,
        RIGHT - TOTALS_X,
        TOTAL_BAND - 1.0,
        ACCENT,
    );
    let due_label = due_label.to_uppercase();
    page.text(TOTALS_X + 2.0, top + 6.8, style, &due_label);
    let due_style = style.fit(due, room(style, &due_label));
    page.text_right(RIGHT - 2.0, top + 6.8, due_style, due);
}

fn mentions(flow: &mut Flow) {
    let paragraphs = mention_texts(flow.invoice);
    if paragraphs.is_empty() {
        return;
    }
    flow.y += GAP;
    flow.room(HEADING.leading() + BODY.leading());
    let y = flow.y;
    flow.page().text(
        LEFT,
        y + 0.78 * HEADING.leading(),
        HEADING,
        "MENCIONES Y CONDICIONES",
    );
    flow.y += HEADING.leading() + 1.0;
    for paragraph in paragraphs {
        for line in BODY.wrap(&paragraph, RIGHT - LEFT) {
            flow.room(BODY.leading());
            let y = flow.y;
            flow.page()
                .text(LEFT, y + 0.78 * BODY.leading(), BODY, &line);
            flow.y += BODY.leading();
        }
        flow.y += 1.0;
    }
}

fn mention_texts(invoice: &Invoice) -> Vec<String> {
    let mut texts = exemption_wordings(&invoice.lines, invoice.customer.as_ref());
    let mut payment: Vec<String> = Vec::new();
    if let Some(p) = &invoice.payment {
        payment.push(format!(
            "Forma de pago: {}",
            format::payment_method(&p.method)
        ));
        payment.extend(
            p.iban
                .as_deref()
                .map(|iban| format!("IBAN: {}", format::iban(iban))),
        );
    }
    if invoice.instalments.len() > 1 {
        let each: Vec<String> = invoice
            .instalments
            .iter()
            .map(|i| {
                format!(
                    "{}: {}",
                    format::date(i.date),
                    format::amount(i.amount.value())
                )
            })
            .collect();
        payment.push(format!("Vencimientos: {}", each.join("; ")));
    } else if let Some(due) = invoice.due_date {
        payment.push(format!("Vencimiento: {}", format::date(due)));
    }
    if !payment.is_empty() {
        texts.push(payment.join(" · "));
    }
    texts.extend(crate::documents::replacement_note(invoice));
    texts.extend(crate::documents::cash_accounting_note(invoice).map(|m| format!("{m}.")));
    if invoice.prices_include_vat {
        texts.push(
            format!(
                "Precios de venta con {tax} incluido; los precios unitarios e importes de arriba son sin {tax}.",
                tax = invoice.tax.label()
            ),
        );
    }
    let motive = invoice.rectifies.as_ref().map(|r| r.description.as_str());
    let notes = invoice.notes.as_deref().map(str::trim);
    if let Some(notes) = notes.filter(|n| !n.is_empty() && Some(*n) != motive) {
        texts.push(format!("Observaciones: {notes}"));
    }
    texts
}

/// The wording each exemption or reverse-charge code requires, once per code.
fn exemption_wordings(lines: &[LineView], customer: Option<&Party>) -> Vec<String> {
    let mut codes: Vec<&str> = Vec::new();
    for code in lines.iter().filter_map(|l| l.exemption.as_deref()) {
        if !codes.contains(&code) {
            codes.push(code);
        }
    }
    codes
        .into_iter()
        .filter_map(|code| {
            let wording = Treatment::parse_exemption(code).and_then(|t| t.wording_to(customer))?;
            Some(format!("{code}: {wording}."))
        })
        .collect()
}
