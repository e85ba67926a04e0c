//! `entradas` (reference §2.4, rules E1–E6): spend net of VAT, input VAT,
//! suppliers and their concentration, categories (PGC accounts), price
//! rises of the same item, duplicates, incomplete tickets, withholdings,
//! overdue payables.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::{Names, Nums, by_name, col, missing, note_odd_dates, period, sheet_total};
use crate::analyses::builder::Builder;
use crate::analyses::detect::Frame;
use crate::analyses::normalize::name_key;
use crate::analyses::report::{Horizon, Severity, Unit};
use crate::analyses::request::{Lang, Module};
use crate::analyses::roles::Role;
use crate::analyses::stats::{HUNDRED, concentration, pct, ranked};

/// One purchase line.
#[derive(Clone, Debug, Default)]
pub struct Purchase<'a> {
    pub date: Option<NaiveDate>,
    pub supplier: Option<usize>,
    pub doc: Option<Cow<'a, str>>,
    pub item: Option<String>,
    pub category: Option<String>,
    pub qty: Option<Decimal>,
    pub unit_price: Option<Decimal>,
    pub base: Decimal,
    pub vat: Decimal,
    pub withholding: Decimal,
    pub total: Decimal,
    pub nif: Option<Cow<'a, str>>,
    pub paid: Option<bool>,
    pub due: Option<NaiveDate>,
}

/// PGC account groups (3 digits) → category names.
const PGC: [(&str, &str, &str); 13] = [
    ("600", "compras de mercaderías", "purchases of goods"),
    ("621", "arrendamientos", "rent"),
    ("622", "reparaciones", "repairs"),
    ("623", "servicios profesionales", "professional services"),
    ("624", "transportes", "transport"),
    ("625", "seguros", "insurance"),
    ("626", "servicios bancarios", "bank services"),
    ("627", "publicidad", "advertising"),
    ("628", "suministros", "utilities"),
    ("629", "otros servicios", "other services"),
    ("631", "tributos", "taxes"),
    ("640", "sueldos", "wages"),
    (
        "642",
        "Seguridad Social a cargo de la empresa",
        "employer social security",
    ),
];

/// A category cell: a PGC account code becomes its group's name.
pub fn category(text: &str, lang: Lang) -> String {
    let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
    if digits.len() >= 3
        && let Some((_, es, en)) = PGC.iter().find(|(code, _, _)| digits.starts_with(code))
    {
        return match lang {
            Lang::Es => (*es).into(),
            Lang::En => (*en).into(),
        };
    }
    text.trim().to_string()
}

pub fn has_amount(f: &Frame) -> bool {
    f.has(Role::Base)
        || f.has(Role::Total)
        || f.has(Role::Importe)
        || (f.has(Role::Cantidad) && f.has(Role::Precio))
}

/// The amount columns of one frame.
struct AmountColumns {
    base: Nums,
    amount: Nums,
    total: Nums,
    qty: Nums,
    price: Nums,
    vat_rate: Nums,
    vat_amount: Nums,
    withholding: Nums,
    /// The withholding column holds a % of the net.
    withholding_is_rate: bool,
}

/// A purchase line's amounts: net of VAT, VAT, withholding.
struct Amounts {
    net: Decimal,
    vat: Decimal,
    withholding: Decimal,
}

impl AmountColumns {
    fn of(f: &Frame) -> Self {
        AmountColumns {
            base: col(f, Role::Base),
            amount: col(f, Role::Importe),
            total: col(f, Role::Total),
            qty: col(f, Role::Cantidad),
            price: col(f, Role::Precio),
            vat_rate: col(f, Role::TipoIva),
            vat_amount: col(f, Role::CuotaIva),
            withholding: col(f, Role::Retencion),
            withholding_is_rate: f
                .column_header(Role::Retencion)
                .is_some_and(|h| h.hints.rate),
        }
    }

