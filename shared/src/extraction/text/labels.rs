//! The printed labels of Spanish (and Catalan) invoices and where they occur.
//! Labels match case- and accent-insensitively on whole words, longest first,
//! so look-alikes ("Nº pedido", "Total IVA", "Fecha de vencimiento") win over
//! the shorter label they contain. `#` in a label stands for any reading of
//! "Nº", OCR variants included ("N.º", "N°", "Núm.", "N?2", "N£2", "N®", "NO").

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use super::rows::Row;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    InvoiceNumber,
    /// "Factura" alone: a number label only when a number follows.
    InvoiceTitle,
    Series,
    InvoiceDate,
    /// Due, order, delivery and period dates: never the invoice date.
    OtherDate,
    Base,
    /// A subtotal before discounts: not the base.
    Gross,
    Vat,
    VatTotal,
    VatRate,
    VatIncluded,
    Surcharge,
    SurchargeRate,
    Irpf,
    Total,
    /// "A pagar", "Líquido a percibir": the total when no other is printed.
    Payable,
    Suplidos,
    Discount,
    /// Exempt, reverse-charge or not-subject operations: no VAT charged.
    Exempt,
    TaxId,
    IssuerBlock,
    CustomerBlock,
    Registry,
    /// Cash handed over on a ticket ("Entrega", "Efectivo", "Cash").
    Tendered,
    /// Change given back ("Cambio", "Devolución", "Change").
    Change,
    /// Paid by card: the exact total ("Tarjeta bancaria", "Card").
    CardPaid,
    /// Order, customer and delivery-note numbers, bank and contact details.
    Ignore,
}

