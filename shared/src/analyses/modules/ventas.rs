//! `ventas` (reference §2.1, rules V1–V12): revenue, ticket, customers and
//! their concentration, monthly trend, products (ABC), margin, discounts,
//! returns, repeat customers, receivables.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::hash::{Hash, Hasher};

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::{Names, by_name, col, missing, note_odd_dates, period, sheet_total};
use crate::analyses::builder::Builder;
use crate::analyses::detect::Frame;
use crate::analyses::format;
use crate::analyses::report::{Horizon, Severity, Unit};
use crate::analyses::request::Module;
use crate::analyses::roles::Role;
use crate::analyses::stats::{
    self, HUNDRED, abc, complete_months, concentration, from_f64, monthly, pct, ranked, to_f64,
};

/// One sale line, net of VAT.
#[derive(Clone, Debug, Default)]
pub struct Line<'a> {
    pub date: Option<NaiveDate>,
    pub doc: Option<Cow<'a, str>>,
    pub customer: Option<usize>,
    pub product: Option<usize>,
    pub qty: Option<Decimal>,
    pub revenue: Decimal,
    pub with_vat: Decimal,
    pub cost: Option<Decimal>,
    pub discount: Decimal,
    pub below_cost: bool,
    pub paid: Option<bool>,
    pub due: Option<NaiveDate>,
}

/// The lines of all frames, with customer and product names.
pub struct Sales<'a> {
    pub lines: Vec<Line<'a>>,
    pub customers: Names<'a>,
    pub products: Names<'a>,
    pub vat_included: bool,
    pub has_cost: bool,
}

/// Reads the sale lines of the frames; `skipped` gets per-frame counts.
pub fn lines<'a>(
    frames: &'a [Frame<'a>],
    skipped: &mut Vec<Vec<(&'static str, usize)>>,
) -> Sales<'a> {
    let mut sales = Sales {
        lines: Vec::with_capacity(frames.iter().map(Frame::len).sum()),
        customers: Names::default(),
        products: Names::default(),
        vat_included: false,
        has_cost: false,
    };
    for f in frames {
        let (base, importe, total) = (
            col(f, Role::Base),
            col(f, Role::Importe),
            col(f, Role::Total),
        );
        let (qty, price, dto) = (
            col(f, Role::Cantidad),
            col(f, Role::Precio),
            col(f, Role::Descuento),
        );
        let (rate, cuota, coste) = (
            col(f, Role::TipoIva),
            col(f, Role::CuotaIva),
            col(f, Role::Coste),
        );
        let dates = f.dates(Role::Fecha);
        let due = f.dates(Role::Vencimiento);
        let mut docs = f.texts(Role::Documento);
        let paid = f.bools(Role::Estado);
        let mut customers = f.per_text(Role::Cliente);
        let mut products = f.per_text(Role::Producto);
        let dto_pct = f
            .column_header(Role::Descuento)
            .is_some_and(|h| h.hints.rate);
        let pvp = f
            .column_header(Role::Precio)
            .is_some_and(|h| h.has("pvp") && !h.has("sin") && !h.has("neto"));
        let cost_is_total = f.column_header(Role::Coste).is_some_and(|h| h.has("total"));
        sales.has_cost |= f.has(Role::Coste);
        let totals = f.total_rows();
        let (mut total_rows, mut no_amount) = (0, 0);
        for i in 0..f.len() {
            if totals[i] {
                total_rows += 1;
                continue;
            }
            let vat_rate = rate[i].map(|r| r / HUNDRED);
            let list = match (qty[i], price[i]) {
                (Some(q), Some(p)) => Some(q * p),
                _ => None,
            };
            let discount = match (dto[i], list) {
                (Some(d), Some(l)) if dto_pct => l * d / HUNDRED,
                (Some(d), _) if !dto_pct => d,
                _ => Decimal::ZERO,
            };
            let from_price = list.map(|l| {
                let net = l - discount;
                if pvp {
                    net / (Decimal::ONE + vat_rate.unwrap_or(Decimal::new(21, 2)))
                } else {
                    net
                }
            });
            let from_total = total[i].map(|t| match (cuota[i], vat_rate) {
                (Some(c), _) => t - c,
                (None, Some(r)) => t / (Decimal::ONE + r),
                (None, None) => t,
            });
            let Some(revenue) = base[i].or(importe[i]).or(from_price).or(from_total) else {
                no_amount += 1;
                continue;
            };
            if base[i].or(importe[i]).or(from_price).is_none()
                && cuota[i].is_none()
                && vat_rate.is_none()
            {
                sales.vat_included = true;
            }
            let with_vat = total[i]
                .or(cuota[i].map(|c| revenue + c))
                .or(vat_rate.map(|r| revenue * (Decimal::ONE + r)))
                .unwrap_or(revenue);
            let cost = coste[i].map(|c| match qty[i] {
                Some(q) if !cost_is_total => q * c,
                _ => c,
            });
            let below_cost = cost.is_some_and(|c| revenue > Decimal::ZERO && revenue < c);
            sales.lines.push(Line {
                date: dates.as_ref().and_then(|d| d[i]),
                doc: docs.as_mut().and_then(|d| d[i].take()),
                customer: customers
                    .as_mut()
                    .and_then(|c| c.get(i, |t| sales.customers.id(t))),
                product: products
                    .as_mut()
                    .and_then(|p| p.get(i, |t| sales.products.id(t))),
                qty: qty[i],
                revenue,
                with_vat,
                cost,
                discount,
                below_cost,
                paid: paid.as_ref().and_then(|p| p[i]),
                due: due.as_ref().and_then(|d| d[i]),
            });
        }
        skipped.push(vec![("total_row", total_rows), ("no_amount", no_amount)]);
    }
    sales
}

