//! Every refusal a page or the command line shows, rendered in French, holds no English
//! sentence; in English it is the API's reason.

use momo_test_support::english::assert_french;

use super::*;
use crate::service::payouts::csv::{OPTIONAL, REQUIRED};

const CODES: [RefusalCode; 8] = [
    RefusalCode::Invalid,
    RefusalCode::DuplicateInBatch,
    RefusalCode::InsufficientFunds,
    RefusalCode::RecipientInactive,
    RefusalCode::RecipientUnchecked,
    RefusalCode::OperatorUnavailable,
    RefusalCode::NotAttempted,
    RefusalCode::Unavailable,
];

/// A new code fails to compile here until it joins `CODES` (and gets its French sentence).
fn _every_code_is_listed(code: RefusalCode) {
    match code {
        RefusalCode::Invalid
        | RefusalCode::DuplicateInBatch
        | RefusalCode::InsufficientFunds
        | RefusalCode::RecipientInactive
        | RefusalCode::RecipientUnchecked
        | RefusalCode::OperatorUnavailable
        | RefusalCode::NotAttempted
        | RefusalCode::Unavailable => {}
    }
}

#[test]
fn every_batch_line_refusal_is_french_on_a_french_page_and_the_apis_reason_in_english() {
    for code in CODES {
        let refusal = Refusal::new(code, "line 4: the operator refused it");
        assert_french(&batch_line(Lang::Fr, &refusal), code.as_str());
        assert_eq!(batch_line(Lang::En, &refusal), "the operator refused it");
    }
    let columns = REQUIRED
        .iter()
        .chain(OPTIONAL.iter())
        .copied()
        .chain([csv::NOT_CSV, "address"]);
    let mut sentences = Vec::new();
    for column in columns {
        let refusal = Refusal::invalid(column, format!("line 3: {column} must be valid"));
        let french = batch_line(Lang::Fr, &refusal);
        assert_french(&french, column);
        assert_eq!(batch_line(Lang::En, &refusal), format!("{column} must be valid"));
        sentences.push(french);
    }
    let phone = batch_line(
        Lang::Fr,
        &Refusal::invalid("phone", "line 2: phone must be a 10-digit Ivorian mobile number"),
    );
    assert!(phone.contains("10 chiffres"), "{phone}");
    sentences.sort();
    sentences.dedup();
    assert!(sentences.len() >= 9, "each column has its own sentence: {sentences:?}");
}

#[test]
fn every_csv_problem_is_french() {
    let problems = [
        CsvProblem::Unreadable("invalid UTF-8 in field 2".into()),
        CsvProblem::Empty,
        CsvProblem::Header {
            found: "id,who".into(),
            why: HeaderProblem::Unknown("who".into()),
        },
        CsvProblem::Header {
            found: "phone,phone".into(),
            why: HeaderProblem::Twice("phone"),
        },
        CsvProblem::Header {
            found: "phone".into(),
            why: HeaderProblem::Missing(vec!["amount", "operator"]),
        },
        CsvProblem::Count(0),
        CsvProblem::Count(MAX_BATCH_ITEMS + 1),
    ];
    for problem in &problems {
        assert_french(&csv_problem(Lang::Fr, problem), &format!("{problem:?}"));
        assert_eq!(csv_problem(Lang::En, problem), problem.to_string());
    }
}

#[test]
fn every_batch_problem_is_french() {
    for problem in [
        BatchProblem::Size { submitted: 0 },
        BatchProblem::TooManyChecks { most: 15, asked: 40 },
        BatchProblem::Label(crate::domain::text::TextProblem::ControlCharacter),
    ] {
        assert_french(&batch(Lang::Fr, &problem), &format!("{problem:?}"));
        assert_eq!(batch(Lang::En, &problem), problem.to_string());
    }
}

#[test]
fn every_webhook_url_problem_is_french() {
    for kind in [
        UrlProblemKind::Unparsable("relative URL without a base".into()),
        UrlProblemKind::Scheme,
        UrlProblemKind::NoHost,
        UrlProblemKind::Private("loopback"),
    ] {
        let problem = UrlProblem {
            shown: "http://127.0.0.1/h".into(),
            kind,
        };
        assert_french(&webhook_url(Lang::Fr, &problem), &format!("{problem:?}"));
        assert_eq!(webhook_url(Lang::En, &problem), problem.to_string());
    }
}

#[test]
fn every_service_failure_and_payment_failure_is_french() {
    for e in [
        ServiceError::Invalid("amount must be a whole number".into()),
        ServiceError::Unauthorized("token expired".into()),
        ServiceError::NotFound("collection"),
        ServiceError::Unavailable("pool timed out".into()),
        ServiceError::Internal("the stored status is not one we know".into()),
    ] {
        assert_french(&service(Lang::Fr, &e), &format!("{e:?}"));
        assert_eq!(service(Lang::En, &e), e.to_string());
    }
    for code in FailureCode::ALL.map(Some).into_iter().chain([None]) {
        assert_french(
            &failure(Lang::Fr, code, Some("the operator refused it")),
            &format!("{code:?}"),
        );
    }
    assert_eq!(
        failure(Lang::En, Some(FailureCode::Expired), Some("it expired")),
        "it expired"
    );
}
