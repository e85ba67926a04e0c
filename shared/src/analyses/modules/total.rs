//! `total` (reference §2.6, rules T1, T2, T5): income against costs split
//! variable / fixed (PGC group or keywords), contribution margin, result,
//! break-even and margin of safety, cost structure, cost growth against
//! revenue growth. Rows are classed by `tipo`, PGC account (7xx income, 6xx
//! expense), in/out columns, concept keywords, or sign, in that order. The
//! figures are computed first (`ProfitAndLoss`), then the report is written
//! from them.

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::{col, missing, note_odd_dates, period, sheet_total};
use crate::analyses::builder::Builder;
use crate::analyses::detect::Frame;
use crate::analyses::normalize::fold;
use crate::analyses::report::{Horizon, Period, Severity, Unit};
use crate::analyses::request::Module;
use crate::analyses::roles::Role;
use crate::analyses::stats::{HUNDRED, complete_months, monthly, pct};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cost {
    Purchases,
    Personnel,
    Rent,
    OtherVariable,
    OtherFixed,
}

impl Cost {
    pub fn variable(self) -> bool {
        matches!(self, Cost::Purchases | Cost::OtherVariable)
    }
}

/// One line of the profit and loss: income (`None`) or a cost.
#[derive(Clone, Debug)]
pub struct Entry {
    pub date: Option<NaiveDate>,
    pub amount: Decimal,
    pub cost: Option<Cost>,
}

const INCOME_WORDS: [&str; 7] = [
    "venta",
    "ingreso",
    "facturacion",
    "cobro",
    "prestacion",
    "honorario",
    "subvencion",
];
const EXPENSE_WORDS: [&str; 22] = [
    "compra",
    "gasto",
    "alquiler",
    "arrendamiento",
    "nomina",
    "sueldo",
    "salario",
    "seguridad social",
    "suministro",
    "luz",
    "agua",
    "telefono",
    "seguro",
    "publicidad",
    "gestoria",
    "asesoria",
    "transporte",
    "comision",
    "autonomo",
    "reparacion",
    "material",
    "mercaderia",
];

/// Cost class of a concept: PGC code first, then keywords.
pub fn cost_class(concept: &str) -> Cost {
    let code: String = concept.chars().take_while(char::is_ascii_digit).collect();
    if code.len() >= 3 {
        return match &code[..3] {
            "600" | "601" | "602" => Cost::Purchases,
            "640" | "641" | "642" => Cost::Personnel,
            "621" => Cost::Rent,
            "623" | "624" => Cost::OtherVariable,
            _ => Cost::OtherFixed,
        };
    }
    let c = fold(concept);
    let has = |words: &[&str]| words.iter().any(|w| c.contains(w));
    if has(&["compra", "mercaderia", "materia prima", "material"]) {
        Cost::Purchases
    } else if has(&[
        "nomina",
        "sueldo",
        "salario",
        "seguridad social",
        "personal",
    ]) {
        Cost::Personnel
    } else if has(&["alquiler", "arrendamiento"]) {
        Cost::Rent
    } else if has(&["comision", "transporte", "portes", "envio"]) {
        Cost::OtherVariable
    } else {
        Cost::OtherFixed
    }
}

/// Income (true) or expense (false) from a concept, when it says.
fn concept_side(concept: &str) -> Option<bool> {
    let code: String = concept.chars().take_while(char::is_ascii_digit).collect();
    if code.len() >= 3 {
        return match code.as_bytes()[0] {
            b'7' => Some(true),
            b'6' => Some(false),
            _ => None,
        };
    }
    let c = fold(concept);
    if EXPENSE_WORDS.iter().any(|w| c.contains(w)) {
        Some(false)
    } else if INCOME_WORDS.iter().any(|w| c.contains(w)) {
        Some(true)
    } else {
        None
    }
}

fn tipo_side(tipo: &str) -> Option<bool> {
    let t = fold(tipo);
    if ["ingreso", "venta", "entrada", "cobro", "income", "sale"]
        .iter()
        .any(|w| t.contains(w))
    {
        Some(true)
    } else if ["gasto", "compra", "salida", "pago", "expense", "cost"]
        .iter()
        .any(|w| t.contains(w))
    {
        Some(false)
    } else {
        None
    }
}

pub fn has_amount(f: &Frame) -> bool {
    f.has(Role::Importe) || f.has(Role::Entrada) || f.has(Role::Salida) || f.has(Role::Base)
}

