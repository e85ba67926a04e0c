//! The 30-question business health cuestionario (reference §5): area scores
//! weighted by question, the overall score weighted by area, bands, the cap
//! on critical "No" answers, and the priorities they give.

use std::collections::BTreeMap;

use rust_decimal::Decimal;

use super::AnalysisError;
use super::builder::Builder;
use super::report::{Horizon, Severity, Unit};
use super::stats::HUNDRED;

struct Question {
    id: &'static str,
    es: &'static str,
    en: &'static str,
    weight: u32,
    action_es: &'static str,
    action_en: &'static str,
}

struct Area {
    prefix: &'static str,
    es: &'static str,
    en: &'static str,
    weight: u32,
}

const AREAS: [Area; 6] = [
    Area {
        prefix: "FIN",
        es: "finanzas",
        en: "finance",
        weight: 25,
    },
    Area {
        prefix: "FIS",
        es: "fiscalidad",
        en: "tax",
        weight: 20,
    },
    Area {
        prefix: "VEN",
        es: "ventas",
        en: "sales",
        weight: 20,
    },
    Area {
        prefix: "OPE",
        es: "operaciones",
        en: "operations",
        weight: 15,
    },
    Area {
        prefix: "DIG",
        es: "digitalización",
        en: "digital",
        weight: 10,
    },
    Area {
        prefix: "PER",
        es: "personas",
        en: "people",
        weight: 10,
    },
];

