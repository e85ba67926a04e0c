//! Facturae 3.2.2, the Spanish national e-invoice (FACe), unsigned: signing
//! is a later step. One invoice per file (Modality I), issued by the seller
//! (EM). Every amount is a stored total written with 2 decimals, so the
//! schema's identities hold exactly: InvoiceTotal is
//! TotalGrossAmountBeforeTaxes plus TotalTaxOutputs minus TotalTaxesWithheld,
//! and TotalOutstandingAmount and TotalExecutableAmount equal InvoiceTotal (no
//! subsidies, advances or guarantees).
//!
//! - VAT groups are the Tax elements of TaxesOutputs (code 01; IGIC 03 and
//!   IPSI 02 for issuers in the Canary Islands, Ceuta or Melilla); the
//!   equivalence surcharge sits inside its VAT Tax. IRPF is TaxesWithheld, code 04.
//! - Lines carry rate and base but no tax amounts (optional in the schema):
//!   VAT is rounded per group, so per-line amounts would not add up to it.
//! - Exempt (E1–E6) and not subject (N1, N2) lines are VAT at 0 % with a
//!   SpecialTaxableEvent (01 exempt, 02 not subject); reverse charge (S2) is
//!   VAT at 0 % with no quota. The legal wording of each treatment is a
//!   LegalReference; exemption reasons also go in InvoiceAdditionalInformation,
//!   as the schema asks.
//! - A rectifying invoice is class OR with Corrective: the rectified number and
//!   issue date, its quarter as TaxPeriod, CorrectionMethod 01 (substitution) or
//!   02 (differences), and the reason code from `reason`.
//! - Parties: a DNI, NIE or K/L/M NIF is an Individual (F), anything else a
//!   LegalEntity (J). A buyer without a tax id (simplified invoices) gets the
//!   placeholder `00000000T`, because the schema requires one. A Spanish
//!   address with a valid postal code is AddressInSpain (the province follows
//!   from the postal code when none is stored); any other is OverseasAddress.
//! - Cancelled and test invoices are written as issued, marked as such in
//!   InvoiceAdditionalInformation.

use chrono::{Datelike, NaiveDate};
use quick_xml::escape::escape;
use rust_decimal::Decimal;

use crate::invoice::kind::Kind;
use crate::invoice::line::Treatment;
use crate::invoice::model::{GroupView, Invoice, IssuerView, LineView, Payment, Rectifies};
use crate::invoice::party::{Party, in_eu};
use crate::invoice::payments;
use crate::invoice::status::Status;
use crate::tax::indirect::IndirectTax;
use crate::tax::money::{cents, round2};
use crate::tax::nif::{Nif, NifKind};
use crate::tax::quarter::quarter_dates;

pub const NAMESPACE: &str = "http://www.facturae.gob.es/formato/Versiones/Facturaev3_2_2.xml";

const DECLARATION: &str = r#"<?xml version="1.0" encoding="UTF-8"?>"#;
const IRPF: &str = "04";
/// DNI number 0 with its check letter: the customary tax id of an
/// unidentified recipient.
const UNIDENTIFIED_TAX_ID: &str = "00000000T";
const UNIDENTIFIED_NAME: &str = "Consumidor final";

/// The provinces in the order of their INE codes 01–52, the first two digits
/// of a postal code; shortened where the schema allows only 20 characters.
const PROVINCES: &str = "Araba/Álava,Albacete,Alicante/Alacant,Almería,Ávila,Badajoz,Illes Balears,Barcelona,\
    Burgos,Cáceres,Cádiz,Castellón/Castelló,Ciudad Real,Córdoba,A Coruña,Cuenca,Girona,\
    Granada,Guadalajara,Gipuzkoa,Huelva,Huesca,Jaén,León,Lleida,La Rioja,Lugo,Madrid,Málaga,\
    Murcia,Navarra,Ourense,Asturias,Palencia,Las Palmas,Pontevedra,Salamanca,\
    S.C. de Tenerife,Cantabria,Segovia,Sevilla,Soria,Tarragona,Teruel,Toledo,\
    Valencia/València,Valladolid,Bizkaia,Zamora,Zaragoza,Ceuta,Melilla";