/// What reading one frame left out.
#[derive(Default)]
struct FrameRead {
    total_rows: usize,
    result_rows: usize,
    no_amount: usize,
}

pub fn entries(b: &mut Builder, frames: &[Frame]) -> Vec<Entry> {
    let mut out = Vec::new();
    for f in frames {
        let read = frame_entries(f, &mut out);
        b.note_frame(
            f,
            &[
                ("total_row", read.total_rows),
                ("result_row", read.result_rows),
                ("no_amount", read.no_amount),
            ],
        );
    }
    out
}

fn frame_entries(f: &Frame, out: &mut Vec<Entry>) -> FrameRead {
    let (amount, cash_in, cash_out, base) = (
        col(f, Role::Importe),
        col(f, Role::Entrada),
        col(f, Role::Salida),
        col(f, Role::Base),
    );
    let tipos = f.texts(Role::Tipo);
    let concepts = f.texts(Role::Concepto);
    let dates = f.dates(Role::Fecha);
    let totals = f.total_rows();
    let mut read = FrameRead::default();
    for i in 0..f.len() {
        if totals[i] {
            read.total_rows += 1;
            continue;
        }
        let concept = concepts
            .as_ref()
            .and_then(|c| c[i].as_deref())
            .unwrap_or("");
        let folded = fold(concept);
        if folded.starts_with("resultado")
            || folded.starts_with("beneficio")
            || folded.starts_with("margen")
        {
            read.result_rows += 1;
            continue;
        }
        let (value, in_out) = match (cash_in[i], cash_out[i]) {
            (Some(x), _) if !x.is_zero() => (x.abs(), Some(true)),
            (_, Some(x)) if !x.is_zero() => (x.abs(), Some(false)),
            _ => match amount[i].or(base[i]) {
                Some(x) => (x, None),
                None => {
                    read.no_amount += 1;
                    continue;
                }
            },
        };
        let tipo = tipos.as_ref().and_then(|t| t[i].as_deref());
        let income = is_income(tipo, concept, in_out, value);
        out.push(Entry {
            date: dates.as_ref().and_then(|d| d[i]),
            amount: value.abs(),
            cost: (!income).then(|| cost_class(concept)),
        });
    }
    read
}

/// Whether a row is income: by `tipo`, then by PGC account, then by the
/// in/out column it came from, then by concept keywords, then by sign.
fn is_income(tipo: Option<&str>, concept: &str, in_out: Option<bool>, value: Decimal) -> bool {
    tipo.and_then(tipo_side)
        .or_else(|| {
            let code: String = concept.chars().take_while(char::is_ascii_digit).collect();
            if code.len() >= 3 {
                concept_side(concept)
            } else {
                None
            }
        })
        .or(in_out)
        .or_else(|| concept_side(concept))
        .unwrap_or(value >= Decimal::ZERO)
}

pub fn analyze(b: &mut Builder, frames: &[Frame], as_of: NaiveDate) {
    if !frames.iter().any(has_amount) {
        missing(
            b,
            Module::Total,
            frames,
            ("importe de ingresos y gastos", "income and expense amount"),
        );
        return;
    }
    let entries = entries(b, frames);
    b.quality.rows_analysed = entries.len() as u64;
    let dates: Vec<NaiveDate> = entries.iter().filter_map(|x| x.date).collect();
    note_odd_dates(b, &dates, as_of);
    let span = period(dates.iter().copied());
    b.scope(entries.len(), sheet_total(frames), span);
    profit_and_loss(b, &entries, span);
    b.actions.push(crate::analyses::actions::model_130(b.lang));
    b.actions
        .push(crate::analyses::actions::analyze(Module::Caja, b.lang));
}

/// The figures and rules of a profit and loss (also the folder's combined view).
pub fn profit_and_loss(b: &mut Builder, entries: &[Entry], span: Option<Period>) {
    report(b, &ProfitAndLoss::of(entries, span));
}

/// Every figure a profit and loss quotes.
struct ProfitAndLoss {
    revenue: Decimal,
    costs: Decimal,
    variable_costs: Decimal,
    fixed_costs: Decimal,
    result: Decimal,
    /// None without revenue.
    margins: Option<Margins>,
}

/// Ratios on revenue, in %.
struct Margins {
    /// With purchases taken as the cost of sales; None without purchases.
    gross_margin_pct: Option<Decimal>,
    contribution_margin_pct: Decimal,
    net_margin: Decimal,
    personnel_share: Option<Decimal>,
    rent_share: Option<Decimal>,
    purchases_share: Option<Decimal>,
    /// None unless the contribution margin is positive.
    break_even: Option<BreakEven>,
    growth: Option<Growth>,
}

