//! UBL 2.1 `Invoice` and `CreditNote` (EN 16931, Peppol BIS 3) into the
//! EN 16931 reading of `en16931`.
//!
//! - Parties: `PartyLegalEntity/RegistrationName`, else `PartyName/Name`; the
//!   VAT `PartyTaxScheme/CompanyID`, else `PartyLegalEntity/CompanyID`, else
//!   the `CompanyID` of another tax scheme.
//! - The VAT total and breakdown from the `TaxTotal` in the document currency
//!   (a second one may state the VAT in the tax currency, BT-111).
//! - A `WithholdingTaxTotal` (not EN 16931, but valid UBL) is the IRPF.

use rust_decimal::Decimal;

use super::EinvoiceError;
use super::en16931::{self, Document, Group, Trader};
use super::values::{self, decimal_at, decimal_of};
use crate::extraction::fields::{Fields, ItemLine};
use crate::xml_tree::Element;

const FORMAT: &str = "UBL";

pub fn read(root: &Element) -> Result<Fields, EinvoiceError> {
    let currency = root.text_at(&["DocumentCurrencyCode"]).map(str::to_string);
    let type_code = root
        .text_at(&["InvoiceTypeCode"])
        .or_else(|| root.text_at(&["CreditNoteTypeCode"]))
        .unwrap_or_default();
    let tax_total = tax_total(root, currency.as_deref());
    let totals = |name| decimal_at(root, &["LegalMonetaryTotal", name], FORMAT);
    let document = Document {
        number: root.text_at(&["ID"]).map(str::to_string),
        issue_date: issue_date(root)?,
        seller: trader(root.find(&["AccountingSupplierParty", "Party"])),
        buyer: trader(root.find(&["AccountingCustomerParty", "Party"])),
        credit_note: root.name == "CreditNote" || en16931::is_credit_note_code(type_code),
        self_billed: en16931::is_self_billed_code(type_code),
        notes: root
            .children("Note")
            .map(|n| n.text().to_string())
            .collect(),
        groups: tax_total.map(groups).transpose()?.unwrap_or_default(),
        tax_total: tax_total
            .map(|t| decimal_at(t, &["TaxAmount"], FORMAT))
            .transpose()?
            .flatten(),
        tax_exclusive: totals("TaxExclusiveAmount")?,
        tax_inclusive: totals("TaxInclusiveAmount")?,
        prepaid: totals("PrepaidAmount")?,
        payable: totals("PayableAmount")?,
        withholding: withholding(root)?,
        currency,
        other_taxes: Vec::new(),
        lines: lines(root)?,
        due_date: due_date(root)?,
        iban: root
            .children("PaymentMeans")
            .find_map(|means| means.text_at(&["PayeeFinancialAccount", "ID"]))
            .and_then(values::iban),
    };
    Ok(en16931::fields(&document))
}

/// `InvoiceLine` (`CreditNoteLine` in a credit note): the item's name, else
/// its description; quantity, price and `LineExtensionAmount` as stated.
fn lines(root: &Element) -> Result<Vec<ItemLine>, EinvoiceError> {
    let (element, quantity) = if root.name == "CreditNote" {
        ("CreditNoteLine", "CreditedQuantity")
    } else {
        ("InvoiceLine", "InvoicedQuantity")
    };
    root.children(element)
        .map(|line| {
            Ok(ItemLine {
                description: line
                    .text_at(&["Item", "Name"])
                    .or_else(|| line.text_at(&["Item", "Description"]))
                    .and_then(|n| values::name(&[n]))
                    .unwrap_or_default(),
                quantity: decimal_at(line, &[quantity], FORMAT)?,
                unit_price: decimal_at(line, &["Price", "PriceAmount"], FORMAT)?,
                amount: decimal_at(line, &["LineExtensionAmount"], FORMAT)?,
                vat_rate: decimal_at(line, &["Item", "ClassifiedTaxCategory", "Percent"], FORMAT)?,
                confidence: 1.0,
            })
        })
        .collect()
}

