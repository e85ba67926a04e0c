//! `folder` (reference §4): each file is scored against the six modules and
//! analysed with its best one; with sales and purchases a combined profit
//! and loss is added, and with cash too the next VAT bill is set against
//! the balance (rule T4).
//!
//! Score = share of the module's must-have column groups found × (0.5 + 0.5
//! × share of its distinctive roles found); ties go to the first module in
//! `Module::ALL` order and are noted.

use chrono::{Datelike, NaiveDate};
use rust_decimal::Decimal;

use super::AnalysisError;
use super::Framer;
use super::builder::Builder;
use super::detect::{File, Frame};
use super::modules::Names;
use super::modules::{entradas, total, ventas};
use super::report::{Horizon, Severity, Unit};
use super::request::{Lang, Module};
use super::roles::Role;

/// Column groups of which each must be present (any role of the group).
fn must_have(module: Module) -> &'static [&'static [Role]] {
    use Role::*;
    match module {
        Module::Ventas => &[&[Importe, Base, Total, Precio]],
        Module::Stock => &[&[Existencias, Valor], &[Referencia, Descripcion]],
        Module::Servicios => &[&[Horas]],
        Module::Entradas => &[&[Base, Total, Importe]],
        Module::Caja => &[&[Entrada, Salida, Importe]],
        Module::Total => &[&[Importe, Entrada, Salida, Base]],
    }
}

/// Roles that tell one module's sheets from the others'.
fn distinctive(module: Module) -> &'static [Role] {
    use Role::*;
    match module {
        Module::Ventas => &[Cliente, Producto, Cantidad, Precio],
        Module::Stock => &[Existencias, Referencia, StockMin, UltimaVenta, PrecioVenta],
        Module::Servicios => &[Horas, Tarifa, Proyecto, Persona, Facturable],
        Module::Entradas => &[Proveedor, CuotaIva, Retencion, Categoria],
        Module::Caja => &[Entrada, Salida, Saldo, Medio],
        Module::Total => &[Tipo, Concepto],
    }
}

pub fn score(frame: &Frame, module: Module) -> f64 {
    let groups = must_have(module);
    let found = groups
        .iter()
        .filter(|g| g.iter().any(|r| frame.has(*r)))
        .count();
    let roles = distinctive(module);
    let specific = roles.iter().filter(|r| frame.has(**r)).count();
    found as f64 / groups.len() as f64 * (0.5 + 0.5 * specific as f64 / roles.len() as f64)
}

/// A file with its best module.
pub struct Classified<'a> {
    pub frame: Frame<'a>,
    pub module: Module,
    pub tie: bool,
}

pub fn classify<'a, F: File>(
    files: &'a [F],
    framer: Framer<F>,
) -> Result<Vec<Classified<'a>>, AnalysisError> {
    files
        .iter()
        .enumerate()
        .map(|(i, sheet)| {
            let mut scored: Vec<(f64, Module, Frame)> = Module::ALL
                .iter()
                .map(|m| {
                    let f = framer(sheet, *m);
                    (score(&f, *m), *m, f)
                })
                .collect();
            let best = scored.iter().map(|s| s.0).fold(0.0, f64::max);
            if best <= 0.0 {
                return Err(AnalysisError::invalid(
                    "parameter_invalid",
                    &format!("data.files[{i}].rows"),
                    format!(
                        "the file fits none of the modules (no amount, stock or hours column); columns seen: {}",
                        scored[0].2.seen()
                    ),
                ));
            }
            let tie = scored.iter().filter(|s| s.0 == best).count() > 1;
            let index = scored.iter().position(|s| s.0 == best).unwrap_or(0);
            let (_, module, frame) = scored.swap_remove(index);
            Ok(Classified { frame, module, tie })
        })
        .collect()
}

fn module_label(module: Module, lang: Lang) -> &'static str {
    match (module, lang) {
        (Module::Ventas, Lang::Es) => "Ventas",
        (Module::Stock, Lang::Es) => "Stock",
        (Module::Servicios, Lang::Es) => "Servicios",
        (Module::Entradas, Lang::Es) => "Compras",
        (Module::Caja, Lang::Es) => "Caja",
        (Module::Total, Lang::Es) => "Resultados",
        (Module::Ventas, Lang::En) => "Sales",
        (Module::Stock, Lang::En) => "Stock",
        (Module::Servicios, Lang::En) => "Services",
        (Module::Entradas, Lang::En) => "Purchases",
        (Module::Caja, Lang::En) => "Cash",
        (Module::Total, Lang::En) => "Profit and loss",
    }
}

