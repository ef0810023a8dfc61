//! Numbers and dates in a claim, normalised so "1,000" and "1000", "45%" and "45 percent" compare
//! equal, and the ones a quote does not state.

use std::collections::HashSet;

use unicode_segmentation::UnicodeSegmentation;

use crate::words::{ascii_digit, is_digit, without_citations, MONTHS, MULTIPLIERS, NUMBER_WORDS};

// ---------------------------------------------------------------------------------------------
// Numbers
// ---------------------------------------------------------------------------------------------

/// Strips leading zeros of an integer part ("007" → "7", "" → "0").
pub fn int_part(digits: &str) -> &str {
    let t = digits.trim_start_matches('0');
    if t.is_empty() {
        "0"
    } else {
        t
    }
}

/// The canonical form of a number without thousands separators: "3.50" → "3.5", "2.0" → "2",
/// "05" → "5"; a dotted version or date keeps its parts ("01.05.2023" → "1.5.2023").
pub fn canonical(number: &str) -> String {
    let parts: Vec<&str> = number.split('.').collect();
    match parts.as_slice() {
        [int] => int_part(int).to_string(),
        [int, frac] => {
            let frac = frac.trim_end_matches('0');
            if frac.is_empty() {
                int_part(int).to_string()
            } else {
                format!("{}.{frac}", int_part(int))
            }
        }
        _ => parts
            .iter()
            .map(|p| int_part(p))
            .collect::<Vec<_>>()
            .join("."),
    }
}

/// `number` (canonical, at most one dot) times ten to the `zeros`, as a canonical string.
pub fn scale(number: &str, zeros: usize) -> Option<String> {
    let (int, frac) = number.split_once('.').unwrap_or((number, ""));
    if frac.contains('.') {
        return None;
    }
    let mut digits = int.to_string();
    if frac.len() <= zeros {
        digits.push_str(frac);
        digits.push_str(&"0".repeat(zeros - frac.len()));
        Some(int_part(&digits).to_string())
    } else {
        digits.push_str(&frac[..zeros]);
        Some(canonical(&format!("{digits}.{}", &frac[zeros..])))
    }
}

/// The numbers in a token that starts with a digit, canonical, each with the power of ten of a
/// unit suffix ("5k"): "1,000" is one number, "1,2" two, "3.5%" one, "1990s" one.
pub fn split_number(token: &str) -> Vec<(String, usize)> {
    let ascii: String = token.chars().map(|c| ascii_digit(c).unwrap_or(c)).collect();
    let end = ascii
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .unwrap_or(ascii.len());
    let (body, suffix) = ascii.split_at(end);
    let body = body.trim_end_matches(['.', ',']);
    if body.is_empty() {
        return Vec::new();
    }
    let zeros = match suffix {
        "k" => 3,
        "bn" => 9,
        _ => 0,
    };
    let groups: Vec<&str> = body.split(',').collect();
    let last = groups.len() - 1;
    let thousands = last > 0
        && (1..=3).contains(&groups[0].len())
        && !groups[0].contains('.')
        && groups[1..last]
            .iter()
            .all(|g| g.len() == 3 && !g.contains('.'))
        && groups[last].split('.').next().is_some_and(|d| d.len() == 3);
    if groups.len() == 1 || thousands {
        vec![(canonical(&body.replace(',', "")), zeros)]
    } else {
        groups
            .into_iter()
            .filter(|g| !g.is_empty())
            .map(|g| (canonical(g), 0))
            .collect()
    }
}

/// One number of a text.
#[derive(Debug, Clone)]
pub struct Number {
    /// As written.
    pub shown: String,
    /// Its value, canonical, multiplied out when a word such as "million" follows.
    pub value: String,
    /// The number unmultiplied, when a multiplier followed.
    pub bare: Option<String>,
    /// Whether a claim that says it must be backed by it ("one" is usually not a number).
    pub required: bool,
}

/// The numbers and dates of `text`: digits (thousands separators, decimals, fullwidth digits,
/// "million"/"万" multipliers), month names next to a number, and the words one to twelve.
/// Citation markers are not numbers.
pub fn numbers(text: &str) -> Vec<Number> {
    let clean = without_citations(text);
    let words: Vec<(usize, &str)> = clean.unicode_word_indices().collect();
    let numeric = |i: usize| {
        words
            .get(i)
            .and_then(|(_, w)| w.chars().next())
            .is_some_and(is_digit)
    };
    let mut out = Vec::new();
    for (i, (_, word)) in words.iter().enumerate() {
        let lower = word.to_lowercase();
        if lower.chars().next().is_some_and(is_digit) {
            let multiplier = words.get(i + 1).and_then(|(_, next)| {
                let next = next.to_lowercase();
                MULTIPLIERS
                    .iter()
                    .find(|(m, _)| *m == next)
                    .map(|(_, z)| *z)
            });
            for (value, suffix_zeros) in split_number(&lower) {
                let zeros = suffix_zeros + multiplier.unwrap_or(0);
                let scaled = if zeros > 0 {
                    scale(&value, zeros)
                } else {
                    None
                };
                out.push(match scaled {
                    Some(s) => Number {
                        shown: word.to_string(),
                        value: s,
                        bare: Some(value),
                        required: true,
                    },
                    None => Number {
                        shown: word.to_string(),
                        value,
                        bare: None,
                        required: true,
                    },
                });
            }
        } else if let Some((_, month)) = MONTHS.iter().find(|(m, _)| *m == lower) {
            if (i > 0 && numeric(i - 1)) || numeric(i + 1) {
                out.push(Number {
                    shown: word.to_string(),
                    value: (*month).to_string(),
                    bare: None,
                    required: true,
                });
            }
        } else if let Some((w, n)) = NUMBER_WORDS.iter().find(|(w, _)| *w == lower) {
            out.push(Number {
                shown: word.to_string(),
                value: (*n).to_string(),
                bare: None,
                required: *w != "one" && *w != "zero",
            });
        }
    }
    out
}

/// Every form under which `text` states a number.
pub fn number_forms(text: &str) -> HashSet<String> {
    let mut set = HashSet::new();
    for n in numbers(text) {
        if let Some(bare) = n.bare {
            set.insert(bare);
        }
        set.insert(n.value);
    }
    set
}

/// The numbers `claim` states that `quote` does not, as written in the claim.
pub fn missing_numbers(claim: &str, quote: &str) -> Vec<String> {
    let have = number_forms(quote);
    let mut missing: Vec<String> = Vec::new();
    for n in numbers(claim) {
        if n.required && !have.contains(&n.value) && !missing.contains(&n.shown) {
            missing.push(n.shown);
        }
    }
    missing
}
