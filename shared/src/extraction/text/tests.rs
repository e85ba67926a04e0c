//! Whole invoices through `parse`: realistic layouts, OCR noise, hints and
//! hostile input.

use std::time::{Duration, Instant};

use chrono::NaiveDate;
use rust_decimal::Decimal;
use rust_decimal::dec;

use super::parse;
use crate::extraction::fields::Fields;
use crate::extraction::layout::{Hint, TextDocument, Word};
use crate::tax::nif::Nif;

fn read(text: &str) -> Fields {
    parse(&TextDocument::from_plain_text(text), None)
}

fn s(f: &Option<crate::extraction::fields::Field<String>>) -> Option<&str> {
    f.as_ref().map(|f| f.value.as_str())
}

fn d(f: &Option<crate::extraction::fields::Field<Decimal>>) -> Option<Decimal> {
    f.as_ref().map(|f| f.value)
}

fn date(y: i32, m: u32, day: u32) -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(y, m, day)
}

fn codes(f: &Fields) -> Vec<&str> {
    f.notes.iter().map(|(c, _)| c.as_str()).collect()
}

#[test]
fn freelancer_invoice_with_irpf_15() {
    let f = read(
        "Laura Gómez Ruiz                                   FACTURA\n\
         Diseño gráfico                                     Nº factura: 2026-031\n\
         NIF: 12345678Z                                     Fecha: 05/08/2026\n\
         C/ Alcalá 12, 28014 Madrid\n\
         \n\
         Cliente:\n\
         Estudio Norte, S.L.\n\
         CIF: B12345674\n\
         Avda. de América 3, 28002 Madrid\n\
         \n\
         Concepto                              Cantidad   Precio      Importe\n\
         Diseño de logotipo                           1   1.200,00   1.200,00\n\
         \n\
                                  Base imponible           1.200,00 €\n\
                                  IVA 21%                    252,00 €\n\
                                  Retención IRPF 15%        -180,00 €\n\
                                  TOTAL FACTURA            1.272,00 €\n\
         \n\
         Forma de pago: transferencia ES91 2100 0418 4502 0005 1332",
    );
    assert_eq!(s(&f.issuer_nif), Some("12345678Z"));
    assert_eq!(s(&f.recipient_nif), Some("B12345674"));
    assert_eq!(s(&f.issuer_name), Some("Laura Gómez Ruiz"));
    assert_eq!(s(&f.recipient_name), Some("Estudio Norte, S.L."));
    assert_eq!(s(&f.invoice_number), Some("2026-031"));
    assert_eq!(f.invoice_date.as_ref().map(|x| x.value), date(2026, 8, 5));
    assert_eq!(d(&f.base), Some(dec!(1200.00)));
    assert_eq!(d(&f.vat_amount), Some(dec!(252.00)));
    assert_eq!(f.vat_breakdown.len(), 1);
    assert_eq!(f.vat_breakdown[0].rate, dec!(21));
    assert_eq!(d(&f.irpf_rate), Some(dec!(15)));
    assert_eq!(d(&f.irpf_amount), Some(dec!(180.00)));
    assert_eq!(d(&f.total), Some(dec!(1272.00)));
    assert_eq!(f.currency.as_deref(), Some("EUR"));
    assert!(f.notes.is_empty(), "{:?}", f.notes);
}

#[test]
fn several_rates_with_equivalence_surcharge() {
    let f = read(
        "DISTRIBUCIONES LEVANTE, S.A.\n\
         CIF A13585625\n\
         Polígono Industrial Sur, nave 4 - 46000 Valencia\n\
         \n\
         FACTURA Nº A/2026/0815                 Fecha de emisión: 12 de marzo de 2026\n\
         Nº pedido: 99812                       Fecha de vencimiento: 11/04/2026\n\
         \n\
         Datos del cliente\n\
         Ultramarinos Pepa (Josefa Martín)\n\
         NIF 54362315K\n\
         \n\
         Base imponible   %IVA    Cuota IVA   % R.E.   Cuota R.E.\n\
         1.000,00         21%     210,00      5,2%     52,00\n\
         500,00           10%     50,00       1,4%     7,00\n\
         \n\
         Total factura                                 1.819,00 €",
    );
    assert_eq!(s(&f.issuer_nif), Some("A13585625"));
    assert_eq!(s(&f.recipient_nif), Some("54362315K"));
    assert_eq!(s(&f.issuer_name), Some("DISTRIBUCIONES LEVANTE, S.A."));
    assert_eq!(s(&f.invoice_number), Some("A/2026/0815"));
    assert_eq!(f.invoice_date.as_ref().map(|x| x.value), date(2026, 3, 12));
    assert_eq!(f.vat_breakdown.len(), 2);
    assert_eq!(f.vat_breakdown[0].surcharge_amount, Some(dec!(52.00)));
    assert_eq!(f.vat_breakdown[1].surcharge_rate, Some(dec!(1.4)));
    assert_eq!(d(&f.base), Some(dec!(1500.00)));
    assert_eq!(d(&f.vat_amount), Some(dec!(260.00)));
    assert_eq!(d(&f.irpf_amount), None);
    assert_eq!(d(&f.total), Some(dec!(1819.00)));
}