/// ISO 3166-1 alpha-2 followed by alpha-3, for every country. Facturae 3.2.2
/// predates 16 of them (e.g. SS, CW); their codes are written anyway.
const ALPHA3: &str = "ADAND AEARE AFAFG AGATG AIAIA ALALB AMARM AOAGO AQATA ARARG ASASM ATAUT AUAUS AWABW \
    AXALA AZAZE BABIH BBBRB BDBGD BEBEL BFBFA BGBGR BHBHR BIBDI BJBEN BLBLM BMBMU BNBRN \
    BOBOL BQBES BRBRA BSBHS BTBTN BVBVT BWBWA BYBLR BZBLZ CACAN CCCCK CDCOD CFCAF CGCOG \
    CHCHE CICIV CKCOK CLCHL CMCMR CNCHN COCOL CRCRI CUCUB CVCPV CWCUW CXCXR CYCYP CZCZE \
    DEDEU DJDJI DKDNK DMDMA DODOM DZDZA ECECU EEEST EGEGY EHESH ERERI ESESP ETETH FIFIN \
    FJFJI FKFLK FMFSM FOFRO FRFRA GAGAB GBGBR GDGRD GEGEO GFGUF GGGGY GHGHA GIGIB GLGRL \
    GMGMB GNGIN GPGLP GQGNQ GRGRC GSSGS GTGTM GUGUM GWGNB GYGUY HKHKG HMHMD HNHND HRHRV \
    HTHTI HUHUN IDIDN IEIRL ILISR IMIMN ININD IOIOT IQIRQ IRIRN ISISL ITITA JEJEY JMJAM \
    JOJOR JPJPN KEKEN KGKGZ KHKHM KIKIR KMCOM KNKNA KPPRK KRKOR KWKWT KYCYM KZKAZ LALAO \
    LBLBN LCLCA LILIE LKLKA LRLBR LSLSO LTLTU LULUX LVLVA LYLBY MAMAR MCMCO MDMDA MEMNE \
    MFMAF MGMDG MHMHL MKMKD MLMLI MMMMR MNMNG MOMAC MPMNP MQMTQ MRMRT MSMSR MTMLT MUMUS \
    MVMDV MWMWI MXMEX MYMYS MZMOZ NANAM NCNCL NENER NFNFK NGNGA NINIC NLNLD NONOR NPNPL \
    NRNRU NUNIU NZNZL OMOMN PAPAN PEPER PFPYF PGPNG PHPHL PKPAK PLPOL PMSPM PNPCN PRPRI \
    PSPSE PTPRT PWPLW PYPRY QAQAT REREU ROROU RSSRB RURUS RWRWA SASAU SBSLB SCSYC SDSDN \
    SESWE SGSGP SHSHN SISVN SJSJM SKSVK SLSLE SMSMR SNSEN SOSOM SRSUR SSSSD STSTP SVSLV \
    SXSXM SYSYR SZSWZ TCTCA TDTCD TFATF TGTGO THTHA TJTJK TKTKL TLTLS TMTKM TNTUN TOTON \
    TRTUR TTTTO TVTUV TWTWN TZTZA UAUKR UGUGA UMUMI USUSA UYURY UZUZB VAVAT VCVCT VEVEN \
    VGVGB VIVIR VNVNM VUVUT WFWLF WSWSM YEYEM YTMYT ZAZAF ZMZMB ZWZWE";

