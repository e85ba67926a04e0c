//! `stock` (reference §2.2, rules S1–S7): value at cost and at net price,
//! ABC, items below minimum or out of stock, slow and dead stock, coverage,
//! rotation and days of inventory, expiring value. The figures are computed
//! first (`StockFigures`), then the report is written from them.

use std::borrow::Cow;
use std::collections::BTreeMap;

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::{col, missing, period, sheet_total};
use crate::analyses::builder::Builder;
use crate::analyses::detect::Frame;
use crate::analyses::format::round;
use crate::analyses::report::{Horizon, Severity, Unit};
use crate::analyses::request::Module;
use crate::analyses::roles::Role;
use crate::analyses::stats::{HUNDRED, abc, pct, ranked};

/// Days of sales the `vendidas` column is taken to cover (a year) when the
/// sheet does not say.
const SALES_DAYS: i64 = 365;
const SLOW_DAYS: i64 = 90;
const DEAD_DAYS: i64 = 180;
const OVERSTOCK_DAYS: i64 = 180;

#[derive(Clone, Debug)]
struct Item<'a> {
    name: Cow<'a, str>,
    qty: Decimal,
    cost: Option<Decimal>,
    value: Decimal,
    net_price: Option<Decimal>,
    min: Option<Decimal>,
    max: Option<Decimal>,
    last_sale: Option<NaiveDate>,
    sold: Option<Decimal>,
    expiry: Option<NaiveDate>,
}

/// What reading one frame left out, and whether a sale price had its VAT
/// taken off at the assumed 21 %.
#[derive(Default)]
struct FrameRead {
    default_vat: bool,
    total_rows: usize,
    no_quantity: usize,
}

fn items<'a>(b: &mut Builder, frames: &'a [Frame]) -> (Vec<Item<'a>>, bool) {
    let mut out = Vec::with_capacity(frames.iter().map(Frame::len).sum());
    let mut default_vat = false;
    for f in frames {
        let read = frame_items(f, &mut out);
        default_vat |= read.default_vat;
        b.note_frame(
            f,
            &[
                ("total_row", read.total_rows),
                ("no_quantity", read.no_quantity),
            ],
        );
    }
    (out, default_vat)
}

fn frame_items<'a>(f: &'a Frame, out: &mut Vec<Item<'a>>) -> FrameRead {
    let (qty, cost, price) = (
        col(f, Role::Existencias),
        col(f, Role::Coste),
        col(f, Role::PrecioVenta),
    );
    let (value, min, max) = (
        col(f, Role::Valor),
        col(f, Role::StockMin),
        col(f, Role::StockMax),
    );
    let (sold, vat_rate) = (col(f, Role::Vendidas), col(f, Role::TipoIva));
    let mut refs = f.texts(Role::Referencia);
    let mut descs = f.texts(Role::Descripcion);
    let last_sale = f.dates(Role::UltimaVenta);
    let expiry = f.dates(Role::Caducidad);
    let price_with_vat = f.column_header(Role::PrecioVenta).is_some_and(|h| {
        !h.has("sin") && !h.has("neto") && (h.has("pvp") || (h.has("p") && h.has("v")))
    });
    let totals = f.total_rows();
    let mut read = FrameRead::default();
    for i in 0..f.len() {
        if totals[i] {
            read.total_rows += 1;
            continue;
        }
        let name = descs
            .as_mut()
            .and_then(|d| d[i].take())
            .or_else(|| refs.as_mut().and_then(|r| r[i].take()));
        let quantity = qty[i].or_else(|| match (value[i], cost[i]) {
            (Some(v), Some(c)) if !c.is_zero() => Some(v / c),
            _ => None,
        });
        let (Some(name), Some(quantity)) = (name, quantity) else {
            read.no_quantity += 1;
            continue;
        };
        let net_price = price[i].map(|p| {
            if price_with_vat {
                read.default_vat |= vat_rate[i].is_none();
                p / (Decimal::ONE + vat_rate[i].unwrap_or(Decimal::from(21)) / HUNDRED)
            } else {
                p
            }
        });
        let value_at_cost = match (cost[i], value[i]) {
            (Some(c), _) => quantity.max(Decimal::ZERO) * c,
            (None, Some(v)) => v,
            (None, None) => Decimal::ZERO,
        };
        out.push(Item {
            name,
            qty: quantity,
            cost: cost[i],
            value: value_at_cost,
            net_price,
            min: min[i],
            max: max[i],
            last_sale: last_sale.as_ref().and_then(|d| d[i]),
            sold: sold[i],
            expiry: expiry.as_ref().and_then(|d| d[i]),
        });
    }
    read
}

