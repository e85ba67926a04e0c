//! UN/CEFACT Cross Industry Invoice D16B in the Factur-X / ZUGFeRD EN 16931
//! profile (guideline `urn:cen.eu:en16931:2017`), the XML that the Factur-X
//! PDF embeds. The EN 16931 reading of the invoice is the UBL one
//! (`documents::en16931`), so both formats say the same.

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::en16931::{self, Document, Line, Trader, VatGroup};
use super::xml::{self, Node, branch, leaf, leaf_with, optional};
use crate::invoice::model::Invoice;
use crate::tax::money::cents;

const NS_RSM: &str = "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100";
const NS_RAM: &str =
    "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100";
const NS_QDT: &str = "urn:un:unece:uncefact:data:standard:QualifiedDataType:100";
const NS_UDT: &str = "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100";

/// The invoice as a CII `CrossIndustryInvoice` (type 381 when its total is negative).
pub fn cii(invoice: &Invoice) -> String {
    let doc = en16931::document(invoice);
    xml::document(
        "rsm:CrossIndustryInvoice",
        &[
            ("xmlns:rsm", NS_RSM),
            ("xmlns:ram", NS_RAM),
            ("xmlns:qdt", NS_QDT),
            ("xmlns:udt", NS_UDT),
        ],
        vec![
            branch(
                "rsm:ExchangedDocumentContext",
                vec![branch(
                    "ram:GuidelineSpecifiedDocumentContextParameter",
                    vec![leaf("ram:ID", en16931::CUSTOMIZATION_ID)],
                )],
            ),
            exchanged_document(&doc),
            transaction(&doc),
        ],
    )
}

/// A date as CII writes it: format 102 (`YYYYMMDD`), in the `udt` or `qdt` type.
fn date(name: &'static str, element: &'static str, value: NaiveDate) -> Node {
    branch(
        name,
        vec![leaf_with(
            element,
            ("format", "102"),
            value.format("%Y%m%d").to_string(),
        )],
    )
}

fn amount(name: &'static str, value: Decimal) -> Node {
    leaf(name, cents(value))
}

fn exchanged_document(doc: &Document) -> Node {
    let mut children = vec![
        leaf("ram:ID", &doc.number),
        leaf("ram:TypeCode", doc.type_code),
        date("ram:IssueDateTime", "udt:DateTimeString", doc.issue_date),
    ];
    children.extend(
        doc.notes
            .iter()
            .map(|note| branch("ram:IncludedNote", vec![leaf("ram:Content", note)])),
    );
    branch("rsm:ExchangedDocument", children)
}

fn transaction(doc: &Document) -> Node {
    let mut children: Vec<Node> = doc.lines.iter().map(line).collect();
    children.extend([
        branch(
            "ram:ApplicableHeaderTradeAgreement",
            vec![
                party("ram:SellerTradeParty", &doc.seller),
                party("ram:BuyerTradeParty", &doc.buyer),
            ],
        ),
        branch(
            "ram:ApplicableHeaderTradeDelivery",
            vec![
                optional(doc.deliver_to_country.as_ref(), |code| {
                    branch(
                        "ram:ShipToTradeParty",
                        vec![branch(
                            "ram:PostalTradeAddress",
                            vec![leaf("ram:CountryID", code)],
                        )],
                    )
                }),
                branch(
                    "ram:ActualDeliverySupplyChainEvent",
                    vec![date(
                        "ram:OccurrenceDateTime",
                        "udt:DateTimeString",
                        doc.delivery_date,
                    )],
                ),
            ],
        ),
        settlement(doc),
    ]);
    branch("rsm:SupplyChainTradeTransaction", children)
}

fn line(line: &Line) -> Node {
    branch(
        "ram:IncludedSupplyChainTradeLineItem",
        vec![
            branch(
                "ram:AssociatedDocumentLineDocument",
                vec![leaf("ram:LineID", line.id.to_string())],
            ),
            branch(
                "ram:SpecifiedTradeProduct",
                vec![leaf("ram:Name", &line.name)],
            ),
            branch(
                "ram:SpecifiedLineTradeAgreement",
                vec![branch(
                    "ram:NetPriceProductTradePrice",
                    vec![leaf("ram:ChargeAmount", en16931::price(line.price))],
                )],
            ),
            branch(
                "ram:SpecifiedLineTradeDelivery",
                vec![leaf_with(
                    "ram:BilledQuantity",
                    ("unitCode", en16931::UNIT_CODE),
                    line.quantity.to_string(),
                )],
            ),
            branch(
                "ram:SpecifiedLineTradeSettlement",
                vec![
                    branch(
                        "ram:ApplicableTradeTax",
                        vec![
                            leaf("ram:TypeCode", "VAT"),
                            leaf("ram:CategoryCode", line.category.code),
                            optional(line.category.percent, |p| {
                                leaf("ram:RateApplicablePercent", p.to_string())
                            }),
                        ],
                    ),
                    optional(line.discount.as_ref(), |discount| {
                        branch(
                            "ram:SpecifiedTradeAllowanceCharge",
                            vec![
                                branch("ram:ChargeIndicator", vec![leaf("udt:Indicator", "false")]),
                                leaf("ram:CalculationPercent", discount.percent.to_string()),
                                amount("ram:BasisAmount", discount.base),
                                amount("ram:ActualAmount", discount.amount),
                                leaf("ram:ReasonCode", en16931::DISCOUNT_CODE),
                                leaf("ram:Reason", en16931::DISCOUNT_REASON),
                            ],
                        )
                    }),
                    branch(
                        "ram:SpecifiedTradeSettlementLineMonetarySummation",
                        vec![amount("ram:LineTotalAmount", line.net)],
                    ),
                ],
            ),
        ],
    )
}