/// The Facturae 3.2.2 XML of an invoice (UTF-8, unsigned).
pub fn facturae(invoice: &Invoice) -> String {
    let mut x = Xml {
        out: format!("{DECLARATION}\n"),
        depth: 0,
    };
    x.element(
        &format!(r#"fe:Facturae xmlns:fe="{NAMESPACE}""#),
        "fe:Facturae",
        |x| {
            file_header(x, invoice);
            x.group("Parties", |x| {
                business(x, "SellerParty", &seller(&invoice.issuer));
                business(x, "BuyerParty", &buyer(invoice.customer.as_ref()));
            });
            x.group("Invoices", |x| {
                x.group("Invoice", |x| invoice_element(x, invoice))
            });
        },
    );
    x.out
}

/// An indented XML writer into a `String` (which cannot fail); text is escaped.
struct Xml {
    out: String,
    depth: usize,
}

impl Xml {
    fn indent(&mut self) {
        self.out.push_str(&"  ".repeat(self.depth));
    }

    fn element(&mut self, open: &str, name: &str, body: impl FnOnce(&mut Xml)) {
        self.indent();
        self.out.push_str(&format!("<{open}>\n"));
        self.depth += 1;
        body(self);
        self.depth -= 1;
        self.indent();
        self.out.push_str(&format!("</{name}>\n"));
    }

    fn group(&mut self, name: &str, body: impl FnOnce(&mut Xml)) {
        self.element(name, name, body);
    }

    fn text(&mut self, name: &str, value: &str) {
        self.indent();
        self.out
            .push_str(&format!("<{name}>{}</{name}>\n", escape(value)));
    }

    fn amount(&mut self, name: &str, value: Decimal) {
        self.group(name, |x| x.text("TotalAmount", &cents(value)));
    }
}

/// At most `max` characters, as the schema's text types require.
fn clip(text: &str, max: usize) -> String {
    text.trim().chars().take(max).collect()
}

/// A unit price or rate: 2 decimals, or all of its own when it has more.
fn decimals(value: Decimal) -> String {
    let value = value.normalize();
    if value.scale() <= 2 {
        cents(value)
    } else {
        value.to_string()
    }
}

fn file_header(x: &mut Xml, invoice: &Invoice) {
    x.group("FileHeader", |x| {
        x.text("SchemaVersion", "3.2.2");
        x.text("Modality", "I");
        x.text("InvoiceIssuerType", "EM");
        x.group("Batch", |x| {
            let id = format!("{}{}", invoice.issuer.tax_id, invoice.number);
            x.text("BatchIdentifier", &clip(&id, 70));
            x.text("InvoicesCount", "1");
            x.amount("TotalInvoicesAmount", invoice.total.value());
            x.amount("TotalOutstandingAmount", invoice.total.value());
            x.amount("TotalExecutableAmount", invoice.total.value());
            x.text("InvoiceCurrencyCode", &invoice.currency);
        });
    });
}

/// What a Facturae party is made of, from the issuer or the customer.
struct PartyData<'a> {
    tax_id: &'a str,
    name: &'a str,
    country: &'a str,
    address: &'a str,
    postal_code: &'a str,
    city: &'a str,
    province: Option<&'a str>,
    email: Option<&'a str>,
}

fn seller(issuer: &IssuerView) -> PartyData<'_> {
    PartyData {
        tax_id: &issuer.tax_id,
        name: &issuer.name,
        country: &issuer.country,
        address: &issuer.address,
        postal_code: &issuer.postal_code,
        city: &issuer.city,
        province: issuer.province.as_deref(),
        email: None,
    }
}

fn buyer(customer: Option<&Party>) -> PartyData<'_> {
    match customer {
        Some(c) => PartyData {
            tax_id: c.tax_id.as_deref().unwrap_or(UNIDENTIFIED_TAX_ID),
            name: &c.name,
            country: &c.country,
            address: c.address.as_deref().unwrap_or_default(),
            postal_code: c.postal_code.as_deref().unwrap_or_default(),
            city: c.city.as_deref().unwrap_or_default(),
            province: None,
            email: c.email.as_deref(),
        },
        None => PartyData {
            tax_id: UNIDENTIFIED_TAX_ID,
            name: UNIDENTIFIED_NAME,
            country: "ES",
            address: "",
            postal_code: "",
            city: "",
            province: None,
            email: None,
        },
    }
}

