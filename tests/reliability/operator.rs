//! The operators behind the gateway process: the emulator over HTTP (MoMo Open API for ALPHA
//! and GAMMA, Wave for BETA and DELTA, in the Sandbox; or PayDunya for ALPHA and DELTA), the
//! settings that route the gateway to it, and the emulator's books read back and held against
//! ours.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use momo_gateway::domain::{Status, TransactionRecord};
use momo_operator_emulator::{Emulator, EmulatorSettings, RunningEmulator};
use serde_json::Value;

const CALLBACK_TOKEN: &str = "reliability-momo-callback-token";

/// The emulator, settling its delayed rows after `delay`, sending Wave's webhooks to the
/// gateway that will listen on `gateway_port`.
pub async fn emulator(gateway_port: u16, delay: Duration) -> RunningEmulator {
    let mut settings = EmulatorSettings {
        delay,
        ..EmulatorSettings::default()
    };
    settings.wave.webhook_url = Some(format!(
        "http://127.0.0.1:{gateway_port}/operator-callbacks/BETA/Sandbox"
    ));
    Emulator::start(settings).await.expect("the emulator starts")
}

/// MoMo for ALPHA and GAMMA, Wave for BETA and DELTA.
pub const MOMO_AND_WAVE: &str =
    "ALPHA:Sandbox=momo-openapi,GAMMA:Sandbox=momo-openapi,BETA:Sandbox=wave-checkout,DELTA:Sandbox=wave-checkout";
/// PayDunya for ALPHA and DELTA, MoMo for GAMMA, Wave for BETA.
pub const WITH_PAYDUNYA: &str =
    "ALPHA:Sandbox=paydunya,GAMMA:Sandbox=momo-openapi,BETA:Sandbox=wave-checkout,DELTA:Sandbox=paydunya";

/// The gateway's settings for the emulator at `url`, listening on `port` (fixed, so the
/// operators' callbacks find it again after a restart), with `routes`.
pub fn gateway_settings(url: &str, port: u16, routes: &str) -> Vec<(&'static str, String)> {
    vec![
        ("MOMO_LISTEN", format!("127.0.0.1:{port}")),
        ("MOMO_PUBLIC_URL", format!("http://127.0.0.1:{port}")),
        ("MOMO_OPERATOR_CONNECTORS", routes.to_owned()),
        ("MOMO_MOMO_OPENAPI_URL", url.to_owned()),
        (
            "MOMO_MOMO_OPENAPI_COLLECTION",
            "collection-user:collection-key:collection-subscription".to_owned(),
        ),
        (
            "MOMO_MOMO_OPENAPI_DISBURSEMENT",
            "disbursement-user:disbursement-key:disbursement-subscription".to_owned(),
        ),
        ("MOMO_MOMO_OPENAPI_CALLBACK_TOKEN", CALLBACK_TOKEN.to_owned()),
        ("MOMO_WAVE_URL", url.to_owned()),
        ("MOMO_WAVE_API_KEY", "wave-test-key".to_owned()),
        ("MOMO_WAVE_WEBHOOK_SECRET", "wave-webhook-secret".to_owned()),
        ("MOMO_PAYDUNYA_URL", url.to_owned()),
        ("MOMO_PAYDUNYA_MASTER_KEY", "paydunya-master-key".to_owned()),
        ("MOMO_PAYDUNYA_PRIVATE_KEY", "paydunya-private-key".to_owned()),
        ("MOMO_PAYDUNYA_TOKEN", "paydunya-token".to_owned()),
        ("MOMO_OPERATOR_TIMEOUT_MS", "2000".to_owned()),
    ]
}

async fn get(url: &str) -> Value {
    reqwest::get(url)
        .await
        .expect("the emulator answers")
        .json()
        .await
        .expect("the emulator answers JSON")
}

/// What the emulator knows of each of `ids` (our transaction ids, as the merchant named them),
/// one line each with our side: for a failure message about payments left `PENDING`.
pub async fn describe(url: &str, stored: &HashMap<String, TransactionRecord>, ids: &[String]) -> String {
    let mut lines = Vec::with_capacity(ids.len());
    for id in ids {
        let Some(record) = stored.get(id) else {
            lines.push(format!("{id}: not stored"));
            continue;
        };
        let t = &record.transaction;
        let theirs = |what: &str| format!("{url}/_emulator/{what}/{}", t.id);
        let payment = text(&theirs("payments")).await;
        let initiation = text(&theirs("initiations")).await;
        lines.push(format!(
            "{id}: ours {:?} {:?} {} {} created {} ({} ms ago); the emulator's payment {payment}; \
             its initiation {initiation}",
            t.kind(),
            t.status,
            t.operator.name(),
            t.phone.as_str(),
            t.created_at.millis(),
            momo_gateway::domain::Timestamp::now().millis() - t.created_at.millis(),
        ));
    }
    lines.join("\n")
}