struct BreakEven {
    revenue: Decimal,
    margin_of_safety: Decimal,
    /// Fixed costs to cut for a 10 % margin of safety.
    fixed_cost_gap: Decimal,
}

/// Growth of the last 3 complete months over the 3 before, in %.
struct Growth {
    revenue: Decimal,
    costs: Decimal,
}

impl ProfitAndLoss {
    fn of(entries: &[Entry], span: Option<Period>) -> Self {
        let sum = |f: &dyn Fn(&Entry) -> bool| {
            entries
                .iter()
                .filter(|x| f(x))
                .map(|x| x.amount)
                .sum::<Decimal>()
        };
        let revenue = sum(&|x| x.cost.is_none());
        let costs = sum(&|x| x.cost.is_some());
        let variable_costs = sum(&|x| x.cost.is_some_and(Cost::variable));
        let fixed_costs = costs - variable_costs;
        let result = revenue - costs;
        let margins = (revenue > Decimal::ZERO).then(|| {
            let share = |class: Cost| {
                let part = sum(&|x| x.cost == Some(class));
                (part > Decimal::ZERO).then(|| pct(part, revenue))
            };
            let purchases = sum(&|x| x.cost == Some(Cost::Purchases));
            let contribution_margin_pct = pct(revenue - variable_costs, revenue);
            Margins {
                gross_margin_pct: (purchases > Decimal::ZERO)
                    .then(|| pct(revenue - purchases, revenue)),
                contribution_margin_pct,
                net_margin: pct(result, revenue),
                personnel_share: share(Cost::Personnel),
                rent_share: share(Cost::Rent),
                purchases_share: share(Cost::Purchases),
                break_even: BreakEven::of(revenue, fixed_costs, contribution_margin_pct),
                growth: span.and_then(|span| Growth::of(entries, span)),
            }
        });
        ProfitAndLoss {
            revenue,
            costs,
            variable_costs,
            fixed_costs,
            result,
            margins,
        }
    }
}

impl BreakEven {
    fn of(
        revenue: Decimal,
        fixed_costs: Decimal,
        contribution_margin_pct: Decimal,
    ) -> Option<Self> {
        if contribution_margin_pct <= Decimal::ZERO {
            return None;
        }
        let break_even = fixed_costs * HUNDRED / contribution_margin_pct;
        Some(BreakEven {
            revenue: break_even,
            margin_of_safety: pct(revenue - break_even, revenue),
            fixed_cost_gap: (break_even - revenue * Decimal::new(9, 1)).max(Decimal::ZERO)
                * contribution_margin_pct
                / HUNDRED,
        })
    }
}

impl Growth {
    /// None with fewer than 6 complete months or nothing in the earlier 3.
    fn of(entries: &[Entry], span: Period) -> Option<Self> {
        let series = |income: bool| {
            let by_month = monthly(
                entries
                    .iter()
                    .filter(|x| x.cost.is_none() == income)
                    .filter_map(|x| x.date.map(|d| (d, x.amount))),
            );
            complete_months(&by_month, span.from, span.to)
        };
        let change = |s: &[(NaiveDate, Decimal)]| -> Option<Decimal> {
            if s.len() < 6 {
                return None;
            }
            let last: Decimal = s[s.len() - 3..].iter().map(|m| m.1).sum();
            let previous: Decimal = s[s.len() - 6..s.len() - 3].iter().map(|m| m.1).sum();
            (previous > Decimal::ZERO).then(|| (last / previous - Decimal::ONE) * HUNDRED)
        };
        Some(Growth {
            revenue: change(&series(true))?,
            costs: change(&series(false))?,
        })
    }
}

