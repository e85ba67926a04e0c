//! Assembles a report from facts: key figures first, then texts that quote
//! only those figures (so every number a reader sees is a key figure),
//! strengths and priorities ordered deterministically, the action plan
//! grouped by horizon, the glossary of the terms used, the data-quality note.

use chrono::NaiveDate;
use rust_decimal::Decimal;

use super::detect::Frame;
use super::format::{self, round, show};
use super::glossary;
use super::report::{
    Action, ColumnRef, ColumnUse, DataQuality, Horizon, KeyFigure, Period, PlanGroup, PlanItem,
    Priority, Report, Severity, Skipped, Strength, Unit,
};
use super::request::Lang;
use super::stats::pct;

pub const MAX_STRENGTHS: usize = 5;
pub const MAX_PRIORITIES: usize = 5;

struct Found {
    priority: Priority,
    impact: Decimal,
    horizon: Horizon,
    action: String,
}

pub struct Builder {
    pub lang: Lang,
    figures: Vec<KeyFigure>,
    sentences: Vec<String>,
    strengths: Vec<(Decimal, Strength)>,
    priorities: Vec<Found>,
    pub quality: DataQuality,
    pub period: Option<Period>,
    pub actions: Vec<Action>,
}

impl Builder {
    pub fn new(lang: Lang) -> Self {
        Builder {
            lang,
            figures: Vec::new(),
            sentences: Vec::new(),
            strengths: Vec::new(),
            priorities: Vec::new(),
            quality: DataQuality::default(),
            period: None,
            actions: Vec::new(),
        }
    }

    /// The Spanish or the English text.
    pub fn pick(&self, es: String, en: String) -> String {
        match self.lang {
            Lang::Es => es,
            Lang::En => en,
        }
    }

    /// Adds a key figure (rounded as shown) and returns its display.
    pub fn fig(&mut self, id: &str, label: (&str, &str), value: Decimal, unit: Unit) -> String {
        let value = round(value, unit);
        let label = match self.lang {
            Lang::Es => label.0,
            Lang::En => label.1,
        };
        match self.figures.iter_mut().find(|f| f.id == id) {
            Some(f) => f.value = value,
            None => self.figures.push(KeyFigure {
                id: id.into(),
                label: label.into(),
                value,
                unit,
                delta: None,
            }),
        }
        show(value, unit, self.lang)
    }

    pub fn figure(&self, id: &str) -> Option<&KeyFigure> {
        self.figures.iter().find(|f| f.id == id)
    }

    pub fn figures(&self) -> &[KeyFigure] {
        &self.figures
    }

    pub fn figures_mut(&mut self) -> &mut Vec<KeyFigure> {
        &mut self.figures
    }

    /// Replaces the headline sentence (the one after the scope).
    pub fn set_headline(&mut self, text: String) {
        if self.sentences.len() >= 2 {
            self.sentences[1] = text;
        } else {
            self.sentences.push(text);
        }
    }

    pub fn priority_ids(&self) -> Vec<String> {
        self.priorities
            .iter()
            .map(|p| p.priority.id.clone())
            .collect()
    }

    /// A sentence of the summary (scope, headline), in order.
    pub fn sentence(&mut self, text: String) {
        self.sentences.push(text);
    }

    /// The sentence for lists: the headline figure, else the scope.
    pub fn headline(&self) -> String {
        self.sentences
            .get(1)
            .or(self.sentences.first())
            .cloned()
            .unwrap_or_default()
    }

    pub fn strength(&mut self, id: &str, impact: Decimal, text: String) {
        self.strengths.push((
            impact.abs(),
            Strength {
                id: id.into(),
                text,
            },
        ));
    }

    pub fn priority(
        &mut self,
        id: &str,
        severity: Severity,
        impact: Decimal,
        text: String,
        horizon: Horizon,
        action: String,
    ) {
        self.priorities.push(Found {
            priority: Priority {
                id: id.into(),
                severity,
                text,
            },
            impact: impact.abs(),
            horizon,
            action,
        });
    }

    pub fn has_priority(&self, id: &str) -> bool {
        self.priorities.iter().any(|p| p.priority.id == id)
    }

    /// Takes in the report of one file of a folder: ids prefixed with
    /// `prefix`, labels with `label`.
    pub fn absorb(&mut self, other: Builder, prefix: &str, label: &str) {
        for mut f in other.figures {
            f.id = format!("{prefix}_{}", f.id);
            f.label = format!("{label}: {}", f.label);
            self.figures.push(f);
        }
        for (impact, mut s) in other.strengths {
            s.id = format!("{prefix}_{}", s.id);
            self.strengths.push((impact, s));
        }
        for mut p in other.priorities {
            p.priority.id = format!("{prefix}_{}", p.priority.id);
            self.priorities.push(p);
        }
        let q = other.quality;
        self.quality.rows_received += q.rows_received;
        self.quality.rows_analysed += q.rows_analysed;
        self.quality.columns_used.extend(q.columns_used);
        self.quality.columns_ignored.extend(q.columns_ignored);
        self.quality.rows_skipped.extend(q.rows_skipped);
        self.quality
            .notes
            .extend(q.notes.into_iter().map(|n| format!("{label}: {n}")));
        for a in other.actions {
            if !self.actions.iter().any(|x| x.id == a.id) {
                self.actions.push(a);
            }
        }
        self.period = match (self.period, other.period) {
            (Some(a), Some(b)) => Some(Period {
                from: a.from.min(b.from),
                to: a.to.max(b.to),
            }),
            (a, b) => a.or(b),
        };
    }

