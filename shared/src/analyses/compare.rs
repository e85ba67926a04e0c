//! `compare` (reference §4): the module runs on each period; every figure
//! both can compute gets its change, direction (by the metric's polarity)
//! and significance; periods are aligned (consecutive, year over year,
//! different lengths, overlap, no dates); customers are bridged (new, lost,
//! retained) and sales split into price, volume and mix. The §3 rules run on
//! the later period.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::builder::Builder;
use super::detect::Frame;
use super::modules::ventas;
use super::normalize::name_key;
use super::report::{Delta, Direction, Horizon, KeyFigure, Period, Severity, Significance, Unit};
use super::request::Module;
use super::stats::HUNDRED;

/// Higher is better (Some(true)), lower is better (Some(false)), or a size.
pub fn polarity(id: &str) -> Option<bool> {
    const HIGHER: [&str; 23] = [
        "revenue",
        "average_ticket",
        "customers",
        "gross_margin",
        "gross_margin_pct",
        "markup",
        "repeat_rate",
        "result",
        "net_margin",
        "contribution_margin_pct",
        "margin_of_safety",
        "runway",
        "utilisation",
        "realisation",
        "effective_rate",
        "billed",
        "inflows",
        "net_flow",
        "balance",
        "minimum_balance",
        "value_at_price",
        "potential_margin",
        "rotation",
    ];
    const LOWER: [&str; 31] = [
        "top1_share",
        "top5_share",
        "hhi",
        "dso",
        "dio",
        "dead_stock",
        "dead_stock_share",
        "slow_stock",
        "negative_days",
        "costs",
        "spend",
        "outflows",
        "net_burn",
        "gross_burn",
        "overdue",
        "overdue_60",
        "pending",
        "unbilled",
        "unbilled_30d",
        "below_cost_lines",
        "below_cost_loss",
        "discount_rate",
        "returns",
        "returns_rate",
        "top_supplier_share",
        "top5_supplier_share",
        "out_of_stock",
        "below_minimum_share",
        "key_items_at_risk",
        "non_billable_share",
        "break_even",
    ];
    if HIGHER.contains(&id) {
        Some(true)
    } else if LOWER.contains(&id) {
        Some(false)
    } else {
        None
    }
}

/// The change of a figure from `a` to `b` (both rounded as shown).
pub fn delta(id: &str, unit: Unit, a: Decimal, b: Decimal, revenue_a: Decimal) -> Delta {
    let change = b - a;
    let change_pct = match unit {
        Unit::Pct => None,
        Unit::Count if a.abs() < Decimal::from(20) || b.abs() < Decimal::from(20) => None,
        _ if a.is_zero() => None,
        _ => Some(super::format::round(change * HUNDRED / a.abs(), Unit::Pct)),
    };
    let significance = match unit {
        Unit::Pct if change.abs() >= Decimal::from(5) => Significance::Strong,
        Unit::Pct if change.abs() >= Decimal::from(2) => Significance::Significant,
        Unit::Pct => Significance::Stable,
        _ => {
            let rel = change_pct.map(|p| p.abs());
            let floor = match unit {
                Unit::Eur => (revenue_a.abs() / HUNDRED).max(Decimal::ONE_HUNDRED),
                _ => Decimal::ZERO,
            };
            match rel {
                Some(p) if p >= Decimal::TEN && change.abs() >= floor => Significance::Significant,
                Some(p) if p >= Decimal::from(3) => Significance::Slight,
                Some(_) => Significance::Stable,
                None if a.is_zero() && !b.is_zero() => Significance::Significant,
                None if change.is_zero() => Significance::Stable,
                None => Significance::Slight,
            }
        }
    };
    let direction = match (polarity(id), change.cmp(&Decimal::ZERO)) {
        (_, std::cmp::Ordering::Equal) => Direction::Unchanged,
        (None, _) => Direction::Neutral,
        (Some(higher), ord) => {
            if (ord == std::cmp::Ordering::Greater) == higher {
                Direction::Improves
            } else {
                Direction::Worsens
            }
        }
    };
    Delta {
        previous: a,
        change,
        change_pct,
        direction,
        significance,
    }
}

