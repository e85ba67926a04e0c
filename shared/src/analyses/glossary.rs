//! The glossary of reference §6, in Spanish and English; a report carries
//! only the terms its texts use.

use super::normalize::fold;
use super::report::GlossaryEntry;
use super::request::Lang;

struct Term {
    es: &'static str,
    en: &'static str,
    /// Folded words whose presence in a Spanish / English text means the term is used.
    needles_es: &'static [&'static str],
    needles_en: &'static [&'static str],
    meaning_es: &'static str,
    meaning_en: &'static str,
}

const TERMS: &[Term] = &[
    Term {
        es: "Facturación / ingresos",
        en: "Revenue",
        needles_es: &["facturacion", "ingresos"],
        needles_en: &["revenue"],
        meaning_es: "Valor de las ventas del periodo, sin IVA",
        meaning_en: "Value of sales in the period, without VAT",
    },
    Term {
        es: "Base imponible",
        en: "Taxable base",
        needles_es: &["base imponible"],
        needles_en: &["taxable base"],
        meaning_es: "Importe sobre el que se calcula el IVA",
        meaning_en: "Amount on which VAT is computed",
    },
    Term {
        es: "IVA repercutido",
        en: "Output VAT",
        needles_es: &["iva repercutido"],
        needles_en: &["output vat"],
        meaning_es: "IVA cobrado a los clientes, que se debe a Hacienda",
        meaning_en: "VAT charged to customers, owed to the tax agency",
    },
    Term {
        es: "IVA soportado",
        en: "Input VAT",
        needles_es: &["iva soportado"],
        needles_en: &["input vat"],
        meaning_es: "IVA pagado en las compras",
        meaning_en: "VAT paid on purchases",
    },
    Term {
        es: "IVA deducible",
        en: "Deductible VAT",
        needles_es: &["iva deducible"],
        needles_en: &["deductible vat"],
        meaning_es: "IVA soportado que puede restarse en la declaración de IVA",
        meaning_en: "Input VAT that may be subtracted in the VAT return",
    },
    Term {
        es: "Modelo 303",
        en: "VAT return (form 303)",
        needles_es: &["modelo 303", "iva del trimestre"],
        needles_en: &["form 303", "quarter's vat"],
        meaning_es: "Declaración periódica que liquida el IVA repercutido menos el deducible",
        meaning_en: "Periodic return settling output minus deductible VAT",
    },
    Term {
        es: "Modelo 130",
        en: "Income-tax instalment (form 130)",
        needles_es: &["modelo 130"],
        needles_en: &["form 130"],
        meaning_es: "Pago fraccionado trimestral del IRPF de los autónomos en estimación directa",
        meaning_en: "Quarterly IRPF prepayment of self-employed people in direct estimation",
    },
    Term {
        es: "Ticket medio",
        en: "Average ticket",
        needles_es: &["ticket medio"],
        needles_en: &["average ticket"],
        meaning_es: "Facturación dividida entre el número de ventas",
        meaning_en: "Revenue divided by number of sales",
    },
    Term {
        es: "Coste de ventas",
        en: "Cost of goods sold (COGS)",
        needles_es: &["coste de ventas"],
        needles_en: &["cost of goods sold"],
        meaning_es: "Coste de la mercancía que realmente se vendió",
        meaning_en: "Cost of the goods that were actually sold",
    },
    Term {
        es: "Margen bruto",
        en: "Gross margin",
        needles_es: &["margen bruto"],
        needles_en: &["gross margin"],
        meaning_es: "Facturación menos coste de ventas, en € o en % de la facturación",
        meaning_en: "Revenue minus cost of goods sold, in € or % of revenue",
    },
    Term {
        es: "Margen de contribución",
        en: "Contribution margin",
        needles_es: &["margen de contribucion"],
        needles_en: &["contribution margin"],
        meaning_es: "Facturación menos costes variables; lo que queda para pagar los fijos",
        meaning_en: "Revenue minus variable costs; what is left to pay fixed costs",
    },
    Term {
        es: "Costes fijos / variables",
        en: "Fixed / variable costs",
        needles_es: &["costes fijos", "costes variables"],
        needles_en: &["fixed costs", "variable costs"],
        meaning_es: "Costes que no se mueven / sí se mueven con el volumen de ventas",
        meaning_en: "Costs that do not / do move with sales volume",
    },
    Term {
        es: "Margen neto",
        en: "Net margin",
        needles_es: &["margen neto"],
        needles_en: &["net margin"],
        meaning_es: "Resultado después de todos los costes, en % de la facturación",
        meaning_en: "Result after all costs, as % of revenue",
    },
    Term {
        es: "Punto muerto",
        en: "Break-even point",
        needles_es: &["punto muerto"],
        needles_en: &["break-even"],
        meaning_es: "Facturación con la que el negocio ni gana ni pierde",
        meaning_en: "Revenue at which the business neither earns nor loses",
    },
    Term {
        es: "Margen de seguridad",
        en: "Margin of safety",
        needles_es: &["margen de seguridad"],
        needles_en: &["margin of safety"],
        meaning_es: "Cuánto puede caer la facturación antes de llegar al punto muerto",
        meaning_en: "How far revenue can fall before reaching break-even",
    },
    Term {
        es: "Principio de Pareto",
        en: "Pareto principle (80/20)",
        needles_es: &["pareto"],
        needles_en: &["pareto"],
        meaning_es: "Unos pocos clientes o productos suelen hacer la mayor parte de la facturación",
        meaning_en: "A few customers or products usually make most of the revenue",
    },
    Term {
        es: "Análisis ABC",
        en: "ABC analysis",
        needles_es: &["analisis abc", "clase a"],
        needles_en: &["abc analysis", "class a"],
        meaning_es: "Clasificación de artículos en A, B y C según su peso en el valor",
        meaning_en: "Ranking items into A, B, C by their share of value",
    },
    Term {
        es: "Concentración de clientes",
        en: "Customer concentration",
        needles_es: &["concentra"],
        needles_en: &["concentrat"],
        meaning_es: "Parte de la facturación que depende de los mayores clientes",
        meaning_en: "Share of revenue that depends on the largest customers",
    },
    Term {
        es: "Índice HHI",
        en: "Herfindahl-Hirschman index",
        needles_es: &["hhi"],
        needles_en: &["hhi"],
        meaning_es: "Suma de las cuotas al cuadrado; cuanto más alto, más concentrado",
        meaning_en: "Sum of squared percentage shares; higher means more concentrated",
    },
    Term {
        es: "Estacionalidad",
        en: "Seasonality",
        needles_es: &["estacionalidad"],
        needles_en: &["seasonality"],
        meaning_es: "Patrón de meses fuertes y flojos que se repite cada año",
        meaning_en: "Pattern of stronger and weaker months that repeats each year",
    },
    Term {
        es: "Rotación de existencias",
        en: "Inventory turnover",
        needles_es: &["rotacion"],
        needles_en: &["turnover"],
        meaning_es: "Cuántas veces se vende y repone el stock en un periodo",
        meaning_en: "How many times stock is sold and replaced in a period",
    },
    Term {
        es: "Días de inventario",
        en: "Days inventory outstanding (DIO)",
        needles_es: &["dias de inventario", "stock para"],
        needles_en: &["days of stock", "dio"],
        meaning_es: "Días que duraría el stock actual al ritmo actual de coste de ventas",
        meaning_en: "Days the current stock would last at the current cost of sales",
    },
    Term {
        es: "Stock muerto",
        en: "Dead stock",
        needles_es: &["stock muerto", "sin venta"],
        needles_en: &["dead stock"],
        meaning_es: "Artículos sin ventas durante mucho tiempo (aquí 180 días)",
        meaning_en: "Items with no sales for a long time (here 180 days)",
    },
    Term {
        es: "Stock mínimo / de seguridad",
        en: "Minimum / safety stock",
        needles_es: &["bajo minimo", "stock minimo"],
        needles_en: &["below minimum", "minimum stock"],
        meaning_es: "Nivel por debajo del cual un artículo debe reponerse",
        meaning_en: "Level below which an item should be reordered",
    },
    Term {
        es: "Rotura de stock",
        en: "Stockout",
        needles_es: &["rotura"],
        needles_en: &["stockout", "out of stock"],
        meaning_es: "Artículo agotado cuando los clientes lo quieren",
        meaning_en: "An item that is out of stock when customers want it",
    },
    Term {
        es: "Periodo medio de cobro",
        en: "Days sales outstanding (DSO)",
        needles_es: &["periodo medio de cobro"],
        needles_en: &["dso", "days sales outstanding"],
        meaning_es: "Días que tardan de media los clientes en pagar",
        meaning_en: "Average days customers take to pay",
    },
    Term {
        es: "Periodo medio de pago",
        en: "Days payables outstanding (DPO)",
        needles_es: &["periodo medio de pago"],
        needles_en: &["dpo", "days payables outstanding"],
        meaning_es: "Días que tarda de media el negocio en pagar a sus proveedores",
        meaning_en: "Average days the business takes to pay suppliers",
    },
    Term {
        es: "Ciclo de caja",
        en: "Cash conversion cycle",
        needles_es: &["ciclo de caja"],
        needles_en: &["cash conversion cycle", "cash cycle"],
        meaning_es: "Días entre pagar el stock y cobrar a los clientes",
        meaning_en: "Days between paying for stock and collecting from customers",
    },
    Term {
        es: "Flujo de caja neto",
        en: "Net cash flow",
        needles_es: &["flujo de caja"],
        needles_en: &["cash flow"],
        meaning_es: "Cobros menos pagos de un periodo",
        meaning_en: "Cash in minus cash out in a period",
    },
    Term {
        es: "Saldo acumulado",
        en: "Running balance",
        needles_es: &["saldo"],
        needles_en: &["balance"],
        meaning_es: "Dinero disponible después de cada movimiento",
        meaning_en: "Cash available after each movement",
    },
    Term {
        es: "Consumo de caja",
        en: "Burn rate",
        needles_es: &["consume caja", "consumo de caja", "consumes caja"],
        needles_en: &["burn"],
        meaning_es: "Salida neta media de caja al mes",
        meaning_en: "Average monthly net cash outflow",
    },
    Term {
        es: "Autonomía de caja",
        en: "Cash runway",
        needles_es: &["caja para", "autonomia"],
        needles_en: &["runway", "cash for"],
        meaning_es: "Meses que dura la caja actual al ritmo de consumo actual",
        meaning_en: "Months the current cash lasts at the current burn",
    },
    Term {
        es: "Tasa de utilización",
        en: "Utilisation rate",
        needles_es: &["utilizacion"],
        needles_en: &["utilisation"],
        meaning_es: "Horas facturables sobre las horas disponibles",
        meaning_en: "Billable hours as a share of available hours",
    },
    Term {
        es: "Tarifa efectiva",
        en: "Effective hourly rate",
        needles_es: &["tarifa efectiva"],
        needles_en: &["effective hourly rate", "effective rate"],
        meaning_es: "Importe facturado dividido entre las horas realmente trabajadas",
        meaning_en: "Amount billed divided by hours actually worked",
    },
    Term {
        es: "Tasa de realización",
        en: "Realisation rate",
        needles_es: &["realizacion"],
        needles_en: &["realisation"],
        meaning_es: "Importe facturado sobre horas × tarifa de lista",
        meaning_en: "Amount billed as a share of hours × list rate",
    },
    Term {
        es: "Trabajo pendiente de facturar",
        en: "Unbilled work (WIP)",
        needles_es: &["sin facturar", "pendiente de facturar"],
        needles_en: &["unbilled"],
        meaning_es: "Trabajo hecho que aún no se ha facturado",
        meaning_en: "Work done but not yet invoiced",
    },
    Term {
        es: "Morosidad",
        en: "Late payment",
        needles_es: &["vencido", "morosidad"],
        needles_en: &["overdue", "late payment"],
        meaning_es: "Clientes que pagan después del vencimiento pactado o legal",
        meaning_en: "Customers paying after the agreed or legal due date",
    },
];

