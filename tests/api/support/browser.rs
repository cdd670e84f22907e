//! A real browser for the black-box tests: headless Chromium from Debian's `chromium` package,
//! driven through WebDriver by Debian's `chromedriver`, on loopback only. Used by the dashboard's
//! browser tests and the payer's BETA page test.
//!
//! Why Selenium for Python (tests/api/support/dashboard_browser.py, a thin command bridge) rather than
//! `fantoccini`: `fantoccini` 0.22 brings 36 crates into the build, among them `aws-lc-sys` (C
//! compiled with cmake) and `icu_segmenter` with its data, for every `cargo test`; the pinned
//! Selenium is one `pip install` into target/venv-selenium (scripts/selenium-venv.sh), made
//! once. The Rust test keeps the lead: it calls the API and runs workers between two browser
//! steps, and asserts; the bridge only does what it is told.
//!
//! Without Chromium, its driver or the venv, a test prints a SKIPPED banner and ends; under
//! `CI=true` it fails instead (`.ci/run` installs all three).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support::helpers::free_port;

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// One browser at a time in this test binary: two Chromiums on a small machine make each
/// other's page loads slow enough to look like failures.
static TURN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The venv's python with Selenium, installed once per test run by `scripts/selenium-venv.sh`.
fn selenium_python() -> Result<&'static str, String> {
    static PYTHON: OnceLock<Result<String, String>> = OnceLock::new();
    let found = PYTHON.get_or_init(|| {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/selenium-venv.sh");
        match Command::new(script).output() {
            Ok(out) if out.status.success() => Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned()),
            Ok(out) => Err(String::from_utf8_lossy(&out.stderr).into_owned()),
            Err(e) => Err(format!("{script}: {e}")),
        }
    });
    found.as_deref().map_err(Clone::clone)
}

/// What is missing for a browser test, if anything.
fn missing() -> Option<String> {
    for program in [CHROMIUM, CHROMEDRIVER] {
        if !std::path::Path::new(program).exists() {
            return Some(format!(
                "{program} is not installed (Debian's chromium and chromium-driver)"
            ));
        }
    }
    selenium_python().err()
}

/// The bridge's pipes: one command line out, one answer line in.
struct Bridge {
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Bridge {
    fn answer(&mut self) -> Result<Value, String> {
        let mut line = String::new();
        match self.stdout.read_line(&mut line) {
            Ok(0) => return Err("the browser bridge ended (its stderr is above)".to_owned()),
            Ok(_) => {}
            Err(e) => return Err(e.to_string()),
        }
        let reply: Value = serde_json::from_str(&line).map_err(|e| format!("{e}: {line:?}"))?;
        match reply.get("error") {
            Some(error) => Err(error.to_string()),
            None => Ok(reply["ok"].clone()),
        }
    }

    fn call(&mut self, command: &Value) -> Result<Value, String> {
        let stdin = self.stdin.as_mut().ok_or("the bridge is closed")?;
        writeln!(stdin, "{command}").map_err(|e| e.to_string())?;
        stdin.flush().map_err(|e| e.to_string())?;
        self.answer()
    }
}

/// A headless Chromium session; dropping it quits the browser and stops its chromedriver.
pub struct Browser {
    bridge: Arc<Mutex<Bridge>>,
    python: Child,
    chromedriver: Child,
    _profile: tempfile::TempDir,
    _turn: tokio::sync::MutexGuard<'static, ()>,
}

/// Starts chromedriver on a free loopback port and waits for the line that says it listens.
fn start_chromedriver() -> (Child, u16) {
    let port = free_port();
    let mut child = Command::new(CHROMEDRIVER)
        .arg(format!("--port={port}"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let stdout = child.stdout.take().expect("piped");
    let (tx, rx) = mpsc::channel();
    // Reads chromedriver's stdout to the end, so that a full pipe never blocks it.
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) if line.contains("started successfully") => return (child, port),
            Ok(_) => {}
            Err(e) => {
                let _ = child.kill();
                panic!("chromedriver did not say it listens on {port}: {e}");
            }
        }
    }
}

impl Browser {
    /// A browser, or `None` with a SKIPPED banner when Chromium, chromedriver or Selenium is
    /// missing outside CI; under `CI=true` a missing one fails the test.
    pub async fn start() -> Option<Browser> {
        if let Some(why) = missing() {
            assert!(
                !momo_test_support::in_ci(),
                "the browser tests need Chromium, chromedriver and Selenium under CI=true: {why}"
            );
            let _ = writeln!(
                std::io::stderr(),
                "\n*** browser test SKIPPED: {why}; under CI=true it fails instead ***\n"
            );
            return None;
        }
        let turn = TURN.lock().await;
        let python = selenium_python().expect("checked above").to_owned();
        let started = tokio::task::spawn_blocking(move || {
            let profile = tempfile::tempdir().expect("a profile directory");
            let (chromedriver, port) = start_chromedriver();
            let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/api/support/dashboard_browser.py");
            let mut child = Command::new(python)
                .args(["-X", "utf8", script, &format!("http://127.0.0.1:{port}"), CHROMIUM])
                .arg(profile.path())
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .expect("the browser bridge starts");
            let mut bridge = Bridge {
                stdin: child.stdin.take(),
                stdout: BufReader::new(child.stdout.take().expect("piped")),
            };
            let ready = bridge.answer();
            (bridge, child, chromedriver, profile, ready)
        })
        .await
        .expect("the browser starts");
        let (bridge, python, chromedriver, profile, ready) = started;
        let browser = Browser {
            bridge: Arc::new(Mutex::new(bridge)),
            python,
            chromedriver,
            _profile: profile,
            _turn: turn,
        };
        assert_eq!(ready, Ok(json!("ready")), "Chromium opens a session");
        Some(browser)
    }

