//! A browser as the dashboard tests need one: plain HTTP with its own cookie jar (so the tests
//! see each `Set-Cookie`), no redirects followed, and the forms' CSRF tokens read from pages.

use std::collections::HashMap;

use reqwest::header::{HeaderMap, COOKIE, SET_COOKIE};
use reqwest::StatusCode;

use crate::support::helpers::{Creds, TestApp};

/// A dashboard answer.
pub struct Page {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: String,
}

impl Page {
    pub fn location(&self) -> Option<&str> {
        self.headers.get("location").and_then(|v| v.to_str().ok())
    }

    /// The `Set-Cookie` lines naming `name`.
    pub fn set_cookie(&self, name: &str) -> Option<String> {
        self.headers
            .get_all(SET_COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .find(|v| v.starts_with(&format!("{name}=")))
            .map(str::to_owned)
    }

    /// The value of the first `csrf_token` hidden input.
    pub fn csrf(&self) -> String {
        self.attribute_after("name=\"csrf_token\" value=\"")
            .expect("a form with a csrf_token")
    }

    /// The text of the element with `id` (up to the next tag), if any.
    pub fn text_of(&self, id: &str) -> Option<String> {
        let start = self.body.find(&format!("id=\"{id}\""))?;
        let rest = &self.body[start..];
        let open_end = rest.find('>')? + 1;
        let close = rest[open_end..].find('<')?;
        Some(rest[open_end..open_end + close].trim().to_owned())
    }

    pub fn has_id(&self, id: &str) -> bool {
        self.body.contains(&format!("id=\"{id}\""))
    }

    fn attribute_after(&self, marker: &str) -> Option<String> {
        let start = self.body.find(marker)? + marker.len();
        let end = self.body[start..].find('"')?;
        Some(self.body[start..start + end].to_owned())
    }

    /// The `td.status` of the row `tr[data-transaction-id=id]`.
    pub fn row_status(&self, id: &str) -> Option<String> {
        let start = self.body.find(&format!("data-transaction-id=\"{id}\""))?;
        let row = &self.body[start..start + self.body[start..].find("</tr>")?];
        let cell = row.find("class=\"status\">")? + "class=\"status\">".len();
        Some(row[cell..cell + row[cell..].find('<')?].to_owned())
    }
}

/// A browser on one gateway.
pub struct Browser<'a> {
    app: &'a TestApp,
    client: reqwest::Client,
    pub cookies: HashMap<String, String>,
}

impl<'a> Browser<'a> {
    pub fn new(app: &'a TestApp) -> Browser<'a> {
        Browser {
            app,
            client: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("a client"),
            cookies: HashMap::new(),
        }
    }

    fn cookie_header(&self) -> String {
        self.cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    async fn send(&mut self, request: reqwest::RequestBuilder) -> Page {
        let request = if self.cookies.is_empty() {
            request
        } else {
            request.header(COOKIE, self.cookie_header())
        };
        let response = request.send().await.expect("request sent");
        let status = response.status();
        let headers = response.headers().clone();
        for line in headers.get_all(SET_COOKIE).iter().filter_map(|v| v.to_str().ok()) {
            let pair = line.split(';').next().unwrap_or("");
            if let Some((name, value)) = pair.split_once('=') {
                if value.is_empty() || line.contains("Max-Age=0") {
                    self.cookies.remove(name);
                } else {
                    self.cookies.insert(name.to_owned(), value.to_owned());
                }
            }
        }
        let body = response.text().await.expect("body read");
        Page { status, headers, body }
    }

    pub async fn get(&mut self, path: &str) -> Page {
        let request = self.client.get(self.app.url(path));
        self.send(request).await
    }

    pub async fn post(&mut self, path: &str, fields: &[(&str, &str)]) -> Page {
        let request = self.client.post(self.app.url(path)).form(fields);
        self.send(request).await
    }

    /// Posts `form` of the page at `page_path` with the page's CSRF token.
    pub async fn submit(&mut self, page_path: &str, action: &str, fields: &[(&str, &str)]) -> Page {
        let csrf = self.get(page_path).await.csrf();
        let mut all = vec![("csrf_token", csrf.as_str())];
        all.extend_from_slice(fields);
        self.post(action, &all).await
    }

    /// Signs in with `key` and `secret` through the sign-in form.
    pub async fn sign_in_with(&mut self, key: &str, secret: &str) -> Page {
        self.submit(
            "/dashboard/login",
            "/dashboard/login",
            &[("api_key", key), ("api_secret", secret)],
        )
        .await
    }

    /// Signs in with `creds`, asserting it worked.
    pub async fn sign_in(&mut self, creds: &Creds) -> Page {
        let page = self.sign_in_with(&creds.api_key, &creds.api_secret).await;
        assert_eq!(page.status, StatusCode::SEE_OTHER, "{}", page.body);
        assert_eq!(page.location(), Some("/dashboard"));
        page
    }
}
