//! Built-in sample data: deterministic sheets for every module (seeded), used
//! for test keys (`analyses::sample`), goldens and benchmarks.

use std::collections::BTreeMap;

use rust_decimal::Decimal;

use super::request::{Cell, Kind, Module, Request, Row, Sheet};
use crate::rng::Rng;

fn text(s: impl Into<String>) -> Cell {
    Cell::Text(s.into())
}

fn num(units: i64, scale: u32) -> Cell {
    Cell::Number(Decimal::new(units, scale))
}

fn row(cells: Vec<(&str, Cell)>) -> Row {
    Row(cells.into_iter().map(|(k, c)| (k.into(), c)).collect())
}

const CUSTOMERS: [&str; 12] = [
    "Talleres Pérez S.L.",
    "Construcciones Ibarra SA",
    "Ana Gómez",
    "Bar El Puerto",
    "Clínica Dental Sol",
    "Gestoría López",
    "Hotel Mirador",
    "Frutas Martín",
    "Academia Norte",
    "Luis Romero",
    "Panadería Real",
    "Estudio Vega",
];
const PRODUCTS: [(&str, i64, i64); 8] = [
    ("Mantenimiento anual", 45000, 30000),
    ("Revisión", 8000, 4500),
    ("Pieza A-20", 2500, 1400),
    ("Pieza B-11", 1250, 900),
    ("Instalación", 30000, 21000),
    ("Filtro", 990, 400),
    ("Urgencia", 12000, 6000),
    ("Kit limpieza", 1500, 1600),
];
const SUPPLIERS: [(&str, &str, &str, i64); 7] = [
    (
        "Distribuciones Levante SL",
        "B12345674",
        "600 Compras de mercaderías",
        21,
    ),
    ("Iberdrola Clientes SAU", "A95758389", "628 Suministros", 21),
    ("Inmobiliaria Centro", "B87654321", "621 Arrendamientos", 21),
    (
        "Asesoría Fiscal Ruiz",
        "12345678Z",
        "623 Servicios profesionales",
        21,
    ),
    ("Seguros Mapfre", "A28141935", "625 Seguros", 0),
    ("Transportes Rápidos", "B11223344", "624 Transportes", 21),
    ("Papelería Sol", "", "629 Otros servicios", 21),
];

fn date(year: i32, i: usize, n: usize) -> String {
    let day_of_year = (i * 365 / n.max(1)) as u32;
    let d = chrono::NaiveDate::from_yo_opt(year, day_of_year + 1).unwrap_or_default();
    d.format("%d/%m/%Y").to_string()
}

/// A sample sheet of `rows` rows for `module`, dated in `year`.
pub fn sheet(module: Module, rows: usize, seed: u64, year: i32) -> Sheet {
    let mut rng = Rng::new(seed);
    let row_of = match module {
        Module::Ventas => sale,
        Module::Stock => stock_item,
        Module::Servicios => time_entry,
        Module::Entradas => purchase,
        Module::Caja => cash_movement,
        Module::Total => ledger_entry,
    };
    let rows: Vec<Row> = (0..rows).map(|i| row_of(&mut rng, year, i, rows)).collect();
    Sheet {
        name: format!("{}_{year}.xlsx", module.as_str()),
        rows,
        total_rows: None,
    }
}

/// One sale line.
fn sale(rng: &mut Rng, year: i32, i: usize, rows: usize) -> Row {
    let (product, price, cost) = PRODUCTS[rng.skewed(PRODUCTS.len() as u64) as usize];
    let paid = rng.below(5) > 0;
    row(vec![
        ("Fecha", text(date(year, i, rows))),
        ("Nº Factura", text(format!("F{year}-{:05}", i / 2 + 1))),
        (
            "Cliente",
            text(CUSTOMERS[rng.skewed(CUSTOMERS.len() as u64) as usize]),
        ),
        ("Producto", text(product)),
        ("Cantidad", num(1 + rng.below(4) as i64, 0)),
        ("Precio", num(price, 2)),
        ("Coste unitario", num(cost, 2)),
        ("Estado", text(if paid { "Cobrado" } else { "Pendiente" })),
        ("Vencimiento", text(date(year, i, rows))),
    ])
}

/// One stock item.
fn stock_item(rng: &mut Rng, year: i32, i: usize, rows: usize) -> Row {
    let (product, price, cost) = PRODUCTS[i % PRODUCTS.len()];
    let qty = rng.below(60) as i64;
    row(vec![
        ("Referencia", text(format!("REF-{:04}", i + 1))),
        (
            "Descripción",
            text(format!("{product} {}", i / PRODUCTS.len() + 1)),
        ),
        ("Existencias", num(qty, 0)),
        ("Coste", num(cost, 2)),
        ("PVP", num(price * 121 / 100, 2)),
        ("Stock mínimo", num(5, 0)),
        (
            "Última venta",
            text(date(year, rng.below(rows as u64) as usize, rows)),
        ),
        ("Unidades vendidas", num(rng.below(200) as i64, 0)),
    ])
}

/// One timesheet entry.
fn time_entry(rng: &mut Rng, year: i32, i: usize, rows: usize) -> Row {
    let hours = 5 + rng.below(60) as i64;
    let billable = rng.below(4) > 0;
    let rate = 4500 + 500 * rng.below(4) as i64;
    row(vec![
        ("Fecha", text(date(year, i, rows))),
        ("Cliente", text(CUSTOMERS[rng.skewed(4) as usize])),
        ("Proyecto", text(format!("P-{}", 1 + rng.below(6)))),
        (
            "Consultor",
            text(["Marta", "Jorge", "Lucía"][rng.below(3) as usize]),
        ),
        ("Horas", num(hours * 5, 1)),
        ("Tarifa", num(rate, 2)),
        (
            "Importe",
            num(
                if billable {
                    hours * 5 * rate * (80 + rng.below(21) as i64) / 1000
                } else {
                    0
                },
                2,
            ),
        ),
        ("Facturable", text(if billable { "Sí" } else { "No" })),
        (
            "Facturado",
            text(if rng.below(3) > 0 { "Sí" } else { "No" }),
        ),
        ("Horas presupuestadas", num(200, 0)),
    ])
}

