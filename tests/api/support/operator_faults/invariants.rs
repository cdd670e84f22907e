//! What must hold after every scenario of the fault table, whatever the fault.

use std::collections::HashMap;

use momo_gateway::domain::Reference;

use super::Faulted;

impl Faulted {
    /// What must hold after every scenario: nothing left PENDING, one payment at most per
    /// transaction at the operator (under its internal id), nothing reserved, the ledger balanced.
    pub async fn assert_invariants(&self, what: &str) {
        assert_eq!(
            self.pending().await,
            Vec::<String>::new(),
            "{what}: nothing left PENDING"
        );
        let payments = self.emulator_get("payments").await;
        let mut per_reference: HashMap<String, usize> = HashMap::new();
        for p in payments.as_array().unwrap() {
            if p["flow"] == "checkout_refund" {
                // Wave knows a refund by its session and its key alone: counted by the session.
                *per_reference
                    .entry(format!("refund of {}", p["wire"]["checkout_session_id"]))
                    .or_default() += 1;
                continue;
            }
            let wire = &p["wire"];
            if p["protocol"] == "paydunya" {
                // An invoice or a disbursement moves money only once paid or submitted; a resend
                // makes a new invoice, and only one of a payment's may be paid.
                let paid = if p["flow"] == "invoice" {
                    !p["party"].is_null()
                } else {
                    wire["status"] != "created"
                };
                if paid {
                    *per_reference
                        .entry(p["key"].as_str().unwrap_or_default().to_owned())
                        .or_default() += 1;
                }
                continue;
            }
            let reference = wire["externalId"]
                .as_str()
                .or(wire["client_reference"].as_str())
                .unwrap_or_else(|| panic!("{what}: a payment that names no reference: {p}"));
            *per_reference.entry(reference.to_owned()).or_default() += 1;
            let ours = self
                .app
                .gateway
                .payments
                .transaction_by_ref(&Reference::from(reference))
                .await
                .unwrap();
            assert_eq!(
                p["key"],
                ours.transaction.id.as_str(),
                "{what}: keyed by the internal id"
            );
        }
        let twice: Vec<_> = per_reference.iter().filter(|(_, n)| **n > 1).collect();
        assert!(
            twice.is_empty(),
            "{what}: paid more than once at the operator: {twice:?}"
        );
        for i in self.emulator_get("initiations").await.as_array().unwrap() {
            assert!(i["executed"].as_u64().unwrap() <= 1, "{what}: executed twice: {i}");
        }
        assert_eq!(self.reserved().await, "0", "{what}: nothing left reserved");
        self.app.assert_ledger().await;
    }
}
