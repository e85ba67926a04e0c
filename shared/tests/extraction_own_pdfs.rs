//! Every fixture invoice's own PDF (not its Factur-X XML) read back through
//! the PDF text layer and the Spanish field parser: the same number, date,
//! parties, per-rate breakdown (with surcharge), IRPF and total.

use crate::support;

use rust_decimal::Decimal;

use shared::documents::pdf::pdf;
use shared::extraction::pdf::read_pdf;
use shared::extraction::text::parse;

fn value<T: Clone>(field: &Option<shared::extraction::Field<T>>) -> Option<T> {
    field.as_ref().map(|f| f.value.clone())
}

#[tokio::test]
async fn every_fixture_pdf_reads_back_as_its_invoice() {
    let mut failures = Vec::new();
    for (name, invoice) in support::invoice_fixtures::all().await {
        let content = read_pdf(pdf(&invoice)).await.expect(name);
        assert!(!content.scanned, "{name}: our PDFs have a text layer");
        let fields = parse(&content.text, None);
        let mut check = |what: &str, ok: bool, found: String| {
            if !ok {
                failures.push(format!("{name}: {what} read as {found}"));
            }
        };
        check(
            "number",
            value(&fields.invoice_number).as_deref() == Some(invoice.number.as_str()),
            format!("{:?}", value(&fields.invoice_number)),
        );
        check(
            "date",
            value(&fields.invoice_date) == Some(invoice.issue_date),
            format!("{:?}", value(&fields.invoice_date)),
        );
        check(
            "issuer",
            value(&fields.issuer_nif).as_deref() == Some(invoice.issuer.tax_id.as_str()),
            format!("{:?}", value(&fields.issuer_nif)),
        );
        let recipient = invoice.customer.as_ref().and_then(|c| c.tax_id.clone());
        if recipient.is_some() {
            check(
                "recipient",
                value(&fields.recipient_nif) == recipient,
                format!("{:?}", value(&fields.recipient_nif)),
            );
        }
        for (what, found, expected) in [
            ("base", value(&fields.base), invoice.base),
            ("vat", value(&fields.vat_amount), invoice.vat_amount),
            ("total", value(&fields.total), invoice.total),
            (
                "irpf",
                value(&fields.irpf_amount).or(Some(Decimal::ZERO)),
                invoice.irpf_amount,
            ),
        ] {
            check(
                what,
                found == Some(expected.value()),
                format!("{found:?} (expected {expected})"),
            );
        }
        let mut read: Vec<(Decimal, Decimal, Decimal, Decimal)> = fields
            .vat_breakdown
            .iter()
            .map(|l| {
                (
                    l.rate.normalize(),
                    l.base,
                    l.vat_amount,
                    l.surcharge_amount.unwrap_or_default(),
                )
            })
            .collect();
        let mut expected: Vec<(Decimal, Decimal, Decimal, Decimal)> = invoice
            .breakdown
            .iter()
            .map(|g| {
                (
                    g.vat_rate.value().normalize(),
                    g.base.value(),
                    g.vat_amount.value(),
                    g.surcharge_amount.value(),
                )
            })
            .collect();
        read.sort();
        expected.sort();
        check(
            "breakdown",
            read == expected,
            format!("{read:?} (expected {expected:?})"),
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
