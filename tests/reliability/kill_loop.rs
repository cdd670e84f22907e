//! kill -9 under load. 16 clients send collections and transfers, through v1 and v2, to the
//! gateway process routed to the operator emulator (numbers that succeed at once, after a
//! callback, by the reconciler alone, fail at once or later, or never settle and expire), and the
//! gateway is killed with SIGKILL `MOMO_RELIABILITY_KILLS` times (default 3; the full run 10).
//! A request that got no answer is sent again, unchanged, after the restart, as a client would.
//!
//! After each restart, and at the end once the reconciler and expiry have had their time: every
//! transaction an answer carried is stored, once; nothing is stored that nobody asked for; no
//! final answer is contradicted; no initiation was executed twice at the operator, which holds no
//! payment we do not know; the ledger balances and no balance is negative. At the end nothing is
//! `PENDING`, and the operator and the gateway agree on every outcome.
//!
//! It runs twice: with MoMo serving ALPHA and GAMMA and Wave BETA and DELTA, and with PayDunya
//! serving ALPHA and DELTA at a reconcile delay of 300 ms.

use std::time::{Duration, Instant};

use momo_gateway::domain::{Kind, Status};
use rand::seq::SliceRandom;
use rand::Rng;

use crate::audit::{self, Told};
use crate::harness::{self, env_count, Merchant};
use crate::load::{self, Generation, Load, Payment};
use crate::operator::{self, Books};
use momo_test_support::process;
use momo_test_support::TestDatabase;
use momo_test_support::{both_backends, until};

both_backends!(
    TestDatabase::create =>
    sigkill_under_mixed_load_loses_duplicates_and_invents_nothing,
    sigkill_with_paydunya_at_a_short_reconcile_delay_loses_duplicates_and_invents_nothing,
);

const CLIENTS: usize = 16;
/// How long after the last restart every payment is settled by the running process: a payment
/// the last kill cut before its send waits out the longest send before it is sent again
/// (`check_lease`: a status lookup and the longest send in operator calls, 2 s each here, and
/// 2 s: 18 s on these routes), and as long again before "never received" is final.
const SETTLED_WITHIN: Duration = Duration::from_secs(60);
const OPERATORS: [&str; 4] = ["ALPHA", "BETA", "GAMMA", "DELTA"];
/// 01 at once, 02 by callback, 03 fails later, 04 fails at once, 05 by the reconciler only,
/// 06 never (a collection expires).
const COLLECTION_ENDINGS: [&str; 6] = ["01", "02", "03", "04", "05", "06"];
/// A transfer ending 06 never settles (it needs review by hand), so none is sent.
const TRANSFER_ENDINGS: [&str; 5] = ["01", "02", "03", "04", "05"];

/// Random payments of round `round`: both kinds, both generations, every operator and ending.
fn mixed(round: u64) -> impl Fn(usize, u64) -> Payment + Send + Sync + 'static {
    move |client, i| {
        let mut rng = rand::thread_rng();
        let kind = if rng.gen_bool(0.5) {
            Kind::Collection
        } else {
            Kind::Transfer
        };
        let endings: &[&'static str] = match kind {
            Kind::Collection => &COLLECTION_ENDINGS,
            Kind::Transfer => &TRANSFER_ENDINGS,
            Kind::Refund => unreachable!("the load sends collections and transfers"),
        };
        Payment {
            id: format!("k{round}c{client}n{i}"),
            kind,
            generation: if rng.gen_bool(0.5) {
                Generation::V1
            } else {
                Generation::V2
            },
            operator: OPERATORS.choose(&mut rng).unwrap(),
            ending: endings.choose(&mut rng).unwrap(),
        }
    }
}

/// The checks run after each restart and at the end: the audit of what the clients were told,
/// the operator's books (where both sides are final, they agree), and the ledger.
async fn check(
    admin: &momo_gateway::service::Gateway,
    merchant: &Merchant,
    emulator: &str,
    told: &Told,
    what: &str,
) -> (usize, Books) {
    let stored = harness::stored(admin, &merchant.tenant).await;
    audit::audit(told, &stored).assert_clean(what);
    let books = operator::books(emulator, &stored).await;
    assert!(
        books.executed_twice.is_empty() && books.unknown.is_empty() && books.disagreeing.is_empty(),
        "{what}: executed twice {:?}, unknown to us {:?}, outcomes disagreeing {:?}",
        books.executed_twice,
        books.unknown,
        books.disagreeing
    );
    harness::assert_ledger(admin, what).await;
    (stored.len(), books)
}

async fn sigkill_under_mixed_load_loses_duplicates_and_invents_nothing(db: TestDatabase) {
    kill_loop(db, operator::MOMO_AND_WAVE, "500").await
}

async fn sigkill_with_paydunya_at_a_short_reconcile_delay_loses_duplicates_and_invents_nothing(db: TestDatabase) {
    kill_loop(db, operator::WITH_PAYDUNYA, "300").await
}

