//! A merchant's return URL, where a payer's browser is sent after paying: `http` or `https`,
//! at most 2,048 characters, free of control characters. `Url::parse` would drop a tab or a
//! line feed and accept the rest, but the text is stored and sent on as given: a NUL is refused
//! by PostgreSQL, and a line feed cannot be a `Location` header. One rule for the API, the
//! dashboard's forms and the use cases behind both.

/// The longest return URL kept.
pub const MAX_RETURN_URL_CHARS: usize = 2048;

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ReturnUrlProblem {
    #[error("must not contain control characters")]
    ControlCharacter,
    #[error("must be an http:// or https:// URL")]
    NotHttp,
}

/// The URL as given, when it is one; `None` for an empty text.
pub fn return_url(raw: &str) -> Result<Option<String>, ReturnUrlProblem> {
    if raw.is_empty() {
        return Ok(None);
    }
    if raw.chars().any(char::is_control) {
        return Err(ReturnUrlProblem::ControlCharacter);
    }
    let ok = raw.chars().count() <= MAX_RETURN_URL_CHARS
        && reqwest::Url::parse(raw).is_ok_and(|u| matches!(u.scheme(), "http" | "https"));
    if ok {
        Ok(Some(raw.to_owned()))
    } else {
        Err(ReturnUrlProblem::NotHttp)
    }
}

/// The origins (`https://shop.ci`) of `urls`, each once: where a page's form may lead a browser
/// on to (`form-action`), for the return URLs a payer is sent to.
pub fn origins<'a>(urls: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut origins: Vec<String> = Vec::new();
    for url in urls {
        let Ok(url) = reqwest::Url::parse(url) else { continue };
        let origin = url.origin();
        if origin.is_tuple() && !origins.contains(&origin.ascii_serialization()) {
            origins.push(origin.ascii_serialization());
        }
    }
    origins
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_http_urls_are_kept() {
        assert_eq!(return_url(""), Ok(None));
        assert_eq!(
            return_url("https://shop.example.ci/merci?o=1"),
            Ok(Some("https://shop.example.ci/merci?o=1".into()))
        );
        assert_eq!(
            return_url("https://shop.example.ci/\nSet-Cookie: x"),
            Err(ReturnUrlProblem::ControlCharacter)
        );
        for bad in [
            "javascript:alert(1)",
            "ftp://x.ci",
            "shop.example.ci",
            &format!("https://x.ci/{}", "a".repeat(2048)),
        ] {
            assert_eq!(return_url(bad), Err(ReturnUrlProblem::NotHttp), "{bad:.40}");
        }
    }
}
