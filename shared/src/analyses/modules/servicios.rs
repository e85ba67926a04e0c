//! `servicios` (reference §2.3, rules SV1–SV6): hours, billable share,
//! billed amount, realisation, effective rate, utilisation, client
//! dependence, project budgets, unbilled work. The figures are computed
//! first (`ServiceFigures`), then the report is written from them.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{Datelike, NaiveDate, Weekday};
use rust_decimal::Decimal;

use super::{Names, by_name, col, missing, period, sheet_total};
use crate::analyses::builder::Builder;
use crate::analyses::detect::Frame;
use crate::analyses::report::{Horizon, Period, Severity, Unit};
use crate::analyses::request::Module;
use crate::analyses::roles::Role;
use crate::analyses::stats::{concentration, pct, ranked};

const HOURS_PER_DAY: i64 = 8;

#[derive(Clone, Debug)]
struct Entry {
    date: Option<NaiveDate>,
    client: Option<usize>,
    project: Option<String>,
    person: Option<String>,
    hours: Decimal,
    billable: bool,
    rate: Option<Decimal>,
    amount: Decimal,
    cost_hour: Option<Decimal>,
    budget: Option<Decimal>,
    invoiced: Option<bool>,
}

/// What reading one frame found besides its entries.
#[derive(Default)]
struct FrameRead {
    has_billable_column: bool,
    hours_in_days: bool,
    total_rows: usize,
    no_hours_or_amount: usize,
}

pub fn analyze(b: &mut Builder, frames: &[Frame], as_of: NaiveDate) {
    if !frames
        .iter()
        .any(|f| f.has(Role::Horas) || f.has(Role::Importe))
    {
        missing(
            b,
            Module::Servicios,
            frames,
            ("horas o importe", "hours or amount"),
        );
        return;
    }
    let mut names = Names::default();
    let mut entries = Vec::new();
    let mut all_billable = true;
    let mut any_in_days = false;
    for f in frames {
        let read = frame_entries(f, &mut names, &mut entries);
        all_billable &= !read.has_billable_column;
        any_in_days |= read.hours_in_days;
        b.note_frame(
            f,
            &[
                ("total_row", read.total_rows),
                ("no_hours_or_amount", read.no_hours_or_amount),
            ],
        );
    }
    b.quality.rows_analysed = entries.len() as u64;
    let span = period(entries.iter().filter_map(|e| e.date));
    b.scope(entries.len(), sheet_total(frames), span);
    if all_billable {
        b.note(
            "Sin columna «facturable»: todas las horas se cuentan como facturables.".into(),
            "No «billable» column: every hour counts as billable.".into(),
        );
    }
    if any_in_days {
        b.note(
            "Jornadas convertidas a horas (8 h por jornada).".into(),
            "Days turned into hours (8 h a day).".into(),
        );
    }
    report(b, &ServiceFigures::of(&entries, &names, span, as_of));
    b.actions
        .push(crate::analyses::actions::compare(Module::Servicios, b.lang));
}

