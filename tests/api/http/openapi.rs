//! Keeps `docs/openapi.yaml` honest: every JSON answer of the black-box suite is checked against
//! the response schema the document gives for its path, method and status. A small validator
//! for the JSON Schema the document uses (types, properties, required, items, enum, const,
//! pattern, oneOf, anyOf, allOf, $ref) is enough, and keeps a heavy dependency out. Webhook
//! deliveries are checked against the document's `webhooks:` the same way. The route check
//! below makes sure every route the routers serve is in the document, and nothing else is; the
//! document's own rules (operation ids, tags, 401 and 429, the webhook) are in `openapi_document.rs`.

use std::sync::OnceLock;

use serde_json::Value;

pub(super) fn document() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(|| {
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/openapi.yaml")).unwrap();
        let yaml: serde_yaml::Value = serde_yaml::from_str(&text).expect("docs/openapi.yaml is valid YAML");
        serde_json::to_value(yaml).unwrap()
    })
}

pub(super) fn resolve<'a>(doc: &'a Value, node: &'a Value) -> &'a Value {
    match node.get("$ref").and_then(Value::as_str) {
        Some(reference) => {
            let pointer = reference.trim_start_matches('#');
            resolve(
                doc,
                doc.pointer(pointer)
                    .unwrap_or_else(|| panic!("dangling $ref {reference}")),
            )
        }
        None => node,
    }
}

fn type_matches(name: &str, value: &Value) -> bool {
    match name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        other => panic!("unknown type {other}"),
    }
}

/// The reasons `value` does not satisfy `schema`, empty when it does.
fn errors(doc: &Value, schema: &Value, value: &Value, at: &str) -> Vec<String> {
    let schema = resolve(doc, schema);
    let mut out = Vec::new();
    if let Some(t) = schema.get("type") {
        let ok = match t {
            Value::String(name) => type_matches(name, value),
            Value::Array(names) => names.iter().any(|n| type_matches(n.as_str().unwrap(), value)),
            _ => true,
        };
        if !ok {
            return vec![format!("{at}: {value} is not of type {t}")];
        }
    }
    if let Some(c) = schema.get("const") {
        if c != value {
            out.push(format!("{at}: {value} is not {c}"));
        }
    }
    if let Some(Value::Array(options)) = schema.get("enum") {
        if !options.contains(value) {
            out.push(format!("{at}: {value} is not one of {options:?}"));
        }
    }
    if let (Some(pattern), Some(text)) = (schema.get("pattern").and_then(Value::as_str), value.as_str()) {
        if !simple_pattern_matches(pattern, text) {
            out.push(format!("{at}: {text:?} does not match {pattern}"));
        }
    }
    if let Value::Object(map) = value {
        if let Some(Value::Array(required)) = schema.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !map.contains_key(name) {
                    out.push(format!("{at}: missing {name}"));
                }
            }
        }
        if let Some(Value::Object(properties)) = schema.get("properties") {
            for (name, field) in map {
                match properties.get(name) {
                    Some(sub) => out.extend(errors(doc, sub, field, &format!("{at}.{name}"))),
                    None => out.push(format!("{at}: {name} is not in the document")),
                }
            }
        }
    }
    if let (Some(items), Value::Array(list)) = (schema.get("items"), value) {
        for (i, item) in list.iter().enumerate() {
            out.extend(errors(doc, items, item, &format!("{at}[{i}]")));
        }
    }
    if let Some(Value::Array(options)) = schema.get("oneOf") {
        let passing = options.iter().filter(|o| errors(doc, o, value, at).is_empty()).count();
        if passing != 1 {
            out.push(format!("{at}: matches {passing} of the oneOf schemas, not exactly one"));
        }
    }
    if let Some(Value::Array(parts)) = schema.get("allOf") {
        for part in parts {
            out.extend(errors(doc, part, value, at));
        }
    }
    if let Some(Value::Array(options)) = schema.get("anyOf") {
        if !options.iter().any(|o| errors(doc, o, value, at).is_empty()) {
            out.push(format!("{at}: matches none of the anyOf schemas"));
        }
    }
    out
}

