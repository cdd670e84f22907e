//! Property tests of every parser that reads a request: v1 and v2 bodies, amounts as text and
//! as numbers, phone numbers, list parameters and cursors, query strings, Basic credentials and
//! the edge's control-character check. Whatever arrives, a parser returns a value or an error
//! whose status is a 4xx (which the dialects render in their envelope), never a panic or a 5xx;
//! and an amount is exactly the integer its JSON text names.
//!
//! Bodies are generated from valid ones, each field kept, dropped or replaced by any JSON value
//! (numbers beyond what an `f64` holds included), so most cases reach the last checks.

use axum::extract::Query;
use axum::http::{HeaderMap, HeaderValue, Uri};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde::Deserialize;

use super::auth::basic_credentials;
use super::dialect::TransferBody;
use super::error::{ApiError, ErrorKind};
use super::extract::parse_json;
use super::fields::{self, RawAmount};
use super::pagination::{PageParams, LIST_CAP};
use super::v1::customers::CreateCustomer;
use super::v1::payments::{CollectionV1, TransferV1};
use super::v1::transactions::ListParams;
use super::v1::webhooks::EventParams;
use super::v2::payments::{collection_request, TransferV2};
use crate::domain::amount::AmountProblem;
use crate::domain::{Amount, EventState, OperatorAliases};
use crate::http::printable::holds_control_character;

/// Passes when `result` is a value or a client error; fails on any other error.
fn value_or_4xx<T>(result: Result<T, ApiError>) -> Result<(), TestCaseError> {
    if let Err(e) = result {
        prop_assert!(
            e.kind.status().is_client_error(),
            "{:?} ({}): {}",
            e.kind,
            e.kind.status(),
            e.reason
        );
    }
    Ok(())
}

fn quoted(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
}

fn object(fields: &[(String, String)]) -> String {
    let members: Vec<String> = fields.iter().map(|(k, v)| format!("{}:{v}", quoted(k))).collect();
    format!("{{{}}}", members.join(","))
}

/// The text of a JSON number, including what an `f64` cannot hold: long fractions, exponents,
/// integers of any length.
const NUMBER: &str = "-?(0|[1-9][0-9]{0,24})(\\.[0-9]{1,24})?([eE][-+]?[0-9]{1,3})?";

/// The keys of the lists' query strings, and one no list knows.
const QUERY_KEYS: &str = "limit|cursor|status|type|operator|phone|from|to|transactionId|linkPaymentId|[a-z]{1,8}";

/// The text of any JSON value.
fn json_text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_owned()),
        Just("true".to_owned()),
        NUMBER,
        any::<String>().prop_map(|s| quoted(&s)),
        // Digit-like strings: amounts and phone numbers as text.
        "[0-9 +.]{0,14}".prop_map(|s| quoted(&s)),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|items| format!("[{}]", items.join(","))),
            prop::collection::vec(("[a-z_]{1,12}", inner), 0..4).prop_map(|fields| object(&fields)),
        ]
    })
}

