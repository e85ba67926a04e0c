//! What the tax suites share: a live POST that must succeed, and the boxes
//! of a return read by number.

use serde_json::Value;

use super::{Harness, Reply, post_json, send};

/// POSTs `body` with the live key and a fresh idempotency key; panics
/// unless the answer is a success.
pub async fn post_ok(h: &Harness, path: &str, body: Value) -> Reply {
    let idem = shared::ids::random_token(8);
    let r = send(
        &h.app,
        post_json(path, &h.live, Some(&idem), &body.to_string()),
    )
    .await;
    assert!(r.status.is_success(), "{path} {body}: {}", r.json);
    r
}

/// The value of a box the return must show.
pub fn box_value(boxes: &Value, number: &str) -> f64 {
    boxes
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["box"] == number)
        .unwrap_or_else(|| panic!("no box {number} in {boxes}"))["value"]
        .as_f64()
        .unwrap()
}

/// Each box shows the figure worked by hand, to the tenth of a cent.
pub fn assert_boxes(boxes: &Value, expected: &[(&str, f64)]) {
    for (number, want) in expected {
        let got = box_value(boxes, number);
        assert!(
            (got - want).abs() < 0.001,
            "box {number}: {got}, by hand {want}"
        );
    }
}
