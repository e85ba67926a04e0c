//! The roles a column can play, what values each expects, and the synonyms
//! of its header per module (reference §1.4).

use super::request::{Lang, Module};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    Fecha,
    Documento,
    Base,
    TipoIva,
    CuotaIva,
    Total,
    Retencion,
    Categoria,
    Estado,
    Vencimiento,
    Nif,
    Cliente,
    Producto,
    Cantidad,
    Precio,
    Descuento,
    Importe,
    Coste,
    Canal,
    Referencia,
    Descripcion,
    Existencias,
    PrecioVenta,
    Valor,
    StockMin,
    StockMax,
    UltimaVenta,
    Vendidas,
    Caducidad,
    Proyecto,
    Persona,
    Horas,
    Tarifa,
    CosteHora,
    Facturable,
    Facturado,
    Cobrado,
    Presupuesto,
    Proveedor,
    Concepto,
    Entrada,
    Salida,
    Tipo,
    Saldo,
    Medio,
}

/// The kind of value a role expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    Date,
    Number,
    VatRate,
    Text,
    Id,
    Bool,
}

impl Role {
    pub fn expect(self) -> Expect {
        use Role::*;
        match self {
            Fecha | Vencimiento | UltimaVenta | Caducidad => Expect::Date,
            TipoIva => Expect::VatRate,
            Documento | Nif | Referencia => Expect::Id,
            Cliente | Producto | Categoria | Canal | Descripcion | Proyecto | Persona
            | Proveedor | Concepto | Tipo | Medio => Expect::Text,
            Estado | Facturable | Facturado | Cobrado => Expect::Bool,
            _ => Expect::Number,
        }
    }

    /// The name shown in the data-quality note.
    pub fn name(self, lang: Lang) -> &'static str {
        use Role::*;
        let (es, en) = match self {
            Fecha => ("fecha", "date"),
            Documento => ("nº documento", "document number"),
            Base => ("base imponible", "taxable base"),
            TipoIva => ("tipo de IVA", "VAT rate"),
            CuotaIva => ("cuota de IVA", "VAT amount"),
            Total => ("total con IVA", "total incl. VAT"),
            Retencion => ("retención", "withholding"),
            Categoria => ("categoría", "category"),
            Estado => ("estado de cobro/pago", "paid status"),
            Vencimiento => ("vencimiento", "due date"),
            Nif => ("NIF", "tax id"),
            Cliente => ("cliente", "customer"),
            Producto => ("producto", "product"),
            Cantidad => ("cantidad", "quantity"),
            Precio => ("precio", "price"),
            Descuento => ("descuento", "discount"),
            Importe => ("importe", "amount"),
            Coste => ("coste", "cost"),
            Canal => ("canal", "channel"),
            Referencia => ("referencia", "reference"),
            Descripcion => ("descripción", "description"),
            Existencias => ("existencias", "stock on hand"),
            PrecioVenta => ("precio de venta", "sale price"),
            Valor => ("valor", "value"),
            StockMin => ("stock mínimo", "minimum stock"),
            StockMax => ("stock máximo", "maximum stock"),
            UltimaVenta => ("última venta", "last sale"),
            Vendidas => ("unidades vendidas", "units sold"),
            Caducidad => ("caducidad", "expiry date"),
            Proyecto => ("proyecto", "project"),
            Persona => ("persona", "person"),
            Horas => ("horas", "hours"),
            Tarifa => ("tarifa", "rate"),
            CosteHora => ("coste hora", "hourly cost"),
            Facturable => ("facturable", "billable"),
            Facturado => ("facturado", "invoiced"),
            Cobrado => ("cobrado", "collected"),
            Presupuesto => ("presupuesto", "budget"),
            Proveedor => ("proveedor", "supplier"),
            Concepto => ("concepto", "description"),
            Entrada => ("entradas", "cash in"),
            Salida => ("salidas", "cash out"),
            Tipo => ("tipo", "type"),
            Saldo => ("saldo", "balance"),
            Medio => ("medio de pago", "payment means"),
        };
        match lang {
            Lang::Es => es,
            Lang::En => en,
        }
    }
}

