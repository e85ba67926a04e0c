//! When a failed delivery is tried again. Eight attempts: at once, then after
//! 5 s, 5 min, 30 min, 1 h, 3 h, 5 h and 10 h: 19 h 35 min 5 s from the first
//! to the last ("about 20 hours", API spec §8). Each wait varies by ±20 %
//! (as Svix does) so that endpoints coming back are not hit by every retry at
//! once.

use std::time::Duration;

const MINUTE: u64 = 60;
const HOUR: u64 = 60 * MINUTE;

/// The waits after the 1st … 7th failed attempt.
pub const RETRY_DELAYS: [Duration; 7] = [
    Duration::from_secs(5),
    Duration::from_secs(5 * MINUTE),
    Duration::from_secs(30 * MINUTE),
    Duration::from_secs(HOUR),
    Duration::from_secs(3 * HOUR),
    Duration::from_secs(5 * HOUR),
    Duration::from_secs(10 * HOUR),
];

/// Attempts of one delivery, the first included.
pub const ATTEMPTS: u32 = RETRY_DELAYS.len() as u32 + 1;

/// How much a wait varies either way.
pub const JITTER: f64 = 0.2;

/// An endpoint whose every attempt failed for this long is disabled.
pub const DISABLE_AFTER: Duration = Duration::from_secs(72 * HOUR);

/// The wait after failed attempt number `attempt` (1 = the first), varied by
/// `fraction` (uniform in [0, 1): 0 → −20 %, 0.5 → as scheduled, → 1 → +20 %);
/// None when it was the last attempt.
pub fn delay_after(attempt: u32, fraction: f64) -> Option<Duration> {
    let scheduled = RETRY_DELAYS.get(usize::try_from(attempt).ok()?.checked_sub(1)?)?;
    let factor = 1.0 - JITTER + 2.0 * JITTER * fraction.clamp(0.0, 1.0);
    Some(scheduled.mul_f64(factor))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eight_attempts_over_about_twenty_hours() {
        assert_eq!(ATTEMPTS, 8);
        let total: Duration = RETRY_DELAYS.iter().sum();
        assert_eq!(total, Duration::from_secs(19 * HOUR + 35 * MINUTE + 5));
        assert!(RETRY_DELAYS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn waits_vary_by_twenty_percent_and_end_after_the_last_attempt() {
        assert_eq!(delay_after(1, 0.5), Some(Duration::from_secs(5)));
        assert_eq!(delay_after(1, 0.0), Some(Duration::from_secs(4)));
        assert_eq!(delay_after(2, 1.0), Some(Duration::from_secs(360)));
        assert_eq!(delay_after(7, 0.5), Some(Duration::from_secs(10 * HOUR)));
        assert_eq!(delay_after(2, 7.0), delay_after(2, 1.0));
        assert_eq!(delay_after(8, 0.5), None);
        assert_eq!(delay_after(0, 0.5), None);
    }
}
