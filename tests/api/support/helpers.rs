//! `TestApp`: the real server on a random port over a fresh database, and a merchant to call it.

use std::sync::Mutex;

use momo_gateway::app::{self, Server};
use momo_gateway::config::Config;
use momo_gateway::domain::{Environment, Timestamp};
use momo_gateway::service::{CreatedMerchant, Gateway};
use reqwest::{RequestBuilder, StatusCode};
use serde_json::Value;

use momo_test_support::{Backend, TestDatabase};

pub const TEST_JWT_SECRET: &str = "test-jwt-secret-that-is-at-least-32-bytes-long";

/// One environment's credentials, as the merchant received them.
#[derive(Debug, Clone)]
pub struct Creds {
    pub environment: Environment,
    pub api_key: String,
    pub api_secret: String,
    pub webhook_secret: String,
}

#[derive(Debug, Clone)]
pub struct TestMerchant {
    pub id: String,
    pub sandbox: Creds,
    pub production: Creds,
}

impl From<CreatedMerchant> for TestMerchant {
    fn from(m: CreatedMerchant) -> Self {
        let creds = |env: Environment| {
            let e = m
                .environments
                .iter()
                .find(|e| e.environment == env)
                .expect("both environments");
            Creds {
                environment: env,
                api_key: e.api_key.clone(),
                api_secret: e.api_secret.clone(),
                webhook_secret: e.webhook_secret.clone(),
            }
        };
        TestMerchant {
            id: m.id.to_string(),
            sandbox: creds(Environment::Sandbox),
            production: creds(Environment::Production),
        }
    }
}

pub struct TestApp {
    pub backend: Backend,
    pub base: String,
    pub client: reqwest::Client,
    pub gateway: Gateway,
    pub merchant: TestMerchant,
    pub database_url: String,
    server: Option<Server>,
    // Declared last: dropped after the server has stopped.
    _db: TestDatabase,
}

/// An answer: status, headers and the JSON body (every answer must be JSON).
pub struct Answer {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// `body` with the field at `pointer` (`/a/b`) set to `value`, or removed when `value` is the
/// string `"<absent>"`.
pub fn set(mut body: Value, pointer: &str, value: Value) -> Value {
    let (parent, key) = pointer.rsplit_once('/').expect("a /pointer");
    let target = if parent.is_empty() {
        &mut body
    } else {
        body.pointer_mut(parent).expect("the parent exists")
    };
    if value == serde_json::json!("<absent>") {
        target.as_object_mut().expect("an object").remove(key);
    } else {
        target[key] = value;
    }
    body
}

/// A free port on loopback, closed: nothing listens there, and no outgoing connection takes it.
pub use momo_test_support::ports::free_port;

/// Listeners bound by [`gateway_port`], until a gateway of `TestApp::spawn_with` takes theirs.
static RESERVED: Mutex<Vec<std::net::TcpListener>> = Mutex::new(Vec::new());

/// A loopback port for a gateway whose public URL (where operators call back) must be known
/// before it starts: set it as `listen`. The port stays bound until the gateway serves on it,
/// so nothing else can take it between (the way a [`free_port`] from the ephemeral range was
/// taken once, before those came from below it).
pub fn gateway_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let port = listener.local_addr().expect("a bound address").port();
    RESERVED.lock().unwrap().push(listener);
    port
}

/// The listener [`gateway_port`] keeps for `listen`, if it does.
fn reserved(listen: std::net::SocketAddr) -> Option<std::net::TcpListener> {
    let mut reserved = RESERVED.lock().unwrap();
    let at = reserved
        .iter()
        .position(|l| l.local_addr().is_ok_and(|a| a == listen))?;
    Some(reserved.swap_remove(at))
}

/// `ms` milliseconds from now: tests drive workers with explicit times instead of waiting.
pub fn later(ms: i64) -> Timestamp {
    Timestamp(Timestamp::now().millis() + ms)
}

pub async fn answer(request: RequestBuilder) -> Answer {
    let (client, request) = request.build_split();
    let request = request.expect("a well-formed request");
    let (method, path) = (request.method().as_str().to_owned(), request.url().path().to_owned());
    let response = client.execute(request).await.expect("request sent");
    let status = response.status();
    let headers = response.headers().clone();
    let text = response.text().await.expect("body read");
    let body: Value = serde_json::from_str(&text).unwrap_or_else(|_| panic!("answer {status} is not JSON: {text:?}"));
    assert!(
        headers.contains_key("x-request-id"),
        "every answer carries X-Request-Id"
    );
    crate::http::openapi::assert_conforms(&method, &path, status.as_u16(), &body);
    Answer { status, headers, body }
}

impl TestApp {
    /// The server over a fresh database of `backend`, with one merchant; `None` when PostgreSQL
    /// is absent outside CI (see [`TestDatabase::create`]). Tests get theirs through
    /// `both_backends!(TestApp::spawn => ...)`, which returns early on `None`.
    pub async fn spawn(backend: Backend) -> Option<TestApp> {
        TestApp::spawn_with(backend, |_| {}).await
    }

    /// A gateway whose Production is served by the simulator (`*:Production=simulator`), for
    /// the tests of Production money; by default nothing serves it.
    pub async fn spawn_production_simulated(backend: Backend) -> Option<TestApp> {
        TestApp::spawn_with(backend, production_simulated).await
    }

