//! Text normalisation for matching: headers against synonyms (reference §1.1)
//! and names of customers, products and suppliers against each other (§2.1).

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// NFKC, lowercase, then NFD without combining marks: "Línea Nº" → "linea no".
pub fn fold(text: &str) -> String {
    // ASCII is its own NFKC and NFD form: skip the normalisation
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    let lower: String = text.nfkc().collect::<String>().to_lowercase();
    lower.nfd().filter(|c| !is_combining_mark(*c)).collect()
}

const STOP_WORDS: [&str; 12] = [
    "de", "del", "la", "el", "los", "las", "en", "por", "con", "a", "al", "y",
];

/// Type hints a header carries before its punctuation is dropped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hints {
    pub rate: bool,
    pub money: bool,
    pub quantity: bool,
}

/// A header ready for matching: its tokens and hints.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Header {
    pub tokens: Vec<String>,
    pub hints: Hints,
}

impl Header {
    pub fn has(&self, token: &str) -> bool {
        self.tokens.iter().any(|t| t == token)
    }
}

/// Tokens of a text: folded, punctuation as spaces, "nº"/"número" → "num".
fn tokens(text: &str, drop_stop_words: bool) -> Vec<String> {
    let folded = fold(text);
    let spaced: String = folded
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '%' || c == '€' {
                c
            } else {
                ' '
            }
        })
        .collect();
    let raw: Vec<&str> = spaced.split_whitespace().collect();
    let mut out: Vec<String> = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let t = raw[i];
        if t == "n" && raw.get(i + 1) == Some(&"o") {
            out.push("num".into());
            i += 2;
            continue;
        }
        let t = match t {
            "no" | "numero" | "nro" | "num" => "num",
            other => other,
        };
        if !(drop_stop_words && STOP_WORDS.contains(&t)) {
            out.push(t.to_string());
        }
        i += 1;
    }
    out
}

/// Words of a header that take part in matching: real headers are short, and
/// a long one must not make every synonym comparison long.
const MAX_HEADER_WORDS: usize = 12;

pub fn header(text: &str) -> Header {
    let folded = fold(text);
    let mut toks = tokens(text, true);
    toks.truncate(MAX_HEADER_WORDS);
    let has = |w: &str| toks.iter().any(|t| t == w);
    let hints = Hints {
        rate: folded.contains('%'),
        money: folded.contains('€') || has("eur") || has("euros") || has("importe"),
        quantity: ["uds", "ud", "unid", "kg", "h", "horas"]
            .iter()
            .any(|w| has(w)),
    };
    Header {
        tokens: toks.into_iter().filter(|t| t != "%" && t != "€").collect(),
        hints,
    }
}

/// Tokens of a synonym phrase, normalised like headers.
pub fn phrase(text: &str) -> Vec<String> {
    tokens(text, true)
        .into_iter()
        .filter(|t| t != "%" && t != "€")
        .collect()
}

/// Abbreviations (§1.1 step 5) → the words they stand for.
const ABBREVIATIONS: [(&str, &str); 12] = [
    ("cant", "cantidad"),
    ("imp", "importe"),
    ("desc", "descripcion"),
    ("dto", "descuento"),
    ("ref", "referencia"),
    ("cod", "codigo"),
    ("fra", "factura"),
    ("uds", "unidades"),
    ("ud", "unidades"),
    ("unid", "unidades"),
    ("qty", "cantidad"),
    ("pvp", "precio"),
];

fn abbreviates(short: &str, word: &str) -> bool {
    ABBREVIATIONS.iter().any(|(a, w)| *a == short && *w == word)
        || (short.len() >= 3 && short.len() < word.len() && word.starts_with(short))
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

fn similar(a: &str, b: &str) -> bool {
    let longest = a.chars().count().max(b.chars().count());
    a.len() >= 5 && b.len() >= 5 && 1.0 - levenshtein(a, b) as f64 / longest as f64 >= 0.85
}

/// How well a header matches a synonym phrase: exact 1.0, all tokens
/// present 0.85, abbreviations 0.75, typos 0.6, else 0.
pub fn score(header: &Header, synonym: &[String]) -> f64 {
    if synonym.is_empty() || header.tokens.is_empty() {
        return 0.0;
    }
    if header.tokens == synonym {
        return 1.0;
    }
    let all = |f: &dyn Fn(&str, &str) -> bool| {
        synonym
            .iter()
            .all(|s| header.tokens.iter().any(|h| f(h.as_str(), s.as_str())))
    };
    if all(&|h, s| h == s) {
        0.85
    } else if all(&|h, s| h == s || abbreviates(h, s)) {
        0.75
    } else if all(&|h, s| h == s || abbreviates(h, s) || similar(h, s)) {
        0.6
    } else {
        0.0
    }
}

const LEGAL_SUFFIXES: [&[&str]; 10] = [
    &["s", "l", "u"],
    &["s", "l", "l"],
    &["s", "coop"],
    &["s", "l"],
    &["s", "a"],
    &["sl"],
    &["slu"],
    &["sll"],
    &["sa"],
    &["scoop"],
];

/// The key two names are the same entity by: folded, punctuation dropped,
/// legal suffixes (S.L., S.L.U., S.A., S.Coop.) removed.
pub fn name_key(name: &str) -> String {
    let toks = tokens(name, false);
    let mut words: Vec<&str> = toks.iter().map(String::as_str).collect();
    while let Some(suffix) = LEGAL_SUFFIXES
        .iter()
        .find(|s| s.len() < words.len() && words.ends_with(s))
    {
        words.truncate(words.len() - suffix.len());
    }
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_fold_accents_punctuation_and_stop_words() {
        let h = header("Nº Factura");
        assert_eq!(h.tokens, ["num", "factura"]);
        let h = header("Precio de Venta (€)");
        assert_eq!(h.tokens, ["precio", "venta"]);
        assert!(h.hints.money);
        assert!(header("% IVA").hints.rate);
        assert_eq!(header("n.º fra.").tokens, ["num", "fra"]);
        assert_eq!(
            header("Categoría_Producto").tokens,
            ["categoria", "producto"]
        );
        assert!(header("Cant. (uds)").hints.quantity);
    }

    #[test]
    fn header_scores() {
        let s = |h: &str, p: &str| score(&header(h), &phrase(p));
        assert_eq!(s("Fecha Emisión", "fecha emisión"), 1.0);
        assert_eq!(s("Importe total factura", "total factura"), 0.85);
        assert_eq!(s("Cant.", "cantidad"), 0.75);
        assert_eq!(s("Descrip", "descripción"), 0.75);
        assert_eq!(s("Cantiad", "cantidad"), 0.6);
        assert_eq!(s("Color", "cliente"), 0.0);
    }

    #[test]
    fn names_drop_legal_suffixes() {
        assert_eq!(name_key("Talleres Pérez, S.L."), "talleres perez");
        assert_eq!(name_key("TALLERES PEREZ SL"), "talleres perez");
        assert_eq!(name_key("Frutas Ana S.L.U."), "frutas ana");
        assert_eq!(name_key("Construcciones SA"), "construcciones");
        assert_eq!(name_key("Coop Vinos S.Coop."), "coop vinos");
        assert_eq!(name_key("S.L."), "s l");
    }
}