const QUESTIONS: [Question; 30] = [
    Question {
        id: "FIN1",
        es: "¿Separas las cuentas bancarias del negocio de las personales?",
        en: "Are business and personal bank accounts separate?",
        weight: 2,
        action_es: "Abre una cuenta solo para el negocio",
        action_en: "Open a business-only account",
    },
    Question {
        id: "FIN2",
        es: "¿Revisas cada mes ingresos, gastos y saldo?",
        en: "Do you review income, costs and cash monthly?",
        weight: 3,
        action_es: "Haz un cierre mensual de 30 minutos",
        action_en: "Hold a 30-minute monthly close",
    },
    Question {
        id: "FIN3",
        es: "¿Tienes una previsión de tesorería a 3 meses?",
        en: "Do you keep a 3-month cash forecast?",
        weight: 3,
        action_es: "Prepara una previsión de tesorería a 13 semanas",
        action_en: "Build a 13-week cash forecast",
    },
    Question {
        id: "FIN4",
        es: "¿Tu colchón de caja cubre 3 meses de gastos fijos?",
        en: "Does your cash buffer cover 3 months of fixed costs?",
        weight: 3,
        action_es: "Aparta un % fijo de los ingresos hasta cubrirlos",
        action_en: "Save a fixed % of income until it does",
    },
    Question {
        id: "FIN5",
        es: "¿Conoces tu margen y tu punto muerto?",
        en: "Do you know your margin and break-even?",
        weight: 2,
        action_es: "Haz un análisis `total` de tu cuenta de resultados",
        action_en: "Run a `total` analysis",
    },
    Question {
        id: "FIS1",
        es: "¿Presentaste en plazo el último año el 303 y, si te tocan, el 130/111/115?",
        en: "Were last year's quarterly returns filed on time?",
        weight: 3,
        action_es: "Usa el calendario fiscal y domicilia los pagos; presentar tarde cuesta un 1 % más un 1 % por mes (consúltalo con tu asesor)",
        action_en: "Use the tax calendar and direct debit; late filing costs 1% plus 1% a month (check with your adviser)",
    },
    Question {
        id: "FIS2",
        es: "¿Apartas el IVA cobrado y lo previsto de IRPF/IS hasta pagarlo?",
        en: "Do you set aside VAT collected and expected income tax?",
        weight: 3,
        action_es: "Haz una transferencia mensual a una cuenta de impuestos",
        action_en: "Make a monthly transfer to a tax account",
    },
    Question {
        id: "FIS3",
        es: "¿Tu software de facturación cumplirá VERI*FACTU antes de tu fecha (1-1-2027 sociedades, 1-7-2027 autónomos)?",
        en: "Will your invoicing software be VERI*FACTU-compliant by your date?",
        weight: 2,
        action_es: "Pide a tu proveedor su declaración responsable y deja Word/Excel",
        action_en: "Ask the vendor for its declaración responsable; leave Word/Excel",
    },
    Question {
        id: "FIS4",
        es: "¿Tus facturas llevan numeración correlativa, NIF y desglose de IVA, y las guardas (4 años; libros 6)?",
        en: "Are invoices compliant and kept 4+ years?",
        weight: 2,
        action_es: "Corrige series y datos obligatorios y archiva en digital",
        action_en: "Fix series and fields; keep a digital archive",
    },
    Question {
        id: "FIS5",
        es: "¿Estás al corriente con Hacienda y la Seguridad Social?",
        en: "Are you up to date with tax and social security?",
        weight: 3,
        action_es: "Pide un aplazamiento antes de que llegue la vía de apremio (consúltalo con tu asesor)",
        action_en: "Ask for a payment plan before enforcement (check with your adviser)",
    },
    Question {
        id: "VEN1",
        es: "¿Ningún cliente supera el 30 % de tu facturación?",
        en: "Is no customer above 30 % of revenue?",
        weight: 2,
        action_es: "Prepara un plan de diversificación de clientes",
        action_en: "Draw up a diversification plan",
    },
    Question {
        id: "VEN2",
        es: "¿Cobras la mayoría de facturas en 60 días o menos?",
        en: "Do you collect most invoices within 60 days?",
        weight: 3,
        action_es: "Pon vencimiento en cada factura y envía recordatorios",
        action_en: "Put a due date on every invoice; send reminders",
    },
    Question {
        id: "VEN3",
        es: "¿Reclamas las facturas vencidas a los pocos días?",
        en: "Do you chase overdue invoices promptly?",
        weight: 2,
        action_es: "Envía recordatorios a los 3, 15 y 30 días del vencimiento",
        action_en: "Send reminders at +3, +15 and +30 days",
    },
    Question {
        id: "VEN4",
        es: "¿Has revisado precios en los últimos 12 meses según tus costes?",
        en: "Have you reviewed prices against costs in the last 12 months?",
        weight: 2,
        action_es: "Revisa tus precios una vez al año",
        action_en: "Review prices once a year",
    },
    Question {
        id: "VEN5",
        es: "¿Sabes qué productos y clientes te dejan más margen?",
        en: "Do you know which products and customers earn most?",
        weight: 2,
        action_es: "Haz un análisis `ventas` con costes",
        action_en: "Run a `ventas` analysis with costs",
    },
    Question {
        id: "OPE1",
        es: "¿Comparas al menos dos proveedores en tus compras principales cada año?",
        en: "Do you compare suppliers for main purchases yearly?",
        weight: 1,
        action_es: "Pide presupuesto a un segundo proveedor",
        action_en: "Get a quote from a second supplier",
    },
    Question {
        id: "OPE2",
        es: "¿Tu stock está registrado y cuadra con un recuento anual? (sin stock: no aplica)",
        en: "Is stock recorded and counted at least yearly?",
        weight: 2,
        action_es: "Haz un recuento físico anual",
        action_en: "Do a yearly physical count",
    },
    Question {
        id: "OPE3",
        es: "¿Liquidas el stock sin ventas de más de 6 meses?",
        en: "Do you clear stock unsold for 6+ months?",
        weight: 1,
        action_es: "Saca el stock parado a outlet o devuélvelo",
        action_en: "Sell idle stock at outlet prices or return it",
    },
    Question {
        id: "OPE4",
        es: "¿Están escritos los procesos clave (vender, facturar, cobrar, comprar)?",
        en: "Are key processes written down?",
        weight: 2,
        action_es: "Escribe una lista de una página para cada proceso",
        action_en: "Write a one-page checklist for each",
    },
    Question {
        id: "OPE5",
        es: "¿Has revisado tus seguros (RC, local, mercancía) en el último año?",
        en: "Have you reviewed insurance in the last year?",
        weight: 2,
        action_es: "Revisa tus seguros con tu corredor",
        action_en: "Review your insurance with your broker",
    },
    Question {
        id: "DIG1",
        es: "¿Facturas con un programa de facturación y no con Word o Excel?",
        en: "Do you invoice with invoicing software?",
        weight: 2,
        action_es: "Adopta un programa de facturación que cumpla la normativa",
        action_en: "Adopt a compliant invoicing tool",
    },
    Question {
        id: "DIG2",
        es: "¿Registras ingresos y gastos en digital con menos de un mes de retraso?",
        en: "Are books kept digitally, < 1 month behind?",
        weight: 2,
        action_es: "Reserva un rato fijo cada semana para la contabilidad",
        action_en: "Book a weekly bookkeeping slot",
    },
    Question {
        id: "DIG3",
        es: "¿Tienes copias de seguridad automáticas y doble factor en banca y correo?",
        en: "Automatic backups and 2FA on bank and e-mail?",
        weight: 2,
        action_es: "Activa copias automáticas y el doble factor",
        action_en: "Turn on backups and 2FA",
    },
    Question {
        id: "DIG4",
        es: "¿Tienes presencia online al día (web, ficha de Google, redes)?",
        en: "Is your online presence current?",
        weight: 1,
        action_es: "Actualiza tu ficha y tu web",
        action_en: "Update your listing and web",
    },
    Question {
        id: "DIG5",
        es: "¿Cumples lo básico de protección de datos (RGPD/LOPDGDD)?",
        en: "Are GDPR basics in place?",
        weight: 2,
        action_es: "Prepara avisos de privacidad, consentimientos y contratos de encargado",
        action_en: "Put privacy notices, consents and processor contracts in place",
    },
    Question {
        id: "PER1",
        es: "¿Cada tarea clave tiene responsable y alguien que cubra una ausencia (también la tuya)?",
        en: "Clear owners and cover for absences?",
        weight: 2,
        action_es: "Nombra un suplente para cada tarea",
        action_en: "Name a backup per task",
    },
    Question {
        id: "PER2",
        es: "Si tienes empleados: ¿contratos, nóminas, registro de jornada y prevención de riesgos al día?",
        en: "With staff: contracts, payroll, time records, health & safety up to date?",
        weight: 3,
        action_es: "Revísalo con tu asesor laboral",
        action_en: "Check with your labour adviser",
    },
    Question {
        id: "PER3",
        es: "¿Tú o tu equipo os formáis al menos una vez al año?",
        en: "Do you or your team train at least yearly?",
        weight: 1,
        action_es: "Planifica un curso al año",
        action_en: "Plan one course a year",
    },
    Question {
        id: "PER4",
        es: "¿Te pagas una retribución regular sin poner en riesgo la caja?",
        en: "Do you pay yourself regularly without straining cash?",
        weight: 2,
        action_es: "Fija una retribución mensual a partir de la previsión",
        action_en: "Set a fixed monthly draw from the forecast",
    },
    Question {
        id: "PER5",
        es: "¿Tienes objetivos anuales escritos y los revisas cada trimestre?",
        en: "Written yearly goals reviewed quarterly?",
        weight: 2,
        action_es: "Fija 3 objetivos y revísalos cada trimestre",
        action_en: "Set 3 goals; review them quarterly",
    },
];

