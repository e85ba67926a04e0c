//! `servicios` (reference §2.3, rules SV1–SV6): hours, billable share,
//! billed amount, realisation, effective rate, utilisation, client
//! dependence, project budgets, unbilled work.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{Datelike, NaiveDate, Weekday};
use rust_decimal::Decimal;

use super::{Names, by_name, col, missing, period, sheet_total};
use crate::analyses::builder::Builder;
use crate::analyses::detect::Frame;
use crate::analyses::report::{Horizon, Severity, Unit};
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
    let mut days_flag = false;
    for f in frames {
        let (hours, rate, amount) = (
            col(f, Role::Horas),
            col(f, Role::Tarifa),
            col(f, Role::Importe),
        );
        let (cost_hour, budget) = (col(f, Role::CosteHora), col(f, Role::Presupuesto));
        let billable = f.bools(Role::Facturable);
        all_billable &= billable.is_none();
        let invoiced = f.bools(Role::Facturado);
        let dates = f.dates(Role::Fecha);
        let clients = f.texts(Role::Cliente);
        let projects = f.texts(Role::Proyecto);
        let people = f.texts(Role::Persona);
        let in_days = f
            .column_header(Role::Horas)
            .is_some_and(|h| h.has("jornadas") || h.has("dias"));
        days_flag |= in_days;
        let totals = f.total_rows();
        let (mut skipped_total, mut empty) = (0, 0);
        for i in 0..f.len() {
            if totals[i] {
                skipped_total += 1;
                continue;
            }
            let h = hours[i].map(|h| {
                if in_days {
                    h * Decimal::from(HOURS_PER_DAY)
                } else {
                    h
                }
            });
            let amt = amount[i].or(match (h, rate[i]) {
                (Some(h), Some(r)) => Some(h * r),
                _ => None,
            });
            if h.is_none() && amt.is_none() {
                empty += 1;
                continue;
            }
            let client = clients.as_ref().and_then(|c| match &c[i] {
                Some(std::borrow::Cow::Borrowed(s)) => names.id(s),
                _ => None,
            });
            entries.push(Entry {
                date: dates.as_ref().and_then(|d| d[i]),
                client,
                project: projects
                    .as_ref()
                    .and_then(|p| p[i].as_ref().map(|s| s.to_string())),
                person: people
                    .as_ref()
                    .and_then(|p| p[i].as_ref().map(|s| s.to_string())),
                hours: h.unwrap_or_default(),
                billable: billable.as_ref().is_none_or(|v| v[i] == Some(true)),
                rate: rate[i].or_else(|| match (amt, h) {
                    (Some(a), Some(h)) if !h.is_zero() => Some(a / h),
                    _ => None,
                }),
                amount: amt.unwrap_or_default(),
                cost_hour: cost_hour[i],
                budget: budget[i],
                invoiced: invoiced.as_ref().and_then(|v| v[i]),
            });
        }
        b.note_frame(
            f,
            &[("total_row", skipped_total), ("no_hours_or_amount", empty)],
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
    if days_flag {
        b.note(
            "Jornadas convertidas a horas (8 h por jornada).".into(),
            "Days turned into hours (8 h a day).".into(),
        );
    }
    let h: Decimal = entries.iter().map(|e| e.hours).sum();
    let hb: Decimal = entries.iter().filter(|e| e.billable).map(|e| e.hours).sum();
    let billed: Decimal = entries
        .iter()
        .filter(|e| e.billable)
        .map(|e| e.amount)
        .sum();
    let hours = b.fig("hours", ("Horas", "Hours"), h, Unit::Hours);
    let billed_shown = b.fig(
        "billed",
        ("Importe facturable", "Billable amount"),
        billed,
        Unit::Eur,
    );
    b.fig(
        "billable_hours",
        ("Horas facturables", "Billable hours"),
        hb,
        Unit::Hours,
    );
    let effective = if h.is_zero() { None } else { Some(billed / h) };
    let effective_shown = effective.map(|e| {
        b.fig(
            "effective_rate",
            ("Tarifa efectiva", "Effective hourly rate"),
            e,
            Unit::Eur,
        )
    });
    b.sentence(match &effective_shown {
        Some(e) => b.pick(
            format!(
                "{hours} trabajadas y {billed_shown} facturables: tarifa efectiva de {e} por hora."
            ),
            format!("{hours} worked and {billed_shown} billable: an effective hourly rate of {e}."),
        ),
        None => b.pick(
            format!("{billed_shown} facturables."),
            format!("{billed_shown} billable."),
        ),
    });
    if h > Decimal::ZERO {
        let non_billable = pct(h - hb, h);
        let shown = b.fig(
            "non_billable_share",
            ("Horas no facturables", "Non-billable hours"),
            non_billable,
            Unit::Pct,
        );
        if non_billable > Decimal::from(40) {
            b.priority(
                "SV3",
                Severity::Medium,
                (h - hb) * effective.unwrap_or_default(),
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
    realisation(b, &entries, billed, hb);
    utilisation(b, &entries, hb, span);
    clients(b, &entries, &names);
    projects(b, &entries);
    unbilled(b, &entries, billed, span, as_of);
    b.actions
        .push(crate::analyses::actions::compare(Module::Servicios, b.lang));
}

fn realisation(b: &mut Builder, entries: &[Entry], billed: Decimal, hb: Decimal) {
    let listed: Vec<&Entry> = entries
        .iter()
        .filter(|e| e.billable && e.rate.is_some())
        .collect();
    let sv: Decimal = listed
        .iter()
        .map(|e| e.hours * e.rate.unwrap_or_default())
        .sum();
    if sv.is_zero() || hb.is_zero() {
        return;
    }
    let billed_listed: Decimal = listed.iter().map(|e| e.amount).sum();
    let rate = pct(billed_listed, sv);
    let shown = b.fig(
        "realisation",
        ("Tasa de realización", "Realisation rate"),
        rate,
        Unit::Pct,
    );
    if rate < Decimal::from(80) {
        let list_rate = b.fig(
            "list_rate",
            ("Tarifa de lista media", "Average list rate"),
            sv / hb,
            Unit::Eur,
        );
        let effective = b.fig(
            "effective_billable_rate",
            ("Tarifa efectiva facturable", "Effective billable rate"),
            billed / hb,
            Unit::Eur,
        );
        b.priority(
            "SV2",
            Severity::High,
            sv - billed_listed,
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
}

fn working_days(from: NaiveDate, to: NaiveDate) -> i64 {
    from.iter_days()
        .take_while(|d| *d <= to)
        .filter(|d| !matches!(d.weekday(), Weekday::Sat | Weekday::Sun))
        .count() as i64
}

fn utilisation(
    b: &mut Builder,
    entries: &[Entry],
    hb: Decimal,
    span: Option<crate::analyses::report::Period>,
) {
    let people: BTreeSet<&str> = entries.iter().filter_map(|e| e.person.as_deref()).collect();
    let Some(span) = span else { return };
    let n = people.len().max(1);
    let available = Decimal::from(n as i64 * working_days(span.from, span.to) * HOURS_PER_DAY);
    if available.is_zero() {
        return;
    }
    let rate = pct(hb, available);
    let shown = b.fig(
        "utilisation",
        ("Tasa de utilización", "Utilisation rate"),
        rate,
        Unit::Pct,
    );
    if rate >= Decimal::from(70) {
        b.strength(
            "SV4",
            hb,
            b.pick(
                format!("Buena utilización: el {shown} de las horas disponibles se factura."),
                format!("Good utilisation: {shown} of available hours are billable."),
            ),
        );
    }
}

fn clients(b: &mut Builder, entries: &[Entry], names: &Names) {
    let mut totals: BTreeMap<usize, Decimal> = BTreeMap::new();
    for e in entries {
        if let Some(c) = e.client {
            *totals.entry(c).or_default() += e.amount;
        }
    }
    let ranked = ranked(&by_name(names, &totals));
    let Some(c) = concentration(&ranked) else {
        return;
    };
    b.fig(
        "clients",
        ("Clientes", "Clients"),
        c.count.into(),
        Unit::Count,
    );
    let top = b.fig(
        "top1_share",
        ("Peso del mayor cliente", "Largest client share"),
        c.top1,
        Unit::Pct,
    );
    if c.top1 >= Decimal::from(75) {
        let name = &c.top1_name;
        b.priority(
            "SV5",
            Severity::High,
            ranked[0].1,
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

fn projects(b: &mut Builder, entries: &[Entry]) {
    let mut by_project: BTreeMap<&str, (Decimal, Option<Decimal>, Decimal)> = BTreeMap::new();
    for e in entries {
        if let Some(p) = e.project.as_deref() {
            let slot = by_project.entry(p).or_default();
            slot.0 += e.hours;
            slot.1 = slot.1.max(e.budget);
            if let (Some(r), Some(c)) = (e.rate, e.cost_hour) {
                slot.2 += (r - c) * e.hours;
            }
        }
    }
    if entries.iter().any(|e| e.cost_hour.is_some()) {
        let margin: Decimal = by_project.values().map(|v| v.2).sum();
        b.fig(
            "project_margin",
            ("Margen de los proyectos", "Project margin"),
            margin,
            Unit::Eur,
        );
    }
    let over: Vec<(&str, Decimal, Decimal)> = by_project
        .iter()
        .filter_map(|(p, (h, budget, _))| {
            budget.filter(|b| *b > Decimal::ZERO).map(|b| (*p, *h, b))
        })
        .filter(|(_, h, budget)| *h > *budget * Decimal::new(115, 2))
        .collect();
    if let Some((name, h, budget)) = over
        .iter()
        .max_by(|a, b| (a.1 - a.2).cmp(&(b.1 - b.2)).then(b.0.cmp(a.0)))
    {
        let n = b.fig(
            "projects_over_budget",
            (
                "Proyectos por encima del presupuesto",
                "Projects over budget",
            ),
            over.len().into(),
            Unit::Count,
        );
        let dev = b.fig(
            "worst_budget_deviation",
            ("Mayor desviación de presupuesto", "Largest budget overrun"),
            pct(*h - *budget, *budget),
            Unit::Pct,
        );
        b.priority(
            "SV6",
            Severity::Medium,
            *h - *budget,
            b.pick(
                format!("«{name}» supera el presupuesto en un {dev} ({n} proyectos por encima)."),
                format!("«{name}» is {dev} over budget ({n} projects over)."),
            ),
            Horizon::Month,
            b.pick(
                format!("Este mes: renegocia «{name}» o factura el cambio de alcance."),
                format!("This month: renegotiate «{name}» or bill the change."),
            ),
        );
    }
}

fn unbilled(
    b: &mut Builder,
    entries: &[Entry],
    billed: Decimal,
    span: Option<crate::analyses::report::Period>,
    as_of: NaiveDate,
) {
    if !entries.iter().any(|e| e.invoiced.is_some()) {
        return;
    }
    let pending: Vec<&Entry> = entries
        .iter()
        .filter(|e| e.billable && e.invoiced == Some(false))
        .collect();
    let wip: Decimal = pending.iter().map(|e| e.amount).sum();
    let shown = b.fig(
        "unbilled",
        ("Trabajo pendiente de facturar", "Unbilled work"),
        wip,
        Unit::Eur,
    );
    let old: Decimal = pending
        .iter()
        .filter(|e| e.date.is_some_and(|d| (as_of - d).num_days() > 30))
        .map(|e| e.amount)
        .sum();
    let months = span.map_or(1, |s| ((s.to - s.from).num_days() / 30).max(1));
    let monthly = billed / Decimal::from(months);
    if old > monthly / Decimal::TEN && old > Decimal::ZERO {
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
