//! How many requests that may commit writes the process serves at once
//! (the units of work of POSTs), counted by the HTTP layer and carried by
//! each such request's task: an adapter may serve a lone request another
//! way. Reads are not counted: their few microseconds each would pay for
//! the count, and a lone writer holding one runtime thread leaves them the
//! other. The embedded table commits a lone request's durable
//! transaction on the request's own thread, instead of handing it to its
//! writer thread and back (two thread wake-ups of a commit's time); with
//! other requests in flight, that thread would be missed and their
//! transactions would not commit together.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

tokio::task_local! {
    static IN_FLIGHT: Arc<AtomicUsize>;
}

/// The requests in flight in one server.
#[derive(Clone, Default)]
pub struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    /// Runs `request`, counted in flight until it ends or is dropped; its
    /// task carries the count (`alone`).
    pub async fn serve<F: Future>(&self, request: F) -> F::Output {
        self.0.fetch_add(1, Ordering::Relaxed);
        let _served = Served(&self.0);
        IN_FLIGHT.scope(self.0.clone(), request).await
    }
}

struct Served<'a>(&'a AtomicUsize);

impl Drop for Served<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Whether the caller is a request served while no other is in flight;
/// false outside a request (a worker, a test, a command).
pub fn alone() -> bool {
    IN_FLIGHT
        .try_with(|n| n.load(Ordering::Relaxed) == 1)
        .unwrap_or(false)
}

/// Another request, in flight from `start` until `end` (tests).
#[cfg(test)]
pub(crate) struct Another {
    leave: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<()>,
}

#[cfg(test)]
impl Another {
    pub async fn start(in_flight: &InFlight) -> Self {
        let (entered, enter) = tokio::sync::oneshot::channel();
        let (leave, left) = tokio::sync::oneshot::channel::<()>();
        let in_flight = in_flight.clone();
        let task = tokio::spawn(async move {
            let request = async {
                entered.send(()).unwrap();
                let _ = left.await;
            };
            in_flight.serve(request).await
        });
        enter.await.unwrap();
        Another { leave, task }
    }

    pub async fn end(self) {
        let _ = self.leave.send(());
        self.task.await.unwrap();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_request_is_alone_while_no_other_is_in_flight() {
        let in_flight = InFlight::default();
        assert!(!alone(), "outside a request");
        assert!(in_flight.serve(async { alone() }).await);
        let other = Another::start(&in_flight).await;
        assert!(!in_flight.serve(async { alone() }).await, "with another");
        other.end().await;
        assert!(in_flight.serve(async { alone() }).await, "once it ended");
    }

    #[tokio::test]
    async fn a_dropped_request_is_no_longer_in_flight() {
        let in_flight = InFlight::default();
        let dropped = in_flight.serve(std::future::pending::<()>());
        let waited = tokio::time::timeout(std::time::Duration::from_millis(1), dropped).await;
        assert!(waited.is_err());
        assert!(in_flight.serve(async { alone() }).await);
    }
}
