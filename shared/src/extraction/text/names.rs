//! Company names found by their legal form: a run of words ending in
//! `S.L.`, `S.A.U.`, `GmbH`, `SARL`, `Ltd` … ("DIGI Spain Telecom, S.L.U.",
//! "Hetzner Online GmbH"). A legal form is the strongest sign that a line
//! names a company rather than a street, a heading or a sentence, wherever
//! the line is (a header, a footer's registry line, a sentence such as "DIGI
//! mobil es una marca registrada de DIGI Spain Telecom, S.L.U.").

use super::labels::key;

/// Legal forms as matching keys (letters and digits, lower case), longest first.
const FORMS: &[&[&str]] = &[
    &["sociedad", "limitada", "unipersonal"],
    &["sociedad", "anonima", "unipersonal"],
    &["sociedad", "limitada"],
    &["sociedad", "anonima"],
    &["s", "l", "u"],
    &["s", "a", "u"],
    &["s", "l", "l"],
    &["s", "coop"],
    &["s", "l"],
    &["s", "a"],
    &["c", "b"],
    &["s", "c"],
    &["slu"],
    &["sau"],
    &["sll"],
    &["slne"],
    &["sl"],
    &["sa"],
    &["scoop"],
    &["gmbh"],
    &["ag"],
    &["kg"],
    &["ohg"],
    &["ug"],
    &["sarl"],
    &["sas"],
    &["eurl"],
    &["ltd"],
    &["limited"],
    &["llc"],
    &["inc"],
    &["plc"],
    &["bv"],
    &["nv"],
    &["spa"],
    &["srl"],
    &["lda"],
];

/// Short forms that are also ordinary words or abbreviations ("sa", "ag",
/// "spa"): they count only printed in capitals after a capitalised word.
const AMBIGUOUS: &[&str] = &[
    "sa", "sl", "ag", "kg", "ug", "sc", "cb", "inc", "spa", "nv", "bv", "sas",
];

/// Words that may follow a legal form as part of the name ("S.A. Unipersonal").
const AFTER_FORM: &[&str] = &["unipersonal", "co", "cokg"];

/// Connectors allowed inside a name between capitalised words.
const CONNECTORS: &[&str] = &[
    "de", "del", "la", "las", "los", "el", "y", "e", "i", "&", "und", "et", "and", "of", "da", "do",
];

/// Banks named in payment details are not the issuer.
const BANKS: &[&str] = &[
    "bank",
    "banco",
    "banca",
    "banque",
    "caixabank",
    "caja",
    "caixa",
    "kutxa",
    "sparkasse",
    "volksbank",
    "bbva",
    "santander",
    "sabadell",
    "bankinter",
    "unicaja",
    "ibercaja",
    "kutxabank",
];

/// Longest name kept, in words.
const MAX_WORDS: usize = 8;

/// Separators that end a name to the left or right ("Hetzner Online GmbH • Industriestr. 25").
fn separator(word: &str) -> bool {
    matches!(word, "•" | "·" | "|" | "-" | "–" | "—" | "/" | ":" | "*")
}

/// The keys of a word split at dots, so `S.L.U.` gives `s l u` and `MBPA.SL.` gives `mbpa sl`.
fn pieces(word: &str) -> Vec<String> {
    // "S/A", "S/N": abbreviations of other things, never a legal form.
    if word.contains('/') {
        return vec!["/".to_string()];
    }
    word.split(['.', ','])
        .map(key)
        .filter(|k| !k.is_empty())
        .collect()
}

/// The legal form ending at piece `end` (exclusive) of `keys`, as its length in pieces.
fn form_before<S: AsRef<str>>(keys: &[S], end: usize) -> Option<usize> {
    FORMS.iter().find_map(|form| {
        let len = form.len();
        (end >= len
            && end <= keys.len()
            && keys[end - len..end]
                .iter()
                .zip(form.iter())
                .all(|(k, f)| k.as_ref() == *f))
        .then_some(len)
    })
}

fn capitalised(word: &str) -> bool {
    word.chars()
        .find(|c| c.is_alphanumeric())
        .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
}