fn frame_entries<'a>(f: &'a Frame, names: &mut Names<'a>, out: &mut Vec<Entry>) -> FrameRead {
    let (hours, rate, amount) = (
        col(f, Role::Horas),
        col(f, Role::Tarifa),
        col(f, Role::Importe),
    );
    let (cost_hour, budget) = (col(f, Role::CosteHora), col(f, Role::Presupuesto));
    let billable = f.bools(Role::Facturable);
    let invoiced = f.bools(Role::Facturado);
    let dates = f.dates(Role::Fecha);
    let clients = f.texts(Role::Cliente);
    let projects = f.texts(Role::Proyecto);
    let people = f.texts(Role::Persona);
    let mut read = FrameRead {
        has_billable_column: billable.is_some(),
        hours_in_days: f
            .column_header(Role::Horas)
            .is_some_and(|h| h.has("jornadas") || h.has("dias")),
        ..FrameRead::default()
    };
    let totals = f.total_rows();
    for i in 0..f.len() {
        if totals[i] {
            read.total_rows += 1;
            continue;
        }
        let row_hours = hours[i].map(|h| {
            if read.hours_in_days {
                h * Decimal::from(HOURS_PER_DAY)
            } else {
                h
            }
        });
        let row_amount = amount[i].or(match (row_hours, rate[i]) {
            (Some(h), Some(r)) => Some(h * r),
            _ => None,
        });
        if row_hours.is_none() && row_amount.is_none() {
            read.no_hours_or_amount += 1;
            continue;
        }
        let client = clients.as_ref().and_then(|c| match &c[i] {
            Some(std::borrow::Cow::Borrowed(s)) => names.id(s),
            _ => None,
        });
        out.push(Entry {
            date: dates.as_ref().and_then(|d| d[i]),
            client,
            project: projects
                .as_ref()
                .and_then(|p| p[i].as_ref().map(|s| s.to_string())),
            person: people
                .as_ref()
                .and_then(|p| p[i].as_ref().map(|s| s.to_string())),
            hours: row_hours.unwrap_or_default(),
            billable: billable.as_ref().is_none_or(|v| v[i] == Some(true)),
            rate: rate[i].or_else(|| match (row_amount, row_hours) {
                (Some(a), Some(h)) if !h.is_zero() => Some(a / h),
                _ => None,
            }),
            amount: row_amount.unwrap_or_default(),
            cost_hour: cost_hour[i],
            budget: budget[i],
            invoiced: invoiced.as_ref().and_then(|v| v[i]),
        });
    }
    read
}

/// Every figure the services report quotes.
struct ServiceFigures {
    hours: Decimal,
    billable_hours: Decimal,
    /// Amount of the billable entries.
    billed: Decimal,
    /// Billed per hour worked; None without hours.
    effective_rate: Option<Decimal>,
    non_billable: Option<NonBillable>,
    realisation: Option<Realisation>,
    /// Billable hours as % of the working hours of the period.
    utilisation: Option<Decimal>,
    clients: Option<Clients>,
    /// Σ (rate − hourly cost) × hours, when any entry has an hourly cost.
    project_margin: Option<Decimal>,
    over_budget: Option<OverBudget>,
    unbilled: Option<Unbilled>,
}

struct NonBillable {
    share: Decimal,
    /// The non-billable hours at the effective rate.
    value: Decimal,
}

/// Billed against the list rate, over billable entries with a rate.
struct Realisation {
    rate: Decimal,
    list_rate: Decimal,
    effective_billable_rate: Decimal,
    /// At list rate, less what was billed.
    shortfall: Decimal,
}

struct Clients {
    count: usize,
    top1_name: String,
    top1_share: Decimal,
    top1_amount: Decimal,
}

/// Projects over 115 % of their budgeted hours, and the worst of them.
struct OverBudget {
    projects: usize,
    worst_name: String,
    worst_extra_hours: Decimal,
    worst_deviation: Decimal,
}

struct Unbilled {
    /// Billable work not invoiced.
    pending: Decimal,
    older_than_30_days: Decimal,
    billed_per_month: Decimal,
}

impl ServiceFigures {
    fn of(entries: &[Entry], names: &Names, span: Option<Period>, as_of: NaiveDate) -> Self {
        let hours: Decimal = entries.iter().map(|e| e.hours).sum();
        let billable_hours: Decimal = entries.iter().filter(|e| e.billable).map(|e| e.hours).sum();
        let billed: Decimal = entries
            .iter()
            .filter(|e| e.billable)
            .map(|e| e.amount)
            .sum();
        let effective_rate = if hours.is_zero() {
            None
        } else {
            Some(billed / hours)
        };
        let non_billable = (hours > Decimal::ZERO).then(|| NonBillable {
            share: pct(hours - billable_hours, hours),
            value: (hours - billable_hours) * effective_rate.unwrap_or_default(),
        });
        let projects = by_project(entries);
        ServiceFigures {
            hours,
            billable_hours,
            billed,
            effective_rate,
            non_billable,
            realisation: Realisation::of(entries, billed, billable_hours),
            utilisation: utilisation(entries, billable_hours, span),
            clients: Clients::of(entries, names),
            project_margin: entries
                .iter()
                .any(|e| e.cost_hour.is_some())
                .then(|| projects.values().map(|p| p.margin).sum()),
            over_budget: OverBudget::of(&projects),
            unbilled: Unbilled::of(entries, billed, span, as_of),
        }
    }
}