/// One purchase invoice.
fn purchase(rng: &mut Rng, year: i32, i: usize, rows: usize) -> Row {
    let (supplier, nif, account, rate) = SUPPLIERS[rng.skewed(SUPPLIERS.len() as u64) as usize];
    let base = 2000 + rng.below(90_000) as i64;
    let vat = base * rate / 100;
    let ret = if account.starts_with("623") || account.starts_with("621") {
        base * 15 / 100
    } else {
        0
    };
    row(vec![
        ("Fecha", text(date(year, i, rows))),
        ("Proveedor", text(supplier)),
        (
            "NIF",
            if nif.is_empty() {
                Cell::Empty
            } else {
                text(nif)
            },
        ),
        ("Nº factura", text(format!("C-{:05}", i + 1))),
        ("Cuenta", text(account)),
        ("Base imponible", num(base, 2)),
        ("% IVA", num(rate, 0)),
        ("Cuota IVA", num(vat, 2)),
        ("Retención", num(ret, 2)),
        ("Pagado", text(if rng.below(6) > 0 { "Sí" } else { "No" })),
        ("Vencimiento", text(date(year, i, rows))),
    ])
}

/// One cash movement.
fn cash_movement(rng: &mut Rng, year: i32, i: usize, rows: usize) -> Row {
    let income = rng.below(2) == 0;
    let amount = 5000 + rng.below(150_000) as i64;
    row(vec![
        ("Fecha", text(date(year, i, rows))),
        (
            "Concepto",
            text(if income {
                "Cobro cliente"
            } else {
                ["Alquiler", "Nómina", "Proveedor", "Seguridad Social"][rng.below(4) as usize]
            }),
        ),
        (
            "Medio",
            text(if rng.below(10) == 0 {
                "Efectivo"
            } else {
                "Banco"
            }),
        ),
        (
            "Entradas",
            if income { num(amount, 2) } else { Cell::Empty },
        ),
        (
            "Salidas",
            if income {
                Cell::Empty
            } else {
                num(amount * 9 / 10, 2)
            },
        ),
    ])
}

/// One income or expense entry.
fn ledger_entry(rng: &mut Rng, year: i32, i: usize, rows: usize) -> Row {
    let (account, tipo, base): (&str, &str, i64) = match i % 5 {
        0 | 1 => ("700 Ventas de mercaderías", "Ingreso", 300_000),
        2 => ("600 Compras de mercaderías", "Gasto", 150_000),
        3 => ("640 Sueldos y salarios", "Gasto", 120_000),
        _ => ("621 Arrendamientos", "Gasto", 60_000),
    };
    row(vec![
        ("Fecha", text(date(year, i, rows))),
        ("Cuenta", text(account)),
        ("Tipo", text(tipo)),
        ("Importe", num(base + rng.below(50_000) as i64, 2)),
    ])
}

const SAMPLE_ROWS: usize = 120;
const SAMPLE_YEAR: i32 = 2025;

/// The sample request of the same type, module and language as `request`.
pub fn request<F>(request: &Request<F>) -> Request {
    let kind = match &request.kind {
        Kind::Excel { module, .. } => Kind::Excel {
            module: *module,
            files: vec![sheet(*module, SAMPLE_ROWS, 1, SAMPLE_YEAR)],
        },
        Kind::Compare { module, .. } => Kind::Compare {
            module: *module,
            a: vec![sheet(*module, SAMPLE_ROWS, 2, SAMPLE_YEAR - 1)],
            b: vec![sheet(*module, SAMPLE_ROWS, 3, SAMPLE_YEAR)],
        },
        Kind::Folder { .. } => Kind::Folder {
            files: [Module::Ventas, Module::Entradas, Module::Caja]
                .iter()
                .map(|m| sheet(*m, SAMPLE_ROWS, 4, SAMPLE_YEAR))
                .collect(),
        },
        Kind::Cuestionario { .. } => Kind::Cuestionario {
            answers: [
                ("FIN1", Some(true)),
                ("FIN2", Some(true)),
                ("FIN3", Some(false)),
                ("FIN4", Some(false)),
                ("FIN5", Some(true)),
                ("FIS1", Some(true)),
                ("FIS2", Some(false)),
                ("FIS3", None),
                ("FIS4", Some(true)),
                ("FIS5", Some(true)),
                ("VEN1", Some(false)),
                ("VEN2", Some(true)),
                ("VEN3", Some(false)),
                ("VEN4", Some(true)),
                ("VEN5", Some(true)),
                ("OPE1", Some(true)),
                ("OPE2", None),
                ("OPE3", Some(true)),
                ("OPE4", Some(false)),
                ("OPE5", Some(true)),
                ("DIG1", Some(true)),
                ("DIG2", Some(true)),
                ("DIG3", Some(false)),
                ("DIG4", Some(true)),
                ("DIG5", Some(true)),
                ("PER1", Some(false)),
                ("PER2", None),
                ("PER3", Some(true)),
                ("PER4", Some(true)),
                ("PER5", Some(false)),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect::<BTreeMap<_, _>>(),
        },
    };
    Request {
        kind,
        lang: request.lang,
        title: request.title.clone(),
    }
}