#[test]
fn new_professional_with_irpf_7_in_a_horizontal_summary() {
    let f = read(
        "Pablo Sanz Ortega - NIF 99999999R\n\
         Traducciones\n\
         \n\
         Factura núm. 7          Data: 2 de febrer de 2026\n\
         Facturar a: Editorial Mar SL, CIF B64717838\n\
         \n\
         Base imponible   IVA (21%)   IRPF (7%)   TOTAL\n\
         850,00           178,50      -59,50      969,00",
    );
    assert_eq!(s(&f.issuer_nif), Some("99999999R"));
    assert_eq!(s(&f.recipient_nif), Some("B64717838"));
    assert_eq!(s(&f.issuer_name), Some("Pablo Sanz Ortega"));
    assert_eq!(s(&f.recipient_name), Some("Editorial Mar SL"));
    assert_eq!(s(&f.invoice_number), Some("7"));
    assert_eq!(f.invoice_date.as_ref().map(|x| x.value), date(2026, 2, 2));
    assert_eq!(d(&f.base), Some(dec!(850.00)));
    assert_eq!(d(&f.vat_amount), Some(dec!(178.50)));
    assert_eq!(d(&f.irpf_rate), Some(dec!(7)));
    assert_eq!(d(&f.irpf_amount), Some(dec!(59.50)));
    assert_eq!(d(&f.total), Some(dec!(969.00)));
}

#[test]
fn ticket_with_vat_included_is_back_calculated() {
    let f = read(
        "CAFETERÍA LA PLAZA\n\
         B64717838\n\
         Factura simplificada nº T-88412\n\
         15/10/2026 09:42\n\
         2 Café con leche      3,00\n\
         1 Tostada             2,50\n\
         TOTAL                 5,50 €\n\
         IVA 10% incluido",
    );
    assert_eq!(s(&f.issuer_nif), Some("B64717838"));
    assert_eq!(s(&f.issuer_name), Some("CAFETERÍA LA PLAZA"));
    assert_eq!(s(&f.invoice_number), Some("T-88412"));
    assert_eq!(f.invoice_date.as_ref().map(|x| x.value), date(2026, 10, 15));
    assert_eq!(d(&f.total), Some(dec!(5.50)));
    assert_eq!(d(&f.base), Some(dec!(5.00)));
    assert_eq!(d(&f.vat_amount), Some(dec!(0.50)));
    assert!(codes(&f).contains(&"vat_back_calculated"), "{:?}", f.notes);
    assert!(codes(&f).contains(&"invoice_date_unlabelled"));
}

#[test]
fn english_locale_numbers() {
    let f = read(
        "Cloud Services Europe SL     VAT: ESB12345674\n\
         Invoice number: INV-2026-10-553\n\
         Invoice date: 2026-10-01\n\
         Bill to: Marta Ruiz, NIF 12345678Z\n\
         Subtotal                      €1,234.56\n\
         VAT 21%                         €259.26\n\
         Total                         €1,493.82",
    );
    assert_eq!(s(&f.issuer_nif), Some("B12345674"));
    assert_eq!(s(&f.recipient_nif), Some("12345678Z"));
    assert_eq!(s(&f.invoice_number), Some("INV-2026-10-553"));
    assert_eq!(f.invoice_date.as_ref().map(|x| x.value), date(2026, 10, 1));
    assert_eq!(d(&f.base), Some(dec!(1234.56)));
    assert_eq!(d(&f.vat_amount), Some(dec!(259.26)));
    assert_eq!(d(&f.total), Some(dec!(1493.82)));
}

#[test]
fn catalan_labels() {
    let f = read(
        "Fusteria Puig, SL\n\
         NIF: B64717838\n\
         Factura núm.: 2026/112\n\
         Data d'emissió: 3 de març de 2026\n\
         Client: Anna Vila i Soler - DNI 54362315K\n\
         Base imposable          400,00\n\
         Quota IVA 21%            84,00\n\
         Retenció IRPF 15%       -60,00\n\
         Total factura           424,00",
    );
    assert_eq!(s(&f.issuer_nif), Some("B64717838"));
    assert_eq!(s(&f.recipient_nif), Some("54362315K"));
    assert_eq!(s(&f.invoice_number), Some("2026/112"));
    assert_eq!(f.invoice_date.as_ref().map(|x| x.value), date(2026, 3, 3));
    assert_eq!(d(&f.base), Some(dec!(400.00)));
    assert_eq!(d(&f.vat_amount), Some(dec!(84.00)));
    assert_eq!(d(&f.irpf_amount), Some(dec!(60.00)));
    assert_eq!(d(&f.total), Some(dec!(424.00)));
}