pub fn analyze(b: &mut Builder, frames: &[Frame], as_of: NaiveDate) {
    let usable = |f: &Frame| {
        (f.has(Role::Existencias) || f.has(Role::Valor))
            && (f.has(Role::Referencia) || f.has(Role::Descripcion))
    };
    if !frames.iter().any(usable) {
        missing(
            b,
            Module::Stock,
            frames,
            ("existencias y referencia", "stock and reference"),
        );
        return;
    }
    let (items, default_vat) = items(b, frames);
    b.quality.rows_analysed = items.len() as u64;
    let span = period(items.iter().filter_map(|x| x.last_sale));
    b.scope(items.len(), sheet_total(frames), span);
    if default_vat {
        b.note(
            "PVP sin tipo de IVA: se ha supuesto el 21 % para obtener el precio neto.".into(),
            "Sale prices without a VAT rate: 21% assumed to get net prices.".into(),
        );
    }
    report(b, &StockFigures::of(&items, as_of));
    b.actions
        .push(crate::analyses::actions::analyze(Module::Ventas, b.lang));
}

/// Every figure the stock report quotes.
struct StockFigures<'a> {
    value: Value,
    availability: Availability<'a>,
    aging: Option<Aging>,
    coverage: Option<Coverage>,
    /// Items priced below cost plus items with a negative count.
    price_or_count_errors: usize,
    /// Value at cost of the items expiring within 60 days (or expired).
    expiring: Decimal,
}

struct Value {
    items: usize,
    units: Decimal,
    at_cost: Decimal,
    at_net_price: Option<ValueAtPrice>,
    /// Share of the value in the 10 largest items, when there are more.
    top10_share: Option<Decimal>,
}

/// Over the items with both a net price and a cost.
struct ValueAtPrice {
    at_net_price: Decimal,
    potential_margin: Decimal,
}

struct Availability<'a> {
    out_of_stock: usize,
    /// Class A items out of stock, then those below minimum.
    key_at_risk: Vec<&'a str>,
    key_at_risk_value: Decimal,
    below_minimum: usize,
    below_minimum_share: Decimal,
    below_minimum_value: Decimal,
}

struct Aging {
    slow: Decimal,
    dead: Decimal,
    dead_share: Decimal,
}

struct Coverage {
    rotation: Decimal,
    days_of_inventory: Decimal,
    /// Items with over `OVERSTOCK_DAYS` of cover (or no sales) or above their maximum.
    overstocked: usize,
    /// Value at cost beyond 90 days of sales.
    excess_over_90_days: Decimal,
}

impl<'a> StockFigures<'a> {
    fn of(items: &'a [Item<'a>], as_of: NaiveDate) -> Self {
        let by_value = ranked(&items.iter().fold(BTreeMap::new(), |mut m, x| {
            *m.entry(x.name.to_string()).or_default() += x.value;
            m
        }));
        let value = Value::of(items, &by_value);
        let classes: BTreeMap<&str, char> = by_value
            .iter()
            .map(|(n, _)| n.as_str())
            .zip(abc(&by_value))
            .collect();
        let class_a = |x: &Item| classes.get(&*x.name) == Some(&'A');
        let price_below_cost = items
            .iter()
            .filter(|x| matches!((x.net_price, x.cost), (Some(p), Some(c)) if p < c))
            .count();
        let negative = items.iter().filter(|x| x.qty < Decimal::ZERO).count();
        StockFigures {
            availability: Availability::of(items, class_a),
            aging: Aging::of(items, value.at_cost, as_of),
            coverage: Coverage::of(items, value.at_cost),
            price_or_count_errors: price_below_cost + negative,
            expiring: items
                .iter()
                .filter(|x| x.expiry.is_some_and(|d| (d - as_of).num_days() <= 60))
                .map(|x| x.value)
                .sum(),
            value,
        }
    }

    /// S5: no dead stock to speak of, no key item at risk, no price or count
    /// error. The dead-stock share is taken as shown (rounded).
    fn healthy(&self) -> bool {
        let dead_share = self.aging.as_ref().map(|a| round(a.dead_share, Unit::Pct));
        dead_share.is_none_or(|d| d < Decimal::from(5))
            && self.availability.key_at_risk.is_empty()
            && self.price_or_count_errors == 0
    }
}