pub fn has_amount(f: &Frame) -> bool {
    f.has(Role::Importe)
        || f.has(Role::Base)
        || f.has(Role::Total)
        || (f.has(Role::Cantidad) && f.has(Role::Precio))
}

pub fn analyze(b: &mut Builder, frames: &[Frame], as_of: NaiveDate) {
    if !frames.iter().any(has_amount) {
        missing(b, Module::Ventas, frames, ("importe", "amount"));
        return;
    }
    let mut skipped = Vec::new();
    let sales = lines(frames, &mut skipped);
    for (f, s) in frames.iter().zip(&skipped) {
        b.note_frame(f, s);
    }
    let l = &sales.lines;
    b.quality.rows_analysed = l.len() as u64;
    let dates: Vec<NaiveDate> = l.iter().filter_map(|x| x.date).collect();
    note_odd_dates(b, &dates, as_of);
    let span = period(dates.iter().copied());
    b.scope(l.len(), sheet_total(frames), span);
    if sales.vat_included {
        b.note(
            "Importes con IVA: no hay base imponible ni tipo de IVA.".into(),
            "Amounts include VAT: there is no taxable base or VAT rate.".into(),
        );
    }
    duplicates(b, l);
    super::note_outliers(b, l.iter().map(|x| x.revenue));

    let r: Decimal = l.iter().map(|x| x.revenue).sum();
    let mut docs = HashSet::with_capacity(l.len());
    docs.extend(l.iter().filter_map(|x| x.doc.as_deref()));
    let n = if docs.is_empty() { l.len() } else { docs.len() };
    let revenue = b.fig("revenue", ("Facturación", "Revenue"), r, Unit::Eur);
    let ops = b.fig(
        "operations",
        ("Operaciones", "Sales"),
        n.into(),
        Unit::Count,
    );
    let ticket = b.fig(
        "average_ticket",
        ("Ticket medio", "Average ticket"),
        stats::ratio(r, n.into()).unwrap_or_default(),
        Unit::Eur,
    );
    b.sentence(b.pick(
        format!("Facturación de {revenue} en {ops} operaciones, con un ticket medio de {ticket}."),
        format!("Revenue of {revenue} from {ops} sales, with an average ticket of {ticket}."),
    ));
    let units: Decimal = l.iter().filter_map(|x| x.qty).sum();
    if l.iter().any(|x| x.qty.is_some()) && !units.is_zero() {
        b.fig("units", ("Unidades", "Units"), units, Unit::Count);
        b.fig(
            "average_price",
            ("Precio medio", "Average price"),
            r / units,
            Unit::Eur,
        );
    }
    customers(b, &sales, r);
    trend(b, l, span);
    products(b, &sales, r);
    margin(b, &sales, r);
    discounts_and_returns(b, l, r);
    receivables(b, l, r, span, as_of);
    b.actions
        .push(crate::analyses::actions::compare(Module::Ventas, b.lang));
    b.actions
        .push(crate::analyses::actions::analyze(Module::Caja, b.lang));
}

/// A line's date, document and amount: equal keys are repeated lines.
/// Hashed without the amount (hashing a `Decimal` normalises it), which
/// keeps equal keys hashing alike.
#[derive(PartialEq, Eq)]
struct Repeat<'a>(Option<NaiveDate>, Option<&'a str>, Decimal);

impl Hash for Repeat<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (self.0, self.1).hash(state);
    }
}