#[test]
fn ocr_noise_is_repaired_with_notes() {
    let f = read(
        "Reformas Ibéricas Martínez, S.L.\n\
         CIF: 812345674\n\
         N?2 Factura: 2026/0147       Fecha de expedición: 05/08/2026\n\
         Cliente: Juan Pérez  NIF 12345678Z\n\
         Base imponible        154650\n\
         IVA 21%               324,77\n\
         Retención IRPF 15%    23198\n\
         Total factura         1.639,29",
    );
    assert_eq!(s(&f.issuer_nif), Some("B12345674"));
    assert_eq!(s(&f.recipient_nif), Some("12345678Z"));
    assert_eq!(s(&f.invoice_number), Some("2026/0147"));
    assert_eq!(d(&f.base), Some(dec!(1546.50)));
    assert_eq!(d(&f.irpf_amount), Some(dec!(231.98)));
    assert_eq!(d(&f.total), Some(dec!(1639.29)));
    let c = codes(&f);
    assert!(c.contains(&"nif_repaired"), "{c:?}");
    assert_eq!(
        c.iter().filter(|c| **c == "amount_repaired").count(),
        2,
        "{c:?}"
    );
}

#[test]
fn own_nif_on_a_purchase_invoice() {
    let text = "Asesoría Fiscal Norte SL\n\
                B64717838\n\
                Factura 2026-77   Fecha 01/09/2026\n\
                Laura Gómez Ruiz\n\
                12345678Z\n\
                Base 100,00  IVA 21% 21,00  Total 121,00";
    let own = Nif::parse("12345678Z").unwrap();
    let f = parse(&TextDocument::from_plain_text(text), Some(&own));
    assert_eq!(s(&f.issuer_nif), Some("B64717838"));
    assert_eq!(s(&f.recipient_nif), Some("12345678Z"));
    assert_eq!(s(&f.issuer_name), Some("Asesoría Fiscal Norte SL"));
}

#[test]
fn igic_suplidos_and_amount_due() {
    let f = read(
        "Gestoría Atlántica SL   CIF B12345674\n\
         Factura nº 2026/40   Fecha 10/06/2026\n\
         Base imponible      200,00\n\
         IGIC 7%              14,00\n\
         Suplidos (tasas)     50,00\n\
         Total a pagar       264,00",
    );
    assert_eq!(f.indirect_tax.as_deref(), Some("IGIC"));
    assert_eq!(f.vat_breakdown[0].rate, dec!(7));
    assert_eq!(d(&f.total), Some(dec!(264.00)));
    assert!(
        codes(&f).contains(&"suplidos_outside_base"),
        "{:?}",
        f.notes
    );
}

fn word(text: &str, left: f32, top: f32, width: f32, confidence: f32) -> Vec<Word> {
    let parts: Vec<&str> = text.split_whitespace().collect();
    let chars: usize = parts
        .iter()
        .map(|p| p.chars().count() + 1)
        .sum::<usize>()
        .max(1);
    let mut x = left;
    parts
        .iter()
        .map(|p| {
            let w = width * p.chars().count() as f32 / chars as f32;
            let out = Word {
                text: p.to_string(),
                page: 1,
                left: x,
                top,
                width: w,
                height: 0.01,
                confidence,
                line: None,
            };
            x += w + width / chars as f32;
            out
        })
        .collect()
}

fn hint(kind: &str, label: Option<&str>, value: &str, groups: &[&str], confidence: f32) -> Hint {
    Hint {
        kind: kind.into(),
        label: label.map(Into::into),
        value: value.into(),
        groups: groups.iter().map(|g| g.to_string()).collect(),
        confidence,
    }
}

/// Text, left, top, width and confidence of a Textract detection.
type Detection = (&'static str, f32, f32, f32, f32);
/// Type, label, value and groups of a Textract expense field.
type ExampleField = (
    &'static str,
    Option<Detection>,
    Detection,
    &'static [&'static str],
);

