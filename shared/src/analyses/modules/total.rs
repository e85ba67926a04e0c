//! `total` (reference §2.6, rules T1, T2, T5): income against costs split
//! variable / fixed (PGC group or keywords), contribution margin, result,
//! break-even and margin of safety, cost structure, cost growth against
//! revenue growth. Rows are classed by `tipo`, PGC account (7xx income, 6xx
//! expense), in/out columns, concept keywords, or sign, in that order.

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::{col, missing, note_odd_dates, period, sheet_total};
use crate::analyses::builder::Builder;
use crate::analyses::detect::Frame;
use crate::analyses::normalize::fold;
use crate::analyses::report::{Horizon, Severity, Unit};
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

pub fn entries(b: &mut Builder, frames: &[Frame]) -> Vec<Entry> {
    let mut out = Vec::new();
    for f in frames {
        let (amount, inc, exp, base) = (
            col(f, Role::Importe),
            col(f, Role::Entrada),
            col(f, Role::Salida),
            col(f, Role::Base),
        );
        let tipos = f.texts(Role::Tipo);
        let concepts = f.texts(Role::Concepto);
        let dates = f.dates(Role::Fecha);
        let totals = f.total_rows();
        let (mut skipped_total, mut no_amount, mut result_rows) = (0, 0, 0);
        for i in 0..f.len() {
            if totals[i] {
                skipped_total += 1;
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
                result_rows += 1;
                continue;
            }
            let (value, in_out) = match (inc[i], exp[i]) {
                (Some(x), _) if !x.is_zero() => (x.abs(), Some(true)),
                (_, Some(x)) if !x.is_zero() => (x.abs(), Some(false)),
                _ => match amount[i].or(base[i]) {
                    Some(x) => (x, None),
                    None => {
                        no_amount += 1;
                        continue;
                    }
                },
            };
            let side = tipos
                .as_ref()
                .and_then(|t| t[i].as_deref())
                .and_then(tipo_side)
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
                .unwrap_or(value >= Decimal::ZERO);
            out.push(Entry {
                date: dates.as_ref().and_then(|d| d[i]),
                amount: value.abs(),
                cost: (!side).then(|| cost_class(concept)),
            });
        }
        b.note_frame(
            f,
            &[
                ("total_row", skipped_total),
                ("result_row", result_rows),
                ("no_amount", no_amount),
            ],
        );
    }
    out
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
    let e = entries(b, frames);
    b.quality.rows_analysed = e.len() as u64;
    let dates: Vec<NaiveDate> = e.iter().filter_map(|x| x.date).collect();
    note_odd_dates(b, &dates, as_of);
    let span = period(dates.iter().copied());
    b.scope(e.len(), sheet_total(frames), span);
    profit_and_loss(b, &e, span);
    b.actions.push(crate::analyses::actions::model_130(b.lang));
    b.actions
        .push(crate::analyses::actions::analyze(Module::Caja, b.lang));
}

