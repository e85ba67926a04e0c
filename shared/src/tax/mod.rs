//! Spanish tax rules: pure, one file per concern.

pub mod nif;