const LABELS: &[(Kind, &[&str])] = &[
    (
        Kind::InvoiceNumber,
        &[
            "serie y #",
            "factura #",
            "# factura",
            "# de factura",
            "numero de factura",
            "numero factura",
            "num factura",
            "factura #:",
            "# fra",
            "fra #",
            "factura simplificada #",
            "factura simplificada",
            "ticket #",
            "# ticket",
            // "N.T.", "NT:": a ticket's number abbreviated.
            "nt",
            "# tiquet",
            "tiquet #",
            "#",
            "invoice #",
            "invoice number",
            "invoice no",
            "# de la factura",
            "factura num",
            "factura numero",
            "codigo factura",
            "referencia factura",
            "id factura",
            "factura rectificativa #",
            "rectificativa #",
            "factura de abono #",
            "abono #",
            "factura rectificativa",
            "factura proforma #",
            // Other languages.
            "invoice nr",
            "inv #",
            "invoice id",
            "receipt #",
            "receipt no",
            "receipt number",
            "document #",
            "bill #",
            "rechnungsnummer",
            "rechnungsnr",
            "rechnungs nr",
            "rechnung #",
            "rechnung nr",
            "belegnummer",
            "beleg #",
            "beleg nr",
            "bon #",
            "bon nr",
            "numero de facture",
            "facture #",
            "# de facture",
            "# facture",
            "factuurnummer",
            "factuurnr",
            "factuur #",
            "numero fattura",
            "numero della fattura",
            "fattura #",
            "fattura n",
            "numero da fatura",
            "fatura #",
            "fatura n",
            "factura n",
            "fra num",
            "faktura zenbakia",
            "faktura zk",
            "fakturaren zenbakia",
            "zenbakia",
        ],
    ),
    (
        Kind::InvoiceTitle,
        &[
            "factura", "invoice", "ticket", "tiquet", "recibo", "rechnung", "facture", "factuur",
            "fattura", "fatura", "faktura", "fra", "receipt", "bill",
        ],
    ),
    (
        Kind::Series,
        &["serie", "serie factura", "serie de factura", "# serie"],
    ),
    (
        Kind::InvoiceDate,
        &[
            "fecha de expedicion",
            "fecha expedicion",
            "fecha factura",
            "fecha de factura",
            "fecha de emision",
            "fecha emision",
            "f factura",
            "fecha",
            "data factura",
            "data de factura",
            "data demissio",
            "data emissio",
            "data de emissio",
            "data",
            "invoice date",
            "date",
            "fecha fra",
            "fecha de la factura",
            "fecha expedicion factura",
            // Other languages.
            "date of issue",
            "issue date",
            "date issued",
            "invoice date",
            "rechnungsdatum",
            "rechnungs datum",
            "datum",
            "belegdatum",
            "ausstellungsdatum",
            "date de facture",
            "date de facturation",
            "date demission",
            "date",
            "factuurdatum",
            "data fattura",
            "data della fattura",
            "data di emissione",
            "data da fatura",
            "data de emissao",
            "data da factura",
            "data de emision",
            "faktura data",
            "fakturaren data",
            "jaulkipen data",
            "eguna",
        ],
    ),
    (
        Kind::OtherDate,
        &[
            "fecha de vencimiento",
            "fecha vencimiento",
            "vencimiento",
            "vto",
            "fecha de operacion",
            "fecha operacion",
            "fecha de prestacion",
            "fecha de devengo",
            "fecha pedido",
            "fecha de pedido",
            "fecha albaran",
            "fecha de albaran",
            "periodo de facturacion",
            "periodo facturado",
            "periodo",
            "fecha de entrega",
            "fecha entrega",
            "fecha de pago",
            "fecha limite de pago",
            "data de venciment",
            "venciment",
            "due date",
            "fecha de cargo",
            "fecha de nacimiento",
            "fecha de inicio",
            "fecha fin",
            // Other languages.
            "payment due",
            "due",
            "delivery date",
            "order date",
            "service period",
            "billing period",
            "period",
            "falligkeitsdatum",
            "fallig am",
            "fallig",
            "zahlbar bis",
            "lieferdatum",
            "leistungsdatum",
            "leistungszeitraum",
            "bestelldatum",
            "zeitraum",
            "date decheance",
            "echeance",
            "date de livraison",
            "periode",
            "vervaldatum",
            "leverdatum",
            "scadenza",
            "data scadenza",
            "data di scadenza",
            "data de vencimento",
            "data limite",
            "muga eguna",
            "epemuga",
            "fecha prevista de cobro",
            "fecha prevista de pago",
            "fecha prevista de cargo",
            "fecha estimada de cargo",
            "fecha de cobro",
            "fecha cobro",
            "fecha valor",
            "fecha limite",
            "fecha de vto",
            "fecha vto",
            "fecha de domiciliacion",
            "fecha del cargo",
        ],
    ),
    (
        Kind::Base,
        &[
            "base imponible",
            "bi",
            "b i",
            "base imp",
            "b imponible",
            "base",
            "subtotal",
            "importe neto",
            "total neto",
            "total sin iva",
            "suma sin iva",
            "base imposable",
            "total base",
            "total base imponible",
            "base total",
            "importe base",
            "neto",
            "taxable base",
            "net amount",
            "total sin impuestos",
            "base igic",
            "base imponible igic",
            // Other languages.
            "net",
            "net total",
            "total net",
            "amount excl vat",
            "total excl vat",
            "total excluding vat",
            "taxable amount",
            "subtotal excl vat",
            "netto",
            "nettobetrag",
            "summe netto",
            "rechnungssumme netto",
            "zwischensumme",
            "gesamt netto",
            "nettosumme",
            "nettowarenwert",
            "netto warenwert",
            "warenwert netto",
            "total ht",
            "montant ht",
            "ht",
            "sous total",
            "base ht",
            "total hors taxes",
            "montant hors taxes",
            "subtotaal",
            "totaal excl btw",
            "bedrag excl btw",
            "imponibile",
            "totale imponibile",
            "base tributavel",
            "valor tributavel",
            "zerga oinarria",
            "oinarria",
            "base impoñible",
        ],
    ),
    (
        Kind::Gross,
        &[
            "total bruto",
            "importe bruto",
            "bruto",
            "total lineas",
            "suma bruta",
        ],
    ),
    (
        Kind::Vat,
        &[
            "iva",
            "i v a",
            "cuota iva",
            "cuota",
            "importe iva",
            "impuestos",
            "impuesto",
            "quota iva",
            "quota",
            "igic",
            "cuota igic",
            "ipsi",
            "cuota ipsi",
            "vat",
            "iva repercutido",
            "cuota de iva",
            "importe del iva",
            "tax",
            "1va",
            "lva",
            "sales tax",
            // Other languages.
            "vat amount",
            "gst",
            "ust",
            "mwst",
            "umsatzsteuer",
            "mehrwertsteuer",
            "zzgl ust",
            "zzgl mwst",
            "zuzuglich mwst",
            "zuzuglich ust",
            "tva",
            "montant tva",
            "btw",
            "imposta",
            "bez",
            "bez zerga",
            "zerga",
        ],
    ),
    (
        Kind::VatTotal,
        &[
            "total iva",
            "total igic",
            "total ipsi",
            "total impuestos",
            "total cuota iva",
            "total cuota",
            // Other languages.
            "total vat",
            "total tax",
            "summe ust",
            "summe mwst",
            "total tva",
            "totaal btw",
            "totale iva",
            "bez guztira",
            "tax total",
            "vat total",
        ],
    ),
    (
        Kind::VatRate,
        &[
            "% iva",
            "%iva",
            "iva%",
            "%igic",
            "iva %",
            "tipo iva",
            "tipo",
            "% igic",
            "tipo igic",
            "tipo impositivo",
            "tipo de iva",
            // Other languages.
            "vat %",
            "% vat",
            "vat rate",
            "tax rate",
            "ust %",
            "mwst %",
            "% ust",
            "% mwst",
            "steuersatz",
            "taux tva",
            "% tva",
            "tva %",
            "btw %",
            "% btw",
            "aliquota",
            "aliquota iva",
            "taxa iva",
        ],
    ),
    (
        Kind::VatIncluded,
        &[
            "iva incluido",
            "iva incl",
            "impuestos incluidos",
            "iva inclos",
            "igic incluido",
            // Other languages.
            "inkl mwst",
            "incl mwst",
            "inkl ust",
            "incl ust",
            "enthaltene mwst",
            "enthaltene ust",
            "incl vat",
            "vat included",
            "including vat",
            "inclusive of vat",
            "tva incluse",
            "btw inbegrepen",
            "iva inclusa",
            "bez barne",
        ],
    ),
    (
        Kind::Surcharge,
        &[
            "recargo de equivalencia",
            "recargo equivalencia",
            "recargo",
            "re",
            "r e",
            "cuota re",
            "cuota recargo",
            "total recargo",
            "recarrec dequivalencia",
            "recarrec",
            "cuota r e",
            "recargo eq",
        ],
    ),
    (
        Kind::SurchargeRate,
        &[
            "% re",
            "%re",
            "re%",
            "re %",
            "tipo re",
            "% recargo",
            "% r e",
            "tipo recargo",
        ],
    ),
    (
        Kind::Irpf,
        &[
            "retencion irpf",
            "retencion",
            "retenciones",
            "irpf",
            "ret irpf",
            "ret",
            "retencio irpf",
            "retencio",
            "retencion a cuenta irpf",
            "retencion a cuenta",
            "withholding",
            "% irpf",
            "%irpf",
            "irpf%",
            "%ret",
            "irpf %",
            "retencion de irpf",
            "retencion i r p f",
            "i r p f",
        ],
    ),
    (
        Kind::Total,
        &[
            "total factura",
            "importe total",
            "total iva incluido",
            "total",
            "tota1",
            "totai",
            // A ticket's narrow column cuts it short.
            "tot",
            "total importe",
            "total importe factura",
            "importe total de la factura",
            "import total",
            "total eur",
            "grand total",
            "total de la factura",
            "importe total factura",
            "total impuestos incluidos",
            "total iva incl",
            // Other languages.
            "invoice total",
            "total amount",
            "total incl vat",
            "total inc vat",
            "total including vat",
            "gesamt",
            "gesamtbetrag",
            "endsumme",
            "rechnungsbetrag",
            "summe",
            "endbetrag",
            "rechnungssumme brutto",
            "rechnungssumme",
            "bruttobetrag",
            "gesamtsumme",
            "brutto",
            "gesamt brutto",
            "total ttc",
            "montant ttc",
            "ttc",
            "montant total",
            "totaal",
            "totaal incl btw",
            "totale",
            "totale fattura",
            "totale documento",
            "guztira",
            "faktura guztira",
            "totala",
            "total factura",
        ],
    ),
    (
        Kind::Payable,
        &[
            "total a pagar",
            "importe a pagar",
            "liquido a percibir",
            "total a percibir",
            "a pagar",
            "amount due",
            "total a pagar eur",
            "liquido a pagar",
            "a percibir",
            // Other languages.
            "balance due",
            "total due",
            "amount payable",
            "to pay",
            "zahlbetrag",
            "zu zahlen",
            "zahlbarer betrag",
            "net a payer",
            "reste a payer",
            "a payer",
            "te betalen",
            "netto a pagare",
            "totale da pagare",
            "ordaintzeko",
            "ordaindu beharrekoa",
        ],
    ),
    (
        Kind::Suplidos,
        &[
            "suplidos",
            "suplido",
            "gastos suplidos",
            "total suplidos",
            "provision de fondos",
        ],
    ),
    (
        Kind::Discount,
        &[
            "descuento",
            "dto",
            "dcto",
            "pronto pago",
            "descuento pronto pago",
            "descompte",
            "discount",
        ],
    ),
    (
        Kind::Exempt,
        &[
            "exento",
            "exenta",
            "exento de iva",
            "exenta de iva",
            "operacion exenta",
            "inversion del sujeto pasivo",
            "isp",
            "no sujeto",
            "no sujeta",
            "no sujeto a iva",
            "no sujeta a iva",
            "iva exento",
            "exempt",
            "exempta",
            "vat exemption",
            "exonere",
            "exoneration",
            "exoneration de tva",
            "autoliquidation",
            "reverse charge",
            "steuerfrei",
            "steuerschuldnerschaft",
            "intracommunautaire",
            "intracommunautaires",
            "livraison intracommunautaire",
            "entrega intracomunitaria",
            "exenta art",
            "articulo 25",
            "art 25",
            "art 20",
            "articulo 20",
        ],
    ),
    (
        Kind::TaxId,
        &[
            "cif",
            "c1f",
            "clf",
            "n1f",
            "nlf",
            "nif",
            "dni",
            "nie",
            "nif iva",
            "vat no",
            "vat number",
            "vat id",
            "vat reg no",
            "iva intracomunitario",
            "nif intracomunitario",
            "cif nif",
            "nif cif",
            "nifcif",
            "cifnif",
            "n i f",
            "c i f",
            "tax id",
            "nif/iva",
            "dninif",
            "nifdni",
            "nif del cliente",
            "cif del cliente",
            "nif cliente",
            "cif cliente",
            "nif emisor",
            "nif proveedor",
            // Other languages.
            "ust idnr",
            "ustidnr",
            "ust id",
            "ustid",
            "ust id nr",
            "ustidnr",
            "umsatzsteuer id",
            "umsatzsteuer identifikationsnummer",
            "ust identnr",
            "steuernummer",
            "steuer nr",
            "st nr",
            "stnr",
            "vat reg",
            "vat registration no",
            "vat registration number",
            "vat reg number",
            "tva intracommunautaire",
            "# tva",
            "numero de tva",
            "n tva",
            "tva intra",
            "btw nummer",
            "btw nr",
            "btwnr",
            "btw id",
            "partita iva",
            "p iva",
            "piva",
            "codice fiscale",
            "nipc",
            "contribuinte",
            "ifz",
            "ifk",
        ],
    ),
    (
        Kind::IssuerBlock,
        &[
            "emisor",
            "datos del emisor",
            "proveedor",
            "datos del proveedor",
            "vendedor",
            "prestador",
            "emisor de la factura",
            "emissor",
            "datos emisor",
            // Other languages.
            "seller",
            "supplier",
            "vendor",
            "lieferant",
            "verkaufer",
            "fournisseur",
            "vendeur",
            "emetteur",
            "leverancier",
            "fornitore",
            "fornecedor",
            "hornitzailea",
        ],
    ),
    (
        Kind::CustomerBlock,
        &[
            "cliente",
            "datos del cliente",
            "destinatario",
            "facturar a",
            "receptor",
            "comprador",
            "titular",
            "enviar a",
            "client",
            "dades del client",
            "bill to",
            "billed to",
            "customer",
            "adquiriente",
            "adquirente",
            "datos cliente",
            "facturado a",
            "cliente final",
            // Other languages.
            "invoice to",
            "sold to",
            "ship to",
            "kunde",
            "rechnungsempfanger",
            "empfanger",
            "facture a",
            "adresse de facturation",
            "destinataire",
            "klant",
            "factuuradres",
            "intestatario",
            "bezeroa",
            "datos de facturacion",
            "direccion de facturacion",
            "direccion de envio",
            "direccion fiscal del cliente",
            "datos fiscales del cliente",
            "billing address",
            "shipping address",
            "rechnungsadresse",
            "lieferadresse",
        ],
    ),
    (
        Kind::Registry,
        &[
            "inscrita en el registro mercantil",
            "inscrita en el rm",
            "registro mercantil",
            "reg merc",
            "rm",
            "domicilio social",
            "tomo",
            "folio",
            "hoja",
            "inscrita",
            "registre mercantil",
            "geschaftsfuhrer",
            "geschaftsfuhrung",
            "amtsgericht",
            "hrb",
            "hra",
            "handelsregister",
            "registergericht",
            "sitz der gesellschaft",
            "rcs",
            "siret",
            "siren",
            "capital social",
            "au capital de",
            "kvk",
            "registered office",
            "registered in",
            "company registration",
            "company no",
            "inscrita en el registro",
            "registro mercantil de",
        ],
    ),
    (
        Kind::Tendered,
        &[
            "entrega",
            "entregado",
            "entrega efectivo",
            "efectivo",
            "importe entregado",
            "cash",
            "cash tendered",
            "tendered",
            "gegeben",
            "especes",
            "contant",
        ],
    ),
    (
        Kind::Change,
        &[
            "cambio",
            "su cambio",
            "devolucion",
            "a devolver",
            "change",
            "ruckgeld",
            "zuruck",
            "rendu",
            "monnaie rendue",
            "wisselgeld",
        ],
    ),
    (
        Kind::CardPaid,
        &[
            "tarjeta",
            "tarjeta bancaria",
            "pago con tarjeta",
            "pago tarjeta",
            "tarj",
            "card",
            "card payment",
            "visa",
            "mastercard",
            "kartenzahlung",
            "ec karte",
            "carte bancaire",
        ],
    ),
    (
        Kind::Ignore,
        &[
            "# pedido",
            "pedido",
            "# de pedido",
            "# cliente",
            "# de cliente",
            "codigo cliente",
            "cod cliente",
            "codigo de cliente",
            "# albaran",
            "albaran",
            "# de albaran",
            "# contrato",
            "contrato",
            "# cuenta",
            "cuenta",
            "iban",
            "ccc",
            "swift",
            "bic",
            "telefono",
            "tel",
            "tlf",
            "telf",
            "movil",
            "fax",
            "# registro",
            "referencia",
            "ref",
            "# referencia",
            "su referencia",
            "# poliza",
            "poliza",
            "# presupuesto",
            "presupuesto",
            "cp",
            "codigo postal",
            "email",
            "e mail",
            "correo",
            "web",
            "# orden",
            "order",
            "# de socio",
            "# socio",
            "# abonado",
            "# suministro",
            "cups",
            "# expediente",
            "factura rectificada",
            "factura original",
            "rectifica a",
            "# factura rectificada",
            "# factura original",
            "# pedido cliente",
            "# de cuenta",
            "# tarjeta",
            // A card terminal's slip printed on a ticket.
            "# operacion",
            "# de operacion",
            "# autorizacion",
            "# de autorizacion",
            "# transaccion",
            "# terminal",
            "# comercio",
            "auth code",
            "authorisation code",
            "authorization code",
            "transaction id",
            "terminal id",
            "merchant id",
            "genehmigungsnummer",
            "terminal nr",
            // Other languages.
            "kundennummer",
            "kunden nr",
            "kundennr",
            "auftragsnummer",
            "bestellnummer",
            "lieferschein",
            "customer number",
            "customer no",
            "account number",
            "account no",
            "order no",
            "order number",
            "po number",
            "po #",
            "your reference",
            "reference",
            "phone",
            "telephone",
            "numero client",
            "# client",
            "commande",
            "bon de commande",
            "bestelnummer",
            "klantnummer",
            "ordine",
            "numero cliente",
            "glaubiger id",
            "mandatsreferenz",
            "page",
            "seite",
            "suma y sigue",
            "suma anterior",
            "sigue",
            "a trasladar",
            "carried forward",
            "brought forward",
            "ubertrag",
            "report a nouveau",
            "suma i segueix",
            // Counts of articles on tickets, not money.
            "total art",
            "total articulos",
            "# total art",
            "# articulos",
            "art vendidos",
            "articulos vendidos",
            "total unidades",
            "total items",
            "item count",
            "anzahl artikel",
            "nombre d articles",
        ],
    ),
];

