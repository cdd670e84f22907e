//! `docs/configuration.md`, rendered from the settings table; a unit test keeps the committed
//! file equal to it.

use super::platform::PLATFORM;
use super::settings::{all, Initial};

/// `docs/configuration.md`, rendered from the settings table.
pub fn markdown() -> String {
    let mut out = String::from(
        "# Configuration\n\n\
         <!-- Generated from src/config/settings.rs by a unit test: edit the table there, then run\n     \
         `UPDATE_DOCS=1 cargo test --lib config::` and commit this file. -->\n\n\
         Defaults, then an optional TOML file (`momo-gateway --config momo.toml`, or `MOMO_CONFIG=momo.toml`),\n\
         then environment variables, each overriding the one before. A TOML key is its variable's name in lower case\n\
         without `MOMO_`; a list may be a TOML array (`webhook_retry_schedule = [5, 300]`) or the\n\
         comma-separated text, and a list of `KEY=VALUE` pairs a TOML table (`[operator_aliases]`\n\
         with `WAVE_CI = \"BETA_MONEY_CI\"`). An unknown key or an invalid value stops the start with one line naming\n\
         the setting, where the value came from and what it accepts. The units in the names (`_MS`,\n\
         `_S`) are the units of the values.\n\n\
         | Variable | TOML key | Default | Accepts | Meaning |\n\
         |---|---|---|---|---|\n",
    );
    for s in all() {
        let default = match s.default {
            Initial::Value(v) => format!("`{v}`"),
            Initial::Unset(what) => what.to_owned(),
        };
        let cells = [
            format!("`{}`", s.var),
            format!("`{}`", s.key),
            default,
            s.accepts.to_owned(),
            s.doc.to_owned(),
        ];
        let cells: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|")).collect();
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    out.push_str(
        "\n## Platform variables\n\n\
         What a hosting platform sets for a twelve-factor app. Each gives its setting a value when the\n\
         setting's own `MOMO_*` variable is not set; like every environment variable, it overrides the\n\
         TOML file.\n\n\
         | Variable | Setting | Accepts | Meaning |\n\
         |---|---|---|---|\n",
    );
    for p in PLATFORM {
        let var = all().find(|s| s.key == p.key).map_or(p.key, |s| s.var);
        let cells = [
            format!("`{}`", p.var),
            format!("`{var}`"),
            p.accepts.to_owned(),
            p.doc.to_owned(),
        ];
        let cells: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|")).collect();
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    out
}
