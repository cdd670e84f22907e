//! The shape of a database outage under load, shared by the PostgreSQL and SQLite scenarios:
//! 16 clients pay through the simulator, the database goes away and comes back, and the
//! answers are read against that window: every one a 2xx or a 503 in its envelope (never a
//! 500, never a cut connection), the gateway back without a restart, and each 503'd payment,
//! sent again, either created now or found already stored (its commit landed, its answer did not).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use momo_gateway::service::Gateway;

use crate::audit::{self, Told};
use crate::harness::{self, Merchant};
use crate::load::{self, Generation, Load, Sent, Tally};
use momo_test_support::{process, until};

const CLIENTS: usize = 16;
/// Requests sent this long after the database came back must all succeed.
pub const RECOVERY: Duration = Duration::from_secs(3);
/// How many requests sent after [`RECOVERY`] the load waits for before it stops.
const AFTER_RECOVERY: usize = 100;
/// How long the load may take to get there.
const PATIENCE: Duration = Duration::from_secs(60);

/// When the database was away.
#[derive(Debug, Clone, Copy)]
pub struct Window {
    pub began: Instant,
    pub ended: Instant,
}

/// Runs the load, lets `outage` take the database away and bring it back once the load is
/// going, runs the load on until requests sent [`RECOVERY`] after the outage have been answered
/// ([`AFTER_RECOVERY`] of them), and returns every request sent.
pub async fn around(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    tag: &'static str,
    outage: impl AsyncFnOnce(&Load) -> Window,
) -> (Vec<Sent>, Window) {
    let load = Load::start(CLIENTS, client, base, token, Vec::new(), load::simulated(tag));
    until("50 answers before the outage", PATIENCE, async || load.answered() >= 50).await;
    let window = outage(&load).await;
    let recovered = window.ended + RECOVERY;
    until(
        &format!("{AFTER_RECOVERY} answers to requests sent {RECOVERY:?} after the outage"),
        PATIENCE + RECOVERY,
        async || load.answered_since(recovered) >= AFTER_RECOVERY,
    )
    .await;
    (load.stop().await, window)
}

/// What the answers showed.
#[derive(Debug, Default)]
pub struct Answers {
    pub tally: Tally,
    pub unavailable_in_window: usize,
    pub unavailable_after: usize,
    /// The longest a 503 took to come.
    pub slowest_unavailable: Duration,
    /// From the end of the window to the first success of a request sent after it.
    pub recovered_after: Option<Duration>,
}

/// Checks every answer and counts them against `window`.
pub fn read(sent: &[Sent], window: Window) -> Answers {
    let mut answers = Answers::default();
    for s in sent {
        answers.tally.add(&s.answer);
        let answer = s
            .answer
            .as_ref()
            .unwrap_or_else(|e| panic!("{}: no answer from a running gateway: {e}", s.payment.id));
        match answer.status {
            200 | 202 | 504 => {
                if s.at >= window.ended {
                    let after = s.done - window.ended;
                    answers.recovered_after = Some(answers.recovered_after.map_or(after, |r| r.min(after)));
                }
            }
            503 => {
                let expected = match s.payment.generation {
                    Generation::V1 => "ServiceUnavailableError",
                    Generation::V2 => "OPERATOR_IS_UNAVAILABLE",
                };
                assert_eq!(answer.message, expected, "{}: the 503 in its envelope", s.payment.id);
                assert!(s.done >= window.began, "{}: 503 before the outage", s.payment.id);
                answers.slowest_unavailable = answers.slowest_unavailable.max(s.done - s.at);
                if s.done <= window.ended {
                    answers.unavailable_in_window += 1;
                } else {
                    answers.unavailable_after += 1;
                }
                assert!(
                    s.at < window.ended + RECOVERY,
                    "{}: 503 although sent {:?} after the database came back",
                    s.payment.id,
                    s.at - window.ended
                );
            }
            other => panic!("{}: {other} is neither a 2xx nor a 503", s.payment.id),
        }
    }
    assert!(
        answers.unavailable_in_window + answers.unavailable_after > 0,
        "the outage was seen: {}",
        answers.tally
    );
    assert!(
        answers.recovered_after.is_some(),
        "requests succeed again after the outage"
    );
    answers
}

/// What sending each 503'd payment again showed.
#[derive(Debug, Default)]
pub struct Retried {
    pub created: usize,
    /// Answered 409: stored although its first answer was a 503.
    pub already_stored: usize,
    pub sent: Vec<Sent>,
}

/// Sends each 503'd payment again, unchanged. A failure quotes the gateway's last warnings
/// (`logs`), which say why it still refused.
pub async fn retry_unavailable(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    sent: &[Sent],
    logs: &Mutex<Vec<String>>,
) -> Retried {
    let again = sent
        .iter()
        .filter(|s| s.answer.as_ref().is_ok_and(|a| a.status == 503))
        .map(|s| s.payment.clone())
        .collect();
    let mut retried = Retried::default();
    for s in load::send_all(client, base, token, again).await {
        let answer = s.answer.as_ref().expect("an answer");
        match answer.status {
            200 | 202 | 504 => retried.created += 1,
            409 => retried.already_stored += 1,
            other => panic!(
                "{}: sent again after its 503, answered {other} ({}); the gateway's last warnings:\n{}",
                s.payment.id,
                answer.message,
                harness::last_warnings(logs, 12)
            ),
        }
        retried.sent.push(s);
    }
    retried
}

/// What an outage left, once checked: its 503s sent again, the workers given their time, the
/// same process stopped cleanly, nothing left `PENDING`, every answer matched by the store, and
/// the ledger sound.
pub struct Aftermath {
    pub retried: Retried,
    /// Transactions the gateway's own workers settled after the load.
    pub by_process: usize,
    /// Transactions stored for the merchant.
    pub stored: usize,
    pub panics: usize,
}

/// Sends each 503'd payment again, then checks what the outage left (see `Aftermath`).
pub async fn check_aftermath(
    client: &reqwest::Client,
    gateway: process::Running,
    admin: &Gateway,
    merchant: &Merchant,
    token: &str,
    sent: &[Sent],
    what: &str,
) -> Aftermath {
    let logs = gateway.logs.clone();
    let retried = retry_unavailable(client, &gateway.base, token, sent, &logs).await;
    let mut told = Told::default();
    for s in sent.iter().chain(&retried.sent) {
        told.record(s);
    }
    let by_process = harness::settle(admin, Duration::from_secs(4), Duration::from_secs(60)).await;
    let (exit, _) = gateway.terminate().await;
    assert!(
        exit.success(),
        "the same process ran throughout and stops cleanly: {exit:?}"
    );
    let panics = harness::panics(&logs);
    let left = harness::drain(admin).await;
    assert!(left.is_empty(), "left PENDING: {left:?}");
    let stored = harness::stored(admin, &merchant.tenant).await;
    audit::audit(&told, &stored).assert_clean(what);
    harness::assert_ledger(admin, what).await;
    Aftermath {
        retried,
        by_process: by_process.len(),
        stored: stored.len(),
        panics,
    }
}