/// Readings of "Nº" after key folding.
const NUMBER_SIGNS: &[&str] = &[
    "n", "no", "n0", "n2", "n9", "nro", "nr", "num", "numero", "nm", "nu", "ng",
];

fn strip_accent(c: char) -> char {
    match c {
        'á' | 'à' | 'â' | 'ä' | 'ã' | 'ª' => 'a',
        'é' | 'è' | 'ê' | 'ë' => 'e',
        'í' | 'ì' | 'î' | 'ï' => 'i',
        'ó' | 'ò' | 'ô' | 'ö' | 'õ' | 'º' | '°' => 'o',
        'ú' | 'ù' | 'û' | 'ü' => 'u',
        'ñ' => 'n',
        'ç' => 'c',
        other => other,
    }
}

fn folded(text: &str) -> impl Iterator<Item = char> + '_ {
    text.chars().flat_map(char::to_lowercase).map(strip_accent)
}

/// Lower case without accents (`Nº` → `no`, `Expedición` → `expedicion`).
pub fn fold(text: &str) -> String {
    folded(text).collect()
}

/// A word's matching key: folded, letters, digits and `%` only (`N.º` → `no`,
/// `C.I.F.:` → `cif`, `(21%)` → `21%`), built in one pass.
pub fn key(text: &str) -> String {
    folded(text)
        .filter(|c| c.is_alphanumeric() || *c == '%')
        .collect()
}