const FECHA: &[&str] = &[
    "fecha",
    "fecha factura",
    "fecha emisión",
    "fecha operación",
    "fecha venta",
    "fecha pedido",
    "día",
    "date",
    "f. factura",
    "fecha valor",
    "fecha contable",
    "periodo",
    "mes",
    "invoice date",
];
const DOCUMENTO: &[&str] = &[
    "nº factura",
    "número factura",
    "factura",
    "fra.",
    "ticket",
    "albarán",
    "pedido",
    "documento",
    "serie",
    "referencia factura",
    "invoice",
    "invoice number",
];
const BASE: &[&str] = &[
    "base imponible",
    "base",
    "B.I.",
    "neto",
    "importe neto",
    "subtotal",
    "sin IVA",
    "importe sin IVA",
    "net amount",
    "net",
];
const TIPO_IVA: &[&str] = &[
    "% IVA",
    "IVA %",
    "tipo IVA",
    "tipo impositivo",
    "IGIC",
    "IVA",
    "VAT rate",
    "VAT %",
];
const CUOTA_IVA: &[&str] = &[
    "cuota IVA",
    "importe IVA",
    "IVA €",
    "IVA",
    "impuestos",
    "VAT",
    "VAT amount",
    "tax",
];
const TOTAL: &[&str] = &[
    "total",
    "importe total",
    "total factura",
    "total con IVA",
    "a pagar",
    "líquido",
    "total €",
    "gross amount",
];
const RETENCION: &[&str] = &["retención", "IRPF", "ret.", "% IRPF", "withholding"];
const CATEGORIA: &[&str] = &[
    "categoría",
    "familia",
    "grupo",
    "sección",
    "línea",
    "partida",
    "cuenta",
    "cuenta contable",
    "tipo de gasto",
    "category",
];
const ESTADO: &[&str] = &[
    "estado",
    "situación",
    "pagado",
    "cobrado",
    "pendiente",
    "status",
    "paid",
];
const VENCIMIENTO: &[&str] = &[
    "vencimiento",
    "fecha vencimiento",
    "vence",
    "fecha prevista de pago",
    "due date",
];
const NIF: &[&str] = &[
    "NIF",
    "CIF",
    "DNI",
    "NIE",
    "NIF/CIF",
    "ID fiscal",
    "VAT number",
    "tax id",
];
const CLIENTE: &[&str] = &[
    "cliente",
    "nombre cliente",
    "razón social",
    "comprador",
    "destinatario",
    "customer",
    "client",
    "contacto",
    "contact",
    "customer name",
];
const PRODUCTO: &[&str] = &[
    "producto",
    "artículo",
    "concepto",
    "descripción",
    "servicio",
    "ítem",
    "referencia",
    "SKU",
    "código",
    "modelo",
    "product",
    "item",
    "description",
];
const CANTIDAD: &[&str] = &[
    "cantidad", "unidades", "uds", "ud.", "cant.", "qty", "quantity", "kilos", "kg", "litros",
    "units",
];
const PRECIO: &[&str] = &[
    "precio",
    "precio unitario",
    "P.U.",
    "PVP",
    "precio venta",
    "tarifa",
    "importe unitario",
    "unit price",
    "price",
    "unit amount",
];
const DESCUENTO: &[&str] = &["descuento", "dto.", "% dto.", "rappel", "discount"];
const IMPORTE: &[&str] = &[
    "importe",
    "importe línea",
    "total línea",
    "venta",
    "ventas",
    "facturación",
    "ingresos",
    "amount",
    "sales",
    "revenue",
];
const COSTE: &[&str] = &[
    "coste",
    "costo",
    "coste unitario",
    "precio coste",
    "precio compra",
    "PMP",
    "coste total",
    "cost",
    "unit cost",
];
const CANAL: &[&str] = &[
    "canal",
    "tienda",
    "vendedor",
    "comercial",
    "zona",
    "provincia",
    "channel",
];

