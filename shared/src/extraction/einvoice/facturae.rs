//! Facturae 3.x: one reading per `Invoices/Invoice` (a batch, Modality L,
//! holds several), the parties from the file's `Parties`.
//!
//! - Number: `InvoiceSeriesCode` followed by `InvoiceNumber`, unless the
//!   number already starts with the series.
//! - Base `TotalGrossAmountBeforeTaxes`, total `InvoiceTotal`, as stated.
//! - VAT (01), IPSI (02) and IGIC (03) Tax elements of `TaxesOutputs` are the
//!   breakdown, each with its equivalence surcharge; other taxes are noted.
//! - IRPF (04) from the invoice's `TaxesWithheld`, else from its lines',
//!   else `TotalTaxesWithheld`; other withholdings are noted.
//! - Lines from `Items/InvoiceLine` (`GrossAmount` is the line's amount, after
//!   its discounts); the due date and IBAN from the first instalment of
//!   `PaymentDetails` that has them (`AccountToBeCredited`, never the
//!   customer's `AccountToBeDebited`).

use rust_decimal::Decimal;

use super::values::{self, decimal_at};
use super::{EinvoiceError, exact, note, set_indirect_tax, set_recipient};
use crate::extraction::fields::{Fields, ItemLine, VatLine};
use crate::xml_tree::Element;

const FORMAT: &str = "Facturae";
const VAT: &str = "01";
const IPSI: &str = "02";
const IGIC: &str = "03";
const IRPF: &str = "04";

pub fn read(document: &Element) -> Result<Vec<Fields>, EinvoiceError> {
    let invoices = document.find_all(&["Invoices", "Invoice"]);
    if invoices.is_empty() {
        return Err(EinvoiceError::Malformed(format!(
            "{FORMAT}: the file has no Invoices/Invoice element"
        )));
    }
    let count = invoices.len();
    invoices
        .into_iter()
        .enumerate()
        .map(|(index, invoice)| {
            let mut fields = invoice_fields(document, invoice)?;
            if count > 1 {
                note(
                    &mut fields,
                    "several_invoices",
                    format!(
                        "El fichero Facturae contiene {count} facturas (lote); esta es la {}.ª.",
                        index + 1
                    ),
                );
            }
            Ok(fields)
        })
        .collect()
}

fn invoice_fields(document: &Element, invoice: &Element) -> Result<Fields, EinvoiceError> {
    let mut fields = Fields::default();
    let seller = document.find(&["Parties", "SellerParty"]);
    fields.issuer_name = exact(seller.and_then(party_name));
    fields.issuer_nif = exact(seller.and_then(party_tax_id));
    let buyer = document.find(&["Parties", "BuyerParty"]);
    set_recipient(
        &mut fields,
        buyer.and_then(party_name),
        buyer.and_then(party_tax_id),
    );
    fields.invoice_number = exact(number(invoice));
    fields.invoice_date = exact(issue_date(invoice)?);
    fields.currency = invoice
        .text_at(&["InvoiceIssueData", "InvoiceCurrencyCode"])
        .or_else(|| document.text_at(&["FileHeader", "Batch", "InvoiceCurrencyCode"]))
        .map(str::to_string);
    if invoice.text_at(&["InvoiceHeader", "InvoiceClass"]) == Some("OR") {
        let rectified = invoice
            .text_at(&["InvoiceHeader", "Corrective", "InvoiceNumber"])
            .map(|n| format!(" de la factura {n}"))
            .unwrap_or_default();
        note(
            &mut fields,
            "rectifying_invoice",
            format!("Factura rectificativa{rectified} (clase OR)."),
        );
    }
    if document.text_at(&["FileHeader", "InvoiceIssuerType"]) == Some("RE") {
        note(
            &mut fields,
            "self_billed",
            "Autofactura: la emite el destinatario (InvoiceIssuerType RE) en nombre del proveedor, que sigue siendo el emisor."
                .to_string(),
        );
    }
    taxes_outputs(invoice, &mut fields)?;
    withholding(invoice, &mut fields)?;
    totals(invoice, &mut fields)?;
    fields.lines = lines(invoice)?;
    payment(invoice, &mut fields)?;
    Ok(fields)
}

