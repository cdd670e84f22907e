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

/// [`take_queued`], then what else comes within `wait` of the first item, up to `max` in all:
/// for a consumer whose every batch costs a commit, so that a few more items per batch are
/// worth a short wait. With `wait` zero it is `take_queued`.
pub(crate) async fn take_queued_within<T>(
    receiver: &mut mpsc::Receiver<T>,
    max: usize,
    wait: std::time::Duration,
) -> Option<Vec<T>> {
    let mut batch = take_queued(receiver, max).await?;
    if !wait.is_zero() {
        let deadline = tokio::time::Instant::now() + wait;
        while batch.len() < max {
            match tokio::time::timeout_at(deadline, receiver.recv()).await {
                Ok(Some(item)) => batch.push(item),
                Ok(None) | Err(_) => break,
            }
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

    #[tokio::test]
    async fn within_a_wait_takes_what_comes_until_it_ends() {
        use std::time::Duration;
        let (sender, mut receiver) = tokio::sync::mpsc::channel(8);
        sender.send(0).await.unwrap();
        let late = sender.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            late.send(1).await.unwrap();
            tokio::time::sleep(Duration::from_millis(600)).await;
            late.send(2).await.unwrap();
        });
        let wait = Duration::from_millis(300);
        assert_eq!(
            super::take_queued_within(&mut receiver, 8, wait).await,
            Some(vec![0, 1])
        );
        assert_eq!(super::take_queued_within(&mut receiver, 8, wait).await, Some(vec![2]));
    }
}
