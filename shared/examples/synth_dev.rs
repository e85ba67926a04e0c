#[path = "../tests/corpus/mod.rs"]
mod corpus;
use chrono::NaiveDate;
use corpus::Kind;
use shared::extraction::checks::check;
use shared::extraction::pdf::read_pdf;
use shared::extraction::text::parse;
use shared::extraction::{Source, TextDocument};

#[tokio::main]
async fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse().unwrap())
        .unwrap_or(40);
    let today = NaiveDate::from_ymd_opt(2026, 11, 27).unwrap();
    let (mut right, mut total) = (0, 0);
    for kind in [Kind::TextPdf, Kind::Text] {
        for doc in corpus::documents(2026, kind, n) {
            let text = if kind == Kind::Text {
                TextDocument::from_plain_text(&String::from_utf8_lossy(&doc.data))
            } else {
                read_pdf(doc.data.clone()).await.unwrap().text
            };
            let inv =
                serde_json::to_value(check(parse(&text, None), Source::Text, &doc.name, today))
                    .unwrap();
            for v in corpus::score::score(&doc.invoice, &inv) {
                total += 1;
                if v.exact {
                    right += 1
                } else {
                    println!(
                        "{} {:?} {}: {:?} != {:?}",
                        doc.name, doc.layout, v.field, v.expected, v.got
                    )
                }
            }
        }
    }
    println!(
        "synthetic {:.2} % ({right}/{total})",
        100.0 * right as f64 / total as f64
    );
}