/// The AnalyzeExpense example of extraction.md §1.5: each field's label and
/// value boxes as words, and its typed fields as hints.
fn textract_example() -> TextDocument {
    let mut words = Vec::new();
    let mut hints = Vec::new();
    let fields: &[ExampleField] = &[
        (
            "VENDOR_NAME",
            None,
            ("Reformas Ibéricas Martínez, S.L.", 0.08, 0.06, 0.41, 0.954),
            &["VENDOR"],
        ),
        (
            "VENDOR_VAT_NUMBER",
            Some(("CIF:", 0.08, 0.09, 0.04, 0.971)),
            ("B12345674", 0.13, 0.09, 0.12, 0.988),
            &["VENDOR"],
        ),
        (
            "TAX_PAYER_ID",
            Some(("NIF:", 0.08, 0.22, 0.04, 0.96)),
            ("12345678Z", 0.13, 0.22, 0.12, 0.979),
            &["RECEIVER"],
        ),
        (
            "INVOICE_RECEIPT_ID",
            Some(("Nº Factura:", 0.64, 0.09, 0.1, 0.94)),
            ("2026/0147", 0.75, 0.09, 0.09, 0.991),
            &[],
        ),
        (
            "INVOICE_RECEIPT_DATE",
            Some(("Fecha de expedición:", 0.64, 0.11, 0.17, 0.955)),
            ("05/08/2026", 0.82, 0.11, 0.1, 0.993),
            &[],
        ),
        (
            "SUBTOTAL",
            Some(("Base imponible", 0.55, 0.35, 0.14, 0.99)),
            ("1.546,50 €", 0.79, 0.35, 0.1, 0.987),
            &[],
        ),
        (
            "TAX",
            Some(("IVA 21%", 0.55, 0.37, 0.07, 0.982)),
            ("324,77 €", 0.81, 0.37, 0.08, 0.984),
            &[],
        ),
        (
            "TAX",
            Some(("Retención IRPF 15%", 0.55, 0.39, 0.17, 0.974)),
            ("-231,98 €", 0.8, 0.39, 0.09, 0.97),
            &[],
        ),
        (
            "TOTAL",
            Some(("Total factura", 0.55, 0.41, 0.12, 0.99)),
            ("1.639,29 €", 0.79, 0.41, 0.1, 0.99),
            &[],
        ),
    ];
    for &(kind, label, (value, left, top, width, conf), groups) in fields {
        if let Some((text, l, t, w, c)) = label {
            words.extend(word(text, l, t, w, c));
        }
        words.extend(word(value, left, top, width, conf));
        hints.push(hint(kind, label.map(|l| l.0), value, groups, conf * 100.0));
    }
    words.extend(word("Azulejos porcelánicos", 0.08, 0.28, 0.2, 0.96));
    words.extend(word("35", 0.5, 0.28, 0.02, 0.99));
    words.extend(word("9,90", 0.6, 0.28, 0.04, 0.98));
    words.extend(word("346,50", 0.8, 0.28, 0.06, 0.98));
    TextDocument {
        words,
        hints,
        ..TextDocument::default()
    }
}

#[test]
fn the_textract_example_reads_as_expected() {
    let f = parse(&textract_example(), None);
    assert_eq!(s(&f.issuer_nif), Some("B12345674"));
    assert_eq!(s(&f.recipient_nif), Some("12345678Z"));
    assert_eq!(s(&f.issuer_name), Some("Reformas Ibéricas Martínez, S.L."));
    assert_eq!(s(&f.invoice_number), Some("2026/0147"));
    assert_eq!(f.invoice_date.as_ref().map(|x| x.value), date(2026, 8, 5));
    assert_eq!(d(&f.base), Some(dec!(1546.50)));
    assert_eq!(d(&f.vat_amount), Some(dec!(324.77)));
    assert_eq!(f.vat_breakdown[0].rate, dec!(21));
    assert_eq!(d(&f.irpf_rate), Some(dec!(15)));
    assert_eq!(d(&f.irpf_amount), Some(dec!(231.98)));
    assert_eq!(d(&f.total), Some(dec!(1639.29)));
    assert!(f.notes.is_empty(), "{:?}", f.notes);
    let conf = f.total.as_ref().unwrap().confidence;
    assert!(conf > 0.8 && conf <= 1.0, "{conf}");
}

#[test]
fn hints_alone_are_enough() {
    let doc = TextDocument {
        words: Vec::new(),
        hints: textract_example().hints,
        ..TextDocument::default()
    };
    let f = parse(&doc, None);
    assert_eq!(s(&f.issuer_nif), Some("B12345674"));
    assert_eq!(s(&f.recipient_nif), Some("12345678Z"));
    assert_eq!(d(&f.irpf_amount), Some(dec!(231.98)));
    assert_eq!(d(&f.total), Some(dec!(1639.29)));
}

fn quickly(doc: &TextDocument) -> Fields {
    let start = Instant::now();
    let fields = parse(doc, None);
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
    fields
}

#[test]
fn hostile_input_returns_quickly_and_empty() {
    assert_eq!(quickly(&TextDocument::default()), Fields::default());
    assert_eq!(
        quickly(&TextDocument::from_plain_text("")),
        Fields::default()
    );
    let digits = TextDocument::from_plain_text(&"1234567890".repeat(100_000));
    assert_eq!(quickly(&digits), Fields::default());
    let lone = TextDocument::from_plain_text(
        "Total\nIVA\nBase imponible\nNº factura\nFecha\nCIF\nCliente:",
    );
    assert_eq!(quickly(&lone), Fields::default());
}

#[test]
fn hostile_repetitions_stay_bounded() {
    let labels = TextDocument::from_plain_text(&"IVA Total Base Nº CIF Fecha ".repeat(40_000));
    quickly(&labels);
    let lines = TextDocument::from_plain_text(&"IVA 21% 1,00\n".repeat(50_000));
    assert!(codes(&quickly(&lines)).contains(&"text_truncated"));
    let ids =
        TextDocument::from_plain_text(&"Cliente: B12345674 12345678Z 05/08/2026\n".repeat(20_000));
    quickly(&ids);
    let table =
        TextDocument::from_plain_text(&"Base   IVA   Total\n1,00   0,21   1,21\n".repeat(20_000));
    quickly(&table);
    let odd = "€(%-−\u{202F}ñ\u{0301}N?2 ".repeat(30_000);
    quickly(&TextDocument::from_plain_text(&odd));
}