    /// Row `i`'s net is the base, else the amount, else quantity × price,
    /// else the total less VAT; None when none is there.
    fn amounts(&self, i: usize) -> Option<Amounts> {
        let vat_rate = self.vat_rate[i].map(|r| r / HUNDRED);
        let (base, amount, total, vat_amount) = (
            self.base[i],
            self.amount[i],
            self.total[i],
            self.vat_amount[i],
        );
        let from_total = total.map(|t| match (vat_amount, vat_rate) {
            (Some(c), _) => t - c,
            (None, Some(r)) => t / (Decimal::ONE + r),
            (None, None) => t,
        });
        let from_price = match (self.qty[i], self.price[i]) {
            (Some(q), Some(p)) => Some(q * p),
            _ => None,
        };
        let net = base.or(amount).or(from_price).or(from_total)?;
        let vat = vat_amount
            .or(total.filter(|_| base.or(amount).is_some()).map(|t| t - net))
            .or(vat_rate.map(|r| net * r))
            .unwrap_or_default();
        let withholding = self.withholding[i].map_or(Decimal::ZERO, |x| {
            if self.withholding_is_rate {
                net * x / HUNDRED
            } else {
                x.abs()
            }
        });
        Some(Amounts {
            net,
            vat,
            withholding,
        })
    }
}

pub fn purchases<'a>(
    b: &mut Builder,
    frames: &'a [Frame<'a>],
    names: &mut Names<'a>,
) -> Vec<Purchase<'a>> {
    let mut out = Vec::with_capacity(frames.iter().map(Frame::len).sum());
    for f in frames {
        let (total_rows, no_amount) = frame_purchases(f, b.lang, names, &mut out);
        b.note_frame(f, &[("total_row", total_rows), ("no_amount", no_amount)]);
    }
    out
}

/// Reads one frame's purchases into `out`; returns the total rows and the
/// rows without an amount.
fn frame_purchases<'a>(
    f: &'a Frame<'a>,
    lang: Lang,
    names: &mut Names<'a>,
    out: &mut Vec<Purchase<'a>>,
) -> (usize, usize) {
    let columns = AmountColumns::of(f);
    let suppliers = f.texts(Role::Proveedor);
    let mut docs = f.texts(Role::Documento);
    let items = f.texts(Role::Concepto);
    let categories = f.texts(Role::Categoria);
    let mut nifs = f.texts(Role::Nif);
    let dates = f.dates(Role::Fecha);
    let due = f.dates(Role::Vencimiento);
    let paid = f.bools(Role::Estado);
    let totals = f.total_rows();
    let mut item_keys: HashMap<String, String> = HashMap::new();
    let (mut total_rows, mut no_amount) = (0, 0);
    for i in 0..f.len() {
        if totals[i] {
            total_rows += 1;
            continue;
        }
        let Some(Amounts {
            net,
            vat,
            withholding,
        }) = columns.amounts(i)
        else {
            no_amount += 1;
            continue;
        };
        let take = |t: &mut Option<Vec<Option<Cow<'a, str>>>>| t.as_mut().and_then(|t| t[i].take());
        let supplier = suppliers.as_ref().and_then(|s| match &s[i] {
            Some(Cow::Borrowed(x)) => names.id(x),
            _ => None,
        });
        out.push(Purchase {
            date: dates.as_ref().and_then(|d| d[i]),
            supplier,
            doc: take(&mut docs),
            item: items.as_ref().and_then(|t| t[i].as_deref()).map(|s| {
                item_keys
                    .entry(s.to_string())
                    .or_insert_with(|| name_key(s))
                    .clone()
            }),
            category: categories
                .as_ref()
                .and_then(|t| t[i].as_deref())
                .map(|c| category(c, lang)),
            qty: columns.qty[i],
            unit_price: columns.price[i].or(match columns.qty[i] {
                Some(q) if !q.is_zero() => Some(net / q),
                _ => None,
            }),
            base: net,
            vat,
            withholding,
            total: net + vat - withholding,
            nif: take(&mut nifs),
            paid: paid.as_ref().and_then(|p| p[i]),
            due: due.as_ref().and_then(|d| d[i]),
        });
    }
    (total_rows, no_amount)
}

