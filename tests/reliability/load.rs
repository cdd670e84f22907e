//! Payments as merchants send them under load: v1 and v2 bodies of collections and transfers,
//! every answer checked for its envelope, clients that send until told to stop or until the
//! gateway is gone, and the tally of what came back.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use momo_gateway::domain::Kind;
use serde_json::{json, Value};

/// The API generation of a request, and so of its answer's envelope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Generation {
    V1,
    V2,
}

/// One payment request; sent again unchanged when its answer was lost.
#[derive(Debug, Clone)]
pub struct Payment {
    pub id: String,
    pub kind: Kind,
    pub generation: Generation,
    /// `ALPHA`, `BETA`, `GAMMA` or `DELTA`.
    pub operator: &'static str,
    /// The last two digits of the number, which decide the outcome (docs/sandbox.md).
    pub ending: &'static str,
}

impl Payment {
    pub fn path(&self) -> &'static str {
        match (self.kind, self.generation) {
            (Kind::Collection, Generation::V1) => "/v1/collecte/mobile-money",
            (Kind::Collection, Generation::V2) => "/v2/collecte/mobile-money",
            (Kind::Transfer, Generation::V1) => "/v1/transfer/mobile-money",
            (Kind::Transfer, Generation::V2) => "/v2/transfers/mobile-money",
            (Kind::Refund, _) => unreachable!("the load sends collections and transfers"),
        }
    }

    pub fn body(&self) -> Value {
        let (id, phone, operator) = (
            &self.id,
            format!("07010203{}", self.ending),
            format!("{}_MONEY_CI", self.operator),
        );
        let customer =
            json!({"firstName": "Awa", "lastName": "Koné", "phone": phone, "address": {"countryCode": "CI"}});
        // ALPHA's payers give a one-time code (PayDunya requires it; MoMo carries it along).
        let code = (self.operator == "ALPHA").then_some("1234");
        match (self.kind, self.generation) {
            (Kind::Collection, Generation::V1) => json!({"transactionId": id, "customer": customer, "payer": phone,
                "currency": "XOF", "amount": "1500", "operator": operator, "otpCode": code}),
            (Kind::Transfer, Generation::V1) => json!({"transactionId": id, "customer": customer, "recipient": phone,
                "currency": "XOF", "amount": "1000", "operator": operator}),
            (Kind::Collection, Generation::V2) => json!({"code_country": "CI", "operator": operator, "currency": "XOF",
                "customer_id": phone, "name_user": "Awa Koné", "amount": 1500, "transaction_id": id, "code_otp": code}),
            (Kind::Transfer, Generation::V2) => json!({"code_country": "CI", "currency": "XOF", "customer_id": phone,
                "name": "Awa Koné", "amount": 1000, "operator": operator, "transaction_id": id}),
            (Kind::Refund, _) => unreachable!("the load sends collections and transfers"),
        }
    }
}

/// What the gateway answered.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    /// `data.status` when the answer carries a transaction (v2's `SUCCESSFULL` read as `SUCCESSFUL`).
    pub transaction: Option<String>,
    pub reference: Option<String>,
    pub message: String,
}

/// Sends `body` to `path`; the answer must be a JSON envelope of `generation` whose status
/// code is the HTTP one. `Err` when no answer came (the gateway is gone, or cut the connection).
pub async fn send_to(
    client: &reqwest::Client,
    base: &str,
    token: &str,
    path: &str,
    generation: Generation,
    body: &Value,
) -> Result<Answer, String> {
    let response = client
        .post(format!("{base}{path}"))
        .bearer_auth(token)
        .json(body)
        .send()
        .await
        .map_err(|e| e.to_string())?;
    let status = response.status().as_u16();
    let text = response.text().await.map_err(|e| e.to_string())?;
    let answer: Value =
        serde_json::from_str(&text).unwrap_or_else(|_| panic!("{path}: {status} is not JSON: {text:?}"));
    let (code, message) = match generation {
        Generation::V1 => (&answer["statusCode"], &answer["message"]),
        Generation::V2 => (&answer["code_status"], &answer["message"]),
    };
    assert_eq!(
        code.as_u64(),
        Some(u64::from(status)),
        "{path}: the {generation:?} envelope: {answer}"
    );
    assert!(message.is_string(), "{path}: a message: {answer}");
    let data = &answer["data"];
    Ok(Answer {
        status,
        transaction: data["status"].as_str().map(|s| s.replace("SUCCESSFULL", "SUCCESSFUL")),
        reference: data["ref"].as_str().or(data["operator_id"].as_str()).map(str::to_owned),
        message: message.as_str().unwrap_or_default().to_owned(),
    })
}

