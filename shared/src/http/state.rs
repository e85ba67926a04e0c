//! What every router shares: the ports and the configuration.

use std::sync::Arc;

use crate::config::Config;
use crate::ports::Ports;

#[derive(Clone)]
pub struct AppState {
    pub ports: Ports,
    pub config: Arc<Config>,
}

impl AppState {
    pub fn new(ports: Ports, config: Config) -> Self {
        AppState {
            ports,
            config: Arc::new(config),
        }
    }
}
