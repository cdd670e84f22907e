//! The cursor paging of the dashboard's lists (the API's list machinery): fifty rows a page,
//! newest first, `?cursor=` for the page after, and the link to it.

use maud::{html, Markup};

use super::i18n::Text;
use super::layout::segment;
use super::session::Ctx;
use crate::domain::page::split_page;
use crate::domain::{Cursor, PageRequest, Paged};
use crate::service::ServiceError;

/// Rows per page, in every list.
const PAGE_SIZE: u32 = 50;

/// The page a list's `?cursor=` asks for, with one row more than it shows to tell whether a
/// next page follows.
pub fn page_after(ctx: &Ctx) -> PageRequest {
    PageRequest {
        limit: PAGE_SIZE + 1,
        after: ctx
            .visitor
            .query
            .get("cursor")
            .and_then(|raw| Cursor::decode(raw.trim())),
    }
}

/// The rows `fetch` finds on the page `?cursor=` asks for, and the cursor of the page after.
pub async fn read<T: Paged>(
    ctx: &Ctx,
    fetch: impl AsyncFnOnce(&PageRequest) -> Result<Vec<T>, ServiceError>,
) -> Result<(Vec<T>, Option<Cursor>), ServiceError> {
    let page = page_after(ctx);
    let rows = fetch(&page).await?;
    Ok(split_page(rows, &page))
}

/// The link to the next page, if there is one: the list at `path`, with its `filters` (a
/// query string, empty for none) kept.
pub fn next_page(t: &Text, path: &str, filters: &str, next: Option<&Cursor>) -> Markup {
    html! {
        @if let Some(next) = next {
            p { a #next-page href={ (path) "?" (filters) @if !filters.is_empty() { "&" } "cursor=" (segment(&next.encode())) } {
                (t.next_page) " →"
            } }
        }
    }
}