struct Label {
    kind: Kind,
    keys: Vec<&'static str>,
}

/// Labels by their first key, longest first.
fn index() -> &'static HashMap<&'static str, Vec<Label>> {
    static INDEX: OnceLock<HashMap<&'static str, Vec<Label>>> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut map: HashMap<&'static str, Vec<Label>> = HashMap::new();
        for &(kind, labels) in LABELS {
            for label in labels {
                let keys: Vec<&'static str> = label
                    .split(' ')
                    .map(|k| k.trim_end_matches(':'))
                    .filter(|k| !k.is_empty())
                    .collect();
                let Some(&first) = keys.first() else { continue };
                let firsts: Vec<&'static str> = if first == "#" {
                    NUMBER_SIGNS.to_vec()
                } else {
                    vec![first]
                };
                for f in firsts {
                    map.entry(f).or_default().push(Label {
                        kind,
                        keys: keys.clone(),
                    });
                }
            }
        }
        for labels in map.values_mut() {
            labels.sort_by_key(|l| {
                (
                    std::cmp::Reverse(l.keys.len()),
                    std::cmp::Reverse(l.keys.iter().map(|k| k.len()).sum::<usize>()),
                )
            });
        }
        map
    })
}

fn key_matches(pattern: &str, key: &str) -> bool {
    if pattern == "#" {
        NUMBER_SIGNS.contains(&key)
    } else {
        pattern == key
    }
}

