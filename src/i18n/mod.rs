//! The languages people read the gateway in: the dashboard and the payer's page (French by
//! default), and the command line (the language `LC_ALL`, `LC_MESSAGES` or `LANG` names;
//! English otherwise). What they show of a refusal is in [`refusals`], in both languages. The
//! API keeps the reference's English: its reasons are the errors' own `Display`.

pub mod refusals;

/// A language the pages and the command line speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    Fr,
    En,
}

impl Lang {
    pub fn parse(raw: &str) -> Option<Lang> {
        match raw {
            "fr" => Some(Lang::Fr),
            "en" => Some(Lang::En),
            _ => None,
        }
    }

    pub fn code(self) -> &'static str {
        match self {
            Lang::Fr => "fr",
            Lang::En => "en",
        }
    }

    /// The other language, for the switch in a page's header.
    pub fn other(self) -> Lang {
        match self {
            Lang::Fr => Lang::En,
            Lang::En => Lang::Fr,
        }
    }

    /// The command line's language, from the POSIX locale variables as a terminal sets them
    /// (`LC_ALL` over `LC_MESSAGES` over `LANG`; `fr_CI.UTF-8` is French): `var` reads one.
    pub fn of_locale(var: impl Fn(&str) -> Option<String>) -> Lang {
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"]
            .into_iter()
            .find_map(|name| var(name).filter(|v| !v.is_empty()))
            .unwrap_or_default();
        if locale == "fr" || locale.starts_with("fr_") || locale.starts_with("fr.") {
            Lang::Fr
        } else {
            Lang::En
        }
    }

    /// This process's command-line language.
    pub fn from_env() -> Lang {
        Lang::of_locale(|name| std::env::var(name).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::Lang;

    #[test]
    fn the_locale_says_french_the_first_set_variable_deciding() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string())
        };
        assert_eq!(Lang::of_locale(env(&[("LANG", "fr_CI.UTF-8")])), Lang::Fr);
        assert_eq!(Lang::of_locale(env(&[("LANG", "fr")])), Lang::Fr);
        assert_eq!(
            Lang::of_locale(env(&[("LC_ALL", "en_US.UTF-8"), ("LANG", "fr_FR.UTF-8")])),
            Lang::En
        );
        assert_eq!(
            Lang::of_locale(env(&[("LC_ALL", ""), ("LC_MESSAGES", "fr_FR")])),
            Lang::Fr
        );
        assert_eq!(Lang::of_locale(env(&[("LANG", "C.UTF-8")])), Lang::En);
        assert_eq!(Lang::of_locale(env(&[])), Lang::En);
        assert_eq!(Lang::of_locale(env(&[("LANG", "french")])), Lang::En);
    }
}
