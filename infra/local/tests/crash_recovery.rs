//! `svc serve` killed (SIGKILL) in the middle of concurrent issuing, then
//! restarted on the same data: every request retried with its own
//! Idempotency-Key gets its invoice at once (no `idempotency_key_in_use` for
//! the keys the crash cut), each key has exactly one invoice, the numbers
//! have no gap and no duplicate, the chain verifies and the ledger counts
//! each invoice once.

use crate::support;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use support::{Svc, printed_value};

const CLIENTS: usize = 16;

fn body() -> String {
    json!({"lines": [{"description": "Revisión", "quantity": 1, "unit_price": 100, "vat_rate": 21}]})
        .to_string()
}

/// One issue request: its status and body, or None when the connection
/// broke (the server died under it).
async fn issue(
    client: &reqwest::Client,
    base: &str,
    key: &str,
    idem: &str,
) -> Option<(u16, Value)> {
    let response = client
        .post(format!("{base}/api/v1/invoices"))
        .bearer_auth(key)
        .header("idempotency-key", idem)
        .header("content-type", "application/json")
        .body(body())
        .send()
        .await
        .ok()?;
    let status = response.status().as_u16();
    Some((status, response.json().await.ok()?))
}

fn sequence(number: &str) -> u64 {
    number.rsplit('-').next().unwrap().parse().unwrap()
}

#[test]
fn a_crash_mid_load_loses_nothing_duplicates_nothing_and_keys_are_free_at_restart() {
    let dir = tempfile::tempdir().unwrap();
    let svc = Svc {
        storage: vec!["--data".into(), dir.path().display().to_string()],
    };
    let env = [("SVC_RATE_LIMIT_PER_MINUTE", "1000000")];
    let (server, printed, base) = svc.serve_with(&env);
    let key = printed_value(&printed, "live key: ");
    let runtime = tokio::runtime::Runtime::new().unwrap();

    // Load, then SIGKILL once some invoices were answered.
    let answered: Arc<Mutex<BTreeMap<String, String>>> = Arc::default();
    let attempted: Arc<Mutex<Vec<String>>> = Arc::default();
    runtime.block_on(async {
        let client = reqwest::Client::new();
        let mut tasks = Vec::new();
        for c in 0..CLIENTS {
            let (client, base, key) = (client.clone(), base.clone(), key.clone());
            let (answered, attempted) = (answered.clone(), attempted.clone());
            tasks.push(tokio::spawn(async move {
                for i in 0.. {
                    let idem = format!("crash-{c}-{i}");
                    attempted.lock().unwrap().push(idem.clone());
                    match issue(&client, &base, &key, &idem).await {
                        Some((201, invoice)) => {
                            let number = invoice["number"].as_str().unwrap().to_string();
                            answered.lock().unwrap().insert(idem, number);
                        }
                        Some((status, error)) => panic!("{status} {error}"),
                        None => return,
                    }
                }
            }));
        }
        while answered.lock().unwrap().len() < 150 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        drop(server);
        for task in tasks {
            task.await.unwrap();
        }
    });

    let (_server, _, base) = svc.serve_with(&env);
    let attempted = attempted.lock().unwrap().clone();
    let answered = answered.lock().unwrap().clone();
    assert!(attempted.len() > answered.len(), "the crash cut requests");
    let (numbers, chain, quarter, listed) = runtime.block_on(async {
        let client = reqwest::Client::new();
        let mut numbers = BTreeMap::new();
        for idem in &attempted {
            let (status, invoice) = issue(&client, &base, &key, idem).await.unwrap();
            assert_eq!(status, 201, "{idem}: {invoice}");
            numbers.insert(
                idem.clone(),
                invoice["number"].as_str().unwrap().to_string(),
            );
        }
        let get = |path: String| {
            let client = client.clone();
            let key = key.clone();
            async move {
                client
                    .get(path)
                    .bearer_auth(key)
                    .send()
                    .await
                    .unwrap()
                    .json::<Value>()
                    .await
                    .unwrap()
            }
        };
        let chain = get(format!("{base}/api/v1/verifactu/chain/verify")).await;
        let today = chrono::Utc::now().date_naive();
        let quarter = get(format!(
            "{base}/api/v1/tax/quarter?year={}&quarter={}",
            chrono::Datelike::year(&today),
            (chrono::Datelike::month(&today) - 1) / 3 + 1
        ))
        .await;
        let mut listed = 0;
        let mut after = String::new();
        loop {
            let page = get(format!("{base}/api/v1/invoices?limit=100{after}")).await;
            let data = page["data"].as_array().unwrap();
            listed += data.len();
            if page["has_more"] != true {
                break;
            }
            after = format!("&starting_after={}", data.last().unwrap()["id"]);
        }
        (numbers, chain, quarter, listed)
    });

    for (idem, number) in &answered {
        assert_eq!(&numbers[idem], number, "{idem} replays its first answer");
    }
    let sequences: BTreeSet<u64> = numbers.values().map(|n| sequence(n)).collect();
    assert_eq!(sequences.len(), attempted.len(), "one invoice per key");
    assert_eq!(
        sequences.iter().copied().collect::<Vec<_>>(),
        (1..=attempted.len() as u64).collect::<Vec<_>>(),
        "no gap"
    );
    assert_eq!(listed, attempted.len(), "no invoice without its key");
    assert_eq!(chain["status"], "ok", "{chain}");
    assert_eq!(chain["records"], attempted.len());
    assert_eq!(quarter["invoice_count"], attempted.len(), "{quarter}");
}