/// A person's NIF (DNI, NIE, K, L, M), as opposed to an entity's or a foreign id.
fn is_person(tax_id: &str) -> bool {
    Nif::parse(tax_id).is_ok_and(|nif| !matches!(nif.kind(), NifKind::Entity(_)))
}

fn residence(country: &str) -> &'static str {
    if country == "ES" {
        "R"
    } else if in_eu(country) {
        "U"
    } else {
        "E"
    }
}

/// The tax id, with the VAT prefix of its country for residents of other EU
/// states (intra-Community operations, as the schema documents).
fn tax_id_number(party: &PartyData) -> String {
    let prefix = match party.country {
        "GR" => "EL",
        country => country,
    };
    if residence(party.country) == "U" && !party.tax_id.starts_with(prefix) {
        clip(&format!("{prefix}{}", party.tax_id), 30)
    } else {
        clip(party.tax_id, 30)
    }
}

fn business(x: &mut Xml, tag: &str, party: &PartyData) {
    let person = is_person(party.tax_id);
    x.group(tag, |x| {
        x.group("TaxIdentification", |x| {
            x.text("PersonTypeCode", if person { "F" } else { "J" });
            x.text("ResidenceTypeCode", residence(party.country));
            x.text("TaxIdentificationNumber", &tax_id_number(party));
        });
        if person {
            x.group("Individual", |x| {
                individual_name(x, party.name);
                address(x, party);
                contact(x, party);
            });
        } else {
            x.group("LegalEntity", |x| {
                x.text("CorporateName", &clip(party.name, 80));
                address(x, party);
                contact(x, party);
            });
        }
    });
}

/// Name, FirstSurname and SecondSurname from a full name: the last two words
/// are the surnames when there are three or more, the last one when two.
fn individual_name(x: &mut Xml, full_name: &str) {
    let words: Vec<&str> = full_name.split_whitespace().collect();
    let (given, first, second) = match words.as_slice() {
        [given @ .., first, second] if !given.is_empty() => {
            (given.join(" "), *first, Some(*second))
        }
        [given, first] => (given.to_string(), *first, None),
        _ => (full_name.to_string(), "", None),
    };
    x.text("Name", &clip(&given, 40));
    x.text("FirstSurname", &clip(first, 40));
    if let Some(second) = second {
        x.text("SecondSurname", &clip(second, 40));
    }
}

/// AddressInSpain needs a valid Spanish postal code; any other address, or a
/// Spanish one without it, is an OverseasAddress with free-form fields.
fn address(x: &mut Xml, party: &PartyData) {
    match spanish_province(party) {
        Some(province) => x.group("AddressInSpain", |x| {
            x.text("Address", &clip(party.address, 80));
            x.text("PostCode", party.postal_code);
            x.text("Town", &clip(party.city, 50));
            x.text("Province", &clip(province, 20));
            x.text("CountryCode", "ESP");
        }),
        None => x.group("OverseasAddress", |x| {
            let town = format!("{} {}", party.postal_code, party.city);
            x.text("Address", &clip(party.address, 80));
            x.text("PostCodeAndTown", &clip(&town, 50));
            x.text("Province", &clip(party.province.unwrap_or_default(), 20));
            x.text("CountryCode", alpha3(party.country));
        }),
    }
}

fn spanish_province<'a>(party: &PartyData<'a>) -> Option<&'a str> {
    if party.country != "ES" {
        return None;
    }
    let by_postal_code = postal_province(party.postal_code)?;
    Some(party.province.unwrap_or(by_postal_code))
}

fn postal_province(postal_code: &str) -> Option<&'static str> {
    if postal_code.len() != 5 || !postal_code.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let number: usize = postal_code[..2].parse().ok()?;
    PROVINCES.split(',').nth(number.checked_sub(1)?)
}