/// `DueDate` (an invoice), else the first `PaymentMeans/PaymentDueDate` (a credit note).
fn due_date(root: &Element) -> Result<Option<chrono::NaiveDate>, EinvoiceError> {
    let (path, text) = match root.text_at(&["DueDate"]) {
        Some(text) => ("DueDate", text),
        None => match root
            .children("PaymentMeans")
            .find_map(|m| m.text_at(&["PaymentDueDate"]))
        {
            Some(text) => ("PaymentMeans/PaymentDueDate", text),
            None => return Ok(None),
        },
    };
    values::iso_date(text)
        .map(Some)
        .ok_or_else(|| values::bad_date(FORMAT, path, text))
}

fn issue_date(root: &Element) -> Result<Option<chrono::NaiveDate>, EinvoiceError> {
    root.text_at(&["IssueDate"])
        .map(|text| {
            values::iso_date(text).ok_or_else(|| values::bad_date(FORMAT, "IssueDate", text))
        })
        .transpose()
}

fn trader(party: Option<&Element>) -> Trader {
    let Some(party) = party else {
        return Trader::default();
    };
    let name = party
        .text_at(&["PartyLegalEntity", "RegistrationName"])
        .or_else(|| party.text_at(&["PartyName", "Name"]))
        .and_then(|n| values::name(&[n]));
    let scheme_id = |vat: bool| {
        party
            .children("PartyTaxScheme")
            .filter(|scheme| (scheme.text_at(&["TaxScheme", "ID"]) == Some("VAT")) == vat)
            .find_map(|scheme| scheme.text_at(&["CompanyID"]))
    };
    let tax_id = scheme_id(true)
        .or_else(|| party.text_at(&["PartyLegalEntity", "CompanyID"]))
        .or_else(|| scheme_id(false))
        .and_then(values::tax_id);
    Trader { name, tax_id }
}

/// The `TaxTotal` whose amount is in the document currency, else the first
/// with a breakdown, else the first.
fn tax_total<'a>(root: &'a Element, currency: Option<&str>) -> Option<&'a Element> {
    let totals: Vec<&Element> = root.children("TaxTotal").collect();
    let in_currency = totals.iter().find(|t| {
        currency.is_some()
            && t.find(&["TaxAmount"])
                .and_then(|a| a.attribute("currencyID"))
                == currency
    });
    in_currency
        .or_else(|| totals.iter().find(|t| t.child("TaxSubtotal").is_some()))
        .or_else(|| totals.first())
        .copied()
}

fn groups(tax_total: &Element) -> Result<Vec<Group>, EinvoiceError> {
    tax_total
        .children("TaxSubtotal")
        .map(|subtotal| {
            let required = |name: &str| {
                let path = ["TaxTotal", "TaxSubtotal", name];
                match subtotal.child(name) {
                    Some(element) => decimal_of(element, &path, FORMAT),
                    None => Err(EinvoiceError::Malformed(format!(
                        "{FORMAT}: a TaxSubtotal has no {name}"
                    ))),
                }
            };
            Ok(Group {
                category: subtotal
                    .text_at(&["TaxCategory", "ID"])
                    .unwrap_or_default()
                    .to_string(),
                percent: decimal_at(subtotal, &["TaxCategory", "Percent"], FORMAT)?,
                base: required("TaxableAmount")?,
                tax: required("TaxAmount")?,
            })
        })
        .collect()
}

