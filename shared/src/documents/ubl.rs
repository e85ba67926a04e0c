//! UBL 2.1 invoices and credit notes under EN 16931 (customization
//! `urn:cen.eu:en16931:2017`). The EN 16931 reading of a stored invoice (VAT
//! categories, IRPF, surcharge, credit notes) lives in `documents::en16931`, shared with
//! the CII syntax; `documents::xml` is the small writer both use.

use rust_decimal::Decimal;

use super::en16931::{self, Document, Line, Trader, VatGroup};
use super::xml::{self, Node, branch, leaf, leaf_with, optional};
use crate::invoice::model::Invoice;
use crate::tax::money::cents;

const NS_INVOICE: &str = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2";
const NS_CREDIT_NOTE: &str = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2";
const NS_CAC: &str = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2";
const NS_CBC: &str = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2";

/// The invoice as a UBL 2.1 `Invoice`, or a `CreditNote` when its total is negative.
pub fn ubl(invoice: &Invoice) -> String {
    let doc = en16931::document(invoice);
    let (root, namespace) = if doc.is_credit_note() {
        ("CreditNote", NS_CREDIT_NOTE)
    } else {
        ("Invoice", NS_INVOICE)
    };
    xml::document(
        root,
        &[
            ("xmlns", namespace),
            ("xmlns:cac", NS_CAC),
            ("xmlns:cbc", NS_CBC),
        ],
        body(&doc),
    )
}

fn body(doc: &Document) -> Vec<Node> {
    let mut nodes = vec![
        leaf("cbc:CustomizationID", en16931::CUSTOMIZATION_ID),
        leaf("cbc:ID", &doc.number),
        leaf("cbc:IssueDate", doc.issue_date.to_string()),
    ];
    if doc.is_credit_note() {
        nodes.push(leaf("cbc:CreditNoteTypeCode", doc.type_code));
    } else {
        nodes.push(optional(doc.due_date, |d| {
            leaf("cbc:DueDate", d.to_string())
        }));
        nodes.push(leaf("cbc:InvoiceTypeCode", doc.type_code));
    }
    nodes.extend(doc.notes.iter().map(|note| leaf("cbc:Note", note)));
    nodes.extend([
        leaf("cbc:DocumentCurrencyCode", &doc.currency),
        optional(doc.preceding.as_ref(), |(number, date)| {
            branch(
                "cac:BillingReference",
                vec![branch(
                    "cac:InvoiceDocumentReference",
                    vec![
                        leaf("cbc:ID", number),
                        leaf("cbc:IssueDate", date.to_string()),
                    ],
                )],
            )
        }),
        branch("cac:AccountingSupplierParty", vec![party(&doc.seller)]),
        branch("cac:AccountingCustomerParty", vec![party(&doc.buyer)]),
        delivery(doc),
        payment_means(doc),
        payment_terms(doc),
        tax_total(doc),
        monetary_total(doc),
    ]);
    nodes.extend(doc.lines.iter().map(|l| line(doc, l)));
    nodes
}

fn amount(name: &'static str, value: Decimal, doc: &Document) -> Node {
    leaf_with(name, ("currencyID", &doc.currency), cents(value))
}

fn party(trader: &Trader) -> Node {
    branch(
        "cac:Party",
        vec![
            optional(trader.email.as_ref(), |email| {
                leaf_with("cbc:EndpointID", ("schemeID", "EM"), email)
            }),
            branch(
                "cac:PostalAddress",
                vec![
                    optional(trader.street.as_ref(), |v| leaf("cbc:StreetName", v)),
                    optional(trader.city.as_ref(), |v| leaf("cbc:CityName", v)),
                    optional(trader.postal_code.as_ref(), |v| leaf("cbc:PostalZone", v)),
                    optional(trader.province.as_ref(), |v| {
                        leaf("cbc:CountrySubentity", v)
                    }),
                    country(&trader.country),
                ],
            ),
            optional(trader.vat_id.as_ref(), |id| {
                branch(
                    "cac:PartyTaxScheme",
                    vec![leaf("cbc:CompanyID", id), tax_scheme()],
                )
            }),
            branch(
                "cac:PartyLegalEntity",
                vec![
                    leaf("cbc:RegistrationName", &trader.name),
                    optional(trader.legal_id.as_ref(), |id| leaf("cbc:CompanyID", id)),
                ],
            ),
        ],
    )
}

fn country(code: &str) -> Node {
    branch("cac:Country", vec![leaf("cbc:IdentificationCode", code)])
}

fn tax_scheme() -> Node {
    branch("cac:TaxScheme", vec![leaf("cbc:ID", "VAT")])
}

fn delivery(doc: &Document) -> Node {
    branch(
        "cac:Delivery",
        vec![
            leaf("cbc:ActualDeliveryDate", doc.delivery_date.to_string()),
            optional(doc.deliver_to_country.as_ref(), |code| {
                branch(
                    "cac:DeliveryLocation",
                    vec![branch("cac:Address", vec![country(code)])],
                )
            }),
        ],
    )
}