impl Value {
    /// `by_value`: value at cost per item name, largest first.
    fn of(items: &[Item], by_value: &[(String, Decimal)]) -> Self {
        let at_cost: Decimal = items.iter().map(|x| x.value).sum();
        let priced: Vec<&Item> = items
            .iter()
            .filter(|x| x.net_price.is_some() && x.cost.is_some())
            .collect();
        let at_net_price = (!priced.is_empty()).then(|| {
            let at_net_price: Decimal = priced
                .iter()
                .map(|x| x.qty.max(Decimal::ZERO) * x.net_price.unwrap_or_default())
                .sum();
            let at_cost: Decimal = priced.iter().map(|x| x.value).sum();
            ValueAtPrice {
                at_net_price,
                potential_margin: at_net_price - at_cost,
            }
        });
        let top10: Decimal = by_value.iter().take(10).map(|x| x.1).sum();
        Value {
            items: items.len(),
            units: items.iter().map(|x| x.qty.max(Decimal::ZERO)).sum(),
            at_cost,
            at_net_price,
            top10_share: (by_value.len() > 10).then(|| pct(top10, at_cost)),
        }
    }
}

impl<'a> Availability<'a> {
    fn of(items: &'a [Item<'a>], class_a: impl Fn(&Item) -> bool) -> Self {
        let out: Vec<&Item> = items.iter().filter(|x| x.qty.is_zero()).collect();
        let below: Vec<&Item> = items
            .iter()
            .filter(|x| x.min.is_some_and(|m| x.qty > Decimal::ZERO && x.qty <= m))
            .collect();
        let key_at_risk: Vec<&Item> = out
            .iter()
            .chain(&below)
            .copied()
            .filter(|x| class_a(x))
            .collect();
        Availability {
            out_of_stock: out.len(),
            key_at_risk: key_at_risk.iter().map(|x| &*x.name).collect(),
            key_at_risk_value: key_at_risk.iter().map(|x| x.value).sum(),
            below_minimum: below.len(),
            below_minimum_share: pct(below.len().into(), items.len().into()),
            below_minimum_value: below.iter().map(|x| x.value).sum(),
        }
    }
}

impl Aging {
    /// None when no item has a last-sale date.
    fn of(items: &[Item], value_at_cost: Decimal, as_of: NaiveDate) -> Option<Self> {
        if !items.iter().any(|x| x.last_sale.is_some()) {
            return None;
        }
        let idle = |x: &Item| x.last_sale.map(|d| (as_of - d).num_days());
        let slow: Decimal = items
            .iter()
            .filter(|x| idle(x).is_some_and(|d| (SLOW_DAYS..DEAD_DAYS).contains(&d)))
            .map(|x| x.value)
            .sum();
        let dead: Decimal = items
            .iter()
            .filter(|x| idle(x).is_some_and(|d| d >= DEAD_DAYS))
            .map(|x| x.value)
            .sum();
        Some(Aging {
            slow,
            dead,
            dead_share: pct(dead, value_at_cost),
        })
    }
}

impl Coverage {
    /// None without units sold, or when they cost nothing.
    fn of(items: &[Item], value_at_cost: Decimal) -> Option<Self> {
        let with_sales: Vec<&Item> = items.iter().filter(|x| x.sold.is_some()).collect();
        let cogs: Decimal = with_sales
            .iter()
            .map(|x| x.sold.unwrap_or_default() * x.cost.unwrap_or_default())
            .sum();
        if cogs <= Decimal::ZERO {
            return None;
        }
        let rotation = cogs / value_at_cost.max(Decimal::ONE);
        let overstocked = with_sales
            .iter()
            .filter(|x| {
                let daily = x.sold.unwrap_or_default() / Decimal::from(SALES_DAYS);
                let cover = if daily.is_zero() {
                    None
                } else {
                    Some(x.qty / daily)
                };
                cover.is_none_or(|c| c > Decimal::from(OVERSTOCK_DAYS)) && x.qty > Decimal::ZERO
                    || x.max.is_some_and(|m| x.qty > m)
            })
            .count();
        Some(Coverage {
            rotation,
            days_of_inventory: Decimal::from(SALES_DAYS) / rotation,
            overstocked,
            excess_over_90_days: value_at_cost
                - cogs * Decimal::from(90) / Decimal::from(SALES_DAYS),
        })
    }
}