fn lines(invoice: &Element) -> Result<Vec<ItemLine>, EinvoiceError> {
    invoice
        .find_all(&["Items", "InvoiceLine"])
        .into_iter()
        .map(|line| {
            let tax = line
                .find_all(&["TaxesOutputs", "Tax"])
                .into_iter()
                .find(|t| matches!(t.text_at(&["TaxTypeCode"]), Some(VAT | IPSI | IGIC)));
            Ok(ItemLine {
                description: line
                    .text_at(&["ItemDescription"])
                    .and_then(|d| values::name(&[d]))
                    .unwrap_or_default(),
                quantity: amount(line, &["Quantity"])?,
                unit_price: amount(line, &["UnitPriceWithoutTax"])?,
                amount: amount(line, &["GrossAmount"])?,
                vat_rate: tax.map(|t| amount(t, &["TaxRate"])).transpose()?.flatten(),
                confidence: 1.0,
            })
        })
        .collect()
}

fn payment(invoice: &Element, fields: &mut Fields) -> Result<(), EinvoiceError> {
    let installments = invoice.find_all(&["PaymentDetails", "Installment"]);
    let due = installments
        .iter()
        .find_map(|i| i.text_at(&["InstallmentDueDate"]));
    fields.due_date = exact(
        due.map(|text| {
            values::iso_date(text).ok_or_else(|| {
                values::bad_date(
                    FORMAT,
                    "PaymentDetails/Installment/InstallmentDueDate",
                    text,
                )
            })
        })
        .transpose()?,
    );
    fields.iban = exact(
        installments
            .iter()
            .find_map(|i| i.text_at(&["AccountToBeCredited", "IBAN"]))
            .and_then(values::iban),
    );
    Ok(())
}

/// A legal entity's corporate name, or a person's name and surnames.
fn party_name(party: &Element) -> Option<String> {
    if let Some(name) = party.text_at(&["LegalEntity", "CorporateName"]) {
        return values::name(&[name]);
    }
    let person = party.child("Individual")?;
    let part = |name| person.text_at(&[name]).unwrap_or_default();
    values::name(&[part("Name"), part("FirstSurname"), part("SecondSurname")])
}

fn party_tax_id(party: &Element) -> Option<String> {
    party
        .text_at(&["TaxIdentification", "TaxIdentificationNumber"])
        .and_then(values::tax_id)
}

fn number(invoice: &Element) -> Option<String> {
    let number = invoice.text_at(&["InvoiceHeader", "InvoiceNumber"]);
    let series = invoice.text_at(&["InvoiceHeader", "InvoiceSeriesCode"]);
    match (series, number) {
        (Some(series), Some(number)) if !number.starts_with(series) => {
            Some(format!("{series}{number}"))
        }
        (_, Some(number)) => Some(number.to_string()),
        (series, None) => series.map(str::to_string),
    }
}

fn issue_date(invoice: &Element) -> Result<Option<chrono::NaiveDate>, EinvoiceError> {
    invoice
        .text_at(&["InvoiceIssueData", "IssueDate"])
        .map(|text| {
            values::iso_date(text)
                .ok_or_else(|| values::bad_date(FORMAT, "InvoiceIssueData/IssueDate", text))
        })
        .transpose()
}

fn amount(parent: &Element, path: &[&str]) -> Result<Option<Decimal>, EinvoiceError> {
    decimal_at(parent, path, FORMAT)
}

