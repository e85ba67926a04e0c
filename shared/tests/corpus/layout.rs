//! Where an invoice's values go on an A4 page, in five layouts: a classic
//! two-column header with the customer boxed on the right, issuer on top and
//! customer below, a per-rate breakdown table, a compact ticket, and a
//! registry footer that carries the issuer's NIF. Positions are millimetres
//! from the top-left corner; `y` is the text baseline.

use rust_decimal::Decimal;

use super::invoice::{Invoice, Party};
use super::style::{Family, Style};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    Classic,
    Stacked,
    Breakdown,
    Ticket,
    RegistryFooter,
}

pub const LAYOUTS: [Layout; 5] = [
    Layout::Classic,
    Layout::Stacked,
    Layout::Breakdown,
    Layout::Ticket,
    Layout::RegistryFooter,
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Text {
        x: f32,
        y: f32,
        size: f32,
        bold: bool,
        align: Align,
        text: String,
    },
    /// A stroked rectangle: top-left corner, width and height.
    Frame {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
    },
    Rule {
        x1: f32,
        x2: f32,
        y: f32,
    },
}

pub struct Page {
    pub family: Family,
    pub items: Vec<Item>,
}

/// Width of `text` in millimetres, from the standard fonts' advance widths of
/// digits and separators (the right-aligned columns) and an average elsewhere.
pub fn text_width(family: Family, size: f32, text: &str) -> f32 {
    let em: f32 = text
        .chars()
        .map(|c| match (family, c) {
            (Family::Courier, _) => 0.6,
            (Family::Helvetica, '0'..='9' | '€') => 0.556,
            (Family::Helvetica, '.' | ',' | ' ') => 0.278,
            (Family::Times, '0'..='9' | '€') => 0.5,
            (Family::Times, '.' | ',' | ' ') => 0.25,
            (_, '%') => 0.889,
            (_, '-') => 0.333,
            (_, c) if c.is_uppercase() => 0.7,
            _ => 0.5,
        })
        .sum();
    em * size * 25.4 / 72.0
}

struct Builder<'a> {
    style: &'a Style,
    items: Vec<Item>,
}

impl Builder<'_> {
    fn text(&mut self, x: f32, y: f32, size: f32, text: impl Into<String>) {
        self.push(x, y, size, false, Align::Left, text.into());
    }

    fn bold(&mut self, x: f32, y: f32, size: f32, text: impl Into<String>) {
        self.push(x, y, size, true, Align::Left, text.into());
    }

    fn right(&mut self, x: f32, y: f32, size: f32, text: impl Into<String>) {
        self.push(x, y, size, false, Align::Right, text.into());
    }

    fn push(&mut self, x: f32, y: f32, size: f32, bold: bool, align: Align, text: String) {
        self.items.push(Item::Text {
            x,
            y,
            size,
            bold,
            align,
            text,
        });
    }

    fn frame(&mut self, x: f32, y: f32, w: f32, h: f32) {
        self.items.push(Item::Frame { x, y, w, h });
    }

    fn rule(&mut self, x1: f32, x2: f32, y: f32) {
        self.items.push(Item::Rule { x1, x2, y });
    }

    fn amount(&self, x: Decimal) -> String {
        self.style.amount(x)
    }

    /// "NIF: B12345674"; a person's id is never labelled CIF.
    fn tax_id(&self, party: &Party) -> String {
        let label = match self.style.labels.tax_id {
            "CIF:" if !party.company => "NIF:",
            label => label,
        };
        format!("{label} {}", self.style.nif(&party.nif))
    }

    /// Name, NIF and address from the baseline `y` down.
    fn party(&mut self, x: f32, y: f32, party: &Party) {
        self.bold(x, y, 10.0, party.name.clone());
        self.text(x, y + 5.0, 9.0, self.tax_id(party));
        self.text(x, y + 9.5, 9.0, party.street.clone());
        self.text(x, y + 14.0, 9.0, party.city.clone());
    }

    fn number_and_date(&mut self, x: f32, y: f32, invoice: &Invoice) {
        let labels = &self.style.labels;
        let (number, date) = (labels.number, labels.date);
        self.text(x, y, 9.5, format!("{number} {}", invoice.number));
        self.text(
            x,
            y + 5.0,
            9.5,
            format!("{date} {}", self.style.date(invoice.date)),
        );
    }

    /// The lines table from `y`; returns the baseline after it.
    fn lines(&mut self, mut y: f32, invoice: &Invoice) -> f32 {
        self.bold(20.0, y, 9.0, "Descripción");
        self.push(122.0, y, 9.0, true, Align::Right, "Cant.".into());
        self.push(150.0, y, 9.0, true, Align::Right, "Precio".into());
        self.push(166.0, y, 9.0, true, Align::Right, "IVA".into());
        self.push(190.0, y, 9.0, true, Align::Right, "Importe".into());
        self.rule(20.0, 190.0, y + 1.5);
        y += 6.0;
        for line in &invoice.lines {
            self.text(20.0, y, 9.0, line.description.clone());
            self.right(122.0, y, 9.0, self.style.number(line.quantity));
            self.right(150.0, y, 9.0, self.style.number(line.unit_price));
            self.right(166.0, y, 9.0, self.style.rate(line.vat_rate));
            self.right(190.0, y, 9.0, self.amount(line.amount));
            y += 5.0;
        }
        self.rule(20.0, 190.0, y - 3.0);
        y + 4.0
    }

    /// Label-value rows, labels at `x`, values right-aligned at 190 mm.
    fn totals(&mut self, x: f32, mut y: f32, invoice: &Invoice) {
        let style = self.style;
        let labels = &style.labels;
        self.text(x, y, 9.5, labels.base);
        self.right(190.0, y, 9.5, self.amount(invoice.base));
        y += 5.0;
        for group in &invoice.groups {
            self.text(x, y, 9.5, style.with_rate(labels.vat, group.rate));
            self.right(190.0, y, 9.5, self.amount(group.vat_amount));
            y += 5.0;
            if let Some(rate) = group.surcharge_rate {
                self.text(x, y, 9.5, style.with_rate(labels.surcharge, rate));
                self.right(190.0, y, 9.5, self.amount(group.surcharge_amount));
                y += 5.0;
            }
        }
        y = self.irpf(x, y, invoice);
        self.bold(x, y + 1.0, 11.0, labels.total);
        self.push(
            190.0,
            y + 1.0,
            11.0,
            true,
            Align::Right,
            self.amount(invoice.total),
        );
    }

    fn irpf(&mut self, x: f32, y: f32, invoice: &Invoice) -> f32 {
        match invoice.irpf_rate {
            Some(rate) => {
                let label = self.style.with_rate(self.style.labels.irpf, rate);
                self.text(x, y, 9.5, label);
                self.right(190.0, y, 9.5, self.amount(-invoice.irpf_amount));
                y + 5.0
            }
            None => y,
        }
    }

    fn footer_note(&mut self, invoice: &Invoice) {
        self.text(
            20.0,
            275.0,
            7.5,
            format!(
                "Forma de pago: transferencia a 30 días desde {}",
                self.style.date(invoice.date)
            ),
        );
    }
}

