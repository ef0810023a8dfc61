//! Alignment: the window of one to [`WINDOW_SENTENCES`] consecutive sentences of a source that
//! says most of a claim, found through an index of the source's words so that a long page is
//! read once, not once per claim.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use crate::numbers::number_forms;
use crate::text::sentences;
use crate::words::word_terms;
use crate::{Passage, SourceTexts, WINDOW_SENTENCES};

/// A source's text cut into sentences, with each sentence's terms and an index from term to
/// sentences: built once per source, used for every claim that cites it.
#[derive(Debug, Clone, Default)]
pub struct Prepared {
    /// The sentences' byte ranges in the text.
    spans: Vec<Range<usize>>,
    /// A table row's reading (its cells under their columns' names), by sentence: what the
    /// row says, aligned and measured in place of its pipes and bare cells.
    readings: Vec<Option<String>>,
    /// Each sentence's word terms and number forms (numbers as `#value`).
    terms: Vec<HashSet<String>>,
    /// Whether a paragraph ends before each sentence (a window does not cross one).
    breaks: Vec<bool>,
    /// Which sentences have a term.
    index: HashMap<String, Vec<u32>>,
    /// Every term of the text.
    pub all_terms: HashSet<String>,
    /// Every number form of the text.
    pub all_numbers: HashSet<String>,
}

/// The terms a sentence is aligned by: its word terms and its numbers (as `#value`).
pub fn align_terms(text: &str) -> HashSet<String> {
    let mut set = word_terms(text);
    set.extend(number_forms(text).into_iter().map(|n| format!("#{n}")));
    set
}

impl Prepared {
    /// Cuts `text` into sentences and indexes their terms. A text with no sentence the
    /// sentence rules accept (a short quote) is one sentence.
    pub fn new(text: &str) -> Self {
        let found = sentences(text, 0..text.len());
        let mut readings: Vec<Option<String>> = found
            .iter()
            .map(|s| s.is_row(text).then(|| s.reading(text)))
            .collect();
        let mut spans: Vec<Range<usize>> = found.into_iter().map(|s| s.range).collect();
        if spans.is_empty() && !text.trim().is_empty() {
            let start = text.len() - text.trim_start().len();
            spans.push(start..text.trim_end().len());
            readings.push(None);
        }
        // A window does not cross a paragraph, nor join a table's rows: each says its own.
        let breaks = (0..spans.len())
            .map(|i| {
                i > 0
                    && (text[spans[i - 1].end..spans[i].start].contains("\n\n")
                        || readings[i].is_some()
                        || readings[i - 1].is_some())
            })
            .collect();
        let mut out = Prepared {
            spans,
            readings,
            breaks,
            ..Prepared::default()
        };
        for (i, span) in out.spans.iter().enumerate() {
            let t = align_terms(out.readings[i].as_deref().unwrap_or(&text[span.clone()]));
            for term in &t {
                out.index.entry(term.clone()).or_default().push(i as u32);
                if let Some(n) = term.strip_prefix('#') {
                    out.all_numbers.insert(n.to_string());
                } else {
                    out.all_terms.insert(term.clone());
                }
            }
            out.terms.push(t);
        }
        // Numbers cut across sentences ("3.5 million" at a line end) still count as stated.
        out.all_numbers.extend(number_forms(text));
        out
    }

