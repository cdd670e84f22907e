//! URLs fit for a log line or a stored record. A merchant's webhook URL or an operator's may
//! carry a secret in its userinfo (`https://user:pass@host/`) or its query (`?token=…`); the
//! host, the path and the query's keys are what diagnosing needs, so they are all that is kept.

/// What stands in for a removed secret.
const REDACTED: &str = "REDACTED";

/// `url` without its secrets: the userinfo becomes `REDACTED@`, each query value `REDACTED`
/// (its key kept), a fragment `#REDACTED`. Text that is not a URL passes through the same
/// rules, so nothing that looks like a query survives whatever its form.
pub fn redact_url(url: &str) -> String {
    let (before_fragment, fragment) = match url.split_once('#') {
        Some((before, fragment)) => (before, Some(fragment)),
        None => (url, None),
    };
    let (base, query) = match before_fragment.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (before_fragment, None),
    };
    let mut out = String::with_capacity(url.len());
    out.push_str(&without_userinfo(base));
    if let Some(query) = query {
        out.push('?');
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((key, _)) => format!("{key}={REDACTED}"),
                None if pair.is_empty() => String::new(),
                // A bare value (`?s3cr3t`) is as likely a secret as any.
                None => REDACTED.to_owned(),
            })
            .collect();
        out.push_str(&pairs.join("&"));
    }
    if fragment.is_some_and(|f| !f.is_empty()) {
        out.push('#');
        out.push_str(REDACTED);
    }
    out
}

/// `base` (a URL without query and fragment) with its userinfo replaced.
fn without_userinfo(base: &str) -> String {
    let Some(scheme_end) = base.find("://") else {
        return base.to_owned();
    };
    let rest = &base[scheme_end + 3..];
    let authority = &rest[..rest.find('/').unwrap_or(rest.len())];
    match authority.rfind('@') {
        Some(at) => format!("{}{REDACTED}@{}", &base[..scheme_end + 3], &rest[at + 1..]),
        None => base.to_owned(),
    }
}

/// A transport error of `reqwest`, whose text names the URL it was sending to, with that URL
/// redacted.
pub fn redact_error(mut e: reqwest::Error) -> reqwest::Error {
    if let Some(url) = e.url_mut() {
        match reqwest::Url::parse(&redact_url(url.as_str())) {
            Ok(redacted) => *url = redacted,
            Err(_) => return e.without_url(),
        }
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_values_userinfo_and_fragments_are_removed() {
        for (url, redacted) in [
            ("https://h/p?secret=abc", "https://h/p?secret=REDACTED"),
            (
                "https://h/p?a=1&b=&c&&d=x=y",
                "https://h/p?a=REDACTED&b=REDACTED&REDACTED&&d=REDACTED",
            ),
            (
                "https://user:pass@h:8443/p?x=1#frag",
                "https://REDACTED@h:8443/p?x=REDACTED#REDACTED",
            ),
            ("https://token@h/p", "https://REDACTED@h/p"),
            ("postgres://u:secret@h/db", "postgres://REDACTED@h/db"),
            ("https://h/p@q", "https://h/p@q"),
            ("https://h/p", "https://h/p"),
            ("sqlite://data/x.db", "sqlite://data/x.db"),
            ("https://h/p?", "https://h/p?"),
            ("not a url?k=v", "not a url?k=REDACTED"),
        ] {
            assert_eq!(redact_url(url), redacted, "{url}");
        }
    }
}