    /// Sends one command off the runtime's thread: the server under test answers the page on
    /// this same runtime meanwhile.
    async fn call(&self, command: Value) -> Value {
        let bridge = self.bridge.clone();
        let shown = command.to_string();
        let result = tokio::task::spawn_blocking(move || bridge.lock().unwrap().call(&command))
            .await
            .expect("the bridge call ends");
        result.unwrap_or_else(|e| panic!("browser: {shown} failed: {e}"))
    }

    pub async fn goto(&self, url: &str) {
        self.call(json!({"op": "goto", "url": url})).await;
    }

    /// The path (and query) of the page shown, percent-decoded: `/a%2Db` and `/a-b` are the
    /// same address (RFC 3986, 6.2.2.2).
    pub async fn path(&self) -> String {
        let url = self.call(json!({"op": "url"})).await;
        let url = reqwest::Url::parse(url.as_str().unwrap_or_default()).expect("a URL");
        let path = percent_encoding::percent_decode_str(url.path()).decode_utf8_lossy();
        match url.query() {
            Some(q) => format!("{path}?{q}"),
            None => path.into_owned(),
        }
    }

    /// The HTTP status the page shown was served with.
    pub async fn status(&self) -> u16 {
        let status = self.call(json!({"op": "status"})).await;
        status.as_u64().and_then(|s| u16::try_from(s).ok()).unwrap_or(0)
    }

    /// The visible text of the first element matching `css`; `None` when there is none.
    pub async fn text(&self, css: &str) -> Option<String> {
        self.call(json!({"op": "text", "css": css}))
            .await
            .as_str()
            .map(str::to_owned)
    }

    pub async fn texts(&self, css: &str) -> Vec<String> {
        let all = self.call(json!({"op": "texts", "css": css})).await;
        serde_json::from_value(all).expect("a list of texts")
    }

    pub async fn count(&self, css: &str) -> usize {
        self.call(json!({"op": "count", "css": css}))
            .await
            .as_u64()
            .unwrap_or(0) as usize
    }

    pub async fn attr(&self, css: &str, name: &str) -> Option<String> {
        let value = self.call(json!({"op": "attr", "css": css, "name": name})).await;
        value.as_str().map(str::to_owned)
    }

    /// Clicks the element at `css`, a link or a form's button, and waits for the next page.
    pub async fn click(&self, css: &str) {
        self.call(json!({"op": "click", "css": css})).await;
    }

    /// Clears the field at `css` and types `text` into it, key by key.
    pub async fn type_into(&self, css: &str, text: &str) {
        self.call(json!({"op": "type", "css": css, "text": text})).await;
    }

    /// Chooses the file at `path` in the file input at `css`.
    pub async fn upload(&self, css: &str, path: &std::path::Path) {
        self.call(json!({"op": "upload", "css": css, "path": path.to_string_lossy()}))
            .await;
    }

    pub async fn script(&self, js: &str) -> Value {
        self.call(json!({"op": "script", "js": js})).await
    }

    /// Types `text` on the keyboard into whatever has the focus.
    pub async fn keys(&self, text: &str) {
        self.call(json!({"op": "keys", "text": text})).await;
    }

    /// Presses Enter, which leaves the page (submits a form, follows a link), and waits for the
    /// next page.
    pub async fn enter(&self) {
        self.call(json!({"op": "enter"})).await;
    }

    /// Presses Tab; the name (else the id) of the element that has the focus then.
    pub async fn tab(&self) -> String {
        let focused = self.call(json!({"op": "tab"})).await;
        focused.as_str().unwrap_or_default().to_owned()
    }

    pub async fn window(&self, width: u32, height: u32) {
        self.call(json!({"op": "window", "width": width, "height": height}))
            .await;
    }

    /// Writes the visible page as a PNG to `path`.
    pub async fn screenshot(&self, path: &std::path::Path) {
        let path = path.to_str().expect("a UTF-8 path");
        self.call(json!({"op": "screenshot", "path": path})).await;
    }

    /// The cookies of the page's site, with their flags, as WebDriver lists them.
    pub async fn cookies(&self) -> Vec<Value> {
        let all = self.call(json!({"op": "cookies"})).await;
        serde_json::from_value(all).expect("a list of cookies")
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Closing its stdin makes the bridge quit Chromium; it gets ten seconds for that.
        if let Ok(mut bridge) = self.bridge.lock() {
            bridge.stdin.take();
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while matches!(self.python.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.python.kill();
        let _ = self.python.wait();
        let _ = self.chromedriver.kill();
        let _ = self.chromedriver.wait();
    }
}