#[test]
fn exempt_operation_cites_the_law_without_reading_it_as_vat() {
    let f = read(
        "Clínica Dental Sonrisa SL   CIF B64717838\n\
         Factura nº 2026/0903   Fecha 03/09/2026\n\
         Base imponible                 180,00\n\
         IVA: Operación exenta (art. 20 LIVA)\n\
         Total factura                  180,00",
    );
    assert_eq!(d(&f.base), Some(dec!(180.00)));
    assert_eq!(d(&f.vat_amount), Some(dec!(0)));
    assert_eq!(f.vat_breakdown[0].rate, dec!(0));
    assert_eq!(d(&f.total), Some(dec!(180.00)));
    assert_eq!(codes(&f), ["vat_exempt"]);
}

#[test]
fn an_item_table_with_tax_columns_sums_per_rate() {
    let f = read(
        "Papelería Central SL   B64717838\n\
         Factura 2026-55   Fecha 20/10/2026\n\
         Concepto        Cantidad   Base       % IVA   Total\n\
         Folios A4              10    40,00     21%     48,40\n\
         Libros                  2    30,00      4%     31,20\n\
         Bolígrafos              5    10,00     21%     12,10\n\
         \n\
         Total factura                                  91,70",
    );
    assert_eq!(f.vat_breakdown.len(), 2, "{:?}", f.vat_breakdown);
    assert_eq!(f.vat_breakdown[0].base, dec!(50.00));
    assert_eq!(f.vat_breakdown[0].vat_amount, dec!(10.50));
    assert_eq!(f.vat_breakdown[1].vat_amount, dec!(1.20));
    assert_eq!(d(&f.base), Some(dec!(80.00)));
    assert_eq!(d(&f.total), Some(dec!(91.70)));
}

#[test]
fn the_base_after_a_discount_is_the_one_that_fits_the_vat() {
    let f = read(
        "Suministros Levante SL   CIF B64717838\n\
         Factura nº 88   Fecha 01/10/2026\n\
         Subtotal                1.000,00\n\
         Descuento 10%            -100,00\n\
         Base imponible            900,00\n\
         IVA 21%                   189,00\n\
         Total                   1.089,00",
    );
    assert_eq!(d(&f.base), Some(dec!(900.00)));
    assert_eq!(d(&f.total), Some(dec!(1089.00)));
    assert!(f.notes.is_empty(), "{:?}", f.notes);
}

#[test]
fn ticket_with_vat_included_in_the_total_label() {
    let f = read(
        "TICKET 0042  12/11/2026 13:05\n\
         BAR MANOLO B12345674\n\
         1 MENU DEL DIA 12,00\n\
         TOTAL (IVA INCL.) 12,00\n\
         IVA 10%",
    );
    assert_eq!(s(&f.invoice_number), Some("0042"));
    assert_eq!(s(&f.issuer_name), Some("BAR MANOLO"));
    assert_eq!(d(&f.base), Some(dec!(10.91)));
    assert_eq!(d(&f.vat_amount), Some(dec!(1.09)));
    assert_eq!(d(&f.total), Some(dec!(12.00)));
    assert!(codes(&f).contains(&"vat_back_calculated"));
}

#[test]
fn customer_box_top_right_and_issuer_only_in_the_footer() {
    let f = read(
        "                                         CLIENTE\n\
                                                  Talleres Norte SA\n\
                                                  CIF A13585625\n\
         FACTURA 2026/8\n\
         Fecha 01/02/2026\n\
         Base 100,00 IVA 21,00 Total 121,00\n\
         Rotulos Gomez SL - Reg. Merc. Madrid T 1 F 2 - CIF B64717838",
    );
    assert_eq!(s(&f.issuer_nif), Some("B64717838"));
    assert_eq!(s(&f.issuer_name), Some("Rotulos Gomez SL"));
    assert_eq!(s(&f.recipient_nif), Some("A13585625"));
    assert_eq!(s(&f.recipient_name), Some("Talleres Norte SA"));
    assert_eq!(d(&f.total), Some(dec!(121.00)));
    assert_eq!(f.vat_breakdown[0].rate, dec!(21));
}

#[test]
fn swapped_separators_are_read_by_position_with_a_note() {
    let f = read("Base imponible 1.546.50\nIVA 21% 324,77\nTotal 1.871,27");
    assert_eq!(d(&f.base), Some(dec!(1546.50)));
    assert_eq!(codes(&f), ["amount_repaired"]);
    let f = read("Base imponible 1.546,5O\nIVA 21% 324,77\nTotal l.871,27 €");
    assert_eq!(d(&f.base), Some(dec!(1546.50)));
    assert_eq!(d(&f.total), Some(dec!(1871.27)));
    assert_eq!(codes(&f), ["amount_repaired", "amount_repaired"]);
}

