//! The one contract test suite of the `Table` port. Every engine runs it: the
//! embedded one in this crate's tests, DynamoDB in `infra-aws` against an emulator.
//! Each run writes under fresh partition keys, so a table may be reused.

use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::Duration;

use super::clock::{Clock, ManualClock};
use super::table::{
    Condition, Cursor, Item, Key, Query, SortKey, Table, TableError, UpdateOp, Value, Write,
};
use crate::ids::random_token;

/// Runs every contract check. `clock` must be the clock the table was built with.
pub async fn run(table: Arc<dyn Table>, clock: Arc<ManualClock>) {
    let run = random_token(6);
    let p = |name: &str| format!("contract#{run}#{name}");
    round_trip(&*table, &p("round")).await;
    conditional_put(&*table, &p("cput")).await;
    updates(&*table, &p("update")).await;
    deletes(&*table, &p("delete")).await;
    queries(&*table, &p("query")).await;
    paging(&*table, &p("paging")).await;
    transactions(&*table, &p("tx")).await;
    transaction_limits(&*table, &p("txlimits")).await;
    expiry(&*table, &clock, &p("ttl")).await;
    concurrent_increments(table.clone(), &p("race")).await;
    ordered_transactions(&*table, &p("ordered")).await;
}

fn key(pk: &str, sk: &str) -> Key {
    Key::new(pk, sk)
}

fn failed_at(err: TableError, index: Option<usize>, k: &Key) {
    assert_eq!(
        err,
        TableError::ConditionFailed {
            index,
            key: k.clone()
        }
    );
}

async fn round_trip(t: &dyn Table, pk: &str) {
    let mut map = BTreeMap::new();
    map.insert("inner".to_string(), Value::N(-7));
    let item = Item::new(key(pk, "a"))
        .with("s", "ñandú € 🧾")
        .with("n", i64::MAX)
        .with("b", true)
        .with(
            "l",
            Value::L(vec![Value::S("x".into()), Value::N(1), Value::Null]),
        )
        .with("m", Value::M(map))
        .with("z", Value::Null);
    t.put(item.clone(), None).await.unwrap();
    assert_eq!(t.get(&key(pk, "a")).await.unwrap(), Some(item));
    assert_eq!(t.get(&key(pk, "missing")).await.unwrap(), None);
    let replaced = Item::new(key(pk, "a")).with("only", 1);
    t.put(replaced.clone(), None).await.unwrap();
    assert_eq!(t.get(&key(pk, "a")).await.unwrap(), Some(replaced));
    let reserved = t.put(Item::new(key(pk, "r")).with("pk", "x"), None).await;
    assert!(matches!(reserved, Err(TableError::Invalid(_))));
}

async fn conditional_put(t: &dyn Table, pk: &str) {
    let k = key(pk, "once");
    let item = Item::new(k.clone()).with("v", 1);
    t.put(item.clone(), Some(Condition::Absent)).await.unwrap();
    let err = t
        .put(item.clone().with("v", 2), Some(Condition::Absent))
        .await
        .unwrap_err();
    failed_at(err, None, &k);
    assert_eq!(t.get(&k).await.unwrap().unwrap().n("v"), Some(1));

    t.put(item.clone().with("v", 3), Some(Condition::equals("v", 1)))
        .await
        .unwrap();
    let err = t
        .put(item.clone().with("v", 4), Some(Condition::equals("v", 1)))
        .await
        .unwrap_err();
    failed_at(err, None, &k);
    t.put(item.clone().with("v", 5), Some(Condition::Present))
        .await
        .unwrap();
    let absent = key(pk, "absent");
    let err = t
        .put(Item::new(absent.clone()), Some(Condition::Present))
        .await
        .unwrap_err();
    failed_at(err, None, &absent);
    let both = Condition::And(vec![Condition::equals("v", 5), Condition::equals("w", "x")]);
    let err = t.put(item.clone(), Some(both)).await.unwrap_err();
    failed_at(err, None, &k);
    assert_eq!(t.get(&absent).await.unwrap(), None);
}