/// A label found on a row: tokens `start..end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hit {
    pub kind: Kind,
    pub row: usize,
    pub start: usize,
    pub end: usize,
}

/// Currency words a label may carry inside it.
const CURRENCY_WORDS: &[&str] = &["eur", "euro", "euros"];

fn is_numeric(key: &str) -> bool {
    key.chars().next().is_some_and(|c| c.is_ascii_digit())
}

/// The longest label starting at token `i` of a row of keys; with `cells`
/// (each token's cell), a label never spans two cells.
fn label_at(keys: &[&str], cells: Option<&[usize]>, i: usize) -> Option<(Kind, usize)> {
    let first = *keys.get(i)?;
    let labels = index().get(first)?;
    labels.iter().find_map(|label| {
        // Words without letters or digits ("€", "-") and currency words
        // inside a label are skipped: "Total € Incl. VAT" is "total incl
        // vat", "Total EUR IVA incl." is "total iva incl".
        let mut j = i;
        let mut fits = true;
        for (n, p) in label.keys.iter().enumerate() {
            let skipped = |k: &str| {
                k.is_empty() || (CURRENCY_WORDS.contains(&k) && !CURRENCY_WORDS.contains(p))
            };
            while n > 0 && keys.get(j).is_some_and(|k| skipped(k)) {
                j += 1;
            }
            match keys.get(j) {
                Some(k) if key_matches(p, k) => j += 1,
                _ => {
                    fits = false;
                    break;
                }
            }
        }
        let len = j - i;
        let one_cell = cells.is_none_or(|c| {
            c.get(i..i + len)
                .is_some_and(|span| span.iter().all(|&x| Some(&x) == span.first()))
        });
        let fits = fits && one_cell;
        // "21 % IVA" is a rate and a VAT label, not a "% IVA" column heading.
        let after_number = label.keys.first() == Some(&"%")
            && i > 0
            && keys.get(i - 1).is_some_and(|k| is_numeric(k));
        (fits && !after_number).then_some((label.kind, len))
    })
}

