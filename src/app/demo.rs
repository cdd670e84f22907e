//! The demo merchant's Sandbox credentials, shown once at its creation on the terminal
//! (stdout, never the logs, which are stderr), and saved beside the SQLite database for the
//! README walkthrough. The lines follow the log format: text for a person, or one JSON object
//! shaped like a JSON log line (`timestamp`, `level`, `fields`, `target`) for a collector.

use std::path::Path;

use serde_json::json;
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use crate::config::{Config, LogFormat};
use crate::domain::Environment;
use crate::service::{CreatedMerchant, MerchantEnvironmentSecrets as Credentials};

/// Saves and prints the demo's Sandbox credentials.
pub(super) fn show_credentials(demo: &CreatedMerchant, config: &Config) {
    let Some(sandbox) = demo.environments.iter().find(|e| e.environment == Environment::Sandbox) else {
        return;
    };
    let env_file = format!(
        "export DEMO_BASE_URL={}\nexport DEMO_API_KEY={}\nexport DEMO_API_SECRET={}\nexport DEMO_WEBHOOK_SECRET={}\n",
        config.public_url, sandbox.api_key, sandbox.api_secret, sandbox.webhook_secret
    );
    let saved = config
        .sqlite_path()
        .and_then(|p| Path::new(p).parent())
        .and_then(|dir| {
            let path = dir.join("demo-sandbox.env");
            match write_private(&path, &env_file) {
                Ok(()) => Some(path),
                Err(e) => {
                    tracing::warn!(path = %path.display(), error = %e, "could not save the demo's credentials");
                    None
                }
            }
        });
    let lines = match config.log_format {
        LogFormat::Text => text(demo, sandbox, saved.as_deref()),
        LogFormat::Json => vec![json_line(demo, sandbox, saved.as_deref(), OffsetDateTime::now_utc())],
    };
    for line in lines {
        println!("{line}");
    }
}

fn text(demo: &CreatedMerchant, sandbox: &Credentials, saved: Option<&Path>) -> Vec<String> {
    let mut lines = vec![
        format!(
            "\nFirst start on an empty database: created a demo merchant ({}).",
            demo.id
        ),
        "Its Sandbox credentials, shown only this once:".to_owned(),
        format!("  API key:                {}", sandbox.api_key),
        format!("  API secret:             {}", sandbox.api_secret),
        format!("  Webhook signing secret: {}", sandbox.webhook_secret),
    ];
    if let Some(path) = saved {
        lines.push(format!(
            "Saved to {} (try: source {})\n",
            path.display(),
            path.display()
        ));
    }
    lines
}

/// One line of JSON, the shape `tracing-subscriber` gives a log line with `MOMO_LOG_FORMAT=json`.
fn json_line(demo: &CreatedMerchant, sandbox: &Credentials, saved: Option<&Path>, now: OffsetDateTime) -> String {
    json!({
        "timestamp": now.format(&Rfc3339).unwrap_or_default(),
        "level": "INFO",
        "fields": {
            "message": "first start on an empty database: created a demo merchant; its Sandbox credentials, shown only this once",
            "merchant_id": demo.id.as_str(),
            "environment": "Sandbox",
            "api_key": sandbox.api_key,
            "api_secret": sandbox.api_secret,
            "webhook_secret": sandbox.webhook_secret,
            "saved_to": saved.map(|p| p.display().to_string()),
        },
        "target": module_path!(),
    })
    .to_string()
}

fn write_private(path: &Path, content: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)?.write_all(content.as_bytes())
}