pub fn analyze(b: &mut Builder, files: &[Classified], as_of: NaiveDate) {
    let lang = b.lang;
    let mut listed = Vec::new();
    for module in Module::ALL {
        let frames: Vec<Frame> = files
            .iter()
            .filter(|c| c.module == module)
            .map(|c| c.frame.clone())
            .collect();
        if frames.is_empty() {
            continue;
        }
        let names: Vec<String> = frames
            .iter()
            .map(|f| format!("«{}»", f.table.file))
            .collect();
        listed.push(format!(
            "{} ({})",
            module_label(module, lang).to_lowercase(),
            names.join(", ")
        ));
        let mut sub = Builder::new(lang);
        super::run_module(&mut sub, module, &frames, as_of);
        b.absorb(sub, module.as_str(), module_label(module, lang));
    }
    for c in files.iter().filter(|c| c.tie) {
        b.note(
            format!(
                "«{}» encaja igual en varios módulos: se ha leído como {}.",
                c.frame.table.file,
                c.module.as_str()
            ),
            format!(
                "«{}» fits several modules equally: read as {}.",
                c.frame.table.file,
                c.module.as_str()
            ),
        );
    }
    let of = |m: Module| -> Vec<Frame> {
        files
            .iter()
            .filter(|c| c.module == m)
            .map(|c| c.frame.clone())
            .collect()
    };
    let (sales, purchases, cash) = (of(Module::Ventas), of(Module::Entradas), of(Module::Caja));
    if !sales.is_empty() && !purchases.is_empty() {
        combined(b, &sales, &purchases, !cash.is_empty());
    }
    let rows = b.quality.rows_analysed as usize;
    let period = b.period;
    let total_rows = files
        .iter()
        .any(|c| c.frame.table.total_rows.is_some())
        .then(|| {
            files
                .iter()
                .map(|c| {
                    c.frame
                        .table
                        .total_rows
                        .unwrap_or(c.frame.table.rows_received as u64)
                })
                .sum()
        });
    b.scope(rows, total_rows, period);
    let count = b.fig(
        "files",
        ("Archivos", "Files"),
        files.len().into(),
        Unit::Count,
    );
    b.set_headline(b.pick(
        format!("{count} archivos leídos: {}.", listed.join("; ")),
        format!("{count} files read: {}.", listed.join("; ")),
    ));
}

/// The combined profit and loss of sales and purchases; with cash, the
/// next VAT bill against the balance.
fn combined(b: &mut Builder, sales: &[Frame], purchases: &[Frame], with_cash: bool) {
    let lang = b.lang;
    let mut sub = Builder::new(lang);
    let mut skipped = Vec::new();
    let sales_read = ventas::lines(sales, &mut skipped);
    let mut names = Names::default();
    let mut scratch = Builder::new(lang);
    let purchases_read = entradas::purchases(&mut scratch, purchases, &mut names);
    let mut entries: Vec<total::Entry> = sales_read
        .lines
        .iter()
        .map(|l| total::Entry {
            date: l.date,
            amount: l.revenue,
            cost: None,
        })
        .collect();
    entries.extend(purchases_read.iter().map(|x| total::Entry {
        date: x.date,
        amount: x.base,
        cost: Some(total::cost_class(
            x.category.as_deref().or(x.item.as_deref()).unwrap_or(""),
        )),
    }));
    total::profit_and_loss(&mut sub, &entries, None);
    if with_cash {
        vat_against_cash(&mut sub, &sales_read.lines, &purchases_read, b);
    }
    sub.actions.push(super::actions::model_130(lang));
    b.absorb(sub, "total", module_label(Module::Total, lang));
}

fn quarter(d: NaiveDate) -> (i32, u32) {
    (d.year(), d.month0() / 3)
}

/// T4: output VAT minus input VAT of the latest quarter against the cash balance.
fn vat_against_cash(
    sub: &mut Builder,
    sales: &[ventas::Line],
    purchases: &[entradas::Purchase],
    main: &Builder,
) {
    let Some(last) = sales.iter().filter_map(|l| l.date).max() else {
        return;
    };
    let latest_quarter = quarter(last);
    let output: Decimal = sales
        .iter()
        .filter(|l| l.date.map(quarter) == Some(latest_quarter))
        .map(|l| l.with_vat - l.revenue)
        .sum();
    let input: Decimal = purchases
        .iter()
        .filter(|x| x.date.map(quarter) == Some(latest_quarter))
        .map(|x| x.vat)
        .sum();
    let Some(balance) = main.figure("caja_balance").map(|f| f.value) else {
        return;
    };
    let due = sub.fig(
        "vat_due_estimate",
        (
            "IVA del trimestre a ingresar (estimación)",
            "Quarter's VAT to pay (estimate)",
        ),
        output - input,
        Unit::Eur,
    );
    if output - input > balance {
        let balance_shown = sub.fig(
            "cash_balance",
            ("Saldo de caja", "Cash balance"),
            balance,
            Unit::Eur,
        );
        sub.priority(
            "T4",
            Severity::High,
            output - input - balance,
            sub.pick(
                format!("El próximo IVA supera tu saldo: el IVA del trimestre a ingresar («modelo 303») ronda {due} y la caja tiene {balance_shown}."),
                format!("Next tax bill exceeds cash: the quarter's VAT to pay («form 303») is about {due} and cash holds {balance_shown}."),
            ),
            Horizon::Week,
            sub.pick(
                "Esta semana: aparta cada mes el IVA cobrado en una cuenta separada (consúltalo con tu asesor).".into(),
                "This week: move the VAT you collect to a separate account every month (check with your adviser).".into(),
            ),
        );
    }
}