/// The areas as a form shows them, in order: the prefix of their question
/// ids and their names in Spanish and English.
pub fn areas() -> impl Iterator<Item = (&'static str, &'static str, &'static str)> {
    AREAS.iter().map(|a| (a.prefix, a.es, a.en))
}

/// The questions as a form asks them, in order: the id the request names
/// (`FIN1`), the Spanish and the English wording.
pub fn questions() -> impl Iterator<Item = (&'static str, &'static str, &'static str)> {
    QUESTIONS.iter().map(|q| (q.id, q.es, q.en))
}

/// Unknown question ids are an error naming the id.
pub fn check_answers(answers: &BTreeMap<String, Option<bool>>) -> Result<(), AnalysisError> {
    match answers
        .keys()
        .find(|id| !QUESTIONS.iter().any(|q| q.id == id.as_str()))
    {
        Some(id) => Err(AnalysisError::invalid(
            "parameter_invalid",
            &format!("data.answers.{id}"),
            format!(
                "unknown question {id:?}; ids are FIN1–FIN5, FIS1–FIS5, VEN1–VEN5, OPE1–OPE5, DIG1–DIG5, PER1–PER5"
            ),
        )),
        None => Ok(()),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Band {
    Critico,
    Fragil,
    Estable,
    Saludable,
}

impl Band {
    /// Bands on the score as shown (1 dp): 0–39 · 40–59 · 60–79 · 80–100.
    pub fn of(score: Decimal) -> Band {
        let s = super::format::round(score, Unit::Pct);
        if s < Decimal::from(40) {
            Band::Critico
        } else if s < Decimal::from(60) {
            Band::Fragil
        } else if s < Decimal::from(80) {
            Band::Estable
        } else {
            Band::Saludable
        }
    }

    fn name(self, lang: super::Lang) -> &'static str {
        match (self, lang) {
            (Band::Critico, super::Lang::Es) => "Crítico (rojo)",
            (Band::Fragil, super::Lang::Es) => "Frágil (naranja)",
            (Band::Estable, super::Lang::Es) => "Estable (amarillo)",
            (Band::Saludable, super::Lang::Es) => "Saludable (verde)",
            (Band::Critico, super::Lang::En) => "Critical (red)",
            (Band::Fragil, super::Lang::En) => "Fragile (orange)",
            (Band::Estable, super::Lang::En) => "Stable (yellow)",
            (Band::Saludable, super::Lang::En) => "Healthy (green)",
        }
    }
}

/// Area score: 100 × Σ w·[sí] / Σ w over answered questions, and the number
/// of answers; None without answers.
pub fn area_score(
    area: &str,
    answers: &BTreeMap<String, Option<bool>>,
) -> (Option<Decimal>, usize) {
    let answered: Vec<(&Question, bool)> = QUESTIONS
        .iter()
        .filter(|q| q.id.starts_with(area))
        .filter_map(|q| answers.get(q.id).copied().flatten().map(|a| (q, a)))
        .collect();
    let total: u32 = answered.iter().map(|(q, _)| q.weight).sum();
    let yes: u32 = answered
        .iter()
        .filter(|(_, a)| *a)
        .map(|(q, _)| q.weight)
        .sum();
    let score = (total > 0).then(|| Decimal::from(yes) * HUNDRED / Decimal::from(total));
    (score, answered.len())
}

/// Overall score and band, with the cap: two or more weight-3 "No" in
/// finanzas + fiscalidad keep the band at Frágil at best.
pub fn overall(answers: &BTreeMap<String, Option<bool>>) -> Option<(Decimal, Band, bool)> {
    let (mut sum, mut weights) = (Decimal::ZERO, 0u32);
    for area in &AREAS {
        if let (Some(s), n) = area_score(area.prefix, answers)
            && n >= 3
        {
            sum += s * Decimal::from(area.weight);
            weights += area.weight;
        }
    }
    if weights == 0 {
        return None;
    }
    let score = sum / Decimal::from(weights);
    let critical_no = QUESTIONS
        .iter()
        .filter(|q| q.weight == 3 && (q.id.starts_with("FIN") || q.id.starts_with("FIS")))
        .filter(|q| answers.get(q.id) == Some(&Some(false)))
        .count();
    let band = Band::of(score);
    let capped = critical_no >= 2 && band > Band::Fragil;
    Some((score, if capped { Band::Fragil } else { band }, capped))
}

/// What the answers give: the counts, the overall score, the area scores,
/// and the answers that become strengths and priorities.
struct Results {
    received: usize,
    answered: usize,
    /// Score, band and whether the band was capped.
    overall: Option<(Decimal, Band, bool)>,
    /// Areas with 3 answers or more, and their score.
    areas: Vec<(&'static Area, Decimal)>,
    /// "Sí" to a weight-3 question, in question order, with question × area weight.
    key_yes: Vec<(u32, &'static Question)>,
    /// Every "No", with question × area weight, heaviest first.
    no: Vec<(u32, &'static Question)>,
}

impl Results {
    fn of(answers: &BTreeMap<String, Option<bool>>) -> Self {
        let areas = AREAS
            .iter()
            .filter_map(|area| match area_score(area.prefix, answers) {
                (Some(score), count) if count >= 3 => Some((area, score)),
                _ => None,
            })
            .collect();
        let (mut key_yes, mut no) = (Vec::new(), Vec::new());
        for q in &QUESTIONS {
            let area_weight = AREAS
                .iter()
                .find(|a| q.id.starts_with(a.prefix))
                .map_or(0, |a| a.weight);
            match answers.get(q.id).copied().flatten() {
                Some(false) => no.push((q.weight * area_weight, q)),
                Some(true) if q.weight == 3 => key_yes.push((q.weight * area_weight, q)),
                _ => {}
            }
        }
        no.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.id.cmp(b.1.id)));
        Results {
            received: answers.len(),
            answered: answers.values().filter(|a| a.is_some()).count(),
            overall: overall(answers),
            areas,
            key_yes,
            no,
        }
    }
}

pub fn analyze(b: &mut Builder, answers: &BTreeMap<String, Option<bool>>) {
    let results = Results::of(answers);
    write_score(b, &results);
    for (area, score) in &results.areas {
        write_area(b, area, *score);
    }
    for (weight, q) in &results.key_yes {
        b.strength(
            q.id,
            Decimal::from(*weight),
            b.pick(
                format!("Sí a una pregunta clave: «{}».", q.es),
                format!("Yes to a key question: «{}».", q.en),
            ),
        );
    }
    for (weight, q) in &results.no {
        write_no(b, *weight, q);
    }
    b.actions
        .push(super::actions::analyze(super::Module::Total, b.lang));
    b.actions.push(super::actions::tax_calendar(b.lang));
}

/// The answers counted and the overall score (the summary).
fn write_score(b: &mut Builder, results: &Results) {
    let n = b.fig(
        "answered",
        ("Preguntas respondidas", "Questions answered"),
        results.answered.into(),
        Unit::Count,
    );
    let all = b.fig(
        "questions",
        ("Preguntas", "Questions"),
        QUESTIONS.len().into(),
        Unit::Count,
    );
    b.sentence(b.pick(
        format!("Respondidas {n} de {all} preguntas; las que no aplican no cuentan."),
        format!("{n} of {all} questions answered; those that do not apply do not count."),
    ));
    b.quality.rows_received = results.received as u64;
    b.quality.rows_analysed = results.answered as u64;
    let Some((score, band, capped)) = results.overall else {
        b.sentence(
            b.pick(
                "Ningún área tiene 3 respuestas: responde más preguntas para tener una puntuación."
                    .into(),
                "No area has 3 answers: answer more questions to get a score.".into(),
            ),
        );
        return;
    };
    let shown = b.fig(
        "score",
        ("Puntuación global", "Overall score"),
        score,
        Unit::Pct,
    );
    let name = band.name(b.lang);
    let cap = if capped {
        b.pick(
            " (limitada por dos o más respuestas críticas en finanzas y fiscalidad)".into(),
            " (capped by two or more critical answers in finance and tax)".into(),
        )
    } else {
        String::new()
    };
    b.sentence(b.pick(
        format!("Puntuación global {shown}: {name}{cap}."),
        format!("Overall score {shown}: {name}{cap}."),
    ));
}

/// An area's score; a healthy one is a strength.
fn write_area(b: &mut Builder, area: &Area, score: Decimal) {
    let id = format!("score_{}", area.prefix.to_lowercase());
    let label = (format!("Área {}", area.es), format!("{} area", area.en));
    let shown = b.fig(&id, (&label.0, &label.1), score, Unit::Pct);
    if Band::of(score) == Band::Saludable {
        b.strength(
            area.prefix,
            score,
            b.pick(
                format!("Área de {} saludable: {shown}.", area.es),
                format!("Healthy {} area: {shown}.", area.en),
            ),
        );
    }
}

/// A "No": a priority as urgent as the question weighs.
fn write_no(b: &mut Builder, weight: u32, q: &Question) {
    let (severity, horizon) = match q.weight {
        3 => (Severity::High, Horizon::Week),
        2 => (Severity::Medium, Horizon::Month),
        _ => (Severity::Low, Horizon::Quarter),
    };
    b.priority(
        q.id,
        severity,
        Decimal::from(weight),
        b.pick(
            format!("Respondiste «No» a «{}».", q.es),
            format!("You answered «No» to «{}».", q.en),
        ),
        horizon,
        b.pick(q.action_es.to_string() + ".", q.action_en.to_string() + "."),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal::dec;

    fn answers(list: &[(&str, Option<bool>)]) -> BTreeMap<String, Option<bool>> {
        list.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn the_worked_example_finanzas_7_of_13() {
        let a = answers(&[
            ("FIN1", Some(true)),
            ("FIN2", Some(true)),
            ("FIN5", Some(true)),
            ("FIN3", Some(false)),
            ("FIN4", Some(false)),
        ]);
        let (score, n) = area_score("FIN", &a);
        assert_eq!(n, 5);
        assert_eq!(
            crate::analyses::format::round(score.unwrap(), Unit::Pct),
            dec!(53.8)
        );
        let (overall_score, band, capped) = overall(&a).unwrap();
        assert_eq!(overall_score.round_dp(6), score.unwrap().round_dp(6));
        assert_eq!(band, Band::Fragil);
        assert!(!capped, "53.8 is Frágil on its own");
    }

    #[test]
    fn null_answers_leave_the_denominator_and_areas_need_three() {
        let a = answers(&[("FIN1", Some(true)), ("FIN2", None), ("FIN3", Some(false))]);
        let (score, n) = area_score("FIN", &a);
        assert_eq!((score, n), (Some(dec!(40)), 2));
        assert!(overall(&a).is_none(), "an area with 2 answers is not shown");
    }

    #[test]
    fn two_critical_no_cap_the_band_at_fragil() {
        let mut list: Vec<(&str, Option<bool>)> =
            QUESTIONS.iter().map(|q| (q.id, Some(true))).collect();
        for (id, a) in &mut list {
            if *id == "FIN3" || *id == "FIS2" {
                *a = Some(false);
            }
        }
        let (score, band, capped) = overall(&answers(&list)).unwrap();
        assert!(score > dec!(80), "{score}");
        assert_eq!(band, Band::Fragil);
        assert!(capped);
    }

    #[test]
    fn bands() {
        assert_eq!(Band::of(dec!(39.94)), Band::Critico);
        assert_eq!(Band::of(dec!(39.95)), Band::Fragil);
        assert_eq!(Band::of(dec!(60)), Band::Estable);
        assert_eq!(Band::of(dec!(100)), Band::Saludable);
    }

    #[test]
    fn weight_sums_per_area() {
        let sum = |p: &str| {
            QUESTIONS
                .iter()
                .filter(|q| q.id.starts_with(p))
                .map(|q| q.weight)
                .sum::<u32>()
        };
        assert_eq!(
            [
                sum("FIN"),
                sum("FIS"),
                sum("VEN"),
                sum("OPE"),
                sum("DIG"),
                sum("PER")
            ],
            [13, 13, 11, 8, 9, 10]
        );
    }
}