pub fn page(layout: Layout, invoice: &Invoice, style: &Style) -> Page {
    let family = if layout == Layout::Ticket {
        Family::Courier
    } else {
        style.family
    };
    let mut b = Builder {
        style,
        items: Vec::new(),
    };
    match layout {
        Layout::Classic => classic(&mut b, invoice),
        Layout::Stacked => stacked(&mut b, invoice),
        Layout::Breakdown => breakdown(&mut b, invoice),
        Layout::Ticket => ticket(&mut b, invoice),
        Layout::RegistryFooter => registry_footer(&mut b, invoice),
    }
    Page {
        family,
        items: b.items,
    }
}

fn classic(b: &mut Builder, invoice: &Invoice) {
    b.party(20.0, 25.0, &invoice.issuer);
    b.frame(115.0, 18.0, 75.0, 30.0);
    b.bold(118.0, 24.0, 9.0, b.style.labels.customer);
    b.party(118.0, 30.0, &invoice.recipient);
    b.bold(20.0, 62.0, 14.0, "FACTURA");
    b.number_and_date(20.0, 70.0, invoice);
    let y = b.lines(90.0, invoice);
    b.totals(115.0, y + 4.0, invoice);
    b.footer_note(invoice);
}

fn stacked(b: &mut Builder, invoice: &Invoice) {
    b.party(20.0, 22.0, &invoice.issuer);
    b.bold(140.0, 22.0, 16.0, "Factura");
    b.number_and_date(140.0, 30.0, invoice);
    b.bold(20.0, 55.0, 9.0, b.style.labels.customer);
    b.rule(20.0, 100.0, 56.5);
    b.party(20.0, 62.0, &invoice.recipient);
    let y = b.lines(90.0, invoice);
    b.totals(115.0, y + 4.0, invoice);
    b.footer_note(invoice);
}

fn breakdown(b: &mut Builder, invoice: &Invoice) {
    let style = b.style;
    b.bold(20.0, 20.0, 9.0, "Emisor");
    b.party(20.0, 26.0, &invoice.issuer);
    b.bold(115.0, 20.0, 9.0, style.labels.customer);
    b.party(115.0, 26.0, &invoice.recipient);
    b.number_and_date(20.0, 55.0, invoice);
    let mut y = b.lines(75.0, invoice) + 4.0;
    let surcharge = invoice.groups.iter().any(|g| g.surcharge_rate.is_some());
    let columns: &[(&str, f32)] = if surcharge {
        &[
            ("Base", 80.0),
            ("% IVA", 100.0),
            ("Cuota", 125.0),
            ("% RE", 145.0),
            ("Cuota RE", 170.0),
        ]
    } else {
        &[("Base", 100.0), ("% IVA", 130.0), ("Cuota", 170.0)]
    };
    for (name, x) in columns {
        b.push(*x, y, 9.0, true, Align::Right, name.to_string());
    }
    b.rule(40.0, 172.0, y + 1.5);
    y += 6.0;
    for group in &invoice.groups {
        let mut cells = vec![
            b.amount(group.base),
            style.rate(group.rate),
            b.amount(group.vat_amount),
        ];
        if surcharge {
            cells.push(
                group
                    .surcharge_rate
                    .map_or(String::new(), |r| style.rate(r)),
            );
            cells.push(b.amount(group.surcharge_amount));
        }
        for (cell, (_, x)) in cells.into_iter().zip(columns) {
            b.right(*x, y, 9.0, cell);
        }
        y += 5.0;
    }
    y += 3.0;
    b.text(115.0, y, 9.5, style.labels.base);
    b.right(190.0, y, 9.5, b.amount(invoice.base));
    b.text(115.0, y + 5.0, 9.5, "Total IVA");
    b.right(190.0, y + 5.0, 9.5, b.amount(invoice.vat_amount));
    y = b.irpf(115.0, y + 10.0, invoice);
    b.bold(115.0, y + 1.0, 11.0, style.labels.total);
    b.push(
        190.0,
        y + 1.0,
        11.0,
        true,
        Align::Right,
        b.amount(invoice.total),
    );
}