const REFERENCIA: &[&str] = &[
    "referencia",
    "ref.",
    "código",
    "cód.",
    "SKU",
    "código artículo",
    "EAN",
    "código de barras",
];
const DESCRIPCION: &[&str] = &[
    "descripción",
    "artículo",
    "producto",
    "nombre",
    "denominación",
    "description",
    "item",
    "product",
];
const FAMILIA: &[&str] = &[
    "familia",
    "categoría",
    "sección",
    "marca",
    "proveedor",
    "category",
];
const EXISTENCIAS: &[&str] = &[
    "existencias",
    "stock",
    "stock actual",
    "unidades",
    "uds",
    "cantidad",
    "inventario",
    "disponible",
    "en almacén",
    "on hand",
    "quantity",
];
const COSTE_UNIT: &[&str] = &[
    "coste",
    "coste unitario",
    "precio coste",
    "precio compra",
    "PMP",
    "coste medio",
    "valor unitario",
    "unit cost",
    "cost",
];
const PRECIO_VENTA: &[&str] = &["PVP", "P.V.P.", "precio venta", "tarifa", "precio", "price"];
const VALOR: &[&str] = &["valor", "valor stock", "valoración", "total coste"];
const STOCK_MIN: &[&str] = &[
    "stock mínimo",
    "mínimo",
    "stock de seguridad",
    "punto de pedido",
    "min",
];
const STOCK_MAX: &[&str] = &["stock máximo", "máximo", "max"];
const ULTIMA_VENTA: &[&str] = &[
    "última venta",
    "fecha última venta",
    "última salida",
    "último movimiento",
    "last sale",
];
const VENDIDAS: &[&str] = &[
    "unidades vendidas",
    "ventas (uds)",
    "salidas",
    "consumo",
    "units sold",
];
const CADUCIDAD: &[&str] = &[
    "caducidad",
    "fecha caducidad",
    "consumo preferente",
    "expiry",
];

const PROYECTO: &[&str] = &[
    "proyecto",
    "encargo",
    "expediente",
    "trabajo",
    "obra",
    "asunto",
    "caso",
    "project",
];
const TAREA: &[&str] = &[
    "tarea",
    "actividad",
    "servicio",
    "concepto",
    "descripción",
    "task",
];
const PERSONA: &[&str] = &[
    "empleado",
    "técnico",
    "consultor",
    "profesional",
    "recurso",
    "responsable",
    "employee",
    "user",
    "member",
    "usuario",
];
const HORAS: &[&str] = &[
    "horas",
    "h",
    "tiempo",
    "duración",
    "dedicación",
    "jornadas",
    "hours",
    "duration",
    "time",
];
const TARIFA: &[&str] = &[
    "tarifa",
    "precio hora",
    "€/h",
    "tarifa horaria",
    "hourly rate",
    "rate",
];
const COSTE_HORA: &[&str] = &["coste hora", "coste/h", "hourly cost"];
const IMPORTE_SERV: &[&str] = &["importe", "a facturar", "valor", "total", "amount"];
const FACTURABLE: &[&str] = &["facturable", "imputable", "billable"];
const FACTURADO: &[&str] = &["facturado", "nº factura", "fecha factura", "invoiced"];
const COBRADO: &[&str] = &["cobrado", "pagado", "fecha cobro", "paid"];
const PRESUPUESTO: &[&str] = &["presupuesto", "horas presupuestadas", "estimado", "budget"];

const PROVEEDOR: &[&str] = &[
    "proveedor",
    "acreedor",
    "emisor",
    "suministrador",
    "razón social",
    "supplier",
    "vendor",
    "contacto",
    "contact",
];
const DOC_PROV: &[&str] = &[
    "nº factura proveedor",
    "factura",
    "albarán",
    "nº factura",
    "invoice",
];
const CONCEPTO: &[&str] = &[
    "concepto",
    "artículo",
    "descripción",
    "detalle",
    "description",
];
const PAGADO: &[&str] = &["pagado", "estado", "pendiente", "paid", "status"];

const CONCEPTO_CAJA: &[&str] = &[
    "concepto",
    "descripción",
    "detalle",
    "movimiento",
    "description",
];
const ENTRADA: &[&str] = &[
    "entrada", "entradas", "ingreso", "ingresos", "cobro", "cobros", "abono", "haber", "inflow",
    "credit",
];
const SALIDA: &[&str] = &[
    "salida", "salidas", "gasto", "gastos", "pago", "pagos", "cargo", "debe", "outflow", "debit",
];
const IMPORTE_CAJA: &[&str] = &["importe", "cantidad", "movimiento", "amount"];
const TIPO: &[&str] = &["tipo", "ingreso/gasto", "E/S", "tipo movimiento", "type"];
const SALDO: &[&str] = &["saldo", "saldo acumulado", "disponible", "balance"];
const MEDIO: &[&str] = &[
    "caja",
    "banco",
    "efectivo",
    "medio",
    "forma de pago",
    "medio de pago",
    "método de pago",
];
const TERCERO: &[&str] = &[
    "contrapartida",
    "beneficiario",
    "ordenante",
    "tercero",
    "cliente",
    "proveedor",
];

