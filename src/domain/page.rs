//! Keyset pagination shared by every list: newest first, by creation time then id.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

use super::time::Timestamp;

/// The position just after the last record of a page. Opaque to clients: they get it from
/// `X-Next-Cursor` and send it back unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cursor {
    pub created_at: Timestamp,
    pub id: String,
}

impl Cursor {
    pub fn encode(&self) -> String {
        URL_SAFE_NO_PAD.encode(format!("{}:{}", self.created_at.millis(), self.id))
    }

    pub fn decode(raw: &str) -> Option<Cursor> {
        let bytes = URL_SAFE_NO_PAD.decode(raw).ok()?;
        let text = String::from_utf8(bytes).ok()?;
        let (millis, id) = text.split_once(':')?;
        // No record's id holds a control character; one in a forged cursor would reach the
        // query, where PostgreSQL refuses NUL as a fault of its own.
        if id.chars().any(char::is_control) {
            return None;
        }
        Some(Cursor {
            created_at: Timestamp::from_millis(millis.parse().ok()?),
            id: id.to_owned(),
        })
    }
}

/// A page to read: at most `limit` records after `after`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRequest {
    pub limit: u32,
    pub after: Option<Cursor>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_text_is_a_cursor_or_refused(raw in "[A-Za-z0-9_-]{0,60}|\\PC{0,40}") {
            if let Some(c) = Cursor::decode(&raw) {
                prop_assert!(!c.id.chars().any(char::is_control));
            }
        }

        #[test]
        fn cursors_we_issue_come_back_unchanged(millis in any::<i64>(), id in "[^\\p{Cc}]{0,40}") {
            let c = Cursor { created_at: Timestamp(millis), id };
            prop_assert_eq!(Cursor::decode(&c.encode()), Some(c));
        }

        #[test]
        fn a_cursor_naming_a_control_character_is_refused(millis in any::<i64>(), id in "\\PC{0,10}\\p{Cc}\\PC{0,10}") {
            let forged = URL_SAFE_NO_PAD.encode(format!("{millis}:{id}"));
            prop_assert_eq!(Cursor::decode(&forged), None);
        }
    }

    #[test]
    fn cursors_round_trip_and_garbage_is_refused() {
        let c = Cursor {
            created_at: Timestamp(1_700_000_000_123),
            id: "a:b-c".into(),
        };
        assert_eq!(Cursor::decode(&c.encode()), Some(c));
        assert_eq!(Cursor::decode("not a cursor!"), None);
        assert_eq!(Cursor::decode(&URL_SAFE_NO_PAD.encode("x:y")), None);
        assert_eq!(Cursor::decode(&URL_SAFE_NO_PAD.encode("1:a\u{0}b")), None);
        assert_eq!(Cursor::decode(&URL_SAFE_NO_PAD.encode("1:\u{85}")), None);
    }
}