/// A credit note has no `DueDate`: its due date goes in the payment means
/// (the EN 16931 binding of BT-9), or in the payment terms when there are none.
fn payment_means(doc: &Document) -> Node {
    optional(doc.payment.as_ref(), |means| {
        let due_date = doc.due_date.filter(|_| doc.is_credit_note());
        branch(
            "cac:PaymentMeans",
            vec![
                leaf("cbc:PaymentMeansCode", means.code),
                optional(due_date, |d| leaf("cbc:PaymentDueDate", d.to_string())),
                optional(means.payee_iban.as_ref(), |iban| {
                    branch("cac:PayeeFinancialAccount", vec![leaf("cbc:ID", iban)])
                }),
                optional(means.payer_iban.as_ref(), |iban| {
                    branch(
                        "cac:PaymentMandate",
                        vec![branch(
                            "cac:PayerFinancialAccount",
                            vec![leaf("cbc:ID", iban)],
                        )],
                    )
                }),
            ],
        )
    })
}

fn payment_terms(doc: &Document) -> Node {
    match doc.due_date {
        Some(date) if doc.is_credit_note() && doc.payment.is_none() => branch(
            "cac:PaymentTerms",
            vec![leaf("cbc:Note", format!("Vencimiento: {date}"))],
        ),
        _ => Node::Empty,
    }
}

fn tax_total(doc: &Document) -> Node {
    let mut children = vec![amount("cbc:TaxAmount", doc.tax, doc)];
    children.extend(doc.groups.iter().map(|g| tax_subtotal(doc, g)));
    branch("cac:TaxTotal", children)
}

fn tax_subtotal(doc: &Document, group: &VatGroup) -> Node {
    branch(
        "cac:TaxSubtotal",
        vec![
            amount("cbc:TaxableAmount", group.base, doc),
            amount("cbc:TaxAmount", group.tax, doc),
            branch(
                "cac:TaxCategory",
                vec![
                    leaf("cbc:ID", group.category.code),
                    optional(group.category.percent, |p| {
                        leaf("cbc:Percent", p.to_string())
                    }),
                    optional(group.exemption_code(), |code| {
                        leaf("cbc:TaxExemptionReasonCode", code)
                    }),
                    optional(group.exemption_reason(), |reason| {
                        leaf("cbc:TaxExemptionReason", reason)
                    }),
                    tax_scheme(),
                ],
            ),
        ],
    )
}

fn monetary_total(doc: &Document) -> Node {
    branch(
        "cac:LegalMonetaryTotal",
        vec![
            amount("cbc:LineExtensionAmount", doc.line_total, doc),
            amount("cbc:TaxExclusiveAmount", doc.tax_exclusive, doc),
            amount("cbc:TaxInclusiveAmount", doc.tax_inclusive, doc),
            optional(doc.prepaid, |p| amount("cbc:PrepaidAmount", p, doc)),
            amount("cbc:PayableAmount", doc.payable, doc),
        ],
    )
}

fn line(doc: &Document, line: &Line) -> Node {
    let (element, quantity) = if doc.is_credit_note() {
        ("cac:CreditNoteLine", "cbc:CreditedQuantity")
    } else {
        ("cac:InvoiceLine", "cbc:InvoicedQuantity")
    };
    branch(
        element,
        vec![
            leaf("cbc:ID", line.id.to_string()),
            leaf_with(
                quantity,
                ("unitCode", en16931::UNIT_CODE),
                line.quantity.to_string(),
            ),
            amount("cbc:LineExtensionAmount", line.net, doc),
            optional(line.discount.as_ref(), |discount| {
                branch(
                    "cac:AllowanceCharge",
                    vec![
                        leaf("cbc:ChargeIndicator", "false"),
                        leaf("cbc:AllowanceChargeReasonCode", en16931::DISCOUNT_CODE),
                        leaf("cbc:AllowanceChargeReason", en16931::DISCOUNT_REASON),
                        leaf("cbc:MultiplierFactorNumeric", discount.percent.to_string()),
                        amount("cbc:Amount", discount.amount, doc),
                        amount("cbc:BaseAmount", discount.base, doc),
                    ],
                )
            }),
            branch(
                "cac:Item",
                vec![
                    leaf("cbc:Name", &line.name),
                    branch(
                        "cac:ClassifiedTaxCategory",
                        vec![
                            leaf("cbc:ID", line.category.code),
                            optional(line.category.percent, |p| {
                                leaf("cbc:Percent", p.to_string())
                            }),
                            tax_scheme(),
                        ],
                    ),
                ],
            ),
            branch(
                "cac:Price",
                vec![leaf_with(
                    "cbc:PriceAmount",
                    ("currencyID", &doc.currency),
                    en16931::price(line.price),
                )],
            ),
        ],
    )
}