/// A character class, how many times it must appear, and how many times it may (`None`: any).
type Token = (Vec<(char, char)>, usize, Option<usize>);

/// The patterns the document uses: `^…$` with literal characters, `[…]` classes and `{n}` /
/// `+` / `?`, matched greedily (the document's patterns never need to backtrack).
fn simple_pattern_matches(pattern: &str, text: &str) -> bool {
    let body = pattern.trim_start_matches('^').trim_end_matches('$');
    let mut tokens: Vec<Token> = Vec::new();
    let chars: Vec<char> = body.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let class = if chars[i] == '[' {
            let end = i + chars[i..].iter().position(|c| *c == ']').unwrap();
            let inner = &chars[i + 1..end];
            let mut ranges = Vec::new();
            let mut j = 0;
            while j < inner.len() {
                if j + 2 < inner.len() && inner[j + 1] == '-' {
                    ranges.push((inner[j], inner[j + 2]));
                    j += 3;
                } else {
                    ranges.push((inner[j], inner[j]));
                    j += 1;
                }
            }
            i = end + 1;
            ranges
        } else {
            i += 1;
            vec![(chars[i - 1], chars[i - 1])]
        };
        let (count, most) = if chars.get(i) == Some(&'{') {
            let end = i + chars[i..].iter().position(|c| *c == '}').unwrap();
            let n: usize = chars[i + 1..end].iter().collect::<String>().parse().unwrap();
            i = end + 1;
            (n, Some(n))
        } else if chars.get(i) == Some(&'+') {
            i += 1;
            (1, None)
        } else if chars.get(i) == Some(&'?') {
            i += 1;
            (0, Some(1))
        } else {
            (1, Some(1))
        };
        tokens.push((class, count, most));
    }
    let text: Vec<char> = text.chars().collect();
    let mut pos = 0;
    for (class, count, most) in tokens {
        let fits = |c: char| class.iter().any(|(a, b)| (*a..=*b).contains(&c));
        for _ in 0..count {
            if pos >= text.len() || !fits(text[pos]) {
                return false;
            }
            pos += 1;
        }
        let mut extra = 0;
        while most.is_none_or(|m| count + extra < m) && pos < text.len() && fits(text[pos]) {
            pos += 1;
            extra += 1;
        }
    }
    pos == text.len()
}

/// The document's path template for a concrete path, preferring literal segments.
pub(super) fn template_for(path: &str) -> Option<String> {
    let segments: Vec<&str> = path.trim_end_matches('/').split('/').collect();
    let paths = document()["paths"].as_object().unwrap();
    paths
        .keys()
        .filter_map(|template| {
            let parts: Vec<&str> = template.split('/').collect();
            if parts.len() != segments.len() {
                return None;
            }
            let mut literal = 0;
            for (p, s) in parts.iter().zip(&segments) {
                if p.starts_with('{') {
                    if s.is_empty() {
                        return None;
                    }
                } else if p == s {
                    literal += 1;
                } else {
                    return None;
                }
            }
            Some((literal, template.clone()))
        })
        .max()
        .map(|(_, t)| t)
}

/// Asserts that a JSON answer is what the document promises for `method path` and `status`.
pub fn assert_conforms(method: &str, path: &str, status: u16, body: &Value) {
    let doc = document();
    let dialect_error = if path == "/v2" || path.starts_with("/v2/") {
        "V2Error"
    } else {
        "V1Error"
    };
    let schema = match template_for(path) {
        // Unknown routes and wrong methods answer the error envelope of their prefix.
        None => serde_json::json!({"$ref": format!("#/components/schemas/{dialect_error}")}),
        Some(template) => {
            let Some(operation) = doc["paths"][&template].get(method.to_ascii_lowercase()) else {
                assert_eq!(status, 405, "{method} {path} is not in the document");
                let schema = serde_json::json!({"$ref": format!("#/components/schemas/{dialect_error}")});
                let problems = errors(doc, &schema, body, "body");
                assert!(problems.is_empty(), "{method} {path} {status}: {problems:?}\n{body}");
                return;
            };
            let responses = &operation["responses"];
            let response = responses
                .get(status.to_string())
                .or_else(|| responses.get("default"))
                .unwrap_or_else(|| panic!("{method} {template}: status {status} is not documented"));
            let response = resolve(doc, response);
            match response.pointer("/content/application~1json/schema") {
                Some(schema) => schema.clone(),
                None => panic!("{method} {template} {status}: the document gives no JSON body, the server sent one"),
            }
        }
    };
    let problems = errors(doc, &schema, body, "body");
    assert!(
        problems.is_empty(),
        "{method} {path} {status} does not conform to docs/openapi.yaml: {problems:?}\n{body}"
    );
}

