//! A deterministic corpus of NIF-like inputs: valid identifiers of every kind,
//! near-misses (one edit away) and garbage, with the separators, prefixes and
//! case changes people type. Shared by the stdnum differential test and the
//! NIF benchmark.

use shared::tax::nif::Nif;

/// The crate's generator (`shared::rng`), drawing indexes and digits.
pub struct Rng(shared::rng::Rng);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(shared::rng::Rng::new(seed))
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.0.next_u64() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &'a [&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    fn digits(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from(b'0' + self.below(10) as u8))
            .collect()
    }
}

const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const FIRSTS: &str = "0123456789XYZKLMABCDEFGHJNPQRSUVWIOT";

/// A valid NIF of a random kind (the control character found by trying them all).
fn valid(rng: &mut Rng) -> String {
    loop {
        let first = FIRSTS.as_bytes()[rng.below(FIRSTS.len())] as char;
        let body = format!("{first}{}", rng.digits(7));
        for control in "0123456789TRWAGMYFPDXBNJZSQVHLCKEIJ".chars() {
            let candidate = format!("{body}{control}");
            if Nif::parse(&candidate).is_ok() && rng.below(3) != 0 {
                return candidate;
            }
        }
    }
}

/// One edit away from a valid NIF.
fn near(rng: &mut Rng) -> String {
    let mut chars: Vec<char> = valid(rng).chars().collect();
    match rng.below(6) {
        0 => {
            let i = chars.len() - 1;
            chars[i] = UPPER.as_bytes()[rng.below(26)] as char;
        }
        1 => {
            let i = 1 + rng.below(7);
            chars[i] = char::from(b'0' + rng.below(10) as u8);
        }
        2 => {
            chars.remove(rng.below(chars.len()));
        }
        3 => chars.insert(
            rng.below(chars.len() + 1),
            char::from(b'0' + rng.below(10) as u8),
        ),
        4 => chars.swap(1 + rng.below(6), 2 + rng.below(6)),
        _ => chars[0] = UPPER.as_bytes()[rng.below(26)] as char,
    }
    chars.into_iter().collect()
}

fn garbage(rng: &mut Rng) -> String {
    const PIECES: &[&str] = &[
        "0", "1", "7", "9", "A", "B", "x", "z", "Ñ", "é", " ", "-", ".", "ES", "es", "/", "_",
        "\u{2013}", "\u{00A0}", "ß", "12345678", "X123", "ESB", "\t",
    ];
    (0..rng.below(14)).map(|_| rng.pick(PIECES)).collect()
}

/// How people write it: case, separators, prefix, padding.
fn dress(rng: &mut Rng, value: String) -> String {
    let mut s = value;
    if rng.below(4) == 0 {
        s = s.to_lowercase();
    }
    if rng.below(5) == 0 && s.len() > 4 {
        let at = 1 + rng.below(s.len() - 2);
        if s.is_char_boundary(at) {
            let sep = rng.pick(&[" ", "-", ".", "\u{2013}", "\u{00A0}"]);
            s.insert_str(at, sep);
        }
    }
    if rng.below(6) == 0 {
        s = format!("{}{s}", rng.pick(&["ES", "es", "ES ", "Es-"]));
    }
    if rng.below(8) == 0 {
        s = format!(" {s} ");
    }
    s
}

/// `n` inputs: about 40 % valid, 40 % near-valid, 20 % garbage.
pub fn corpus(seed: u64, n: usize) -> Vec<String> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let raw = match rng.below(10) {
                0..=3 => valid(&mut rng),
                4..=7 => near(&mut rng),
                _ => garbage(&mut rng),
            };
            dress(&mut rng, raw)
        })
        .collect()
}
