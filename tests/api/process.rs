//! The gateway binary as a separate process: started with `serve`, found through its log line,
//! its logs kept for inspection, stopped with a signal.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub const BIN: &str = env!("CARGO_BIN_EXE_momo-gateway");

/// A `momo-gateway serve` process.
pub struct Running {
    pub child: Child,
    pub base: String,
    /// Every line it wrote to stderr (its logs).
    pub logs: Arc<Mutex<Vec<String>>>,
    reader: std::thread::JoinHandle<()>,
}

/// A command for the binary with no inherited `MOMO_*` settings.
pub fn command(database_url: &str) -> Command {
    let mut command = Command::new(BIN);
    for (key, _) in std::env::vars().filter(|(k, _)| k.starts_with("MOMO_")) {
        command.env_remove(key);
    }
    command
        .env("MOMO_DATABASE_URL", database_url)
        .env("MOMO_LISTEN", "127.0.0.1:0")
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
        child,
        base,
        logs,
        reader,
    }
}

impl Running {
    /// Sends SIGTERM and waits for the exit; returns the process's output on stdout.
    pub async fn terminate(self) -> (std::process::ExitStatus, String) {
        let killed = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status()
            .unwrap();
        assert!(killed.success());
        let (child, reader) = (self.child, self.reader);
        let output = tokio::task::spawn_blocking(move || {
            let output = child.wait_with_output();
            let _ = reader.join(); // every log line is in `logs` once the pipe closes
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
