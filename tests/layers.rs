//! The layer rule of `src/` (imports run downward, STYLE.md), checked inside the repository so
//! that a clone runs its own CI: main/cli/app → {api, web} (sharing http) and reconcile →
//! service → {store, operator, webhook} → domain. `../shared/tools/layers-check` applies the same rules from outside; this is
//! the one CI cannot run without.
//!
//! Hand-written rather than a regex crate's: each rule is "this path never appears under that
//! folder", which a scan for `crate::<module>` followed by a non-identifier character says exactly.

use std::path::{Path, PathBuf};

/// (folder under `src/`, modules it must not name, why).
const RULES: &[(&str, &[&str], &str)] = &[
    (
        "domain",
        &[
            "api",
            "web",
            "http",
            "service",
            "store",
            "operator",
            "webhook",
            "reconcile",
            "config",
            "cli",
            "app",
        ],
        "the domain knows no outer layer",
    ),
    (
        "store",
        &["api", "web", "http", "service", "webhook", "reconcile", "cli", "app"],
        "storage knows no HTTP, use case or worker",
    ),
    (
        "operator",
        &[
            "api",
            "web",
            "http",
            "service",
            "store",
            "webhook",
            "reconcile",
            "cli",
            "app",
        ],
        "connectors do not persist or call use cases",
    ),
    (
        "webhook",
        &["api", "web", "http", "service", "reconcile", "cli", "app"],
        "delivery knows no HTTP handler or use case",
    ),
    (
        "service",
        &["api", "web", "http", "reconcile", "cli", "app"],
        "use cases know no wire dialect or page",
    ),
    (
        "api",
        &["store", "web"],
        "handlers go through services; the API knows no page",
    ),
    (
        "web",
        &["store", "api"],
        "pages go through services; the pages know no API dialect",
    ),
    (
        "http",
        &["api", "web", "service", "store", "reconcile", "cli", "app"],
        "what the API and the pages share knows neither, nor any use case",
    ),
    ("reconcile", &["api", "web", "http"], "workers know no HTTP layer"),
];

/// Each dialect translates the model; it never calls the other one.
const DIALECTS: &[(&str, &str)] = &[("v1", "v2"), ("v2", "v1")];

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether `line` names `needle` as a whole path segment: not preceded by (when `start`) nor
/// followed by (when `end`) an identifier character.
fn names(line: &str, needle: &str, start: bool, end: bool) -> bool {
    line.match_indices(needle).any(|(at, _)| {
        let before_ok = !start || !line[..at].chars().next_back().is_some_and(is_ident);
        let after_ok = !end || !line[at + needle.len()..].chars().next().is_some_and(is_ident);
        before_ok && after_ok
    })
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every code line (comments aside) of the `.rs` files under `src/<folder>`, with its place.
fn code_lines(folder: &str) -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src").join(folder), &mut files);
    let mut lines = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            if !line.trim_start().starts_with("//") {
                let shown = file.strip_prefix(root).unwrap_or(&file).display().to_string();
                lines.push((format!("{shown}:{}", n + 1), line.to_string()));
            }
        }
    }
    lines
}

/// Every import against the layers, as `place: line   <- why`.
fn violations() -> Vec<String> {
    let mut found = Vec::new();
    for (folder, forbidden, why) in RULES {
        for (place, line) in code_lines(folder) {
            for module in *forbidden {
                if names(&line, &format!("crate::{module}"), false, true) {
                    found.push(format!("{place}: {}   <- {why}", line.trim()));
                }
            }
        }
    }
    for (dialect, other) in DIALECTS {
        for (place, line) in code_lines(&format!("api/{dialect}")) {
            if names(&line, &format!("{other}::"), true, false) {
                found.push(format!(
                    "{place}: {}   <- a dialect does not call the other dialect",
                    line.trim()
                ));
            }
        }
    }
    found
}

#[test]
fn imports_run_downward() {
    let found = violations();
    assert!(
        found.is_empty(),
        "{} imports against the layers:\n{}",
        found.len(),
        found.join("\n")
    );
}

/// The emulator is an operator, not a part of the gateway: it names none of the gateway's code.
#[test]
fn the_emulator_shares_nothing_with_the_gateway() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("emulator");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    assert!(files.len() > 10, "emulator/ has its sources");
    files.push(root.join("Cargo.toml"));
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        for name in ["momo_gateway", "momo-gateway"] {
            assert!(!text.contains(name), "{} names {name}", file.display());
        }
    }
}

/// The bench is a client: it runs `momo-gateway` as a process and reads its database with SQL of
/// its own, and uses none of the gateway's code, so it drives a gateway of any revision.
#[test]
fn the_bench_uses_none_of_the_gateways_code() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    assert!(files.len() > 10, "bench/ has its sources");
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        assert!(!text.contains("momo_gateway"), "{} names momo_gateway", file.display());
    }
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap_or_default();
    let depends = |line: &str| line.starts_with("momo-gateway") || line.contains("path = \"..\"");
    assert!(
        !manifest.lines().map(str::trim).any(depends),
        "bench/Cargo.toml depends on the gateway"
    );
}

#[test]
fn the_scan_finds_what_it_looks_for() {
    assert!(names("use crate::api::envelope;", "crate::api", false, true));
    assert!(names("use crate::api;", "crate::api", false, true));
    assert!(!names("use crate::apis::x;", "crate::api", false, true));
    assert!(names("use super::v2::wire;", "v2::", true, false));
    assert!(!names("use crate::api::xv2::wire;", "v2::", true, false));
    // The scan sees the real tree: a folder that is not there would make every rule pass.
    for (folder, _, _) in RULES {
        assert!(!code_lines(folder).is_empty(), "src/{folder} has no code");
    }
}

