//! `stock` (reference §2.2, rules S1–S7): value at cost and at net price,
//! ABC, items below minimum or out of stock, slow and dead stock, coverage,
//! rotation and days of inventory, expiring value.

use std::borrow::Cow;
use std::collections::BTreeMap;

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::{col, missing, period, sheet_total};
use crate::analyses::builder::Builder;
use crate::analyses::detect::Frame;
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

fn items<'a>(b: &mut Builder, frames: &'a [Frame]) -> (Vec<Item<'a>>, bool) {
    let mut out = Vec::with_capacity(frames.iter().map(Frame::len).sum());
    let mut default_vat = false;
    for f in frames {
        let (qty, cost, price) = (
            col(f, Role::Existencias),
            col(f, Role::Coste),
            col(f, Role::PrecioVenta),
        );
        let (valor, min, max) = (
            col(f, Role::Valor),
            col(f, Role::StockMin),
            col(f, Role::StockMax),
        );
        let (sold, rate) = (col(f, Role::Vendidas), col(f, Role::TipoIva));
        let mut refs = f.texts(Role::Referencia);
        let mut descs = f.texts(Role::Descripcion);
        let last = f.dates(Role::UltimaVenta);
        let expiry = f.dates(Role::Caducidad);
        let with_vat = f.column_header(Role::PrecioVenta).is_some_and(|h| {
            !h.has("sin") && !h.has("neto") && (h.has("pvp") || (h.has("p") && h.has("v")))
        });
        let totals = f.total_rows();
        let (mut skipped_total, mut no_qty) = (0, 0);
        for i in 0..f.len() {
            if totals[i] {
                skipped_total += 1;
                continue;
            }
            let name = descs
                .as_mut()
                .and_then(|d| d[i].take())
                .or_else(|| refs.as_mut().and_then(|r| r[i].take()));
            let q = qty[i].or_else(|| match (valor[i], cost[i]) {
                (Some(v), Some(c)) if !c.is_zero() => Some(v / c),
                _ => None,
            });
            let (Some(name), Some(q)) = (name, q) else {
                no_qty += 1;
                continue;
            };
            let net_price = price[i].map(|p| {
                if with_vat {
                    default_vat |= rate[i].is_none();
                    p / (Decimal::ONE + rate[i].unwrap_or(Decimal::from(21)) / HUNDRED)
                } else {
                    p
                }
            });
            let value = match (cost[i], valor[i]) {
                (Some(c), _) => q.max(Decimal::ZERO) * c,
                (None, Some(v)) => v,
                (None, None) => Decimal::ZERO,
            };
            out.push(Item {
                name,
                qty: q,
                cost: cost[i],
                value,
                net_price,
                min: min[i],
                max: max[i],
                last_sale: last.as_ref().and_then(|d| d[i]),
                sold: sold[i],
                expiry: expiry.as_ref().and_then(|d| d[i]),
            });
        }
        b.note_frame(f, &[("total_row", skipped_total), ("no_quantity", no_qty)]);
    }
    (out, default_vat)
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
    let skus = b.fig(
        "skus",
        ("Artículos", "Items"),
        items.len().into(),
        Unit::Count,
    );
    let units: Decimal = items.iter().map(|x| x.qty.max(Decimal::ZERO)).sum();
    b.fig(
        "units",
        ("Unidades en stock", "Units in stock"),
        units,
        Unit::Count,
    );
    let vc: Decimal = items.iter().map(|x| x.value).sum();
    let value = b.fig(
        "stock_value",
        ("Valor a coste", "Value at cost"),
        vc,
        Unit::Eur,
    );
    b.sentence(b.pick(
        format!("Stock de {skus} artículos valorado en {value} a coste."),
        format!("Stock of {skus} items worth {value} at cost."),
    ));
    let priced: Vec<&Item> = items
        .iter()
        .filter(|x| x.net_price.is_some() && x.cost.is_some())
        .collect();
    if !priced.is_empty() {
        let vp: Decimal = priced
            .iter()
            .map(|x| x.qty.max(Decimal::ZERO) * x.net_price.unwrap_or_default())
            .sum();
        let vcp: Decimal = priced.iter().map(|x| x.value).sum();
        b.fig(
            "value_at_price",
            ("Valor a precio neto", "Value at net price"),
            vp,
            Unit::Eur,
        );
        b.fig(
            "potential_margin",
            ("Margen potencial", "Potential margin"),
            vp - vcp,
            Unit::Eur,
        );
    }
    let ranked = ranked(&items.iter().fold(BTreeMap::new(), |mut m, x| {
        *m.entry(x.name.to_string()).or_default() += x.value;
        m
    }));
    let classes: BTreeMap<&str, char> = ranked
        .iter()
        .map(|(n, _)| n.as_str())
        .zip(abc(&ranked))
        .collect();
    let top10: Decimal = ranked.iter().take(10).map(|x| x.1).sum();
    if ranked.len() > 10 {
        b.fig(
            "top10_share",
            ("Valor en los 10 mayores", "Value in top 10 items"),
            pct(top10, vc),
            Unit::Pct,
        );
    }
    let class_a = |x: &Item| classes.get(&*x.name) == Some(&'A');

    let out: Vec<&Item> = items.iter().filter(|x| x.qty.is_zero()).collect();
    let below: Vec<&Item> = items
        .iter()
        .filter(|x| x.min.is_some_and(|m| x.qty > Decimal::ZERO && x.qty <= m))
        .collect();
    if !out.is_empty() {
        b.fig(
            "out_of_stock",
            ("Artículos en rotura", "Items out of stock"),
            out.len().into(),
            Unit::Count,
        );
    }
    let key_at_risk: Vec<&&Item> = out.iter().chain(&below).filter(|x| class_a(x)).collect();
    if !key_at_risk.is_empty() {
        let n = b.fig(
            "key_items_at_risk",
            (
                "Artículos clase A en rotura o bajo mínimo",
                "Class A items out or below minimum",
            ),
            key_at_risk.len().into(),
            Unit::Count,
        );
        let names = key_at_risk
            .iter()
            .take(3)
            .map(|x| format!("«{}»", x.name))
            .collect::<Vec<_>>()
            .join(", ");
        b.priority(
            "S2",
            Severity::High,
            key_at_risk.iter().map(|x| x.value).sum(),
            b.pick(
                format!("Riesgo de rotura en artículos clave: {n} artículos de clase A están a cero o bajo mínimo ({names})."),
                format!("Stockout risk on key items: {n} class A items are at zero or below minimum ({names})."),
            ),
            Horizon::Week,
            b.pick(format!("Esta semana: repón {names}."), format!("This week: reorder {names}.")),
        );
    }
    if !below.is_empty() {
        let share = pct(below.len().into(), items.len().into());
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
                below.iter().map(|x| x.value).sum(),
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
    aging(b, &items, vc, as_of);
    coverage(b, &items, vc);
    let bad_price = items
        .iter()
        .filter(|x| matches!((x.net_price, x.cost), (Some(p), Some(c)) if p < c))
        .count();
    let negative = items.iter().filter(|x| x.qty < Decimal::ZERO).count();
    if bad_price + negative > 0 {
        let n = b.fig(
            "price_or_count_errors",
            (
                "Precios bajo coste o existencias negativas",
                "Prices below cost or negative counts",
            ),
            (bad_price + negative).into(),
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
    let expiring: Decimal = items
        .iter()
        .filter(|x| x.expiry.is_some_and(|d| (d - as_of).num_days() <= 60))
        .map(|x| x.value)
        .sum();
    if expiring > Decimal::ZERO {
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
    let dead_share = b.figure("dead_stock_share").map(|f| f.value);
    if dead_share.is_none_or(|d| d < Decimal::from(5))
        && key_at_risk.is_empty()
        && !b.has_priority("S6")
    {
        b.strength(
            "S5",
            vc,
            b.pick(
                format!(
                    "Stock sano: ningún artículo de clase A en rotura, {value} bien repartidos."
                ),
                format!("Healthy stock: no class A item out of stock, {value} well spread."),
            ),
        );
    }
    b.actions
        .push(crate::analyses::actions::analyze(Module::Ventas, b.lang));
}

fn aging(b: &mut Builder, items: &[Item], vc: Decimal, as_of: NaiveDate) {
    if !items.iter().any(|x| x.last_sale.is_some()) {
        return;
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
    b.fig(
        "slow_stock",
        ("Stock lento (90–179 días)", "Slow stock (90–179 days)"),
        slow,
        Unit::Eur,
    );
    let dead_shown = b.fig(
        "dead_stock",
        ("Stock muerto (180 días o más)", "Dead stock (180+ days)"),
        dead,
        Unit::Eur,
    );
    let share = pct(dead, vc);
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
            dead,
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

fn coverage(b: &mut Builder, items: &[Item], vc: Decimal) {
    let with_sales: Vec<&Item> = items.iter().filter(|x| x.sold.is_some()).collect();
    if with_sales.is_empty() {
        return;
    }
    let cogs: Decimal = with_sales
        .iter()
        .map(|x| x.sold.unwrap_or_default() * x.cost.unwrap_or_default())
        .sum();
    if cogs > Decimal::ZERO {
        let rotation = cogs / vc.max(Decimal::ONE);
        b.fig(
            "rotation",
            ("Rotación de existencias", "Inventory turnover"),
            rotation,
            Unit::Count,
        );
        let dio = Decimal::from(SALES_DAYS) / rotation;
        let shown = b.fig(
            "dio",
            ("Días de inventario", "Days of inventory"),
            dio,
            Unit::Days,
        );
        b.note(
            "Rotación con una sola foto del stock y las unidades vendidas tomadas como de un año."
                .into(),
            "Turnover from a single stock snapshot, units sold taken as one year's.".into(),
        );
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
        if dio > Decimal::from(120) || overstocked > 0 {
            let n = b.fig(
                "overstocked_items",
                (
                    "Artículos con más de 180 días de cobertura",
                    "Items with over 180 days of cover",
                ),
                overstocked.into(),
                Unit::Count,
            );
            b.priority(
                "S4",
                Severity::Medium,
                vc - cogs * Decimal::from(90) / Decimal::from(SALES_DAYS),
                b.pick(
                    format!("Stock para {shown}; {n} artículos tienen más de medio año de cobertura."),
                    format!("{shown} of stock; {n} items hold over half a year of cover."),
                ),
                Horizon::Month,
                b.pick(
                    "Este mes: deja de comprar los artículos sobrados hasta que su cobertura baje de 90 días.".into(),
                    "This month: pause buying overstocked items until cover drops below 90 days.".into(),
                ),
            );
        }
    }
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