async fn updates(t: &dyn Table, pk: &str) {
    let k = key(pk, "counter");
    let created = t
        .update(
            &k,
            vec![UpdateOp::add("n", 1), UpdateOp::set("s", "a")],
            None,
        )
        .await
        .unwrap();
    assert_eq!(created.n("n"), Some(1));
    assert_eq!(created.s("s"), Some("a"));
    let next = t
        .update(
            &k,
            vec![UpdateOp::add("n", 41), UpdateOp::Remove("s".into())],
            Some(Condition::equals("n", 1)),
        )
        .await
        .unwrap();
    assert_eq!(next.n("n"), Some(42));
    assert_eq!(next.s("s"), None);
    assert_eq!(t.get(&k).await.unwrap(), Some(next));

    let err = t
        .update(
            &k,
            vec![UpdateOp::add("n", 1)],
            Some(Condition::equals("n", 1)),
        )
        .await
        .unwrap_err();
    failed_at(err, None, &k);
    let err = t
        .update(&k, vec![UpdateOp::add("n", 1)], Some(Condition::Absent))
        .await
        .unwrap_err();
    failed_at(err, None, &k);
    let missing = key(pk, "missing");
    let err = t
        .update(
            &missing,
            vec![UpdateOp::add("n", 1)],
            Some(Condition::Present),
        )
        .await
        .unwrap_err();
    failed_at(err, None, &missing);
    assert_eq!(t.get(&missing).await.unwrap(), None);
    assert_eq!(t.get(&k).await.unwrap().unwrap().n("n"), Some(42));
}

async fn deletes(t: &dyn Table, pk: &str) {
    let k = key(pk, "d");
    t.put(Item::new(k.clone()).with("v", 1), None)
        .await
        .unwrap();
    let err = t
        .delete(&k, Some(Condition::equals("v", 2)))
        .await
        .unwrap_err();
    failed_at(err, None, &k);
    assert!(t.get(&k).await.unwrap().is_some());
    t.delete(&k, Some(Condition::equals("v", 1))).await.unwrap();
    assert_eq!(t.get(&k).await.unwrap(), None);
    t.delete(&k, None).await.unwrap();
    let err = t.delete(&k, Some(Condition::Present)).await.unwrap_err();
    failed_at(err, None, &k);
}

async fn collect(t: &dyn Table, mut q: Query) -> Vec<String> {
    let mut sks = Vec::new();
    loop {
        let page = t.query(&q).await.unwrap();
        assert!(page.items.len() <= q.limit);
        sks.extend(page.items.into_iter().map(|i| i.key.sk));
        match page.next {
            Some(next) => q.cursor = Some(next),
            None => return sks,
        }
    }
}

async fn queries(t: &dyn Table, pk: &str) {
    for sk in ["a#1", "a#2", "a#3", "b#1", "b#2", "c", "á"] {
        t.put(Item::new(key(pk, sk)), None).await.unwrap();
    }
    t.put(Item::new(key(&format!("{pk}x"), "a#9")), None)
        .await
        .unwrap();
    let all = collect(t, Query::new(pk, SortKey::All)).await;
    assert_eq!(all, ["a#1", "a#2", "a#3", "b#1", "b#2", "c", "á"]);
    let a = collect(t, Query::new(pk, SortKey::Prefix("a#".into()))).await;
    assert_eq!(a, ["a#1", "a#2", "a#3"]);
    let back = collect(t, Query::new(pk, SortKey::Prefix("a#".into())).backward()).await;
    assert_eq!(back, ["a#3", "a#2", "a#1"]);
    let range = collect(
        t,
        Query::new(pk, SortKey::Between("a#2".into(), "b#1".into())),
    )
    .await;
    assert_eq!(range, ["a#2", "a#3", "b#1"]);
    let none = collect(t, Query::new(pk, SortKey::Prefix("z".into()))).await;
    assert!(none.is_empty());

    let first = t
        .query(&Query::new(pk, SortKey::All).limit(2))
        .await
        .unwrap();
    assert_eq!(first.items.len(), 2);
    let cursor = first.next.expect("more pages");
    let second = t
        .query(
            &Query::new(pk, SortKey::All)
                .limit(2)
                .after(Some(Cursor::from_token(cursor.as_str()))),
        )
        .await
        .unwrap();
    assert_eq!(second.items[0].key.sk, "a#3");
    let bad_limit = t.query(&Query::new(pk, SortKey::All).limit(0)).await;
    assert!(matches!(bad_limit, Err(TableError::Invalid(_))));
}

