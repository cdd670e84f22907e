//! The variables hosting platforms set for a twelve-factor app, `PORT` and `DATABASE_URL`,
//! read as the setting they stand for when its own `MOMO_*` variable is not set. As
//! environment variables they win over the TOML file; the `MOMO_*` variable wins over them.

/// A platform's variable and the setting it gives a value to.
pub struct PlatformVar {
    /// The variable the platform sets.
    pub var: &'static str,
    /// The key of the setting it stands for (see `settings.rs`).
    pub key: &'static str,
    /// What a value may be, as errors and the documentation say it.
    pub accepts: &'static str,
    /// What it does, in one line.
    pub doc: &'static str,
    /// The setting's value, as its `MOMO_*` variable would hold it; `None` when not acceptable.
    pub(super) to_setting: fn(&str) -> Option<String>,
}

/// Every platform variable, in the order they are read.
pub static PLATFORM: &[PlatformVar] = &[
    PlatformVar {
        var: "PORT",
        key: "listen",
        accepts: "a port number from 1 to 65535",
        doc: "when `MOMO_LISTEN` is not set: serve on every interface at this port (`0.0.0.0:PORT`), where a platform's router can reach it",
        to_setting: |v| {
            let port = v.parse::<u16>().ok().filter(|p| *p != 0)?;
            Some(format!("0.0.0.0:{port}"))
        },
    },
    PlatformVar {
        var: "DATABASE_URL",
        key: "database_url",
        accepts: "a sqlite:// or postgres:// URL",
        doc: "when `MOMO_DATABASE_URL` is not set: the database",
        to_setting: |v| Some(v.to_owned()),
    },
];
