//! The customers group: the address book.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::ApiError;
use super::json::ApiJson;
use super::pagination::{List, ListQuery, NoFilters, PageParams};
use super::state::AppState;
use super::unit_of_work::UnitOfWork;
use crate::app::customers::{self, Customer, CustomerError, CustomerFields};
use crate::app::keys::Caller;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_customers, create_customer))
        .routes(routes!(get_customer, update_customer, delete_customer))
}

impl From<CustomerError> for ApiError {
    fn from(e: CustomerError) -> Self {
        match e {
            CustomerError::Invalid(p) => {
                ApiError::invalid("parameter_invalid", p.message).param(p.field)
            }
            CustomerError::NotFound(id) => ApiError::not_found(format!("no customer {id}")),
            CustomerError::Duplicate(existing) => ApiError::conflict(
                "customer_exists",
                format!("a customer with this tax id already exists: {existing}"),
            )
            .param("tax_id"),
            CustomerError::Storage(t) => t.into(),
        }
    }
}

/// List customers
///
/// Newest first.
#[utoipa::path(get, path = "/api/v1/customers", tag = "customers", operation_id = "list_customers", params(PageParams),
    responses((status = 200, description = "A page of customers", body = List<Customer>)))]
async fn list_customers(
    State(state): State<AppState>,
    caller: Caller,
    ListQuery { page, .. }: ListQuery<NoFilters>,
) -> Result<Json<List<Customer>>, ApiError> {
    let (data, has_more) = customers::list(
        &state.ports,
        &caller,
        page.limit,
        page.starting_after.as_deref(),
    )
    .await?;
    Ok(Json(List::new(data, has_more)))
}

/// Create a customer
///
/// The tax id is checked (Spanish NIF/NIE/CIF when the country is ES) and
/// unique in the address book: a second customer with the same one is 409
/// `customer_exists`, naming the existing customer.
#[utoipa::path(post, path = "/api/v1/customers", tag = "customers", operation_id = "create_customer",
    request_body = CustomerFields, responses((status = 201, description = "The new customer", body = Customer)))]
async fn create_customer(
    State(state): State<AppState>,
    caller: Caller,
    uow: UnitOfWork,
    ApiJson(fields): ApiJson<CustomerFields>,
) -> Result<(StatusCode, Json<Customer>), ApiError> {
    let (customer, writes) = customers::create(&state.ports, &caller, fields).await?;
    uow.extend(writes);
    Ok((StatusCode::CREATED, Json(customer)))
}

/// Get a customer
#[utoipa::path(get, path = "/api/v1/customers/{id}", tag = "customers", operation_id = "get_customer",
    params(("id" = String, Path, description = "cus_…")),
    responses((status = 200, description = "The customer", body = Customer)))]
async fn get_customer(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<Customer>, ApiError> {
    Ok(Json(customers::get(&state.ports, &caller, &id).await?))
}

/// Update a customer
///
/// Changes the fields sent; issued invoices keep their own copy of the customer.
#[utoipa::path(patch, path = "/api/v1/customers/{id}", tag = "customers", operation_id = "update_customer",
    params(("id" = String, Path, description = "cus_…")), request_body = CustomerFields,
    responses((status = 200, description = "The updated customer", body = Customer)))]
async fn update_customer(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    ApiJson(fields): ApiJson<CustomerFields>,
) -> Result<Json<Customer>, ApiError> {
    Ok(Json(
        customers::update(&state.ports, &caller, &id, fields).await?,
    ))
}

/// Delete a customer
///
/// Invoices issued to the customer stay intact.
#[utoipa::path(delete, path = "/api/v1/customers/{id}", tag = "customers", operation_id = "delete_customer",
    params(("id" = String, Path, description = "cus_…")),
    responses((status = 200, description = "The deleted customer", body = Customer)))]
async fn delete_customer(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<Customer>, ApiError> {
    Ok(Json(customers::delete(&state.ports, &caller, &id).await?))
}