const IMPORTE_TOTAL: &[&str] = &["importe", "amount", "valor", "total", "saldo"];
const TIPO_TOTAL: &[&str] = &[
    "tipo",
    "ingreso/gasto",
    "venta/compra",
    "naturaleza",
    "type",
];
const CUENTA: &[&str] = &[
    "cuenta",
    "cuenta contable",
    "partida",
    "concepto",
    "categoría",
    "account",
];

/// The roles a module looks for, with the synonyms of each.
pub fn roles(module: Module) -> Vec<(Role, &'static [&'static str])> {
    use Role::*;
    let mut list: Vec<(Role, &'static [&'static str])> = match module {
        Module::Ventas => vec![
            (Cliente, CLIENTE),
            (Producto, PRODUCTO),
            (Cantidad, CANTIDAD),
            (Precio, PRECIO),
            (Descuento, DESCUENTO),
            (Importe, IMPORTE),
            (Coste, COSTE),
            (Canal, CANAL),
            (Categoria, CATEGORIA),
            (Documento, DOCUMENTO),
            (Base, BASE),
            (TipoIva, TIPO_IVA),
            (CuotaIva, CUOTA_IVA),
            (Total, TOTAL),
            (Estado, ESTADO),
            (Vencimiento, VENCIMIENTO),
            (Nif, NIF),
        ],
        Module::Stock => vec![
            (Referencia, REFERENCIA),
            (Descripcion, DESCRIPCION),
            (Categoria, FAMILIA),
            (Existencias, EXISTENCIAS),
            (Coste, COSTE_UNIT),
            (PrecioVenta, PRECIO_VENTA),
            (Valor, VALOR),
            (StockMin, STOCK_MIN),
            (StockMax, STOCK_MAX),
            (UltimaVenta, ULTIMA_VENTA),
            (Vendidas, VENDIDAS),
            (Caducidad, CADUCIDAD),
            (TipoIva, TIPO_IVA),
        ],
        Module::Servicios => vec![
            (Cliente, CLIENTE),
            (Proyecto, PROYECTO),
            (Concepto, TAREA),
            (Persona, PERSONA),
            (Horas, HORAS),
            (Tarifa, TARIFA),
            (CosteHora, COSTE_HORA),
            (Importe, IMPORTE_SERV),
            (Facturable, FACTURABLE),
            (Facturado, FACTURADO),
            (Cobrado, COBRADO),
            (Presupuesto, PRESUPUESTO),
        ],
        Module::Entradas => vec![
            (Proveedor, PROVEEDOR),
            (Documento, DOC_PROV),
            (Concepto, CONCEPTO),
            (Categoria, CATEGORIA),
            (Cantidad, CANTIDAD),
            (Precio, PRECIO),
            (Importe, IMPORTE),
            (Base, BASE),
            (TipoIva, TIPO_IVA),
            (CuotaIva, CUOTA_IVA),
            (Total, TOTAL),
            (Retencion, RETENCION),
            (Vencimiento, VENCIMIENTO),
            (Estado, PAGADO),
            (Nif, NIF),
        ],
        Module::Caja => vec![
            (Concepto, CONCEPTO_CAJA),
            (Entrada, ENTRADA),
            (Salida, SALIDA),
            (Importe, IMPORTE_CAJA),
            (Tipo, TIPO),
            (Saldo, SALDO),
            (Medio, MEDIO),
            (Cliente, TERCERO),
        ],
        Module::Total => vec![
            (Concepto, CUENTA),
            (Tipo, TIPO_TOTAL),
            (Importe, IMPORTE_TOTAL),
            (Entrada, ENTRADA),
            (Salida, SALIDA),
            (Base, BASE),
            (CuotaIva, CUOTA_IVA),
        ],
    };
    list.insert(0, (Fecha, FECHA));
    list
}

/// The roles of which at least one must be found for the module to say
/// anything (a file without any of them is a validation error).
pub fn amount_roles(module: Module) -> &'static [Role] {
    use Role::*;
    match module {
        Module::Ventas => &[Importe, Base, Total, Cantidad, Precio],
        Module::Stock => &[Existencias, Valor],
        Module::Servicios => &[Horas, Importe],
        Module::Entradas => &[Base, Total, Importe, Cantidad, Precio],
        Module::Caja => &[Entrada, Salida, Importe],
        Module::Total => &[Importe, Entrada, Salida, Base],
    }
}