#[test]
fn values_under_their_headings() {
    let f = read(
        "Nº FACTURA        FECHA         CLIENTE\n\
         2026/0150         07/08/2026    C-0042\n\
         \n\
         Empresa: Soluciones Web SL\n\
         CIF: B64717838\n\
         \n\
         TOTAL FACTURA\n\
         1.210,00 €\n\
         Base imponible 1.000,00 €\n\
         IVA 21 % 210,00 €",
    );
    assert_eq!(s(&f.invoice_number), Some("2026/0150"));
    assert_eq!(f.invoice_date.as_ref().map(|x| x.value), date(2026, 8, 7));
    assert_eq!(s(&f.issuer_name), Some("Soluciones Web SL"));
    assert_eq!(d(&f.total), Some(dec!(1210.00)));
    assert!(f.notes.is_empty(), "{:?}", f.notes);
}

#[test]
fn an_exempt_service_without_a_printed_base() {
    let f = read(
        "Juan Martín Gil\n\
         NIF 54362315K\n\
         Factura 3/2026\n\
         Fecha 10-ene-2026\n\
         Cliente: Academia Sol SL (B12345674)\n\
         Clases de inglés (exento art. 20.Uno.9º LIVA)   600,00\n\
         Total 600,00",
    );
    assert_eq!(s(&f.recipient_name), Some("Academia Sol SL"));
    assert_eq!(s(&f.recipient_nif), Some("B12345674"));
    assert_eq!(f.invoice_date.as_ref().map(|x| x.value), date(2026, 1, 10));
    assert_eq!(d(&f.base), Some(dec!(600.00)));
    assert_eq!(d(&f.vat_amount), Some(dec!(0)));
    assert_eq!(codes(&f), ["vat_exempt"]);
}

#[test]
fn the_textract_example_passes_every_check() {
    use crate::extraction::checks::check;
    use crate::extraction::fields::Source;
    let fields = parse(&textract_example(), None);
    let invoice = check(
        fields,
        Source::Ocr,
        "factura.pdf",
        date(2026, 11, 23).unwrap(),
    );
    assert!(invoice.warnings.is_empty(), "{:?}", invoice.warnings);
    let json = serde_json::to_value(&invoice).unwrap();
    assert_eq!(json["issuer_nif"], "B12345674");
    assert_eq!(json["recipient_nif"], "12345678Z");
    assert_eq!(json["invoice_date"], "2026-08-05");
    assert_eq!(json["base"], 1546.5);
    assert_eq!(json["vat_rate"], 21.0);
    assert_eq!(json["vat_amount"], 324.77);
    assert_eq!(json["irpf_rate"], 15.0);
    assert_eq!(json["irpf_amount"], 231.98);
    assert_eq!(json["total"], 1639.29);
    assert_eq!(json["source"], "ocr");
    assert_eq!(
        json["checks"],
        serde_json::json!({"totals_ok": true, "nif_valid": true, "recipient_nif_valid": true,
            "date_valid": true, "vat_rate_valid": true})
    );
}

#[test]
fn a_neighbouring_column_does_not_lend_its_figures() {
    let f = read(
        "Base imponible    1.000,00        Envío gratuito desde 30,00\n\
         IVA 21%             210,00        Portes incluidos\n\
         Tota1 factura     1.210,00",
    );
    assert_eq!(d(&f.base), Some(dec!(1000.00)));
    assert_eq!(d(&f.vat_amount), Some(dec!(210.00)));
    assert_eq!(d(&f.total), Some(dec!(1210.00)));
}

/// A fixed pseudo-random sequence (64-bit LCG), so the test is repeatable.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

#[test]
fn random_text_and_boxes_never_panic() {
    let pieces = [
        "1",
        "2",
        "0",
        "9",
        ".",
        ",",
        "-",
        "−",
        "(",
        ")",
        "%",
        "€",
        "/",
        ":",
        " ",
        "  ",
        "\n",
        "\u{00A0}",
        "\u{202F}",
        "\u{0301}",
        "ñ",
        "º",
        "Nº",
        "N?2",
        "IVA",
        "Total",
        "Base",
        "CIF",
        "NIF",
        "B",
        "Z",
        "X",
        "ES",
        "Cliente",
        "Factura",
        "Fecha",
        "IRPF",
        "RE",
        "de",
        "agosto",
        "exento",
        "incluido",
        "Suplidos",
        "Descuento",
        "O",
        "l",
        "🙂",
        "\t",
        "|",
    ];
    let mut rng = Lcg(7);
    for _ in 0..1_500 {
        let len = rng.next(120);
        let text: String = (0..len).map(|_| pieces[rng.next(pieces.len())]).collect();
        parse(&TextDocument::from_plain_text(&text), None);
        let words: Vec<Word> = text
            .split_whitespace()
            .map(|t| Word {
                text: t.to_string(),
                page: rng.next(3) as u32,
                left: rng.next(1200) as f32 / 1000.0 - 0.1,
                top: rng.next(1200) as f32 / 1000.0 - 0.1,
                width: rng.next(300) as f32 / 1000.0,
                height: rng.next(30) as f32 / 1000.0,
                confidence: rng.next(120) as f32 / 100.0,
                line: None,
            })
            .collect();
        let hints = vec![hint("TAX", Some(&text), &text, &["VENDOR"], 50.0)];
        let own = Nif::parse("12345678Z").ok();
        parse(
            &TextDocument {
                words,
                hints,
                ..TextDocument::default()
            },
            own.as_ref(),
        );
    }
}

