//! For the tests that run the gateway as a process (a kill, a restart, two processes): a
//! merchant made by the gateway itself, which also migrates the database, and a Sandbox token
//! asked of a running process over HTTP.

use momo_gateway::config::Config;
use momo_gateway::domain::{Environment, Tenant, Timestamp};
use momo_gateway::service::{CreatedMerchant, Gateway, MerchantEnvironmentSecrets};
use momo_test_support::TestDatabase;
use reqwest::StatusCode;

use crate::support::helpers::answer;

/// The gateway in the test's own process (to read what the processes wrote), its merchant,
/// and the merchant's Sandbox credentials.
pub struct ProcessMerchant {
    pub admin: Gateway,
    pub merchant: CreatedMerchant,
    pub sandbox: MerchantEnvironmentSecrets,
}

impl ProcessMerchant {
    pub async fn create(db: &TestDatabase, name: &str) -> ProcessMerchant {
        let admin = momo_gateway::app::open(Config {
            database_url: db.url.clone(),
            ..Config::default()
        })
        .await
        .unwrap();
        let merchant = admin
            .merchants
            .create_merchant(name, None, Timestamp::now())
            .await
            .unwrap();
        let sandbox = merchant
            .environments
            .iter()
            .find(|e| e.environment == Environment::Sandbox)
            .unwrap()
            .clone();
        ProcessMerchant {
            admin,
            merchant,
            sandbox,
        }
    }

    pub fn sandbox_tenant(&self) -> Tenant {
        Tenant {
            merchant_id: self.merchant.id.clone(),
            environment: Environment::Sandbox,
        }
    }

    /// A Production token from the process at `base`.
    pub async fn production_token(&self, client: &reqwest::Client, base: &str) -> String {
        let production = self
            .merchant
            .environments
            .iter()
            .find(|e| e.environment == Environment::Production)
            .unwrap();
        let a = answer(
            client
                .post(format!("{base}/v1/auth"))
                .basic_auth(&production.api_key, Some(&production.api_secret))
                .header("X-Environment", "Production"),
        )
        .await;
        assert_eq!(a.status, StatusCode::OK, "{}", a.body);
        a.body["data"]["token"].as_str().unwrap().to_owned()
    }

    /// A Sandbox token from the process at `base`.
    pub async fn token(&self, client: &reqwest::Client, base: &str) -> String {
        let a = answer(
            client
                .post(format!("{base}/v1/auth"))
                .basic_auth(&self.sandbox.api_key, Some(&self.sandbox.api_secret))
                .header("X-Environment", "Sandbox"),
        )
        .await;
        assert_eq!(a.status, StatusCode::OK, "{}", a.body);
        a.body["data"]["token"].as_str().unwrap().to_owned()
    }
}
