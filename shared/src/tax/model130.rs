//! Modelo 130: the quarterly IRPF instalment of individuals in estimación
//! directa (RIRPF art. 110). Figures are year-to-date. Section II
//! (agriculture, boxes 08–11) is out of scope: those boxes stay 0.
//!
//! Arithmetic saturates instead of overflowing so that `compute` never panics,
//! whatever the amounts.

use rust_decimal::Decimal;
use rust_decimal::dec;
use serde::Deserialize;
use utoipa::ToSchema;

use super::money::{percent_of, round2, truncate2};

const INSTALMENT_RATE: Decimal = dec!(20);
const HOUSING_LOAN_RATE: Decimal = dec!(2);
const HOUSING_LOAN_MAX_PER_QUARTER: Decimal = dec!(660.14);
/// Provisions and hard-to-justify expenses of estimación directa
/// simplificada: at most 2,000 € a year (RIRPF art. 30, rule 2.ª).
const ALLOWANCE_MAX: Decimal = dec!(2000);

/// Box 13 by previous-year net income: (income up to, amount); above the last
/// ceiling there is no reduction.
const MINORACION: [(Decimal, Decimal); 4] = [
    (dec!(9000), dec!(100)),
    (dec!(10000), dec!(75)),
    (dec!(11000), dec!(50)),
    (dec!(12000), dec!(25)),
];

/// Labels of boxes 01..=19, Spanish and English.
const LABELS: [(&str, &str); 19] = [
    ("Ingresos computables", "Computable income"),
    ("Gastos fiscalmente deducibles", "Deductible expenses"),
    ("Rendimiento neto", "Net income"),
    ("20 % del importe de la casilla 03", "20% of box 03"),
    (
        "Pagos fraccionados de trimestres anteriores",
        "Instalments of earlier quarters",
    ),
    (
        "Retenciones e ingresos a cuenta",
        "Withholdings and payments on account",
    ),
    (
        "Pago fraccionado previo del trimestre",
        "Preliminary instalment of the quarter",
    ),
    (
        "Volumen de ingresos del trimestre (actividades agrícolas)",
        "Income of the quarter (agricultural activities)",
    ),
    ("2 % del importe de la casilla 08", "2% of box 08"),
    (
        "Retenciones e ingresos a cuenta (actividades agrícolas)",
        "Withholdings and payments on account (agricultural activities)",
    ),
    (
        "Pago fraccionado previo del trimestre (actividades agrícolas)",
        "Preliminary instalment of the quarter (agricultural activities)",
    ),
    (
        "Suma de pagos fraccionados previos del trimestre",
        "Sum of preliminary instalments of the quarter",
    ),
    (
        "Minoración por aplicación del art. 110.3 c) del Reglamento",
        "Reduction under art. 110.3(c) of the Regulation",
    ),
    ("Diferencia", "Difference"),
    (
        "Resultados negativos de trimestres anteriores",
        "Negative results of earlier quarters",
    ),
    (
        "Deducción por préstamos para la adquisición o rehabilitación de vivienda habitual",
        "Deduction for loans to buy or renovate the main home",
    ),
    ("Total", "Total"),
    (
        "Resultado a ingresar de autoliquidaciones anteriores del mismo ejercicio y período",
        "Amount paid in earlier returns for the same year and quarter",
    ),
    ("Resultado de la autoliquidación", "Result of the return"),
];

/// Year-to-date figures at the end of a quarter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct YearToDate {
    pub income: Decimal,
    pub expenses: Decimal,
    pub withholdings: Decimal,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EarlierQuarters {
    /// The YTD figures of each earlier quarter of the year, in order (Q1.. up
    /// to the quarter before); boxes 05 and 15 are derived from them.
    Figures(Vec<YearToDate>),
    /// Boxes 05 and 15 given directly (`negative_pending` = Σ of earlier
    /// negative results not yet used, as a positive number).
    Boxes {
        previous_payments: Decimal,
        negative_pending: Decimal,
    },
}

