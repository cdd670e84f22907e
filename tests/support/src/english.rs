//! Whether a text meant to be French holds English: the English function words a French
//! sentence never uses (`the`, `must`, `is`, …). Codes, ids and column names in a sentence
//! (`GAMMA_MONEY_CI`, `check_recipient`) are single words with underscores and count as none,
//! and so does what a sentence quotes of the reader's own input, between « and ».

/// English words no French sentence holds.
const ENGLISH: &[&str] = &[
    "the", "is", "are", "was", "must", "not", "be", "been", "has", "have", "of", "to", "and", "this", "that", "with",
    "from", "than", "only", "which", "cannot", "should", "does", "its", "it", "no", "any", "nothing", "was", "were",
    "will", "please", "try", "again", "invalid", "missing", "refused", "failed", "unknown", "empty", "between",
];

/// The English words of `text`, each once, in order.
pub fn english_words(text: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut unquoted = String::new();
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '«' => depth += 1,
            '»' => depth = depth.saturating_sub(1),
            c if depth == 0 => unquoted.push(c),
            _ => {}
        }
    }
    for word in unquoted.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '\'' || c == '’')) {
        let lower = word.to_lowercase();
        if ENGLISH.contains(&lower.as_str()) && !found.contains(&lower) {
            found.push(lower);
        }
    }
    found
}

/// Panics, naming the words and the text, when `text` holds English.
pub fn assert_french(text: &str, what: &str) {
    let english = english_words(text);
    assert!(
        english.is_empty(),
        "English words {english:?} in the French {what}: {text}"
    );
}

#[cfg(test)]
mod tests {
    use super::english_words;

    #[test]
    fn english_is_found_and_french_is_not() {
        assert_eq!(
            english_words("phone must be a 10-digit Ivorian mobile number"),
            ["must", "be"]
        );
        assert!(
            english_words("le numéro doit être un numéro mobile ivoirien à 10 chiffres, GAMMA_MONEY_CI").is_empty()
        );
        assert!(english_words("l’identifiant n’est pas valide ; check_recipient vaut true").is_empty());
        assert!(english_words("l’URL « not a url » n’est pas une URL valide").is_empty());
    }
}
