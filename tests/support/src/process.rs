//! The gateway binary as a separate process: started with `serve`, found through its log line,
//! its logs kept for inspection, stopped with a signal.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The gateway's binary. Cargo builds it for the package's integration tests into the profile's
/// folder, whose `deps/` holds the test binary that is running (`CARGO_BIN_EXE_*` is only set
/// when compiling those tests, not this crate).
pub fn binary() -> PathBuf {
    let test = std::env::current_exe().expect("the test binary knows its path");
    let profile = test
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps/<test>");
    let binary = profile.join(format!("momo-gateway{}", std::env::consts::EXE_SUFFIX));
    assert!(
        binary.exists(),
        "{} is not built: run the tests with cargo test",
        binary.display()
    );
    binary
}

/// A `momo-gateway serve` process, killed when dropped (a failed test leaves none behind).
pub struct Running {
    child: Option<Child>,
    pub base: String,
    /// Every line it wrote to stderr (its logs).
    pub logs: Arc<Mutex<Vec<String>>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(child) = self.child.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A command for the binary with no inherited settings (`MOMO_*`, and the platform's `PORT` and
/// `DATABASE_URL`), and rate limits off (tests send bursts no merchant would;
/// `rate_limits_are_on_by_default` removes them).
pub fn command(database_url: &str) -> Command {
    let mut command = Command::new(binary());
    // The locale too (the command line speaks French under `LANG=fr_…`) and OpenTelemetry's
    // settings (a process would export traces elsewhere): a test that wants them says so.
    let inherited = |k: &str| {
        ["MOMO_", "OTEL_", "LC_"].iter().any(|p| k.starts_with(p)) || ["PORT", "DATABASE_URL", "LANG"].contains(&k)
    };
    for (key, _) in std::env::vars().filter(|(k, _)| inherited(k)) {
        command.env_remove(key);
    }
    command
        .env("MOMO_DATABASE_URL", database_url)
        .env("MOMO_LISTEN", "127.0.0.1:0")
        .env("MOMO_RATE_LIMIT_PER_S", "0")
        .env("MOMO_AUTH_RATE_LIMIT_PER_MIN", "0")
        .stdin(Stdio::null());
    command
}

/// Starts `serve` and waits until it says where it listens.
pub fn serve(mut command: Command) -> Running {
    let mut child = command
        .arg("serve")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let logs = Arc::new(Mutex::new(Vec::new()));
    let (tx, rx) = mpsc::channel();
    let kept = logs.clone();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(at) = line.find("listening on http://") {
                let rest = &line[at + "listening on ".len()..];
                let url: String = rest.chars().take_while(|c| !c.is_whitespace() && *c != '"').collect();
                let _ = tx.send(url);
            }
            kept.lock().unwrap().push(line);
        }
    });
    let base = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("the server says where it listens");
    Running {
        child: Some(child),
        base,
        logs,
        reader: Some(reader),
    }
}

impl Running {
    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("running").id()
    }

    /// Its resident memory in bytes (`VmRSS` of `/proc/PID/status`).
    pub fn resident_bytes(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).expect("/proc/PID/status");
        let kib: u64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmRSS");
        kib * 1024
    }

    /// Kills it at once (SIGKILL), as a crash would, and waits for it to be gone.
    pub fn kill(mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().unwrap();
            child.wait().unwrap();
        }
    }

    /// Sends SIGTERM and waits for the exit; returns the process's output on stdout.
    pub async fn terminate(mut self) -> (std::process::ExitStatus, String) {
        let child = self.child.take().expect("running");
        let reader = self.reader.take();
        let killed = Command::new("kill")
            .arg("-TERM")
            .arg(child.id().to_string())
            .status()
            .unwrap();
        assert!(killed.success());
        let output = tokio::task::spawn_blocking(move || {
            let output = child.wait_with_output();
            if let Some(reader) = reader {
                let _ = reader.join(); // every log line is in `logs` once the pipe closes
            }
            output
        })
        .await
        .unwrap()
        .unwrap();
        (output.status, String::from_utf8_lossy(&output.stdout).into_owned())
    }
}

/// Reads `export NAME=value` from the demo's env file.
pub fn demo_value(env_file: &str, name: &str) -> String {
    env_file
        .lines()
        .find_map(|l| l.strip_prefix(&format!("export {name}=")))
        .unwrap()
        .to_owned()
}