impl Realisation {
    fn of(entries: &[Entry], billed: Decimal, billable_hours: Decimal) -> Option<Self> {
        let listed: Vec<&Entry> = entries
            .iter()
            .filter(|e| e.billable && e.rate.is_some())
            .collect();
        let at_list_rate: Decimal = listed
            .iter()
            .map(|e| e.hours * e.rate.unwrap_or_default())
            .sum();
        if at_list_rate.is_zero() || billable_hours.is_zero() {
            return None;
        }
        let billed_listed: Decimal = listed.iter().map(|e| e.amount).sum();
        Some(Realisation {
            rate: pct(billed_listed, at_list_rate),
            list_rate: at_list_rate / billable_hours,
            effective_billable_rate: billed / billable_hours,
            shortfall: at_list_rate - billed_listed,
        })
    }
}

fn working_days(from: NaiveDate, to: NaiveDate) -> i64 {
    from.iter_days()
        .take_while(|d| *d <= to)
        .filter(|d| !matches!(d.weekday(), Weekday::Sat | Weekday::Sun))
        .count() as i64
}

fn utilisation(
    entries: &[Entry],
    billable_hours: Decimal,
    span: Option<Period>,
) -> Option<Decimal> {
    let people: BTreeSet<&str> = entries.iter().filter_map(|e| e.person.as_deref()).collect();
    let span = span?;
    let n = people.len().max(1);
    let available = Decimal::from(n as i64 * working_days(span.from, span.to) * HOURS_PER_DAY);
    (!available.is_zero()).then(|| pct(billable_hours, available))
}

impl Clients {
    fn of(entries: &[Entry], names: &Names) -> Option<Self> {
        let mut totals: BTreeMap<usize, Decimal> = BTreeMap::new();
        for e in entries {
            if let Some(c) = e.client {
                *totals.entry(c).or_default() += e.amount;
            }
        }
        let ranked = ranked(&by_name(names, &totals));
        let c = concentration(&ranked)?;
        Some(Clients {
            count: c.count,
            top1_name: c.top1_name,
            top1_share: c.top1,
            top1_amount: ranked[0].1,
        })
    }
}

#[derive(Default)]
struct ProjectTotals {
    hours: Decimal,
    /// The largest budget given for the project, in hours.
    budget: Option<Decimal>,
    /// Σ (rate − hourly cost) × hours.
    margin: Decimal,
}

fn by_project(entries: &[Entry]) -> BTreeMap<&str, ProjectTotals> {
    let mut by_project: BTreeMap<&str, ProjectTotals> = BTreeMap::new();
    for e in entries {
        if let Some(p) = e.project.as_deref() {
            let totals = by_project.entry(p).or_default();
            totals.hours += e.hours;
            totals.budget = totals.budget.max(e.budget);
            if let (Some(rate), Some(cost)) = (e.rate, e.cost_hour) {
                totals.margin += (rate - cost) * e.hours;
            }
        }
    }
    by_project
}

impl OverBudget {
    fn of(by_project: &BTreeMap<&str, ProjectTotals>) -> Option<Self> {
        let over: Vec<(&str, Decimal, Decimal)> = by_project
            .iter()
            .filter_map(|(name, totals)| {
                totals
                    .budget
                    .filter(|budget| *budget > Decimal::ZERO)
                    .map(|budget| (*name, totals.hours, budget))
            })
            .filter(|(_, hours, budget)| *hours > *budget * Decimal::new(115, 2))
            .collect();
        let (name, hours, budget) = over
            .iter()
            .max_by(|a, b| (a.1 - a.2).cmp(&(b.1 - b.2)).then(b.0.cmp(a.0)))?;
        Some(OverBudget {
            projects: over.len(),
            worst_name: name.to_string(),
            worst_extra_hours: *hours - *budget,
            worst_deviation: pct(*hours - *budget, *budget),
        })
    }
}

