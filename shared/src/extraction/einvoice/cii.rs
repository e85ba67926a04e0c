//! UN/CEFACT CII D16B `CrossIndustryInvoice` (Factur-X and ZUGFeRD 2 in
//! every profile, XRechnung CII) into the EN 16931 reading of `en16931`.
//!
//! - Parties: `Name`; the VAT `SpecifiedTaxRegistration/ID` (scheme VA), else
//!   the national tax number (FC), else `SpecifiedLegalOrganization/ID`, else
//!   a registration of any scheme.
//! - The header `ApplicableTradeTax` elements of type VAT are the breakdown;
//!   any other type has no standard meaning and is only noted.
//! - `TaxTotalAmount` in the invoice currency (a second one may be in the
//!   tax currency).

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::EinvoiceError;
use super::en16931::{self, Document, Group, Trader};
use super::values::{self, decimal_at, decimal_of};
use crate::extraction::fields::{Fields, ItemLine};
use crate::xml_tree::Element;

const FORMAT: &str = "CII";
const SETTLEMENT: [&str; 2] = [
    "SupplyChainTradeTransaction",
    "ApplicableHeaderTradeSettlement",
];

pub fn read(root: &Element) -> Result<Fields, EinvoiceError> {
    let header = root.child("ExchangedDocument");
    let agreement = root.find(&[
        "SupplyChainTradeTransaction",
        "ApplicableHeaderTradeAgreement",
    ]);
    let settlement = root.find(&SETTLEMENT);
    let summation =
        settlement.and_then(|s| s.child("SpecifiedTradeSettlementHeaderMonetarySummation"));
    let currency = settlement
        .and_then(|s| s.text_at(&["InvoiceCurrencyCode"]))
        .map(str::to_string);
    let type_code = header
        .and_then(|h| h.text_at(&["TypeCode"]))
        .unwrap_or_default();
    let sum = |name| match summation {
        Some(summation) => decimal_at(summation, &[name], FORMAT),
        None => Ok(None),
    };
    let (groups, other_taxes) = match settlement {
        Some(settlement) => trade_taxes(settlement)?,
        None => (Vec::new(), Vec::new()),
    };
    let document = Document {
        number: header.and_then(|h| h.text_at(&["ID"])).map(str::to_string),
        issue_date: header.map(issue_date).transpose()?.flatten(),
        seller: trader(agreement.and_then(|a| a.child("SellerTradeParty"))),
        buyer: trader(agreement.and_then(|a| a.child("BuyerTradeParty"))),
        credit_note: en16931::is_credit_note_code(type_code),
        self_billed: en16931::is_self_billed_code(type_code),
        notes: header
            .map(|h| {
                h.find_all(&["IncludedNote", "Content"])
                    .into_iter()
                    .map(|c| c.text().to_string())
                    .collect()
            })
            .unwrap_or_default(),
        groups,
        tax_total: summation
            .map(|s| tax_total(s, currency.as_deref()))
            .transpose()?
            .flatten(),
        tax_exclusive: sum("TaxBasisTotalAmount")?,
        tax_inclusive: sum("GrandTotalAmount")?,
        prepaid: sum("TotalPrepaidAmount")?,
        payable: sum("DuePayableAmount")?,
        withholding: None,
        currency,
        other_taxes,
        lines: lines(root)?,
        due_date: settlement
            .and_then(|s| s.find(&["SpecifiedTradePaymentTerms", "DueDateDateTime"]))
            .map(|d| date_time(d, "SpecifiedTradePaymentTerms/DueDateDateTime"))
            .transpose()?
            .flatten(),
        iban: settlement
            .into_iter()
            .flat_map(|s| s.children("SpecifiedTradeSettlementPaymentMeans"))
            .find_map(|m| m.text_at(&["PayeePartyCreditorFinancialAccount", "IBANID"]))
            .and_then(values::iban),
    };
    Ok(en16931::fields(&document))
}