/// Asserts that a webhook delivery is what the document's `webhooks:` promises: its required
/// headers (by name, lower case) present, and its body the documented schema.
pub fn assert_webhook_conforms(headers: &[(&str, &str)], body: &Value) {
    let doc = document();
    let webhook = &doc["webhooks"]["transactionFinal"]["post"];
    for parameter in webhook["parameters"].as_array().unwrap() {
        let name = parameter["name"].as_str().unwrap();
        if parameter["required"] == true {
            assert!(
                headers.iter().any(|(n, v)| *n == name && !v.is_empty()),
                "the delivery has no {name} header"
            );
        }
    }
    let schema = &webhook["requestBody"]["content"]["application/json"]["schema"];
    let problems = errors(doc, schema, body, "body");
    assert!(
        problems.is_empty(),
        "the webhook body does not conform to docs/openapi.yaml: {problems:?}\n{body}"
    );
}

#[test]
fn the_document_is_openapi_3_1_and_covers_every_route() {
    let doc = document();
    assert_eq!(doc["openapi"], "3.1.0");
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/api/v1/mod.rs")).unwrap()
        + &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/api/v2/mod.rs")).unwrap()
        + &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/api/mod.rs")).unwrap()
        + &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/api/invented.rs")).unwrap();
    let mut routes = std::collections::HashSet::new();
    // `.route("…"` and `.route(\n "…"` alike, and `.route(&format!("{prefix}…"` for the routes
    // every generation mounts under its prefix (`api::invented`).
    for after in src.split(".route(").skip(1) {
        let after = after.trim_start();
        let (rest, templated) = match after.strip_prefix("&format!(\"") {
            Some(rest) => (rest, true),
            None => match after.strip_prefix('"') {
                Some(rest) => (rest, false),
                None => continue,
            },
        };
        let route = &rest[..rest.find('"').unwrap()];
        let expanded: Vec<String> = if templated {
            let path = route.replace("{{", "{").replace("}}", "}");
            ["/v1", "/v2"].iter().map(|v| path.replace("{prefix}", v)).collect()
        } else {
            vec![route.to_owned()]
        };
        for route in expanded {
            assert!(
                doc["paths"].get(&route).is_some(),
                "{route} is missing from docs/openapi.yaml"
            );
            routes.insert(route);
        }
    }
    assert!(routes.len() >= 28, "found {} routes", routes.len());
    for path in doc["paths"].as_object().unwrap().keys() {
        assert!(
            routes.contains(path),
            "docs/openapi.yaml documents {path}, which no router serves"
        );
    }
    assert!(simple_pattern_matches("^[A-Z0-9]{10}$", "AB12CD34EF"));
    assert!(!simple_pattern_matches("^[A-Z0-9]{10}$", "AB12CD34E"));
    assert!(simple_pattern_matches("^[0-9]+$", "1500"));
    assert!(!simple_pattern_matches("^[0-9]+$", "15.00"));
    assert!(simple_pattern_matches("^-?[0-9]+$", "-1015"));
    assert!(simple_pattern_matches("^-?[0-9]+$", "1015"));
    assert!(!simple_pattern_matches("^-?[0-9]+$", "--1"));
    assert!(!simple_pattern_matches("^-?[0-9]+$", "-"));
}
