//! The `Aeat` adapter that answers in-process with the simulator's rules:
//! where test records go, and what tests submit to.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use chrono::FixedOffset;

use crate::ports::Clock;
use crate::ports::aeat::{Aeat, AeatError, ClientIdentity};
use crate::verifactu::simulator::Simulator;

/// The simulator's rules in-process. `fresh_each_message`: every message
/// meets a simulator that has seen nothing (so its chain starts where the
/// message's does), as test records need on hosts with several instances.
pub struct SimulatedAeat {
    simulator: Option<Arc<Mutex<Simulator>>>,
    clock: Arc<dyn Clock>,
}

impl SimulatedAeat {
    /// One simulator for every message (its state is `simulator`'s).
    pub fn new(simulator: Arc<Mutex<Simulator>>, clock: Arc<dyn Clock>) -> Self {
        SimulatedAeat {
            simulator: Some(simulator),
            clock,
        }
    }

    pub fn fresh_each_message(clock: Arc<dyn Clock>) -> Self {
        SimulatedAeat {
            simulator: None,
            clock,
        }
    }
}

#[async_trait]
impl Aeat for SimulatedAeat {
    async fn send(
        &self,
        message: String,
        _identity: Option<&ClientIdentity>,
    ) -> Result<String, AeatError> {
        let madrid = FixedOffset::east_opt(3600).expect("a valid offset");
        let now = self.clock.now().with_timezone(&madrid);
        let answer = match &self.simulator {
            Some(shared) => shared
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .respond(&message, now),
            None => Simulator::default().respond(&message, now),
        };
        Ok(answer.unwrap_or_else(|fault| fault))
    }
}
