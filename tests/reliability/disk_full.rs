//! SQLite on a full disk. The database lives on a small tmpfs, filled to the last byte under
//! load and then given room again. Where this process may not mount one (not root), the full
//! disk is emulated by a file-size limit on the gateway process (`RLIMIT_FSIZE`, with
//! `SIGXFSZ` ignored, so a write past it fails with `EFBIG` instead of killing the process);
//! `MOMO_RELIABILITY_DISK=rlimit` picks that emulation anywhere. Writes that cannot land are
//! answered 503 in their envelope, never 500; the file passes `PRAGMA integrity_check`; the
//! same process serves again once there is room.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::str::FromStr;
use std::time::{Duration, Instant};

use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Connection};

use crate::harness;
use crate::outage::{self, Window};
use momo_test_support::{poll, process};

/// How long writes keep failing once the first 503 came.
const HELD_FULL: Duration = Duration::from_secs(2);

/// A directory whose disk can be filled and freed.
struct SmallDisk {
    dir: tempfile::TempDir,
    tmpfs: bool,
}

impl SmallDisk {
    fn new() -> SmallDisk {
        let dir = tempfile::tempdir().expect("a directory");
        let emulate = std::env::var("MOMO_RELIABILITY_DISK").is_ok_and(|v| v == "rlimit");
        let tmpfs = !emulate
            && Command::new("mount")
                // Room for what the load writes after the disk is freed: at 32 MiB the database
                // and its WAL (24 + 8 MiB) filled it again on a fast run, and the 503s that
                // followed were the disk's, not the gateway's.
                .args(["-t", "tmpfs", "-o", "size=128m", "tmpfs"])
                .arg(dir.path())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
        SmallDisk { dir, tmpfs }
    }

    fn how(&self) -> &'static str {
        if self.tmpfs {
            "tmpfs of 128 MiB"
        } else {
            "RLIMIT_FSIZE"
        }
    }

    fn filler(&self) -> PathBuf {
        self.dir.path().join("filler")
    }

    /// No more room for the gateway process `pid`.
    fn fill(&self, pid: &str) {
        if self.tmpfs {
            let mut file = std::fs::File::create(self.filler()).expect("the filler");
            let block = [0u8; 4096];
            while file.write_all(&block).is_ok() {}
        } else {
            prlimit(pid, "512:");
        }
    }

    fn free(&self, pid: &str) {
        if self.tmpfs {
            std::fs::remove_file(self.filler()).expect("the filler goes");
        } else {
            prlimit(pid, "unlimited:");
        }
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        if self.tmpfs {
            let _ = Command::new("umount").arg("-l").arg(self.dir.path()).status();
        }
    }
}

/// Sets the soft limit only (`SOFT:`): raising a hard limit again needs a privilege.
fn prlimit(pid: &str, size: &str) {
    let set = Command::new("prlimit")
        .args(["--pid", pid, &format!("--fsize={size}")])
        .status()
        .expect("prlimit (util-linux) to emulate a full disk without mounting a tmpfs");
    assert!(set.success(), "prlimit --pid {pid} --fsize={size}");
}

/// `command` run through a shell that writes its process id to `pid_file`, ignores `SIGXFSZ`
/// (inherited across `exec`) and becomes the gateway.
fn with_pid_file(command: &Command, pid_file: &Path) -> Command {
    let mut shell = Command::new("sh");
    shell
        .args(["-c", "echo $$ > \"$1\"; trap '' XFSZ; shift; exec \"$@\"", "sh"])
        .arg(pid_file)
        .arg(command.get_program());
    for (name, value) in command.get_envs() {
        match value {
            Some(value) => shell.env(name, value),
            None => shell.env_remove(name),
        };
    }
    shell.stdin(Stdio::null());
    shell
}

async fn integrity(database_url: &str) -> String {
    let options = SqliteConnectOptions::from_str(database_url).unwrap().read_only(true);
    let mut conn = options.connect().await.expect("the file opens");
    let verdict: String = sqlx::query_scalar("PRAGMA integrity_check")
        .fetch_one(&mut conn)
        .await
        .expect("the check runs");
    let _ = conn.close().await;
    verdict
}

#[tokio::test]
async fn sqlite_on_a_full_disk_answers_503_keeps_its_file_intact_and_recovers_without_a_restart() {
    let started = Instant::now();
    let disk = SmallDisk::new();
    let url = format!("sqlite://{}/gateway.db", disk.dir.path().display());
    let settings = vec![
        ("MOMO_SIMULATOR_DELAY_MS", "300".to_owned()),
        ("MOMO_RECONCILE_INTERVAL_MS", "200".to_owned()),
        ("MOMO_RECONCILE_AFTER_MS", "500".to_owned()),
    ];
    let admin = harness::admin(&url, &settings).await;
    let merchant = harness::merchant(&admin, "Full disk", None).await;
    let pid_file = disk.dir.path().join("gateway.pid");
    let gateway = process::serve(with_pid_file(&harness::command(&url, &settings), &pid_file));
    let pid = std::fs::read_to_string(&pid_file)
        .expect("the pid file")
        .trim()
        .to_owned();
    // Below the gateway's idle timeout, so the client never reuses a connection the gateway
    // is closing.
    let client = reqwest::Client::builder()
        .pool_idle_timeout(Duration::from_secs(20))
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap();
    let token = harness::token(&client, &gateway.base, &merchant).await;

    let (sent, window) = outage::around(&client, &gateway.base, &token, "df", async |load| {
        let began = Instant::now();
        disk.fill(&pid);
        // The first 503, or 30 s (then the answers' check says the outage was never seen).
        let _ = poll(Duration::from_secs(30), async || {
            if load.seen(503) > 0 {
                Ok(())
            } else {
                Err(())
            }
        })
        .await;
        tokio::time::sleep(HELD_FULL).await;
        disk.free(&pid);
        Window {
            began,
            ended: Instant::now(),
        }
    })
    .await;
    let answers = outage::read(&sent, window);
    let aftermath = outage::check_aftermath(
        &client,
        gateway,
        &admin,
        &merchant,
        &token,
        &sent,
        "after the full disk",
    )
    .await;
    let (retried, panics) = (&aftermath.retried, aftermath.panics);
    let verdict = integrity(&url).await;
    admin.close().await;

    println!(
        "disk-full sqlite ({}): clients=16 requests={} {} full_for={}ms 503_in_window={} 503_after={} \
         recovered_after={}ms retried_503={} (stored_despite_503={} created_on_retry={}) stored={} left_to_check_leases={} \
         integrity_check={verdict} lost=0 duplicated=0 invented=0 changed=0 pending_left=0 500s={} panics={panics} \
         restarts=0 in {:.1}s",
        disk.how(),
        answers.tally.requests(),
        answers.tally,
        (window.ended - window.began).as_millis(),
        answers.unavailable_in_window,
        answers.unavailable_after,
        answers.recovered_after.unwrap_or_default().as_millis(),
        retried.sent.len(),
        retried.already_stored,
        retried.created,
        aftermath.stored,
        aftermath.by_process,
        answers.tally.count(500),
        started.elapsed().as_secs_f64()
    );
    assert_eq!(verdict, "ok", "PRAGMA integrity_check");
    assert_eq!(panics, 0, "no panic in the gateway's logs");
}
