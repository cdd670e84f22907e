//! The requests of the HTTP hot paths, as the scenarios send them (c, d and e; h again, with and
//! without a backlog).

use std::sync::Arc;

use serde_json::json;

/// `POST /v1/collecte/mobile-money` with a fresh transaction id per request
/// (`{scenario}{task}x{i}`), answered with that id.
pub fn collection(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    scenario: &'static str,
    ending: &'static str,
) -> impl Fn(usize, u64) -> (reqwest::RequestBuilder, Option<String>) + Send + Sync + Clone + 'static {
    collection_from(client, base, token, scenario, ending, 0)
}

/// [`collection`], its payers' numbers shifted by `shift`: another load's payers.
pub fn collection_from(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    scenario: &'static str,
    ending: &'static str,
    shift: u64,
) -> impl Fn(usize, u64) -> (reqwest::RequestBuilder, Option<String>) + Send + Sync + Clone + 'static {
    let (client, base, token) = (client.clone(), base.to_owned(), token.to_owned());
    move |task: usize, i: u64| {
        let id = format!("{scenario}{task}x{i}");
        // Many payers, as in real traffic; the ending picks the simulator's answer.
        let phone = format!(
            "07{:06}{ending}",
            (task as u64 * 15_485_863 + i * 7_919 + shift) % 1_000_000
        );
        let body = json!({
            "transactionId": id, "payer": phone, "currency": "XOF", "amount": "1500",
            "operator": "GAMMA_MONEY_CI",
            "customer": {"firstName": "Awa", "lastName": "Kone", "phone": phone, "address": {"countryCode": "CI"}}
        });
        (
            client
                .post(format!("{base}/v1/collecte/mobile-money"))
                .bearer_auth(&token)
                .json(&body),
            Some(id),
        )
    }
}

/// `GET /v2/get-status-payment/{id}`, spread over `ids` (which must not be empty).
pub fn status_lookup(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    ids: Arc<Vec<String>>,
) -> impl Fn(usize, u64) -> (reqwest::RequestBuilder, Option<String>) + Send + Sync + Clone + 'static {
    let (client, base, token) = (client.clone(), base.to_owned(), token.to_owned());
    move |task: usize, i: u64| {
        let id = &ids[(task * 7919 + i as usize) % ids.len()];
        (
            client
                .get(format!("{base}/v2/get-status-payment/{id}"))
                .bearer_auth(&token),
            None,
        )
    }
}
