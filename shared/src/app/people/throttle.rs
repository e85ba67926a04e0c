//! Counters that slow down guessing and floods: attempts per subject (an
//! email address, a client address, a remembered device, an account) in
//! fixed windows. An attempt is *reserved* by an atomic increment before
//! any work (Argon2, a mail) is done, so parallel requests cannot all pass a
//! check made before the count (100 parallel sign-ins for one address have
//! at most `SIGN_IN_ADDRESS.max` evaluated); a sign-in that succeeds gives
//! its reservation back, so the counters of sign-in count failures.
//!
//! Which subject an attempt counts against decides who an attacker can
//! slow down: see `sign_in` (remembered devices are counted apart, so
//! failures an attacker causes on an address never stop its owner's own
//! browser).

use chrono::Duration;

use crate::domain::one_time_secret;
use crate::ports::Ports;
use crate::ports::table::{Key, TTL, TableError, UpdateOp};

/// How many attempts a subject has per window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    name: &'static str,
    pub max: i64,
    window: Duration,
}

/// Sign-ins for one email address from browsers it has never signed in on.
pub const SIGN_IN_ADDRESS: Limit = Limit {
    name: "sign-in-address",
    max: 5,
    window: Duration::minutes(15),
};
/// Sign-ins from a browser where the address signed in before (its device
/// cookie): the owner's own browser keeps its own allowance.
pub const SIGN_IN_DEVICE: Limit = Limit {
    name: "sign-in-device",
    max: 5,
    window: Duration::minutes(15),
};
/// Sign-ins from one client address, whatever the email (an office shares one).
pub const SIGN_IN_CLIENT: Limit = Limit {
    name: "sign-in-client",
    max: 30,
    window: Duration::minutes(15),
};
/// Password-reset requests from one client address.
pub const FORGOT_CLIENT: Limit = Limit {
    name: "forgot-client",
    max: 10,
    window: Duration::hours(1),
};
/// Sign-ups from one client address.
pub const SIGN_UP_CLIENT: Limit = Limit {
    name: "sign-up-client",
    max: 10,
    window: Duration::hours(1),
};
/// Invitations sent by one account.
pub const INVITE_ACCOUNT: Limit = Limit {
    name: "invite-account",
    max: 10,
    window: Duration::hours(1),
};
/// Mails of the application to one address, whoever asks for them.
pub const MAILS_TO_ADDRESS: Limit = Limit {
    name: "mails-to-address",
    max: 5,
    window: Duration::hours(1),
};

/// An attempt counted against a subject, which a success gives back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reservation(Key);

/// The answer for one subject: the attempt may go on, or wait.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Allowed(Reservation),
    /// Over the limit: the window ends in this many seconds (at least 1).
    Wait(i64),
}

fn key(ports: &Ports, limit: &Limit, subject: &str) -> (Key, i64) {
    let seconds = limit.window.num_seconds();
    let now = ports.clock.now().timestamp();
    let window = now.div_euclid(seconds);
    let key = Key::new(
        format!(
            "THROTTLE#{}#{}",
            limit.name,
            one_time_secret::digest(subject)
        ),
        window.to_string(),
    );
    (key, ((window + 1) * seconds - now).max(1))
}

/// Counts an attempt of `subject` against `limit`, atomically.
pub async fn reserve(ports: &Ports, limit: &Limit, subject: &str) -> Result<Verdict, TableError> {
    let (key, left) = key(ports, limit, subject);
    let expires = ports.clock.now().timestamp() + 2 * limit.window.num_seconds();
    let counted = ports
        .bookkeeping
        .update(
            &key,
            vec![UpdateOp::add("count", 1), UpdateOp::set(TTL, expires)],
            None,
        )
        .await?;
    Ok(if counted.n("count").unwrap_or(1) > limit.max {
        Verdict::Wait(left)
    } else {
        Verdict::Allowed(Reservation(key))
    })
}

/// Gives an attempt back (it succeeded, or was not made after all).
pub async fn refund(ports: &Ports, reservation: Reservation) -> Result<(), TableError> {
    ports
        .bookkeeping
        .update(&reservation.0, vec![UpdateOp::add("count", -1)], None)
        .await
        .map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{test_ports, test_ports_at};

    #[tokio::test]
    async fn a_subject_has_its_attempts_per_window_then_waits_for_the_next() {
        let (ports, clock, _dir) = test_ports_at("2026-11-21T10:00:00Z");
        for _ in 0..SIGN_IN_ADDRESS.max {
            assert!(matches!(
                reserve(&ports, &SIGN_IN_ADDRESS, "ana@example.com")
                    .await
                    .unwrap(),
                Verdict::Allowed(_)
            ));
        }
        assert_eq!(
            reserve(&ports, &SIGN_IN_ADDRESS, "ana@example.com")
                .await
                .unwrap(),
            Verdict::Wait(15 * 60)
        );
        assert!(matches!(
            reserve(&ports, &SIGN_IN_ADDRESS, "eva@example.com")
                .await
                .unwrap(),
            Verdict::Allowed(_)
        ));
        assert!(matches!(
            reserve(&ports, &SIGN_IN_DEVICE, "ana@example.com")
                .await
                .unwrap(),
            Verdict::Allowed(_)
        ));
        clock.advance(Duration::minutes(15));
        assert!(matches!(
            reserve(&ports, &SIGN_IN_ADDRESS, "ana@example.com")
                .await
                .unwrap(),
            Verdict::Allowed(_)
        ));
    }

    #[tokio::test]
    async fn a_refund_gives_the_attempt_back() {
        let (ports, _dir) = test_ports();
        for _ in 0..10 {
            let Verdict::Allowed(reservation) =
                reserve(&ports, &SIGN_IN_ADDRESS, "ana@example.com")
                    .await
                    .unwrap()
            else {
                panic!("refunded attempts never add up");
            };
            refund(&ports, reservation).await.unwrap();
        }
    }

    #[tokio::test]
    async fn parallel_attempts_pass_no_more_than_the_limit() {
        let (ports, _dir) = test_ports();
        let attempts = (0..100).map(|_| {
            let ports = ports.clone();
            tokio::spawn(async move {
                reserve(&ports, &SIGN_IN_ADDRESS, "ana@example.com")
                    .await
                    .unwrap()
            })
        });
        let mut allowed = 0;
        for attempt in attempts {
            if matches!(attempt.await.unwrap(), Verdict::Allowed(_)) {
                allowed += 1;
            }
        }
        assert_eq!(allowed, SIGN_IN_ADDRESS.max);
    }
}