/// Label words this long or longer are recognised with one letter misread.
const FUZZY_LEN: usize = 6;

/// Every word of the lexicon's labels long enough to be recognised misread.
fn long_words() -> &'static HashSet<&'static str> {
    static WORDS: OnceLock<HashSet<&'static str>> = OnceLock::new();
    WORDS.get_or_init(|| {
        LABELS
            .iter()
            .flat_map(|(_, labels)| labels.iter())
            .flat_map(|label| label.split(' '))
            .filter(|w| w.len() >= FUZZY_LEN && w.chars().all(|c| c.is_ascii_lowercase()))
            .collect()
    })
}

/// Whether `a` becomes `b` by changing, adding or removing one letter
/// (both ASCII, as keys and label words are).
fn one_edit(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    match long.len() - short.len() {
        0 => short.iter().zip(long).filter(|(x, y)| x != y).count() == 1,
        1 => {
            let same_start = short.iter().zip(long).take_while(|(x, y)| x == y).count();
            short[same_start..] == long[same_start + 1..]
        }
        _ => false,
    }
}

/// An OCR word's key as the one label word it misreads by a letter
/// ("enirega" for "entrega"); other keys as they are. Text from a PDF's
/// layer (confidence 1) is never corrected.
fn ocr_key(tok: &super::rows::Tok) -> &str {
    let key = tok.key.as_str();
    let words = long_words();
    if tok.conf >= 1.0
        || key.len() < FUZZY_LEN
        || !key.chars().all(|c| c.is_ascii_lowercase())
        || words.contains(key)
    {
        return key;
    }
    let mut near = words.iter().filter(|w| one_edit(key, w));
    match (near.next(), near.next()) {
        (Some(word), None) => word,
        _ => key,
    }
}

