//! A record as the rules read it: its element tree, the day it is checked
//! on, and its values parsed where a rule compares them.

use chrono::{Datelike, NaiveDate};
use rust_decimal::Decimal;

use crate::xml_tree::Element;

/// A RegistroAlta or RegistroAnulacion checked on `today`.
pub struct Record<'a> {
    pub element: &'a Element,
    pub today: NaiveDate,
}

/// One DetalleDesglose.
pub struct Line<'a> {
    /// Impuesto; `01` (IVA) when absent.
    pub tax: &'a str,
    pub regime: Option<&'a str>,
    pub qualification: Option<&'a str>,
    pub exemption: Option<&'a str>,
    pub rate: Option<Decimal>,
    pub base: Option<Decimal>,
    pub base_at_cost: Option<Decimal>,
    pub vat: Option<Decimal>,
    pub surcharge_rate: Option<Decimal>,
    pub surcharge: Option<Decimal>,
}

impl Line<'_> {
    /// Impuesto IVA, or absent (the AEAT then takes IVA).
    pub fn vat_tax(&self) -> bool {
        self.tax == "01"
    }

    /// Impuesto IVA, IGIC or absent: the taxes with a ClaveRegimen list.
    pub fn vat_or_igic(&self) -> bool {
        matches!(self.tax, "01" | "03")
    }

    pub fn qualified(&self, codes: &[&str]) -> bool {
        self.qualification.is_some_and(|q| codes.contains(&q))
    }

    pub fn exempt(&self, codes: &[&str]) -> bool {
        self.exemption.is_some_and(|e| codes.contains(&e))
    }

    pub fn regime_is(&self, code: &str) -> bool {
        self.regime == Some(code)
    }

    /// Has any of TipoImpositivo, CuotaRepercutida and the surcharge pair.
    pub fn has_any_tax_amount(&self) -> bool {
        self.rate.is_some()
            || self.vat.is_some()
            || self.surcharge_rate.is_some()
            || self.surcharge.is_some()
    }

    pub fn vat_or_zero(&self) -> Decimal {
        self.vat.unwrap_or_default()
    }

    pub fn surcharge_or_zero(&self) -> Decimal {
        self.surcharge.unwrap_or_default()
    }
}

/// `dd-mm-yyyy`, the only date form of the records.
pub fn date(text: &str) -> Option<NaiveDate> {
    (text.len() == 10)
        .then(|| NaiveDate::parse_from_str(text, "%d-%m-%Y").ok())
        .flatten()
}

/// The date `years` before `day` (29 February falls to the 28th).
pub fn years_before(day: NaiveDate, years: i32) -> NaiveDate {
    day.with_year(day.year() - years)
        .or_else(|| day.pred_opt().and_then(|d| d.with_year(d.year() - years)))
        .unwrap_or(day)
}

impl<'a> Record<'a> {
    pub fn is_cancellation(&self) -> bool {
        self.element.name == "RegistroAnulacion"
    }

    pub fn text(&self, path: &[&str]) -> Option<&'a str> {
        self.element.text_at(path)
    }

    pub fn has(&self, name: &str) -> bool {
        self.element.child(name).is_some()
    }

    /// The value of an S/N (or other) flag, when present.
    pub fn flag(&self, name: &str) -> Option<&'a str> {
        self.text(&[name])
    }

    pub fn flag_is(&self, name: &str, value: &str) -> bool {
        self.flag(name) == Some(value)
    }

    /// A flag that, when present, is not one of `allowed`.
    pub fn flag_outside(&self, name: &str, allowed: &[&str]) -> bool {
        self.flag(name).is_some_and(|v| !allowed.contains(&v))
    }

    /// IDFactura's three fields: issuer NIF, number, issue date (of the
    /// cancelled invoice in a RegistroAnulacion).
    pub fn id(&self, field: IdField) -> Option<&'a str> {
        let name = match (field, self.is_cancellation()) {
            (IdField::Issuer, false) => "IDEmisorFactura",
            (IdField::Number, false) => "NumSerieFactura",
            (IdField::Date, false) => "FechaExpedicionFactura",
            (IdField::Issuer, true) => "IDEmisorFacturaAnulada",
            (IdField::Number, true) => "NumSerieFacturaAnulada",
            (IdField::Date, true) => "FechaExpedicionFacturaAnulada",
        };
        self.text(&["IDFactura", name])
    }

    pub fn issue_date(&self) -> Option<NaiveDate> {
        self.id(IdField::Date).and_then(date)
    }

    pub fn operation_date(&self) -> Option<NaiveDate> {
        self.text(&["FechaOperacion"]).and_then(date)
    }

    /// FechaOperacion, or FechaExpedicionFactura when there is none: the
    /// date the rate windows are read at.
    pub fn tax_date(&self) -> Option<NaiveDate> {
        self.operation_date().or_else(|| self.issue_date())
    }

    pub fn kind(&self) -> &'a str {
        self.text(&["TipoFactura"]).unwrap_or_default()
    }

    pub fn kind_in(&self, kinds: &[&str]) -> bool {
        kinds.contains(&self.kind())
    }

    pub fn rectifying(&self) -> bool {
        self.kind_in(&["R1", "R2", "R3", "R4", "R5"])
    }

    pub fn amount(&self, name: &str) -> Option<Decimal> {
        self.text(&[name]).and_then(|t| t.parse().ok())
    }

    pub fn recipients(&self) -> Vec<&'a Element> {
        self.element.find_all(&["Destinatarios", "IDDestinatario"])
    }

    pub fn lines(&self) -> Vec<Line<'a>> {
        self.element
            .find_all(&["Desglose", "DetalleDesglose"])
            .into_iter()
            .map(|line| {
                let text = |name: &str| line.text_at(&[name]);
                let amount = |name: &str| text(name).and_then(|t| t.parse().ok());
                Line {
                    tax: text("Impuesto").unwrap_or("01"),
                    regime: text("ClaveRegimen"),
                    qualification: text("CalificacionOperacion"),
                    exemption: text("OperacionExenta"),
                    rate: amount("TipoImpositivo"),
                    base: amount("BaseImponibleOimporteNoSujeto"),
                    base_at_cost: amount("BaseImponibleACoste"),
                    vat: amount("CuotaRepercutida"),
                    surcharge_rate: amount("TipoRecargoEquivalencia"),
                    surcharge: amount("CuotaRecargoEquivalencia"),
                }
            })
            .collect()
    }

    pub fn any_line(&self, broken: impl Fn(&Line) -> bool) -> bool {
        self.lines().iter().any(broken)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdField {
    Issuer,
    Number,
    Date,
}
