//! Every POSTed form of the pages, read and checked here and nowhere else: a handler takes a
//! typed form whose CSRF token has already been compared, so a new form cannot forget the check.
//!
//! - [`CsrfForm<T>`]: a dashboard form, its `csrf_token` checked against the session's token
//!   (derived from the session cookie); no session: to the sign-in page; a wrong token: 403.
//! - [`CsrfUpload`]: the same for the multipart upload of a payout batch's CSV.
//! - [`CookieCsrfForm<T>`]: a form served without a session (sign-in, a payment link's payer
//!   page), checked by double submit: the `csrf_token` field must equal the cookie the form
//!   was served with ([`CookieForm::COOKIE`]). Its handler takes it as a `Result`, so that it
//!   chooses what comes first (the payer page answers an unknown link before a stale form).
//!
//! A form's fields are read as the browser sends them (`application/x-www-form-urlencoded`),
//! the last of a repeated field winning; a field the form type does not name is ignored, one
//! it names but the request lacks is `None` or empty. A body that is no form carries no token
//! and is refused like a wrong one.

use std::collections::HashMap;

use axum::extract::multipart::Multipart;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;

use super::dashboard::layout;
use super::dashboard::session::{cookie, Ctx, NoSession};
use crate::service::Gateway;

/// The field every form carries its token in.
const TOKEN_FIELD: &str = "csrf_token";

/// Whether `presented` is the token expected, compared in constant time. `expected` empty (no
/// cookie) matches nothing.
fn same_token(expected: &str, presented: &str) -> bool {
    !expected.is_empty() && crate::operator::same_secret(expected, presented)
}

/// A form body's fields, the last of a repeated one winning (as a browser's form has each once).
async fn fields(request: Request, gateway: &Gateway) -> HashMap<String, String> {
    axum::Form::<Vec<(String, String)>>::from_request(request, gateway)
        .await
        .map(|form| form.0.into_iter().collect())
        .unwrap_or_default()
}

/// `fields` as the form type `T`; the token taken out first.
fn typed<T: DeserializeOwned>(mut fields: HashMap<String, String>) -> Option<(String, T)> {
    let token = fields.remove(TOKEN_FIELD).unwrap_or_default();
    let pairs: Vec<(String, String)> = fields.into_iter().collect();
    let encoded = serde_urlencoded::to_string(&pairs).ok()?;
    let form = serde_urlencoded::from_str(&encoded).ok()?;
    Some((token, form))
}

/// A form of a button: nothing but its token.
#[derive(serde::Deserialize)]
pub struct NoFields {}

/// A dashboard form of a signed-in merchant, its CSRF token checked: its session and fields.
pub struct CsrfForm<T> {
    pub ctx: Ctx,
    pub form: T,
}

/// Why a dashboard form is not handled: no session (to the sign-in page), or not this
/// session's token (403 page).
pub enum FormRefused {
    NoSession(NoSession),
    Forbidden(crate::web::dashboard::i18n::Lang),
}

impl IntoResponse for FormRefused {
    fn into_response(self) -> Response {
        match self {
            FormRefused::NoSession(no_session) => no_session.into_response(),
            FormRefused::Forbidden(lang) => layout::forbidden(lang),
        }
    }
}

/// The session a request comes with, and the request to read its body from.
async fn signed_in(request: Request, gateway: &Gateway) -> Result<(Ctx, Request), FormRefused> {
    let (mut parts, body) = request.into_parts();
    let ctx = Ctx::from_request_parts(&mut parts, gateway)
        .await
        .map_err(FormRefused::NoSession)?;
    Ok((ctx, Request::from_parts(parts, body)))
}

impl<T: DeserializeOwned + Send> FromRequest<Gateway> for CsrfForm<T> {
    type Rejection = FormRefused;