/// A field of a valid body: its key and a strategy for its valid value.
type Field = (&'static str, BoxedStrategy<String>);

fn valid(text: &'static str) -> BoxedStrategy<String> {
    Just(text.to_owned()).boxed()
}

/// A body from valid `fields` with a few changes (none in about 40 % of cases, so that the
/// last checks are reached too): a field dropped, or replaced by any string or any JSON value;
/// and sometimes an unknown field added.
fn mutated(fields: Vec<Field>) -> BoxedStrategy<String> {
    let keys: Vec<&'static str> = fields.iter().map(|(key, _)| *key).collect();
    let values: Vec<BoxedStrategy<String>> = fields.into_iter().map(|(_, value)| value).collect();
    let change = (
        0..keys.len(),
        prop_oneof![
            Just(None),
            any::<String>().prop_map(|s| Some(quoted(&s))),
            json_text().prop_map(Some),
        ],
    );
    let changes = prop_oneof![
        3 => Just(Vec::new()),
        3 => prop::collection::vec(change.clone(), 1),
        1 => prop::collection::vec(change, 2..4),
    ];
    let extra = proptest::option::weighted(0.2, ("[a-zA-Z_]{1,14}", json_text()));
    (values, changes, extra)
        .prop_map(move |(values, changes, extra)| {
            let mut values: Vec<Option<String>> = values.into_iter().map(Some).collect();
            for (at, value) in changes {
                values[at] = value;
            }
            let mut all: Vec<(String, String)> = keys
                .iter()
                .zip(values)
                .filter_map(|(key, value)| value.map(|v| (key.to_string(), v)))
                .collect();
            all.extend(extra);
            object(&all)
        })
        .boxed()
}

fn address() -> BoxedStrategy<String> {
    mutated(vec![
        ("countryCode", valid("\"CI\"")),
        ("city", valid("\"Abidjan\"")),
        ("streetAddress", valid("\"Rue des Jardins\"")),
    ])
}

/// An amount: valid strings and numbers, or a number or digit string that may not be one.
fn amount() -> BoxedStrategy<String> {
    prop_oneof![
        valid("\"1500\""),
        (100u32..=1_000_000).prop_map(|n| quoted(&n.to_string())),
        (100u32..=1_000_000).prop_map(|n| format!("{n}.0")),
        NUMBER.boxed(),
        "[0-9]{1,8}(\\.0{0,3})?".prop_map(|s| quoted(&s)),
    ]
    .boxed()
}

fn v1_customer() -> BoxedStrategy<String> {
    mutated(vec![
        ("firstName", valid("\"Awa\"")),
        ("lastName", valid("\"Koné\"")),
        ("phone", valid("\"0701020301\"")),
        ("email", valid("\"awa@example.ci\"")),
        ("address", address()),
    ])
}

fn v1_payment(party: &'static str) -> BoxedStrategy<String> {
    mutated(vec![
        ("transactionId", valid("\"t-1\"")),
        ("customer", v1_customer()),
        (party, valid("\"+225 07 01 02 03 01\"")),
        ("currency", valid("\"XOF\"")),
        ("amount", amount()),
        ("operator", valid("\"ALPHA_MONEY_CI\"")),
        ("urlSuccess", valid("\"https://shop.example/ok\"")),
        ("errorUrl", valid("\"https://shop.example/ko\"")),
        ("otpCode", valid("\"1234\"")),
    ])
}

/// A v2 phone: a string, or an integer that lost its leading zero.
fn v2_phone() -> BoxedStrategy<String> {
    prop_oneof![
        valid("\"0701020301\""),
        valid("701020301"),
        valid("225701020301"),
        any::<u64>().prop_map(|n| n.to_string())
    ]
    .boxed()
}

fn v2_collection() -> BoxedStrategy<String> {
    let shape_a = mutated(vec![
        ("code_country", valid("\"CI\"")),
        ("operator", valid("\"GAMMA_MONEY_CI\"")),
        ("currency", valid("\"XOF\"")),
        ("customer_id", v2_phone()),
        ("name_user", valid("\"Awa Koné\"")),
        ("amount", amount()),
        ("transaction_id", valid("\"t-2\"")),
        ("email_user", valid("\"awa@example.ci\"")),
        ("code_otp", valid("\"1234\"")),
        ("url_success", valid("\"https://shop.example/ok\"")),
    ]);
    let customer = mutated(vec![
        ("phone", v2_phone()),
        ("name", valid("\"Awa Koné\"")),
        ("email", valid("\"awa@example.ci\"")),
    ]);
    let shape_b = mutated(vec![
        ("transactionId", valid("\"t-3\"")),
        ("codeCountry", valid("\"CI\"")),
        ("operator", valid("\"BETA_CI\"")),
        ("customer", customer),
        ("amount", amount()),
        ("currency", valid("\"XOF\"")),
    ]);
    prop_oneof![shape_a, shape_b].boxed()
}

fn v2_transfer() -> BoxedStrategy<String> {
    mutated(vec![
        ("code_country", valid("\"CI\"")),
        ("currency", valid("\"XOF\"")),
        ("customer_id", v2_phone()),
        ("name", valid("\"Awa Koné\"")),
        ("amount", amount()),
        ("operator", valid("\"DELTA_MONEY_CI\"")),
        ("transaction_id", valid("\"t-4\"")),
        ("email", valid("\"awa@example.ci\"")),
    ])
}

/// Anything a client might send as a body: bytes, any JSON value, or an almost valid body.
fn any_body(near_valid: BoxedStrategy<String>) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        1 => any::<Vec<u8>>(),
        1 => json_text().prop_map(String::into_bytes),
        6 => near_valid.prop_map(String::into_bytes),
    ]
}