fn report(b: &mut Builder, figures: &StockFigures) {
    let value_shown = write_value(b, &figures.value);
    write_availability(b, &figures.availability);
    if let Some(aging) = &figures.aging {
        write_aging(b, aging);
    }
    if let Some(coverage) = &figures.coverage {
        write_coverage(b, coverage);
    }
    write_price_or_count_errors(b, figures.price_or_count_errors);
    write_expiring(b, figures.expiring);
    if figures.healthy() {
        b.strength(
            "S5",
            figures.value.at_cost,
            b.pick(
                format!(
                    "Stock sano: ningún artículo de clase A en rotura, {value_shown} bien repartidos."
                ),
                format!("Healthy stock: no class A item out of stock, {value_shown} well spread."),
            ),
        );
    }
}

/// The value figures and the headline; returns the value at cost as shown.
fn write_value(b: &mut Builder, value: &Value) -> String {
    let items = b.fig(
        "skus",
        ("Artículos", "Items"),
        value.items.into(),
        Unit::Count,
    );
    b.fig(
        "units",
        ("Unidades en stock", "Units in stock"),
        value.units,
        Unit::Count,
    );
    let at_cost = b.fig(
        "stock_value",
        ("Valor a coste", "Value at cost"),
        value.at_cost,
        Unit::Eur,
    );
    b.sentence(b.pick(
        format!("Stock de {items} artículos valorado en {at_cost} a coste."),
        format!("Stock of {items} items worth {at_cost} at cost."),
    ));
    if let Some(priced) = &value.at_net_price {
        b.fig(
            "value_at_price",
            ("Valor a precio neto", "Value at net price"),
            priced.at_net_price,
            Unit::Eur,
        );
        b.fig(
            "potential_margin",
            ("Margen potencial", "Potential margin"),
            priced.potential_margin,
            Unit::Eur,
        );
    }
    if let Some(share) = value.top10_share {
        b.fig(
            "top10_share",
            ("Valor en los 10 mayores", "Value in top 10 items"),
            share,
            Unit::Pct,
        );
    }
    at_cost
}

/// S2 (key items out or below minimum) and S3 (many items below minimum).
fn write_availability(b: &mut Builder, availability: &Availability) {
    if availability.out_of_stock > 0 {
        b.fig(
            "out_of_stock",
            ("Artículos en rotura", "Items out of stock"),
            availability.out_of_stock.into(),
            Unit::Count,
        );
    }
    if !availability.key_at_risk.is_empty() {
        let n = b.fig(
            "key_items_at_risk",
            (
                "Artículos clase A en rotura o bajo mínimo",
                "Class A items out or below minimum",
            ),
            availability.key_at_risk.len().into(),
            Unit::Count,
        );
        let names = availability
            .key_at_risk
            .iter()
            .take(3)
            .map(|name| format!("«{name}»"))
            .collect::<Vec<_>>()
            .join(", ");
        b.priority(
            "S2",
            Severity::High,
            availability.key_at_risk_value,
            b.pick(
                format!("Riesgo de rotura en artículos clave: {n} artículos de clase A están a cero o bajo mínimo ({names})."),
                format!("Stockout risk on key items: {n} class A items are at zero or below minimum ({names})."),
            ),
            Horizon::Week,
            b.pick(format!("Esta semana: repón {names}."), format!("This week: reorder {names}.")),
        );
    }
    if availability.below_minimum > 0 {
        let share = availability.below_minimum_share;
        let shown = b.fig(
            "below_minimum_share",
            ("Artículos bajo mínimo", "Items below minimum"),
            share,
            Unit::Pct,
        );
        if share > Decimal::from(10) {
            b.priority(
                "S3",
                Severity::Medium,
                availability.below_minimum_value,
                b.pick(
                    format!("Muchos artículos bajo mínimo: el {shown} del catálogo."),
                    format!("Many items below minimum: {shown} of the catalogue."),
                ),
                Horizon::Month,
                b.pick(
                    "Este mes: revisa los puntos de pedido y los plazos de entrega de tus proveedores.".into(),
                    "This month: review reorder points and supplier lead times.".into(),
                ),
            );
        }
    }
}