pub fn analyze(b: &mut Builder, frames: &[Frame], as_of: NaiveDate) {
    if !frames.iter().any(has_amount) {
        missing(
            b,
            Module::Entradas,
            frames,
            ("total o base imponible", "total or taxable base"),
        );
        return;
    }
    let mut names = Names::default();
    let purchases = purchases(b, frames, &mut names);
    b.quality.rows_analysed = purchases.len() as u64;
    let dates: Vec<NaiveDate> = purchases.iter().filter_map(|x| x.date).collect();
    note_odd_dates(b, &dates, as_of);
    b.scope(
        purchases.len(),
        sheet_total(frames),
        period(dates.iter().copied()),
    );
    let totals = Totals::of(&purchases);
    write_totals(b, &totals);
    super::note_outliers(b, purchases.iter().map(|x| x.base));
    totals_check(b, frames);
    suppliers(b, &purchases, &names, totals.spend);
    categories(b, &purchases, totals.spend);
    price_rises(b, &purchases);
    duplicates(b, &purchases, &names);
    deductible(b, frames, &purchases, totals.input_vat);
    payables(b, &purchases, as_of);
    if totals.withholdings > Decimal::ZERO {
        write_withholdings(b, totals.withholdings);
        b.actions
            .push(crate::analyses::actions::tax_calendar(b.lang));
    }
    b.actions
        .push(crate::analyses::actions::compare(Module::Entradas, b.lang));
}

/// Sums over every purchase line.
struct Totals {
    /// Net of VAT.
    spend: Decimal,
    input_vat: Decimal,
    withholdings: Decimal,
}

impl Totals {
    fn of(purchases: &[Purchase]) -> Self {
        Totals {
            spend: purchases.iter().map(|x| x.base).sum(),
            input_vat: purchases.iter().map(|x| x.vat).sum(),
            withholdings: purchases.iter().map(|x| x.withholding).sum(),
        }
    }
}

/// Spend, input VAT and total payable (the headline).
fn write_totals(b: &mut Builder, totals: &Totals) {
    let spend = b.fig(
        "spend",
        ("Gasto sin IVA", "Spend net of VAT"),
        totals.spend,
        Unit::Eur,
    );
    let input_vat = b.fig(
        "input_vat",
        ("IVA soportado", "Input VAT"),
        totals.input_vat,
        Unit::Eur,
    );
    b.fig(
        "payable",
        ("Total a pagar", "Total payable"),
        totals.spend + totals.input_vat - totals.withholdings,
        Unit::Eur,
    );
    b.sentence(b.pick(
        format!("Gasto de {spend} sin IVA, con {input_vat} de IVA soportado."),
        format!("Spend of {spend} net of VAT, with {input_vat} of input VAT."),
    ));
}

/// E6: withholdings to pay in with forms 111 and 115.
fn write_withholdings(b: &mut Builder, withholdings: Decimal) {
    let shown = b.fig(
        "withholdings",
        ("Retenciones practicadas", "Withholdings"),
        withholdings,
        Unit::Eur,
    );
    b.priority(
        "E6",
        Severity::Medium,
        withholdings,
        b.pick(
            format!("Has retenido {shown} a profesionales o arrendadores: debes ingresarlos con el «modelo 111» o el «modelo 115»."),
            format!("You withheld {shown} from professionals or landlords: pay them in with «form 111» or «form 115»."),
        ),
        Horizon::Month,
        b.pick(
            "Este mes: mira en el calendario fiscal el plazo de los modelos 111 y 115 (consúltalo con tu asesor).".into(),
            "This month: check the 111 and 115 deadlines in the tax calendar (check with your adviser).".into(),
        ),
    );
}

