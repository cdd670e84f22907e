//! The gateway under test: a fresh database, a merchant whose webhooks go to the bench's
//! receiver, and `momo-gateway serve` as a separate process.

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use sqlx::Connection;

use crate::database::BenchDatabase;
use crate::sql::{Ledger, Pool, Tenant};
use crate::{Args, Db};

pub struct Gateway {
    pub base: String,
    pub token: String,
    pub database_url: String,
    pub tenant: Tenant,
    pub customer_id: String,
    /// `None` once stopped.
    child: Option<Child>,
    _dir: tempfile::TempDir,
    postgres: Option<BenchDatabase>,
}

/// What the load left behind.
pub struct Check {
    pub answered: usize,
    pub missing: usize,
    pub ledger: Ledger,
}

impl Check {
    pub fn ok(&self) -> bool {
        self.missing == 0 && self.ledger.postings_sum == 0 && self.ledger.inconsistent_balances == 0
    }
}

fn binary(args: &Args) -> PathBuf {
    args.gateway.clone().unwrap_or_else(|| {
        let me = std::env::current_exe().expect("own path");
        me.with_file_name("momo-gateway")
    })
}

/// The gateway's command: none of the bench's own `MOMO_` variables (a setting left in the
/// shell must not skew a run unseen), the run's `--set`, then what every scenario needs.
fn command(bin: &PathBuf, database_url: &str, set: &[(String, String)]) -> Command {
    let mut command = Command::new(bin);
    for (key, _) in std::env::vars().filter(|(k, _)| k.starts_with("MOMO_")) {
        command.env_remove(key);
    }
    command
        .envs(set.iter().map(|(k, v)| (k, v)))
        .env("MOMO_DATABASE_URL", database_url)
        .env("MOMO_WEBHOOK_ALLOW_PRIVATE", "true")
        .env("MOMO_LISTEN", "127.0.0.1:0")
        // The load is one merchant at thousands of requests a second: far past the limits.
        .env("MOMO_RATE_LIMIT_PER_S", "0")
        .env("MOMO_AUTH_RATE_LIMIT_PER_MIN", "0")
        .stdin(Stdio::null());
    command
}

impl Gateway {
    /// The gateway as the hot-path scenarios want it: a long simulator delay keeps scenario
    /// d's PENDING payments pending during the run.
    pub async fn start(args: &Args, webhook_url: &str) -> anyhow::Result<Gateway> {
        Gateway::start_with(args, webhook_url, &[("MOMO_SIMULATOR_DELAY_MS", "86400000")]).await
    }

    /// The gateway with `settings` (`MOMO_*` variables) for `serve`.
    pub async fn start_with(args: &Args, webhook_url: &str, settings: &[(&str, &str)]) -> anyhow::Result<Gateway> {
        let dir = tempfile::tempdir()?;
        let (database_url, postgres) = match args.db {
            Db::Sqlite => (format!("sqlite://{}/bench.db", dir.path().display()), None),
            Db::Postgres => {
                let database = BenchDatabase::create(&args.postgres_url).await?;
                let base = args
                    .postgres_url
                    .rsplit_once('/')
                    .map(|(b, _)| b)
                    .unwrap_or(&args.postgres_url);
                (format!("{base}/{}", database.name), Some(database))
            }
        };
        let bin = binary(args);
        let created = command(&bin, &database_url, &args.set)
            .args([
                "merchant",
                "create",
                "--name",
                "Bench",
                "--webhook-url",
                webhook_url,
                "--json",
            ])
            .output()?;
        anyhow::ensure!(
            created.status.success(),
            "merchant create failed: {}",
            String::from_utf8_lossy(&created.stderr)
        );
        let merchant: serde_json::Value = serde_json::from_slice(&created.stdout)?;
        let sandbox = &merchant["environments"]["Sandbox"];
        let (key, secret) = (
            sandbox["apiKey"].as_str().unwrap_or_default(),
            sandbox["apiSecret"].as_str().unwrap_or_default(),
        );

        let (child, base) = serve(&bin, &database_url, &args.set, settings)?;
        let answer: serde_json::Value = reqwest::Client::new()
            .post(format!("{base}/v1/auth"))
            .basic_auth(key, Some(secret))
            .header("X-Environment", "Sandbox")
            .send()
            .await?
            .json()
            .await?;
        let token = answer["data"]["token"].as_str().unwrap_or_default().to_owned();
        anyhow::ensure!(!token.is_empty(), "no token: {answer}");
        let tenant = Tenant {
            merchant_id: merchant["id"].as_str().unwrap_or_default().to_owned(),
            environment: "Sandbox",
        };
        // A customer for the drain's transactions.
        let customer: serde_json::Value = reqwest::Client::new()
            .post(format!("{base}/v1/customer"))
            .bearer_auth(&token)
            .json(&serde_json::json!({"firstName": "Drain", "lastName": "Bench", "email": "d@example.ci", "phoneNumber": "0701020399", "address": {"countryCode": "CI"}}))
            .send()
            .await?
            .json()
            .await?;
        let customer_id = customer["data"]["id"].as_str().unwrap_or_default().to_owned();
        Ok(Gateway {
            base,
            token,
            database_url,
            tenant,
            customer_id,
            child: Some(child),
            _dir: dir,
            postgres,
        })
    }

