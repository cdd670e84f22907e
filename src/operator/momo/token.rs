//! Access tokens per product (`collection`, `disbursement`), cached until shortly before they
//! expire so each payment does not cost a token round trip.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use tokio::sync::Mutex;

/// Tokens are renewed this long before the operator says they expire.
const MARGIN: Duration = Duration::from_secs(60);

/// The longest a token is kept, whatever lifetime the operator gives it.
const LONGEST_KEPT: Duration = Duration::from_secs(86_400);

#[derive(Default)]
pub struct TokenCache {
    tokens: Mutex<HashMap<&'static str, (String, Instant)>>,
}

impl TokenCache {
    /// The cached token of `product`, or the one `fetch` gets (which is then cached). One fetch
    /// at a time: concurrent payments wait for it rather than each asking for a token.
    pub async fn get<F, Fut, E>(&self, product: &'static str, fetch: F) -> Result<String, E>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Result<(String, Duration), E>>,
    {
        let mut tokens = self.tokens.lock().await;
        if let Some((token, until)) = tokens.get(product) {
            if Instant::now() < *until {
                return Ok(token.clone());
            }
        }
        let (token, valid_for) = fetch().await?;
        // The lifetime is the operator's word: a huge one saturates at a day, never overflows.
        let until = Instant::now() + valid_for.saturating_sub(MARGIN).min(LONGEST_KEPT);
        tokens.insert(product, (token.clone(), until));
        Ok(token)
    }

    /// Forgets a token the operator refused (401), so the next call fetches a new one.
    pub async fn forget(&self, product: &'static str) {
        self.tokens.lock().await.remove(product);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_lifetime_of_any_size_saturates_instead_of_overflowing() {
        let cache = TokenCache::default();
        let first: Result<String, ()> = cache
            .get("collection", || async {
                Ok(("t1".to_owned(), Duration::from_secs(u64::MAX)))
            })
            .await;
        assert_eq!(first.unwrap(), "t1");
        let again: Result<String, ()> = cache
            .get("collection", || async { Ok(("t2".to_owned(), Duration::ZERO)) })
            .await;
        assert_eq!(again.unwrap(), "t1", "kept, for at most a day");
    }
}
