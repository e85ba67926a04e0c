//! What a function builds once at start, from its environment: the ports
//! (DynamoDB table `TABLE_NAME`, or the embedded engine when `SVC_DATA_DIR` is
//! set, e.g. under `cargo lambda watch`) and the configuration.

use std::path::PathBuf;
use std::sync::Arc;

use shared::config::Config;
use shared::embedded::SqliteTable;
use shared::http::AppState;
use shared::ports::clock::SystemClock;
use shared::ports::{Clock, Ports, Table};

use crate::DynamoTable;

pub async fn state_from_env() -> Result<AppState, String> {
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let table: Arc<dyn Table> = match (std::env::var("SVC_DATA_DIR"), std::env::var("TABLE_NAME")) {
        (Ok(dir), _) => {
            let path = PathBuf::from(dir).join("svc.db");
            Arc::new(
                SqliteTable::open(&path, clock.clone())
                    .map_err(|e| format!("{}: {e}", path.display()))?,
            )
        }
        (Err(_), Ok(name)) => Arc::new(DynamoTable::from_env(&name, clock.clone()).await),
        (Err(_), Err(_)) => {
            return Err("set TABLE_NAME (DynamoDB) or SVC_DATA_DIR (embedded engine)".into());
        }
    };
    Ok(AppState::new(Ports::new(table, clock), Config::from_env()?))
}
