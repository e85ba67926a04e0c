//! The one contract suite of the `Queue` port. Every adapter runs it: the
//! embedded queue in this crate's tests, SQS in `infra-aws` against moto. Each
//! check takes a fresh queue (and its dead-letter queue) from the factory; the
//! checks run concurrently on short real timeouts, so the suite takes seconds.

use std::collections::BTreeSet;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::queue::{MAX_BATCH, MAX_DELAY, MAX_WAIT, Message, Queue, QueueError};

/// The visibility timeout of the factory's queues.
pub const VISIBILITY_TIMEOUT: Duration = Duration::from_secs(1);
/// The receives after which the factory's queues move a message to their
/// dead-letter queue.
pub const MAX_RECEIVES: u32 = 3;

/// A fresh queue with `VISIBILITY_TIMEOUT` and `MAX_RECEIVES`, and the queue
/// its dead letters go to.
pub struct Fixture {
    pub queue: Arc<dyn Queue>,
    pub dead_letters: Arc<dyn Queue>,
}

const JOB: &str = r#"{"job_id":"job_0a1b2c3d4e5f"}"#;
const DELIVERY: &str = r#"{"webhook_id":"we_0a1b2c","delivery_id":"dlv_3d4e5f"}"#;
/// Long enough for anything the checks expect to arrive; a `receive` returns
/// as soon as it does.
const PATIENCE: Duration = Duration::from_secs(5);