/// S1: dead stock over 10 % of the value.
fn write_aging(b: &mut Builder, aging: &Aging) {
    b.fig(
        "slow_stock",
        ("Stock lento (90–179 días)", "Slow stock (90–179 days)"),
        aging.slow,
        Unit::Eur,
    );
    let dead_shown = b.fig(
        "dead_stock",
        ("Stock muerto (180 días o más)", "Dead stock (180+ days)"),
        aging.dead,
        Unit::Eur,
    );
    let share = aging.dead_share;
    let share_shown = b.fig(
        "dead_stock_share",
        ("Stock muerto sobre el valor", "Dead stock share of value"),
        share,
        Unit::Pct,
    );
    if share > Decimal::from(10) {
        let severity = if share > Decimal::from(20) {
            Severity::High
        } else {
            Severity::Medium
        };
        b.priority(
            "S1",
            severity,
            aging.dead,
            b.pick(
                format!("{dead_shown} parados sin venta (stock muerto), el {share_shown} del valor."),
                format!("{dead_shown} tied up in dead stock, {share_shown} of the value."),
            ),
            Horizon::Month,
            b.pick(
                format!("Este mes: saca {dead_shown} de stock muerto a outlet, lotes o devolución y deja de reponerlo."),
                format!("This month: clear {dead_shown} of dead stock through outlet, bundles or returns and stop reordering it."),
            ),
        );
    }
}

/// S4: over 120 days of inventory or overstocked items.
fn write_coverage(b: &mut Builder, coverage: &Coverage) {
    b.fig(
        "rotation",
        ("Rotación de existencias", "Inventory turnover"),
        coverage.rotation,
        Unit::Count,
    );
    let days_shown = b.fig(
        "dio",
        ("Días de inventario", "Days of inventory"),
        coverage.days_of_inventory,
        Unit::Days,
    );
    b.note(
        "Rotación con una sola foto del stock y las unidades vendidas tomadas como de un año."
            .into(),
        "Turnover from a single stock snapshot, units sold taken as one year's.".into(),
    );
    if coverage.days_of_inventory > Decimal::from(120) || coverage.overstocked > 0 {
        let n = b.fig(
            "overstocked_items",
            (
                "Artículos con más de 180 días de cobertura",
                "Items with over 180 days of cover",
            ),
            coverage.overstocked.into(),
            Unit::Count,
        );
        b.priority(
            "S4",
            Severity::Medium,
            coverage.excess_over_90_days,
            b.pick(
                format!("Stock para {days_shown}; {n} artículos tienen más de medio año de cobertura."),
                format!("{days_shown} of stock; {n} items hold over half a year of cover."),
            ),
            Horizon::Month,
            b.pick(
                "Este mes: deja de comprar los artículos sobrados hasta que su cobertura baje de 90 días.".into(),
                "This month: pause buying overstocked items until cover drops below 90 days.".into(),
            ),
        );
    }
}

/// S6: prices below cost or negative counts.
fn write_price_or_count_errors(b: &mut Builder, errors: usize) {
    if errors == 0 {
        return;
    }
    let n = b.fig(
        "price_or_count_errors",
        (
            "Precios bajo coste o existencias negativas",
            "Prices below cost or negative counts",
        ),
        errors.into(),
        Unit::Count,
    );
    b.priority(
        "S6",
        Severity::High,
        Decimal::ZERO,
        b.pick(
            format!("Precio bajo coste o registros negativos en {n} artículos."),
            format!("Price below cost or negative counts on {n} items."),
        ),
        Horizon::Week,
        b.pick(
            "Esta semana: corrige esos precios y cuenta de nuevo esos artículos.".into(),
            "This week: fix those prices and count those items again.".into(),
        ),
    );
}

