//! The operator emulator as the gateway's tests drive it, and what the gateway shows of the
//! callbacks it receives. Nothing here waits for a while: a test moves the emulator's clock past
//! its Sandbox delay ([`advance`]), which answers once the callbacks that fell due are made and
//! answered, and then waits for what it can observe: the emulator's admin API (payments,
//! callbacks made) and the gateway's metrics ([`Checks`]: the status check each accepted
//! callback starts, answered).

use std::collections::HashMap;
use std::time::Duration;

use momo_gateway::config::{ApiCredentials, Config};
use momo_operator_emulator::{Emulator, EmulatorSettings, RunningEmulator};
use serde_json::{json, Value};

use crate::support::helpers::{answer, TestApp};
use momo_test_support::eventually;

/// How long a test waits for what the gateway or the emulator does on its own.
pub const PATIENCE: Duration = Duration::from_secs(10);

/// The emulator with its Sandbox `delay`, sending Wave's webhooks to BETA's route in
/// `environment` of the gateway that will listen on 127.0.0.1:`port`.
pub async fn start(port: u16, delay: Duration, environment: &str) -> RunningEmulator {
    let mut settings = EmulatorSettings {
        delay,
        ..EmulatorSettings::default()
    };
    let webhooks = format!("http://127.0.0.1:{port}/operator-callbacks/BETA/{environment}");
    settings.wave.webhook_url = Some(webhooks);
    Emulator::start(settings).await.expect("the emulator starts")
}

/// The v2 status lookup's `data` for the merchant's transaction `id`.
pub async fn lookup(app: &TestApp, token: &str, id: &str) -> Value {
    let a = answer(app.get(&format!("/v2/get-status-payment/{id}")).bearer_auth(token)).await;
    assert_eq!(a.status, reqwest::StatusCode::OK, "{id}: {}", a.body);
    a.body["data"].clone()
}