async fn paging(t: &dyn Table, pk: &str) {
    let expected: Vec<String> = (0..1000).map(|i| format!("item#{i:04}")).collect();
    for chunk in expected.chunks(100) {
        let writes = chunk
            .iter()
            .map(|sk| Write::Put {
                item: Item::new(key(pk, sk)).with("payload", "x".repeat(64)),
                condition: Some(Condition::Absent),
            })
            .collect();
        t.transact(writes).await.unwrap();
    }
    let forward = collect(t, Query::new(pk, SortKey::All).limit(100)).await;
    assert_eq!(forward, expected);
    let mut reversed = expected.clone();
    reversed.reverse();
    let backward = collect(
        t,
        Query::new(pk, SortKey::Prefix("item#".into()))
            .limit(77)
            .backward(),
    )
    .await;
    assert_eq!(backward, reversed);
}

async fn transactions(t: &dyn Table, pk: &str) {
    let counter = key(pk, "counter");
    let doc = key(pk, "doc");
    let guard = key(pk, "guard");
    t.put(Item::new(guard.clone()).with("state", "open"), None)
        .await
        .unwrap();
    t.transact(vec![
        Write::Update {
            key: counter.clone(),
            ops: vec![UpdateOp::add("n", 1)],
            condition: Some(Condition::Absent),
        },
        Write::Put {
            item: Item::new(doc.clone()).with("v", 1),
            condition: Some(Condition::Absent),
        },
        Write::Check {
            key: guard.clone(),
            condition: Condition::equals("state", "open"),
        },
    ])
    .await
    .unwrap();
    assert_eq!(t.get(&counter).await.unwrap().unwrap().n("n"), Some(1));

    let extra = key(pk, "extra");
    let err = t
        .transact(vec![
            Write::Update {
                key: counter.clone(),
                ops: vec![UpdateOp::add("n", 1)],
                condition: Some(Condition::equals("n", 1)),
            },
            Write::Put {
                item: Item::new(extra.clone()),
                condition: None,
            },
            Write::Check {
                key: guard.clone(),
                condition: Condition::equals("state", "closed"),
            },
        ])
        .await
        .unwrap_err();
    failed_at(err, Some(2), &guard);
    assert_eq!(t.get(&counter).await.unwrap().unwrap().n("n"), Some(1));
    assert_eq!(t.get(&extra).await.unwrap(), None);

    let err = t
        .transact(vec![
            Write::Delete {
                key: guard.clone(),
                condition: None,
            },
            Write::Put {
                item: Item::new(doc.clone()).with("v", 2),
                condition: Some(Condition::Absent),
            },
        ])
        .await
        .unwrap_err();
    failed_at(err, Some(1), &doc);
    assert!(t.get(&guard).await.unwrap().is_some());
    assert_eq!(t.get(&doc).await.unwrap().unwrap().n("v"), Some(1));

    t.transact(vec![
        Write::Delete {
            key: guard.clone(),
            condition: Some(Condition::Present),
        },
        Write::Update {
            key: doc.clone(),
            ops: vec![UpdateOp::set("v", 2)],
            condition: Some(Condition::equals("v", 1)),
        },
    ])
    .await
    .unwrap();
    assert_eq!(t.get(&guard).await.unwrap(), None);
    assert_eq!(t.get(&doc).await.unwrap().unwrap().n("v"), Some(2));
}

async fn transaction_limits(t: &dyn Table, pk: &str) {
    let puts = |n: usize| -> Vec<Write> {
        (0..n)
            .map(|i| Write::Put {
                item: Item::new(key(pk, &format!("{i:03}"))),
                condition: None,
            })
            .collect()
    };
    t.transact(puts(100)).await.unwrap();
    assert_eq!(collect(t, Query::new(pk, SortKey::All)).await.len(), 100);
    assert!(matches!(
        t.transact(puts(101)).await,
        Err(TableError::Invalid(_))
    ));
    let mut dup = puts(2);
    dup.push(dup[0].clone());
    assert!(matches!(t.transact(dup).await, Err(TableError::Invalid(_))));
}

