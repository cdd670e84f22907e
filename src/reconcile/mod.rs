//! Workers that settle pending transactions: the reconciler and collection expiry. Filled in by
//! the payments work (issue 3); nothing here is used yet.
