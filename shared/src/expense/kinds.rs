//! The codes of a received invoice: its category, its VAT treatment, where
//! it came from and whether it counts yet.

use rust_decimal::Decimal;
use rust_decimal::dec;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// What the expense was for. It sets the default deductible shares and, for
/// IRPF withheld by the account, the return that declares it (`rent`:
/// Modelo 115; any other: Modelo 111).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = ExpenseCategory)]
pub enum Category {
    /// Goods bought for resale and raw materials.
    Goods,
    /// Electricity, water, gas.
    Supplies,
    /// Premises and offices (withholding: Modelo 115).
    Rent,
    /// Cars and motorcycles, their fuel, parking, tolls and repairs: VAT 50 %
    /// deductible by default (LIVA art. 95.Tres presumes half business use).
    Vehicle,
    /// Transport and hotels.
    Travel,
    /// Restaurants and meals (LIVA art. 96: VAT deductible only when the
    /// expense is deductible for IRPF).
    Meals,
    /// Advisers, lawyers, freelancers (withholding: Modelo 111).
    ProfessionalServices,
    Software,
    /// Phone and internet.
    Telecom,
    Insurance,
    Training,
    Marketing,
    /// Bank and payment fees (usually exempt: no VAT).
    BankFees,
    /// Equipment and other investment goods (see `capital_good`).
    Equipment,
    Other,
}

impl Category {
    pub const ALL: [Category; 15] = [
        Category::Goods,
        Category::Supplies,
        Category::Rent,
        Category::Vehicle,
        Category::Travel,
        Category::Meals,
        Category::ProfessionalServices,
        Category::Software,
        Category::Telecom,
        Category::Insurance,
        Category::Training,
        Category::Marketing,
        Category::BankFees,
        Category::Equipment,
        Category::Other,
    ];

    pub fn code(self) -> &'static str {
        match self {
            Category::Goods => "goods",
            Category::Supplies => "supplies",
            Category::Rent => "rent",
            Category::Vehicle => "vehicle",
            Category::Travel => "travel",
            Category::Meals => "meals",
            Category::ProfessionalServices => "professional_services",
            Category::Software => "software",
            Category::Telecom => "telecom",
            Category::Insurance => "insurance",
            Category::Training => "training",
            Category::Marketing => "marketing",
            Category::BankFees => "bank_fees",
            Category::Equipment => "equipment",
            Category::Other => "other",
        }
    }

    pub fn parse(code: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.code() == code)
    }

    /// The deductible share of VAT when the request gives none.
    pub fn default_vat_share(self) -> Decimal {
        match self {
            Category::Vehicle => dec!(50),
            _ => dec!(100),
        }
    }
}

/// How VAT applies to the purchase, which decides the Modelo 303 boxes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = ExpenseTreatment)]
pub enum Treatment {
    /// A Spanish supplier charged the VAT: deducted in boxes 28/29 (30/31
    /// for capital goods).
    #[default]
    Domestic,
    /// Goods from another EU state: the account self-assesses the VAT (boxes
    /// 10/11) and deducts it (36/37; 38/39 for capital goods).
    IntraEuGoods,
    /// Services from another EU state: self-assessed in 10/11, deducted in
    /// 36/37 (38/39), as the 2026 form's "adquisiciones intracomunitarias de
    /// bienes y servicios".
    IntraEuServices,
    /// Spanish reverse charge (LIVA art. 84.Uno.2º: construction works,
    /// scrap, gold …): self-assessed in 12/13, deducted in 28/29 (30/31).
    ReverseCharge,
    /// An import: the VAT paid at customs (the DUA), deducted in 32/33
    /// (34/35 for capital goods).
    Import,
    /// Services from a supplier established outside the EU (LIVA arts.
    /// 69.Uno.1º and 84.Uno.2º.a): self-assessed in 12/13, deducted in 28/29
    /// (30/31).
    NonEuServices,
}

impl Treatment {
    /// The account, not the supplier, states the VAT: the invoice charges none.
    pub fn self_assessed(self) -> bool {
        matches!(
            self,
            Treatment::IntraEuGoods
                | Treatment::IntraEuServices
                | Treatment::ReverseCharge
                | Treatment::NonEuServices
        )
    }
}

/// Where the expense's figures came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = ExpenseSource)]
pub enum Source {
    /// Typed by hand.
    Typed,
    /// From `POST /api/v1/invoices/extract`, as the client sent it back.
    Extraction,
    /// Read exactly from the e-invoice sent as the document.
    Einvoice,
    /// Imported from the records suppliers registered with the AEAT.
    Aeat,
}

/// A confirmed expense counts in the tax figures; a draft (an import from
/// the AEAT) waits to be confirmed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = ExpenseStatus)]
pub enum Status {
    Confirmed,
    Draft,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_category_reads_back_from_its_code_and_serialises_as_it() {
        for c in Category::ALL {
            assert_eq!(Category::parse(c.code()), Some(c));
            assert_eq!(serde_json::to_value(c).unwrap(), c.code());
        }
        assert_eq!(Category::parse("food"), None);
    }

    #[test]
    fn only_vehicles_default_to_half_the_vat() {
        assert_eq!(Category::Vehicle.default_vat_share(), dec!(50));
        assert_eq!(Category::Software.default_vat_share(), dec!(100));
    }
}
