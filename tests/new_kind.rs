//! What a new kind of payment costs, counted in files: the places that name every kind of
//! payment (an exhaustive match, a list of every kind) are the ones a new kind must be added
//! to. docs/store.md lists them under "Adding a kind of payment"; this test fails when the code
//! and that list part, so a new such place is a decision someone writes down, not an accident.
//!
//! A kind is named by its variant of `Kind`, `Purpose`, `Requested` (the service's request) or
//! `Instruction` (the operator's). Unit tests (`#[cfg(test)]` onwards, `tests/` folders) are
//! left out: a new kind brings its own tests.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const KINDS: &[&str] = &["Collection", "Transfer", "Refund"];
const ENUMS: &[&str] = &["Kind", "Purpose", "Requested", "Instruction"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "tests") {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs")
            && !path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().ends_with("tests.rs"))
        {
            out.push(path);
        }
    }
}

/// Whether `code` names `Enum::Kind` for one of the enums, as a whole path segment.
fn names_kind(code: &str, kind: &str) -> bool {
    ENUMS.iter().any(|e| {
        let needle = format!("{e}::{kind}");
        code.match_indices(&needle).any(|(at, _)| {
            let before = code[..at].chars().next_back();
            let after = code[at + needle.len()..].chars().next();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
    })
}

/// A file's code: its comments left out, and its inline test module (`#[cfg(test)] mod tests {`,
/// at its end) too; a test module in a file of its own (`#[cfg(test)] mod tests;`) ends nothing.
fn code_of(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut code = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let next = lines.get(i + 1).map(|l| l.trim()).unwrap_or_default();
        if line.trim() == "#[cfg(test)]" && next.starts_with("mod ") && next.ends_with('{') {
            break;
        }
        if !line.trim_start().starts_with("//") {
            code.push(*line);
        }
    }
    code.join("\n")
}

/// Each source file of `src/` (relative path) with the kinds its code names.
fn kinds_named() -> Vec<(String, BTreeSet<&'static str>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    files
        .into_iter()
        .map(|file| {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            let code = code_of(&text);
            let named = KINDS.iter().copied().filter(|k| names_kind(&code, k)).collect();
            (file.strip_prefix(root).unwrap_or(&file).display().to_string(), named)
        })
        .collect()
}

/// The files docs/store.md lists as the ones a new kind of payment must touch.
fn listed_in_docs() -> BTreeSet<String> {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/store.md")).unwrap();
    let section = doc
        .split("<!-- files a new kind touches -->")
        .nth(1)
        .and_then(|rest| rest.split("<!-- end -->").next())
        .expect("docs/store.md marks its list with <!-- files a new kind touches --> … <!-- end -->");
    section
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- `"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_files_a_new_kind_of_payment_touches_are_the_ones_docs_store_md_lists() {
    let every_kind: BTreeSet<String> = kinds_named()
        .into_iter()
        .filter(|(_, named)| named.len() == KINDS.len())
        .map(|(file, _)| file)
        .collect();
    let listed = listed_in_docs();
    let unlisted: Vec<&String> = every_kind.difference(&listed).collect();
    let gone: Vec<&String> = listed.difference(&every_kind).collect();
    assert!(
        unlisted.is_empty() && gone.is_empty(),
        "files that name every kind of payment but docs/store.md does not list: {unlisted:?}; \
         listed there but naming every kind no more: {gone:?}. A new place a kind must be added to \
         is a cost: keep it out (a method of the kind, a list in one place) or list it."
    );
    assert!(
        every_kind.len() <= 20,
        "{} places name every kind: {every_kind:?}",
        every_kind.len()
    );
}

#[test]
fn in_the_store_a_kind_of_payment_is_one_file() {
    let store: Vec<(String, BTreeSet<&str>)> = kinds_named()
        .into_iter()
        .filter(|(file, named)| file.starts_with("src/store/") && !named.is_empty())
        .collect();
    for kind in KINDS {
        let own = format!("src/store/sql/kinds/{}.rs", kind.to_lowercase());
        let naming: Vec<&String> = store
            .iter()
            .filter(|(_, named)| named.contains(kind))
            .map(|(file, _)| file)
            .collect();
        assert_eq!(naming, vec![&own], "the store names {kind} only in its own file");
    }
    assert_eq!(store.len(), KINDS.len(), "no store file names two kinds: {store:?}");
}

#[test]
fn the_scan_finds_a_kind_named_as_a_path_and_nothing_else() {
    assert!(names_kind("match k { Kind::Refund => 1 }", "Refund"));
    assert!(names_kind("Purpose::Transfer(t)", "Transfer"));
    assert!(!names_kind("Kind::RefundLink", "Refund"));
    assert!(!names_kind("MyKind::Refund", "Refund"));
    assert!(!names_kind("a refund", "Refund"));
    // A test module in a file of its own ends nothing; an inline one ends the code.
    assert!(code_of("#[cfg(test)]\nmod tests;\n\nfn f() { Kind::Refund }").contains("Kind::Refund"));
    assert!(!code_of("fn f() {}\n#[cfg(test)]\nmod tests {\n    Kind::Refund\n}").contains("Kind::Refund"));
    assert!(!code_of("// Kind::Refund").contains("Kind::Refund"));
}
