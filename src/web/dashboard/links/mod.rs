//! Payment links in the dashboard (issue 32, docs/dashboard.md): the tenant's links
//! (`list.rs`), the form that makes one (`form.rs`), and a link's page with its address, its
//! QR code, its payments and the "Deactivate" form (`page.rs`). Everything goes through the
//! `Links` use cases, as the API's `/v1|v2/payment-links` do.

pub mod form;
pub mod list;
pub mod page;

use crate::domain::{LinkAmount, LinkClosed, PaymentLink, Timestamp};

use super::i18n::Text;
use super::layout::money;

/// A link's amount: `5 000 F CFA`, or its bounds `1 000 F CFA – 9 000 F CFA`.
pub fn amount(link: &PaymentLink) -> String {
    match link.terms.amount {
        LinkAmount::Fixed(francs) => money(francs),
        LinkAmount::Open { min, max } => format!("{} – {}", money(min), money(max)),
    }
}

/// Whether a link takes payments at `now`: its `data-state` and its words.
pub fn state(t: &Text, link: &PaymentLink, now: Timestamp) -> (&'static str, &'static str) {
    match link.open_at(now) {
        Ok(()) => ("active", t.link_active),
        Err(LinkClosed::Deactivated) => ("deactivated", t.link_deactivated),
        Err(LinkClosed::Expired) => ("expired", t.link_expired),
        Err(LinkClosed::Exhausted) => ("exhausted", t.link_exhausted),
        Err(LinkClosed::Busy) => ("busy", t.link_busy),
    }
}

/// `/dashboard/links/{id}`.
pub fn path(link: &PaymentLink) -> String {
    format!("/dashboard/links/{}", link.id)
}