fn duplicates(b: &mut Builder, l: &[Line]) {
    let mut seen = HashSet::with_capacity(l.len());
    let dupes = l
        .iter()
        .filter(|x| x.doc.is_some())
        .filter(|x| !seen.insert(Repeat(x.date, x.doc.as_deref(), x.revenue)))
        .count();
    if dupes > 0 {
        b.note(
            format!("{dupes} líneas repetidas (misma fecha, documento e importe): se han contado, revísalas."),
            format!("{dupes} repeated lines (same date, document and amount): counted, check them."),
        );
    }
}

fn customers(b: &mut Builder, sales: &Sales, r: Decimal) {
    let mut totals: BTreeMap<usize, Decimal> = BTreeMap::new();
    for x in &sales.lines {
        if let Some(c) = x.customer {
            *totals.entry(c).or_default() += x.revenue;
        }
    }
    if totals.is_empty() {
        return;
    }
    let ranked = ranked(&by_name(&sales.customers, &totals));
    let Some(c) = concentration(&ranked) else {
        return;
    };
    let count = b.fig(
        "customers",
        ("Clientes", "Customers"),
        c.count.into(),
        Unit::Count,
    );
    let top1 = b.fig(
        "top1_share",
        ("Peso del mayor cliente", "Largest customer share"),
        c.top1,
        Unit::Pct,
    );
    let top5 = b.fig(
        "top5_share",
        ("Peso de los 5 mayores", "Top 5 share"),
        c.top5,
        Unit::Pct,
    );
    let hhi = b.fig("hhi", ("Índice HHI", "HHI"), c.hhi, Unit::Count);
    let k = b.fig(
        "pareto_customers",
        ("Clientes que hacen el 80 %", "Customers making 80%"),
        c.pareto_k.into(),
        Unit::Count,
    );
    let pareto = b.fig(
        "pareto_share",
        (
            "Peso de los clientes del 80 %",
            "Share of the 80% customers",
        ),
        c.pareto_share,
        Unit::Pct,
    );
    let top_amount = ranked[0].1;
    let name = &c.top1_name;
    if c.top1 > Decimal::from(30) {
        let at_stake = b.fig(
            "top1_revenue",
            ("Ventas del mayor cliente", "Largest customer revenue"),
            top_amount,
            Unit::Eur,
        );
        let severity = if c.top1 > Decimal::from(50) {
            Severity::High
        } else {
            Severity::Medium
        };
        b.priority(
            "V1",
            severity,
            top_amount,
            b.pick(
                format!("«{name}» concentra el {top1} de las ventas: si lo pierdes, la facturación bajaría {at_stake}."),
                format!("«{name}» makes {top1} of sales: losing it would cut revenue by {at_stake}."),
            ),
            Horizon::Quarter,
            b.pick(
                format!("Este trimestre: asegura a «{name}» con contrato o anticipo y busca 5 clientes parecidos para bajar su peso de {top1}."),
                format!("This quarter: secure «{name}» with a contract or advance payment and list 5 lookalike prospects to bring its {top1} share down."),
            ),
        );
    }
    if c.top5 > Decimal::from(70) || c.hhi > Decimal::from(2500) {
        let effective = b.fig(
            "effective_customers",
            ("Clientes equivalentes", "Equivalent customers"),
            c.effective,
            Unit::Count,
        );
        b.priority(
            "V2",
            Severity::Medium,
            r * c.top5 / HUNDRED / Decimal::from(5),
            b.pick(
                format!("Cartera concentrada: los cinco mayores clientes suman el {top5} (índice HHI {hhi}), equivale a {effective} clientes del mismo tamaño."),
                format!("Concentrated customer base: the top five make {top5} (HHI {hhi}), like {effective} customers of equal size."),
            ),
            Horizon::Quarter,
            b.pick(
                "Este trimestre: haz crecer las cuentas medianas y lanza una oferta por recomendación.".into(),
                "This quarter: grow mid-size accounts and launch a referral offer.".into(),
            ),
        );
    }
    if c.hhi < Decimal::from(1000) && c.count >= 20 {
        b.strength(
            "V3",
            r,
            b.pick(
                format!("Cartera diversificada: {count} clientes e índice HHI de {hhi}; {k} clientes hacen el {pareto} de las ventas (principio de Pareto)."),
                format!("Diversified customers: {count} customers and an HHI of {hhi}; {k} customers make {pareto} of sales (Pareto principle)."),
            ),
        );
    }
    repeat(b, sales);
}