fn report(b: &mut Builder, figures: &ProfitAndLoss) {
    let result_shown = write_result(b, figures);
    let Some(margins) = &figures.margins else {
        return;
    };
    let contribution_shown = write_margins(b, margins);
    let net_shown = b.fig(
        "net_margin",
        ("Margen neto", "Net margin"),
        margins.net_margin,
        Unit::Pct,
    );
    for (id, label, share) in [
        (
            "personnel_share",
            ("Personal sobre ingresos", "Personnel on revenue"),
            margins.personnel_share,
        ),
        (
            "rent_share",
            ("Alquiler sobre ingresos", "Rent on revenue"),
            margins.rent_share,
        ),
        (
            "purchases_share",
            ("Compras sobre ingresos", "Purchases on revenue"),
            margins.purchases_share,
        ),
    ] {
        if let Some(share) = share {
            b.fig(id, label, share, Unit::Pct);
        }
    }
    write_net_margin(
        b,
        figures.result,
        margins.net_margin,
        &net_shown,
        &result_shown,
    );
    if let Some(break_even) = &margins.break_even {
        write_break_even(b, break_even, figures.revenue, &contribution_shown);
    }
    if let Some(growth) = &margins.growth {
        write_growth(b, growth);
    }
}

/// Revenue, costs and result (the headline); returns the result as shown.
fn write_result(b: &mut Builder, figures: &ProfitAndLoss) -> String {
    let revenue = b.fig(
        "revenue",
        ("Ingresos", "Revenue"),
        figures.revenue,
        Unit::Eur,
    );
    let costs = b.fig("costs", ("Gastos", "Costs"), figures.costs, Unit::Eur);
    let result = b.fig("result", ("Resultado", "Result"), figures.result, Unit::Eur);
    b.fig(
        "variable_costs",
        ("Costes variables", "Variable costs"),
        figures.variable_costs,
        Unit::Eur,
    );
    b.fig(
        "fixed_costs",
        ("Costes fijos", "Fixed costs"),
        figures.fixed_costs,
        Unit::Eur,
    );
    b.sentence(b.pick(
        format!("Ingresos de {revenue} y gastos de {costs}: resultado de {result}."),
        format!("Revenue of {revenue} and costs of {costs}: a result of {result}."),
    ));
    result
}

/// Gross and contribution margins; returns the contribution margin as shown.
fn write_margins(b: &mut Builder, margins: &Margins) -> String {
    if let Some(gross) = margins.gross_margin_pct {
        b.fig(
            "gross_margin_pct",
            ("Margen bruto %", "Gross margin %"),
            gross,
            Unit::Pct,
        );
        b.note(
            "Coste de ventas = compras (sin variación de existencias).".into(),
            "Cost of goods sold = purchases (no stock change known).".into(),
        );
    }
    b.fig(
        "contribution_margin_pct",
        ("Margen de contribución %", "Contribution margin %"),
        margins.contribution_margin_pct,
        Unit::Pct,
    )
}

/// T1: a loss is a priority, a net margin of 10 % or more a strength.
fn write_net_margin(
    b: &mut Builder,
    result: Decimal,
    net_margin: Decimal,
    net_shown: &str,
    result_shown: &str,
) {
    if result < Decimal::ZERO {
        let loss = b.fig("loss", ("Pérdidas", "Loss"), -result, Unit::Eur);
        b.priority(
            "T1",
            Severity::High,
            -result,
            b.pick(
                format!("Pérdidas de {loss}: margen neto del {net_shown}."),
                format!("Loss of {loss}: net margin of {net_shown}."),
            ),
            Horizon::Month,
            b.pick(
                "Este mes: prepara un plan de punto muerto con precio, costes y volumen.".into(),
                "This month: draw up a break-even plan on price, costs and volume.".into(),
            ),
        );
    } else if net_margin >= Decimal::TEN {
        b.strength(
            "T1",
            result,
            b.pick(
                format!("Margen neto del {net_shown}: el negocio gana {result_shown}."),
                format!("Net margin of {net_shown}: the business earns {result_shown}."),
            ),
        );
    }
}