impl Unbilled {
    /// None when no entry says whether it was invoiced.
    fn of(
        entries: &[Entry],
        billed: Decimal,
        span: Option<Period>,
        as_of: NaiveDate,
    ) -> Option<Self> {
        if !entries.iter().any(|e| e.invoiced.is_some()) {
            return None;
        }
        let pending: Vec<&Entry> = entries
            .iter()
            .filter(|e| e.billable && e.invoiced == Some(false))
            .collect();
        let months = span.map_or(1, |s| ((s.to - s.from).num_days() / 30).max(1));
        Some(Unbilled {
            pending: pending.iter().map(|e| e.amount).sum(),
            older_than_30_days: pending
                .iter()
                .filter(|e| e.date.is_some_and(|d| (as_of - d).num_days() > 30))
                .map(|e| e.amount)
                .sum(),
            billed_per_month: billed / Decimal::from(months),
        })
    }
}

fn report(b: &mut Builder, figures: &ServiceFigures) {
    write_hours(b, figures);
    if let Some(realisation) = &figures.realisation {
        write_realisation(b, realisation);
    }
    if let Some(utilisation) = figures.utilisation {
        write_utilisation(b, utilisation, figures.billable_hours);
    }
    if let Some(clients) = &figures.clients {
        write_clients(b, clients);
    }
    if let Some(margin) = figures.project_margin {
        b.fig(
            "project_margin",
            ("Margen de los proyectos", "Project margin"),
            margin,
            Unit::Eur,
        );
    }
    if let Some(over_budget) = &figures.over_budget {
        write_over_budget(b, over_budget);
    }
    if let Some(unbilled) = &figures.unbilled {
        write_unbilled(b, unbilled);
    }
}

/// Hours and amount billed (the headline), and SV3: over 40 % of the hours
/// not billable.
fn write_hours(b: &mut Builder, figures: &ServiceFigures) {
    let hours = b.fig("hours", ("Horas", "Hours"), figures.hours, Unit::Hours);
    let billed = b.fig(
        "billed",
        ("Importe facturable", "Billable amount"),
        figures.billed,
        Unit::Eur,
    );
    b.fig(
        "billable_hours",
        ("Horas facturables", "Billable hours"),
        figures.billable_hours,
        Unit::Hours,
    );
    let effective_rate = figures.effective_rate.map(|rate| {
        b.fig(
            "effective_rate",
            ("Tarifa efectiva", "Effective hourly rate"),
            rate,
            Unit::Eur,
        )
    });
    b.sentence(match &effective_rate {
        Some(rate) => b.pick(
            format!(
                "{hours} trabajadas y {billed} facturables: tarifa efectiva de {rate} por hora."
            ),
            format!("{hours} worked and {billed} billable: an effective hourly rate of {rate}."),
        ),
        None => b.pick(
            format!("{billed} facturables."),
            format!("{billed} billable."),
        ),
    });
    let Some(non_billable) = &figures.non_billable else {
        return;
    };
    let shown = b.fig(
        "non_billable_share",
        ("Horas no facturables", "Non-billable hours"),
        non_billable.share,
        Unit::Pct,
    );
    if non_billable.share > Decimal::from(40) {
        b.priority(
            "SV3",
            Severity::Medium,
            non_billable.value,
            b.pick(
                format!("El {shown} de horas va sin facturar."),
                format!("{shown} unbillable hours."),
            ),
            Horizon::Month,
            b.pick(
                "Este mes: recorta el tiempo de administración y automatiza tareas repetidas."
                    .into(),
                "This month: cut admin time and automate repeated tasks.".into(),
            ),
        );
    }
}

