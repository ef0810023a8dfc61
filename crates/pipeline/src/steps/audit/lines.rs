//! The shape of a report line before its sentences are audited: where a list item's text
//! starts, and a line of the writer's own list of sources cut into one cited sentence per part.

use unicode_segmentation::UnicodeSegmentation;

/// Separators between the parts of a source-list entry ("[2] (Title) — what it says — more").
const LIST_SEPARATORS: &[&str] = &[" — ", " – ", " - ", " | ", "; "];

/// A line of the writer's own list of sources — it opens with citation markers, after a
/// bullet if any: "[2] (SQLite WAL) Readers go on while a writer commits — invented in 1850" —
/// written again as one cited sentence per part ("Readers go on while a writer commits [2].
/// Invented in 1850 [2]."), so each part is audited on its own: read whole, the line is one
/// "sentence" whose true part carries an invented one through as partly supported. The title in
/// parentheses becomes a part of its own, a fragment the audit takes out. `None` for any other
/// line.
pub(super) fn source_list_entry(line: &str) -> Option<String> {
    let (bullet, after_bullet) = line.split_at(list_item_start(line));
    // The markers it opens with: "[2]", "[1][3]", "[1], [3]".
    let mut markers = String::new();
    let mut text = after_bullet;
    while let Some(inner) = text.strip_prefix('[') {
        let close = inner.find(']')?;
        let id = &inner[..close];
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_digit()) {
            break;
        }
        markers.push_str(&text[..close + 2]);
        text = inner[close + 1..].trim_start_matches([',', ' ']);
    }
    let text = text.trim_start_matches([':', ' ']).trim_end();
    if markers.is_empty() || text.is_empty() {
        return None;
    }
    // A title in parentheses opening the entry is a part of its own.
    let (title, text) = match text.strip_prefix('(').and_then(|t| t.split_once(')')) {
        Some((title, after)) => (Some(format!("({title})")), after.trim_start()),
        None => (None, text),
    };
    let mut parts: Vec<String> = title.into_iter().collect();
    let mut pending = vec![text.to_string()];
    for sep in LIST_SEPARATORS {
        pending = pending.iter().flat_map(|p| split_parts(p, sep)).collect();
    }
    parts.extend(pending);
    // Every sentence of every part carries the markers: a part of two sentences must not leave
    // its first one uncited.
    let sentences: Vec<String> = parts
        .iter()
        .flat_map(|p| {
            p.split_sentence_bounds()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .filter_map(|sentence| {
            let t = sentence.trim();
            let body = t.trim_end_matches(['.', ';', ',', ':', '!', '?']).trim();
            if body.is_empty() {
                return None;
            }
            let end = t
                .chars()
                .last()
                .filter(|c| matches!(c, '?' | '!'))
                .unwrap_or('.');
            let mut chars = body.chars();
            let first = chars.next().map(|c| c.to_uppercase().collect::<String>());
            Some(format!(
                "{}{} {markers}{end}",
                first.unwrap_or_default(),
                chars.as_str()
            ))
        })
        .collect();
    let newline = &line[line.trim_end().len()..];
    Some(format!("{bullet}{}{newline}", sentences.join(" ")))
}

/// `text` cut at `sep`, except a spaced hyphen between numbers ("1990 - 2000", "pages 3 - 5"):
/// a range, not two parts.
fn split_parts(text: &str, sep: &str) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut rest = text;
    while let Some(at) = rest.find(sep) {
        let (before, after) = (&rest[..at], &rest[at + sep.len()..]);
        let range = sep == " - "
            && before.chars().last().is_some_and(|c| c.is_ascii_digit())
            && after.chars().next().is_some_and(|c| c.is_ascii_digit());
        let last = parts.last_mut().expect("never empty");
        last.push_str(before);
        if range {
            last.push_str(sep);
        } else {
            parts.push(String::new());
        }
        rest = after;
    }
    parts.last_mut().expect("never empty").push_str(rest);
    parts
}

/// Where a list item's text starts: after the indent and the bullet ("- ", "* ", "+ ", "3. ",
/// "3) "); 0 for a line that is not a list item.
pub(super) fn list_item_start(line: &str) -> usize {
    let rest = line.trim_start();
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let after = rest
        .strip_prefix(['-', '*', '+'])
        .or_else(|| {
            rest[digits..]
                .strip_prefix(['.', ')'])
                .filter(|_| digits > 0)
        })
        .filter(|r| r.starts_with(' '));
    match after {
        Some(r) => line.len() - r.trim_start().len(),
        None => 0,
    }
}
