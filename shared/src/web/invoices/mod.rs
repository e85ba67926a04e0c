//! Invoices on the web: the list with its filters, one invoice (lines,
//! totals, VERI*FACTU status and answer, history, PDF preview and
//! downloads), issuing (`form.rs`), and the actions on an issued invoice
//! (`actions.rs`). Every operation is the REST one, run in-process as the
//! signed-in account (`web::rest`), in the mode the page shows (`?mode=`).

mod actions;
mod form;
mod list;
mod show;

use axum::Router;
use axum::routing::{get, post};

use crate::domain::lang::Lang;
use crate::http::AppState;

use super::text;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/invoices", get(list::list))
        .route("/invoices/new", get(form::blank).post(form::submit))
        .route("/invoices/{id}", get(show::show))
        .route("/invoices/{id}/pdf", get(show::pdf))
        .route("/invoices/{id}/xml", get(show::xml))
        .route("/invoices/{id}/status", post(actions::set_status))
        .route("/invoices/{id}/cancel", post(actions::cancel))
        .route("/invoices/{id}/rectify", post(actions::rectify))
        .route("/invoices/{id}/resubmit", post(actions::resubmit))
        .route("/invoices/{id}/send", post(actions::send))
}

/// An invoice status in the page's language.
fn status_name(lang: Lang, status: &str) -> String {
    let name = match status {
        "issued" => lang.pick("emitida", "issued"),
        "accepted" => lang.pick("aceptada", "accepted"),
        "rejected" => lang.pick("rechazada", "rejected"),
        "paid" => lang.pick("pagada", "paid"),
        "unpaid" => lang.pick("impagada", "unpaid"),
        "cancelled" => lang.pick("anulada", "cancelled"),
        other => other,
    };
    name.to_string()
}
