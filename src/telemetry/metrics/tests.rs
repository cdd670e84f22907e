use super::*;

#[test]
fn the_exposition_has_counters_histograms_gauges_and_the_build() {
    let m = Metrics::default();
    m.observe_request("/v1/customer/{id}", "GET", 200, Duration::from_millis(3));
    m.observe_request("/v1/customer/{id}", "GET", 200, Duration::from_millis(30));
    m.transaction("ALPHA", "collecte", "SUCCESSFUL");
    m.worker_run("reconciler", 3);
    let text = m.render(&Gauges {
        database: Some(DatabaseFigures {
            pending_transactions: 2,
            oldest_pending_age_s: 1.5,
            ..DatabaseFigures::default()
        }),
        write_batches: WriteBatchStats {
            committed: 7,
            writes: 40,
            committing: Duration::from_millis(250),
            commit_times: std::array::from_fn(|i| if i == 5 { 7 } else { 0 }),
            ..WriteBatchStats::default()
        },
        ..Gauges::default()
    });
    for line in [
        "momo_http_requests_total{route=\"/v1/customer/{id}\",method=\"GET\",status=\"200\"} 2",
        "momo_http_request_duration_seconds_bucket{le=\"0.005\",route=\"/v1/customer/{id}\",method=\"GET\"} 1",
        "momo_http_request_duration_seconds_bucket{le=\"+Inf\",route=\"/v1/customer/{id}\",method=\"GET\"} 2",
        "momo_http_request_duration_seconds_count{route=\"/v1/customer/{id}\",method=\"GET\"} 2",
        "momo_transactions_total{operator=\"ALPHA\",type=\"collecte\",outcome=\"SUCCESSFUL\"} 1",
        "momo_worker_settled_total{worker=\"reconciler\"} 3",
        "momo_pending_transactions 2",
        "momo_oldest_pending_transaction_age_seconds 1.5",
        "momo_database_up 1",
        "momo_webhook_events_unsent_total 0",
        "momo_write_batches_total{outcome=\"committed\"} 7",
        "momo_write_batches_total{outcome=\"failed\"} 0",
        "momo_write_batches_total{outcome=\"refused\"} 0",
        "momo_write_batch_writes_total 40",
        "momo_write_batch_commit_seconds_total 0.25",
        "# TYPE momo_write_commit_duration_seconds histogram",
        "momo_write_commit_duration_seconds_sum 0.25",
        "momo_write_commit_duration_seconds_count 7",
        "momo_write_commit_duration_seconds_bucket{le=\"0.003\"} 0",
        "momo_write_commit_duration_seconds_bucket{le=\"0.004\"} 7",
        "momo_write_commit_duration_seconds_bucket{le=\"+Inf\"} 7",
        "momo_write_batch_duration_seconds_bucket{le=\"+Inf\"} 0",
        "# TYPE momo_write_batches counter",
        "# TYPE momo_http_requests counter",
        "# EOF",
    ] {
        assert!(text.lines().any(|l| l == line), "{line:?} in:\n{text}");
    }
    assert!(
        text.contains(&format!(
            "momo_build_info{{version=\"{}\"}} 1",
            env!("CARGO_PKG_VERSION")
        )),
        "{text}"
    );
}

#[test]
fn the_classic_text_names_counter_families_by_their_samples() {
    let m = Metrics::default();
    m.auth_failure("bearer");
    let text = m.render_as(&Gauges::default(), false);
    for line in [
        "# HELP momo_auth_failures_total Refused credentials and tokens.",
        "# TYPE momo_auth_failures_total counter",
        "momo_auth_failures_total{kind=\"bearer\"} 1",
        "# TYPE momo_database_up gauge",
    ] {
        assert!(text.lines().any(|l| l == line), "{line:?} in:\n{text}");
    }
    assert!(!text.contains("# EOF"));
}

#[test]
fn without_the_database_the_process_series_stay_and_its_gauges_go() {
    let m = Metrics::default();
    m.transaction("ALPHA", "collecte", "PENDING");
    let up = Gauges {
        database: Some(DatabaseFigures::default()),
        ..Gauges::default()
    };
    assert!(m.render(&up).contains("momo_pending_transactions 0"));
    let text = m.render(&Gauges {
        db_pool_size: 3,
        write_batches: WriteBatchStats {
            failed: 2,
            ..WriteBatchStats::default()
        },
        ..Gauges::default()
    });
    for line in [
        "momo_database_up 0",
        "momo_db_pool_connections 3",
        "momo_write_batches_total{outcome=\"failed\"} 2",
        "momo_transactions_total{operator=\"ALPHA\",type=\"collecte\",outcome=\"PENDING\"} 1",
    ] {
        assert!(text.lines().any(|l| l == line), "{line:?} in:\n{text}");
    }
    for gone in [
        "momo_pending_transactions",
        "momo_outbox_backlog",
        "momo_transfers_needing_review",
    ] {
        assert!(!text.contains(gone), "no stale {gone} in:\n{text}");
    }
}