fn repeat(b: &mut Builder, sales: &Sales) {
    let mut days: BTreeMap<usize, BTreeSet<NaiveDate>> = BTreeMap::new();
    for x in &sales.lines {
        if let (Some(c), Some(d)) = (x.customer, x.date) {
            days.entry(c).or_default().insert(d);
        }
    }
    if days.len() < 5 {
        return;
    }
    let repeaters = days.values().filter(|d| d.len() >= 2).count();
    let rate = pct(repeaters.into(), days.len().into());
    let shown = b.fig(
        "repeat_rate",
        ("Clientes que repiten", "Repeat customers"),
        rate,
        Unit::Pct,
    );
    if rate >= Decimal::from(50) {
        b.strength(
            "V11",
            Decimal::ZERO,
            b.pick(
                format!("Clientes que repiten: el {shown} compra en dos o más fechas."),
                format!("Loyal repeat customers: {shown} buy on two or more dates."),
            ),
        );
    }
}

fn trend(b: &mut Builder, l: &[Line], span: Option<crate::analyses::report::Period>) {
    let Some(span) = span else { return };
    let series = monthly(l.iter().filter_map(|x| x.date.map(|d| (d, x.revenue))));
    let months = complete_months(&series, span.from, span.to);
    growth_rates(b, &months);
    if months.len() >= 6 {
        let last: Decimal = months[months.len() - 3..].iter().map(|m| m.1).sum();
        let prev: Decimal = months[months.len() - 6..months.len() - 3]
            .iter()
            .map(|m| m.1)
            .sum();
        if prev > Decimal::ZERO {
            let change = (last / prev - Decimal::ONE) * HUNDRED;
            let shown = b.fig(
                "change_3m",
                (
                    "Últimos 3 meses frente a los 3 anteriores",
                    "Last 3 months vs previous 3",
                ),
                change,
                Unit::Pct,
            );
            let diff = b.fig(
                "change_3m_eur",
                (
                    "Diferencia de los últimos 3 meses",
                    "Last 3 months difference",
                ),
                last - prev,
                Unit::Eur,
            );
            if change <= Decimal::from(-10) {
                b.priority(
                    "V4",
                    Severity::High,
                    last - prev,
                    b.pick(
                        format!("Ventas {shown} en el último trimestre frente al anterior ({diff})."),
                        format!("Sales {shown} in the last quarter against the one before ({diff})."),
                    ),
                    Horizon::Week,
                    b.pick(
                        "Esta semana: llama a los mayores clientes que han dejado de comprar y compara precio y volumen con el periodo anterior.".into(),
                        "This week: call the biggest customers who stopped buying and split price from volume against the previous period.".into(),
                    ),
                );
            } else if change >= Decimal::from(10) {
                b.strength(
                    "V5",
                    last - prev,
                    b.pick(
                        format!(
                            "Ventas +{shown} en el último trimestre frente al anterior ({diff})."
                        ),
                        format!(
                            "Sales up {shown} in the last quarter against the one before ({diff})."
                        ),
                    ),
                );
            }
        }
    }
    if months.len() >= 4 {
        let ys: Vec<f64> = months.iter().map(|m| to_f64(m.1)).collect();
        let mean = ys.iter().sum::<f64>() / ys.len() as f64;
        if mean > 0.0 {
            b.fig(
                "trend_month",
                ("Tendencia mensual", "Monthly trend"),
                from_f64(stats::ols_slope(&ys) / mean * 100.0),
                Unit::Pct,
            );
        }
    }
    if months.len() >= 12 {
        let ys: Vec<f64> = months.iter().map(|m| to_f64(m.1)).collect();
        let mean = ys.iter().sum::<f64>() / ys.len() as f64;
        let (peak_i, peak) =
            ys.iter().enumerate().fold(
                (0, f64::MIN),
                |acc, (i, y)| if *y > acc.1 { (i, *y) } else { acc },
            );
        let cv = stats::cv(&ys);
        if mean > 0.0 && (peak > 2.0 * mean || cv > 0.35) {
            let month = format::month(months[peak_i].0, b.lang);
            let peak_shown = b.fig(
                "peak_month",
                ("Ventas del mes pico", "Peak month sales"),
                from_f64(peak),
                Unit::Eur,
            );
            b.priority(
                "V10",
                Severity::Low,
                Decimal::ZERO,
                b.pick(
                    format!("Estacionalidad: pico en {month} con {peak_shown}."),
                    format!("Strong seasonality: peak in {month} with {peak_shown}."),
                ),
                Horizon::Quarter,
                b.pick(
                    "Este trimestre: ahorra en los meses fuertes y prepara campañas para los flojos.".into(),
                    "This quarter: save in peak months and plan campaigns for the valley.".into(),
                ),
            );
        }
    }
}