/// Rows whose base + VAT − withholding differs from their total by more
/// than 0.02 €, and VAT rates outside the Spanish sets.
fn totals_check(b: &mut Builder, frames: &[Frame]) {
    let (mut off, mut odd_rates) = (0, 0);
    for f in frames {
        let (base, cuota, total, ret, rate) = (
            col(f, Role::Base),
            col(f, Role::CuotaIva),
            col(f, Role::Total),
            col(f, Role::Retencion),
            col(f, Role::TipoIva),
        );
        let ret_is_rate = f
            .column_header(Role::Retencion)
            .is_some_and(|h| h.hints.rate);
        for i in 0..f.len() {
            if let (Some(bs), Some(c), Some(t)) = (base[i], cuota[i], total[i]) {
                let r = ret[i].map_or(Decimal::ZERO, |x| {
                    if ret_is_rate {
                        bs * x / HUNDRED
                    } else {
                        x.abs()
                    }
                });
                if (bs + c - r - t).abs() > Decimal::new(2, 2) {
                    off += 1;
                }
            }
            if rate[i].is_some_and(|r| !crate::analyses::detect::is_vat_rate(r)) {
                odd_rates += 1;
            }
        }
    }
    if off > 0 {
        b.note(
            format!("{off} filas en las que base + IVA − retención no da el total."),
            format!("{off} rows where base + VAT − withholding does not give the total."),
        );
    }
    if odd_rates > 0 {
        b.note(
            format!("{odd_rates} tipos de IVA fuera de los tipos españoles (IVA o IGIC)."),
            format!("{odd_rates} VAT rates outside the Spanish rates (VAT or IGIC)."),
        );
    }
}

fn suppliers(b: &mut Builder, p: &[Purchase], names: &Names, spend: Decimal) {
    let mut totals: BTreeMap<usize, Decimal> = BTreeMap::new();
    for x in p {
        if let Some(s) = x.supplier {
            *totals.entry(s).or_default() += x.base;
        }
    }
    let ranked = ranked(&by_name(names, &totals));
    let Some(c) = concentration(&ranked) else {
        return;
    };
    b.fig(
        "suppliers",
        ("Proveedores", "Suppliers"),
        c.count.into(),
        Unit::Count,
    );
    let top = b.fig(
        "top_supplier_share",
        ("Peso del mayor proveedor", "Largest supplier share"),
        c.top1,
        Unit::Pct,
    );
    b.fig(
        "top5_supplier_share",
        ("Peso de los 5 mayores proveedores", "Top 5 suppliers share"),
        c.top5,
        Unit::Pct,
    );
    if c.top1 > Decimal::from(40) && c.count > 1 {
        let name = &c.top1_name;
        b.priority(
            "E1",
            Severity::Medium,
            spend * c.top1 / HUNDRED,
            b.pick(
                format!("Dependencia de proveedor: «{name}» supone el {top} del gasto."),
                format!("Supplier dependence: «{name}» makes {top} of spend."),
            ),
            Horizon::Quarter,
            b.pick(
                format!("Este trimestre: pide presupuesto a un segundo proveedor de lo que compras a «{name}»."),
                format!("This quarter: get a quote from a second supplier for what you buy from «{name}»."),
            ),
        );
    }
}

fn categories(b: &mut Builder, p: &[Purchase], spend: Decimal) {
    let mut totals: BTreeMap<String, Decimal> = BTreeMap::new();
    for x in p {
        if let Some(c) = &x.category {
            *totals.entry(c.clone()).or_default() += x.base;
        }
    }
    let ranked = ranked(&totals);
    if let Some((name, amount)) = ranked.first() {
        let share = b.fig(
            "top_category_share",
            ("Peso de la mayor categoría", "Largest category share"),
            pct(*amount, spend),
            Unit::Pct,
        );
        b.note(
            format!("Mayor categoría de gasto: «{name}» ({share})."),
            format!("Largest spend category: «{name}» ({share})."),
        );
    }
}

/// Dated unit prices of one item.
type Prices = Vec<(NaiveDate, Decimal)>;