pub async fn send(client: &reqwest::Client, base: &str, token: &str, payment: &Payment) -> Result<Answer, String> {
    send_to(client, base, token, payment.path(), payment.generation, &payment.body()).await
}

/// One request sent by a client, with when it went and when its answer (or error) came.
#[derive(Debug, Clone)]
pub struct Sent {
    pub payment: Payment,
    pub answer: Result<Answer, String>,
    pub at: Instant,
    pub done: Instant,
}

/// Clients sending payments concurrently, each its own sequence, until stopped.
pub struct Load {
    stop: Arc<AtomicBool>,
    answered: Arc<AtomicUsize>,
    /// Answers so far, by status code.
    seen: Arc<Mutex<BTreeMap<u16, usize>>>,
    /// When each answered request was sent.
    sent_at: Arc<Mutex<Vec<Instant>>>,
    clients: tokio::task::JoinSet<Vec<Sent>>,
}

impl Load {
    /// `clients` clients on `base`; each first sends again its share of `again`, then
    /// `next(client, i)` for i = 0, 1, ... A client ends when stopped or when a request gets no
    /// answer (the gateway is gone).
    pub fn start<F>(
        clients: usize,
        client: &reqwest::Client,
        base: &str,
        token: &str,
        again: Vec<Payment>,
        next: F,
    ) -> Load
    where
        F: Fn(usize, u64) -> Payment + Send + Sync + 'static,
    {
        let (stop, answered, next) = (
            Arc::new(AtomicBool::new(false)),
            Arc::new(AtomicUsize::new(0)),
            Arc::new(next),
        );
        let seen = Arc::new(Mutex::new(BTreeMap::new()));
        let sent_at = Arc::new(Mutex::new(Vec::new()));
        let mut set = tokio::task::JoinSet::new();
        for c in 0..clients {
            let mine: Vec<Payment> = again.iter().skip(c).step_by(clients).cloned().collect();
            let (client, base, token) = (client.clone(), base.to_owned(), token.to_owned());
            let (stop, answered, next, seen) = (stop.clone(), answered.clone(), next.clone(), seen.clone());
            let sent_at = sent_at.clone();
            set.spawn(async move {
                let mut sent = Vec::new();
                let fresh = (0..).map(|i| next(c, i));
                for payment in mine.into_iter().chain(fresh) {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let at = Instant::now();
                    let answer = send(&client, &base, &token, &payment).await;
                    let gone = answer.is_err();
                    if let Ok(a) = &answer {
                        *seen.lock().unwrap().entry(a.status).or_default() += 1;
                        sent_at.lock().unwrap().push(at);
                    }
                    answered.fetch_add(usize::from(!gone), Ordering::SeqCst);
                    sent.push(Sent {
                        payment,
                        answer,
                        at,
                        done: Instant::now(),
                    });
                    if gone {
                        break;
                    }
                }
                sent
            });
        }
        Load {
            stop,
            answered,
            seen,
            sent_at,
            clients: set,
        }
    }

    /// How many answers with `status` have come so far.
    pub fn seen(&self, status: u16) -> usize {
        self.seen.lock().unwrap().get(&status).copied().unwrap_or(0)
    }

