//! The emulator's settings: where it listens, the credentials it accepts for each protocol, the
//! Sandbox delay, where Wave webhooks go and how they are signed, and the faults applied to every
//! request by default. Secrets never appear in `Debug` output.

use std::fmt;
use std::net::SocketAddr;
use std::time::Duration;

use super::faults::FaultRule;

/// The credentials of one MoMo product (collection or disbursement).
#[derive(Clone)]
pub struct MomoProduct {
    /// The API user (a UUID on the real platform), the user half of the token's Basic auth.
    pub api_user: String,
    /// The API key, the password half of the token's Basic auth.
    pub api_key: String,
    /// `Ocp-Apim-Subscription-Key`, required on every call of the product.
    pub subscription_key: String,
}

impl fmt::Debug for MomoProduct {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MomoProduct")
            .field("api_user", &self.api_user)
            .field("api_key", &"[redacted]")
            .field("subscription_key", &"[redacted]")
            .finish()
    }
}

/// How MoMo delivers callbacks; the platform documents both and asks listeners to allow both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallbackMethod {
    Put,
    Post,
}

/// The MoMo Open API side.
#[derive(Debug, Clone)]
pub struct MomoSettings {
    pub collection: MomoProduct,
    pub disbursement: MomoProduct,
    /// The only `X-Target-Environment` accepted (`sandbox`, `mtnivorycoast`, …).
    pub target_environment: String,
    /// The only currency accepted (the target environment's).
    pub currency: String,
    /// `expires_in` of the access tokens.
    pub token_ttl: Duration,
    pub callback_method: CallbackMethod,
    /// The API user's registered callback host; when set, an `X-Callback-Url` on another host is
    /// refused (500 `INVALID_CALLBACK_URL_HOST`) as on the real platform.
    pub callback_host: Option<String>,
}

/// The Wave side.
#[derive(Clone)]
pub struct WaveSettings {
    /// The accepted `Authorization: Bearer` API key.
    pub api_key: String,
    /// Where webhooks are POSTed; no webhooks when `None`.
    pub webhook_url: Option<String>,
    /// The secret of the `Wave-Signature` HMAC.
    pub webhook_secret: String,
    /// The only currency accepted.
    pub currency: String,
    /// How long a checkout session stays open (`when_expires`).
    pub session_ttl: Duration,
    /// `business_name` of the sessions, shown on the launch page.
    pub business_name: String,
}

impl fmt::Debug for WaveSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WaveSettings")
            .field("api_key", &"[redacted]")
            .field("webhook_url", &self.webhook_url)
            .field("webhook_secret", &"[redacted]")
            .field("currency", &self.currency)
            .field("session_ttl", &self.session_ttl)
            .field("business_name", &self.business_name)
            .finish()
    }
}

/// The PayDunya side.
#[derive(Clone)]
pub struct PaydunyaSettings {
    /// The accepted `PAYDUNYA-MASTER-KEY`; its SHA-512 is the notifications' `hash`.
    pub master_key: String,
    /// The accepted `PAYDUNYA-PRIVATE-KEY`.
    pub private_key: String,
    /// The accepted `PAYDUNYA-TOKEN`.
    pub token: String,
}

impl fmt::Debug for PaydunyaSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PaydunyaSettings").finish_non_exhaustive()
    }
}

/// Everything the emulator needs to start.
#[derive(Debug, Clone)]
pub struct EmulatorSettings {
    /// Where to listen; port 0 picks a free port.
    pub listen: SocketAddr,
    /// The base of the URLs the emulator hands out (Wave's `wave_launch_url`); `http://{addr}`
    /// when `None`.
    pub public_url: Option<String>,
    /// The Sandbox table's delay (rows 02, 03 and the default collection).
    pub delay: Duration,
    /// How long a callback or webhook waits for the receiver's answer.
    pub callback_timeout: Duration,
    /// Whether callbacks may go to hosts other than loopback ones.
    pub allow_remote_callbacks: bool,
    /// Faults applied by default.
    pub faults: Vec<FaultRule>,
    pub momo: MomoSettings,
    pub wave: WaveSettings,
    pub paydunya: PaydunyaSettings,
}

impl Default for EmulatorSettings {
    /// Loopback on a random port, the documented Sandbox delay (2 s), and fixed test credentials
    /// (`collection-user` / `collection-key` / `collection-subscription`, the same for
    /// `disbursement`, Wave key `wave-test-key`, webhook secret `wave-webhook-secret`, PayDunya
    /// keys `paydunya-master-key`, `paydunya-private-key`, `paydunya-token`).
    fn default() -> EmulatorSettings {
        let product = |name: &str| MomoProduct {
            api_user: format!("{name}-user"),
            api_key: format!("{name}-key"),
            subscription_key: format!("{name}-subscription"),
        };
        EmulatorSettings {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            public_url: None,
            delay: Duration::from_secs(2),
            callback_timeout: Duration::from_secs(5),
            allow_remote_callbacks: false,
            faults: Vec::new(),
            momo: MomoSettings {
                collection: product("collection"),
                disbursement: product("disbursement"),
                target_environment: "sandbox".to_string(),
                currency: "XOF".to_string(),
                token_ttl: Duration::from_secs(3600),
                callback_method: CallbackMethod::Put,
                callback_host: None,
            },
            wave: WaveSettings {
                api_key: "wave-test-key".to_string(),
                webhook_url: None,
                webhook_secret: "wave-webhook-secret".to_string(),
                currency: "XOF".to_string(),
                session_ttl: Duration::from_secs(30 * 60),
                business_name: "Emulated Merchant".to_string(),
            },
            paydunya: PaydunyaSettings {
                master_key: "paydunya-master-key".to_string(),
                private_key: "paydunya-private-key".to_string(),
                token: "paydunya-token".to_string(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_stay_out_of_debug_output() {
        let shown = format!("{:?}", EmulatorSettings::default());
        assert!(shown.contains("collection-user"));
        for secret in [
            "collection-key",
            "collection-subscription",
            "wave-test-key",
            "wave-webhook-secret",
        ] {
            assert!(!shown.contains(secret), "{secret} shown in {shown}");
        }
    }
}