fn alpha3(alpha2: &str) -> &str {
    ALPHA3
        .split(' ')
        .find(|pair| pair.get(..2) == Some(alpha2))
        .and_then(|pair| pair.get(2..))
        .unwrap_or(alpha2)
}

/// The email, when it fits the schema's 60 characters (a cut address is no address).
fn contact(x: &mut Xml, party: &PartyData) {
    if let Some(email) = party.email.filter(|e| e.chars().count() <= 60) {
        x.group("ContactDetails", |x| x.text("ElectronicMail", email));
    }
}

fn invoice_element(x: &mut Xml, invoice: &Invoice) {
    header(x, invoice);
    issue_data(x, invoice);
    x.group("TaxesOutputs", |x| {
        for group in &invoice.breakdown {
            group_tax(x, group, invoice.tax);
        }
    });
    if !invoice.irpf_rate.is_zero() {
        withholding(x, invoice);
    }
    totals(x, invoice);
    x.group("Items", |x| {
        for line in &invoice.lines {
            item(x, line, invoice.tax);
        }
    });
    if let Some(payment) = &invoice.payment {
        payment_details(x, invoice, payment);
    }
    legal_literals(x, invoice);
    additional_data(x, invoice);
}

fn header(x: &mut Xml, invoice: &Invoice) {
    x.group("InvoiceHeader", |x| {
        x.text("InvoiceNumber", &invoice.number);
        let simplified = invoice.is_simplified();
        x.text("InvoiceDocumentType", if simplified { "FA" } else { "FC" });
        match &invoice.rectifies {
            Some(rectified) => {
                x.text("InvoiceClass", "OR");
                corrective(x, rectified);
            }
            None => x.text("InvoiceClass", "OO"),
        }
    });
}

fn corrective(x: &mut Xml, rectified: &Rectifies) {
    let (code, description) = reason(rectified.reason_code);
    let (method, method_description) = match rectified.method.as_str() {
        "substitution" => ("01", "Rectificación íntegra"),
        _ => ("02", "Rectificación por diferencias"),
    };
    let (start, end) = quarter(rectified.issue_date);
    x.group("Corrective", |x| {
        x.text("InvoiceNumber", &rectified.number);
        x.text("ReasonCode", code);
        x.text("ReasonDescription", description);
        x.group("TaxPeriod", |x| {
            x.text("StartDate", &start.to_string());
            x.text("EndDate", &end.to_string());
        });
        x.text("CorrectionMethod", method);
        x.text("CorrectionMethodDescription", method_description);
        if !rectified.description.trim().is_empty() {
            x.text(
                "AdditionalReasonDescription",
                &clip(&rectified.description, 2500),
            );
        }
        x.text("InvoiceIssueDate", &rectified.issue_date.to_string());
    });
}

/// Facturae names what was corrected, VERI*FACTU's R code the legal ground.
/// R2 (art. 80.3 LIVA, insolvency) has its own code, 85; R1 (art. 80.1, 80.2,
/// errors grounded in law) and R3 (art. 80.4, bad debts) modify the taxable
/// base, 16; R4 and R5 (other errors) correct the details of the operation, 10.
fn reason(code: Kind) -> (&'static str, &'static str) {
    match code {
        Kind::R2 => (
            "85",
            "Base imponible modificada cuotas repercutidas no satisfechas. Auto de declaración de concurso",
        ),
        Kind::R4 | Kind::R5 => ("10", "Detalle Operación"),
        _ => ("16", "Base imponible"),
    }
}

/// The VAT quarter of a date: the period whose return the rectification adjusts.
fn quarter(date: NaiveDate) -> (NaiveDate, NaiveDate) {
    quarter_dates(date.year(), (date.month0() / 3 + 1) as u8)
}

fn issue_data(x: &mut Xml, invoice: &Invoice) {
    x.group("InvoiceIssueData", |x| {
        x.text("IssueDate", &invoice.issue_date.to_string());
        if let Some(date) = invoice.operation_date {
            x.text("OperationDate", &date.to_string());
        }
        x.text("InvoiceCurrencyCode", &invoice.currency);
        x.text("TaxCurrencyCode", &invoice.currency);
        x.text("LanguageName", "es");
    });
}

