//! The pure layers stay pure: the domain (`invoice`, `tax`), the document
//! writers and the VERI*FACTU records depend on no use case, port or HTTP
//! code; `app` composes them.

use std::path::Path;

fn sources(dir: &Path, found: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

#[test]
fn documents_verifactu_and_the_domain_import_no_use_case_port_or_http_code() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    for layer in ["invoice", "expense", "tax", "documents", "verifactu"] {
        sources(&root.join(layer), &mut files);
    }
    assert!(files.len() > 20, "{files:?}");
    let mut offenders = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            if [
                "crate::app",
                "crate::http",
                "crate::ports",
                "crate::embedded",
            ]
            .iter()
            .any(|layer| code.contains(layer))
            {
                offenders.push(format!("{}:{}: {code}", file.display(), n + 1));
            }
        }
    }
    assert!(offenders.is_empty(), "{offenders:#?}");
}