pub fn analyze(
    b: &mut Builder,
    module: Module,
    earlier: &[Frame],
    later: &[Frame],
    as_of: NaiveDate,
) {
    let mut before = Builder::new(b.lang);
    super::run_module(&mut before, module, earlier, as_of);
    super::run_module(b, module, later, as_of);
    let revenue_a = before
        .figures()
        .iter()
        .find(|f| f.unit == Unit::Eur)
        .map_or(Decimal::ZERO, |f| f.value);
    let previous: BTreeMap<String, KeyFigure> = before
        .figures()
        .iter()
        .map(|f| (f.id.clone(), f.clone()))
        .collect();
    for f in b.figures_mut() {
        if let Some(a) = previous.get(&f.id) {
            f.delta = Some(delta(&f.id, f.unit, a.value, f.value, revenue_a));
        }
    }
    align(b, before.period, b.period, &previous);
    if module == Module::Ventas {
        bridge(b, earlier, later);
    }
    headline(b);
    new_findings(b, &before);
    b.actions.retain(|a| a.kind != "compare");
}

/// Summary line: the three largest changes in €.
fn headline(b: &mut Builder) {
    let mut money: Vec<(Decimal, String, String, Decimal)> = b
        .figures()
        .iter()
        .filter(|f| f.unit == Unit::Eur)
        .filter_map(|f| {
            f.delta
                .as_ref()
                .map(|d| (d.change.abs(), f.id.clone(), f.label.clone(), d.change))
        })
        .filter(|x| !x.0.is_zero())
        .collect();
    money.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    money.truncate(3);
    if money.is_empty() {
        b.set_headline(b.pick(
            "Sin cambios en euros entre los dos periodos.".into(),
            "No changes in euros between the two periods.".into(),
        ));
        return;
    }
    let parts: Vec<String> = money
        .iter()
        .map(|(_, id, label, change)| {
            let shown = b.fig(
                &format!("{id}_change"),
                (&format!("Cambio: {label}"), &format!("Change: {label}")),
                *change,
                Unit::Eur,
            );
            format!("«{label}» {shown}")
        })
        .collect();
    b.set_headline(b.pick(
        format!(
            "Mayores cambios frente al periodo anterior: {}.",
            parts.join("; ")
        ),
        format!(
            "Largest changes against the previous period: {}.",
            parts.join("; ")
        ),
    ));
}

fn align(
    b: &mut Builder,
    a: Option<Period>,
    later: Option<Period>,
    previous: &BTreeMap<String, KeyFigure>,
) {
    let (Some(a), Some(bp)) = (a, later) else {
        b.note(
            "Sin fechas en algún periodo: se comparan los totales tal cual.".into(),
            "No dates in a period: totals are compared as given.".into(),
        );
        return;
    };
    let days_a = (a.to - a.from).num_days() + 1;
    let days_b = (bp.to - bp.from).num_days() + 1;
    if bp.from <= a.to && a.from <= bp.to {
        b.note(
            "Los dos periodos se solapan: las cifras comunes cuentan en ambos.".into(),
            "The two periods overlap: shared rows count in both.".into(),
        );
    } else if bp.from.format("%m").to_string() == a.from.format("%m").to_string()
        && bp.from.format("%Y").to_string() != a.from.format("%Y").to_string()
    {
        b.note(
            "Comparación interanual: los mismos meses de años distintos.".into(),
            "Year-over-year comparison: the same months of different years.".into(),
        );
    }
    let longer = days_a.max(days_b) as f64;
    if (days_a - days_b).abs() as f64 / longer > 0.1 {
        b.note(
            "Periodos de distinta duración: la facturación se compara también por 30 días.".into(),
            "Periods of different length: revenue is also compared per 30 days.".into(),
        );
        let main = b.figures().iter().find(|f| f.unit == Unit::Eur).cloned();
        if let (Some(main), Some(prev)) = (
            main.as_ref(),
            main.as_ref().and_then(|m| previous.get(&m.id)),
        ) {
            let per = |x: Decimal, days: i64| x * Decimal::from(30) / Decimal::from(days);
            let id = format!("{}_per_30_days", main.id);
            b.fig(
                &id,
                (
                    &format!("{} por 30 días", main.label),
                    &format!("{} per 30 days", main.label),
                ),
                per(main.value, days_b),
                Unit::Eur,
            );
            let a_value = super::format::round(per(prev.value, days_a), Unit::Eur);
            if let Some(f) = b.figures_mut().iter_mut().find(|f| f.id == id) {
                f.delta = Some(delta(&main.id, Unit::Eur, a_value, f.value, prev.value));
            }
        }
    }
}