    async fn from_request(request: Request, gateway: &Gateway) -> Result<Self, Self::Rejection> {
        let (ctx, request) = signed_in(request, gateway).await?;
        let fields = fields(request, gateway).await;
        match typed::<T>(fields) {
            Some((token, form)) if ctx.csrf_matches(&token) => Ok(CsrfForm { ctx, form }),
            _ => Err(FormRefused::Forbidden(ctx.lang())),
        }
    }
}

/// A multipart upload of a signed-in merchant: its file and text fields, the token among them
/// checked. `upload` is `None` when the body could not be read as multipart at all (then it
/// carries no token, and nothing can be done with it but say the file is missing).
pub struct CsrfUpload {
    pub ctx: Ctx,
    pub upload: Option<Upload>,
}

/// An upload's file (`file`) and its other fields.
pub struct Upload {
    pub file: Option<Vec<u8>>,
    pub fields: HashMap<String, String>,
}

async fn read_upload(mut multipart: Multipart) -> Option<Upload> {
    let mut file = None;
    let mut fields = HashMap::new();
    while let Some(field) = multipart.next_field().await.ok()? {
        let name = field.name().unwrap_or_default().to_owned();
        let bytes = field.bytes().await.ok()?;
        if name == "file" {
            file = Some(bytes.to_vec());
        } else {
            fields.insert(name, String::from_utf8_lossy(&bytes).into_owned());
        }
    }
    Some(Upload { file, fields })
}

impl FromRequest<Gateway> for CsrfUpload {
    type Rejection = FormRefused;

    async fn from_request(request: Request, gateway: &Gateway) -> Result<Self, Self::Rejection> {
        let (ctx, request) = signed_in(request, gateway).await?;
        let upload = match Multipart::from_request(request, gateway).await {
            Ok(multipart) => read_upload(multipart).await,
            Err(_) => None,
        };
        if let Some(upload) = &upload {
            let token = upload.fields.get(TOKEN_FIELD).map(String::as_str).unwrap_or("");
            if !ctx.csrf_matches(token) {
                return Err(FormRefused::Forbidden(ctx.lang()));
            }
        }
        Ok(CsrfUpload { ctx, upload })
    }
}

/// A form served without a session, and the cookie its token is double-submitted in.
pub trait CookieForm: DeserializeOwned + Send {
    const COOKIE: &'static str;
}

/// A form checked by double submit (see the module's header).
pub struct CookieCsrfForm<T>(pub T);

/// The form's token is not its cookie's (or there is no cookie): the form is stale or forged.
pub struct CsrfRefused;

impl IntoResponse for CsrfRefused {
    fn into_response(self) -> Response {
        layout::forbidden(crate::web::dashboard::i18n::Lang::Fr)
    }
}

impl<T: CookieForm> FromRequest<Gateway> for CookieCsrfForm<T> {
    type Rejection = CsrfRefused;

    async fn from_request(request: Request, gateway: &Gateway) -> Result<Self, Self::Rejection> {
        let expected = cookie(request.headers(), T::COOKIE).unwrap_or("").to_owned();
        let (token, form) = typed::<T>(fields(request, gateway).await).ok_or(CsrfRefused)?;
        if same_token(&expected, &token) {
            Ok(CookieCsrfForm(form))
        } else {
            Err(CsrfRefused)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Sample {
        url: Option<String>,
        #[serde(default)]
        label: String,
    }

    fn form(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn a_form_is_typed_with_its_token_taken_out() {
        let (token, sample) =
            typed::<Sample>(form(&[("csrf_token", "abc"), ("url", "https://x"), ("other", "1")])).expect("a form");
        assert_eq!(token, "abc");
        assert_eq!(
            sample,
            Sample {
                url: Some("https://x".into()),
                label: String::new()
            }
        );
    }

    #[test]
    fn a_missing_token_or_cookie_matches_nothing() {
        let (token, _) = typed::<Sample>(form(&[("url", "u")])).expect("a form");
        assert_eq!(token, "");
        assert!(!same_token("", ""));
        assert!(!same_token("abc", ""));
        assert!(!same_token("abc", "abd"));
        assert!(same_token("abc", "abc"));
    }
}