/// A narrow receipt-like column in Courier, label and value on each row.
fn ticket(b: &mut Builder, invoice: &Invoice) {
    let style = b.style;
    let (left, right) = (60.0, 150.0);
    let mut y = 20.0;
    let row = |b: &mut Builder, y: &mut f32, label: String, value: String| {
        b.text(left, *y, 9.0, label);
        b.right(right, *y, 9.0, value);
        *y += 4.5;
    };
    b.bold(left, y, 11.0, invoice.issuer.name.clone());
    y += 5.0;
    b.text(left, y, 9.0, b.tax_id(&invoice.issuer));
    b.text(
        left,
        y + 4.5,
        9.0,
        format!("{}, {}", invoice.issuer.street, invoice.issuer.city),
    );
    y += 9.0;
    b.rule(left, right, y - 2.5);
    y += 2.0;
    row(
        b,
        &mut y,
        style.labels.number.into(),
        invoice.number.clone(),
    );
    row(
        b,
        &mut y,
        style.labels.date.into(),
        style.date(invoice.date),
    );
    b.text(
        left,
        y,
        9.0,
        format!(
            "{}: {}",
            style.labels.customer.trim_end_matches(':'),
            invoice.recipient.name
        ),
    );
    y += 4.5;
    row(
        b,
        &mut y,
        style.labels.tax_id.into(),
        style.nif(&invoice.recipient.nif),
    );
    b.rule(left, right, y - 2.5);
    y += 2.0;
    for line in &invoice.lines {
        let label = format!("{} x {}", style.number(line.quantity), line.description);
        row(b, &mut y, label, b.amount(line.amount));
    }
    b.rule(left, right, y - 2.5);
    y += 2.0;
    for group in &invoice.groups {
        let rate = style.rate(group.rate);
        row(
            b,
            &mut y,
            format!("{} {rate}", style.labels.base),
            b.amount(group.base),
        );
        row(
            b,
            &mut y,
            style.with_rate(style.labels.vat, group.rate),
            b.amount(group.vat_amount),
        );
        if let Some(rate) = group.surcharge_rate {
            row(
                b,
                &mut y,
                style.with_rate(style.labels.surcharge, rate),
                b.amount(group.surcharge_amount),
            );
        }
    }
    if invoice.groups.len() > 1 {
        row(b, &mut y, "Total base".into(), b.amount(invoice.base));
    }
    if let Some(rate) = invoice.irpf_rate {
        row(
            b,
            &mut y,
            style.with_rate(style.labels.irpf, rate),
            b.amount(-invoice.irpf_amount),
        );
    }
    b.bold(left, y + 1.0, 10.0, style.labels.total);
    b.push(
        right,
        y + 1.0,
        10.0,
        true,
        Align::Right,
        b.amount(invoice.total),
    );
}

/// The issuer's name as a masthead without a NIF; the NIF is in the footer.
fn registry_footer(b: &mut Builder, invoice: &Invoice) {
    let issuer = &invoice.issuer;
    b.bold(20.0, 24.0, 18.0, issuer.name.clone());
    b.text(
        20.0,
        31.0,
        9.0,
        format!("{} · {}", issuer.street, issuer.city),
    );
    b.bold(20.0, 48.0, 9.0, b.style.labels.customer);
    b.party(20.0, 54.0, &invoice.recipient);
    b.bold(130.0, 48.0, 12.0, "FACTURA");
    b.number_and_date(130.0, 54.0, invoice);
    let y = b.lines(85.0, invoice);
    b.totals(115.0, y + 4.0, invoice);
    let nif = b.tax_id(issuer);
    let registry = if issuer.company {
        format!(
            "{} · {nif} · Inscrita en el Registro Mercantil de Madrid, Tomo 4.512, Folio 87, Hoja M-73.921",
            issuer.name
        )
    } else {
        format!(
            "{} · {nif} · Profesional inscrito en el Colegio Oficial con el nº 1.284",
            issuer.name
        )
    };
    b.rule(20.0, 190.0, 278.0);
    b.text(20.0, 283.0, 7.0, registry);
}
