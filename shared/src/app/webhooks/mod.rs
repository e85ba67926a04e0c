//! Placeholder for the webhooks branch, which replaces this file.

use crate::app::outbox::Event;
use crate::ports::Ports;

pub async fn fan_out(_ports: &Ports, _event: &Event) -> Result<(), std::convert::Infallible> {
    Ok(())
}