/// Runs every contract check.
pub async fn run<F, Fut>(new_queue: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = Fixture>,
{
    let mut fixtures = Vec::new();
    for _ in 0..10 {
        fixtures.push(new_queue().await);
    }
    let mut next = || fixtures.pop().expect("one fixture per check");
    tokio::join!(
        round_trip(next()),
        delay(next()),
        visibility_timeout(next()),
        change_visibility(next()),
        unknown_receipts(next()),
        stale_receipt(next()),
        long_poll(next()),
        batches(next()),
        invalid_requests(next()),
        dead_letters(next()),
    );
}

async fn receive_one(queue: &dyn Queue, wait: Duration) -> Option<Message> {
    let mut got = queue.receive(1, wait).await.unwrap();
    assert!(got.len() <= 1, "asked for one message, got {got:?}");
    got.pop()
}

async fn round_trip(f: Fixture) {
    let q = &*f.queue;
    q.send(JOB, Duration::ZERO).await.unwrap();
    q.send(DELIVERY, Duration::ZERO).await.unwrap();
    let mut received = Vec::new();
    while received.len() < 2 {
        let m = receive_one(q, PATIENCE)
            .await
            .expect("both messages arrive");
        assert_eq!(m.receive_count, 1);
        assert!(!m.id.is_empty() && !m.receipt.is_empty());
        q.delete(&m.receipt).await.unwrap();
        received.push(m);
    }
    assert_ne!(received[0].id, received[1].id);
    let bodies: BTreeSet<_> = received.iter().map(|m| m.body.as_str()).collect();
    assert_eq!(
        bodies,
        BTreeSet::from([JOB, DELIVERY]),
        "bodies arrive as sent"
    );
    let again = receive_one(q, VISIBILITY_TIMEOUT * 2).await;
    assert_eq!(again, None, "deleted messages never come back");
}

async fn delay(f: Fixture) {
    let q = &*f.queue;
    let sent = Instant::now();
    q.send(JOB, Duration::from_secs(2)).await.unwrap();
    assert_eq!(
        receive_one(q, Duration::ZERO).await,
        None,
        "hidden while delayed"
    );
    let m = receive_one(q, PATIENCE)
        .await
        .expect("visible after the delay");
    assert!(
        sent.elapsed() >= Duration::from_millis(1800),
        "{:?}",
        sent.elapsed()
    );
    assert_eq!((m.body.as_str(), m.receive_count), (JOB, 1));
}

async fn visibility_timeout(f: Fixture) {
    let q = &*f.queue;
    q.send(JOB, Duration::ZERO).await.unwrap();
    let first = receive_one(q, PATIENCE).await.unwrap();
    let leased = Instant::now();
    assert_eq!(receive_one(q, Duration::ZERO).await, None, "in flight");
    let again = receive_one(q, PATIENCE)
        .await
        .expect("back after the timeout");
    assert!(leased.elapsed() >= VISIBILITY_TIMEOUT * 8 / 10);
    assert_eq!(
        (again.id.as_str(), again.receive_count),
        (first.id.as_str(), 2)
    );
    assert_ne!(again.receipt, first.receipt, "a new receipt per receive");
    q.delete(&again.receipt).await.unwrap();
}

async fn change_visibility(f: Fixture) {
    let q = &*f.queue;
    q.send(JOB, Duration::ZERO).await.unwrap();
    let first = receive_one(q, PATIENCE).await.unwrap();
    q.change_visibility(&first.receipt, Duration::ZERO)
        .await
        .unwrap();
    let released = Instant::now();
    let second = receive_one(q, PATIENCE).await.expect("visible at once");
    assert!(
        released.elapsed() < VISIBILITY_TIMEOUT,
        "zero means at once"
    );
    assert_eq!(
        (second.id.as_str(), second.receive_count),
        (first.id.as_str(), 2)
    );

    q.change_visibility(&second.receipt, Duration::from_secs(3))
        .await
        .unwrap();
    tokio::time::sleep(VISIBILITY_TIMEOUT + Duration::from_millis(500)).await;
    assert_eq!(
        receive_one(q, Duration::ZERO).await,
        None,
        "the longer timeout holds"
    );
    let third = receive_one(q, PATIENCE).await.expect("back after it");
    assert_eq!(
        (third.id.as_str(), third.receive_count),
        (first.id.as_str(), 3)
    );
    q.delete(&third.receipt).await.unwrap();
}

async fn unknown_receipts(f: Fixture) {
    let q = &*f.queue;
    let invalid =
        |r: Result<(), QueueError>| assert!(matches!(r, Err(QueueError::Invalid(_))), "{r:?}");
    invalid(q.delete("not-a-receipt").await);
    invalid(q.change_visibility("not-a-receipt", Duration::ZERO).await);
}

async fn stale_receipt(f: Fixture) {
    let q = &*f.queue;
    q.send(JOB, Duration::ZERO).await.unwrap();
    let first = receive_one(q, PATIENCE).await.unwrap();
    q.change_visibility(&first.receipt, Duration::ZERO)
        .await
        .unwrap();
    let second = receive_one(q, PATIENCE).await.unwrap();
    match q.delete(&first.receipt).await {
        // The embedded queue refuses a receipt of an earlier receive, and SQS
        // documents that it does not delete with one. moto deletes with any
        // receipt the message ever had (`Message.had_receipt_handle`) and then
        // takes the others as deletes of a deleted message: fine for callers,
        // who must take either outcome.
        Ok(()) | Err(QueueError::Invalid(_)) => {}
        Err(e) => panic!("a stale receipt: {e}"),
    }
    q.delete(&second.receipt).await.unwrap();
    let again = receive_one(q, VISIBILITY_TIMEOUT * 2).await;
    assert_eq!(again, None, "deleted with the current receipt");
}

async fn long_poll(f: Fixture) {
    let started = Instant::now();
    let wait = Duration::from_secs(1);
    assert_eq!(receive_one(&*f.queue, wait).await, None);
    let waited = started.elapsed();
    assert!(waited >= wait * 8 / 10 && waited < PATIENCE, "{waited:?}");

    let q = f.queue.clone();
    let waiting = tokio::spawn(async move {
        let m = receive_one(&*q, Duration::from_secs(10)).await;
        (m, Instant::now())
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let sent = Instant::now();
    f.queue.send(JOB, Duration::ZERO).await.unwrap();
    let (m, arrived) = waiting.await.unwrap();
    assert_eq!(m.expect("the waiting receive gets it").body, JOB);
    let latency = arrived.saturating_duration_since(sent);
    assert!(
        latency < Duration::from_secs(3),
        "returns on arrival: {latency:?}"
    );
}

async fn batches(f: Fixture) {
    let q = &*f.queue;
    let sent: BTreeSet<String> = (0..12)
        .map(|i| format!(r#"{{"job_id":"job_{i}"}}"#))
        .collect();
    for body in &sent {
        q.send(body, Duration::ZERO).await.unwrap();
    }
    let started = Instant::now();
    let mut received = BTreeSet::new();
    while received.len() < sent.len() && started.elapsed() < PATIENCE * 2 {
        let batch = q.receive(MAX_BATCH, Duration::from_secs(1)).await.unwrap();
        assert!(batch.len() <= MAX_BATCH, "{} messages", batch.len());
        for m in batch {
            q.delete(&m.receipt).await.unwrap();
            received.insert(m.body);
        }
    }
    assert_eq!(received, sent);
}

async fn invalid_requests(f: Fixture) {
    let q = &*f.queue;
    let invalid =
        |r: Result<(), QueueError>| assert!(matches!(r, Err(QueueError::Invalid(_))), "{r:?}");
    invalid(q.send(JOB, MAX_DELAY + Duration::from_secs(1)).await);
    q.send(JOB, MAX_DELAY).await.unwrap();
    for (max, wait) in [
        (0, Duration::ZERO),
        (MAX_BATCH + 1, Duration::ZERO),
        (1, MAX_WAIT + Duration::from_secs(1)),
    ] {
        invalid(q.receive(max, wait).await.map(|_| ()));
    }
}

async fn dead_letters(f: Fixture) {
    let q = &*f.queue;
    q.send(DELIVERY, Duration::ZERO).await.unwrap();
    let mut id = None;
    for count in 1..=MAX_RECEIVES {
        let m = receive_one(q, PATIENCE).await.expect("received again");
        assert_eq!(m.receive_count, count);
        q.change_visibility(&m.receipt, Duration::ZERO)
            .await
            .unwrap();
        id = Some(m.id);
    }
    assert_eq!(
        receive_one(q, Duration::from_secs(1)).await,
        None,
        "moved on"
    );
    let dead = receive_one(&*f.dead_letters, PATIENCE)
        .await
        .expect("in the dead-letter queue");
    assert_eq!((Some(dead.id), dead.body.as_str()), (id, DELIVERY));
    f.dead_letters.delete(&dead.receipt).await.unwrap();
}
