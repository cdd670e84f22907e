//! `GET /dashboard/links/{id}`: one payment link with its fields and counts, its public
//! address in a read-only field to select and copy (no script needed), its QR code as inline
//! SVG, the "Deactivate" form while it is not deactivated, and its payments (the transactions
//! carrying its id, newest first, with the transactions list's paging). `POST
//! …/{id}/deactivate` stops it taking payments through `Links::deactivate`, once confirmed.
//! Another merchant's or environment's link, or anything that is no link id, is the 404 page.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use maud::{html, Markup, PreEscaped};
use qrcode::render::svg;
use qrcode::QrCode;

use super::super::layout::{self, money, when, Flash, Spec};
use super::super::pager;
use super::super::session::Ctx;
use super::super::transactions;
use crate::domain::{LinkId, PaymentLink, Timestamp, TransactionFilter};
use crate::service::{Links, Payments};
use crate::web::csrf::CsrfForm;

pub async fn show(
    State(links): State<Links>,
    State(payments): State<Payments>,
    ctx: Ctx,
    Path(id): Path<String>,
) -> Response {
    let flash = match ctx.visitor.query.get("created") {
        Some(_) => Flash::Done(ctx.t().link_created.to_owned()),
        None => Flash::None,
    };
    render(&links, &payments, &ctx, &id, StatusCode::OK, flash).await
}

/// The deactivation's form: `confirm` ticked.
#[derive(serde::Deserialize)]
pub struct ConfirmForm {
    confirm: Option<String>,
}

pub async fn deactivate(
    State(links): State<Links>,
    State(payments): State<Payments>,
    Path(id): Path<String>,
    CsrfForm { ctx, form }: CsrfForm<ConfirmForm>,
) -> Response {
    let t = ctx.t();
    let Some(link_id) = LinkId::parse(&id) else {
        return layout::not_found(ctx.lang());
    };
    if form.confirm.as_deref().map(str::trim) != Some("yes") {
        let flash = Flash::Failed(t.deactivate_confirm_missing.to_owned());
        return render(&links, &payments, &ctx, &id, StatusCode::BAD_REQUEST, flash).await;
    }
    if let Err(e) = links.deactivate(&ctx.session.tenant, &link_id, Timestamp::now()).await {
        return layout::service_error(ctx.lang(), e);
    }
    let flash = Flash::Done(t.link_deactivated_done.to_owned());
    render(&links, &payments, &ctx, &id, StatusCode::OK, flash).await
}

/// The page of link `id` answered with `status`, `flash` at its top.
async fn render(links: &Links, payments: &Payments, ctx: &Ctx, id: &str, status: StatusCode, flash: Flash) -> Response {
    let Some(id) = LinkId::parse(id) else {
        return layout::not_found(ctx.lang());
    };
    let tenant = &ctx.session.tenant;
    let link = match links.link(tenant, &id).await {
        Ok(link) => link,
        Err(e) => return layout::service_error(ctx.lang(), e),
    };
    let filter = TransactionFilter {
        link: Some(id),
        ..TransactionFilter::default()
    };
    let (records, next) = match transactions::filtered_page(payments, ctx, &filter).await {
        Ok(found) => found,
        Err(e) => return layout::service_error(ctx.lang(), e),
    };
    let path = super::path(&link);
    let spec = Spec {
        title: &link.terms.description,
        main_id: "page-link",
        path: &path,
    };
    let url = links.url(&link.id);
    let body = html! {
        (facts(ctx, &link))
        (share(ctx, &url))
        @if link.deactivated_at.is_none() { (deactivate_form(ctx, &path)) }
        h2 #link-payments-heading { (ctx.t().link_payments) }
        (transactions::table(ctx.t(), &records))
        (pager::next_page(ctx.t(), &path, "", next.as_ref()))
    };
    layout::answer(ctx, status, spec, flash, body)
}