/// MoM (last complete month against the one before), YoY (against the same
/// month a year earlier) and CAGR (last 12 months against the first 12,
/// with 24 months or more).
fn growth_rates(b: &mut Builder, months: &[(NaiveDate, Decimal)]) {
    let n = months.len();
    if n >= 2 && months[n - 2].1 > Decimal::ZERO {
        let mom = (months[n - 1].1 / months[n - 2].1 - Decimal::ONE) * HUNDRED;
        b.fig(
            "mom",
            ("Variación del último mes", "Month over month"),
            mom,
            Unit::Pct,
        );
    }
    let last = months[n.saturating_sub(1)..].first();
    let year_before = last.and_then(|(m, _)| {
        let target = m.checked_sub_months(chrono::Months::new(12))?;
        months.iter().find(|(x, _)| *x == target)
    });
    if let (Some((_, now)), Some((_, then))) = (last, year_before)
        && *then > Decimal::ZERO
    {
        b.fig(
            "yoy",
            (
                "Variación interanual del último mes",
                "Year over year (last month)",
            ),
            (*now / *then - Decimal::ONE) * HUNDRED,
            Unit::Pct,
        );
    }
    if n >= 24 {
        let first: Decimal = months[..12].iter().map(|m| m.1).sum();
        let latest: Decimal = months[n - 12..].iter().map(|m| m.1).sum();
        if first > Decimal::ZERO && latest > Decimal::ZERO {
            let years = (n - 12) as f64 / 12.0;
            let cagr = (to_f64(latest) / to_f64(first)).powf(1.0 / years) - 1.0;
            b.fig(
                "cagr",
                ("Crecimiento anual compuesto", "Compound annual growth"),
                from_f64(cagr * 100.0),
                Unit::Pct,
            );
        }
    }
}

fn products(b: &mut Builder, sales: &Sales, r: Decimal) {
    let mut totals: BTreeMap<usize, Decimal> = BTreeMap::new();
    for x in &sales.lines {
        if let Some(p) = x.product {
            *totals.entry(p).or_default() += x.revenue;
        }
    }
    if totals.len() < 3 {
        return;
    }
    let ranked = ranked(&by_name(&sales.products, &totals));
    let classes = abc(&ranked);
    let a = classes.iter().filter(|c| **c == 'A').count();
    let c_items = classes.iter().filter(|c| **c == 'C').count();
    let c_value: Decimal = ranked
        .iter()
        .zip(&classes)
        .filter(|(_, c)| **c == 'C')
        .map(|(x, _)| x.1)
        .sum();
    b.fig(
        "products",
        ("Productos", "Products"),
        ranked.len().into(),
        Unit::Count,
    );
    b.fig(
        "class_a_products",
        ("Productos clase A", "Class A products"),
        a.into(),
        Unit::Count,
    );
    let c_share_items = pct(c_items.into(), ranked.len().into());
    let c_share_value = pct(c_value, r);
    if c_share_items > Decimal::from(50) && c_share_value < Decimal::from(5) {
        let items = b.fig(
            "class_c_items_share",
            ("Productos clase C", "Class C products"),
            c_share_items,
            Unit::Pct,
        );
        let value = b.fig(
            "class_c_value_share",
            ("Ventas de la clase C", "Class C sales"),
            c_share_value,
            Unit::Pct,
        );
        b.priority(
            "V8",
            Severity::Low,
            c_value,
            b.pick(
                format!("Cola larga de productos poco vendidos: el {items} de los productos (clase C del análisis ABC) hace solo el {value} de las ventas."),
                format!("Long tail of slow sellers: {items} of products (class C in the ABC analysis) make only {value} of sales."),
            ),
            Horizon::Quarter,
            b.pick(
                "Este trimestre: elimina o agrupa la cola de productos clase C y empuja los de clase A.".into(),
                "This quarter: prune or bundle the class C tail and push class A items.".into(),
            ),
        );
    }
}