fn price_rises(b: &mut Builder, p: &[Purchase]) {
    let mut by_item: BTreeMap<(Option<usize>, &str), Prices> = BTreeMap::new();
    for x in p {
        if let (Some(item), Some(d), Some(price)) = (x.item.as_deref(), x.date, x.unit_price)
            && price > Decimal::ZERO
        {
            by_item
                .entry((x.supplier, item))
                .or_default()
                .push((d, price));
        }
    }
    let mut rises: Vec<(Decimal, &str)> = by_item
        .iter_mut()
        .filter_map(|((_, item), prices)| {
            prices.sort();
            let (first, last) = (prices.first()?.1, prices.last()?.1);
            let change = (last / first - Decimal::ONE) * HUNDRED;
            (prices.len() >= 2 && change >= Decimal::TEN).then_some((change, *item))
        })
        .collect();
    rises.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    if let Some((change, item)) = rises.first() {
        let shown = b.fig(
            "largest_price_rise",
            ("Mayor subida de precio", "Largest price rise"),
            *change,
            Unit::Pct,
        );
        let n = b.fig(
            "items_price_up",
            ("Artículos que suben un 10 % o más", "Items up 10% or more"),
            rises.len().into(),
            Unit::Count,
        );
        b.priority(
            "E2",
            Severity::Medium,
            Decimal::ZERO,
            b.pick(
                format!("«{item}» sube un {shown}; {n} artículos tienen subidas de dos dígitos."),
                format!("«{item}» up {shown}; {n} items show double-digit rises."),
            ),
            Horizon::Month,
            b.pick(
                "Este mes: renegocia esos precios o trasládalos a los tuyos.".into(),
                "This month: renegotiate those prices or pass them on to yours.".into(),
            ),
        );
    }
}

fn duplicates(b: &mut Builder, p: &[Purchase], names: &Names) {
    let mut seen = BTreeSet::new();
    let mut dupes: Vec<&Purchase> = Vec::new();
    for x in p {
        let Some(s) = x.supplier else { continue };
        let key = match &x.doc {
            Some(doc) => (s, &**doc, None, Decimal::ZERO),
            None => (s, "", x.date, x.total),
        };
        if (x.doc.is_some() || x.date.is_some()) && !seen.insert(key) {
            dupes.push(x);
        }
    }
    if let Some(first) = dupes.first() {
        let n = b.fig(
            "possible_duplicates",
            (
                "Posibles facturas duplicadas",
                "Possible duplicate invoices",
            ),
            dupes.len().into(),
            Unit::Count,
        );
        let amount: Decimal = dupes.iter().map(|x| x.total).sum();
        let shown = b.fig(
            "possible_duplicates_amount",
            (
                "Importe de posibles duplicados",
                "Possible duplicates amount",
            ),
            amount,
            Unit::Eur,
        );
        let name = first
            .supplier
            .map(|s| names.display[s].clone())
            .unwrap_or_default();
        b.priority(
            "E3",
            Severity::High,
            amount,
            b.pick(
                format!("Posible factura duplicada: {n} facturas repetidas por {shown} (p. ej. «{name}»)."),
                format!("Possible duplicate: {n} repeated invoices for {shown} (e.g. «{name}»)."),
            ),
            Horizon::Week,
            b.pick(
                "Esta semana: comprueba esas facturas antes de pagarlas dos veces.".into(),
                "This week: check those invoices before paying twice.".into(),
            ),
        );
    }
}

fn deductible(b: &mut Builder, frames: &[Frame], p: &[Purchase], vat: Decimal) {
    if !frames.iter().any(|f| f.has(Role::Nif)) || vat <= Decimal::ZERO {
        return;
    }
    let at_risk: Decimal = p.iter().filter(|x| x.nif.is_none()).map(|x| x.vat).sum();
    let deductible = b.fig(
        "deductible_vat",
        ("IVA deducible (estimación)", "Deductible VAT (estimate)"),
        vat - at_risk,
        Unit::Eur,
    );
    if pct(at_risk, vat) > Decimal::from(5) {
        let shown = b.fig(
            "vat_at_risk",
            ("IVA de tiques sin NIF", "VAT on tickets without tax id"),
            at_risk,
            Unit::Eur,
        );
        b.priority(
            "E4",
            Severity::Medium,
            at_risk,
            b.pick(
                format!("IVA quizá no deducible: {shown} vienen de tiques sin NIF del proveedor; IVA deducible estimado {deductible}, confírmalo con tu asesor."),
                format!("VAT at risk: {shown} comes from tickets without the supplier's tax id; deductible VAT estimated at {deductible}, confirm with your adviser."),
            ),
            Horizon::Month,
            b.pick(
                "Este mes: pide facturas completas con tu NIF en lugar de tiques.".into(),
                "This month: ask for full invoices with your tax id instead of tickets.".into(),
            ),
        );
    }
}