#[derive(Debug, Deserialize)]
struct AmountOnly {
    #[serde(default)]
    amount: RawAmount,
}

/// What `fields::amount` answers for the JSON text `json`.
fn amount_field(json: &str) -> Result<i64, ErrorKind> {
    let body: AmountOnly = parse_json(format!("{{\"amount\":{json}}}").as_bytes()).map_err(|e| e.kind)?;
    fields::amount(&body.amount, "amount")
        .map(Amount::francs)
        .map_err(|e| e.kind)
}

fn kind_of(problem: AmountProblem) -> ErrorKind {
    match problem {
        AmountProblem::Malformed => ErrorKind::BadRequest,
        AmountProblem::OutOfRange => ErrorKind::AmountOutOfRange,
    }
}

proptest! {
    #[test]
    fn v1_collection_bodies_are_a_payment_or_a_4xx(body in any_body(v1_payment("payer"))) {
        value_or_4xx(parse_json::<CollectionV1>(&body).and_then(|b| b.parse(&OperatorAliases::default())))?;
    }

    #[test]
    fn v1_transfer_bodies_are_a_payment_or_a_4xx(body in any_body(v1_payment("recipient"))) {
        value_or_4xx(parse_json::<TransferV1>(&body).and_then(|b| b.request(&OperatorAliases::default())))?;
    }

    #[test]
    fn v1_customer_bodies_are_a_customer_or_a_4xx(body in any_body(mutated(vec![
        ("firstName", valid("\"Awa\"")),
        ("lastName", valid("\"Koné\"")),
        ("email", valid("\"awa@example.ci\"")),
        ("phoneNumber", valid("\"0701020304\"")),
        ("address", address()),
    ]))) {
        value_or_4xx(parse_json::<CreateCustomer>(&body).and_then(|b| b.parse()))?;
    }

    #[test]
    fn v2_collection_bodies_are_a_payment_or_a_4xx(body in any_body(v2_collection())) {
        value_or_4xx(collection_request(&body, &OperatorAliases::default()))?;
    }

    #[test]
    fn v2_transfer_bodies_are_a_payment_or_a_4xx(body in any_body(v2_transfer())) {
        value_or_4xx(parse_json::<TransferV2>(&body).and_then(|b| b.request(&OperatorAliases::default())))?;
    }

    #[test]
    fn an_amount_is_what_its_json_text_names_as_a_number_or_as_a_string(number in NUMBER) {
        let expected = Amount::parse_json_number(&number).map(Amount::francs).map_err(kind_of);
        prop_assert_eq!(amount_field(&number), expected, "{}", number);
        let expected = Amount::parse_text(&number).map(Amount::francs).map_err(kind_of);
        prop_assert_eq!(amount_field(&quoted(&number)), expected, "\"{}\"", number);
    }

    #[test]
    fn an_amount_is_exact_however_many_zeros_or_digits_follow(n in 0u64..2_000_000, zeros in 1usize..40, tail in 1u8..10) {
        let whole = if (100..=1_000_000).contains(&n) { Ok(n as i64) } else { Err(ErrorKind::AmountOutOfRange) };
        let zeros = "0".repeat(zeros);
        prop_assert_eq!(amount_field(&format!("{n}.{zeros}")), whole);
        prop_assert_eq!(amount_field(&format!("{n}.{zeros}{tail}")), Err(ErrorKind::BadRequest));
        prop_assert_eq!(amount_field(&format!("{n}e{tail}")), Err(ErrorKind::BadRequest));
    }

    #[test]
    fn any_json_amount_is_in_range_or_a_4xx(json in json_text()) {
        match amount_field(&json) {
            Ok(francs) => prop_assert!((100..=1_000_000).contains(&francs)),
            Err(kind) => prop_assert!(kind.status().is_client_error()),
        }
    }

    #[test]
    fn any_json_phone_is_a_number_or_a_4xx(json in prop_oneof![json_text(), v2_phone()]) {
        // A number beyond an f64 is not a Value: the body it is in is already a 400.
        let Ok(value) = serde_json::from_str::<serde_json::Value>(&json) else { return Ok(()) };
        value_or_4xx(fields::phone_string_or_integer(&value, "customer_id"))?;
    }

    #[test]
    fn list_parameters_are_a_page_and_filter_or_a_4xx(
        limit in proptest::option::of("[0-9]{0,6}|\\PC{0,8}"),
        cursor in proptest::option::of("[A-Za-z0-9_-]{0,40}|\\PC{0,20}"),
        filters in proptest::collection::vec(proptest::option::of("[A-Z_]{0,16}|[0-9 +]{0,14}|[-0-9T:.Z+]{0,30}|\\PC{0,12}"), 9),
    ) {
        let page = PageParams { limit, cursor };
        match page.page_request() {
            Ok(request) => prop_assert!((2..=LIST_CAP + 1).contains(&request.limit)),
            Err(e) => prop_assert!(e.kind.status().is_client_error()),
        }
        let params = ListParams {
            page,
            status: filters[0].clone(),
            kind: filters[1].clone(),
            operator: filters[2].clone(),
            phone: filters[3].clone(),
            from: filters[4].clone(),
            to: filters[5].clone(),
            refund_of: filters[6].clone(),
            link_payment_id: filters[7].clone(),
            payout_batch_id: filters[8].clone(),
        };
        value_or_4xx(params.filter(&OperatorAliases::default()))?;
    }

    #[test]
    fn any_query_string_is_read_or_refused_and_control_characters_are_seen(
        raw in "[a-zA-Z0-9=&%+._~-]{0,40}",
        pairs in proptest::collection::vec((QUERY_KEYS, any::<String>()), 0..5),
    ) {
        let mut encoded_pairs = Vec::new();
        for (key, value) in &pairs {
            let encoded: String = value.bytes().map(|b| format!("%{b:02X}")).collect();
            prop_assert_eq!(holds_control_character(&encoded), value.chars().any(char::is_control));
            encoded_pairs.push(format!("{key}={encoded}"));
        }
        for query in [raw, encoded_pairs.join("&")] {
            let Ok(uri) = format!("/v1/transactions?{query}").parse::<Uri>() else { continue };
            // axum's own parse, as the QueryParams extractor calls it (its error becomes a 400),
            // then the handlers' checks.
            if let Ok(Query(params)) = Query::<ListParams>::try_from_uri(&uri) {
                value_or_4xx(params.page.page_request())?;
                value_or_4xx(params.filter(&OperatorAliases::default()))?;
            }
            if let Ok(Query(params)) = Query::<EventParams>::try_from_uri(&uri) {
                value_or_4xx(params.page.page_request())?;
                let _ = params.status.as_deref().map(EventState::parse);
            }
        }
    }

    #[test]
    fn basic_credentials_are_a_printable_pair_or_a_400(raw in any::<Vec<u8>>(), text in "\\PC{0,10}:?\\PC{0,10}|.{0,20}") {
        let mut headers = HeaderMap::new();
        for value in [raw.clone(), format!("Basic {}", STANDARD.encode(&text)).into_bytes(), [b"Basic ".as_slice(), &raw].concat()] {
            let Ok(value) = HeaderValue::from_bytes(&value) else { continue };
            headers.insert(axum::http::header::AUTHORIZATION, value);
            match basic_credentials(&headers) {
                Ok((key, secret)) => {
                    prop_assert!(!key.is_empty() && !secret.is_empty());
                    prop_assert!(!key.chars().chain(secret.chars()).any(char::is_control));
                }
                Err(e) => prop_assert_eq!(e.kind, ErrorKind::BadRequest),
            }
        }
    }
}
