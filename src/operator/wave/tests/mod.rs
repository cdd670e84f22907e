//! The connector against the operator emulator over HTTP: each test starts an emulator on a
//! random port with a short Sandbox delay and a connector whose settings match it, and checks
//! what the connector answers and what the emulator received (its admin API).

mod checkout;
mod payout;
mod webhook;

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{WaveConnector, WaveSettings};
use crate::domain::Purpose;
use crate::domain::{
    Amounts, Environment, FailureCode, Kind, MerchantId, Msisdn, OperatorCode, Status, Tenant, Timestamp, Transaction,
};
use crate::operator::{BadAnswer, Instruction, Operator, OperatorAnswer, OperatorError, OperatorRequest};
use momo_operator_emulator::{Emulator, EmulatorSettings, RunningEmulator};

/// The Sandbox delay of rows 02 and 03 in these tests.
pub const DELAY: Duration = Duration::from_millis(50);

/// The URLs the connector falls back on.
pub const SUCCESS_URL: &str = "https://shop.example/paid";
pub const ERROR_URL: &str = "https://shop.example/not-paid";

/// An emulator and a connector that speaks to it.
pub struct Setup {
    pub emulator: RunningEmulator,
    pub wave: WaveConnector,
    http: reqwest::Client,
}

/// Connector settings matching `emulator`'s (`EmulatorSettings::default()` credentials).
pub fn settings_for(base_url: &str, emulator: &EmulatorSettings) -> WaveSettings {
    WaveSettings {
        base_url: base_url.to_owned(),
        api_key: emulator.wave.api_key.clone(),
        webhook_secret: emulator.wave.webhook_secret.clone(),
        timeout: Duration::from_secs(3),
        max_answer_bytes: 64 * 1024,
        success_url_fallback: SUCCESS_URL.to_owned(),
        error_url_fallback: ERROR_URL.to_owned(),
    }
}

/// Starts an emulator (changed by `configure`) and a connector to it.
pub async fn start(configure: impl FnOnce(&mut EmulatorSettings)) -> Setup {
    let mut settings = EmulatorSettings {
        delay: DELAY,
        ..EmulatorSettings::default()
    };
    configure(&mut settings);
    let emulator = Emulator::start(settings.clone()).await.unwrap();
    let wave = WaveConnector::new(settings_for(&emulator.url, &settings)).unwrap();
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    Setup { emulator, wave, http }
}

/// A pending transaction of `kind` to or from the national number `phone`: a fresh UUID as its
/// id (the idempotency key) and a fresh 10-character `ref`.
pub fn transaction(kind: Kind, phone: &str, amount: i64) -> Transaction {
    let id = uuid::Uuid::new_v4().to_string();
    let reference: String = id.replace('-', "").to_uppercase().chars().take(10).collect();
    Transaction {
        id: id.into(),
        reference: reference.into(),
        tenant: Tenant {
            merchant_id: MerchantId::from("m-1"),
            environment: Environment::Production,
        },
        transaction_id: format!("order-{amount}").into(),
        purpose: match kind {
            Kind::Collection => Purpose::Collection(Default::default()),
            Kind::Transfer => Purpose::Transfer(Default::default()),
            Kind::Refund => Purpose::Refund(crate::domain::RefundLink {
                collection: "ABCDEFGHIJ".into(),
                reason: None,
            }),
        },
        operator: OperatorCode::Beta,
        operator_alias: None,
        phone: Msisdn::parse(phone).unwrap(),
        phone_as_sent: phone.to_owned(),
        amounts: Amounts {
            amount: crate::domain::Francs(amount),
            fees: crate::domain::Francs(0),
            amount_receive: crate::domain::Francs(amount),
            amount_total: crate::domain::Francs(amount),
        },
        status: Status::Pending,
        customer_id: "c-1".into(),
        name: "Awa Koné".into(),
        email: None,
        failure_code: None,
        failure_reason: None,
        created_at: Timestamp::now(),
        updated_at: None,
        carrier: Default::default(),
    }
}