/// `IncludedSupplyChainTradeLineItem`: product name, billed quantity, net
/// price and `LineTotalAmount` as stated.
fn lines(root: &Element) -> Result<Vec<ItemLine>, EinvoiceError> {
    root.find_all(&[
        "SupplyChainTradeTransaction",
        "IncludedSupplyChainTradeLineItem",
    ])
    .into_iter()
    .map(|line| {
        let settlement = line.child("SpecifiedLineTradeSettlement");
        let at = |parent: Option<&Element>, path: &[&str]| match parent {
            Some(parent) => decimal_at(parent, path, FORMAT),
            None => Ok(None),
        };
        Ok(ItemLine {
            description: line
                .text_at(&["SpecifiedTradeProduct", "Name"])
                .and_then(|n| values::name(&[n]))
                .unwrap_or_default(),
            quantity: at(
                line.child("SpecifiedLineTradeDelivery"),
                &["BilledQuantity"],
            )?,
            unit_price: at(
                line.child("SpecifiedLineTradeAgreement"),
                &["NetPriceProductTradePrice", "ChargeAmount"],
            )?,
            amount: at(
                settlement,
                &[
                    "SpecifiedTradeSettlementLineMonetarySummation",
                    "LineTotalAmount",
                ],
            )?,
            vat_rate: at(settlement, &["ApplicableTradeTax", "RateApplicablePercent"])?,
            confidence: 1.0,
        })
    })
    .collect()
}

/// `IssueDateTime/DateTimeString` in format 102 (the only one EN 16931 allows).
fn issue_date(header: &Element) -> Result<Option<NaiveDate>, EinvoiceError> {
    match header.child("IssueDateTime") {
        Some(element) => date_time(element, "ExchangedDocument/IssueDateTime"),
        None => Ok(None),
    }
}

/// The `DateTimeString` of a date element, in format 102.
fn date_time(element: &Element, at: &str) -> Result<Option<NaiveDate>, EinvoiceError> {
    let Some(string) = element.child("DateTimeString") else {
        return Ok(None);
    };
    let path = format!("{at}/DateTimeString");
    let path = path.as_str();
    let text = string.text();
    match string.attribute("format") {
        Some("102") | None => values::compact_date(text)
            .map(Some)
            .ok_or_else(|| values::bad_date(FORMAT, path, text)),
        Some(other) => Err(EinvoiceError::Malformed(format!(
            "{FORMAT}: {path} has format {other:?}; only 102 (YYYYMMDD) is a date"
        ))),
    }
}

fn trader(party: Option<&Element>) -> Trader {
    let Some(party) = party else {
        return Trader::default();
    };
    let registration = |scheme: Option<&str>| {
        party
            .children("SpecifiedTaxRegistration")
            .filter_map(|r| r.child("ID"))
            .find(|id| scheme.is_none_or(|s| id.attribute("schemeID") == Some(s)))
            .map(Element::text)
            .filter(|t| !t.is_empty())
    };
    let tax_id = registration(Some("VA"))
        .or_else(|| registration(Some("FC")))
        .or_else(|| party.text_at(&["SpecifiedLegalOrganization", "ID"]))
        .or_else(|| registration(None))
        .and_then(values::tax_id);
    Trader {
        name: party.text_at(&["Name"]).and_then(|n| values::name(&[n])),
        tax_id,
    }
}

/// `TaxTotalAmount` in the invoice currency, else the first.
fn tax_total(
    summation: &Element,
    currency: Option<&str>,
) -> Result<Option<Decimal>, EinvoiceError> {
    let amounts: Vec<&Element> = summation.children("TaxTotalAmount").collect();
    let chosen = amounts
        .iter()
        .find(|a| currency.is_some() && a.attribute("currencyID") == currency)
        .or_else(|| amounts.first());
    chosen
        .map(|a| {
            decimal_of(
                a,
                &[
                    "SpecifiedTradeSettlementHeaderMonetarySummation",
                    "TaxTotalAmount",
                ],
                FORMAT,
            )
        })
        .transpose()
}

type TradeTaxes = (Vec<Group>, Vec<(String, Decimal)>);

