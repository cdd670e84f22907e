//! Settled events handed straight from the batch writers to this process's dispatcher.
//!
//! Without a handoff, every event a settlement writes is claimed afterwards by a dispatcher: an
//! `UPDATE` that rewrites the event's row, payload and all, to lease it. On SQLite that runs on
//! the one writer connection the payments need (about 15 % of its time in `momo-bench`'s
//! scenario c). With a handoff, a batch that settles payments first reserves room for their
//! events in the dispatcher's queue, and writes them already leased to it, due again only when
//! that lease ends. Once the batch has committed, the events go to the queue.
//!
//! Nothing is lost when the process dies with events in the queue: their lease ends, and a
//! dispatcher's claim takes them then, as it takes an event whose attempt was cut off. When the
//! queue is full, or the process gave none (tests that drive `Dispatcher::run_once`), a batch
//! writes its events unleased, for the claims.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tokio::sync::mpsc;

use crate::domain::{EventId, Tenant, Timestamp};

/// A settled payment's webhook event, leased to this process's dispatcher when it was written.
#[derive(Debug, Clone)]
pub struct LeasedEvent {
    pub id: crate::domain::EventId,
    pub tenant: Tenant,
    pub payload: String,
    /// Proves the lease, as a claim's token does.
    pub lease_token: String,
    /// When the lease ends and a claim may take the event.
    pub lease_until: Timestamp,
}

/// The lease a batch writes its events with.
#[derive(Debug, Clone)]
pub(in crate::store) struct EventLease {
    pub token: String,
    pub until: Timestamp,
}

/// The writers' end of the queue, empty until the process gives them one (`app` connects its
/// other end to the dispatcher: storage hands events to a queue, not to a consumer).
#[derive(Clone, Default)]
pub(in crate::store) struct Handoff(Arc<OnceLock<Queue>>);

struct Queue {
    sender: mpsc::Sender<LeasedEvent>,
    lease: Duration,
}

impl Handoff {
    /// From now on, the events of settlements go to `queue`, leased for `lease` from their
    /// batch; `false` when a queue was given before (it stays).
    pub fn attach(&self, queue: mpsc::Sender<LeasedEvent>, lease: Duration) -> bool {
        self.0.set(Queue { sender: queue, lease }).is_ok()
    }

    /// Room in the queue for `events` events, and the lease to write them with; `None` when
    /// nobody takes them or there is no room.
    pub fn reserve(&self, events: usize) -> Option<Reserved<'_>> {
        let queue = self.0.get()?;
        if events == 0 {
            return None;
        }
        let permits = queue.sender.try_reserve_many(events).ok()?;
        Some(Reserved {
            lease: EventLease {
                token: uuid::Uuid::new_v4().to_string(),
                until: Timestamp::now().plus(queue.lease),
            },
            permits,
        })
    }
}

/// Room for one batch's events, which go to the queue only once the batch has committed.
pub(in crate::store) struct Reserved<'a> {
    pub lease: EventLease,
    permits: mpsc::PermitIterator<'a, LeasedEvent>,
}

impl Reserved<'_> {
    /// Hands over one event the batch wrote with this lease. The room a batch does not use (a
    /// settlement that found its payment already final) is given back when this is dropped.
    pub fn send(&mut self, id: EventId, tenant: Tenant, payload: String) {
        if let Some(permit) = self.permits.next() {
            permit.send(LeasedEvent {
                id,
                tenant,
                payload,
                lease_token: self.lease.token.clone(),
                lease_until: self.lease.until,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tenant() -> Tenant {
        Tenant::sandbox("m")
    }

    #[test]
    fn nothing_is_reserved_before_the_process_gives_a_queue() {
        assert!(Handoff::default().reserve(1).is_none());
    }

    #[tokio::test]
    async fn a_batch_gets_room_only_for_all_of_its_events_and_gives_back_what_it_did_not_use() {
        const QUEUE: usize = 64;
        let handoff = Handoff::default();
        let (queue, mut receiver) = mpsc::channel(QUEUE);
        assert!(handoff.attach(queue, Duration::from_secs(30)), "the first queue given");
        assert!(
            !handoff.attach(mpsc::channel(1).0, Duration::from_secs(30)),
            "a second queue is refused"
        );
        assert!(handoff.reserve(QUEUE + 1).is_none(), "more than the queue holds");
        {
            let mut reserved = handoff.reserve(QUEUE).expect("room for a full queue");
            assert!(handoff.reserve(1).is_none(), "no room left while it is held");
            reserved.send("e1".into(), tenant(), "{}".into());
        }
        assert!(handoff.reserve(QUEUE - 1).is_some(), "the unused room came back");
        assert!(handoff.reserve(QUEUE).is_none(), "the sent event still takes its place");
        let handed = receiver.recv().await.expect("the event sent");
        assert_eq!(handed.id, "e1");
        assert!(handed.lease_until > Timestamp::now(), "leased into the future");
    }
}
