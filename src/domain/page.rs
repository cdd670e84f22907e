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
    /// The position of a record created at `created_at` with `id`.
    pub fn at(created_at: Timestamp, id: impl ToString) -> Cursor {
        Cursor {
            created_at,
            id: id.to_string(),
        }
    }

    /// `{millis}.{id}` for the positions of our own records (ids are UUIDs or `msg_` + hex),
    /// so that the document can give the cursor a pattern every match of which is a position;
    /// base64 of `{millis}:{id}` for any other.
    pub fn encode(&self) -> String {
        let millis = self.created_at.millis();
        if (0..=MAX_READABLE_MILLIS).contains(&millis) && is_readable_id(&self.id) {
            format!("{millis}.{}", self.id)
        } else {
            URL_SAFE_NO_PAD.encode(format!("{millis}:{}", self.id))
        }
    }

    /// Any text matching `^[0-9]{1,15}\.[0-9A-Za-z_-]{1,64}$` is a position (base64 has no
    /// `.`); otherwise the base64 form, which every cursor issued before took.
    pub fn decode(raw: &str) -> Option<Cursor> {
        if let Some((millis, id)) = raw.split_once('.') {
            let digits = (1..=15).contains(&millis.len()) && millis.bytes().all(|b| b.is_ascii_digit());
            if !digits || !is_readable_id(id) {
                return None;
            }
            return Some(Cursor {
                created_at: Timestamp::from_millis(millis.parse().ok()?),
                id: id.to_owned(),
            });
        }
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

/// The largest creation time the readable form carries: 15 digits, past the year 33000.
const MAX_READABLE_MILLIS: i64 = 999_999_999_999_999;

fn is_readable_id(id: &str) -> bool {
    (1..=64).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A page to read: at most `limit` records after `after`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRequest {
    pub limit: u32,
    pub after: Option<Cursor>,
}

/// A record of a list read a page at a time, newest first by creation time then id.
pub trait Paged {
    /// Its own position: the page after it starts just past it.
    fn cursor(&self) -> Cursor;
}

/// Trims the extra record read for a page (a request asks for one more than it shows, to know
/// whether another page follows) and returns the cursor of the next page, if there is one.
pub fn split_page<T: Paged>(mut records: Vec<T>, page: &PageRequest) -> (Vec<T>, Option<Cursor>) {
    let next = if trim_page(&mut records, page) {
        records.last().map(T::cursor)
    } else {
        None
    };
    (records, next)
}

/// Trims the extra record read for a page; whether another page follows.
pub fn trim_page<T>(records: &mut Vec<T>, page: &PageRequest) -> bool {
    let wanted = (page.limit - 1) as usize;
    let more = records.len() > wanted;
    records.truncate(wanted);
    more
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
    fn our_records_get_a_readable_cursor_and_every_readable_text_is_a_position() {
        let c = Cursor {
            created_at: Timestamp(1_795_169_730_123),
            id: "0b6c0f4e-4a0e-4d52-9d5e-2f1c8c0e8a11".into(),
        };
        assert_eq!(c.encode(), "1795169730123.0b6c0f4e-4a0e-4d52-9d5e-2f1c8c0e8a11");
        assert_eq!(Cursor::decode(&c.encode()), Some(c));
        for raw in ["0.a", "999999999999999.msg_ab12", "1.-", "000000000000001._"] {
            assert!(Cursor::decode(raw).is_some(), "{raw}");
        }
        for raw in ["1.", ".a", "1000000000000000.a", "1.a.b", "1.a b", "-1.a", "1.é"] {
            assert_eq!(Cursor::decode(raw), None, "{raw}");
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