/// The loop on `routes` (`MOMO_OPERATOR_CONNECTORS`), the reconciler asking `reconcile_after`
/// milliseconds after a payment's creation.
async fn kill_loop(db: TestDatabase, routes: &str, reconcile_after: &str) {
    let started = Instant::now();
    let kills = env_count("MOMO_RELIABILITY_KILLS", 3);
    let port = harness::free_port();
    let emulator = operator::emulator(port, Duration::from_millis(300)).await;
    let mut settings = operator::gateway_settings(&emulator.url, port, routes);
    settings.extend([
        ("MOMO_RECONCILE_INTERVAL_MS", "200".to_owned()),
        ("MOMO_RECONCILE_AFTER_MS", reconcile_after.to_owned()),
        ("MOMO_COLLECTION_TTL_S", "5".to_owned()),
    ]);
    let admin = harness::admin(&db.url, &settings).await;
    let merchant = harness::merchant(&admin, "Kill loop", None).await;
    // Below the gateway's idle timeout, so the client never reuses a connection the gateway
    // is closing.
    let client = reqwest::Client::builder()
        .pool_idle_timeout(Duration::from_secs(20))
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap();
    let (mut told, mut again, mut resent, mut panics) = (Told::default(), Vec::<Payment>::new(), 0, 0);
    let mut token = String::new();
    for round in 0..kills {
        let gateway = process::serve(harness::command(&db.url, &settings));
        let logs = gateway.logs.clone();
        if token.is_empty() {
            token = harness::token(&client, &gateway.base, &merchant).await;
        }
        check(
            &admin,
            &merchant,
            &emulator.url,
            &told,
            &format!("after restart {round}"),
        )
        .await;
        resent += again.len();
        let load = Load::start(
            CLIENTS,
            &client,
            &gateway.base,
            &token,
            std::mem::take(&mut again),
            mixed(round),
        );
        // Killed at a random moment of the load, once it has answered 20.
        let kill_at = Instant::now() + Duration::from_millis(rand::thread_rng().gen_range(500..2000));
        until(
            "20 answers and the moment of the kill",
            Duration::from_secs(60),
            async || load.answered() >= 20 && Instant::now() >= kill_at,
        )
        .await;
        gateway.kill();
        for sent in load.stop().await {
            told.record(&sent);
            if sent.answer.is_err() {
                again.push(sent.payment);
            }
        }
        panics += harness::panics(&logs);
    }

    // The last start: what the last kill cut is sent again, and the workers finish.
    let gateway = process::serve(harness::command(&db.url, &settings));
    let logs = gateway.logs.clone();
    check(&admin, &merchant, &emulator.url, &told, "after the last restart").await;
    resent += again.len();
    for sent in load::send_all(&client, &gateway.base, &token, again).await {
        assert!(
            sent.answer.is_ok(),
            "{}: no answer from a running gateway",
            sent.payment.id
        );
        told.record(&sent);
    }
    // The running process settles everything within `SETTLED_WITHIN`: what a killed process
    // had claimed for a status check is free again once that claim's lease has run out, and
    // every payment here is final at the operator, or past its lifetime, by then.
    let settling = Instant::now();
    let left = harness::settle(&admin, SETTLED_WITHIN, SETTLED_WITHIN).await;
    let settled_in = settling.elapsed();
    let (exit, _) = gateway.terminate().await;
    assert!(exit.success(), "SIGTERM ends the last gateway cleanly: {exit:?}");
    panics += harness::panics(&logs);
    if !left.is_empty() {
        let stored = harness::stored(&admin, &merchant.tenant).await;
        panic!(
            "left PENDING {} s after the last restart: {left:?}\n{}\nthe last gateway's last warnings:\n{}",
            SETTLED_WITHIN.as_secs(),
            operator::describe(&emulator.url, &stored, &left).await,
            harness::last_warnings(&logs, 20)
        );
    }
    let (stored, books) = check(&admin, &merchant, &emulator.url, &told, "at the end").await;

    let records = harness::stored(&admin, &merchant.tenant).await;
    let successful = records
        .values()
        .filter(|r| r.transaction.status == Status::Successful)
        .count();
    let tally = &told.tally;
    let unexpected: Vec<_> = tally
        .by_status
        .keys()
        .filter(|s| ![200, 202, 409, 504].contains(*s))
        .collect();
    println!(
        "kill-loop {} {routes}: kills={kills} clients={CLIENTS} requests={} {tally} resent={resent} stored={stored} \
         (successful={successful} failed={}) all_final_within={}ms_of_the_last_restart operator: payments={} initiations_received_twice={} \
         executed_twice=0 unknown=0 disagreeing=0 | lost=0 duplicated=0 invented=0 changed=0 pending_left=0 \
         500s={} panics={panics} in {:.1}s",
        harness::backend(&db.url),
        tally.requests(),
        stored - successful,
        settled_in.as_millis(),
        books.payments,
        books.resent,
        tally.count(500),
        started.elapsed().as_secs_f64()
    );
    assert!(
        unexpected.is_empty(),
        "answers other than 200, 202, 409 and 504: {tally}"
    );
    assert_eq!(panics, 0, "no panic in the gateway's logs");
}