/// SV2: realisation rate under 80 %.
fn write_realisation(b: &mut Builder, realisation: &Realisation) {
    let shown = b.fig(
        "realisation",
        ("Tasa de realización", "Realisation rate"),
        realisation.rate,
        Unit::Pct,
    );
    if realisation.rate >= Decimal::from(80) {
        return;
    }
    let list_rate = b.fig(
        "list_rate",
        ("Tarifa de lista media", "Average list rate"),
        realisation.list_rate,
        Unit::Eur,
    );
    let effective = b.fig(
        "effective_billable_rate",
        ("Tarifa efectiva facturable", "Effective billable rate"),
        realisation.effective_billable_rate,
        Unit::Eur,
    );
    b.priority(
        "SV2",
        Severity::High,
        realisation.shortfall,
        b.pick(
            format!("Cobras {effective} por hora frente a {list_rate} de tarifa: tasa de realización del {shown}."),
            format!("Effective rate {effective} an hour against a {list_rate} list rate: realisation rate {shown}."),
        ),
        Horizon::Month,
        b.pick(
            "Este mes: cierra el alcance de cada encargo, factura los extras y ofrece precios cerrados.".into(),
            "This month: fix the scope of each job, bill extras and offer fixed fees.".into(),
        ),
    );
}

/// SV4: utilisation of 70 % or more.
fn write_utilisation(b: &mut Builder, utilisation: Decimal, billable_hours: Decimal) {
    let shown = b.fig(
        "utilisation",
        ("Tasa de utilización", "Utilisation rate"),
        utilisation,
        Unit::Pct,
    );
    if utilisation >= Decimal::from(70) {
        b.strength(
            "SV4",
            billable_hours,
            b.pick(
                format!("Buena utilización: el {shown} de las horas disponibles se factura."),
                format!("Good utilisation: {shown} of available hours are billable."),
            ),
        );
    }
}

/// SV5: one client makes 75 % or more of the income.
fn write_clients(b: &mut Builder, clients: &Clients) {
    b.fig(
        "clients",
        ("Clientes", "Clients"),
        clients.count.into(),
        Unit::Count,
    );
    let top = b.fig(
        "top1_share",
        ("Peso del mayor cliente", "Largest client share"),
        clients.top1_share,
        Unit::Pct,
    );
    if clients.top1_share >= Decimal::from(75) {
        let name = &clients.top1_name;
        b.priority(
            "SV5",
            Severity::High,
            clients.top1_amount,
            b.pick(
                format!("Dependencia nivel TRADE: «{name}» supone el {top} de tus ingresos."),
                format!("TRADE-level dependence: «{name}» makes {top} of your income."),
            ),
            Horizon::Quarter,
            b.pick(
                "Este trimestre: comprueba si debes firmar contrato TRADE registrado en el SEPE y busca otros clientes (consúltalo con tu asesor).".into(),
                "This quarter: check whether a registered TRADE contract is due and find other clients (check with your adviser).".into(),
            ),
        );
    }
}

/// SV6: projects over budget.
fn write_over_budget(b: &mut Builder, over_budget: &OverBudget) {
    let n = b.fig(
        "projects_over_budget",
        (
            "Proyectos por encima del presupuesto",
            "Projects over budget",
        ),
        over_budget.projects.into(),
        Unit::Count,
    );
    let deviation = b.fig(
        "worst_budget_deviation",
        ("Mayor desviación de presupuesto", "Largest budget overrun"),
        over_budget.worst_deviation,
        Unit::Pct,
    );
    let name = &over_budget.worst_name;
    b.priority(
        "SV6",
        Severity::Medium,
        over_budget.worst_extra_hours,
        b.pick(
            format!("«{name}» supera el presupuesto en un {deviation} ({n} proyectos por encima)."),
            format!("«{name}» is {deviation} over budget ({n} projects over)."),
        ),
        Horizon::Month,
        b.pick(
            format!("Este mes: renegocia «{name}» o factura el cambio de alcance."),
            format!("This month: renegotiate «{name}» or bill the change."),
        ),
    );
}