    /// Another `momo-gateway serve` on this gateway's database, with `settings`.
    pub fn another_process(&self, args: &Args, settings: &[(&str, &str)]) -> anyhow::Result<Process> {
        let (child, base) = serve(&binary(args), &self.database_url, &args.set, settings)?;
        Ok(Process {
            base,
            child: Some(child),
        })
    }

    /// A line of `/proc/<pid>/status` in KiB (`VmRSS` now, `VmHWM` the peak).
    pub fn memory_kib(&self, field: &str) -> u64 {
        let pid = self.child.as_ref().map_or(0, Child::id);
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{field}:")))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    }

    /// The gateway's process id (0 once stopped).
    pub fn pid(&self) -> u32 {
        self.child.as_ref().map_or(0, Child::id)
    }

    /// The database's URL when it is PostgreSQL.
    pub fn postgres_url(&self) -> Option<&str> {
        self.postgres.is_some().then_some(self.database_url.as_str())
    }

    /// Every 2xx creation exists exactly once (the unique key guarantees "once"), and the
    /// ledger balances.
    pub async fn check(&self, answered: &HashSet<String>) -> anyhow::Result<Check> {
        let pool = Pool::open(&self.database_url).await?;
        let stored: HashSet<String> = pool.transaction_ids(&self.tenant).await?.into_iter().collect();
        let missing = answered.iter().filter(|id| !stored.contains(*id)).count();
        let ledger = pool.ledger().await?;
        pool.close().await;
        Ok(Check {
            answered: answered.len(),
            missing,
            ledger,
        })
    }

    /// Refreshes the planner's statistics (PostgreSQL; SQLite needs none).
    pub async fn analyze(&self) -> anyhow::Result<()> {
        if self.postgres.is_some() {
            let mut conn = sqlx::PgConnection::connect(&self.database_url).await?;
            sqlx::query("ANALYZE").execute(&mut conn).await?;
            let _ = conn.close().await;
        }
        Ok(())
    }

    pub async fn stop(mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = Command::new("kill").arg("-TERM").arg(child.id().to_string()).status();
            let _ = tokio::task::spawn_blocking(move || child.wait()).await;
        }
        if let Some(database) = self.postgres.take() {
            database.drop_now().await;
        }
    }
}

/// `momo-gateway serve` on `database_url`, and the address it listens on.
fn serve(
    bin: &PathBuf,
    database_url: &str,
    set: &[(String, String)],
    settings: &[(&str, &str)],
) -> anyhow::Result<(Child, String)> {
    let mut serve = command(bin, database_url, set);
    for (name, value) in settings {
        serve.env(name, value);
    }
    let mut child = serve
        .arg("serve")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()?;
    let stderr = child.stderr.take().expect("piped stderr");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(at) = line.find("listening on http://") {
                let url: String = line[at + "listening on ".len()..]
                    .chars()
                    .take_while(|c| !c.is_whitespace())
                    .collect();
                let _ = tx.send(url);
            }
            if line.contains("ERROR") {
                eprintln!("gateway: {line}");
            }
        }
    });
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(base) => Ok((child, base)),
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            anyhow::bail!("the gateway did not say where it listens within 60 s")
        }
    }
}

/// A further gateway process on a [`Gateway`]'s database (scenario m); killed when dropped.
pub struct Process {
    pub base: String,
    /// `None` once stopped.
    child: Option<Child>,
}

impl Process {
    /// Ends it as an operator would (SIGTERM), and waits for it.
    pub async fn stop(mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = Command::new("kill").arg("-TERM").arg(child.id().to_string()).status();
            let _ = tokio::task::spawn_blocking(move || child.wait()).await;
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if let Some(child) = self.child.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A bench that stops on an error (`?` before `stop`) must not leave its gateway running: it
/// would keep its port, its database and every file descriptor it inherited, a build lock's
/// among them. The process goes first, then (its field dropped after) the database.
impl Drop for Gateway {
    fn drop(&mut self) {
        if let Some(child) = self.child.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