fn group_tax(x: &mut Xml, group: &GroupView, tax: IndirectTax) {
    x.group("Tax", |x| {
        x.text("TaxTypeCode", tax.aeat_code());
        x.text("TaxRate", &cents(group.vat_rate.value()));
        x.amount("TaxableBase", group.base.value());
        x.amount("TaxAmount", group.vat_amount.value());
        if !group.surcharge_rate.is_zero() {
            x.text("EquivalenceSurcharge", &cents(group.surcharge_rate.value()));
            x.amount("EquivalenceSurchargeAmount", group.surcharge_amount.value());
        }
    });
}

fn withholding(x: &mut Xml, invoice: &Invoice) {
    x.group("TaxesWithheld", |x| {
        x.group("Tax", |x| {
            x.text("TaxTypeCode", IRPF);
            x.text("TaxRate", &cents(invoice.irpf_rate.value()));
            x.amount("TaxableBase", invoice.base.value());
            x.amount("TaxAmount", invoice.irpf_amount.value());
        });
    });
}

fn totals(x: &mut Xml, invoice: &Invoice) {
    x.group("InvoiceTotals", |x| {
        x.text("TotalGrossAmount", &cents(invoice.base.value()));
        x.text("TotalGrossAmountBeforeTaxes", &cents(invoice.base.value()));
        x.text(
            "TotalTaxOutputs",
            &cents((invoice.vat_amount + invoice.surcharge_amount).value()),
        );
        x.text("TotalTaxesWithheld", &cents(invoice.irpf_amount.value()));
        x.text("InvoiceTotal", &cents(invoice.total.value()));
        x.text("TotalOutstandingAmount", &cents(invoice.total.value()));
        x.text("TotalExecutableAmount", &cents(invoice.total.value()));
    });
}

/// TotalCost is quantity × price to the cent and the discount whatever
/// brings it to the stored line base, so GrossAmount is exactly that base.
fn item(x: &mut Xml, line: &LineView, tax: IndirectTax) {
    let total_cost = round2((line.quantity * line.unit_price).value());
    x.group("InvoiceLine", |x| {
        x.text("ItemDescription", &clip(&line.description, 2500));
        x.text("Quantity", &line.quantity.normalize().to_string());
        x.text("UnitPriceWithoutTax", &decimals(line.unit_price.value()));
        x.text("TotalCost", &cents(total_cost));
        if !line.discount_percent.is_zero() {
            x.group("DiscountsAndRebates", |x| {
                x.group("Discount", |x| {
                    x.text("DiscountReason", "Descuento");
                    x.text("DiscountRate", &decimals(line.discount_percent.value()));
                    x.text("DiscountAmount", &cents(total_cost - line.base.value()));
                });
            });
        }
        x.text("GrossAmount", &cents(line.base.value()));
        x.group("TaxesOutputs", |x| {
            x.group("Tax", |x| {
                x.text("TaxTypeCode", tax.aeat_code());
                x.text("TaxRate", &cents(line.vat_rate.value()));
                x.amount("TaxableBase", line.base.value());
                if !line.surcharge_rate.is_zero() {
                    x.text("EquivalenceSurcharge", &cents(line.surcharge_rate.value()));
                }
            });
        });
        if let Some((code, wording)) = line
            .exemption
            .as_deref()
            .and_then(Treatment::parse_exemption)
            .and_then(special_event)
        {
            x.group("SpecialTaxableEvent", |x| {
                x.text("SpecialTaxableEventCode", code);
                // The reason starts with the code of the tax it is about.
                x.text(
                    "SpecialTaxableEventReason",
                    &format!("{} {wording}", tax.aeat_code()),
                );
            });
        }
    });
}