/// Waits (up to [`PATIENCE`]) for `id` to leave PENDING; its status then, or `PENDING`.
pub async fn settled(app: &TestApp, token: &str, id: &str) -> String {
    let found = momo_test_support::poll(PATIENCE, async || {
        let status = lookup(app, token, id).await["status"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if status == "PENDING" {
            Err(status)
        } else {
            Ok(status)
        }
    })
    .await;
    found.unwrap_or_else(|pending| pending)
}

/// The emulator's default MoMo credentials of `product` (`collection`, `disbursement`).
pub fn momo_credentials(product: &str) -> ApiCredentials {
    ApiCredentials {
        user: format!("{product}-user"),
        key: format!("{product}-key"),
        subscription_key: format!("{product}-subscription"),
    }
}

/// The emulator's default keys of every protocol it serves, on `c`'s connectors, each pointed at
/// `url` (over http, Production included: the emulator runs on this machine).
pub fn connect(c: &mut Config, url: &str) {
    let k = &mut c.connectors;
    k.allow_http = true;
    k.momo_url = Some(url.to_owned());
    k.momo_collection = Some(momo_credentials("collection"));
    k.momo_disbursement = Some(momo_credentials("disbursement"));
    k.wave_url = Some(url.to_owned());
    k.wave_api_key = Some("wave-test-key".to_owned());
    k.wave_webhook_secret = Some("wave-webhook-secret".to_owned());
    k.paydunya_url = Some(url.to_owned());
    k.paydunya_master_key = Some(PAYDUNYA_MASTER_KEY.to_owned());
    k.paydunya_private_key = Some("paydunya-private-key".to_owned());
    k.paydunya_token = Some("paydunya-token".to_owned());
}

/// The emulator's default PayDunya master key, whose SHA-512 authenticates its notifications.
pub const PAYDUNYA_MASTER_KEY: &str = "paydunya-master-key";

/// A `GET` on the emulator's admin API (`path` from `/_emulator/`).
pub async fn admin(emulator: &RunningEmulator, path: &str) -> Value {
    reqwest::get(format!("{}/_emulator/{path}", emulator.url))
        .await
        .expect("the emulator answers")
        .json()
        .await
        .expect("the emulator answers JSON")
}

/// Moves the emulator's clock `by` forward. It answers once the callbacks that fell due are
/// made, each answered by the gateway (which has then started its status check).
pub async fn advance(emulator: &RunningEmulator, by: Duration) {
    let answer = reqwest::Client::new()
        .post(format!("{}/_emulator/clock", emulator.url))
        .json(&json!({ "advance_ms": by.as_millis() as u64 }))
        .send()
        .await
        .expect("the emulator answers");
    assert!(answer.status().is_success(), "advance: {:?}", answer.text().await);
    let clock: Value = answer.json().await.expect("the clock");
    assert_eq!(clock["callbacks_in_flight"], 0, "every callback due was made: {clock}");
}

/// The callbacks the emulator made (or dropped) about the payment it knows by `key` (an
/// initiation key, i.e. the gateway's internal id, or its own id), oldest first.
pub async fn callbacks_about(emulator: &RunningEmulator, key: &str) -> Vec<Value> {
    let payment = admin(emulator, &format!("payments/{key}")).await["id"].clone();
    let all = admin(emulator, "callbacks").await;
    all.as_array()
        .expect("a list of callbacks")
        .iter()
        .filter(|c| c["payment"] == payment)
        .cloned()
        .collect()
}

/// The sum of the samples of the series `name` (a counter's name ends in `_total`) whose labels
/// include `labels`, read from the gateway's `/metrics`.
pub async fn metric(app: &TestApp, name: &str, labels: &[(&str, &str)]) -> u64 {
    let text = app.get("/metrics").send().await.unwrap().text().await.unwrap();
    let mut sum = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some((series, value)) = line.rsplit_once(' ') else {
            continue;
        };
        let (series_name, inside) = match series.split_once('{') {
            Some((n, rest)) => (n, rest.trim_end_matches('}')),
            None => (series, ""),
        };
        if series_name != name {
            continue;
        }
        let found: HashMap<&str, &str> = inside
            .split(',')
            .filter_map(|pair| pair.split_once('='))
            .map(|(k, v)| (k, v.trim_matches('"')))
            .collect();
        if labels.iter().all(|(k, v)| found.get(k) == Some(v)) {
            sum += value.parse::<f64>().unwrap_or_else(|e| panic!("{line}: {e}")) as u64;
        }
    }
    sum
}

/// What the gateway did with an operator's callbacks so far: those it accepted (each starts a
/// status check of its own; one that comes while its payment is checked is `already_checking`)
/// and the status calls it made to that operator, whatever their outcome. Tests run no workers,
/// so between two readings with no reconciler pass run by the test itself, the status calls are
/// the callbacks' checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checks {
    pub accepted: u64,
    pub status_calls: u64,
}

impl Checks {
    /// The readings for `operator` (`ALPHA`, …), or for every operator with `"*"`, now.
    pub async fn of(app: &TestApp, operator: &str) -> Checks {
        let whose: &[(&str, &str)] = if operator == "*" {
            &[]
        } else {
            &[("operator", operator)]
        };
        let with = |label: (&'static str, &'static str)| [whose, &[label]].concat();
        Checks {
            accepted: metric(app, "momo_operator_callbacks_total", &with(("outcome", "accepted"))).await,
            status_calls: metric(app, "momo_operator_calls_total", &with(("call", "status"))).await,
        }
    }

    /// Waits until every status check a callback started has ended (the gateway has none in
    /// flight, whichever operator); the readings of `operator` then.
    pub async fn answered(self, app: &TestApp, operator: &str) -> Checks {
        eventually(
            &format!("the status checks of {operator}'s callbacks since {self:?}"),
            PATIENCE,
            async || {
                let in_flight = app.gateway.payments.callback_checks_in_flight();
                let now = Checks::of(app, operator).await;
                if in_flight == 0 {
                    Ok(now)
                } else {
                    Err((in_flight, now))
                }
            },
        )
        .await
    }
}