fn payables(b: &mut Builder, p: &[Purchase], as_of: NaiveDate) {
    if !p.iter().any(|x| x.paid.is_some()) {
        return;
    }
    let pending: Decimal = p
        .iter()
        .filter(|x| x.paid == Some(false))
        .map(|x| x.total)
        .sum();
    b.fig(
        "payables_pending",
        ("Pendiente de pago", "Pending payment"),
        pending,
        Unit::Eur,
    );
    let late: Decimal = p
        .iter()
        .filter(|x| x.paid == Some(false) && x.due.is_some_and(|d| (as_of - d).num_days() > 60))
        .map(|x| x.total)
        .sum();
    if late > Decimal::ZERO {
        let shown = b.fig(
            "payables_overdue_60",
            (
                "Pagos vencidos hace más de 60 días",
                "Payables overdue over 60 days",
            ),
            late,
            Unit::Eur,
        );
        b.priority(
            "E5",
            Severity::Medium,
            late,
            b.pick(
                format!("Pagas fuera del plazo legal: {shown} vencidos hace más de dos meses."),
                format!("Paying late: {shown} overdue for over two months."),
            ),
            Horizon::Month,
            b.pick(
                "Este mes: haz un calendario de pagos y pacta aplazamientos con esos proveedores."
                    .into(),
                "This month: set a payment calendar and agree schedules with those suppliers."
                    .into(),
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyses::modules::{figure, report_of};
    use crate::analyses::request::{Cell, Lang, Row, Sheet};
    use rust_decimal::dec;

    #[test]
    fn spend_vat_suppliers_price_rise_and_duplicates_by_hand() {
        // base 100 + 200 + 110 + 110 = 520; VAT at 21 % = 109.20; Iberdrola (A) 100 + 110 + 110 = 320 → 61.5 %
        // the same item from A: 100 in Jan, 110 in Mar → +10 %; F2 from A twice → duplicate
        let rows = [
            ("10/01/2025", "Iberdrola", "F1", "Luz", dec!(100)),
            ("12/01/2025", "Papelería Sol", "P9", "Papel", dec!(200)),
            ("10/03/2025", "Iberdrola", "F2", "Luz", dec!(110)),
            ("10/03/2025", "IBERDROLA", "F2", "Luz", dec!(110)),
        ];
        let sheet = Sheet {
            name: "gastos".into(),
            rows: rows
                .iter()
                .map(|(d, s, doc, c, base)| {
                    Row(vec![
                        ("Fecha".into(), Cell::Text(d.to_string())),
                        ("Proveedor".into(), Cell::Text(s.to_string())),
                        ("Nº factura".into(), Cell::Text(doc.to_string())),
                        ("Concepto".into(), Cell::Text(c.to_string())),
                        ("Cantidad".into(), Cell::Number(dec!(1))),
                        ("Base imponible".into(), Cell::Number(*base)),
                        ("% IVA".into(), Cell::Number(dec!(21))),
                    ])
                })
                .collect(),
            total_rows: None,
        };
        let as_of = NaiveDate::from_ymd_opt(2025, 4, 1).unwrap();
        let r = report_of(&sheet, Module::Entradas, Lang::Es, as_of, analyze);
        let v = |id: &str| figure(&r, id);
        assert_eq!(v("spend"), dec!(520));
        assert_eq!(v("input_vat"), dec!(109.2));
        assert_eq!(v("suppliers"), dec!(2));
        assert_eq!(v("top_supplier_share"), dec!(61.5));
        assert_eq!(v("largest_price_rise"), dec!(10));
        assert_eq!(v("possible_duplicates"), dec!(1));
        let ids: Vec<&str> = r.priorities.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["E3", "E1", "E2"]);
    }

    #[test]
    fn pgc_accounts_name_categories() {
        assert_eq!(category("62800001", Lang::Es), "suministros");
        assert_eq!(category("621 Alquiler local", Lang::En), "rent");
        assert_eq!(category("Varios", Lang::Es), "Varios");
    }
}