/// SpecialTaxableEventCode and wording of an exempt (01) or not subject (02)
/// treatment; reverse charge is subject and not exempt, so it has none.
fn special_event(treatment: Treatment) -> Option<(&'static str, &'static str)> {
    let code = match treatment {
        Treatment::N1 | Treatment::N2 => "02",
        Treatment::Taxed | Treatment::S2 => return None,
        _ => "01",
    };
    Some((code, treatment.wording()?))
}

/// One Installment per instalment (an invoice with none, nothing to
/// collect, states its total due on its due or issue date), each with the
/// invoice's payment means and account.
fn payment_details(x: &mut Xml, invoice: &Invoice, payment: &Payment) {
    let mut instalments: Vec<(NaiveDate, Decimal)> = payments::instalments(invoice)
        .iter()
        .map(|i| (i.date, i.amount.value()))
        .collect();
    if instalments.is_empty() {
        let due = invoice.due_date.unwrap_or(invoice.issue_date);
        instalments.push((due, invoice.total.value()));
    }
    x.group("PaymentDetails", |x| {
        for (due, amount) in instalments {
            x.group("Installment", |x| {
                x.text("InstallmentDueDate", &due.to_string());
                x.text("InstallmentAmount", &cents(amount));
                x.text("PaymentMeans", payment_means(&payment.method));
                if let Some(iban) = &payment.iban {
                    // A direct debit charges the customer's account; otherwise the IBAN is the issuer's.
                    let account = match payment.method.as_str() {
                        "direct_debit" => "AccountToBeDebited",
                        _ => "AccountToBeCredited",
                    };
                    x.group(account, |x| x.text("IBAN", iban));
                }
            });
        }
    });
}

fn payment_means(method: &str) -> &'static str {
    match method {
        "cash" => "01",
        "direct_debit" => "02",
        "transfer" => "04",
        "card" => "19",
        _ => "13",
    }
}

/// The invoice's exemption, not-subject and reverse-charge treatments, once each.
fn treatments(invoice: &Invoice) -> Vec<Treatment> {
    let mut found = Vec::new();
    for group in &invoice.breakdown {
        let treatment = group
            .exemption
            .as_deref()
            .and_then(Treatment::parse_exemption);
        if let Some(t) = treatment.filter(|t| !found.contains(t)) {
            found.push(t);
        }
    }
    found
}

fn legal_literals(x: &mut Xml, invoice: &Invoice) {
    let mut wordings: Vec<&str> = treatments(invoice)
        .into_iter()
        .filter_map(|t| t.wording_to(invoice.customer.as_ref()))
        .collect();
    if invoice.cash_accounting {
        wordings.push(crate::documents::CASH_ACCOUNTING_MENTION);
    }
    if wordings.is_empty() {
        return;
    }
    x.group("LegalLiterals", |x| {
        for wording in wordings {
            x.text("LegalReference", wording);
        }
    });
}

/// Exemption reasons, notes, and whether the invoice is cancelled or a test.
fn additional_information(invoice: &Invoice) -> Vec<String> {
    let mut parts: Vec<String> = treatments(invoice)
        .into_iter()
        .filter_map(special_event)
        .map(|(_, wording)| wording.to_string())
        .collect();
    parts.extend(invoice.notes.clone());
    parts.extend(crate::documents::replacement_note(invoice));
    if invoice.status == Status::Cancelled {
        let reason = invoice.cancellation_reason();
        parts.push(match reason {
            Some(reason) => format!("FACTURA ANULADA: {reason}"),
            None => "FACTURA ANULADA".to_string(),
        });
    }
    if !invoice.livemode {
        parts.push("FACTURA DE PRUEBA, sin validez fiscal".to_string());
    }
    parts
}

fn additional_data(x: &mut Xml, invoice: &Invoice) {
    let parts = additional_information(invoice);
    if parts.is_empty() {
        return;
    }
    x.group("AdditionalData", |x| {
        x.text(
            "InvoiceAdditionalInformation",
            &clip(&parts.join("\n"), 2500),
        );
    });
}
