//! The document fixtures issue cleanly (the document tests build on them).

use crate::support;

#[tokio::test]
async fn every_fixture_invoice_is_issued() {
    let all = support::invoice_fixtures::all().await;
    assert_eq!(all.len(), 19);
    let kinds: Vec<&str> = all.iter().map(|(_, i)| i.kind.code()).collect();
    assert!(kinds.contains(&"F2") && kinds.contains(&"R1"));
    assert!(all.iter().any(|(_, i)| i.lines.len() == 60));
}