fn margin(b: &mut Builder, sales: &Sales, r: Decimal) {
    if !sales.has_cost || r <= Decimal::ZERO {
        return;
    }
    let costed: Vec<&Line> = sales.lines.iter().filter(|x| x.cost.is_some()).collect();
    let cogs: Decimal = costed.iter().filter_map(|x| x.cost).sum();
    let r_costed: Decimal = costed.iter().map(|x| x.revenue).sum();
    let gm = r_costed - cogs;
    b.fig(
        "cogs",
        ("Coste de ventas", "Cost of goods sold"),
        cogs,
        Unit::Eur,
    );
    b.fig(
        "gross_margin",
        ("Margen bruto", "Gross margin"),
        gm,
        Unit::Eur,
    );
    b.fig(
        "gross_margin_pct",
        ("Margen bruto %", "Gross margin %"),
        pct(gm, r_costed),
        Unit::Pct,
    );
    if !cogs.is_zero() {
        b.fig(
            "markup",
            ("Recargo sobre coste", "Markup"),
            pct(gm, cogs),
            Unit::Pct,
        );
    }
    let below: Vec<&&Line> = costed.iter().filter(|x| x.below_cost).collect();
    if !below.is_empty() {
        let loss: Decimal = below
            .iter()
            .map(|x| x.cost.unwrap_or_default() - x.revenue)
            .sum();
        let lines = b.fig(
            "below_cost_lines",
            ("Líneas bajo coste", "Lines below cost"),
            below.len().into(),
            Unit::Count,
        );
        let shown = b.fig(
            "below_cost_loss",
            ("Pérdida en líneas bajo coste", "Loss on lines below cost"),
            loss,
            Unit::Eur,
        );
        b.priority(
            "V6",
            Severity::High,
            loss,
            b.pick(
                format!("Vendes por debajo de coste en {lines} líneas: pierdes {shown}."),
                format!("Selling below cost on {lines} lines: {shown} lost."),
            ),
            Horizon::Week,
            b.pick(
                format!("Esta semana: sube el precio o deja de vender esas {lines} líneas y limita los descuentos."),
                format!("This week: reprice or drop those {lines} lines and cap discounts."),
            ),
        );
    }
}

fn discounts_and_returns(b: &mut Builder, l: &[Line], r: Decimal) {
    let discounts: Decimal = l.iter().map(|x| x.discount).sum();
    if discounts > Decimal::ZERO {
        let rate = pct(discounts, r + discounts);
        let shown = b.fig(
            "discount_rate",
            ("Descuentos sobre venta bruta", "Discounts on gross sales"),
            rate,
            Unit::Pct,
        );
        if rate > Decimal::from(10) {
            let amount = b.fig(
                "discounts",
                ("Descuentos", "Discounts"),
                discounts,
                Unit::Eur,
            );
            b.priority(
                "V9",
                Severity::Medium,
                discounts,
                b.pick(
                    format!("Descuentos altos: {amount}, el {shown} de la venta bruta."),
                    format!("High discounts: {amount}, {shown} of gross sales."),
                ),
                Horizon::Month,
                b.pick(
                    "Este mes: escribe una política de descuentos con límites por cliente y producto.".into(),
                    "This month: write a discount policy with limits per customer and product.".into(),
                ),
            );
        }
    }
    let returns: Decimal = l
        .iter()
        .filter(|x| x.revenue < Decimal::ZERO)
        .map(|x| -x.revenue)
        .sum();
    if returns > Decimal::ZERO && r > Decimal::ZERO {
        b.fig(
            "returns",
            ("Devoluciones y abonos", "Returns and credit notes"),
            returns,
            Unit::Eur,
        );
        b.fig(
            "returns_rate",
            ("Devoluciones sobre ventas", "Returns on sales"),
            pct(returns, r),
            Unit::Pct,
        );
    }
}

