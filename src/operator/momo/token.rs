//! Access tokens per product (`collection`, `disbursement`), cached until shortly before they
//! expire so each payment does not cost a token round trip.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use tokio::sync::Mutex;

/// Tokens are renewed this long before the operator says they expire.
const MARGIN: Duration = Duration::from_secs(60);

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
        let until = Instant::now() + valid_for.saturating_sub(MARGIN);
        tokens.insert(product, (token.clone(), until));
        Ok(token)
    }

    /// Forgets a token the operator refused (401), so the next call fetches a new one.
    pub async fn forget(&self, product: &'static str) {
        self.tokens.lock().await.remove(product);
    }
}
