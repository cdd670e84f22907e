//! `momo-operator-emulator`: runs the operator emulator (MTN MoMo Open API and Wave Checkout /
//! Payout over HTTP, outcomes from the Sandbox number table, faults on demand) until Ctrl-C.
//! Every flag has an environment variable; see `docs/emulator.md`.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, ValueEnum};
use momo_operator_emulator::{CallbackMethod, Emulator, EmulatorSettings, FaultRule, MomoProduct};

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Method {
    Put,
    Post,
}

/// An HTTP emulator of the MTN MoMo Open API and of Wave's Checkout and Payout APIs, for tests.
///
/// The last two digits of the phone number decide each payment's fate (docs/sandbox.md);
/// the X-Emulator-Fault header and --faults inject faults; /_emulator/ is the admin API.
#[derive(Debug, Parser)]
#[command(name = "momo-operator-emulator", version)]
struct Args {
    /// Address to listen on (port 0 picks a free port).
    #[arg(long, env = "EMULATOR_LISTEN", default_value = "127.0.0.1:9090")]
    listen: SocketAddr,
    /// Base of the URLs handed out (Wave's wave_launch_url); http://<listen> by default.
    #[arg(long, env = "EMULATOR_PUBLIC_URL")]
    public_url: Option<String>,
    /// The Sandbox table's delay, in milliseconds.
    #[arg(long, env = "EMULATOR_DELAY_MS", default_value_t = 2000)]
    delay_ms: u64,
    /// Default faults applied to every request, in the X-Emulator-Fault syntax
    /// (e.g. "latency=200ms,callback=duplicate").
    #[arg(long, env = "EMULATOR_FAULTS")]
    faults: Option<String>,
    /// Allow callbacks and webhooks to non-loopback hosts.
    #[arg(long, env = "EMULATOR_ALLOW_REMOTE_CALLBACKS")]
    allow_remote_callbacks: bool,
    /// MoMo collection API user.
    #[arg(long, env = "EMULATOR_MOMO_COLLECTION_API_USER", default_value = "collection-user")]
    momo_collection_api_user: String,
    /// MoMo collection API key.
    #[arg(
        long,
        env = "EMULATOR_MOMO_COLLECTION_API_KEY",
        default_value = "collection-key",
        hide_default_value = true,
        hide_env_values = true
    )]
    momo_collection_api_key: String,
    /// MoMo collection Ocp-Apim-Subscription-Key.
    #[arg(
        long,
        env = "EMULATOR_MOMO_COLLECTION_SUBSCRIPTION_KEY",
        default_value = "collection-subscription",
        hide_default_value = true,
        hide_env_values = true
    )]
    momo_collection_subscription_key: String,
    /// MoMo disbursement API user.
    #[arg(
        long,
        env = "EMULATOR_MOMO_DISBURSEMENT_API_USER",
        default_value = "disbursement-user"
    )]
    momo_disbursement_api_user: String,
    /// MoMo disbursement API key.
    #[arg(
        long,
        env = "EMULATOR_MOMO_DISBURSEMENT_API_KEY",
        default_value = "disbursement-key",
        hide_default_value = true,
        hide_env_values = true
    )]
    momo_disbursement_api_key: String,
    /// MoMo disbursement Ocp-Apim-Subscription-Key.
    #[arg(
        long,
        env = "EMULATOR_MOMO_DISBURSEMENT_SUBSCRIPTION_KEY",
        default_value = "disbursement-subscription",
        hide_default_value = true,
        hide_env_values = true
    )]
    momo_disbursement_subscription_key: String,
    /// The accepted X-Target-Environment.
    #[arg(long, env = "EMULATOR_MOMO_TARGET_ENVIRONMENT", default_value = "sandbox")]
    momo_target_environment: String,
    /// The accepted MoMo currency.
    #[arg(long, env = "EMULATOR_MOMO_CURRENCY", default_value = "XOF")]
    momo_currency: String,
    /// Lifetime of MoMo access tokens, in seconds.
    #[arg(long, env = "EMULATOR_MOMO_TOKEN_TTL_S", default_value_t = 3600)]
    momo_token_ttl_s: u64,
    /// HTTP method of MoMo callbacks.
    #[arg(long, env = "EMULATOR_MOMO_CALLBACK_METHOD", value_enum, default_value = "put")]
    momo_callback_method: Method,
    /// The API user's registered callback host; other X-Callback-Url hosts are refused.
    #[arg(long, env = "EMULATOR_MOMO_CALLBACK_HOST")]
    momo_callback_host: Option<String>,
    /// The accepted Wave API key.
    #[arg(
        long,
        env = "EMULATOR_WAVE_API_KEY",
        default_value = "wave-test-key",
        hide_default_value = true,
        hide_env_values = true
    )]
    wave_api_key: String,
    /// Where Wave webhooks are POSTed (none when absent).
    #[arg(long, env = "EMULATOR_WAVE_WEBHOOK_URL")]
    wave_webhook_url: Option<String>,
    /// The Wave webhook signing secret.
    #[arg(
        long,
        env = "EMULATOR_WAVE_WEBHOOK_SECRET",
        default_value = "wave-webhook-secret",
        hide_default_value = true,
        hide_env_values = true
    )]
    wave_webhook_secret: String,
    /// Lifetime of Wave checkout sessions, in seconds.
    #[arg(long, env = "EMULATOR_WAVE_SESSION_TTL_S", default_value_t = 1800)]
    wave_session_ttl_s: u64,
    /// The accepted PAYDUNYA-MASTER-KEY (its SHA-512 is the notifications' hash).
    #[arg(
        long,
        env = "EMULATOR_PAYDUNYA_MASTER_KEY",
        default_value = "paydunya-master-key",
        hide_default_value = true,
        hide_env_values = true
    )]
    paydunya_master_key: String,
    /// The accepted PAYDUNYA-PRIVATE-KEY.
    #[arg(
        long,
        env = "EMULATOR_PAYDUNYA_PRIVATE_KEY",
        default_value = "paydunya-private-key",
        hide_default_value = true,
        hide_env_values = true
    )]
    paydunya_private_key: String,
    /// The accepted PAYDUNYA-TOKEN.
    #[arg(
        long,
        env = "EMULATOR_PAYDUNYA_TOKEN",
        default_value = "paydunya-token",
        hide_default_value = true,
        hide_env_values = true
    )]
    paydunya_token: String,
}