fn taxes_outputs(invoice: &Element, fields: &mut Fields) -> Result<(), EinvoiceError> {
    let mut vat_amount = Decimal::ZERO;
    let mut kinds: Vec<&str> = Vec::new();
    for tax in invoice.find_all(&["TaxesOutputs", "Tax"]) {
        let code = tax.text_at(&["TaxTypeCode"]).unwrap_or_default();
        let tax_amount = amount(tax, &["TaxAmount", "TotalAmount"])?;
        if ![VAT, IPSI, IGIC].contains(&code) {
            note(
                fields,
                "other_tax",
                format!(
                    "Impuesto repercutido de código {code} (no IVA, IGIC ni IPSI) de {} no incluido en la cuota.",
                    tax_amount.unwrap_or_default()
                ),
            );
            continue;
        }
        if !kinds.contains(&code) {
            kinds.push(code);
        }
        let rate = amount(tax, &["TaxRate"])?.unwrap_or_default();
        let base = amount(tax, &["TaxableBase", "TotalAmount"])?.unwrap_or_default();
        let surcharge_rate = amount(tax, &["EquivalenceSurcharge"])?;
        let surcharge_amount = amount(tax, &["EquivalenceSurchargeAmount", "TotalAmount"])?;
        if tax_amount.is_none() && !rate.is_zero() {
            note(
                fields,
                "tax_amount_missing",
                format!("El impuesto al {rate} % no indica cuota (TaxAmount); se toma 0."),
            );
        }
        let tax_amount = tax_amount.unwrap_or_default();
        vat_amount += tax_amount;
        fields.vat_breakdown.push(VatLine {
            rate: rate.normalize(),
            base,
            vat_amount: tax_amount,
            surcharge_rate: surcharge_rate.map(|r| r.normalize()),
            surcharge_amount,
        });
    }
    if !kinds.is_empty() {
        fields.vat_amount = exact(Some(vat_amount));
    }
    indirect_tax(&kinds, fields);
    Ok(())
}

fn indirect_tax(kinds: &[&str], fields: &mut Fields) {
    let name = |code: &str| match code {
        IPSI => "IPSI",
        IGIC => "IGIC",
        _ => "IVA",
    };
    if let Some(tax) = kinds.iter().find(|k| **k != VAT) {
        set_indirect_tax(fields, name(tax));
    }
    if kinds.len() > 1 {
        let names: Vec<&str> = kinds.iter().map(|k| name(k)).collect();
        note(
            fields,
            "mixed_indirect_taxes",
            format!(
                "La factura mezcla impuestos indirectos ({}); la cuota los suma.",
                names.join(", ")
            ),
        );
    }
}

fn withholding(invoice: &Element, fields: &mut Fields) -> Result<(), EinvoiceError> {
    let invoice_level = invoice.find_all(&["TaxesWithheld", "Tax"]);
    let withheld = if invoice_level.is_empty() {
        invoice.find_all(&["Items", "InvoiceLine", "TaxesWithheld", "Tax"])
    } else {
        invoice_level
    };
    let broken_down = !withheld.is_empty();
    let mut irpf = None;
    let mut rates: Vec<Decimal> = Vec::new();
    for tax in withheld {
        let code = tax.text_at(&["TaxTypeCode"]).unwrap_or_default();
        let tax_amount = amount(tax, &["TaxAmount", "TotalAmount"])?.unwrap_or_default();
        if code != IRPF {
            note(
                fields,
                "other_withholding",
                format!("Retención de código {code} (no IRPF) de {tax_amount}, no sumada al IRPF."),
            );
            continue;
        }
        irpf = Some(irpf.unwrap_or(Decimal::ZERO) + tax_amount);
        if let Some(rate) = amount(tax, &["TaxRate"])?.map(|r| r.normalize())
            && !rates.contains(&rate)
        {
            rates.push(rate);
        }
    }
    let stated = amount(invoice, &["InvoiceTotals", "TotalTaxesWithheld"])?;
    if !broken_down && let Some(stated) = stated.filter(|s| !s.is_zero()) {
        irpf = Some(stated);
        note(
            fields,
            "withholding_without_breakdown",
            format!("Retención total de {stated} sin desglose por impuesto; se toma como IRPF."),
        );
    }
    if let [rate] = rates.as_slice() {
        fields.irpf_rate = exact(Some(*rate));
    } else if rates.len() > 1 {
        note(
            fields,
            "several_irpf_rates",
            "La retención de IRPF tiene varios tipos; no se indica un tipo único.".to_string(),
        );
    }
    fields.irpf_amount = exact(irpf);
    Ok(())
}

