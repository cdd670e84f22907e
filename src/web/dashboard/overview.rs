//! `GET /dashboard`: balances, today's and the last seven days' volume, the success rate per
//! operator, and a bar chart of the seven days drawn on the server as inline SVG.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use maud::{html, Markup};

use super::i18n::Text;
use super::layout::Column::{Num, Plain};
use super::layout::{self, money, table_head, Flash, Spec};
use super::session::Ctx;
use crate::domain::Timestamp;
use crate::service::activity::{Volume, CHART_DAYS};
use crate::service::{Dashboard, Overview};

const DAY_MS: i64 = 86_400_000;

pub async fn show(State(dashboard): State<Dashboard>, ctx: Ctx) -> Response {
    let now = Timestamp::now();
    let overview = match dashboard.overview(&ctx.session.tenant, now).await {
        Ok(overview) => overview,
        Err(e) => return layout::service_error(ctx.lang(), e),
    };
    let t = ctx.t();
    let spec = Spec {
        title: t.nav_overview,
        main_id: "page-overview",
        path: "/dashboard",
    };
    layout::answer(&ctx, StatusCode::OK, spec, Flash::None, body(&ctx, &overview, now))
}

fn volume(t: &Text, v: Volume) -> Markup {
    let word = if v.count == 1 {
        t.transaction_count_one
    } else {
        t.transactions_count
    };
    html! { span.figure { (money(v.amount.get())) } span { (v.count) " " (word) } }
}

fn body(ctx: &Ctx, o: &Overview, now: Timestamp) -> Markup {
    let t = ctx.t();
    html! {
        div.cards {
            div.card { (t.balance_available) span.figure #balance-available { (money(o.balance.available.get())) } }
            div.card { (t.balance_reserved) span.figure #balance-reserved { (money(o.balance.reserved.get())) } }
            div.card #volume-today data-count=(o.today.count) data-amount=(o.today.amount) {
                (t.volume_today) (volume(t, o.today))
            }
            div.card #volume-7d data-count=(o.last_7_days.count) data-amount=(o.last_7_days.amount) {
                (t.volume_7d) (volume(t, o.last_7_days))
            }
        }
        h2 #chart-title { (t.chart_7d) }
        (chart(o, now, t.chart_7d))
        h2 { (t.success_by_operator) }
        div.table-wrap {
            table #operator-success {
                (table_head(&[Plain(t.operator), Num(t.successful), Num(t.finished), Num(t.success_rate)]))
                tbody {
                    @for s in &o.operators {
                        tr data-operator=(s.operator.name()) {
                            th scope="row" { (s.operator.v1_code()) }
                            td.num { (s.successful) }
                            td.num { (s.finished) }
                            td.num.rate {
                                @if s.finished > 0 {
                                    (format!("{:.1}\u{202f}%", 100.0 * s.successful as f64 / s.finished as f64).replace('.', &t.decimal.to_string()))
                                } @else { "—" }
                            }
                        }
                    }
                }
            }
        }
        @if o.operators.is_empty() { p #no-operator-data { (t.no_data) } }
    }
}

/// `MM-DD` of the day `days_ago` before `now`'s (UTC).
fn day_label(now: Timestamp, days_ago: i64) -> String {
    let iso = Timestamp(now.millis() - days_ago * DAY_MS).iso8601_millis();
    iso.get(5..10).unwrap_or("").to_owned()
}

/// Seven bars, one per day, scaled to the busiest day; each bar has its own title (amount and
/// count), and the whole chart a title and description for screen readers.
fn chart(o: &Overview, now: Timestamp, title: &str) -> Markup {
    const HEIGHT: i64 = 120;
    const BAR: i64 = 36;
    const STEP: i64 = 50;
    let max = o.days.iter().map(|d| d.amount.get()).max().unwrap_or(0).max(1);
    let width = STEP * CHART_DAYS as i64;
    html! {
        svg #chart-7d xmlns="http://www.w3.org/2000/svg" role="img" aria-labelledby="chart-7d-title"
            viewBox={ "0 0 " (width) " " (HEIGHT + 40) } {
            title #chart-7d-title { (title) }
            line x1="0" y1=(HEIGHT) x2=(width) y2=(HEIGHT) stroke="#5b6b7b" stroke-width="1" {}
            @for (i, day) in o.days.iter().enumerate() {
                @let h = day.amount.get() * HEIGHT / max;
                @let x = i as i64 * STEP + (STEP - BAR) / 2;
                @let label = day_label(now, (CHART_DAYS - 1 - i) as i64);
                g data-day=(label) data-amount=(day.amount) data-count=(day.count) {
                    title { (label) " — " (money(day.amount.get())) " (" (day.count) ")" }
                    rect x=(x) y=(HEIGHT - h) width=(BAR) height=(h) fill="#0b4f8a" {}
                    text x=(x + BAR / 2) y=(HEIGHT + 16) text-anchor="middle" font-size="12" fill="#1a1a1a" { (label) }
                    text x=(x + BAR / 2) y=(HEIGHT + 32) text-anchor="middle" font-size="11" fill="#1a1a1a" { (day.count) }
                }
            }
        }
    }
}