/// Σ `WithholdingTaxTotal/TaxAmount`, with the rate when there is one.
fn withholding(root: &Element) -> Result<Option<(Option<Decimal>, Decimal)>, EinvoiceError> {
    let mut amount = None;
    let mut rates: Vec<Decimal> = Vec::new();
    for total in root.children("WithholdingTaxTotal") {
        let value = decimal_at(total, &["TaxAmount"], FORMAT)?.unwrap_or_default();
        amount = Some(amount.unwrap_or(Decimal::ZERO) + value);
        for percent in total.find_all(&["TaxSubtotal", "TaxCategory", "Percent"]) {
            let rate = decimal_of(percent, &["WithholdingTaxTotal", "Percent"], FORMAT)?;
            if !rates.contains(&rate) {
                rates.push(rate);
            }
        }
    }
    let rate = match rates.as_slice() {
        [rate] => Some(*rate),
        _ => None,
    };
    Ok(amount.map(|amount| (rate, amount)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::dec;

    const HEAD: &str = r#"<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">"#;

    fn read_xml(body: &str) -> Result<Fields, EinvoiceError> {
        let (_, root) = crate::xml_tree::parse(&format!("{HEAD}{body}</Invoice>")).unwrap();
        read(&root)
    }

    #[test]
    fn withholding_tax_total_and_tax_currency_total() {
        let fields = read_xml(
            r#"<cbc:ID>7</cbc:ID><cbc:IssueDate>2026-01-15</cbc:IssueDate><cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>
            <cbc:DocumentCurrencyCode>USD</cbc:DocumentCurrencyCode>
            <cac:AccountingSupplierParty><cac:Party><cac:PartyName><cbc:Name>Ana  García</cbc:Name></cac:PartyName>
              <cac:PartyLegalEntity><cbc:CompanyID>12345678-Z</cbc:CompanyID></cac:PartyLegalEntity></cac:Party></cac:AccountingSupplierParty>
            <cac:TaxTotal><cbc:TaxAmount currencyID="EUR">190.00</cbc:TaxAmount></cac:TaxTotal>
            <cac:TaxTotal><cbc:TaxAmount currencyID="USD">210.00</cbc:TaxAmount>
              <cac:TaxSubtotal><cbc:TaxableAmount currencyID="USD">1000.00</cbc:TaxableAmount><cbc:TaxAmount currencyID="USD">210.00</cbc:TaxAmount>
              <cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>21</cbc:Percent></cac:TaxCategory></cac:TaxSubtotal></cac:TaxTotal>
            <cac:WithholdingTaxTotal><cbc:TaxAmount currencyID="USD">150.00</cbc:TaxAmount>
              <cac:TaxSubtotal><cac:TaxCategory><cbc:Percent>15</cbc:Percent></cac:TaxCategory></cac:TaxSubtotal></cac:WithholdingTaxTotal>
            <cac:LegalMonetaryTotal><cbc:TaxExclusiveAmount currencyID="USD">1000.00</cbc:TaxExclusiveAmount>
              <cbc:TaxInclusiveAmount currencyID="USD">1210.00</cbc:TaxInclusiveAmount><cbc:PayableAmount currencyID="USD">1060.00</cbc:PayableAmount></cac:LegalMonetaryTotal>"#,
        )
        .unwrap();
        assert_eq!(fields.issuer_name.unwrap().value, "Ana García");
        assert_eq!(fields.issuer_nif.unwrap().value, "12345678Z");
        assert_eq!(fields.vat_amount.unwrap().value, dec!(210.00));
        assert_eq!(fields.irpf_amount.unwrap().value, dec!(150.00));
        assert_eq!(fields.irpf_rate.unwrap().value, dec!(15));
        assert_eq!(fields.total.unwrap().value, dec!(1060.00));
        assert_eq!(fields.currency.as_deref(), Some("USD"));
        assert!(fields.notes.is_empty(), "{:?}", fields.notes);
    }

    #[test]
    fn a_subtotal_without_amounts_or_a_bad_date_is_an_error() {
        let error = read_xml(
            "<cac:TaxTotal><cac:TaxSubtotal><cbc:TaxAmount>1</cbc:TaxAmount></cac:TaxSubtotal></cac:TaxTotal>",
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("TaxableAmount"), "{error}");
        let error = read_xml("<cbc:IssueDate>15.01.2026</cbc:IssueDate>")
            .unwrap_err()
            .to_string();
        assert!(error.contains("IssueDate"), "{error}");
    }
}