fn facts(ctx: &Ctx, link: &PaymentLink) -> Markup {
    let t = ctx.t();
    let (state, said) = super::state(t, link, Timestamp::now());
    let operators: Vec<&str> = link.terms.operators.iter().map(|o| o.v1_code()).collect();
    html! {
        dl.facts {
            dt { (t.link_state) } dd #link-state data-state=(state) { (said) }
            @if let Some(at) = link.deactivated_at {
                dt { (t.deactivated_on) } dd #link-deactivated-at { (when(at)) }
            }
            dt { (t.transaction_id) } dd #link-id { (link.id) }
            dt { (t.description) } dd #link-description { (link.terms.description) }
            dt { (t.amount) } dd #link-amount { (super::amount(link)) }
            dt { (t.link_usage) }
            dd #link-usage {
                @match link.terms.max_payments {
                    Some(1) => (t.link_once),
                    Some(n) => { (t.link_reusable) " · " (t.link_max_payments) (t.colon) " " (n) },
                    None => (t.link_reusable),
                }
            }
            dt { (t.link_expires) }
            dd #link-expires { @if let Some(at) = link.terms.expires_at { (when(at)) } @else { (t.link_never) } }
            dt { (t.link_operators) } dd #link-operators { (operators.join(", ")) }
            @if let Some(url) = &link.terms.success_url { dt { (t.link_success_url) } dd #link-success-url { (url) } }
            @if let Some(url) = &link.terms.error_url { dt { (t.link_error_url) } dd #link-error-url { (url) } }
            dt { (t.payments_successful) } dd #link-paid { (link.paid) }
            dt { (t.payments_pending) } dd #link-pending { (link.pending()) }
            dt { (t.collected) } dd #link-collected { (money(link.collected.get())) }
            dt { (t.link_created_at) } dd { (when(link.created_at)) }
        }
    }
}

/// The address to copy, and its QR code.
fn share(ctx: &Ctx, url: &str) -> Markup {
    let t = ctx.t();
    html! {
        section #link-share {
            div.field {
                label for="link-url" { (t.link_url) }
                input #link-url type="text" value=(url) readonly spellcheck="false" autocomplete="off"
                    aria-describedby="link-url-hint";
                p.hint #link-url-hint { (t.link_url_hint) }
            }
            p { a #link-open href=(url) { (t.link_open) } }
            h2 #qr-heading { (t.qr_code) }
            @if let Some(svg) = qr_svg(url) { div.qr { (svg) } }
            p.hint { (t.qr_hint) }
        }
    }
}

/// `url`'s QR code as inline SVG named by the heading above it (`None` only for an address
/// too long for a QR code, which a link's never is).
fn qr_svg(url: &str) -> Option<Markup> {
    let code = QrCode::new(url.as_bytes()).ok()?;
    let image = code
        .render::<svg::Color>()
        .module_dimensions(6, 6)
        .dark_color(svg::Color("#000"))
        .light_color(svg::Color("#fff"))
        .quiet_zone(true)
        .build();
    // The crate writes a whole document: keep the `<svg>` element, and name it.
    let element = &image[image.find("<svg ")? + "<svg ".len()..];
    Some(PreEscaped(format!(
        "<svg id=\"link-qr\" role=\"img\" aria-labelledby=\"qr-heading\" {element}"
    )))
}

/// "Deactivate": a confirmation, then the button.
fn deactivate_form(ctx: &Ctx, path: &str) -> Markup {
    let t = ctx.t();
    html! {
        section #deactivate-section aria-labelledby="deactivate-heading" {
            h2 #deactivate-heading { (t.deactivate_heading) }
            p.hint #deactivate-hint { (t.deactivate_hint) }
            form #deactivate method="post" action={ (path) "/deactivate" } {
                input type="hidden" name="csrf_token" value=(ctx.csrf);
                div.field.check {
                    input #deactivate-confirm type="checkbox" name="confirm" value="yes" required
                        aria-describedby="deactivate-hint";
                    label for="deactivate-confirm" { (t.deactivate_confirm) }
                }
                button #deactivate-submit type="submit" { (t.deactivate_submit) }
            }
        }
    }
}
