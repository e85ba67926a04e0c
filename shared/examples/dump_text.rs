use shared::extraction::TextDocument;
use shared::extraction::pdf::read_pdf;

#[tokio::main]
async fn main() {
    let path = std::env::args().nth(1).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let doc: TextDocument = if path.ends_with(".tsv") || path.ends_with(".txt") {
        TextDocument::from_plain_text(&String::from_utf8_lossy(&bytes))
    } else {
        match read_pdf(bytes).await {
            Ok(c) => {
                eprintln!(
                    "pages {} scanned {} attachments {}",
                    c.pages,
                    c.scanned,
                    c.attachments.len()
                );
                c.text
            }
            Err(e) => {
                eprintln!("error {e}");
                return;
            }
        }
    };
    let mut words = doc.words.clone();
    words.sort_by(|a, b| {
        (a.page, (a.top * 200.0) as i32, (a.left * 1000.0) as i32).cmp(&(
            b.page,
            (b.top * 200.0) as i32,
            (b.left * 1000.0) as i32,
        ))
    });
    let mut line = String::new();
    let mut last = (0u32, -1i32);
    for w in &words {
        let key = (w.page, (w.top * 200.0) as i32);
        if key != last {
            if !line.is_empty() {
                println!("{line}");
            }
            line = format!("p{} {:.3} |", w.page, w.top);
            last = key;
        }
        let col = (w.left * 160.0) as usize + 12;
        while line.chars().count() < col {
            line.push(' ');
        }
        line.push_str(&w.text);
        line.push(' ');
    }
    println!("{line}");
}