/// Every company name in a line of words: the legal form and the words
/// before it, back to a separator, a lower-case word that is not a
/// connector, or the start of the line.
pub fn company_names(words: &[&str]) -> Vec<String> {
    // "S.A.,Parque": a comma glued between two words separates them.
    let split: Vec<&str> = words
        .iter()
        .flat_map(|w| {
            let mut parts = Vec::new();
            let mut start = 0;
            for (i, c) in w.char_indices() {
                if c == ',' && w[i + 1..].starts_with(char::is_alphabetic) {
                    parts.push(&w[start..=i]);
                    start = i + 1;
                }
            }
            parts.push(&w[start..]);
            parts
        })
        .collect();
    let words = split.as_slice();
    let keys: Vec<Vec<String>> = words.iter().map(|w| pieces(w)).collect();
    let mut names = Vec::new();
    for (i, word) in words.iter().enumerate() {
        if keys[i].is_empty() {
            continue;
        }
        // A form may be glued to the name (`MBPA.SL.`) or spread over words (`S. L.`):
        // find the word it starts in, and whether that word holds more than the form.
        let mut found = None;
        let mut after = 0;
        for j in (i.saturating_sub(2)..=i).rev() {
            let own = &keys[j];
            let span: Vec<&str> = keys[j..=i].iter().flatten().map(String::as_str).collect();
            if let Some(len) = form_before(&span, span.len())
                && len > after
                && len <= after + own.len()
            {
                found = Some((j, own.len() > len - after));
            }
            after += own.len();
        }
        let Some((start_word, glued)) = found else {
            continue;
        };
        let ambiguous = !glued && AMBIGUOUS.contains(&key(word).as_str());
        if ambiguous
            && (word.chars().any(char::is_lowercase)
                || start_word == 0
                || !capitalised(words[start_word - 1]))
        {
            continue;
        }
        let next_is_form = keys
            .get(i + 1)
            .is_some_and(|k| form_before(k, k.len()).is_some());
        if next_is_form {
            continue;
        }
        let mut first = start_word;
        let segment_start = words[..first]
            .iter()
            .rposition(|w| separator(w) || w.ends_with(':'))
            .map_or(0, |p| p + 1);
        while first > 0 && i - first < MAX_WORDS {
            let prev = words[first - 1];
            let prev_key = key(prev);
            if separator(prev) || prev.ends_with(':') {
                break;
            }
            let connector = CONNECTORS.contains(&prev_key.as_str());
            let lettered = prev.chars().any(char::is_alphabetic);
            let digits = prev.chars().any(|c| c.is_ascii_digit());
            if !lettered
                || digits
                || !(capitalised(prev) || connector)
                || prev.ends_with('.') && prev_key.len() > 3
            {
                break;
            }
            first -= 1;
        }
        // A short segment that starts with a capital is a name whatever its case
        // further on ("Au bon moulin SARL - 1242 chemin de l'olive").
        if first > segment_start
            && !ambiguous
            && start_word - segment_start <= 4
            && capitalised(words[segment_start])
            && words[segment_start..first]
                .iter()
                .all(|w| !w.ends_with('.') || key(w).len() <= 3)
        {
            first = segment_start;
        }
        while first < i && CONNECTORS.contains(&key(words[first]).as_str()) {
            first += 1;
        }
        if first == start_word && !glued {
            continue;
        }
        let mut last = i;
        if words
            .get(i + 1)
            .is_some_and(|w| AFTER_FORM.contains(&key(w).as_str()))
        {
            last += 1;
        }
        // A form spread over words ("S. A. U.") is printed together.
        let mut parts: Vec<String> = words[first..start_word]
            .iter()
            .map(|w| w.to_string())
            .collect();
        parts.push(words[start_word..=i].concat());
        parts.extend(words[i + 1..=last].iter().map(|w| w.to_string()));
        let name = parts
            .join(" ")
            .trim_matches(|c: char| matches!(c, ',' | ';' | '(' | ')' | '-'))
            .to_string();
        let bank = name
            .split_whitespace()
            .any(|w| BANKS.contains(&key(w).as_str()));
        // "S.A" then "S.A.U.": the longer reading of the same name replaces the shorter.
        if names
            .last()
            .is_some_and(|last: &String| name.starts_with(last.as_str()))
        {
            names.pop();
        }
        if !bank {
            names.push(name);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(line: &str) -> Vec<String> {
        company_names(&line.split_whitespace().collect::<Vec<_>>())
    }

    #[test]
    fn names_end_at_their_legal_form() {
        assert_eq!(
            names("DIGI mobil es una marca registrada de DIGI Spain Telecom, S.L.U."),
            ["DIGI Spain Telecom, S.L.U."]
        );
        assert_eq!(
            names("Hetzner Online GmbH • Industriestr. 25 • 91710 Gunzenhausen"),
            ["Hetzner Online GmbH"]
        );
        assert_eq!(
            names("Endesa Energía, S.A. Unipersonal. Ribera del Loira 60"),
            ["Endesa Energía, S.A. Unipersonal."]
        );
        assert_eq!(names("MBPA.SL."), ["MBPA.SL."]);
        assert_eq!(
            names("Euskaltel S.A.,Parque Tecnológico, 809. 48160 DERIO"),
            ["Euskaltel S.A."]
        );
        assert_eq!(
            names("Remite: IBERDROLA CLIENTES, S.A.U. Apartado 61175"),
            ["IBERDROLA CLIENTES, S.A.U."]
        );
        assert_eq!(
            names("Distribuciones Pérez y Hijos S L"),
            ["Distribuciones Pérez y Hijos SL"]
        );
        assert_eq!(
            names("Naturgy Clientes, S. A. U. Domicilio Social"),
            ["Naturgy Clientes, S.A.U."]
        );
        assert_eq!(
            names("Au bon moulin SARL - 1242 chemin de l'olive - 84340 Malaucène"),
            ["Au bon moulin SARL"]
        );
        assert!(names("Calle Mayor 1, 28001 Madrid").is_empty());
        assert!(names("S.L.").is_empty());
        assert_eq!(
            names("NIF Z9461287N Instalaciones Eléctricas Gómez e Hijos S L"),
            ["Instalaciones Eléctricas Gómez e Hijos SL"]
        );
        assert!(names("Recibo a 30 y 60 días SA").is_empty());
        assert!(names("RECIBO A 30 Y 60 DIAS S/A").is_empty());
        assert!(names("Tel +49 9831 505-0 Deutsche Bank AG").is_empty());
        assert!(names("pago con tarjeta Sa").is_empty());
        assert_eq!(names("Nevir SA"), ["Nevir SA"]);
    }
}