fn totals(invoice: &Element, fields: &mut Fields) -> Result<(), EinvoiceError> {
    let totals = |name| amount(invoice, &["InvoiceTotals", name]);
    fields.base = exact(totals("TotalGrossAmountBeforeTaxes")?);
    let total = totals("InvoiceTotal")?;
    fields.total = exact(total);
    if let Some(advances) = totals("TotalPaymentsOnAccount")?.filter(|a| !a.is_zero()) {
        note(
            fields,
            "prepaid_amount",
            format!("Pagos a cuenta (anticipos) de {advances}, no restados del total."),
        );
    }
    let payable = totals("TotalExecutableAmount")?;
    if let (Some(payable), Some(total)) = (payable, total)
        && payable != total
    {
        note(
            fields,
            "payable_differs",
            format!(
                "El importe a pagar (TotalExecutableAmount {payable}) difiere del total de la factura (InvoiceTotal {total})."
            ),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xml_tree as tree;
    use rust_decimal::dec;

    fn tax(code: &str, rate: &str, base: &str, amount: &str, surcharge: &str) -> String {
        format!(
            "<Tax><TaxTypeCode>{code}</TaxTypeCode><TaxRate>{rate}</TaxRate>\
             <TaxableBase><TotalAmount>{base}</TotalAmount></TaxableBase>\
             <TaxAmount><TotalAmount>{amount}</TotalAmount></TaxAmount>{surcharge}</Tax>"
        )
    }

    fn invoice(number: &str, outputs: &str, withheld: &str, totals: &str) -> String {
        format!(
            "<Invoice><InvoiceHeader>{number}<InvoiceDocumentType>FC</InvoiceDocumentType>\
             <InvoiceClass>OO</InvoiceClass></InvoiceHeader>\
             <InvoiceIssueData><IssueDate>2026-03-02</IssueDate><InvoiceCurrencyCode>EUR</InvoiceCurrencyCode></InvoiceIssueData>\
             <TaxesOutputs>{outputs}</TaxesOutputs>{withheld}<InvoiceTotals>{totals}</InvoiceTotals></Invoice>"
        )
    }

    fn facturae(invoices: &str) -> Vec<Fields> {
        facturae_with_header("", invoices)
    }

    fn facturae_with_header(header: &str, invoices: &str) -> Vec<Fields> {
        let xml = format!(
            "<fe:Facturae xmlns:fe=\"http://www.facturae.es/Facturae/2009/v3.2/Facturae\">\
             <FileHeader>{header}</FileHeader><Parties><SellerParty><TaxIdentification><TaxIdentificationNumber>ES 12.345.678-Z</TaxIdentificationNumber></TaxIdentification>\
             <Individual><Name>Ana</Name><FirstSurname>García</FirstSurname></Individual></SellerParty>\
             <BuyerParty><TaxIdentification><TaxIdentificationNumber>B64717838</TaxIdentificationNumber></TaxIdentification>\
             <LegalEntity><CorporateName>Taller Ana SL</CorporateName></LegalEntity></BuyerParty></Parties>\
             <Invoices>{invoices}</Invoices></fe:Facturae>"
        );
        let (format, read) = crate::extraction::einvoice::read(xml.as_bytes()).unwrap();
        assert_eq!(format, crate::extraction::einvoice::Format::Facturae);
        read
    }

    #[test]
    fn a_batch_gives_one_reading_per_invoice_with_series_surcharge_and_igic() {
        let first = invoice(
            "<InvoiceSeriesCode>A-</InvoiceSeriesCode><InvoiceNumber>147</InvoiceNumber>",
            &tax(
                "01",
                "21.00",
                "100.00",
                "21.00",
                "<EquivalenceSurcharge>5.20</EquivalenceSurcharge>\
                 <EquivalenceSurchargeAmount><TotalAmount>5.20</TotalAmount></EquivalenceSurchargeAmount>",
            ),
            "",
            "<TotalGrossAmountBeforeTaxes>100.00</TotalGrossAmountBeforeTaxes><InvoiceTotal>126.20</InvoiceTotal>\
             <TotalExecutableAmount>126.20</TotalExecutableAmount>",
        );
        let second = invoice(
            "<InvoiceSeriesCode>B</InvoiceSeriesCode><InvoiceNumber>B7</InvoiceNumber>",
            &tax("03", "7.0", "200.004", "14.0003", ""),
            "",
            "<TotalGrossAmountBeforeTaxes>200.004</TotalGrossAmountBeforeTaxes><InvoiceTotal>214.00</InvoiceTotal>",
        );
        let read = facturae(&format!("{first}{second}"));
        assert_eq!(read.len(), 2);
        let a = &read[0];
        assert_eq!(a.invoice_number.as_ref().unwrap().value, "A-147");
        assert_eq!(a.issuer_nif.as_ref().unwrap().value, "12345678Z");
        assert_eq!(a.issuer_name.as_ref().unwrap().value, "Ana García");
        assert_eq!(a.recipient_name.as_ref().unwrap().value, "Taller Ana SL");
        assert_eq!(a.vat_amount.as_ref().unwrap().value, dec!(21.00));
        assert_eq!(
            a.vat_breakdown,
            vec![VatLine {
                rate: dec!(21),
                base: dec!(100.00),
                vat_amount: dec!(21.00),
                surcharge_rate: Some(dec!(5.2)),
                surcharge_amount: Some(dec!(5.20)),
            }]
        );
        assert_eq!(a.total.as_ref().unwrap().value, dec!(126.20));
        assert_eq!(a.irpf_amount, None);
        assert!(
            a.notes
                .iter()
                .any(|(c, m)| c == "several_invoices" && m.contains("2 facturas"))
        );
        let b = &read[1];
        assert_eq!(b.invoice_number.as_ref().unwrap().value, "B7");
        assert_eq!(b.indirect_tax.as_deref(), Some("IGIC"));
        assert_eq!(b.vat_amount.as_ref().unwrap().value, dec!(14.00));
        assert_eq!(b.base.as_ref().unwrap().value, dec!(200.00));
        assert!(b.notes.iter().any(|(c, _)| c == "amounts_rounded"));
    }

    #[test]
    fn irpf_is_read_from_the_invoice_lines_when_the_invoice_level_lacks_it() {
        let mut xml = invoice(
            "<InvoiceNumber>7</InvoiceNumber>",
            &tax("01", "21", "1000", "210", ""),
            "",
            "<TotalGrossAmountBeforeTaxes>1000</TotalGrossAmountBeforeTaxes><TotalTaxesWithheld>150</TotalTaxesWithheld>\
             <InvoiceTotal>1060</InvoiceTotal><TotalExecutableAmount>1060</TotalExecutableAmount>",
        );
        xml = xml.replace(
            "</Invoice>",
            "<Items><InvoiceLine><TaxesWithheld><Tax><TaxTypeCode>04</TaxTypeCode><TaxRate>15.00</TaxRate>\
             <TaxableBase><TotalAmount>1000</TotalAmount></TaxableBase><TaxAmount><TotalAmount>150</TotalAmount></TaxAmount>\
             </Tax></TaxesWithheld></InvoiceLine></Items></Invoice>",
        );
        let read = facturae(&xml);
        assert_eq!(read[0].irpf_amount.as_ref().unwrap().value, dec!(150));
        assert_eq!(read[0].irpf_rate.as_ref().unwrap().value, dec!(15));
        assert_eq!(read[0].total.as_ref().unwrap().value, dec!(1060));
        assert!(read[0].notes.is_empty(), "{:?}", read[0].notes);
    }

    #[test]
    fn an_unbroken_down_withholding_and_a_payable_difference_are_noted() {
        let read = facturae(&invoice(
            "<InvoiceNumber>8</InvoiceNumber>",
            &tax("01", "21", "100", "21", ""),
            "",
            "<TotalGrossAmountBeforeTaxes>100</TotalGrossAmountBeforeTaxes><TotalTaxesWithheld>15</TotalTaxesWithheld>\
             <InvoiceTotal>106</InvoiceTotal><TotalPaymentsOnAccount>50</TotalPaymentsOnAccount>\
             <TotalExecutableAmount>56</TotalExecutableAmount>",
        ));
        let codes: Vec<&str> = read[0].notes.iter().map(|(c, _)| c.as_str()).collect();
        assert_eq!(
            codes,
            [
                "withholding_without_breakdown",
                "prepaid_amount",
                "payable_differs"
            ]
        );
        assert_eq!(read[0].irpf_amount.as_ref().unwrap().value, dec!(15));
        assert_eq!(read[0].total.as_ref().unwrap().value, dec!(106));
    }

    #[test]
    fn self_billing_and_other_taxes_and_withholdings_are_noted() {
        let read = facturae_with_header(
            "<InvoiceIssuerType>RE</InvoiceIssuerType>",
            &invoice(
                "<InvoiceNumber>9</InvoiceNumber>",
                &format!(
                    "{}{}",
                    tax("01", "21", "100", "21", ""),
                    tax("07", "5.11", "100", "5.11", "")
                ),
                "<TaxesWithheld><Tax><TaxTypeCode>28</TaxTypeCode><TaxRate>24</TaxRate>\
                 <TaxAmount><TotalAmount>24</TotalAmount></TaxAmount></Tax></TaxesWithheld>",
                "<TotalGrossAmountBeforeTaxes>100</TotalGrossAmountBeforeTaxes><TotalTaxesWithheld>24</TotalTaxesWithheld>\
                 <InvoiceTotal>102.11</InvoiceTotal>",
            ),
        );
        let codes: Vec<&str> = read[0].notes.iter().map(|(c, _)| c.as_str()).collect();
        assert_eq!(codes, ["self_billed", "other_tax", "other_withholding"]);
        assert_eq!(read[0].vat_amount.as_ref().unwrap().value, dec!(21));
        assert_eq!(read[0].vat_breakdown.len(), 1);
        assert_eq!(read[0].irpf_amount, None);
    }

    #[test]
    fn unreadable_values_name_their_element() {
        let xml = format!(
            "<fe:Facturae xmlns:fe=\"http://www.facturae.gob.es/formato/Versiones/Facturaev3_2_2.xml\"><Invoices>{}</Invoices></fe:Facturae>",
            invoice("", "", "", "<InvoiceTotal>1.234,56</InvoiceTotal>")
        );
        let (_, document) = tree::parse(&xml).unwrap();
        let error = read(&document).unwrap_err().to_string();
        assert!(
            error.contains("InvoiceTotals/InvoiceTotal") && error.contains("1.234,56"),
            "{error}"
        );
        let xml = xml.replace("2026-03-02", "02/03/2026");
        let (_, document) = tree::parse(&xml).unwrap();
        assert!(
            read(&document)
                .unwrap_err()
                .to_string()
                .contains("IssueDate")
        );
        let empty = r#"<fe:Facturae xmlns:fe="http://www.facturae.gob.es/formato/Versiones/Facturaev3_2_2.xml"/>"#;
        let (_, document) = tree::parse(empty).unwrap();
        assert!(
            read(&document)
                .unwrap_err()
                .to_string()
                .contains("Invoices/Invoice")
        );
    }
}