#[test]
fn identifiers_with_a_wrong_check_character_are_returned_as_printed() {
    use crate::extraction::checks::check;
    use crate::extraction::fields::Source;
    let f = read(
        "Suministros Levante SL\n\
         CIF: B12345675\n\
         Factura nº 7            Fecha 05/08/2026\n\
         Cliente: Talleres Norte SA\n\
         NIF: B64717839\n\
         Base imponible 100,00\n\
         IVA 21% 21,00\n\
         Total 121,00",
    );
    assert_eq!(s(&f.issuer_nif), Some("B12345675"));
    assert_eq!(s(&f.recipient_nif), Some("B64717839"));
    let inv = check(
        f,
        Source::Text,
        "f.txt",
        NaiveDate::from_ymd_opt(2026, 11, 27).unwrap(),
    );
    assert!(!inv.checks.nif_valid);
    assert_eq!(inv.checks.recipient_nif_valid, Some(false));
    let codes: Vec<&str> = inv.warnings.iter().map(|w| w.code.as_str()).collect();
    assert!(codes.contains(&"issuer_nif_invalid"), "{codes:?}");
    assert!(codes.contains(&"recipient_nif_invalid"), "{codes:?}");
    assert!(!codes.contains(&"issuer_nif_missing"), "{codes:?}");
    let message = |code: &str| {
        inv.warnings
            .iter()
            .find(|w| w.code == code)
            .map(|w| w.message.clone())
            .unwrap_or_default()
    };
    assert!(message("issuer_nif_invalid").contains("B12345675"));
    assert!(message("recipient_nif_invalid").contains("B64717839"));
}

#[test]
fn invoices_in_other_languages() {
    let en = read(
        "Northwind Traders Ltd                        VAT Registration No. GB232153895\n\
         Invoice No. INV-2026-0042\n\
         Invoice Date: November 2, 2026\n\
         Bill to: Ana García Pérez\n\
         Subtotal                      £1,250.00\n\
         VAT 20%                         £250.00\n\
         Total                         £1,500.00",
    );
    assert_eq!(s(&en.issuer_name), Some("Northwind Traders Ltd"));
    assert_eq!(s(&en.issuer_nif), Some("GB232153895"));
    assert_eq!(s(&en.invoice_number), Some("INV-2026-0042"));
    assert_eq!(en.invoice_date.map(|f| f.value), date(2026, 11, 2));
    assert_eq!(d(&en.total), Some(dec!(1500.00)));
    assert_eq!(d(&en.vat_amount), Some(dec!(250.00)));

    let de = read(
        "Hetzner Online GmbH • Industriestr. 25 • 91710 Gunzenhausen\n\
         Rechnungsnummer: R0005532486\n\
         Rechnungsdatum: 19.01.2016\n\
         Netto                87,39 €\n\
         USt. (19 %)          16,61 €\n\
         Brutto              104,00 €\n\
         Geschäftsführer: Martin Hetzner   USt-IdNr.: DE812871812",
    );
    assert_eq!(s(&de.issuer_name), Some("Hetzner Online GmbH"));
    assert_eq!(s(&de.issuer_nif), Some("DE812871812"));
    assert_eq!(s(&de.invoice_number), Some("R0005532486"));
    assert_eq!(de.invoice_date.map(|f| f.value), date(2016, 1, 19));
    assert_eq!(
        (d(&de.base), d(&de.vat_amount), d(&de.total)),
        (Some(dec!(87.39)), Some(dec!(16.61)), Some(dec!(104.00)))
    );

    let fr = read(
        "Au bon moulin SARL - 1242 chemin de l'olive - 84340 Malaucène\n\
         TVA : FR11999999998\n\
         Facture n° FA-2017-0008\n\
         Date de facture : 3 novembre 2017\n\
         Total HT        2 076,76 €\n\
         TVA 0 %             0,00 €\n\
         Total TTC       2 076,76 €\n\
         Exonération de TVA, article 262 ter I du CGI",
    );
    assert_eq!(s(&fr.issuer_name), Some("Au bon moulin SARL"));
    assert_eq!(s(&fr.issuer_nif), Some("FR11999999998"));
    assert_eq!(s(&fr.invoice_number), Some("FA-2017-0008"));
    assert_eq!(fr.invoice_date.map(|f| f.value), date(2017, 11, 3));
    assert_eq!(d(&fr.total), Some(dec!(2076.76)));
}