/// The emulator's answer at `url` (its status and body), or why there is none: at most 5 s, so
/// a stuck emulator cannot turn a failure's message into a hang.
async fn text(url: &str) -> String {
    let answer = reqwest::Client::new()
        .get(url)
        .timeout(Duration::from_secs(5))
        .send()
        .await;
    match answer {
        Ok(r) => format!("{} {}", r.status(), r.text().await.unwrap_or_default()),
        Err(e) => e.to_string(),
    }
}

/// What the emulator's books show against ours.
#[derive(Debug, Default)]
pub struct Books {
    /// Payments the operator holds (each initiation it executed).
    pub payments: usize,
    /// Initiations the operator received more than once (resends after a lost answer).
    pub resent: usize,
    /// Initiations executed more than once: money moved twice.
    pub executed_twice: Vec<String>,
    /// Payments at the operator that no stored transaction of ours names.
    pub unknown: Vec<String>,
    /// Final transactions of ours whose outcome the operator does not share: ours
    /// `SUCCESSFUL` and the operator's not succeeded, or the other way round.
    pub disagreeing: Vec<String>,
}

/// Reads the emulator's books and holds them against `stored` (ours, by transaction id).
pub async fn books(url: &str, stored: &HashMap<String, TransactionRecord>) -> Books {
    // The operators key a payment by our internal id (MoMo, Wave) or our ref (PayDunya).
    let ours: HashMap<&str, &TransactionRecord> = stored
        .values()
        .flat_map(|r| [(r.transaction.id.as_str(), r), (r.transaction.reference.as_str(), r)])
        .collect();
    let mut books = Books::default();
    for i in get(&format!("{url}/_emulator/initiations")).await.as_array().unwrap() {
        let (received, executed) = (i["received"].as_u64().unwrap(), i["executed"].as_u64().unwrap());
        books.resent += usize::from(received > 1);
        if executed > 1 {
            books.executed_twice.push(i.to_string());
        }
    }
    let mut per_key: HashMap<String, usize> = HashMap::new();
    let mut paid_at_operator = HashSet::new();
    for p in get(&format!("{url}/_emulator/payments")).await.as_array().unwrap() {
        // A PayDunya invoice never paid or a disbursement never submitted moved nothing (a
        // resend makes a new invoice).
        let unpaid = (p["flow"] == "invoice" && p["party"].is_null()) || p["wire"]["status"] == "created";
        if p["protocol"] == "paydunya" && unpaid {
            continue;
        }
        books.payments += 1;
        let key = p["key"].as_str().unwrap_or_default().to_owned();
        *per_key.entry(key.clone()).or_default() += 1;
        let theirs_paid = p["status"] == "succeeded";
        if theirs_paid {
            paid_at_operator.insert(key.clone());
        }
        let Some(record) = ours.get(key.as_str()) else {
            books.unknown.push(p.to_string());
            continue;
        };
        let ours_paid = match record.transaction.status {
            Status::Successful => Some(true),
            Status::Failed => Some(false),
            Status::Pending => None,
        };
        if ours_paid.is_some_and(|paid| paid != theirs_paid) {
            let t = &record.transaction;
            books
                .disagreeing
                .push(format!("{}: ours {:?}, theirs {p}", t.transaction_id, t.status));
        }
    }
    books.executed_twice.extend(
        per_key
            .into_iter()
            .filter(|(_, n)| *n > 1)
            .map(|(k, n)| format!("{k}: {n} payments")),
    );
    // Ours paid without a payment at the operator: money invented.
    for record in stored.values() {
        let t = &record.transaction;
        let paid = paid_at_operator.contains(t.id.as_str()) || paid_at_operator.contains(t.reference.as_str());
        if t.status == Status::Successful && !paid {
            books.disagreeing.push(format!(
                "{}: ours SUCCESSFUL, no payment at the operator",
                t.transaction_id
            ));
        }
    }
    books
}