/// Revenue and quantity of one customer or product.
#[derive(Default)]
struct Totals {
    revenue: Decimal,
    qty: Decimal,
}

/// Totals per customer (or per product), keyed by folded name so that both
/// periods match.
fn totals_by(sales: &ventas::Sales, product: bool) -> BTreeMap<String, Totals> {
    let names = if product {
        &sales.products
    } else {
        &sales.customers
    };
    let mut totals: BTreeMap<String, Totals> = BTreeMap::new();
    for line in &sales.lines {
        let id = if product { line.product } else { line.customer };
        if let Some(id) = id {
            let entry = totals.entry(name_key(&names.display[id])).or_default();
            entry.revenue += line.revenue;
            entry.qty += line.qty.unwrap_or_default();
        }
    }
    totals
}

/// Customers new in the later period, lost from the earlier one, and the
/// change in those in both.
struct CustomerBridge {
    new: usize,
    lost: usize,
    revenue_new: Decimal,
    revenue_lost: Decimal,
    retained_change: Decimal,
}

impl CustomerBridge {
    /// None unless both periods have customers.
    fn of(earlier: &BTreeMap<String, Totals>, later: &BTreeMap<String, Totals>) -> Option<Self> {
        if earlier.is_empty() || later.is_empty() {
            return None;
        }
        Some(CustomerBridge {
            new: later.keys().filter(|k| !earlier.contains_key(*k)).count(),
            lost: earlier.keys().filter(|k| !later.contains_key(*k)).count(),
            revenue_new: later
                .iter()
                .filter(|(k, _)| !earlier.contains_key(*k))
                .map(|(_, v)| v.revenue)
                .sum(),
            revenue_lost: earlier
                .iter()
                .filter(|(k, _)| !later.contains_key(*k))
                .map(|(_, v)| v.revenue)
                .sum(),
            retained_change: later
                .iter()
                .filter_map(|(k, v)| earlier.get(k).map(|a| v.revenue - a.revenue))
                .sum(),
        })
    }
}

/// The revenue change of the products sold in both periods, split into
/// price, volume and mix.
struct PriceVolumeMix {
    price: Decimal,
    volume: Decimal,
    mix: Decimal,
}

impl PriceVolumeMix {
    /// None without a product sold (in some quantity) in both periods.
    fn of(earlier: &BTreeMap<String, Totals>, later: &BTreeMap<String, Totals>) -> Option<Self> {
        let common: Vec<(&Totals, &Totals)> = later
            .iter()
            .filter_map(|(k, in_later)| earlier.get(k).map(|in_earlier| (in_earlier, in_later)))
            .filter(|(a, b)| !a.qty.is_zero() && !b.qty.is_zero())
            .collect();
        if common.is_empty() {
            return None;
        }
        let (revenue_earlier, qty_earlier) = sum_totals(common.iter().map(|(a, _)| *a));
        let (revenue_later, qty_later) = sum_totals(common.iter().map(|(_, b)| *b));
        if qty_earlier.is_zero() {
            return None;
        }
        let price: Decimal = common
            .iter()
            .map(|(a, b)| (b.revenue / b.qty - a.revenue / a.qty) * b.qty)
            .sum();
        let volume = (qty_later - qty_earlier) * revenue_earlier / qty_earlier;
        Some(PriceVolumeMix {
            price,
            volume,
            mix: (revenue_later - revenue_earlier) - price - volume,
        })
    }
}