    /// How many requests have been answered so far.
    pub fn answered(&self) -> usize {
        self.answered.load(Ordering::SeqCst)
    }

    /// How many requests sent at `since` or later have been answered so far.
    pub fn answered_since(&self, since: Instant) -> usize {
        self.sent_at.lock().unwrap().iter().filter(|at| **at >= since).count()
    }

    /// Stops the clients (each finishes its request in flight) and returns what they sent.
    pub async fn stop(mut self) -> Vec<Sent> {
        self.stop.store(true, Ordering::SeqCst);
        let mut all = Vec::new();
        while let Some(sent) = self.clients.join_next().await {
            all.extend(sent.expect("a client ran to its end"));
        }
        all
    }
}

/// Answers by status code, and requests that got none.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    pub by_status: BTreeMap<u16, usize>,
    pub unanswered: usize,
}

impl Tally {
    pub fn add(&mut self, answer: &Result<Answer, String>) {
        match answer {
            Ok(a) => *self.by_status.entry(a.status).or_default() += 1,
            Err(_) => self.unanswered += 1,
        }
    }

    pub fn count(&self, status: u16) -> usize {
        self.by_status.get(&status).copied().unwrap_or(0)
    }

    pub fn requests(&self) -> usize {
        self.by_status.values().sum::<usize>() + self.unanswered
    }
}

impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let answers: Vec<String> = self.by_status.iter().map(|(s, n)| format!("{s}×{n}")).collect();
        write!(f, "answers [{}] unanswered={}", answers.join(" "), self.unanswered)
    }
}

/// Sends every payment at once and returns what came back, in order.
pub async fn send_all(client: &reqwest::Client, base: &str, token: &str, payments: Vec<Payment>) -> Vec<Sent> {
    let tasks: Vec<_> = payments
        .into_iter()
        .map(|payment| {
            let (client, base, token) = (client.clone(), base.to_owned(), token.to_owned());
            tokio::spawn(async move {
                let at = Instant::now();
                let answer = send(&client, &base, &token, &payment).await;
                Sent {
                    payment,
                    answer,
                    at,
                    done: Instant::now(),
                }
            })
        })
        .collect();
    let mut sent = Vec::new();
    for task in tasks {
        sent.push(task.await.expect("a request task"));
    }
    sent
}

/// Payments for the built-in simulator, tagged `tag`: collections and transfers through v1
/// and v2, settled at once (01), by the simulator's callback (02), by the reconciler (05), or
/// failed at once (04). No BETA: its simulated collections wait for a payer on a page.
pub fn simulated(tag: &'static str) -> impl Fn(usize, u64) -> Payment + Send + Sync + 'static {
    move |client, i| {
        let n = client as u64 + i;
        Payment {
            id: format!("{tag}c{client}n{i}"),
            kind: if n.is_multiple_of(2) {
                Kind::Collection
            } else {
                Kind::Transfer
            },
            generation: if (n / 2).is_multiple_of(2) {
                Generation::V1
            } else {
                Generation::V2
            },
            operator: ["ALPHA", "GAMMA", "DELTA"][(n % 3) as usize],
            ending: ["01", "02", "05", "01", "04"][(i % 5) as usize],
        }
    }
}

/// `count` GAMMA payments settled at once, one webhook event each (01 succeeds, 04 fails, every
/// fourth): collections and transfers in turn, every third through v2. Ids `{tag}{i}`.
pub fn final_at_once(tag: &str, count: usize) -> Vec<Payment> {
    (0..count)
        .map(|i| Payment {
            id: format!("{tag}{i}"),
            kind: if i.is_multiple_of(2) {
                Kind::Collection
            } else {
                Kind::Transfer
            },
            generation: if i.is_multiple_of(3) {
                Generation::V2
            } else {
                Generation::V1
            },
            operator: "GAMMA",
            ending: if i % 4 == 3 { "04" } else { "01" },
        })
        .collect()
}