fn receivables(
    b: &mut Builder,
    l: &[Line],
    r: Decimal,
    span: Option<crate::analyses::report::Period>,
    as_of: NaiveDate,
) {
    if !l.iter().any(|x| x.paid.is_some()) {
        return;
    }
    let unpaid: Vec<&Line> = l.iter().filter(|x| x.paid == Some(false)).collect();
    let pending: Decimal = unpaid.iter().map(|x| x.with_vat).sum();
    let shown = b.fig(
        "pending",
        ("Pendiente de cobro", "Pending collection"),
        pending,
        Unit::Eur,
    );
    let over_60: Decimal = unpaid
        .iter()
        .filter(|x| x.due.is_some_and(|d| (as_of - d).num_days() > 60))
        .map(|x| x.with_vat)
        .sum();
    let overdue: Decimal = unpaid
        .iter()
        .filter(|x| x.due.is_some_and(|d| d < as_of))
        .map(|x| x.with_vat)
        .sum();
    let sales_vat: Decimal = l.iter().map(|x| x.with_vat).sum();
    let days = span.map_or(0, |s| (s.to - s.from).num_days() + 1);
    let dso =
        (days > 0 && sales_vat > Decimal::ZERO).then(|| pending / sales_vat * Decimal::from(days));
    let dso_shown = dso.map(|d| {
        b.fig(
            "dso",
            ("Periodo medio de cobro", "Days sales outstanding"),
            d,
            Unit::Days,
        )
    });
    if overdue > Decimal::ZERO {
        b.fig(
            "overdue",
            ("Vencido sin cobrar", "Overdue"),
            overdue,
            Unit::Eur,
        );
    }
    let over_share = pct(over_60, r);
    let dso_high = dso.is_some_and(|d| d > Decimal::from(60));
    if over_share > Decimal::from(10) || dso_high {
        let amount = b.fig(
            "overdue_60",
            ("Vencido hace más de 60 días", "Overdue over 60 days"),
            over_60,
            Unit::Eur,
        );
        let text = match (dso_shown, dso_high) {
            (Some(d), true) => b.pick(
                format!("{amount} vencidos hace más de dos meses y un periodo medio de cobro de {d}; pendiente total {shown}."),
                format!("{amount} overdue for over two months and days sales outstanding of {d}; {shown} pending in all."),
            ),
            _ => b.pick(
                format!("{amount} vencidos hace más de dos meses sin cobrar; pendiente total {shown}."),
                format!("{amount} overdue for over two months; {shown} pending in all."),
            ),
        };
        b.priority(
            "V12",
            Severity::High,
            over_60.max(pending),
            text,
            Horizon::Week,
            b.pick(
                format!("Esta semana: reclama {amount} vencidos; la ley permite intereses de demora y 40 € por factura (consúltalo con tu asesor)."),
                format!("This week: claim the {amount} overdue; the law allows late interest plus €40 per invoice (check with your adviser)."),
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

    fn sheet(rows: &[(&str, &str, &str, Decimal, Decimal, Decimal)]) -> Sheet {
        Sheet {
            name: "ventas.xlsx".into(),
            rows: rows
                .iter()
                .map(|(fecha, doc, cliente, q, p, c)| {
                    Row(vec![
                        ("Fecha".into(), Cell::Text(fecha.to_string())),
                        ("Factura".into(), Cell::Text(doc.to_string())),
                        ("Cliente".into(), Cell::Text(cliente.to_string())),
                        ("Cantidad".into(), Cell::Number(*q)),
                        ("Precio".into(), Cell::Number(*p)),
                        ("Coste unitario".into(), Cell::Number(*c)),
                    ])
                })
                .collect(),
            total_rows: None,
        }
    }

    #[test]
    fn revenue_ticket_concentration_and_margin_by_hand() {
        // lines: 2×100 (A), 1×50 (A, same invoice), 4×25 (B), 1×40 (C), 2×30 (A)
        // R = 200 + 50 + 100 + 40 + 60 = 450; invoices F1, F2, F3, F4 → ticket 112.50
        // customers A 310, B 100, C 40 → shares 68.89, 22.22, 8.89; HHI 4745.7 + 493.8 + 79.0 = 5318.5
        // cost 2×60 + 1×20 + 4×30 + 1×10 + 2×10 = 290 → GM 160, 35.6 %; B sells below cost (100 < 120)
        let s = sheet(&[
            ("02/01/2025", "F1", "Ana S.L.", dec!(2), dec!(100), dec!(60)),
            ("02/01/2025", "F1", "ANA SL", dec!(1), dec!(50), dec!(20)),
            ("10/01/2025", "F2", "Berta", dec!(4), dec!(25), dec!(30)),
            ("15/02/2025", "F3", "Carlos", dec!(1), dec!(40), dec!(10)),
            ("20/02/2025", "F4", "Ana", dec!(2), dec!(30), dec!(10)),
        ]);
        let r = report_of(
            &s,
            Module::Ventas,
            Lang::Es,
            NaiveDate::from_ymd_opt(2025, 3, 1).unwrap(),
            analyze,
        );
        assert_eq!(figure(&r, "revenue"), dec!(450));
        assert_eq!(figure(&r, "operations"), dec!(4));
        assert_eq!(figure(&r, "average_ticket"), dec!(112.5));
        assert_eq!(figure(&r, "customers"), dec!(3));
        assert_eq!(figure(&r, "top1_share"), dec!(68.9));
        assert_eq!(figure(&r, "hhi"), dec!(5319));
        assert_eq!(figure(&r, "gross_margin"), dec!(160));
        assert_eq!(figure(&r, "gross_margin_pct"), dec!(35.6));
        assert_eq!(figure(&r, "markup"), dec!(55.2));
        assert_eq!(figure(&r, "below_cost_lines"), dec!(1));
        assert_eq!(figure(&r, "below_cost_loss"), dec!(20));
        assert_eq!(figure(&r, "units"), dec!(10));
        assert_eq!(figure(&r, "average_price"), dec!(45));
        let ids: Vec<&str> = r.priorities.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["V1", "V6", "V2"]);
        assert!(r.summary.contains("450,00 €"), "{}", r.summary);
        assert!(
            r.priorities[0].text.contains("«Ana S.L.»"),
            "{}",
            r.priorities[0].text
        );
    }

    #[test]
    fn discounts_returns_receivables_repeat_and_growth_by_hand() {
        // gross 1000 − 10 % discount = 900 (Ana, 15/01); 500 − 20 % = 400 (Ana, 20/02, unpaid, due 01/03);
        // return −100 (Luis, 25/02); 300 (Eva, 10/03); 200 (Pío, 15/03); 100 (Sol, 25/03)
        // R = 1800; discounts 100 + 100 = 200 → 200 / 2000 = 10 %; returns 100 / 1800 = 5.6 %
        // repeat: Ana on two dates of 5 customers = 20 %; pending 400, 01/03 → 15/05 = 75 days overdue
        // DSO = 400 / 1800 × 70 days (15/01–25/03) = 15.6 → 16; months Jan 900, Feb 300, Mar 600: MoM +100 %
        let rows = [
            (
                "15/01/2025",
                "Ana",
                dec!(1000),
                dec!(10),
                "sí",
                "15/01/2025",
            ),
            ("20/02/2025", "Ana", dec!(500), dec!(20), "no", "01/03/2025"),
            (
                "25/02/2025",
                "Luis",
                dec!(-100),
                dec!(0),
                "sí",
                "25/02/2025",
            ),
            ("10/03/2025", "Eva", dec!(300), dec!(0), "sí", "10/03/2025"),
            ("15/03/2025", "Pío", dec!(200), dec!(0), "sí", "15/03/2025"),
            ("25/03/2025", "Sol", dec!(100), dec!(0), "sí", "25/03/2025"),
        ];
        let s = Sheet {
            name: "v".into(),
            rows: rows
                .iter()
                .map(|(d, c, p, dto, paid, due)| {
                    Row(vec![
                        ("Fecha".into(), Cell::Text(d.to_string())),
                        ("Cliente".into(), Cell::Text(c.to_string())),
                        ("Cantidad".into(), Cell::Number(dec!(1))),
                        ("Precio".into(), Cell::Number(*p)),
                        ("% Dto.".into(), Cell::Number(*dto)),
                        ("Cobrado".into(), Cell::Text(paid.to_string())),
                        ("Vencimiento".into(), Cell::Text(due.to_string())),
                    ])
                })
                .collect(),
            total_rows: None,
        };
        let as_of = NaiveDate::from_ymd_opt(2025, 5, 15).unwrap();
        let r = report_of(&s, Module::Ventas, Lang::Es, as_of, analyze);
        assert_eq!(figure(&r, "revenue"), dec!(1800));
        assert_eq!(figure(&r, "discount_rate"), dec!(10));
        assert_eq!(figure(&r, "returns"), dec!(100));
        assert_eq!(figure(&r, "returns_rate"), dec!(5.6));
        assert_eq!(figure(&r, "repeat_rate"), dec!(20));
        assert_eq!(figure(&r, "pending"), dec!(400));
        assert_eq!(figure(&r, "overdue_60"), dec!(400));
        assert_eq!(figure(&r, "dso"), dec!(16));
        assert_eq!(figure(&r, "mom"), dec!(100));
        assert!(
            r.priorities.iter().any(|p| p.id == "V12"),
            "400 of 1800 overdue > 60 days"
        );
    }

    #[test]
    fn three_months_against_the_previous_three() {
        // complete months Jan–Jun: 100 each Jan–Mar, 80 each Apr–Jun → −20 %
        let mut rows = Vec::new();
        for (m, amount) in [(1, 100), (2, 100), (3, 100), (4, 80), (5, 80), (6, 80)] {
            for day in ["01", "28"] {
                rows.push(Row(vec![
                    ("Fecha".into(), Cell::Text(format!("{day}/{m:02}/2025"))),
                    (
                        "Importe".into(),
                        Cell::Number(Decimal::from(amount) / dec!(2)),
                    ),
                ]));
            }
        }
        let s = Sheet {
            name: "v".into(),
            rows,
            total_rows: Some(100),
        };
        let r = report_of(
            &s,
            Module::Ventas,
            Lang::En,
            NaiveDate::from_ymd_opt(2025, 7, 1).unwrap(),
            analyze,
        );
        assert_eq!(figure(&r, "change_3m"), dec!(-20));
        assert_eq!(figure(&r, "rows_share"), dec!(12));
        assert_eq!(r.priorities[0].id, "V4");
        assert!(
            r.summary.starts_with(
                "Based on the 12 rows analysed out of 100 (12.0%), Jan 2025 – Jun 2025."
            ),
            "{}",
            r.summary
        );
    }
}
