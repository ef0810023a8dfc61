//! Banned words (seed 000's writer rule): found in the writer's prose after writing, whatever
//! the prompt said, and rewritten away. A word of the default list becomes a plain word in the
//! same form ("leveraging" → "using"); a word the user added with no plain word known is
//! reported, for the writer to rewrite the sentence or the sentence to go.
//!
//! Text in quotation marks is the sources' own words and is left as it is.

/// A banned word found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BannedUse {
    /// The banned word (as listed).
    pub word: String,
    /// The form found in the text ("leveraging").
    pub found: String,
}

/// Plain words for the default list, in base form.
const PLAIN: &[(&str, &str)] = &[
    ("delve", "look"),
    ("realm", "field"),
    ("harness", "use"),
    ("unlock", "open"),
    ("tapestry", "mix"),
    ("paradigm", "model"),
    ("cutting-edge", "recent"),
    ("revolutionize", "change"),
    ("landscape", "field"),
    ("crucial", "important"),
    ("pivotal", "central"),
    ("groundbreaking", "new"),
    ("leverage", "use"),
    ("synergy", "cooperation"),
    ("innovative", "new"),
    ("game-changer", "major change"),
    ("holistic", "overall"),
    ("transformative", "far-reaching"),
    ("seamless", "smooth"),
    ("robust", "reliable"),
    ("breakthrough", "advance"),
    ("empower", "enable"),
];

/// The endings a word may take and still be the banned word ("leverages", "delved").
const ENDINGS: &[&str] = &["", "s", "ed", "ing", "ly"];

/// `base` with an ending, spelt as English spells it: "leverage" + "ing" is "leveraging",
/// "synergy" + "s" is "synergies", "harness" + "s" is "harnesses", "reliable" + "ly" is
/// "reliably".
fn with_ending(base: &str, ending: &str) -> String {
    let consonant_y =
        base.ends_with('y') && !base[..base.len() - 1].ends_with(['a', 'e', 'i', 'o', 'u']);
    match ending {
        "s" if consonant_y => format!("{}ies", &base[..base.len() - 1]),
        "s" if base.ends_with(['s', 'x']) || base.ends_with("ch") || base.ends_with("sh") => {
            format!("{base}es")
        }
        "ed" if consonant_y => format!("{}ied", &base[..base.len() - 1]),
        "ed" | "ing" if base.ends_with('e') => format!("{}{ending}", &base[..base.len() - 1]),
        "ly" if base.ends_with("le") => format!("{}ly", &base[..base.len() - 2]),
        _ => format!("{base}{ending}"),
    }
}

/// Whether `token` (lower-cased) is `word` with one of its endings, and which.
fn ending_of<'e>(token: &str, word: &str) -> Option<&'e str> {
    ENDINGS
        .iter()
        .copied()
        .find(|e| with_ending(word, e) == token)
}

