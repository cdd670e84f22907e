//! `--compare REV`: the same scenarios against the gateway built from another revision, in the
//! same session on the same machine, so that a change is judged against its own before and not
//! against figures from another day.
//!
//! REV is checked out in a git worktree under `target/compare/<commit>` and built there with a
//! target directory of its own (`target/compare/target`), so the current build is untouched and
//! a second comparison with the same REV builds incrementally.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context;

use crate::report::Row;

/// One run's figures, for the comparison table.
pub struct Summary {
    pub rows: Vec<Row>,
    pub drain_per_second: f64,
    pub idle_kib: u64,
    pub peak_kib: u64,
    /// What one payment of c cost, when c ran.
    pub c_cost: Option<crate::cost::Cost>,
    /// The open-loop runs.
    pub open: Vec<crate::open_loop::OpenRow>,
}

/// Builds `momo-gateway` at `rev` and returns the path of the binary.
pub fn build_gateway(rev: &str) -> anyhow::Result<PathBuf> {
    let root = PathBuf::from(git(Path::new("."), &["rev-parse", "--show-toplevel"])?);
    let commit = git(&root, &["rev-parse", "--verify", &format!("{rev}^{{commit}}")])
        .with_context(|| format!("{rev:?} names no commit of this repository"))?;
    let short = &commit[..12.min(commit.len())];
    let compare = root.join("target").join("compare");
    let tree = compare.join(short);
    if !tree.join("Cargo.toml").exists() {
        eprintln!("checking out {rev} ({short}) in {}", tree.display());
        let tree_arg = tree.to_string_lossy().into_owned();
        git(&root, &["worktree", "add", "--force", "--detach", &tree_arg, &commit])?;
    }
    own_workspace(&tree)?;
    eprintln!("building momo-gateway at {rev} ({short}); the first build of a revision takes minutes");
    // The gateway's package and binary only: in older revisions the bench is a second binary
    // of that package, in newer ones a package of its own; either way it is not built, and
    // this bench drives the gateway it finds (over HTTP, its CLI and its database's tables).
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
        .args([
            "build",
            "--release",
            "--package",
            "momo-gateway",
            "--bin",
            "momo-gateway",
        ])
        .current_dir(&tree)
        .env("CARGO_TARGET_DIR", compare.join("target"))
        .status()
        .context("cannot run cargo")?;
    anyhow::ensure!(status.success(), "building {rev} failed");
    Ok(compare.join("target").join("release").join("momo-gateway"))
}

/// Makes the checked-out revision a workspace of its own. Under `target/` it sits inside this
/// repository's workspace, and cargo would take a revision without a `[workspace]` table of its
/// own (every one before the emulator's crate) for a member that is not listed; `exclude` does
/// not help under a member's path (rust-lang/cargo#6745).
fn own_workspace(tree: &Path) -> anyhow::Result<()> {
    let manifest = tree.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).with_context(|| format!("cannot read {}", manifest.display()))?;
    if !text.lines().any(|line| line.trim() == "[workspace]") {
        std::fs::write(&manifest, format!("{text}\n[workspace]\n"))
            .with_context(|| format!("cannot write {}", manifest.display()))?;
    }
    Ok(())
}

/// `git ARGS` in `dir`, its output trimmed.
fn git(dir: &Path, args: &[&str]) -> anyhow::Result<String> {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .context("cannot run git")?;
    anyhow::ensure!(
        output.status.success(),
        "git {} failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&output.stderr).trim()
    );
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// The two runs side by side: throughput, p99 and their ratio, scenario by scenario.
pub fn print(rev: &str, before: &Summary, after: &Summary) {
    println!();
    println!("comparison: {rev} (before) and this build (after), same session");
    println!();
    println!("| scenario | before req/s | after req/s | after/before | before p99 ms | after p99 ms | before ratio | after ratio |");
    println!("|---|---:|---:|---:|---:|---:|---|---|");
    for (b, a) in before.rows.iter().zip(&after.rows) {
        println!(
            "| {} | {:.0} | {:.0} | {:.2} | {:.2} | {:.2} | {} | {} |",
            a.name,
            b.throughput,
            a.throughput,
            a.throughput / b.throughput.max(1e-9),
            b.p99,
            a.p99,
            b.ratio_text(),
            a.ratio_text()
        );
    }
    // Scenario f was not run when neither side drained anything.
    if before.drain_per_second > 0.0 || after.drain_per_second > 0.0 {
        println!(
            "| f. webhook drain | {:.0} | {:.0} | {:.2} | | | | |",
            before.drain_per_second,
            after.drain_per_second,
            after.drain_per_second / before.drain_per_second.max(1e-9)
        );
    }
    println!();
    println!(
        "gateway memory: before idle {:.1} MB, peak {:.1} MB; after idle {:.1} MB, peak {:.1} MB",
        before.idle_kib as f64 / 1024.0,
        before.peak_kib as f64 / 1024.0,
        after.idle_kib as f64 / 1024.0,
        after.peak_kib as f64 / 1024.0
    );
    if !after.open.is_empty() {
        println!();
        println!("open loop, before and after (each side at the shares of its own closed-loop rate):");
        println!();
        println!("| scenario | before sent/s | after sent/s | before p99 ms | after p99 ms | before p99.9 ms | after p99.9 ms |");
        println!("|---|---:|---:|---:|---:|---:|---:|");
        for (b, a) in before.open.iter().zip(&after.open) {
            println!(
                "| {} | {:.0} | {:.0} | {:.2} | {:.2} | {:.2} | {:.2} |",
                a.label(),
                b.rate,
                a.rate,
                b.p99,
                a.p99,
                b.p999,
                a.p999
            );
        }
        println!();
    }
    if let (Some(b), Some(a)) = (&before.c_cost, &after.c_cost) {
        println!("before: {}", crate::cost::describe("c", b));
        println!("after:  {}", crate::cost::describe("c", a));
        if let (Some(b), Some(a)) = (b.database_cpu_ms, a.database_cpu_ms) {
            println!(
                "database CPU per c payment: after/before {:.2}",
                a / b.max(f64::MIN_POSITIVE)
            );
        }
    }
}
