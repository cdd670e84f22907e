//! Customers on every path variant, their validation, paging and tenancy.

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::helpers::{answer, set, TestApp};
use momo_test_support::both_backends;

both_backends!(
    TestApp::spawn =>
    a_customer_is_created_and_fetched_on_every_path_variant,
    customers_are_listed_newest_first_with_limit_and_cursor,
    another_merchant_or_environment_never_sees_a_customer,
    bad_customer_input_is_400_naming_the_field_and_writes_nothing,
    injection_looking_strings_are_stored_verbatim,
    unknown_customer_ids_are_404,
);

fn awa() -> Value {
    json!({
        "firstName": "Awa",
        "lastName": "Koné",
        "email": "awa.kone@example.ci",
        "phoneNumber": "+225 07 01 02 03 04",
        "address": {"countryCode": "CI", "city": "Abidjan", "streetAddress": "Rue des Jardins"}
    })
}

async fn list_len(app: &TestApp, token: &str) -> usize {
    let a = answer(app.get("/v1/customers").bearer_auth(token)).await;
    assert_eq!(a.status, StatusCode::OK);
    a.body["data"].as_array().unwrap().len()
}

async fn a_customer_is_created_and_fetched_on_every_path_variant(app: TestApp) {
    let token = app.sandbox_token().await;
    let mut ids = Vec::new();
    for path in ["/v1/customer", "/v1/customers/create"] {
        let a = answer(app.post(path).bearer_auth(&token).json(&awa())).await;
        assert_eq!(a.status, StatusCode::OK, "{path}: {}", a.body);
        let data = &a.body["data"];
        let id = data["id"].as_str().unwrap();
        assert!(uuid::Uuid::parse_str(id).is_ok(), "UUID-shaped id");
        let created_at = data["createdAt"].as_str().unwrap();
        assert_eq!(created_at.len(), 24, "ISO 8601 with milliseconds: {created_at}");
        assert!(created_at.ends_with('Z'));
        assert_eq!(
            a.body,
            json!({
                "statusCode": 200,
                "message": "Successful",
                "data": {
                    "id": id,
                    "lastName": "Koné",
                    "firstName": "Awa",
                    "email": "awa.kone@example.ci",
                    "phoneNumber": "0701020304",
                    "address": {"countryCode": "CI", "city": "Abidjan", "streetAddress": "Rue des Jardins"},
                    "createdAt": created_at,
                }
            })
        );
        ids.push((id.to_owned(), a.body["data"].clone()));
    }
    // `Address`, as the reference's table spells it, and an address with only its country.
    let mut body = awa();
    body.as_object_mut().unwrap().remove("address");
    body["Address"] = json!({"countryCode": "CI"});
    let a = answer(app.post("/v1/customer").bearer_auth(&token).json(&body)).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
    assert_eq!(
        a.body["data"]["address"],
        json!({"countryCode": "CI", "city": null, "streetAddress": null})
    );

    for (id, data) in &ids {
        for path in [format!("/v1/customer/{id}"), format!("/v1/customers/fetch-data/{id}")] {
            let a = answer(app.get(&path).bearer_auth(&token)).await;
            assert_eq!(a.status, StatusCode::OK, "{path}");
            assert_eq!(&a.body["data"], data, "{path} returns the record as created");
        }
    }
    assert_eq!(list_len(&app, &token).await, 3);
}

async fn customers_are_listed_newest_first_with_limit_and_cursor(app: TestApp) {
    let token = app.sandbox_token().await;
    let mut created = Vec::new();
    for i in 0..5 {
        let mut body = awa();
        body["firstName"] = json!(format!("Customer{i}"));
        let a = answer(app.post("/v1/customer").bearer_auth(&token).json(&body)).await;
        created.push(a.body["data"].clone());
    }
    let all = answer(app.get("/v1/customers").bearer_auth(&token)).await;
    let listed = all.body["data"].as_array().unwrap().clone();
    assert_eq!(listed.len(), 5);
    assert!(all.header("x-next-cursor").is_none(), "everything fits in one page");
    for pair in listed.windows(2) {
        let key = |c: &Value| {
            (
                c["createdAt"].as_str().unwrap().to_owned(),
                c["id"].as_str().unwrap().to_owned(),
            )
        };
        assert!(key(&pair[0]) > key(&pair[1]), "newest first, then by id: {pair:?}");
    }
    let mut paged = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(c) => format!("/v1/customers?limit=2&cursor={c}"),
            None => "/v1/customers?limit=2".to_owned(),
        };
        let a = answer(app.get(&path).bearer_auth(&token)).await;
        assert_eq!(a.status, StatusCode::OK);
        let page = a.body["data"].as_array().unwrap();
        assert!(page.len() <= 2);
        paged.extend(page.iter().cloned());
        match a.header("x-next-cursor") {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    assert_eq!(paged, listed, "pages put together are the whole list, in order");

    for bad in ["limit=0", "limit=1001", "limit=abc", "limit=-1", "cursor=garbage!"] {
        let a = answer(app.get(&format!("/v1/customers?{bad}")).bearer_auth(&token)).await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{bad}");
        assert_eq!(a.body["message"], "BadRequestError");
    }
}

