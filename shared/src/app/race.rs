//! A write that lost a race (its condition failed: another writer changed
//! the item since it was read) runs again on fresh state, after a pause that
//! grows with each attempt and is jittered, so the racing writers do not
//! meet again.

use std::time::Duration;

/// The pause before attempt `attempt + 1` (attempts count from 0).
pub async fn pause(attempt: u32) {
    let jitter = u64::from(crate::ids::random_token(1).as_bytes()[0] % 16);
    tokio::time::sleep(Duration::from_millis(5 * u64::from(attempt + 1) + jitter)).await;
}