/// T2: a margin of safety under 10 % is a priority, 25 % or more a strength.
fn write_break_even(
    b: &mut Builder,
    break_even: &BreakEven,
    revenue: Decimal,
    contribution_shown: &str,
) {
    let break_even_shown = b.fig(
        "break_even",
        ("Punto muerto", "Break-even revenue"),
        break_even.revenue,
        Unit::Eur,
    );
    let safety = break_even.margin_of_safety;
    let safety_shown = b.fig(
        "margin_of_safety",
        ("Margen de seguridad", "Margin of safety"),
        safety,
        Unit::Pct,
    );
    if safety < Decimal::TEN {
        let gap = b.fig(
            "fixed_cost_gap",
            (
                "Costes fijos a recortar para un margen de seguridad del 10 %",
                "Fixed costs to cut for a 10% margin of safety",
            ),
            break_even.fixed_cost_gap,
            Unit::Eur,
        );
        b.priority(
            "T2",
            Severity::High,
            (break_even.revenue - revenue).max(Decimal::ZERO),
            b.pick(
                format!("Por debajo del punto muerto o cerca: punto muerto de {break_even_shown} y margen de seguridad del {safety_shown} (margen de contribución {contribution_shown})."),
                format!("Below or near break-even: break-even of {break_even_shown} and margin of safety of {safety_shown} (contribution margin {contribution_shown})."),
            ),
            Horizon::Month,
            b.pick(
                format!("Este mes: sube el margen de contribución o recorta {gap} de costes fijos."),
                format!("This month: raise the contribution margin or cut fixed costs by {gap}."),
            ),
        );
    } else if safety >= Decimal::from(25) {
        b.strength(
            "T2",
            revenue - break_even.revenue,
            b.pick(
                format!("Margen de seguridad del {safety_shown}: las ventas pueden caer bastante antes de llegar al punto muerto de {break_even_shown}."),
                format!("Margin of safety of {safety_shown}: sales can fall a good deal before the break-even of {break_even_shown}."),
            ),
        );
    }
}

/// T5: costs growing faster than revenue (last 3 complete months vs previous 3).
fn write_growth(b: &mut Builder, growth: &Growth) {
    let revenue_shown = b.fig(
        "revenue_growth_3m",
        (
            "Crecimiento de ingresos (3 meses)",
            "Revenue growth (3 months)",
        ),
        growth.revenue,
        Unit::Pct,
    );
    let costs_shown = b.fig(
        "cost_growth_3m",
        ("Crecimiento de gastos (3 meses)", "Cost growth (3 months)"),
        growth.costs,
        Unit::Pct,
    );
    if growth.costs > growth.revenue + Decimal::from(5) {
        b.priority(
            "T5",
            Severity::Medium,
            Decimal::ZERO,
            b.pick(
                format!("Gastos crecen más que ventas: {costs_shown} frente a {revenue_shown}."),
                format!("Costs outgrow sales: {costs_shown} against {revenue_shown}."),
            ),
            Horizon::Quarter,
            b.pick(
                "Este trimestre: revisa las partidas de gasto que más crecen.".into(),
                "This quarter: review the fastest-growing cost lines.".into(),
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
    fn break_even_and_margin_of_safety_by_hand() {
        // R = 10 000; purchases 4 000 (variable); rent 1 000 + wages 3 000 (fixed)
        // CM % = 60 %; BE = 4 000 / 0.6 = 6 666.67; safety = 33.3 %; result 2 000 → net 20 %
        let rows = [
            ("700 Ventas", dec!(10000)),
            ("600 Compras", dec!(4000)),
            ("621 Alquiler", dec!(1000)),
            ("640 Sueldos", dec!(3000)),
            ("Resultado", dec!(2000)),
        ];
        let sheet = Sheet {
            name: "pyg".into(),
            rows: rows
                .iter()
                .map(|(c, x)| {
                    Row(vec![
                        ("Cuenta".into(), Cell::Text(c.to_string())),
                        ("Importe".into(), Cell::Number(*x)),
                    ])
                })
                .collect(),
            total_rows: None,
        };
        let as_of = NaiveDate::from_ymd_opt(2025, 6, 1).unwrap();
        let r = report_of(&sheet, Module::Total, Lang::Es, as_of, analyze);
        let v = |id: &str| figure(&r, id);
        assert_eq!(v("revenue"), dec!(10000));
        assert_eq!(v("costs"), dec!(8000));
        assert_eq!(v("result"), dec!(2000));
        assert_eq!(v("contribution_margin_pct"), dec!(60));
        assert_eq!(v("break_even"), dec!(6666.67));
        assert_eq!(v("margin_of_safety"), dec!(33.3));
        assert_eq!(v("net_margin"), dec!(20));
        assert_eq!(v("personnel_share"), dec!(30));
        let ids: Vec<&str> = r.strengths.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["T2", "T1"]);
        assert_eq!(r.data_quality.rows_skipped[0].reason, "result_row");
    }

    #[test]
    fn classes() {
        assert_eq!(cost_class("Nóminas marzo"), Cost::Personnel);
        assert_eq!(cost_class("62800001 Luz"), Cost::OtherFixed);
        assert_eq!(concept_side("705 Prestaciones"), Some(true));
        assert_eq!(concept_side("Alquiler local"), Some(false));
        assert_eq!(tipo_side("Gasto"), Some(false));
    }
}