/// The terms whose words appear in `text` (any case, any accents).
pub fn used(text: &str, lang: Lang) -> Vec<GlossaryEntry> {
    let folded = fold(text);
    TERMS
        .iter()
        .filter(|t| {
            let needles = match lang {
                Lang::Es => t.needles_es,
                Lang::En => t.needles_en,
            };
            needles.iter().any(|n| contains_word(&folded, n))
        })
        .map(|t| match lang {
            Lang::Es => GlossaryEntry {
                term: t.es.into(),
                meaning: t.meaning_es.into(),
            },
            Lang::En => GlossaryEntry {
                term: t.en.into(),
                meaning: t.meaning_en.into(),
            },
        })
        .collect()
}

/// `needle` at a word start in `haystack` (a prefix such as "concentra"
/// matches "concentrada").
fn contains_word(haystack: &str, needle: &str) -> bool {
    haystack.match_indices(needle).any(|(i, _)| {
        haystack[..i]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_terms_the_text_uses() {
        let terms: Vec<String> = used("Tu ticket medio es 20 €. El Índice HHI es alto.", Lang::Es)
            .into_iter()
            .map(|e| e.term)
            .collect();
        assert_eq!(terms, ["Ticket medio", "Índice HHI"]);
        assert!(used("Revenue fell.", Lang::En)[0].term == "Revenue");
        assert!(used("Nada que ver", Lang::Es).is_empty());
    }
}