    /// Scope of the data: rows analysed (of the sheet's total when cut) and
    /// the period; figures refer to these rows only.
    pub fn scope(&mut self, rows: usize, total_rows: Option<u64>, period: Option<Period>) {
        let shown_rows = self.fig(
            "rows_analysed",
            ("Filas analizadas", "Rows analysed"),
            Decimal::from(rows),
            Unit::Count,
        );
        let months = period.map(|p| format::period(p.from, p.to, self.lang));
        let cut = total_rows.filter(|t| *t > rows as u64);
        let sentence = match cut {
            Some(total) => {
                let shown_total = self.fig(
                    "rows_total",
                    ("Filas de la hoja", "Rows in the sheet"),
                    Decimal::from(total),
                    Unit::Count,
                );
                let share = self.fig(
                    "rows_share",
                    ("Parte analizada", "Share analysed"),
                    pct(Decimal::from(rows), Decimal::from(total)),
                    Unit::Pct,
                );
                self.pick(
                    format!("Según las {shown_rows} filas analizadas de {shown_total} ({share})"),
                    format!(
                        "Based on the {shown_rows} rows analysed out of {shown_total} ({share})"
                    ),
                )
            }
            None => self.pick(
                format!("Analizadas {shown_rows} filas"),
                format!("{shown_rows} rows analysed"),
            ),
        };
        let sentence = match months {
            Some(m) => format!("{sentence}, {m}."),
            None => format!("{sentence}."),
        };
        self.sentences.insert(0, sentence);
        self.period = period;
        self.quality.total_rows = total_rows;
    }

    /// Records how a frame was read: columns used and ignored, rows skipped.
    pub fn note_frame(&mut self, frame: &Frame, skipped: &[(&str, usize)]) {
        let file = frame.table.file.to_string();
        let (used, ignored) = frame.mapping_note(self.lang);
        self.quality.rows_received += frame.table.rows_received as u64;
        for (column, role, by_header) in used {
            self.quality.columns_used.push(ColumnUse {
                file: file.clone(),
                column,
                role,
                by: if by_header { "header" } else { "values" }.into(),
            });
        }
        for column in ignored {
            self.quality.columns_ignored.push(ColumnRef {
                file: file.clone(),
                column,
            });
        }
        let header = [("header_above", frame.table.header_rows)];
        for (reason, count) in header.iter().chain(skipped) {
            if *count > 0 {
                self.quality.rows_skipped.push(Skipped {
                    file: file.clone(),
                    reason: (*reason).into(),
                    count: *count as u64,
                });
            }
        }
        if frame.table.melted {
            let note = self.pick(
                format!(
                    "«{file}»: columnas por mes convertidas a filas (concepto, periodo, importe)."
                ),
                format!(
                    "«{file}»: month-per-column layout turned into rows (item, period, amount)."
                ),
            );
            self.quality.notes.push(note);
        }
    }

    pub fn note(&mut self, es: String, en: String) {
        let text = self.pick(es, en);
        self.quality.notes.push(text);
    }

    pub fn finish(mut self, as_of: NaiveDate) -> Report {
        self.strengths
            .sort_by(|a, b| b.0.cmp(&a.0).then(a.1.id.cmp(&b.1.id)));
        self.strengths.truncate(MAX_STRENGTHS);
        self.priorities.sort_by(|a, b| {
            a.priority
                .severity
                .cmp(&b.priority.severity)
                .then(b.impact.cmp(&a.impact))
                .then(a.priority.id.cmp(&b.priority.id))
        });
        self.priorities.truncate(MAX_PRIORITIES);
        let mut summary: Vec<String> = self.sentences.iter().take(2).cloned().collect();
        if let Some((_, s)) = self.strengths.first() {
            summary.push(s.text.clone());
        }
        if let Some(p) = self.priorities.first() {
            summary.push(p.priority.text.clone());
        }
        let summary = summary.join(" ");
        let mut groups: Vec<PlanGroup> = Vec::new();
        for horizon in [Horizon::Week, Horizon::Month, Horizon::Quarter] {
            let items: Vec<PlanItem> = self
                .priorities
                .iter()
                .filter(|p| p.horizon == horizon)
                .map(|p| PlanItem {
                    priority: p.priority.id.clone(),
                    text: p.action.clone(),
                })
                .collect();
            if !items.is_empty() {
                let label = match (horizon, self.lang) {
                    (Horizon::Week, Lang::Es) => "Esta semana",
                    (Horizon::Month, Lang::Es) => "Este mes",
                    (Horizon::Quarter, Lang::Es) => "Este trimestre",
                    (Horizon::Week, Lang::En) => "This week",
                    (Horizon::Month, Lang::En) => "This month",
                    (Horizon::Quarter, Lang::En) => "This quarter",
                };
                groups.push(PlanGroup {
                    horizon,
                    label: label.into(),
                    items,
                });
            }
        }
        let strengths: Vec<Strength> = self.strengths.into_iter().map(|(_, s)| s).collect();
        let priorities: Vec<Priority> = self.priorities.into_iter().map(|p| p.priority).collect();
        let all_text = std::iter::once(summary.as_str())
            .chain(strengths.iter().map(|s| s.text.as_str()))
            .chain(priorities.iter().map(|p| p.text.as_str()))
            .chain(
                groups
                    .iter()
                    .flat_map(|g| g.items.iter().map(|i| i.text.as_str())),
            )
            .collect::<Vec<_>>()
            .join(" ");
        Report {
            summary,
            key_figures: self.figures,
            strengths,
            priorities,
            action_plan: groups,
            glossary: glossary::used(&all_text, self.lang),
            data_quality: self.quality,
            period: self.period,
            as_of,
        }
    }
}
