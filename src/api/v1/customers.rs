//! v1 customers: `POST /v1/customer` (and `/v1/customers/create`), `GET /v1/customer/{id}`
//! (and `/v1/customers/fetch-data/{id}`), `GET /v1/customers`.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use serde::{Deserialize, Serialize};

use super::{envelope, Error};
use crate::api::auth::Authenticated;
use crate::api::error::ApiError;
use crate::api::extract::{JsonBody, PathId, QueryParams};
use crate::api::pagination::{with_next_cursor, PageParams};
use crate::domain::page::split_page;
use crate::domain::{self, CustomerId, Email, Msisdn, NewCustomer, PersonName, Timestamp};
use crate::service::Customers;

/// An address as v1 sends it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AddressIn {
    pub country_code: String,
    pub city: Option<String>,
    pub street_address: Option<String>,
}

impl AddressIn {
    pub fn parse(&self, field: &str) -> Result<domain::Address, ApiError> {
        domain::Address::parse(&self.country_code, self.city.as_deref(), self.street_address.as_deref())
            .map_err(|e| ApiError::bad_request(format!("{field}.{e}")))
    }
}

/// The body of a customer creation. The reference's table names the address `Address`, its
/// samples send `address`: both are accepted.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateCustomer {
    pub first_name: String,
    pub last_name: String,
    pub email: String,
    pub phone_number: String,
    #[serde(alias = "Address")]
    pub address: AddressIn,
}

impl CreateCustomer {
    pub(crate) fn parse(&self) -> Result<NewCustomer, ApiError> {
        let bad = |field: &str, why: &dyn std::fmt::Display| ApiError::bad_request(format!("{field} {why}"));
        Ok(NewCustomer {
            first_name: PersonName::parse(&self.first_name).map_err(|e| bad("firstName", &e))?,
            last_name: PersonName::parse(&self.last_name).map_err(|e| bad("lastName", &e))?,
            email: Some(Email::parse(&self.email).map_err(|e| bad("email", &e))?),
            phone: Msisdn::parse(&self.phone_number).map_err(|e| bad("phoneNumber", &e))?,
            address: self.address.parse("address")?,
        })
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AddressOut<'a> {
    pub country_code: &'a str,
    pub city: Option<&'a str>,
    pub street_address: Option<&'a str>,
}

/// A customer record as v1 shows it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomerOut<'a> {
    pub id: &'a str,
    pub last_name: &'a str,
    pub first_name: &'a str,
    pub email: Option<&'a str>,
    pub phone_number: &'a str,
    pub address: AddressOut<'a>,
    pub created_at: String,
}

impl<'a> From<&'a domain::Customer> for CustomerOut<'a> {
    fn from(c: &'a domain::Customer) -> Self {
        CustomerOut {
            id: &c.id,
            last_name: &c.last_name,
            first_name: &c.first_name,
            email: c.email.as_deref(),
            phone_number: c.phone.as_str(),
            address: AddressOut {
                country_code: &c.address.country_code,
                city: c.address.city.as_deref(),
                street_address: c.address.street_address.as_deref(),
            },
            created_at: c.created_at.iso8601_millis(),
        }
    }
}

pub async fn create(
    State(customers): State<Customers>,
    Authenticated(caller): Authenticated,
    JsonBody(body): JsonBody<CreateCustomer>,
) -> Result<Response, Error> {
    let new = body.parse()?;
    let customer = customers.create_customer(&caller.tenant, new, Timestamp::now()).await?;
    Ok(envelope::success(StatusCode::OK, CustomerOut::from(&customer)))
}

pub async fn fetch(
    State(customers): State<Customers>,
    Authenticated(caller): Authenticated,
    PathId(id): PathId,
) -> Result<Response, Error> {
    let customer = customers.customer(&caller.tenant, &CustomerId::from(id)).await?;
    Ok(envelope::success(StatusCode::OK, CustomerOut::from(&customer)))
}

pub async fn list(
    State(customers): State<Customers>,
    Authenticated(caller): Authenticated,
    QueryParams(params): QueryParams<PageParams>,
) -> Result<Response, Error> {
    let page = params.page_request()?;
    let customers = customers.customers(&caller.tenant, &page).await?;
    let (customers, next) = split_page(customers, &page);
    let body: Vec<CustomerOut> = customers.iter().map(CustomerOut::from).collect();
    Ok(with_next_cursor(envelope::success(StatusCode::OK, body), next))
}
