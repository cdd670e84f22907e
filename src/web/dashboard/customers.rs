//! `GET /dashboard/customers` (newest first, cursor paging) and
//! `GET /dashboard/customers/{id}`: one customer with their transactions (those paid from or to
//! their phone number).

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::html;

use super::layout::Column::Plain;
use super::layout::{self, segment, table_head, when, Flash, Spec};
use super::pager;
use super::session::Ctx;
use super::transactions;
use crate::domain::{CustomerId, PageRequest, TransactionFilter};
use crate::service::{Customers, Payments};

pub async fn list(State(customers): State<Customers>, ctx: Ctx) -> Response {
    let tenant = &ctx.session.tenant;
    let (customers, next) = match pager::read(&ctx, async |page| customers.customers(tenant, page).await).await {
        Ok(found) => found,
        Err(e) => return layout::service_error(ctx.lang(), e),
    };
    let t = ctx.t();
    let body = html! {
        div.table-wrap {
            table #customers {
                (table_head(&[Plain(t.name), Plain(t.phone), Plain(t.email), Plain(t.created_at)]))
                tbody {
                    @for c in &customers {
                        tr data-customer-id=(c.id) {
                            td { a href={ "/dashboard/customers/" (segment(&c.id)) } { (c.first_name) " " (c.last_name) } }
                            td { (c.phone.as_str()) }
                            td { (c.email.as_deref().unwrap_or("")) }
                            td { (when(c.created_at)) }
                        }
                    }
                }
            }
        }
        @if customers.is_empty() { p #no-customers { (t.no_customers) } }
        (pager::next_page(t, "/dashboard/customers", "", next.as_ref()))
    };
    let spec = Spec {
        title: t.customers,
        main_id: "page-customers",
        path: "/dashboard/customers",
    };
    layout::answer(&ctx, StatusCode::OK, spec, Flash::None, body)
}

pub async fn show(
    State(customers): State<Customers>,
    State(payments): State<Payments>,
    ctx: Ctx,
    Path(id): Path<String>,
) -> Response {
    let tenant = &ctx.session.tenant;
    let customer = match customers.customer(tenant, &CustomerId::from(id)).await {
        Ok(customer) => customer,
        Err(e) => return layout::service_error(ctx.lang(), e),
    };
    let filter = TransactionFilter {
        phone: Some(customer.phone.clone()),
        ..TransactionFilter::default()
    };
    let page = PageRequest {
        limit: 100,
        after: None,
    };
    let records = match payments.transactions(tenant, &filter, &page).await {
        Ok(records) => records,
        Err(e) => return layout::service_error(ctx.lang(), e),
    };
    let t = ctx.t();
    let name = format!("{} {}", customer.first_name, customer.last_name);
    let path = format!("/dashboard/customers/{}", segment(&customer.id));
    let address = [
        customer.address.street_address.as_deref(),
        customer.address.city.as_deref(),
        Some(customer.address.country_code.as_str()),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(", ");
    let body = html! {
        dl.facts #customer data-customer-id=(customer.id) {
            dt { (t.phone) } dd #customer-phone { (customer.phone.as_str()) }
            dt { (t.email) } dd { (customer.email.as_deref().unwrap_or("—")) }
            dt { (t.address) } dd { (address) }
            dt { (t.created_at) } dd { (when(customer.created_at)) }
        }
        h2 { (t.customer_transactions) }
        (transactions::table(t, &records))
        p { a href={ "/dashboard/transactions?phone=" (segment(customer.phone.as_str())) } { (t.nav_transactions) " →" } }
    };
    let spec = Spec {
        title: &name,
        main_id: "page-customer",
        path: &path,
    };
    layout::answer(&ctx, StatusCode::OK, spec, Flash::None, body)
}