/// Σ revenue and Σ quantity.
fn sum_totals<'a>(totals: impl Iterator<Item = &'a Totals>) -> (Decimal, Decimal) {
    totals.fold((Decimal::ZERO, Decimal::ZERO), |sum, t| {
        (sum.0 + t.revenue, sum.1 + t.qty)
    })
}

/// Customers new, lost and retained, and price–volume–mix by product.
fn bridge(b: &mut Builder, earlier: &[Frame], later: &[Frame]) {
    let mut skipped = Vec::new();
    let sales_earlier = ventas::lines(earlier, &mut skipped);
    let sales_later = ventas::lines(later, &mut skipped);
    let customers = CustomerBridge::of(
        &totals_by(&sales_earlier, false),
        &totals_by(&sales_later, false),
    );
    if let Some(customers) = &customers {
        write_customer_bridge(b, customers);
    }
    let effects = PriceVolumeMix::of(
        &totals_by(&sales_earlier, true),
        &totals_by(&sales_later, true),
    );
    if let Some(effects) = effects {
        b.fig(
            "price_effect",
            ("Efecto precio", "Price effect"),
            effects.price,
            Unit::Eur,
        );
        b.fig(
            "volume_effect",
            ("Efecto volumen", "Volume effect"),
            effects.volume,
            Unit::Eur,
        );
        b.fig(
            "mix_effect",
            ("Efecto mezcla", "Mix effect"),
            effects.mix,
            Unit::Eur,
        );
    }
}

/// D2: lost customers brought more than the new ones.
fn write_customer_bridge(b: &mut Builder, customers: &CustomerBridge) {
    b.fig(
        "customers_new",
        ("Clientes nuevos", "New customers"),
        customers.new.into(),
        Unit::Count,
    );
    b.fig(
        "customers_lost",
        ("Clientes perdidos", "Lost customers"),
        customers.lost.into(),
        Unit::Count,
    );
    let new_shown = b.fig(
        "revenue_new_customers",
        ("Ventas de clientes nuevos", "Revenue from new customers"),
        customers.revenue_new,
        Unit::Eur,
    );
    let lost_shown = b.fig(
        "revenue_lost_customers",
        ("Ventas de clientes perdidos", "Revenue from lost customers"),
        customers.revenue_lost,
        Unit::Eur,
    );
    let kept_shown = b.fig(
        "retained_change",
        (
            "Cambio en clientes que siguen",
            "Change in retained customers",
        ),
        customers.retained_change,
        Unit::Eur,
    );
    let (new, lost) = (customers.revenue_new, customers.revenue_lost);
    if lost > new && lost > Decimal::ZERO {
        b.priority(
            "D2",
            Severity::High,
            lost - new,
            b.pick(
                format!("Los clientes perdidos facturaban {lost_shown} y los nuevos solo {new_shown}; los que siguen cambian {kept_shown}."),
                format!("Lost customers brought {lost_shown} and new ones only {new_shown}; retained customers changed by {kept_shown}."),
            ),
            Horizon::Week,
            b.pick(
                "Esta semana: llama a los mayores clientes perdidos y pregunta por qué se fueron.".into(),
                "This week: call the biggest lost customers and ask why they left.".into(),
            ),
        );
    }
}

/// V7 / V6: gross margin % up 2 pp or more (strength), down 3 pp or more
/// (priority).
fn margin_change(b: &mut Builder) {
    let Some(f) = b
        .figures()
        .iter()
        .find(|f| f.id == "gross_margin_pct")
        .cloned()
    else {
        return;
    };
    let Some(d) = f.delta else { return };
    let shown = b.fig(
        "gross_margin_pct_change",
        (
            "Cambio del margen bruto (puntos)",
            "Gross margin change (points)",
        ),
        d.change,
        Unit::Pct,
    );
    let now = super::format::show(f.value, Unit::Pct, b.lang);
    if d.change >= Decimal::from(2) {
        b.strength(
            "V7",
            Decimal::ZERO,
            b.pick(
                format!("Margen bruto mejorando: {now}, {shown} más que en el periodo anterior."),
                format!("Gross margin improving: {now}, up {shown} on the previous period."),
            ),
        );
    } else if d.change <= Decimal::from(-3) {
        b.priority(
            "V6",
            Severity::High,
            Decimal::ZERO,
            b.pick(
                format!("El margen bruto cae hasta el {now} ({shown} frente al periodo anterior)."),
                format!("Gross margin fell to {now} ({shown} against the previous period)."),
            ),
            Horizon::Week,
            b.pick(
                "Esta semana: revisa precios y descuentos de los productos cuyo margen más ha caído.".into(),
                "This week: review prices and discounts of the products whose margin fell most.".into(),
            ),
        );
    }
}

