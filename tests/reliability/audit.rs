//! The merchant's side of the books: what the clients were told, held against what the gateway
//! stored. Lost: a transaction an answer carried that is not stored. Invented: a stored one
//! nobody asked for. Changed: a final answer the store contradicts.

use std::collections::{HashMap, HashSet};

use momo_gateway::domain::TransactionRecord;

use crate::load::{Answer, Sent, Tally};

/// Every transaction id sent, and the latest answer that carried each transaction.
#[derive(Debug, Default)]
pub struct Told {
    pub sent: HashSet<String>,
    pub answers: HashMap<String, Answer>,
    pub tally: Tally,
}

impl Told {
    pub fn record(&mut self, sent: &Sent) {
        self.tally.add(&sent.answer);
        self.sent.insert(sent.payment.id.clone());
        if let Ok(answer) = &sent.answer {
            if answer.transaction.is_some() {
                self.answers.insert(sent.payment.id.clone(), answer.clone());
            }
        }
    }
}

#[derive(Debug)]
pub struct Audit {
    pub lost: Vec<String>,
    pub invented: Vec<String>,
    pub changed: Vec<String>,
}

pub fn audit(told: &Told, stored: &HashMap<String, TransactionRecord>) -> Audit {
    let mut audit = Audit {
        lost: Vec::new(),
        invented: stored.keys().filter(|id| !told.sent.contains(*id)).cloned().collect(),
        changed: Vec::new(),
    };
    for (id, answer) in &told.answers {
        let Some(record) = stored.get(id) else {
            audit.lost.push(format!("{id}: answered {}", answer.status));
            continue;
        };
        let said = answer.transaction.as_deref().unwrap_or_default();
        let now = record.transaction.status.as_str();
        if said != "PENDING" && said != now {
            audit.changed.push(format!("{id}: answered {said}, stored {now}"));
        }
    }
    audit
}

impl Audit {
    pub fn assert_clean(&self, what: &str) {
        assert!(
            self.lost.is_empty() && self.invented.is_empty() && self.changed.is_empty(),
            "{what}: lost {:?}, invented {:?}, changed {:?}",
            self.lost,
            self.invented,
            self.changed
        );
    }
}