fn party(name: &'static str, trader: &Trader) -> Node {
    branch(
        name,
        vec![
            leaf("ram:Name", &trader.name),
            optional(trader.legal_id.as_ref(), |id| {
                branch("ram:SpecifiedLegalOrganization", vec![leaf("ram:ID", id)])
            }),
            branch(
                "ram:PostalTradeAddress",
                vec![
                    optional(trader.postal_code.as_ref(), |v| leaf("ram:PostcodeCode", v)),
                    optional(trader.street.as_ref(), |v| leaf("ram:LineOne", v)),
                    optional(trader.city.as_ref(), |v| leaf("ram:CityName", v)),
                    leaf("ram:CountryID", &trader.country),
                    optional(trader.province.as_ref(), |v| {
                        leaf("ram:CountrySubDivisionName", v)
                    }),
                ],
            ),
            optional(trader.email.as_ref(), |email| {
                branch(
                    "ram:URIUniversalCommunication",
                    vec![leaf_with("ram:URIID", ("schemeID", "EM"), email)],
                )
            }),
            optional(trader.vat_id.as_ref(), |id| {
                branch(
                    "ram:SpecifiedTaxRegistration",
                    vec![leaf_with("ram:ID", ("schemeID", "VA"), id)],
                )
            }),
        ],
    )
}

fn settlement(doc: &Document) -> Node {
    let mut children = vec![
        leaf("ram:InvoiceCurrencyCode", &doc.currency),
        optional(doc.payment.as_ref(), |means| {
            branch(
                "ram:SpecifiedTradeSettlementPaymentMeans",
                vec![
                    leaf("ram:TypeCode", means.code),
                    optional(means.payer_iban.as_ref(), |iban| {
                        branch(
                            "ram:PayerPartyDebtorFinancialAccount",
                            vec![leaf("ram:IBANID", iban)],
                        )
                    }),
                    optional(means.payee_iban.as_ref(), |iban| {
                        branch(
                            "ram:PayeePartyCreditorFinancialAccount",
                            vec![leaf("ram:IBANID", iban)],
                        )
                    }),
                ],
            )
        }),
    ];
    children.extend(doc.groups.iter().map(trade_tax));
    children.extend([
        optional(doc.due_date, |d| {
            branch(
                "ram:SpecifiedTradePaymentTerms",
                vec![date("ram:DueDateDateTime", "udt:DateTimeString", d)],
            )
        }),
        monetary_summation(doc),
        optional(doc.preceding.as_ref(), |(number, issued)| {
            branch(
                "ram:InvoiceReferencedDocument",
                vec![
                    leaf("ram:IssuerAssignedID", number),
                    date("ram:FormattedIssueDateTime", "qdt:DateTimeString", *issued),
                ],
            )
        }),
    ]);
    branch("ram:ApplicableHeaderTradeSettlement", children)
}

fn trade_tax(group: &VatGroup) -> Node {
    branch(
        "ram:ApplicableTradeTax",
        vec![
            amount("ram:CalculatedAmount", group.tax),
            leaf("ram:TypeCode", "VAT"),
            optional(group.exemption_reason(), |r| leaf("ram:ExemptionReason", r)),
            amount("ram:BasisAmount", group.base),
            leaf("ram:CategoryCode", group.category.code),
            optional(group.exemption_code(), |c| {
                leaf("ram:ExemptionReasonCode", c)
            }),
            optional(group.category.percent, |p| {
                leaf("ram:RateApplicablePercent", p.to_string())
            }),
        ],
    )
}

fn monetary_summation(doc: &Document) -> Node {
    branch(
        "ram:SpecifiedTradeSettlementHeaderMonetarySummation",
        vec![
            amount("ram:LineTotalAmount", doc.line_total),
            amount("ram:TaxBasisTotalAmount", doc.tax_exclusive),
            leaf_with(
                "ram:TaxTotalAmount",
                ("currencyID", &doc.currency),
                cents(doc.tax),
            ),
            amount("ram:GrandTotalAmount", doc.tax_inclusive),
            optional(doc.prepaid, |p| amount("ram:TotalPrepaidAmount", p)),
            amount("ram:DuePayableAmount", doc.payable),
        ],
    )
}
