//! Taking a batch off a queue, shared by the batch writers (`sql::batch`), the lookup readers
//! (`lookup_batch`) and the dispatcher's handoff loops.

use tokio::sync::mpsc;

/// Waits for one item, then takes whatever else is already queued, up to `max` in all. It never
/// waits for more than is there, so under light load a batch of one goes at once. `None` once
/// the queue is closed and empty.
pub(crate) async fn take_queued<T>(receiver: &mut mpsc::Receiver<T>, max: usize) -> Option<Vec<T>> {
    let first = receiver.recv().await?;
    let mut batch = vec![first];
    while batch.len() < max {
        match receiver.try_recv() {
            Ok(item) => batch.push(item),
            Err(_) => break,
        }
    }
    Some(batch)
}

#[cfg(test)]
mod tests {
    #[tokio::test]
    async fn takes_what_is_queued_up_to_max_and_ends_with_the_queue() {
        let (sender, mut receiver) = tokio::sync::mpsc::channel(8);
        for i in 0..5 {
            sender.send(i).await.unwrap();
        }
        assert_eq!(super::take_queued(&mut receiver, 3).await, Some(vec![0, 1, 2]));
        assert_eq!(super::take_queued(&mut receiver, 3).await, Some(vec![3, 4]));
        drop(sender);
        assert_eq!(super::take_queued(&mut receiver, 3).await, None);
    }
}