/// The modality of estimación directa (RIRPF arts. 28–30).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Estimation {
    /// Simplified (net turnover up to 600,000 €, unless renounced): box 02
    /// adds the allowance for provisions and hard-to-justify expenses.
    #[default]
    Simplified,
    Normal,
}

impl Estimation {
    /// The allowance's percent of the net income before it, by year: 7 % for
    /// 2023 only (Ley 31/2022, de Presupuestos Generales del Estado para
    /// 2023), 5 % otherwise (RIRPF art. 30, rule 2.ª); none in normal estimation.
    pub fn code(self) -> &'static str {
        match self {
            Estimation::Simplified => "simplified",
            Estimation::Normal => "normal",
        }
    }

    pub fn allowance_rate(self, year: i32) -> Decimal {
        match self {
            Estimation::Normal => Decimal::ZERO,
            Estimation::Simplified if year == 2023 => dec!(7),
            Estimation::Simplified => dec!(5),
        }
    }
}

/// The allowance for provisions and hard-to-justify expenses on year-to-date
/// figures: the percent of the positive net income before it, at most 2,000 €.
pub fn allowance(rate: Decimal, income: Decimal, expenses: Decimal) -> Decimal {
    let net = positive(income.saturating_sub(expenses));
    round2(percent(net, rate)).min(ALLOWANCE_MAX)
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Model130Input {
    pub year: i32,
    /// 1..=4, validated by the caller.
    pub quarter: u8,
    pub current: YearToDate,
    pub earlier: EarlierQuarters,
    /// `None`: no box 13 reduction.
    pub previous_year_net_income: Option<Decimal>,
    /// The taxpayer may take the housing-loan deduction (box 16).
    pub housing_loan: bool,
    /// Box 18 (complementary returns only).
    pub paid_in_earlier_return: Decimal,
    pub estimation: Estimation,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Pay,
    ToDeduct,
    Negative,
    Zero,
}

impl Outcome {
    pub fn code(self) -> &'static str {
        match self {
            Outcome::Pay => "pay",
            Outcome::ToDeduct => "to_deduct",
            Outcome::Negative => "negative",
            Outcome::Zero => "zero",
        }
    }

    pub fn meaning_es(self) -> &'static str {
        match self {
            Outcome::Pay => "A ingresar",
            Outcome::ToDeduct => "A deducir en los trimestres siguientes del mismo año",
            Outcome::Negative => {
                "Negativa: sin devolución, se regulariza en la declaración de la Renta"
            }
            Outcome::Zero => "Resultado cero: nada que ingresar",
        }
    }

    pub fn meaning_en(self) -> &'static str {
        match self {
            Outcome::Pay => "To pay",
            Outcome::ToDeduct => "To deduct in the following quarters of the same year",
            Outcome::Negative => "Negative: no refund, settled in the annual income tax return",
            Outcome::Zero => "Zero: nothing to pay",
        }
    }

    fn of(result: Decimal, quarter: u8) -> Outcome {
        if result.is_zero() {
            Outcome::Zero
        } else if result.is_sign_positive() {
            Outcome::Pay
        } else if quarter >= 4 {
            Outcome::Negative
        } else {
            Outcome::ToDeduct
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoxValue {
    pub number: u8,
    pub label_es: &'static str,
    pub label_en: &'static str,
    pub value: Decimal,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Model130 {
    /// Boxes 01..=19, in order, each present.
    pub boxes: Vec<BoxValue>,
    /// The allowance for provisions and hard-to-justify expenses included in box 02.
    pub allowance: Decimal,
    /// Box 19.
    pub result: Decimal,
    pub outcome: Outcome,
}

impl Model130 {
    /// The value of a box; 0 for a number outside 1..=19.
    pub fn get(&self, number: u8) -> Decimal {
        self.boxes
            .iter()
            .find(|b| b.number == number)
            .map_or(Decimal::ZERO, |b| b.value)
    }
}

/// Box 13 amount for a previous-year net income.
pub fn minoracion(previous_year_net_income: Decimal) -> Decimal {
    MINORACION
        .iter()
        .find(|(ceiling, _)| previous_year_net_income <= *ceiling)
        .map_or(Decimal::ZERO, |(_, amount)| *amount)
}

pub fn compute(input: &Model130Input) -> Model130 {
    let rules = Rules {
        minoracion: input
            .previous_year_net_income
            .map_or(Decimal::ZERO, minoracion),
        housing_loan: input.housing_loan,
        allowance_rate: input.estimation.allowance_rate(input.year),
    };
    let carry = match &input.earlier {
        EarlierQuarters::Figures(quarters) => carry_through(quarters, &rules),
        EarlierQuarters::Boxes {
            previous_payments,
            negative_pending,
        } => Carry {
            previous_payments: *previous_payments,
            negative_pending: *negative_pending,
        },
    };
    settle(
        &input.current,
        carry,
        &rules,
        input.paid_in_earlier_return,
        input.quarter,
    )
}

/// What the taxpayer's situation fixes for every quarter of the year.
struct Rules {
    minoracion: Decimal,
    housing_loan: bool,
    allowance_rate: Decimal,
}

/// What earlier quarters of the year pass on: box 05 and the negative results
/// not yet used (the source of box 15).
#[derive(Clone, Copy, Default)]
struct Carry {
    previous_payments: Decimal,
    negative_pending: Decimal,
}

impl Carry {
    /// 05 adds the positive 07 (which comes before 13) less the 16 of the
    /// quarter, since 16 is taken on the YTD 03 again each quarter. Earlier
    /// quarters are settled as original returns (18 = 0), so their 19 is 17.
    fn after(self, quarter: &Model130) -> Carry {
        Carry {
            previous_payments: self
                .previous_payments
                .saturating_add(positive(quarter.get(7)))
                .saturating_sub(quarter.get(16)),
            negative_pending: self
                .negative_pending
                .saturating_sub(quarter.get(15))
                .saturating_add(positive(-quarter.get(19))),
        }
    }
}

fn carry_through(quarters: &[YearToDate], rules: &Rules) -> Carry {
    quarters
        .iter()
        .enumerate()
        .fold(Carry::default(), |carry, (index, figures)| {
            let quarter = u8::try_from(index + 1).unwrap_or(u8::MAX);
            carry.after(&settle(figures, carry, rules, Decimal::ZERO, quarter))
        })
}

fn settle(
    figures: &YearToDate,
    carry: Carry,
    rules: &Rules,
    paid_in_earlier_return: Decimal,
    quarter: u8,
) -> Model130 {
    let zero = Decimal::ZERO;
    let b01 = figures.income;
    let allowance = allowance(rules.allowance_rate, b01, figures.expenses);
    let b02 = figures.expenses.saturating_add(allowance);
    let b03 = b01.saturating_sub(b02);
    let b04 = truncate2(percent(positive(b03), INSTALMENT_RATE));
    let b05 = carry.previous_payments;
    let b06 = figures.withholdings;
    let b07 = b04.saturating_sub(b05).saturating_sub(b06);
    let b12 = positive(b07);
    let b13 = rules.minoracion;
    let b14 = b12.saturating_sub(b13);
    let b15 = positive(carry.negative_pending.min(b14));
    let b16 = housing_loan_deduction(rules.housing_loan, b03, b14.saturating_sub(b15));
    let b17 = b14.saturating_sub(b15).saturating_sub(b16);
    let b18 = paid_in_earlier_return;
    let b19 = b17.saturating_sub(b18);
    let values = [
        b01, b02, b03, b04, b05, b06, b07, zero, zero, zero, zero, b12, b13, b14, b15, b16, b17,
        b18, b19,
    ];
    Model130 {
        boxes: LABELS
            .iter()
            .zip(values)
            .zip(1..)
            .map(|((&(label_es, label_en), value), number)| BoxValue {
                number,
                label_es,
                label_en,
                value,
            })
            .collect(),
        allowance,
        result: b19,
        outcome: Outcome::of(b19, quarter),
    }
}

/// Box 16: 2% of the YTD net income, at most 660.14 and at most `room` (14 − 15).
fn housing_loan_deduction(eligible: bool, net_income: Decimal, room: Decimal) -> Decimal {
    if !eligible {
        return Decimal::ZERO;
    }
    let deduction = round2(percent(positive(net_income), HOUSING_LOAN_RATE));
    positive(deduction.min(HOUSING_LOAN_MAX_PER_QUARTER).min(room))
}

fn positive(x: Decimal) -> Decimal {
    x.max(Decimal::ZERO)
}

/// `percent_of`, dividing first where multiplying first would overflow (bases
/// beyond 10^27, which hold no cents anyway).
fn percent(base: Decimal, rate: Decimal) -> Decimal {
    match base.checked_mul(rate) {
        Some(_) => percent_of(base, rate),
        None => base / Decimal::ONE_HUNDRED * rate,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ytd(income: Decimal, expenses: Decimal, withholdings: Decimal) -> YearToDate {
        YearToDate {
            income,
            expenses,
            withholdings,
        }
    }

    fn input(quarter: u8, current: YearToDate, earlier: EarlierQuarters) -> Model130Input {
        Model130Input {
            year: 2026,
            quarter,
            current,
            earlier,
            previous_year_net_income: None,
            housing_loan: false,
            paid_in_earlier_return: Decimal::ZERO,
            estimation: Estimation::Normal,
        }
    }

    /// Quarter `quarter` of a year whose YTD figures are `year`, earlier
    /// quarters given as figures.
    fn quarter_of(
        year: &[YearToDate],
        quarter: u8,
        previous_year_net_income: Option<Decimal>,
    ) -> Model130Input {
        let done = usize::from(quarter - 1);
        Model130Input {
            previous_year_net_income,
            ..input(
                quarter,
                year[done],
                EarlierQuarters::Figures(year[..done].to_vec()),
            )
        }
    }

    fn assert_boxes(model: &Model130, expected: &[(u8, Decimal)]) {
        for &(number, value) in expected {
            assert_eq!(model.get(number), value, "box {number:02}");
        }
        assert_eq!(model.result, model.get(19));
    }

    /// Worked example A: previous-year net income above 12,000.
    fn example_a(quarter: u8) -> Model130 {
        let year = [
            ytd(dec!(12000), dec!(3000), dec!(720)),
            ytd(dec!(20000), dec!(7000), dec!(1200)),
            ytd(dec!(24000), dec!(11500), dec!(1500)),
            ytd(dec!(36000), dec!(14000), dec!(2400)),
        ];
        compute(&quarter_of(&year, quarter, Some(dec!(15000))))
    }

    /// Worked example B: previous-year net income 9,500, no withholdings.
    fn example_b(quarter: u8) -> Model130 {
        let year = [
            ytd(dec!(3000), dec!(1200), dec!(0)),
            ytd(dec!(3200), dec!(3000), dec!(0)),
            ytd(dec!(6000), dec!(2500), dec!(0)),
            ytd(dec!(9000), dec!(3000), dec!(0)),
        ];
        compute(&quarter_of(&year, quarter, Some(dec!(9500))))
    }

    #[test]
    fn example_a_q1() {
        let m = example_a(1);
        #[rustfmt::skip]
        assert_boxes(&m, &[(1, dec!(12000)), (2, dec!(3000)), (3, dec!(9000)), (4, dec!(1800)), (5, dec!(0)),
            (6, dec!(720)), (7, dec!(1080)), (12, dec!(1080)), (13, dec!(0)), (19, dec!(1080.00))]);
        assert_eq!(m.outcome, Outcome::Pay);
    }

    #[test]
    fn example_a_q2() {
        let m = example_a(2);
        #[rustfmt::skip]
        assert_boxes(&m, &[(1, dec!(20000)), (2, dec!(7000)), (3, dec!(13000)), (4, dec!(2600)), (5, dec!(1080)),
            (6, dec!(1200)), (7, dec!(320)), (12, dec!(320)), (13, dec!(0)), (19, dec!(320.00))]);
        assert_eq!(m.outcome, Outcome::Pay);
    }

    #[test]
    fn example_a_q3() {
        let m = example_a(3);
        #[rustfmt::skip]
        assert_boxes(&m, &[(1, dec!(24000)), (2, dec!(11500)), (3, dec!(12500)), (4, dec!(2500)), (5, dec!(1400)),
            (6, dec!(1500)), (7, dec!(-400)), (12, dec!(0)), (13, dec!(0)), (19, dec!(0.00))]);
        assert_eq!(m.outcome, Outcome::Zero);
    }

    #[test]
    fn example_a_q4() {
        let m = example_a(4);
        #[rustfmt::skip]
        assert_boxes(&m, &[(1, dec!(36000)), (2, dec!(14000)), (3, dec!(22000)), (4, dec!(4400)), (5, dec!(1400)),
            (6, dec!(2400)), (7, dec!(600)), (12, dec!(600)), (13, dec!(0)), (19, dec!(600.00))]);
        assert_eq!(m.outcome, Outcome::Pay);
        let paid: Decimal = (1..=4).map(|q| example_a(q).result).sum();
        assert_eq!(paid, dec!(2000));
    }

    #[test]
    fn example_b_q1() {
        let m = example_b(1);
        #[rustfmt::skip]
        assert_boxes(&m, &[(3, dec!(1800)), (4, dec!(360)), (5, dec!(0)), (7, dec!(360)), (12, dec!(360)),
            (13, dec!(75)), (14, dec!(285)), (15, dec!(0)), (19, dec!(285.00))]);
        assert_eq!(m.outcome, Outcome::Pay);
    }

    #[test]
    fn example_b_q2() {
        let m = example_b(2);
        #[rustfmt::skip]
        assert_boxes(&m, &[(3, dec!(200)), (4, dec!(40)), (5, dec!(360)), (7, dec!(-320)), (12, dec!(0)),
            (13, dec!(75)), (14, dec!(-75)), (15, dec!(0)), (19, dec!(-75.00))]);
        assert_eq!(m.outcome, Outcome::ToDeduct);
    }

    #[test]
    fn example_b_q3() {
        let m = example_b(3);
        #[rustfmt::skip]
        assert_boxes(&m, &[(3, dec!(3500)), (4, dec!(700)), (5, dec!(360)), (7, dec!(340)), (12, dec!(340)),
            (13, dec!(75)), (14, dec!(265)), (15, dec!(75)), (19, dec!(190.00))]);
        assert_eq!(m.outcome, Outcome::Pay);
    }

    #[test]
    fn example_b_q4() {
        let m = example_b(4);
        #[rustfmt::skip]
        assert_boxes(&m, &[(3, dec!(6000)), (4, dec!(1200)), (5, dec!(700)), (7, dec!(500)), (12, dec!(500)),
            (13, dec!(75)), (14, dec!(425)), (15, dec!(0)), (19, dec!(425.00))]);
        assert_eq!(m.outcome, Outcome::Pay);
        let paid: Decimal = (1..=4).map(|q| positive(example_b(q).result)).sum();
        assert_eq!(paid, dec!(900));
    }

    #[test]
    fn housing_example_q1_and_q2() {
        let year = [
            ytd(dec!(8000), dec!(2000), dec!(0)),
            ytd(dec!(14000), dec!(3000), dec!(0)),
        ];
        let quarter = |q| {
            compute(&Model130Input {
                housing_loan: true,
                ..quarter_of(&year, q, None)
            })
        };
        let q1 = quarter(1);
        #[rustfmt::skip]
        assert_boxes(&q1, &[(3, dec!(6000)), (4, dec!(1200)), (5, dec!(0)), (7, dec!(1200)), (13, dec!(0)),
            (14, dec!(1200)), (15, dec!(0)), (16, dec!(120.00)), (17, dec!(1080)), (19, dec!(1080))]);
        let q2 = quarter(2);
        #[rustfmt::skip]
        assert_boxes(&q2, &[(3, dec!(11000)), (4, dec!(2200)), (5, dec!(1080)), (7, dec!(1120)), (14, dec!(1120)),
            (16, dec!(220.00)), (17, dec!(900)), (19, dec!(900))]);
        assert_eq!(q1.result + q2.result, dec!(1980));
    }

    #[test]
    fn boxes_given_directly_give_the_same_return() {
        let given = EarlierQuarters::Boxes {
            previous_payments: dec!(360),
            negative_pending: dec!(75),
        };
        let direct = Model130Input {
            previous_year_net_income: Some(dec!(9500)),
            ..input(3, ytd(dec!(6000), dec!(2500), dec!(0)), given)
        };
        assert_eq!(compute(&direct), example_b(3));
    }

    #[test]
    fn box_15_uses_earlier_negatives_up_to_box_14_and_keeps_the_rest() {
        let year = [
            ytd(dec!(0), dec!(0), dec!(0)),
            ytd(dec!(300), dec!(0), dec!(0)),
            ytd(dec!(1000), dec!(0), dec!(0)),
            ytd(dec!(3000), dec!(0), dec!(0)),
        ];
        let quarter = |q| compute(&quarter_of(&year, q, Some(dec!(0))));
        assert_boxes(
            &quarter(1),
            &[(13, dec!(100)), (14, dec!(-100)), (19, dec!(-100))],
        );
        assert_boxes(
            &quarter(2),
            &[
                (7, dec!(60)),
                (14, dec!(-40)),
                (15, dec!(0)),
                (19, dec!(-40)),
            ],
        );
        assert_boxes(
            &quarter(3),
            &[(5, dec!(60)), (14, dec!(40)), (15, dec!(40)), (19, dec!(0))],
        );
        assert_boxes(
            &quarter(4),
            &[
                (5, dec!(200)),
                (14, dec!(300)),
                (15, dec!(100)),
                (19, dec!(200)),
            ],
        );
    }

    fn simplified(year: i32, quarter: u8, figures: &[YearToDate]) -> Model130 {
        let done = usize::from(quarter - 1);
        compute(&Model130Input {
            year,
            estimation: Estimation::Simplified,
            ..input(
                quarter,
                figures[done],
                EarlierQuarters::Figures(figures[..done].to_vec()),
            )
        })
    }

    #[test]
    fn simplified_estimation_adds_5_percent_of_the_net_income_to_box_02() {
        // RIRPF art. 30, rule 2.ª: 5 % of the net income before the allowance.
        let year = [
            ytd(dec!(12000), dec!(3000), dec!(720)),
            ytd(dec!(20000), dec!(7000), dec!(1200)),
        ];
        // Q1: 5 % × (12,000 − 3,000) = 450; 02 = 3,450; 03 = 8,550; 04 = 1,710; 07 = 1,710 − 720.
        let q1 = simplified(2026, 1, &year);
        assert_eq!(q1.allowance, dec!(450));
        #[rustfmt::skip]
        assert_boxes(&q1, &[(2, dec!(3450)), (3, dec!(8550)), (4, dec!(1710)), (7, dec!(990)), (19, dec!(990))]);
        // Q2: 5 % × 13,000 = 650; 02 = 7,650; 03 = 12,350; 04 = 2,470; 05 = Q1's 990; 07 = 2,470 − 990 − 1,200.
        let q2 = simplified(2026, 2, &year);
        #[rustfmt::skip]
        assert_boxes(&q2, &[(2, dec!(7650)), (3, dec!(12350)), (4, dec!(2470)), (5, dec!(990)), (7, dec!(280))]);
    }

    #[test]
    fn the_allowance_is_capped_at_2000_and_was_7_percent_in_2023() {
        // 5 % × 50,000 = 2,500, capped at 2,000 € a year (RIRPF art. 30, rule 2.ª).
        let capped = simplified(2026, 1, &[ytd(dec!(60000), dec!(10000), dec!(0))]);
        assert_eq!(capped.allowance, dec!(2000));
        assert_boxes(
            &capped,
            &[(2, dec!(12000)), (3, dec!(48000)), (4, dec!(9600))],
        );
        // 2023 only: 7 % (Ley 31/2022): 7 % × 10,000 = 700.
        let y2023 = simplified(2023, 1, &[ytd(dec!(10000), dec!(0), dec!(0))]);
        assert_eq!(y2023.allowance, dec!(700));
        assert_eq!(
            simplified(2024, 1, &[ytd(dec!(10000), dec!(0), dec!(0))]).allowance,
            dec!(500)
        );
        // No allowance on a loss, nor in normal estimation.
        let loss = simplified(2026, 1, &[ytd(dec!(1000), dec!(3000), dec!(0))]);
        assert_eq!((loss.allowance, loss.get(2)), (dec!(0), dec!(3000)));
        let normal = compute(&input(
            1,
            ytd(dec!(10000), dec!(0), dec!(0)),
            EarlierQuarters::Figures(vec![]),
        ));
        assert_eq!((normal.allowance, normal.get(2)), (dec!(0), dec!(0)));
    }

    #[test]
    fn minoracion_follows_the_table() {
        for (income, amount) in [
            (dec!(-5000), dec!(100)),
            (dec!(9000), dec!(100)),
            (dec!(9000.01), dec!(75)),
            (dec!(10000), dec!(75)),
            (dec!(10000.01), dec!(50)),
            (dec!(11000), dec!(50)),
            (dec!(11000.01), dec!(25)),
            (dec!(12000), dec!(25)),
            (dec!(12000.01), dec!(0)),
        ] {
            assert_eq!(minoracion(income), amount, "{income}");
        }
    }

    #[test]
    fn box_04_truncates_and_box_16_rounds_half_away_from_zero() {
        let quarter = |income| {
            compute(&Model130Input {
                housing_loan: true,
                ..input(
                    1,
                    ytd(income, dec!(0), dec!(0)),
                    EarlierQuarters::Figures(vec![]),
                )
            })
        };
        assert_boxes(
            &quarter(dec!(1000.99)),
            &[(4, dec!(200.19)), (16, dec!(20.02))],
        );
        assert_boxes(
            &quarter(dec!(100.25)),
            &[(4, dec!(20.05)), (16, dec!(2.01))],
        );
        assert_boxes(
            &quarter(dec!(100.24)),
            &[(4, dec!(20.04)), (16, dec!(2.00))],
        );
    }

    #[test]
    fn box_16_is_capped_per_quarter_and_by_14_minus_15() {
        let quarter = |earlier| {
            compute(&Model130Input {
                housing_loan: true,
                ..input(2, ytd(dec!(40000), dec!(0), dec!(0)), earlier)
            })
        };
        let capped = quarter(EarlierQuarters::Boxes {
            previous_payments: dec!(0),
            negative_pending: dec!(0),
        });
        assert_boxes(&capped, &[(16, dec!(660.14)), (19, dec!(7339.86))]);
        let limited = quarter(EarlierQuarters::Boxes {
            previous_payments: dec!(7800),
            negative_pending: dec!(150),
        });
        assert_boxes(
            &limited,
            &[
                (14, dec!(200)),
                (15, dec!(150)),
                (16, dec!(50)),
                (17, dec!(0)),
            ],
        );
        assert_eq!(limited.outcome, Outcome::Zero);
    }

    #[test]
    fn no_housing_deduction_without_the_right_or_on_losses() {
        let current = ytd(dec!(10000), dec!(0), dec!(0));
        let not_eligible = input(1, current, EarlierQuarters::Figures(vec![]));
        assert_eq!(compute(&not_eligible).get(16), dec!(0));
        let loss = Model130Input {
            housing_loan: true,
            ..input(
                1,
                ytd(dec!(0), dec!(500), dec!(0)),
                EarlierQuarters::Figures(vec![]),
            )
        };
        assert_boxes(
            &compute(&loss),
            &[(3, dec!(-500)), (4, dec!(0)), (16, dec!(0)), (19, dec!(0))],
        );
    }

    #[test]
    fn box_18_is_subtracted_from_the_result() {
        let year = [ytd(dec!(12000), dec!(3000), dec!(720))];
        let with_paid = |paid| {
            compute(&Model130Input {
                paid_in_earlier_return: paid,
                ..quarter_of(&year, 1, None)
            })
        };
        assert_boxes(
            &with_paid(dec!(1000)),
            &[(17, dec!(1080)), (18, dec!(1000)), (19, dec!(80))],
        );
        let over = with_paid(dec!(1100));
        assert_eq!(over.result, dec!(-20));
        assert_eq!(over.outcome, Outcome::ToDeduct);
    }

    #[test]
    fn a_negative_fourth_quarter_is_negative_not_to_deduct() {
        let m = compute(&Model130Input {
            previous_year_net_income: Some(dec!(0)),
            ..input(
                4,
                ytd(dec!(0), dec!(0), dec!(0)),
                EarlierQuarters::Figures(vec![]),
            )
        });
        assert_eq!(m.result, dec!(-100));
        assert_eq!(m.outcome, Outcome::Negative);
    }

    #[test]
    fn every_box_is_present_in_order_with_labels() {
        let m = example_b(3);
        let numbers: Vec<u8> = m.boxes.iter().map(|b| b.number).collect();
        assert_eq!(numbers, (1..=19).collect::<Vec<u8>>());
        assert!(
            m.boxes
                .iter()
                .all(|b| !b.label_es.is_empty() && !b.label_en.is_empty())
        );
        assert!((8..=11).all(|n| m.get(n).is_zero()));
        assert_eq!(m.get(0), dec!(0));
        assert_eq!(m.get(20), dec!(0));
    }

    #[test]
    fn outcome_codes_and_meanings() {
        let outcomes = [
            Outcome::Pay,
            Outcome::ToDeduct,
            Outcome::Negative,
            Outcome::Zero,
        ];
        let codes: Vec<&str> = outcomes.iter().map(|o| o.code()).collect();
        assert_eq!(codes, ["pay", "to_deduct", "negative", "zero"]);
        assert!(
            outcomes
                .iter()
                .all(|o| !o.meaning_es().is_empty() && !o.meaning_en().is_empty())
        );
    }

    #[test]
    fn extreme_amounts_do_not_panic() {
        let extremes = [
            Decimal::MAX,
            Decimal::MIN,
            Decimal::ZERO,
            Decimal::new(1, 28),
        ];
        for &a in &extremes {
            for &b in &extremes {
                let figures = ytd(a, b, b);
                for quarter in [0, 1, 4, 9] {
                    let inputs = [
                        Model130Input {
                            previous_year_net_income: Some(a),
                            housing_loan: true,
                            paid_in_earlier_return: b,
                            estimation: Estimation::Simplified,
                            ..input(
                                quarter,
                                figures,
                                EarlierQuarters::Figures(vec![figures; 300]),
                            )
                        },
                        input(
                            quarter,
                            figures,
                            EarlierQuarters::Boxes {
                                previous_payments: a,
                                negative_pending: b,
                            },
                        ),
                    ];
                    for i in &inputs {
                        assert_eq!(compute(i).boxes.len(), 19);
                    }
                }
            }
        }
    }
}