impl Args {
    fn settings(self) -> Result<EmulatorSettings, String> {
        let defaults = EmulatorSettings::default();
        let mut settings = EmulatorSettings {
            listen: self.listen,
            public_url: self.public_url,
            delay: Duration::from_millis(self.delay_ms),
            allow_remote_callbacks: self.allow_remote_callbacks,
            faults: match &self.faults {
                Some(faults) => vec![FaultRule::everywhere(faults)?],
                None => Vec::new(),
            },
            ..defaults
        };
        settings.momo.collection = MomoProduct {
            api_user: self.momo_collection_api_user,
            api_key: self.momo_collection_api_key,
            subscription_key: self.momo_collection_subscription_key,
        };
        settings.momo.disbursement = MomoProduct {
            api_user: self.momo_disbursement_api_user,
            api_key: self.momo_disbursement_api_key,
            subscription_key: self.momo_disbursement_subscription_key,
        };
        settings.momo.target_environment = self.momo_target_environment;
        settings.momo.currency = self.momo_currency;
        settings.momo.token_ttl = Duration::from_secs(self.momo_token_ttl_s);
        settings.momo.callback_method = match self.momo_callback_method {
            Method::Put => CallbackMethod::Put,
            Method::Post => CallbackMethod::Post,
        };
        settings.momo.callback_host = self.momo_callback_host;
        settings.wave.api_key = self.wave_api_key;
        settings.wave.webhook_url = self.wave_webhook_url;
        settings.wave.webhook_secret = self.wave_webhook_secret;
        settings.wave.session_ttl = Duration::from_secs(self.wave_session_ttl_s);
        settings.paydunya.master_key = self.paydunya_master_key;
        settings.paydunya.private_key = self.paydunya_private_key;
        settings.paydunya.token = self.paydunya_token;
        Ok(settings)
    }
}

fn main() -> ExitCode {
    let settings = match Args::parse().settings() {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("momo-operator-emulator: {e}");
            return ExitCode::from(2);
        }
    };
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()))
        .init();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("momo-operator-emulator: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(async {
        let emulator = Emulator::start(settings).await?;
        tracing::info!(address = %emulator.addr, "operator emulator listening on {}", emulator.url);
        tokio::select! {
            served = emulator.wait() => served,
            _ = tokio::signal::ctrl_c() => Ok(()),
        }
    });
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("momo-operator-emulator: {e:#}");
            ExitCode::FAILURE
        }
    }
}
