//! A document's claims: its sentences as a reader sees them (Markdown marks gone, headings,
//! code and tables left out), each with the sources its `[N]` markers cite.

use unicode_segmentation::UnicodeSegmentation;

use crate::text::plain;
use crate::words::without_citations;

/// A sentence of a document and what it cites.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// The sentence as shown, with its markers.
    pub text: String,
    /// The sources its markers cite, in order, without repeats (empty: an uncited sentence).
    pub sources: Vec<usize>,
}

/// A sentence needs this many words (beyond its markers) to claim anything.
pub const CLAIM_MIN_WORDS: usize = 3;

/// The claims of a Markdown document: every sentence of its paragraphs and list items, with the
/// sources of its markers ("… in 1990 [1][3]." and "… in 1990.[2]" both cite). Headings, fenced
/// code, tables and sentences of fewer than [`CLAIM_MIN_WORDS`] words are not claims.
pub fn claims(markdown: &str) -> Vec<Claim> {
    let mut out: Vec<Claim> = Vec::new();
    let mut fenced = false;
    let mut paragraph = String::new();
    let flush = |paragraph: &mut String, out: &mut Vec<Claim>| {
        if !paragraph.trim().is_empty() {
            split(&markers_before_stops(&plain(paragraph)), out);
        }
        paragraph.clear();
    };
    for line in markdown.lines() {
        let body = line.trim();
        if body.starts_with("```") || body.starts_with("~~~") {
            flush(&mut paragraph, &mut out);
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let item = body.starts_with("- ")
            || body.starts_with("* ")
            || body.starts_with("+ ")
            || body.split_once(". ").is_some_and(|(n, _)| {
                !n.is_empty() && n.len() <= 3 && n.bytes().all(|b| b.is_ascii_digit())
            });
        if body.is_empty() || body.starts_with('#') || body.starts_with('|') || item {
            flush(&mut paragraph, &mut out);
        }
        if body.starts_with('#') || body.starts_with('|') {
            continue;
        }
        paragraph.push_str(line);
        paragraph.push('\n');
    }
    flush(&mut paragraph, &mut out);
    out
}

/// Splits a paragraph's plain text into claims; markers opening a sentence belong to the one
/// before ("… in 1990.[2] Next…").
fn split(text: &str, out: &mut Vec<Claim>) {
    let mut previous: Option<usize> = None;
    for sentence in text.split_sentence_bounds() {
        let mut s = sentence.trim();
        let (lead, rest) = leading_markers(s);
        if !lead.is_empty() {
            if let Some(p) = previous {
                let claim: &mut Claim = &mut out[p];
                claim.text.push_str(s[..s.len() - rest.len()].trim_end());
                for n in lead {
                    if !claim.sources.contains(&n) {
                        claim.sources.push(n);
                    }
                }
                s = rest.trim_start();
            }
        }
        let words = without_citations(s).unicode_words().count();
        if words < CLAIM_MIN_WORDS {
            continue;
        }
        out.push(Claim {
            text: s.to_string(),
            sources: markers(s),
        });
        previous = Some(out.len() - 1);
    }
}

/// The text with markers that follow a sentence's full stop moved before it ("in 1990.[2]" →
/// "in 1990[2]."), so that the sentence, not the next one, cites them.
fn markers_before_stops(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(['.', '!', '?']) {
        let stop = &rest[i..i + 1];
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let (lead, tail) = leading_markers(after);
        if lead.is_empty() || after.starts_with(' ') {
            out.push_str(stop);
            rest = after;
        } else {
            out.push_str(after[..after.len() - tail.len()].trim_end());
            out.push_str(stop);
            if tail.len() < after.len() && !tail.is_empty() {
                out.push(' ');
            }
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

/// The markers at the start of `text` and the text after them.
fn leading_markers(text: &str) -> (Vec<usize>, &str) {
    let mut rest = text;
    let mut found = Vec::new();
    while let Some(r) = rest.strip_prefix('[') {
        let Some(close) = r.find(']') else { break };
        let inside = &r[..close];
        let numbers = parse_marker(inside);
        if numbers.is_empty() {
            break;
        }
        found.extend(numbers);
        rest = r[close + 1..].trim_start();
    }
    (found, rest)
}

/// The sources of one marker's inside: "1", "1, 2", "4-6", "^3".
fn parse_marker(inside: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for part in inside.split(',') {
        let part = part.trim().trim_start_matches('^');
        if let Some((a, b)) = part.split_once(['-', '–']) {
            match (a.trim().parse::<usize>(), b.trim().parse::<usize>()) {
                (Ok(a), Ok(b)) if a <= b && b - a < 50 => out.extend(a..=b),
                _ => return Vec::new(),
            }
        } else {
            match part.parse::<usize>() {
                Ok(n) => out.push(n),
                Err(_) => return Vec::new(),
            }
        }
    }
    out
}

/// The sources `[N]` markers in `text` cite, in order, without repeats.
pub fn markers(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        rest = &rest[open + 1..];
        let Some(close) = rest.find(']') else { break };
        for n in parse_marker(&rest[..close]) {
            if !out.contains(&n) {
                out.push(n);
            }
        }
        rest = &rest[close..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_carry_their_markers_and_headings_and_code_are_not_claims() {
        let doc = "# Milira\n\nMilira released \"Go Outside in the Rain\" in 1990 [1]. It reached \
                   number thirty-six on the chart.[2] Yes.\n\n```\nlet x = 1; // not a claim [3]\n```\n\n\
                   - The album was her debut [1, 3].\n| a | table row [4] |\n";
        let got = claims(doc);
        let pairs: Vec<(&str, Vec<usize>)> = got
            .iter()
            .map(|c| (c.text.as_str(), c.sources.clone()))
            .collect();
        assert_eq!(
            pairs,
            vec![
                (
                    "Milira released \"Go Outside in the Rain\" in 1990 [1].",
                    vec![1]
                ),
                ("It reached number thirty-six on the chart[2].", vec![2]),
                ("The album was her debut [1, 3].", vec![1, 3]),
            ]
        );
    }

    #[test]
    fn markers_read_lists_and_ranges_and_ignore_other_brackets() {
        assert_eq!(markers("a [2][1-3] b [x] c [^4]"), vec![2, 1, 3, 4]);
        assert!(markers("an array a[i] and [link]").is_empty());
        assert!(claims("").is_empty());
    }
}