#[test]
fn a_running_subtotal_on_the_first_page_is_not_a_total() {
    let f = read(
        "Distribuciones Norte, S.L.   CIF B12345674\n\
         Factura nº 25 - 5469    Fecha 05/08/2026\n\
         Artículo A            600,00\n\
         Artículo B            400,00\n\
         Suma y sigue        1.000,00\n\
         Artículo C            200,00\n\
         Base imponible      1.200,00\n\
         IVA 21%               252,00\n\
         Total a pagar       1.452,00",
    );
    assert_eq!(s(&f.invoice_number), Some("25 - 5469"));
    assert_eq!(
        (d(&f.base), d(&f.vat_amount), d(&f.total)),
        (Some(dec!(1200.00)), Some(dec!(252.00)), Some(dec!(1452.00)))
    );
}

#[test]
fn a_saas_invoice_in_english_with_reverse_wording() {
    let text = "Invoice\n\
                Invoice number          1A2B3C4D-0001\n\
                Date of issue           November 2, 2026\n\
                Date due                November 16, 2026\n\
                \n\
                Acme Software Ltd                       Bill to\n\
                1 Main Street                           Ana García Pérez\n\
                Dublin, Ireland                         ES 12345678Z\n\
                VAT IE6388047V\n\
                \n\
                €60.50 due November 16, 2026\n\
                \n\
                Description             Qty    Unit price    Amount\n\
                Pro plan                1      €50.00        €50.00\n\
                \n\
                Subtotal                                     €50.00\n\
                Total excluding tax                          €50.00\n\
                VAT - Spain (21% on €50.00)                  €10.50\n\
                Total                                        €60.50\n\
                Amount due                                   €60.50";
    let own = Nif::parse("12345678Z").unwrap();
    let f = parse(&TextDocument::from_plain_text(text), Some(&own));
    assert_eq!(s(&f.issuer_name), Some("Acme Software Ltd"));
    assert_eq!(s(&f.issuer_nif), Some("IE6388047V"));
    assert_eq!(s(&f.recipient_nif), Some("12345678Z"));
    assert_eq!(s(&f.invoice_number), Some("1A2B3C4D-0001"));
    assert_eq!(f.invoice_date.map(|f| f.value), date(2026, 11, 2));
    assert_eq!(
        (d(&f.base), d(&f.vat_amount), d(&f.total)),
        (Some(dec!(50.00)), Some(dec!(10.50)), Some(dec!(60.50)))
    );
}

#[test]
fn a_label_inside_a_sentence_takes_no_value_from_below() {
    let f = read(
        "LIDL SUPERMERCADOS S.A.U.\n\
         NIF A60195278\n\
         Total 13,41\n\
         Devoluciones con ticket de compra y embalaje original\n\
         plazo máximo de 30 días",
    );
    assert_eq!(s(&f.invoice_number), None);
}

#[test]
fn a_number_is_beside_its_label_or_on_the_next_row_not_among_the_items() {
    let f = read(
        "ALCAMPO BURGOS\n\
         FACTURA SIMPLIFICADA\n\
         GAMBON KRUS 25,99\n\
         GALLETA S/AZ 3,13\n\
         H.MAIZ 1D0C PITA 2,25\n\
         TOTAL 31,37\n\
         NUMERO OPERACION: 00049",
    );
    assert_eq!(s(&f.invoice_number), None);
    let next_row = read("FACTURA SIMPLIFICADA\n2308-011-043016\nTOTAL 46,93");
    assert_eq!(s(&next_row.invoice_number), Some("2308-011-043016"));
}

#[test]
fn ocr_misreading_one_letter_of_a_long_label_is_still_the_label() {
    let words = |text: &str, top: f32| word(text, 0.1, top, 0.6, 0.8);
    let mut all = words("MERCADONA S.A. NIF: A-46103834", 0.1);
    all.extend(words("ENIREGA EFECILVO 37,00", 0.5));
    all.extend(words("DEVOLUCIÓN 0,06", 0.52));
    let f = parse(
        &TextDocument {
            words: all.clone(),
            ..TextDocument::default()
        },
        None,
    );
    assert_eq!(d(&f.total), Some(dec!(36.94)), "{:?}", f.notes);
    let typed: Vec<Word> = all
        .into_iter()
        .map(|w| Word {
            confidence: 1.0,
            ..w
        })
        .collect();
    let f = parse(
        &TextDocument {
            words: typed,
            ..TextDocument::default()
        },
        None,
    );
    assert_eq!(d(&f.total), None, "a text layer is read as printed");
}

#[test]
fn a_british_receipt_gives_its_vat_number_without_the_gb() {
    let f = read(
        "Clachan\n\
         20% VAT Net      8.50\n\
         20% VAT          1.70\n\
         Total          £10.20\n\
         VAT 232 153 895",
    );
    assert_eq!(s(&f.issuer_nif), Some("GB232153895"));
}