async fn another_merchant_or_environment_never_sees_a_customer(app: TestApp) {
    let token = app.sandbox_token().await;
    let a = answer(app.post("/v1/customer").bearer_auth(&token).json(&awa())).await;
    let id = a.body["data"]["id"].as_str().unwrap().to_owned();

    let other = app.new_merchant("Other shop").await;
    let other_token = app.token(&other.sandbox).await;
    let production_token = app.token(&app.merchant.production.clone()).await;
    for token in [&other_token, &production_token] {
        for path in [format!("/v1/customer/{id}"), format!("/v1/customers/fetch-data/{id}")] {
            let a = answer(app.get(&path).bearer_auth(token)).await;
            assert_eq!(a.status, StatusCode::NOT_FOUND, "{path}");
            assert_eq!(a.body["message"], "NotFoundError");
        }
        assert_eq!(list_len(&app, token).await, 0);
    }
}

async fn bad_customer_input_is_400_naming_the_field_and_writes_nothing(app: TestApp) {
    let token = app.sandbox_token().await;
    let with = |pointer: &str, value: Value| set(awa(), pointer, value);
    let long = "a".repeat(101);
    let long_email = format!("{}@example.ci", "a".repeat(250));
    let cases: Vec<(Value, &str)> = vec![
        (with("/firstName", json!("<absent>")), "firstName"),
        (with("/firstName", Value::Null), "firstName"),
        (with("/firstName", json!(42)), "firstName"),
        (with("/firstName", json!("")), "firstName"),
        (with("/firstName", json!("   ")), "firstName"),
        (with("/firstName", json!(long)), "firstName"),
        (with("/firstName", json!("Awa\u{0007}")), "firstName"),
        (with("/lastName", json!("<absent>")), "lastName"),
        (with("/lastName", json!(["Koné"])), "lastName"),
        (with("/lastName", json!("Ko\nné")), "lastName"),
        (with("/email", json!("<absent>")), "email"),
        (with("/email", Value::Null), "email"),
        (with("/email", json!("not-an-email")), "email"),
        (with("/email", json!(long_email)), "email"),
        (with("/email", json!(true)), "email"),
        (with("/phoneNumber", json!("<absent>")), "phoneNumber"),
        (with("/phoneNumber", json!("070102030")), "phoneNumber"),
        (with("/phoneNumber", json!("07010203045")), "phoneNumber"),
        (with("/phoneNumber", json!("07010203ab")), "phoneNumber"),
        (with("/phoneNumber", json!("+2260701020304")), "phoneNumber"),
        (with("/phoneNumber", json!(701020304)), "phoneNumber"),
        (with("/address", json!("<absent>")), "address"),
        (with("/address", Value::Null), "address"),
        (with("/address", json!("Abidjan")), "address"),
        (with("/address/countryCode", json!("FR")), "countryCode"),
        (with("/address/countryCode", json!("<absent>")), "countryCode"),
        (with("/address/city", json!(12)), "city"),
        (with("/address/city", json!("")), "city"),
        (with("/address/streetAddress", json!("x".repeat(201))), "streetAddress"),
        (json!([awa()]), "body"),
        (json!("customer"), "body"),
    ];
    for (body, field) in cases {
        let a = answer(app.post("/v1/customer").bearer_auth(&token).json(&body)).await;
        assert_eq!(a.status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(a.body["message"], "BadRequestError", "{body}");
        let reason = a.body["reason"].as_str().unwrap();
        if field != "body" {
            assert!(reason.contains(field), "reason {reason:?} names {field}");
        }
    }
    // Invalid UTF-8 inside a JSON string.
    let mut raw = br#"{"firstName":"A"#.to_vec();
    raw.extend_from_slice(&[0xff, 0xfe]);
    raw.extend_from_slice(
        br#"","lastName":"K","email":"a@b.ci","phoneNumber":"0701020304","address":{"countryCode":"CI"}}"#,
    );
    let a = answer(
        app.post("/v1/customer")
            .bearer_auth(&token)
            .header("Content-Type", "application/json")
            .body(raw),
    )
    .await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST);
    assert_eq!(list_len(&app, &token).await, 0, "nothing was written");
}

async fn injection_looking_strings_are_stored_verbatim(app: TestApp) {
    let token = app.sandbox_token().await;
    let mut body = awa();
    body["firstName"] = json!("Robert'); DROP TABLE customers;--");
    body["lastName"] = json!("<script>alert(1)</script>");
    body["address"]["city"] = json!("{{7*7}} ${jndi:ldap://x} %s%n");
    let a = answer(app.post("/v1/customer").bearer_auth(&token).json(&body)).await;
    assert_eq!(a.status, StatusCode::OK, "{}", a.body);
    let id = a.body["data"]["id"].as_str().unwrap();
    let fetched = answer(app.get(&format!("/v1/customer/{id}")).bearer_auth(&token)).await;
    assert_eq!(fetched.body["data"]["firstName"], body["firstName"]);
    assert_eq!(fetched.body["data"]["lastName"], body["lastName"]);
    assert_eq!(fetched.body["data"]["address"]["city"], body["address"]["city"]);
    assert_eq!(list_len(&app, &token).await, 1, "the table is still there");
}

async fn unknown_customer_ids_are_404(app: TestApp) {
    let token = app.sandbox_token().await;
    let ids = [
        uuid::Uuid::new_v4().to_string(),
        "not-a-uuid".into(),
        "%FF%FE".into(),
        "' OR '1'='1".into(),
    ];
    for id in ids {
        for prefix in ["/v1/customer/", "/v1/customers/fetch-data/"] {
            let a = answer(app.get(&format!("{prefix}{id}")).bearer_auth(&token)).await;
            assert_eq!(a.status, StatusCode::NOT_FOUND, "{prefix}{id}");
            assert_eq!(a.body["statusCode"], 404);
            assert_eq!(a.body["message"], "NotFoundError");
        }
    }
}