/// README.md's "Where things are" names every folder of `src/` and `tests/` (and the crates
/// beside them), and nothing that is not there.
#[test]
fn the_readme_maps_the_tree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap_or_default();
    let section = readme
        .split("## Where things are")
        .nth(1)
        .expect("README.md has the section");
    let block = section.split("```").nth(1).expect("the section has its map");
    let named: Vec<&str> = block
        .lines()
        .filter(|l| !l.starts_with(' '))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    for path in &named {
        assert!(root.join(path).exists(), "README.md names {path}, which is not there");
    }
    for parent in ["src", "tests"] {
        let Ok(entries) = std::fs::read_dir(root.join(parent)) else {
            panic!("{parent}/ is there")
        };
        for entry in entries.flatten().filter(|e| e.path().is_dir()) {
            let folder = format!("{parent}/{}/", entry.file_name().to_string_lossy());
            assert!(
                named.contains(&folder.as_str()),
                "README.md's map does not name {folder}"
            );
        }
    }
}

/// Small files with one job each: none in `src/`, `tests/`, `emulator/` or `bench/` is over
/// 400 lines, tests included.
#[test]
fn no_source_file_is_over_400_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for folder in ["src", "tests", "emulator", "bench"] {
        rust_files(&root.join(folder), &mut files);
    }
    assert!(files.len() > 100, "the scan sees the tree ({} files)", files.len());
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let lines = std::fs::read_to_string(f).ok()?.lines().count();
            (lines > 400).then(|| format!("{} ({lines} lines)", f.strip_prefix(root).unwrap_or(f).display()))
        })
        .collect();
    assert!(long.is_empty(), "split these: {long:?}");
}

/// A page's form reaches its handler only through `web::csrf`'s extractors, which check its
/// token: no handler reads a form or an upload itself, or compares a token.
#[test]
fn only_the_csrf_extractors_read_a_page_form() {
    let readers = ["Form", "Multipart", "csrf_matches", "same_secret"];
    let found: Vec<String> = code_lines("web")
        .into_iter()
        .filter(|(place, line)| {
            !place.starts_with("src/web/csrf.rs")
                && !line.contains("fn csrf_matches(")
                && readers.iter().any(|reader| names(line, reader, true, true))
        })
        .map(|(place, line)| format!("{place}: {}", line.trim()))
        .collect();
    assert!(found.is_empty(), "read the form through web::csrf: {found:?}");
    let extractors: Vec<String> = code_lines("web")
        .into_iter()
        .filter(|(place, line)| place.starts_with("src/web/csrf.rs") && line.contains("csrf_matches("))
        .map(|(place, _)| place)
        .collect();
    assert_eq!(
        extractors.len(),
        2,
        "the scan sees the two session extractors: {extractors:?}"
    );
}

/// A test waits for real time only where the thing under test is real time (a process killed
/// and restarted, a database gone for a while, a browser); every clock of the gateway's own (the
/// breakers', leases', the emulator's) is moved on instead. At most ten such waits.
#[test]
fn tests_sleep_only_where_real_time_is_what_they_test() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("tests"), &mut files);
    let sleeps: Vec<String> = files
        .iter()
        .flat_map(|file| {
            let text = std::fs::read_to_string(file).unwrap_or_default();
            let shown = file.strip_prefix(root).unwrap_or(file).display().to_string();
            text.lines()
                .enumerate()
                .filter(|(_, line)| !line.trim_start().starts_with("//") && line.contains(&["sleep", "("].concat()))
                .map(|(n, _)| format!("{shown}:{}", n + 1))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(!sleeps.is_empty(), "the scan sees the waits that must stay");
    assert!(
        sleeps.len() <= 10,
        "{} waits for real time in tests: {sleeps:?}",
        sleeps.len()
    );
}

/// Money past the edge is `Francs` and counts are unsigned: no public field of `src/domain` or
/// `src/service` is a raw `i64` (raw integers stay in the store's rows and the wire types), and
/// no id shows its text (`MerchantId(pub String)`).
#[test]
fn amounts_and_ids_are_typed_past_the_edge() {
    let mut found = Vec::new();
    for folder in ["domain", "service"] {
        for (place, line) in code_lines(folder) {
            let field = line.trim_start();
            let raw_integer = field.starts_with("pub ") && field.ends_with(": i64,");
            let open_id = field.contains("Id(pub ");
            if raw_integer || open_id {
                found.push(format!("{place}: {}", line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "type these: {found:?}");
    assert!(
        code_lines("domain")
            .iter()
            .any(|(_, line)| line.contains("pub amount: Francs,")),
        "the scan sees the typed amounts"
    );
}

/// The emulator's callbacks know no protocol: each protocol hands its payments the calls back
/// it makes (`CallsBack`), so a new protocol is a folder of its own and not an edit here.
#[test]
fn the_emulators_callbacks_name_no_protocol() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("emulator/src/callbacks.rs")).expect("callbacks.rs is there");
    let named: Vec<&str> = text
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .filter(|line| {
            ["momo", "wave"]
                .iter()
                .any(|protocol| names(line, protocol, true, true))
        })
        .collect();
    assert!(named.is_empty(), "callbacks.rs names a protocol: {named:?}");
    assert!(text.contains("CallsBack"), "the scan reads the file");
}