/// Byte ranges of the text outside quotation marks, where the writer's own words are.
fn unquoted_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = 0;
    let mut inside: Option<char> = None;
    for (i, c) in text.char_indices() {
        match (inside, c) {
            (None, '"' | '“' | '「') => {
                spans.push((start, i));
                inside = Some(match c {
                    '“' => '”',
                    '「' => '」',
                    _ => '"',
                });
            }
            (Some(close), c) if c == close => {
                inside = None;
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    if inside.is_none() {
        spans.push((start, text.len()));
    }
    spans
}

/// Words of a text with their byte ranges: letters, digits and inner hyphens
/// ("cutting-edge" is one word).
fn words(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        let inner_hyphen = c == '-'
            && start.is_some()
            && chars.get(k + 1).is_some_and(|(_, n)| n.is_alphanumeric());
        if c.is_alphanumeric() || inner_hyphen {
            start.get_or_insert(i);
        } else if let Some(s) = start.take() {
            out.push((s, i));
        }
    }
    if let Some(s) = start {
        out.push((s, text.len()));
    }
    out
}

/// Each use of a banned word in the writer's own words (outside quotation marks).
pub fn banned_uses(text: &str, banned: &[String]) -> Vec<BannedUse> {
    let mut out = Vec::new();
    for (from, to) in unquoted_spans(text) {
        for (s, e) in words(&text[from..to]) {
            let token = text[from + s..from + e].to_lowercase();
            if let Some(word) = banned
                .iter()
                .find(|w| ending_of(&token, &w.to_lowercase()).is_some())
            {
                out.push(BannedUse {
                    word: word.clone(),
                    found: text[from + s..from + e].to_string(),
                });
            }
        }
    }
    out
}

/// The text with every banned word that has a plain word rewritten to it (same ending, same
/// capital), and the uses left that have none.
pub fn rewrite_banned(text: &str, banned: &[String]) -> (String, Vec<BannedUse>) {
    let mut out = String::with_capacity(text.len());
    let mut left = Vec::new();
    let mut last = 0;
    for (from, to) in unquoted_spans(text) {
        for (s, e) in words(&text[from..to]) {
            let (s, e) = (from + s, from + e);
            let found = &text[s..e];
            let token = found.to_lowercase();
            let Some((word, ending)) = banned.iter().find_map(|w| {
                let w = w.to_lowercase();
                ending_of(&token, &w).map(|ending| (w, ending))
            }) else {
                continue;
            };
            let Some(&(_, plain)) = PLAIN.iter().find(|(b, _)| *b == word) else {
                left.push(BannedUse {
                    word,
                    found: found.to_string(),
                });
                continue;
            };
            // The ending goes on the last word of a plain phrase ("major changes").
            let mut replacement = match plain.rsplit_once(' ') {
                Some((head, last)) => format!("{head} {}", with_ending(last, ending)),
                None => with_ending(plain, ending),
            };
            if found.chars().next().is_some_and(char::is_uppercase) {
                let mut c = replacement.chars();
                if let Some(first) = c.next() {
                    replacement = first.to_uppercase().chain(c).collect();
                }
            }
            out.push_str(&text[last..s]);
            out.push_str(&replacement);
            last = e;
        }
    }
    out.push_str(&text[last..]);
    (out, left)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults() -> Vec<String> {
        crate::config::DEFAULT_BANNED_WORDS
            .iter()
            .map(|w| w.to_string())
            .collect()
    }

    #[test]
    fn every_default_word_and_its_forms_are_rewritten_away() {
        let banned = defaults();
        for word in crate::config::DEFAULT_BANNED_WORDS {
            for ending in ["", "s", "ing", "ed"] {
                let form = with_ending(word, ending);
                let text = format!("{} is {form} here [1].", capitalised(&form));
                let (out, left) = rewrite_banned(&text, &banned);
                assert!(left.is_empty(), "{text}: {left:?}");
                assert!(banned_uses(&out, &banned).is_empty(), "{text} → {out}");
                assert!(out.ends_with("here [1]."), "{out}");
            }
        }
    }

    fn capitalised(w: &str) -> String {
        let mut c = w.chars();
        c.next()
            .map(|f| f.to_uppercase().chain(c).collect())
            .unwrap_or_default()
    }

    #[test]
    fn forms_keep_their_ending_and_capital() {
        let banned = defaults();
        let (out, _) = rewrite_banned(
            "Leveraging the cache is crucial; it leverages locality and delved into a robust, seamlessly cutting-edge design with synergies, robustly.",
            &banned,
        );
        assert_eq!(
            out,
            "Using the cache is important; it uses locality and looked into a reliable, smoothly recent design with cooperations, reliably."
        );
    }

    #[test]
    fn quoted_words_and_longer_words_are_left_alone() {
        let banned = defaults();
        let text = "The manual calls it \"a robust checker\" [1]; crucially, landscaper and realms differ.";
        let uses = banned_uses(text, &banned);
        let found: Vec<&str> = uses.iter().map(|u| u.found.as_str()).collect();
        // "crucially" is "crucial" + "ly", "realms" is "realm" + "s"; "landscaper" is another word.
        assert_eq!(found, vec!["crucially", "realms"]);
        let (out, _) = rewrite_banned(text, &banned);
        assert!(out.contains("\"a robust checker\""), "{out}");
    }

    #[test]
    fn a_user_word_without_a_plain_word_is_reported_not_rewritten() {
        let banned = vec!["basically".to_string(), "robust".to_string()];
        let (out, left) = rewrite_banned("Basically it is robust.", &banned);
        assert_eq!(out, "Basically it is reliable.");
        assert_eq!(
            left,
            vec![BannedUse {
                word: "basically".into(),
                found: "Basically".into()
            }]
        );
    }
}
