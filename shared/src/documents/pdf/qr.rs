//! The VERI*FACTU QR symbol (ISO/IEC 18004, error correction M) as black
//! squares, one per horizontal run of dark modules.

use qrcode::{Color, EcLevel, QrCode};

/// The squares `[x, y, w, h]` of `url`'s symbol drawn `size` mm wide with its
/// top-left corner at `x`, `y`; the quiet zone is left to the caller.
pub fn squares(url: &str, x: f32, y: f32, size: f32) -> Vec<[f32; 4]> {
    let code = QrCode::with_error_correction_level(url, EcLevel::M)
        .expect("a cotejo URL fits in a QR symbol");
    let width = code.width();
    let module = size / width as f32;
    let colors = code.to_colors();
    colors
        .chunks(width)
        .enumerate()
        .flat_map(|(row, colors)| {
            runs(colors).into_iter().map(move |(start, len)| {
                [
                    x + start as f32 * module,
                    y + row as f32 * module,
                    len as f32 * module,
                    module,
                ]
            })
        })
        .collect()
}

/// `(first column, length)` of each run of dark modules in a row.
fn runs(row: &[Color]) -> Vec<(usize, usize)> {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for (column, color) in row.iter().enumerate() {
        if *color != Color::Dark {
            continue;
        }
        match runs.last_mut() {
            Some((start, len)) if *start + *len == column => *len += 1,
            _ => runs.push((column, 1)),
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dark_runs_are_merged() {
        use Color::{Dark, Light};
        assert_eq!(
            runs(&[Dark, Dark, Light, Dark, Light, Light, Dark, Dark, Dark]),
            [(0, 2), (3, 1), (6, 3)]
        );
    }

    #[test]
    fn the_symbol_fills_the_requested_square() {
        let squares = squares("https://example.test/?a=1", 10.0, 20.0, 30.0);
        let right = squares.iter().map(|s| s[0] + s[2]).fold(0.0, f32::max);
        let bottom = squares.iter().map(|s| s[1] + s[3]).fold(0.0, f32::max);
        assert!((right - 40.0).abs() < 0.01 && (bottom - 50.0).abs() < 0.01);
        assert!(squares.iter().all(|s| s[0] >= 10.0 && s[1] >= 20.0));
    }
}
