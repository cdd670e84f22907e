//! `GET /dashboard/links`: the tenant's payment links, newest first, fifty a page with the
//! same cursor paging as the transactions list; each with its amount, state, payments
//! (successful / pending), what it collected and when it was made.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use maud::html;

use super::super::layout::{self, money, segment, when, Flash, Spec};
use super::super::session::Ctx;
use super::super::transactions;
use crate::domain::page::split_page;
use crate::domain::{Cursor, Timestamp};
use crate::service::Links;

pub async fn list(State(links): State<Links>, ctx: Ctx) -> Response {
    let page = transactions::page_after(&ctx);
    let found = match links.links(&ctx.session.tenant, &page).await {
        Ok(found) => found,
        Err(e) => return layout::service_error(ctx.lang(), e),
    };
    let (found, next) = split_page(found, &page, |l| Cursor {
        created_at: l.created_at,
        id: l.id.to_string(),
    });
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
                    thead { tr {
                        th scope="col" { (t.description) }
                        th.num scope="col" { (t.amount) }
                        th scope="col" { (t.link_state) }
                        th.num scope="col" { (t.link_payments_count) }
                        th.num scope="col" { (t.collected) }
                        th scope="col" { (t.link_created_at) }
                    } }
                    tbody {
                        @for link in &found {
                            @let (state, said) = super::state(t, link, now);
                            tr data-link-id=(link.id) {
                                td { a href=(super::path(link)) { (link.description) } }
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
        @if let Some(next) = next {
            p { a #next-page href={ "/dashboard/links?cursor=" (segment(&next.encode())) } { (t.next_page) " →" } }
        }
    };
    let spec = Spec {
        title: t.nav_links,
        main_id: "page-links",
        path: "/dashboard/links",
    };
    layout::answer(&ctx, StatusCode::OK, spec, Flash::None, body)
}
