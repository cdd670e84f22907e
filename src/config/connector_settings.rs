//! The operator connectors' rows of the settings table (see `settings.rs`): which protocol
//! serves each operator, and how to reach and authenticate to each protocol's deployment.

use super::connectors;
use super::parse;
use super::settings::{put, Initial, Setting};

pub static CONNECTORS: &[Setting] = &[
    Setting {
        key: "operator_connectors",
        var: "MOMO_OPERATOR_CONNECTORS",
        default: Initial::Unset("the built-in simulator everywhere"),
        accepts: "comma-separated OPERATOR:Environment=PROTOCOL (simulator, momo-openapi, wave-checkout), e.g. ALPHA:Production=momo-openapi",
        doc: "which connector serves each operator in each environment; unnamed ones use the simulator",
        secret: false,
        write: |c, v| put(&mut c.connectors.routes, connectors::parse_routes(v)),
    },
    Setting {
        key: "operator_timeout_ms",
        var: "MOMO_OPERATOR_TIMEOUT_MS",
        default: Initial::Value("15000"),
        accepts: "a whole number of milliseconds from 100 to 120000",
        doc: "the longest one call to an operator may take; after sending, a timeout leaves the payment PENDING",
        secret: false,
        write: |c, v| put(&mut c.connectors.timeout, parse::millis(v, 100, 120_000)),
    },
    Setting {
        key: "momo_openapi_url",
        var: "MOMO_MOMO_OPENAPI_URL",
        default: Initial::Unset("none (required by a momo-openapi route)"),
        accepts: "an http:// or https:// URL",
        doc: "the MoMo Open API's base URL, e.g. https://sandbox.momodeveloper.mtn.com",
        secret: false,
        write: |c, v| put(&mut c.connectors.momo_url, parse::http_url(v).map(Some)),
    },
    Setting {
        key: "momo_openapi_target_environment",
        var: "MOMO_MOMO_OPENAPI_TARGET_ENVIRONMENT",
        default: Initial::Value("sandbox"),
        accepts: "the X-Target-Environment name, e.g. sandbox or mtnivorycoast",
        doc: "the MoMo Open API environment payments are routed to",
        secret: false,
        write: |c, v| put(&mut c.connectors.momo_target_environment, connectors::parse_text(v)),
    },
    Setting {
        key: "momo_openapi_collection",
        var: "MOMO_MOMO_OPENAPI_COLLECTION",
        default: Initial::Unset("none (required by a momo-openapi route)"),
        accepts: "API_USER:API_KEY:SUBSCRIPTION_KEY",
        doc: "the collection product's credentials",
        secret: true,
        write: |c, v| put(&mut c.connectors.momo_collection, connectors::parse_credentials(v).map(Some)),
    },
    Setting {
        key: "momo_openapi_disbursement",
        var: "MOMO_MOMO_OPENAPI_DISBURSEMENT",
        default: Initial::Unset("none (required by a momo-openapi route)"),
        accepts: "API_USER:API_KEY:SUBSCRIPTION_KEY",
        doc: "the disbursement product's credentials",
        secret: true,
        write: |c, v| put(&mut c.connectors.momo_disbursement, connectors::parse_credentials(v).map(Some)),
    },
    Setting {
        key: "momo_openapi_callback_token",
        var: "MOMO_MOMO_OPENAPI_CALLBACK_TOKEN",
        default: Initial::Unset("none: MoMo payments are settled by polling only"),
        accepts: "a secret of at least 16 characters",
        doc: "the token our MoMo callback URLs carry, which authenticates callbacks (they have no signature)",
        secret: true,
        write: |c, v| put(&mut c.connectors.momo_callback_token, connectors::parse_secret(v).map(Some)),
    },
    Setting {
        key: "wave_url",
        var: "MOMO_WAVE_URL",
        default: Initial::Value("https://api.wave.com"),
        accepts: "an http:// or https:// URL",
        doc: "Wave's API base URL",
        secret: false,
        write: |c, v| put(&mut c.connectors.wave_url, parse::http_url(v).map(Some)),
    },
    Setting {
        key: "wave_api_key",
        var: "MOMO_WAVE_API_KEY",
        default: Initial::Unset("none (required by a wave-checkout route)"),
        accepts: "the API key from the Wave Business Portal",
        doc: "Wave's API key (checkout and payout)",
        secret: true,
        write: |c, v| put(&mut c.connectors.wave_api_key, connectors::parse_text(v).map(Some)),
    },
    Setting {
        key: "wave_webhook_secret",
        var: "MOMO_WAVE_WEBHOOK_SECRET",
        default: Initial::Unset("none (required by a wave-checkout route)"),
        accepts: "the webhook's shared secret from the Wave Business Portal",
        doc: "the secret that signs Wave's webhooks (Wave-Signature)",
        secret: true,
        write: |c, v| put(&mut c.connectors.wave_webhook_secret, connectors::parse_text(v).map(Some)),
    },
];