/// The VAT groups, and the other taxes as (type code, amount).
fn trade_taxes(settlement: &Element) -> Result<TradeTaxes, EinvoiceError> {
    let mut groups = Vec::new();
    let mut others = Vec::new();
    for tax in settlement.children("ApplicableTradeTax") {
        let amount = |name: &str| {
            decimal_at(tax, &[name], FORMAT)
                .map(Option::unwrap_or_default)
                .map_err(|_| {
                    EinvoiceError::Malformed(format!(
                        "{FORMAT}: ApplicableTradeTax/{name} is {:?}, not a decimal number",
                        tax.text_at(&[name]).unwrap_or_default()
                    ))
                })
        };
        let type_code = tax.text_at(&["TypeCode"]).unwrap_or("VAT");
        if type_code != "VAT" {
            others.push((type_code.to_string(), amount("CalculatedAmount")?));
            continue;
        }
        groups.push(Group {
            category: tax
                .text_at(&["CategoryCode"])
                .unwrap_or_default()
                .to_string(),
            percent: decimal_at(tax, &["RateApplicablePercent"], FORMAT)?,
            base: amount("BasisAmount")?,
            tax: amount("CalculatedAmount")?,
        });
    }
    Ok((groups, others))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xml_tree as tree;
    use rust_decimal::dec;

    fn read_xml(exchanged: &str, settlement: &str) -> Result<Fields, EinvoiceError> {
        let xml = format!(
            r#"<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
             xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"
             xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">
             <rsm:ExchangedDocument>{exchanged}</rsm:ExchangedDocument>
             <rsm:SupplyChainTradeTransaction>
               <ram:ApplicableHeaderTradeAgreement>
                 <ram:SellerTradeParty><ram:Name>Ana</ram:Name>
                   <ram:SpecifiedTaxRegistration><ram:ID schemeID="FC">201/113/40209</ram:ID></ram:SpecifiedTaxRegistration>
                   <ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">ES12345678Z</ram:ID></ram:SpecifiedTaxRegistration>
                 </ram:SellerTradeParty>
               </ram:ApplicableHeaderTradeAgreement>
               <ram:ApplicableHeaderTradeSettlement><ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>{settlement}</ram:ApplicableHeaderTradeSettlement>
             </rsm:SupplyChainTradeTransaction></rsm:CrossIndustryInvoice>"#
        );
        let (_, root) = tree::parse(&xml).unwrap();
        read(&root)
    }

    #[test]
    fn a_non_vat_trade_tax_is_noted_and_not_subtracted() {
        let fields = read_xml(
            r#"<ram:ID>9</ram:ID><ram:TypeCode>380</ram:TypeCode>
               <ram:IssueDateTime><udt:DateTimeString format="102">20260115</udt:DateTimeString></ram:IssueDateTime>"#,
            r#"<ram:ApplicableTradeTax><ram:CalculatedAmount>21.00</ram:CalculatedAmount><ram:TypeCode>VAT</ram:TypeCode>
                 <ram:BasisAmount>100.00</ram:BasisAmount><ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>21</ram:RateApplicablePercent></ram:ApplicableTradeTax>
               <ram:ApplicableTradeTax><ram:CalculatedAmount>15.00</ram:CalculatedAmount><ram:TypeCode>IRPF</ram:TypeCode></ram:ApplicableTradeTax>
               <ram:SpecifiedTradeSettlementHeaderMonetarySummation>
                 <ram:TaxBasisTotalAmount>100.00</ram:TaxBasisTotalAmount>
                 <ram:TaxTotalAmount currencyID="USD">25.00</ram:TaxTotalAmount>
                 <ram:TaxTotalAmount currencyID="EUR">21.00</ram:TaxTotalAmount>
                 <ram:GrandTotalAmount>121.00</ram:GrandTotalAmount><ram:DuePayableAmount>121.00</ram:DuePayableAmount>
               </ram:SpecifiedTradeSettlementHeaderMonetarySummation>"#,
        )
        .unwrap();
        assert_eq!(fields.issuer_nif.unwrap().value, "12345678Z");
        assert_eq!(
            fields.invoice_date.unwrap().value,
            NaiveDate::from_ymd_opt(2026, 1, 15).unwrap()
        );
        assert_eq!(fields.vat_amount.unwrap().value, dec!(21.00));
        assert_eq!(fields.vat_breakdown.len(), 1);
        assert_eq!(fields.irpf_amount, None);
        assert_eq!(fields.total.unwrap().value, dec!(121.00));
        assert_eq!(fields.notes.len(), 1);
        assert_eq!(fields.notes[0].0, "other_tax");
    }

    #[test]
    fn dates_in_other_formats_and_bad_amounts_are_errors() {
        let error = read_xml(
            r#"<ram:IssueDateTime><udt:DateTimeString format="610">202601</udt:DateTimeString></ram:IssueDateTime>"#,
            "",
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("610"), "{error}");
        let error = read_xml(
            "",
            "<ram:ApplicableTradeTax><ram:BasisAmount>cien</ram:BasisAmount></ram:ApplicableTradeTax>",
        )
        .unwrap_err()
        .to_string();
        assert!(
            error.contains("BasisAmount") && error.contains("cien"),
            "{error}"
        );
    }
}
