//! What every router shares: the ports and the configuration.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::OwnedMutexGuard;

use crate::app::rate_limit::RateCounter;
use crate::config::Config;
use crate::http::serving::InFlight;
use crate::ports::Ports;

#[derive(Clone)]
pub struct AppState {
    pub ports: Ports,
    pub config: Arc<Config>,
    pub locks: Arc<KeyedLocks>,
    pub rate: Arc<RateCounter>,
    /// The units of work in flight (`crate::http::serving`).
    pub in_flight: InFlight,
}

/// In-process locks by name. Writers that would race on one counter (e.g. the
/// numbering of an account) queue here instead of losing conditional writes
/// and retrying; across processes the conditions still decide.
#[derive(Default)]
pub struct KeyedLocks(Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>);

impl KeyedLocks {
    pub async fn lock(&self, name: &str) -> OwnedMutexGuard<()> {
        let lock = self
            .0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(name.to_string())
            .or_default()
            .clone();
        lock.lock_owned().await
    }
}

impl AppState {
    pub fn new(ports: Ports, config: Config) -> Self {
        AppState {
            ports,
            config: Arc::new(config),
            locks: Arc::default(),
            rate: Arc::default(),
            in_flight: InFlight::default(),
        }
    }
}