async fn expiry(t: &dyn Table, clock: &ManualClock, pk: &str) {
    let now = clock.now().timestamp();
    let k = key(pk, "session");
    t.put(
        Item::new(k.clone()).with("ttl", now + 10).with("n", 5),
        None,
    )
    .await
    .unwrap();
    t.put(Item::new(key(pk, "forever")), None).await.unwrap();
    assert!(t.get(&k).await.unwrap().is_some());
    assert_eq!(collect(t, Query::new(pk, SortKey::All)).await.len(), 2);

    clock.advance(Duration::seconds(10));
    assert_eq!(t.get(&k).await.unwrap(), None);
    assert_eq!(collect(t, Query::new(pk, SortKey::All)).await, ["forever"]);
    let err = t.delete(&k, Some(Condition::Present)).await.unwrap_err();
    failed_at(err, None, &k);
    let fresh = t
        .update(&k, vec![UpdateOp::add("n", 1)], Some(Condition::Absent))
        .await
        .unwrap();
    assert_eq!(
        fresh.n("n"),
        Some(1),
        "an expired item must not leak into an update"
    );
    assert_eq!(fresh.ttl(), None);

    let k2 = key(pk, "lease");
    t.put(
        Item::new(k2.clone()).with("ttl", clock.now().timestamp() + 5),
        None,
    )
    .await
    .unwrap();
    let err = t
        .transact(vec![Write::Put {
            item: Item::new(k2.clone()),
            condition: Some(Condition::Absent),
        }])
        .await
        .unwrap_err();
    failed_at(err, Some(0), &k2);
    clock.advance(Duration::seconds(5));
    t.transact(vec![Write::Put {
        item: Item::new(k2.clone()).with("v", 1),
        condition: Some(Condition::Absent),
    }])
    .await
    .unwrap();
    assert_eq!(t.get(&k2).await.unwrap().unwrap().n("v"), Some(1));
}

async fn concurrent_increments(t: Arc<dyn Table>, pk: &str) {
    let k = key(pk, "counter");
    t.put(Item::new(k.clone()).with("n", 0), None)
        .await
        .unwrap();
    let tasks: Vec<_> = (0..50)
        .map(|_| {
            let t = t.clone();
            let k = k.clone();
            tokio::spawn(async move {
                loop {
                    let n = t.get(&k).await.unwrap().unwrap().n("n").unwrap();
                    match t
                        .update(
                            &k,
                            vec![UpdateOp::set("n", n + 1)],
                            Some(Condition::equals("n", n)),
                        )
                        .await
                    {
                        Ok(_) => return,
                        Err(TableError::ConditionFailed { .. } | TableError::Conflict) => continue,
                        Err(e) => panic!("unexpected error: {e}"),
                    }
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    assert_eq!(t.get(&k).await.unwrap().unwrap().n("n"), Some(50));
}

/// Writers that order a transaction each, reading what the previous one
/// ordered (`get_ordered`) before it is durable: every one commits, in order;
/// a transaction built on a stale read fails, when ordered or when committed.
async fn ordered_transactions(t: &dyn Table, pk: &str) {
    let k = key(pk, "counter");
    let mut ordered = Vec::new();
    for n in 0..20 {
        let read = t.get_ordered(&k).await.unwrap();
        assert_eq!(read.and_then(|i| i.n("n")), (n > 0).then_some(n));
        let condition = if n == 0 {
            Condition::Absent
        } else {
            Condition::equals("n", n)
        };
        let writes = vec![
            Write::Put {
                item: Item::new(k.clone()).with("n", n + 1),
                condition: Some(condition),
            },
            Write::Put {
                item: Item::new(key(pk, &format!("entry{n:02}"))),
                condition: Some(Condition::Absent),
            },
        ];
        ordered.push(t.order(writes).await.unwrap());
    }
    let stale = vec![Write::Put {
        item: Item::new(k.clone()).with("n", 99),
        condition: Some(Condition::equals("n", 3)),
    }];
    let stale = match t.order(stale).await {
        Ok(ordered) => ordered.durable().await,
        Err(e) => Err(e),
    };
    failed_at(stale.unwrap_err(), Some(0), &k);
    for o in ordered {
        o.durable().await.unwrap();
    }
    assert_eq!(t.get(&k).await.unwrap().unwrap().n("n"), Some(20));
    let entries = collect(t, Query::new(pk, SortKey::Prefix("entry".into()))).await;
    assert_eq!(entries.len(), 20);
}