/// S7: value expiring within 60 days.
fn write_expiring(b: &mut Builder, expiring: Decimal) {
    if expiring <= Decimal::ZERO {
        return;
    }
    let shown = b.fig(
        "expiring_60d",
        (
            "Valor que caduca en 60 días",
            "Value expiring within 60 days",
        ),
        expiring,
        Unit::Eur,
    );
    b.priority(
        "S7",
        Severity::Medium,
        expiring,
        b.pick(
            format!("{shown} caducan pronto."),
            format!("{shown} expiring soon."),
        ),
        Horizon::Month,
        b.pick(
            "Este mes: promociona o devuelve esos artículos antes de que caduquen.".into(),
            "This month: promote or return those items before they expire.".into(),
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyses::modules::{figure, report_of};
    use crate::analyses::request::{Cell, Lang, Row, Sheet};
    use rust_decimal::dec;

    #[test]
    fn value_dead_stock_and_minimums_by_hand() {
        // A: 10 × 50 = 500, sold 30 days ago; B: 100 × 2 = 200, last sale 200 days ago (dead);
        // C: 0 × 10 (out of stock), min 5; D: 3 × 100 = 300, min 5 (below minimum), 95 days (slow)
        // V_c = 1000; dead 200 → 20 % (media); by value A 500 and D 300 are class A, B 200 class B
        let rows = [
            ("A", dec!(10), dec!(50), "2025-05-02", None),
            ("B", dec!(100), dec!(2), "2024-11-13", None),
            ("C", dec!(0), dec!(10), "2025-05-01", Some(dec!(5))),
            ("D", dec!(3), dec!(100), "2025-02-26", Some(dec!(5))),
        ];
        let sheet = Sheet {
            name: "stock".into(),
            rows: rows
                .iter()
                .map(|(r, q, c, d, m)| {
                    Row(vec![
                        ("Referencia".into(), Cell::Text(r.to_string())),
                        ("Existencias".into(), Cell::Number(*q)),
                        ("Coste unitario".into(), Cell::Number(*c)),
                        ("Última venta".into(), Cell::Text(d.to_string())),
                        ("Stock mínimo".into(), m.map_or(Cell::Empty, Cell::Number)),
                    ])
                })
                .collect(),
            total_rows: None,
        };
        let as_of = NaiveDate::from_ymd_opt(2025, 6, 1).unwrap();
        let r = report_of(&sheet, Module::Stock, Lang::Es, as_of, analyze);
        let v = |id: &str| figure(&r, id);
        assert_eq!(v("stock_value"), dec!(1000));
        assert_eq!(v("units"), dec!(113));
        assert_eq!(v("dead_stock"), dec!(200));
        assert_eq!(v("slow_stock"), dec!(300));
        assert_eq!(v("dead_stock_share"), dec!(20));
        assert_eq!(v("out_of_stock"), dec!(1));
        assert_eq!(v("below_minimum_share"), dec!(25));
        assert_eq!(v("key_items_at_risk"), dec!(1));
        let ids: Vec<&str> = r.priorities.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["S2", "S3", "S1"]);
    }

    #[test]
    fn net_price_potential_margin_and_days_of_inventory_by_hand() {
        // PVP with VAT, no rate given → 21 %: 12.10 → 10, 6.05 → 5
        // V_c = 10 × 5 + 20 × 2.5 = 100; V_p = 10 × 10 + 20 × 5 = 200 → potential margin 100
        // COGS = 73 × 5 = 365 → rotation 3.65, DIO = 365 / 3.65 = 100 days; B sells nothing → overstocked
        let rows = [
            ("A", dec!(10), dec!(5), dec!(12.10), dec!(73)),
            ("B", dec!(20), dec!(2.5), dec!(6.05), dec!(0)),
        ];
        let sheet = Sheet {
            name: "stock".into(),
            rows: rows
                .iter()
                .map(|(r, q, c, p, sold)| {
                    Row(vec![
                        ("Artículo".into(), Cell::Text(r.to_string())),
                        ("Stock".into(), Cell::Number(*q)),
                        ("PMP".into(), Cell::Number(*c)),
                        ("P.V.P.".into(), Cell::Number(*p)),
                        ("Unidades vendidas".into(), Cell::Number(*sold)),
                    ])
                })
                .collect(),
            total_rows: None,
        };
        let as_of = NaiveDate::from_ymd_opt(2025, 6, 1).unwrap();
        let r = report_of(&sheet, Module::Stock, Lang::En, as_of, analyze);
        let v = |id: &str| figure(&r, id);
        assert_eq!(v("stock_value"), dec!(100));
        assert_eq!(v("value_at_price"), dec!(200));
        assert_eq!(v("potential_margin"), dec!(100));
        assert_eq!(v("dio"), dec!(100));
        assert_eq!(v("overstocked_items"), dec!(1));
        assert!(r.data_quality.notes.iter().any(|n| n.contains("21%")));
    }
}