/// Significant moves of the headline metrics, and dependences new in B.
fn new_findings(b: &mut Builder, before: &Builder) {
    let revenue = b.figures().iter().find(|f| f.id == "revenue").cloned();
    if let Some(f) = revenue
        && let Some(d) = &f.delta
        && d.significance == Significance::Significant
        && let Some(p) = d.change_pct
    {
        let shown_pct = b.fig(
            "revenue_change_pct",
            ("Cambio de facturación", "Revenue change"),
            p,
            Unit::Pct,
        );
        let shown = b.fig(
            "revenue_change",
            ("Cambio de facturación en euros", "Revenue change in euros"),
            d.change,
            Unit::Eur,
        );
        if d.direction == Direction::Worsens {
            b.priority(
                "D1",
                Severity::High,
                d.change,
                b.pick(
                    format!("La facturación cambia un {shown_pct} frente al periodo anterior ({shown})."),
                    format!("Revenue changed by {shown_pct} against the previous period ({shown})."),
                ),
                Horizon::Week,
                b.pick(
                    "Esta semana: separa el efecto precio del efecto volumen y habla con los clientes que más han bajado.".into(),
                    "This week: split price from volume and talk to the customers who dropped most.".into(),
                ),
            );
        } else {
            b.strength(
                "D1",
                d.change,
                b.pick(
                    format!(
                        "La facturación crece un {shown_pct} frente al periodo anterior ({shown})."
                    ),
                    format!("Revenue grew {shown_pct} against the previous period ({shown})."),
                ),
            );
        }
    }
    margin_change(b);
    let earlier = before.priority_ids();
    for id in b.priority_ids() {
        if matches!(id.as_str(), "V1" | "SV5" | "E1") && !earlier.contains(&id) {
            b.note(
                format!("La dependencia de la regla {id} no existía en el periodo anterior."),
                format!("The dependence of rule {id} did not exist in the previous period."),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyses::request::{Cell, Kind, Lang, Request, Row, Sheet};
    use rust_decimal::dec;

    fn sheet(lines: &[(&str, &str, &str, Decimal, Decimal)]) -> Sheet {
        Sheet {
            name: "v".into(),
            rows: lines
                .iter()
                .map(|(d, c, p, q, price)| {
                    Row(vec![
                        ("Fecha".into(), Cell::Text(d.to_string())),
                        ("Cliente".into(), Cell::Text(c.to_string())),
                        ("Producto".into(), Cell::Text(p.to_string())),
                        ("Cantidad".into(), Cell::Number(*q)),
                        ("Precio".into(), Cell::Number(*price)),
                    ])
                })
                .collect(),
            total_rows: None,
        }
    }

    #[test]
    fn bridge_and_price_volume_mix_by_hand() {
        // A: X 10 × 10 (Ana), Y 5 × 20 (Luis) → 200; B: X 12 × 11 (Ana), Y 3 × 20 (Marta) → 192
        // price = (11 − 10) × 12 = 12; volume = (15 − 15) × 200 / 15 = 0; mix = −8 − 12 − 0 = −20
        // customers: new Marta 60, lost Luis 100, retained Ana +32 → 32 + 60 − 100 = −8
        let a = sheet(&[
            ("05/01/2025", "Ana", "X", dec!(10), dec!(10)),
            ("20/01/2025", "Luis", "Y", dec!(5), dec!(20)),
        ]);
        let b = sheet(&[
            ("05/02/2025", "Ana", "X", dec!(12), dec!(11)),
            ("20/02/2025", "Marta", "Y", dec!(3), dec!(20)),
        ]);
        let request = Request {
            kind: Kind::Compare {
                module: Module::Ventas,
                a: vec![a],
                b: vec![b],
            },
            lang: Lang::Es,
            title: None,
        };
        let as_of = NaiveDate::from_ymd_opt(2025, 3, 1).unwrap();
        let r = crate::analyses::analyze(&request, as_of).unwrap().report;
        let f = |id: &str| {
            r.key_figures
                .iter()
                .find(|f| f.id == id)
                .unwrap_or_else(|| panic!("{id}"))
        };
        assert_eq!(f("price_effect").value, dec!(12));
        assert_eq!(f("volume_effect").value, dec!(0));
        assert_eq!(f("mix_effect").value, dec!(-20));
        assert_eq!(f("revenue_new_customers").value, dec!(60));
        assert_eq!(f("revenue_lost_customers").value, dec!(100));
        assert_eq!(f("retained_change").value, dec!(32));
        let d = f("revenue").delta.clone().unwrap();
        assert_eq!(
            (d.previous, d.change, d.change_pct),
            (dec!(200), dec!(-8), Some(dec!(-4)))
        );
        assert_eq!(
            (d.direction, d.significance),
            (Direction::Worsens, Significance::Slight)
        );
        assert!(
            r.priorities.iter().any(|p| p.id == "D2"),
            "lost customers outweigh new ones"
        );
    }

    #[test]
    fn deltas_polarity_and_significance() {
        let d = delta("revenue", Unit::Eur, dec!(10000), dec!(8500), dec!(10000));
        assert_eq!(d.change, dec!(-1500));
        assert_eq!(d.change_pct, Some(dec!(-15)));
        assert_eq!(d.direction, Direction::Worsens);
        assert_eq!(d.significance, Significance::Significant);
        let d = delta("revenue", Unit::Eur, dec!(500), dec!(560), dec!(500));
        assert_eq!(
            d.significance,
            Significance::Slight,
            "12 % but only 60 € (< 100 €)"
        );
        let d = delta("dso", Unit::Days, dec!(40), dec!(30), dec!(0));
        assert_eq!(d.direction, Direction::Improves);
        let d = delta("gross_margin_pct", Unit::Pct, dec!(30), dec!(33), dec!(0));
        assert_eq!(
            (d.change, d.change_pct, d.significance),
            (dec!(3), None, Significance::Significant)
        );
        let d = delta("customers", Unit::Count, dec!(3), dec!(5), dec!(0));
        assert_eq!(d.change_pct, None, "counts below 20 get no %");
        let d = delta("rows_analysed", Unit::Count, dec!(30), dec!(45), dec!(0));
        assert_eq!(d.direction, Direction::Neutral);
        let d = delta("revenue", Unit::Eur, dec!(0), dec!(100), dec!(0));
        assert_eq!(
            (d.change_pct, d.significance),
            (None, Significance::Significant)
        );
    }

    #[test]
    fn gross_margin_up_two_points_is_a_strength() {
        // A: 100 sold at cost 70 → 30 %; B: 100 sold at cost 65 → 35 %: +5 pp → V7
        let costed = |d: &str, cost: Decimal| Sheet {
            name: "v".into(),
            rows: vec![Row(vec![
                ("Fecha".into(), Cell::Text(d.into())),
                ("Importe".into(), Cell::Number(dec!(100))),
                ("Coste total".into(), Cell::Number(cost)),
            ])],
            total_rows: None,
        };
        let request = Request {
            kind: Kind::Compare {
                module: Module::Ventas,
                a: vec![costed("10/01/2025", dec!(70))],
                b: vec![costed("10/02/2025", dec!(65))],
            },
            lang: Lang::Es,
            title: None,
        };
        let as_of = NaiveDate::from_ymd_opt(2025, 3, 1).unwrap();
        let r = crate::analyses::analyze(&request, as_of).unwrap().report;
        let change = r
            .key_figures
            .iter()
            .find(|f| f.id == "gross_margin_pct_change")
            .unwrap();
        assert_eq!(change.value, dec!(5));
        assert!(
            r.strengths.iter().any(|s| s.id == "V7"),
            "{:?}",
            r.strengths
        );
    }
}