/// SV1: work unbilled for over 30 days worth more than a tenth of a month's billing.
fn write_unbilled(b: &mut Builder, unbilled: &Unbilled) {
    let shown = b.fig(
        "unbilled",
        ("Trabajo pendiente de facturar", "Unbilled work"),
        unbilled.pending,
        Unit::Eur,
    );
    let old = unbilled.older_than_30_days;
    if old > unbilled.billed_per_month / Decimal::TEN && old > Decimal::ZERO {
        let old_shown = b.fig(
            "unbilled_30d",
            ("Sin facturar hace más de 30 días", "Unbilled over 30 days"),
            old,
            Unit::Eur,
        );
        b.priority(
            "SV1",
            Severity::High,
            old,
            b.pick(
                format!(
                    "Trabajo hecho sin facturar: {shown}, de ellos {old_shown} con más de un mes."
                ),
                format!("Unbilled work: {shown}, {old_shown} of it older than a month."),
            ),
            Horizon::Week,
            b.pick(
                format!("Esta semana: factura los {shown} pendientes y factura a cada fin de mes."),
                format!("This week: invoice the {shown} pending and bill at each month end."),
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
    fn realisation_rate_and_unbilled_by_hand() {
        // 10 h × 60 €/h billed 450; 5 h × 60 billed 300; 5 h not billable
        // H = 20, H_b = 15, B = 750, SV = 900 → realisation 83.3 %, effective 750 / 20 = 37.50
        let rows = [
            (
                "2025-03-03",
                "Ana",
                dec!(10),
                dec!(60),
                dec!(450),
                "sí",
                "sí",
            ),
            (
                "2025-03-10",
                "Ana",
                dec!(5),
                dec!(60),
                dec!(300),
                "sí",
                "no",
            ),
            ("2025-03-11", "Luis", dec!(5), dec!(60), dec!(0), "no", "no"),
        ];
        let sheet = Sheet {
            name: "horas".into(),
            rows: rows
                .iter()
                .map(|(d, c, h, t, i, fb, fd)| {
                    Row(vec![
                        ("Fecha".into(), Cell::Text(d.to_string())),
                        ("Cliente".into(), Cell::Text(c.to_string())),
                        ("Horas".into(), Cell::Number(*h)),
                        ("Tarifa".into(), Cell::Number(*t)),
                        ("Importe".into(), Cell::Number(*i)),
                        ("Facturable".into(), Cell::Text(fb.to_string())),
                        ("Facturado".into(), Cell::Text(fd.to_string())),
                    ])
                })
                .collect(),
            total_rows: None,
        };
        let as_of = NaiveDate::from_ymd_opt(2025, 5, 1).unwrap();
        let r = report_of(&sheet, Module::Servicios, Lang::Es, as_of, analyze);
        let v = |id: &str| figure(&r, id);
        assert_eq!(v("hours"), dec!(20));
        assert_eq!(v("billable_hours"), dec!(15));
        assert_eq!(v("billed"), dec!(750));
        assert_eq!(v("realisation"), dec!(83.3));
        assert_eq!(v("effective_rate"), dec!(37.5));
        assert_eq!(v("non_billable_share"), dec!(25));
        assert_eq!(v("unbilled"), dec!(300));
        assert_eq!(v("top1_share"), dec!(100));
        assert!(r.priorities.iter().any(|p| p.id == "SV1"));
        assert!(r.priorities.iter().any(|p| p.id == "SV5"));
    }

    #[test]
    fn utilisation_by_hand() {
        // two people, Mon 3 – Fri 7 March 2025: 2 × 5 days × 8 h = 80 h available; 60 h billable → 75 %
        let rows = [
            ("2025-03-03", "Marta", dec!(30)),
            ("2025-03-07", "Jorge", dec!(30)),
        ];
        let sheet = Sheet {
            name: "horas".into(),
            rows: rows
                .iter()
                .map(|(d, p, h)| {
                    Row(vec![
                        ("Fecha".into(), Cell::Text(d.to_string())),
                        ("Técnico".into(), Cell::Text(p.to_string())),
                        ("Horas".into(), Cell::Number(*h)),
                        ("Precio hora".into(), Cell::Number(dec!(40))),
                    ])
                })
                .collect(),
            total_rows: None,
        };
        let as_of = NaiveDate::from_ymd_opt(2025, 3, 10).unwrap();
        let r = report_of(&sheet, Module::Servicios, Lang::Es, as_of, analyze);
        let v = |id: &str| figure(&r, id);
        assert_eq!(v("utilisation"), dec!(75));
        assert_eq!(v("billed"), dec!(2400));
        assert_eq!(r.strengths[0].id, "SV4");
    }
}
