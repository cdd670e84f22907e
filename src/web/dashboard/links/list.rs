//! `GET /dashboard/links`: the tenant's payment links, newest first, fifty a page with the
//! same cursor paging as the transactions list; each with its amount, state, payments
//! (successful / pending), what it collected and when it was made.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use maud::html;

use super::super::layout::Column::{Num, Plain};
use super::super::layout::{self, money, table_head, when, Flash, Spec};
use super::super::pager;
use super::super::session::Ctx;
use crate::domain::Timestamp;
use crate::service::Links;

pub async fn list(State(links): State<Links>, ctx: Ctx) -> Response {
    let (found, next) = match pager::read(&ctx, async |page| links.links(&ctx.session.tenant, page).await).await {
        Ok(found) => found,
        Err(e) => return layout::service_error(ctx.lang(), e),
    };
    let t = ctx.t();
    let now = Timestamp::now();
    let body = html! {
        p.hint #links-intro { (t.links_intro) }
        div.actions { a.button #new-link href="/dashboard/links/new" { (t.new_link) } }
        @if found.is_empty() {
            p #no-links { (t.no_links) }
        } @else {
            div.table-wrap {
                table #links aria-describedby="links-latest" {
                    (table_head(&[Plain(t.description), Num(t.amount), Plain(t.link_state), Num(t.link_payments_count), Num(t.collected), Plain(t.link_created_at)]))
                    tbody {
                        @for link in &found {
                            @let (state, said) = super::state(t, link, now);
                            tr data-link-id=(link.id) {
                                td { a href=(super::path(link)) { (link.terms.description) } }
                                td.num.amount { (super::amount(link)) }
                                td.state data-state=(state) { (said) }
                                td.num.payments { (link.paid) " / " (link.pending()) }
                                td.num.collected { (money(link.collected.get())) }
                                td { (when(link.created_at)) }
                            }
                        }
                    }
                }
            }
            p.hint #links-latest { (t.links_latest) }
        }
        (pager::next_page(t, "/dashboard/links", "", next.as_ref()))
    };
    let spec = Spec {
        title: t.nav_links,
        main_id: "page-links",
        path: "/dashboard/links",
    };
    layout::answer(&ctx, StatusCode::OK, spec, Flash::None, body)
}