/// The figures and rules of a profit and loss (also the folder's combined view).
pub fn profit_and_loss(
    b: &mut Builder,
    e: &[Entry],
    span: Option<crate::analyses::report::Period>,
) {
    let sum =
        |f: &dyn Fn(&Entry) -> bool| e.iter().filter(|x| f(x)).map(|x| x.amount).sum::<Decimal>();
    let r = sum(&|x| x.cost.is_none());
    let costs = sum(&|x| x.cost.is_some());
    let variable = sum(&|x| x.cost.is_some_and(Cost::variable));
    let fixed = costs - variable;
    let result = r - costs;
    let r_shown = b.fig("revenue", ("Ingresos", "Revenue"), r, Unit::Eur);
    let c_shown = b.fig("costs", ("Gastos", "Costs"), costs, Unit::Eur);
    let res_shown = b.fig("result", ("Resultado", "Result"), result, Unit::Eur);
    b.fig(
        "variable_costs",
        ("Costes variables", "Variable costs"),
        variable,
        Unit::Eur,
    );
    b.fig(
        "fixed_costs",
        ("Costes fijos", "Fixed costs"),
        fixed,
        Unit::Eur,
    );
    b.sentence(b.pick(
        format!("Ingresos de {r_shown} y gastos de {c_shown}: resultado de {res_shown}."),
        format!("Revenue of {r_shown} and costs of {c_shown}: a result of {res_shown}."),
    ));
    if r <= Decimal::ZERO {
        return;
    }
    let purchases = sum(&|x| x.cost == Some(Cost::Purchases));
    if purchases > Decimal::ZERO {
        b.fig(
            "gross_margin_pct",
            ("Margen bruto %", "Gross margin %"),
            pct(r - purchases, r),
            Unit::Pct,
        );
        b.note(
            "Coste de ventas = compras (sin variación de existencias).".into(),
            "Cost of goods sold = purchases (no stock change known).".into(),
        );
    }
    let cm_pct = pct(r - variable, r);
    let cm_shown = b.fig(
        "contribution_margin_pct",
        ("Margen de contribución %", "Contribution margin %"),
        cm_pct,
        Unit::Pct,
    );
    let net = pct(result, r);
    let net_shown = b.fig("net_margin", ("Margen neto", "Net margin"), net, Unit::Pct);
    for (id, label, class) in [
        (
            "personnel_share",
            ("Personal sobre ingresos", "Personnel on revenue"),
            Cost::Personnel,
        ),
        (
            "rent_share",
            ("Alquiler sobre ingresos", "Rent on revenue"),
            Cost::Rent,
        ),
        (
            "purchases_share",
            ("Compras sobre ingresos", "Purchases on revenue"),
            Cost::Purchases,
        ),
    ] {
        let part = sum(&|x| x.cost == Some(class));
        if part > Decimal::ZERO {
            b.fig(id, label, pct(part, r), Unit::Pct);
        }
    }
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
    } else if net >= Decimal::TEN {
        b.strength(
            "T1",
            result,
            b.pick(
                format!("Margen neto del {net_shown}: el negocio gana {res_shown}."),
                format!("Net margin of {net_shown}: the business earns {res_shown}."),
            ),
        );
    }
    if cm_pct > Decimal::ZERO {
        let be = fixed * HUNDRED / cm_pct;
        let be_shown = b.fig(
            "break_even",
            ("Punto muerto", "Break-even revenue"),
            be,
            Unit::Eur,
        );
        let safety = pct(r - be, r);
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
                (be - r * Decimal::new(9, 1)).max(Decimal::ZERO) * cm_pct / HUNDRED,
                Unit::Eur,
            );
            b.priority(
                "T2",
                Severity::High,
                (be - r).max(Decimal::ZERO),
                b.pick(
                    format!("Por debajo del punto muerto o cerca: punto muerto de {be_shown} y margen de seguridad del {safety_shown} (margen de contribución {cm_shown})."),
                    format!("Below or near break-even: break-even of {be_shown} and margin of safety of {safety_shown} (contribution margin {cm_shown})."),
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
                r - be,
                b.pick(
                    format!("Margen de seguridad del {safety_shown}: las ventas pueden caer bastante antes de llegar al punto muerto de {be_shown}."),
                    format!("Margin of safety of {safety_shown}: sales can fall a good deal before the break-even of {be_shown}."),
                ),
            );
        }
    }
    growth(b, e, span);
}

/// T5: costs growing faster than revenue (last 3 complete months vs previous 3).
fn growth(b: &mut Builder, e: &[Entry], span: Option<crate::analyses::report::Period>) {
    let Some(span) = span else { return };
    let series = |income: bool| {
        let m = monthly(
            e.iter()
                .filter(|x| x.cost.is_none() == income)
                .filter_map(|x| x.date.map(|d| (d, x.amount))),
        );
        complete_months(&m, span.from, span.to)
    };
    let change = |s: &[(NaiveDate, Decimal)]| -> Option<Decimal> {
        if s.len() < 6 {
            return None;
        }
        let last: Decimal = s[s.len() - 3..].iter().map(|m| m.1).sum();
        let prev: Decimal = s[s.len() - 6..s.len() - 3].iter().map(|m| m.1).sum();
        (prev > Decimal::ZERO).then(|| (last / prev - Decimal::ONE) * HUNDRED)
    };
    let (Some(rev), Some(cost)) = (change(&series(true)), change(&series(false))) else {
        return;
    };
    let rev_shown = b.fig(
        "revenue_growth_3m",
        (
            "Crecimiento de ingresos (3 meses)",
            "Revenue growth (3 months)",
        ),
        rev,
        Unit::Pct,
    );
    let cost_shown = b.fig(
        "cost_growth_3m",
        ("Crecimiento de gastos (3 meses)", "Cost growth (3 months)"),
        cost,
        Unit::Pct,
    );
    if cost > rev + Decimal::from(5) {
        b.priority(
            "T5",
            Severity::Medium,
            Decimal::ZERO,
            b.pick(
                format!("Gastos crecen más que ventas: {cost_shown} frente a {rev_shown}."),
                format!("Costs outgrow sales: {cost_shown} against {rev_shown}."),
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
