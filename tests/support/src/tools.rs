//! Tools a test runs beside the gateway (`python3`, `node`, `promtool`): present, or the test
//! says SKIPPED on the real stderr, past the harness's capture, and fails under `CI=true`.

use std::io::Write;
use std::process::Command;

/// Whether `program args…` runs and succeeds here; if not, `what` is SKIPPED (or fails in CI).
pub fn runs_or_skip(program: &str, args: &[&str], what: &str) -> bool {
    if Command::new(program)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success())
    {
        return true;
    }
    assert!(
        !crate::in_ci(),
        "{program} {} is required when CI=true (.ci/run installs it)",
        args.join(" ")
    );
    let _ = writeln!(
        std::io::stderr(),
        "\n*** {what} test SKIPPED: `{program} {}` does not run here ***\n",
        args.join(" ")
    );
    false
}