/// The labels of one row, left to right, without overlaps.
pub fn row_hits(row: &Row, row_index: usize) -> Vec<Hit> {
    let keys: Vec<&str> = row.toks.iter().map(ocr_key).collect();
    let cells: Vec<usize> = row.toks.iter().map(|t| t.cell).collect();
    let mut hits = Vec::new();
    let mut i = 0;
    while i < keys.len() {
        match label_at(&keys, Some(&cells), i) {
            Some((kind, len)) => {
                hits.push(Hit {
                    kind,
                    row: row_index,
                    start: i,
                    end: i + len,
                });
                i += len;
            }
            None => i += 1,
        }
    }
    hits
}

/// Whether a printed label (a hint's) is one the parser knows at its start.
pub fn known(label: &str) -> bool {
    let keys: Vec<String> = label.split_whitespace().map(key).collect();
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    label_at(&keys, None, 0).is_some_and(|(kind, _)| kind != Kind::Ignore)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extraction::layout::TextDocument;
    use crate::extraction::text::rows::rows;

    fn kinds(line: &str) -> Vec<Kind> {
        let doc = TextDocument::from_plain_text(line);
        let rows = rows(&doc.words);
        rows.first()
            .map(|r| row_hits(r, 0).into_iter().map(|h| h.kind).collect())
            .unwrap_or_default()
    }

    #[test]
    fn keys_fold_case_accents_and_punctuation() {
        assert_eq!(key("N.º"), "no");
        assert_eq!(key("Nº"), "no");
        assert_eq!(key("N°"), "no");
        assert_eq!(key("N?2"), "n2");
        assert_eq!(key("N£2"), "n2");
        assert_eq!(key("N®"), "n");
        assert_eq!(key("EXPEDICIÓN:"), "expedicion");
        assert_eq!(key("(21%)"), "21%");
        assert_eq!(key("C.I.F.:"), "cif");
    }

    #[test]
    fn longest_label_wins_and_look_alikes_are_excluded() {
        assert_eq!(kinds("Nº factura: 7"), [Kind::InvoiceNumber]);
        assert_eq!(kinds("N?2 Factura 7"), [Kind::InvoiceNumber]);
        assert_eq!(kinds("NO FACTURA 7"), [Kind::InvoiceNumber]);
        assert_eq!(kinds("Factura núm. 7"), [Kind::InvoiceNumber]);
        assert_eq!(kinds("Nº pedido 7"), [Kind::Ignore]);
        assert_eq!(kinds("Nº de cliente 7"), [Kind::Ignore]);
        assert_eq!(kinds("Total IVA 21,00"), [Kind::VatTotal]);
        assert_eq!(kinds("Total (IVA incluido) 121,00"), [Kind::Total]);
        assert_eq!(kinds("TOTAL FACTURA 121,00"), [Kind::Total]);
        assert_eq!(kinds("Fecha de vencimiento 05/09/2026"), [Kind::OtherDate]);
        assert_eq!(
            kinds("Fecha de expedición: 05/08/2026"),
            [Kind::InvoiceDate]
        );
        assert_eq!(kinds("Data d'emissió 05/08/2026"), [Kind::InvoiceDate]);
        assert_eq!(kinds("Retención IRPF 15% -150,00"), [Kind::Irpf]);
        assert_eq!(kinds("R.E. 5,2% 52,00"), [Kind::Surcharge]);
        assert_eq!(kinds("Impuestos (21 % IVA) 21,00"), [Kind::Vat, Kind::Vat]);
        assert_eq!(
            kinds("Base   % IVA   Cuota"),
            [Kind::Base, Kind::VatRate, Kind::Vat]
        );
        assert!(kinds("Juan Pérez García").is_empty());
        assert_eq!(kinds("Total € Incl. VAT 681.87"), [Kind::Total]);
        assert_eq!(kinds("Total EUR IVA incl. 39,36"), [Kind::Total]);
        assert_eq!(kinds("Total EUR 39,36"), [Kind::Total]);
    }

    #[test]
    fn hint_labels_are_recognised() {
        assert!(known("Retención IRPF 15%"));
        assert!(known("CIF:"));
        assert!(!known("Amount"));
        assert!(!known("Nº pedido"));
    }
}