    /// How many sentences the text has.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether the text has no sentence.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The words of sentences `first..=last` of `text` as a window: the text as written, or,
    /// where a table row is among them, each sentence as it reads.
    fn window_text(&self, text: &str, first: usize, last: usize) -> String {
        if self.readings[first..=last].iter().all(Option::is_none) {
            return text[self.spans[first].start..self.spans[last].end].to_string();
        }
        (first..=last)
            .map(|i| {
                self.readings[i]
                    .clone()
                    .unwrap_or_else(|| text[self.spans[i].clone()].to_string())
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The window of a source that says most of a claim.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    /// The source's number.
    pub source: usize,
    /// The window's text, as written in the source — except a table row, which is its reading
    /// (each cell under its column's name: the header is not next to the row in the source).
    pub text: String,
    /// The share of the claim's alignment terms in the window.
    pub coverage: f64,
}

/// Everything cited, as one bag of terms and numbers: for signals that ask whether the claim's
/// words are anywhere in what it cites.
#[derive(Debug, Clone, Default)]
pub struct Cited {
    /// The cited texts' word terms.
    pub terms: HashSet<String>,
    /// The cited texts' number forms.
    pub numbers: HashSet<String>,
}

/// The best window for `claim` among the cited sources (their whole texts when `texts` has
/// them, else the cited passages), and everything cited as one bag of terms; `None` when
/// nothing cited has any text.
pub fn best(
    claim: &str,
    cited: &[Passage<'_>],
    texts: &SourceTexts<'_>,
) -> Option<(Window, Cited)> {
    let (mut windows, bag) = candidates(claim, cited, texts, 1)?;
    Some((windows.swap_remove(0), bag))
}

/// The `k` windows with most of `claim`'s terms among the cited sources, best first (the
/// highest share, the fewest sentences on a tie, the earlier source and sentence on a tie
/// again), and everything cited as one bag of terms; `None` when nothing cited has any text.
/// A source with none of the claim's terms still gives its first sentence, so that there is a
/// window to judge.
pub fn candidates(
    claim: &str,
    cited: &[Passage<'_>],
    texts: &SourceTexts<'_>,
    k: usize,
) -> Option<(Vec<Window>, Cited)> {
    let want: Vec<String> = align_terms(claim).into_iter().collect();
    let mut bag = Cited::default();
    let mut seen: HashSet<usize> = HashSet::new();
    let mut owned: Vec<(usize, &str, Prepared)> = Vec::new();
    for p in cited {
        if texts.get(p.source).is_some() {
            continue;
        }
        owned.push((p.source, p.text, Prepared::new(p.text)));
    }
    let mut sources: Vec<(usize, &str, &Prepared)> = Vec::new();
    for p in cited {
        if let Some((text, prepared)) = texts.prepared(p.source) {
            if seen.insert(p.source) {
                sources.push((p.source, text, prepared));
            }
        }
    }
    for (source, text, prepared) in &owned {
        sources.push((*source, text, prepared));
    }
    // (share, sentences, order of the source, first sentence, window)
    let mut found: Vec<(f64, usize, usize, usize, Window)> = Vec::new();
    for (order, (source, text, prepared)) in sources.into_iter().enumerate() {
        if prepared.is_empty() {
            continue;
        }
        bag.terms.extend(prepared.all_terms.iter().cloned());
        bag.numbers.extend(prepared.all_numbers.iter().cloned());
        for (cov, len, (first, last)) in windows(&want, prepared, k.max(1)) {
            found.push((
                cov,
                len,
                order,
                first,
                Window {
                    source,
                    text: prepared.window_text(text, first, last),
                    coverage: cov,
                },
            ));
        }
    }
    found.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then(a.1.cmp(&b.1))
            .then(a.2.cmp(&b.2))
            .then(a.3.cmp(&b.3))
    });
    found.truncate(k.max(1));
    if found.is_empty() {
        return None;
    }
    Some((found.into_iter().map(|f| f.4).collect(), bag))
}

/// The `k` best windows of `prepared` for the claim terms `want`, best first: the highest
/// share of them, the fewest sentences on a tie, the earliest on a tie again; each with its
/// share, its sentence count and its first and last sentence. With no term found, the first
/// sentence alone (share 0).
fn windows(want: &[String], prepared: &Prepared, k: usize) -> Vec<(f64, usize, (usize, usize))> {
    let n = prepared.len();
    // Which of the claim's terms each sentence has (only sentences with any are looked at).
    let mut hits: HashMap<usize, Vec<usize>> = HashMap::new();
    for (t, term) in want.iter().enumerate() {
        if let Some(sentences) = prepared.index.get(term) {
            for &s in sentences {
                hits.entry(s as usize).or_default().push(t);
            }
        }
    }
    let mut starts: Vec<usize> = hits
        .keys()
        .flat_map(|&s| s.saturating_sub(WINDOW_SENTENCES - 1)..=s)
        .collect();
    starts.sort_unstable();
    starts.dedup();
    let total = want.len().max(1) as f64;
    // A sentence joins a window only when it adds this many of the claim's terms: one shared
    // name is not worth a second sentence.
    let gain = if want.len() > 5 { 2 } else { 1 };
    // Per start, its best window: (count, sentences, start, last).
    let mut per_start: Vec<(usize, usize, usize, usize)> = Vec::new();
    let mut seen = vec![false; want.len()];
    for start in starts {
        seen.iter_mut().for_each(|s| *s = false);
        let mut count = 0;
        let mut kept = 0;
        let mut mine: Option<(usize, usize, usize, usize)> = None;
        for len in 1..=WINDOW_SENTENCES {
            let i = start + len - 1;
            if i >= n || (len > 1 && prepared.breaks[i]) {
                break;
            }
            for &t in hits.get(&i).map(Vec::as_slice).unwrap_or(&[]) {
                if !seen[t] {
                    seen[t] = true;
                    count += 1;
                }
            }
            if len > 1 && count < kept + gain {
                break;
            }
            kept = count;
            if count > 0 && mine.is_none_or(|m| count > m.0) {
                mine = Some((count, len, start, i));
            }
        }
        per_start.extend(mine);
    }
    per_start.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    // A window inside a better one says nothing the better one does not: skip it.
    let mut out: Vec<(f64, usize, (usize, usize))> = Vec::new();
    for (count, len, first, last) in per_start {
        if out.len() >= k {
            break;
        }
        if out.iter().any(|(_, _, (f, l))| *f <= first && last <= *l) {
            continue;
        }
        out.push((count as f64 / total, len, (first, last)));
    }
    if out.is_empty() && n > 0 {
        out.push((0.0, 1, (0, 0)));
    }
    out
}