/// The initiation of `t`, as the gateway builds it.
pub fn request(t: &Transaction) -> OperatorRequest<'_> {
    let refund_of = t.purpose.refund_of().map(|link| crate::operator::RefundOf {
        reference: link.collection.as_str(),
        operator_reference: link.collection.as_str(),
    });
    OperatorRequest::of(
        t,
        crate::domain::Amount::from_francs(t.amounts.amount.get()).unwrap(),
        Instruction::of(&t.purpose, None, refund_of).unwrap(),
    )
}

impl Setup {
    fn admin_url(&self, path: &str) -> String {
        format!("{}/_emulator/{path}", self.emulator.url)
    }

    pub async fn admin(&self, path: &str) -> Value {
        let answer = self.http.get(self.admin_url(path)).send().await.unwrap();
        answer.json().await.unwrap()
    }

    pub async fn admin_post(&self, path: &str, body: Value) -> Value {
        let answer = self.http.post(self.admin_url(path)).json(&body).send().await.unwrap();
        assert!(answer.status().is_success(), "{path}: {}", answer.status());
        answer.json().await.unwrap()
    }

    /// `received` and `executed` of an initiation key.
    pub async fn counts(&self, key: &str) -> (u64, u64) {
        let counts = self.admin(&format!("initiations/{key}")).await;
        (
            counts["received"].as_u64().unwrap(),
            counts["executed"].as_u64().unwrap(),
        )
    }

    /// Injects `fault` into the next request at the emulator's endpoint `on`.
    pub async fn fault_once(&self, on: &str, fault: &str) {
        self.admin_post("faults", json!({"on": on, "fault": fault, "times": 1}))
            .await;
    }

    /// What the connector answers now about `t`.
    pub async fn status_now(&self, t: &Transaction) -> Result<OperatorAnswer, OperatorError> {
        self.wave.status(t, Timestamp::now()).await
    }

    /// Sends `t` with `fault` injected at the emulator's endpoint `on`: whatever happened there,
    /// the connector cannot tell, so its answer must be ambiguous.
    pub async fn initiate_ambiguously(&self, on: &str, fault: &str, t: &Transaction) {
        self.fault_once(on, fault).await;
        assert!(matches!(
            self.wave.initiate(&request(t)).await,
            Err(OperatorError::Ambiguous(_))
        ));
    }

    /// Sends `sent`, then asks about it as if the gateway had stored `stored_amount` francs:
    /// Wave's answer, for another amount, must never settle it. Returns what was asked about.
    pub async fn status_for_another_amount(&self, sent: &Transaction, stored_amount: i64) -> Transaction {
        self.wave.initiate(&request(sent)).await.unwrap();
        let mut stored = sent.clone();
        stored.amounts.amount = crate::domain::Francs(stored_amount);
        let answer = self.status_now(&stored).await;
        assert!(
            matches!(
                &answer,
                Err(OperatorError::BadAnswer {
                    kind: BadAnswer::AmountMismatch,
                    ..
                })
            ),
            "{answer:?}"
        );
        stored
    }

    /// The status of `t`, asked until it is no longer `Pending` (at most 3 s, 10 ms apart).
    pub async fn settled(&self, t: &Transaction) -> OperatorAnswer {
        let deadline = Instant::now() + Duration::from_secs(3);
        loop {
            let answer = self.wave.status(t, Timestamp::now()).await.unwrap();
            let open = matches!(answer, OperatorAnswer::Pending | OperatorAnswer::AwaitingPayer { .. });
            if !open || Instant::now() > deadline {
                return answer;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

/// Asserts that `answer` failed the payment with `code`, for a reason that names `cause`.
#[track_caller]
pub fn assert_failed(answer: &OperatorAnswer, code: FailureCode, cause: &str) {
    assert!(
        matches!(answer, OperatorAnswer::Failed { code: c, reason } if *c == code && reason.contains(cause)),
        "expected {code:?} for {cause}: {answer:?}"
    );
}

/// Asserts that Wave refused to create the payment (nothing happened), for a reason that names
/// `cause`.
#[track_caller]
pub fn assert_refused(answer: &Result<OperatorAnswer, OperatorError>, cause: &str) {
    assert!(
        matches!(answer, Err(OperatorError::Rejected { code: FailureCode::OperatorRefused, reason })
            if reason.contains(cause)),
        "expected a refusal for {cause}: {answer:?}"
    );
}

/// A port nothing listens on.
pub async fn closed_port() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap().port()
}