    /// [`TestApp::spawn`] with the configuration changed by `adjust` first; tests get theirs
    /// through `both_backends!(TestApp::spawn_with(adjust) => ...)`.
    pub async fn spawn_with(backend: Backend, adjust: impl FnOnce(&mut Config)) -> Option<TestApp> {
        let db = TestDatabase::create(backend).await?;
        let mut config = Config {
            database_url: db.url.clone(),
            public_url: "http://gateway.test".to_owned(),
            listen: ([127, 0, 0, 1], 0).into(),
            jwt_secret: Some(TEST_JWT_SECRET.to_owned()),
            // Tests send bursts no merchant would; the tests of the limits set their own.
            rate_limit_per_s: 0,
            auth_rate_limit_per_min: 0,
            ..Config::default()
        };
        adjust(&mut config);
        let listen = config.listen;
        let gateway = app::open(config).await.expect("gateway opens its database");
        let merchant = gateway
            .merchants
            .create_merchant("Test merchant", None, Timestamp::now())
            .await
            .expect("merchant");
        let server = match reserved(listen) {
            Some(listener) => Server::start_on(gateway.clone(), listener),
            None => Server::start(gateway.clone()).await,
        }
        .expect("server starts");
        Some(TestApp {
            backend,
            base: format!("http://{}", server.addr),
            client: reqwest::Client::new(),
            gateway,
            merchant: merchant.into(),
            database_url: db.url.clone(),
            server: Some(server),
            _db: db,
        })
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    pub fn get(&self, path: &str) -> RequestBuilder {
        self.client.get(self.url(path))
    }

    pub fn post(&self, path: &str) -> RequestBuilder {
        self.client.post(self.url(path))
    }

    /// Restarts the server on the same database with another operator connector.
    pub async fn replace_operator(&mut self, operator: std::sync::Arc<dyn momo_gateway::operator::Operator>) {
        if let Some(server) = self.server.take() {
            server.stop().await.expect("graceful stop");
        }
        self.gateway = self
            .gateway
            .with_operators(momo_gateway::operator::Operators::new(operator));
        let server = Server::start(self.gateway.clone()).await.expect("server restarts");
        self.base = format!("http://{}", server.addr);
        self.server = Some(server);
    }

    /// Another merchant of the same gateway.
    pub async fn new_merchant(&self, name: &str) -> TestMerchant {
        self.gateway
            .merchants
            .create_merchant(name, None, Timestamp::now())
            .await
            .expect("merchant")
            .into()
    }

    /// `POST /v1/auth` for `creds`, naming their environment.
    pub async fn auth(&self, creds: &Creds) -> Answer {
        answer(
            self.post("/v1/auth")
                .basic_auth(&creds.api_key, Some(&creds.api_secret))
                .header("X-Environment", creds.environment.as_str()),
        )
        .await
    }

    pub async fn token(&self, creds: &Creds) -> String {
        let a = self.auth(creds).await;
        assert_eq!(a.status, StatusCode::OK, "{}", a.body);
        a.body["data"]["token"].as_str().expect("token").to_owned()
    }

    /// A token for the default merchant's Sandbox.
    pub async fn sandbox_token(&self) -> String {
        self.token(&self.merchant.sandbox.clone()).await
    }

    /// Asserts the money invariants: postings sum to zero, balances agree with them and are
    /// never negative, and every final transaction has exactly one webhook event.
    pub async fn assert_ledger(&self) {
        let check = self.gateway.payments.check_ledger().await.expect("ledger check");
        assert_eq!(check.postings_sum, 0, "postings sum to zero");
        assert_eq!(
            check.inconsistent_balances, 0,
            "balances agree with postings and are not negative"
        );
        assert_eq!(
            check.final_without_one_event, 0,
            "one outbox event per final transition"
        );
    }

    /// The default merchant's Sandbox tenant.
    pub fn sandbox_tenant(&self) -> momo_gateway::domain::Tenant {
        momo_gateway::domain::Tenant {
            merchant_id: momo_gateway::domain::MerchantId::from(self.merchant.id.clone()),
            environment: Environment::Sandbox,
        }
    }

    /// Replaces `tenant`'s credential through a store of its own, as another process would, so
    /// this process's memory of the old one is wrong; that store, to read what was written.
    pub async fn rotate_elsewhere(
        &self,
        tenant: &momo_gateway::domain::Tenant,
    ) -> std::sync::Arc<dyn momo_gateway::store::Store> {
        let other = momo_gateway::store::connect(&self.database_url).await.unwrap();
        let replacement = momo_gateway::domain::Credential {
            id: format!("rotated-elsewhere-{}", tenant.merchant_id).into(),
            merchant_id: tenant.merchant_id.clone(),
            environment: tenant.environment,
            api_key: format!("ak_rotated_elsewhere_{}", tenant.merchant_id),
            secret_hash: vec![0; 32],
            created_at: Timestamp::now(),
            revoked_at: None,
        };
        other.rotate_credential(tenant, &replacement).await.unwrap();
        other
    }

    pub async fn stop(mut self) {
        if let Some(server) = self.server.take() {
            server.stop().await.expect("graceful stop");
        }
    }
}

/// Production served by the simulator, as `MOMO_OPERATOR_CONNECTORS=*:Production=simulator`
/// sets it for a demo or a staging copy.
pub fn production_simulated(c: &mut Config) {
    c.connectors.routes =
        momo_gateway::config::connectors::parse_routes("*:Production=simulator").expect("valid routes");
}
