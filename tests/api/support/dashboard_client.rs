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

    /// Posts `fields` and one file as `multipart/form-data`, as a form with a file input does.
    pub async fn post_multipart(&mut self, path: &str, fields: &[(&str, &str)], file: (&str, &[u8])) -> Page {
        let boundary = "----momo-test-boundary-7MA4YWxkTrZu0gW";
        let mut body = Vec::new();
        for (name, value) in fields {
            body.extend_from_slice(
                format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n")
                    .as_bytes(),
            );
        }
        let (file_name, bytes) = file;
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{file_name}\"\r\n\
                 Content-Type: text/csv\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(bytes);
        body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
        let request = self
            .client
            .post(self.app.url(path))
            .header("content-type", format!("multipart/form-data; boundary={boundary}"))
            .body(body);
        self.send(request).await
    }

    /// The hidden inputs of the form `form_id` on `page`, as its submission sends them.
    pub fn hidden_fields(page: &Page, form_id: &str) -> Vec<(String, String)> {
        let start = page.body.find(&format!("id=\"{form_id}\"")).expect("the form");
        let form = &page.body[start..start + page.body[start..].find("</form>").expect("its end")];
        let mut fields = Vec::new();
        let mut rest = form;
        while let Some(at) = rest.find("<input type=\"hidden\" name=\"") {
            rest = &rest[at + "<input type=\"hidden\" name=\"".len()..];
            let name = &rest[..rest.find('"').unwrap()];
            let value_at = rest.find("value=\"").unwrap() + "value=\"".len();
            let value = &rest[value_at..value_at + rest[value_at..].find('"').unwrap()];
            let value = value
                .replace("&quot;", "\"")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&");
            fields.push((name.to_owned(), value));
        }
        fields
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
