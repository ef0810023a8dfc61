//! Degenerate text: loops, repeated sentences, bare labels and runaway length.

#[allow(unused_imports)]
use super::*;

// ---------------------------------------------------------------------------------------------
// Degenerate free text
// ---------------------------------------------------------------------------------------------

/// Why a text is degenerate: what a reader would say about it.
#[derive(Debug, Clone, PartialEq)]
pub enum Degeneracy {
    /// Empty, or only punctuation, list numbers and digits.
    NoWords,
    /// Only a label with nothing after it ("1. Fact:").
    Label(String),
    /// Too few distinct four-word sequences over the whole text.
    Repetitive {
        /// The share of distinct four-word sequences, 0 to 1.
        distinct: f64,
        /// The sequence said most often.
        phrase: String,
    },
    /// One stretch of the text loops on a phrase.
    Loop {
        /// The share of distinct four-word sequences in the worst stretch, 0 to 1.
        distinct: f64,
        /// The sequence said most often in that stretch.
        phrase: String,
    },
    /// One sentence said over and over (numbers aside).
    RepeatedSentence {
        /// The sentence (normalised, each number as `#`).
        sentence: String,
        /// How many times it is said.
        times: usize,
    },
    /// Far longer than asked.
    Runaway {
        /// Its length in words.
        words: usize,
        /// The length asked for.
        max_words: usize,
    },
}

impl fmt::Display for Degeneracy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Degeneracy::NoWords => write!(f, "it has no words, only punctuation or numbers"),
            Degeneracy::Label(label) => write!(f, "it is only the label \"{label}\""),
            Degeneracy::Repetitive { distinct, phrase } => write!(
                f,
                "it repeats itself: only {:.0}% of its four-word sequences are distinct \
                 (\"{phrase}\" again and again)",
                distinct * 100.0
            ),
            Degeneracy::Loop { distinct, phrase } => write!(
                f,
                "part of it loops on \"{phrase}\" (only {:.0}% of the four-word sequences \
                 there are distinct)",
                distinct * 100.0
            ),
            Degeneracy::RepeatedSentence { sentence, times } => {
                write!(f, "it says \"{sentence}\" {times} times")
            }
            Degeneracy::Runaway { words, max_words } => write!(
                f,
                "it runs to {words} words where about {max_words} were asked for"
            ),
        }
    }
}

/// The length of `text` in words, a CJK character counting as half a word (Japanese averages
/// about two characters a word).
pub fn word_count(text: &str) -> usize {
    let mut words = 0;
    let mut cjk = 0;
    for w in text.unicode_words() {
        if w.chars().any(is_cjk) {
            cjk += w.chars().filter(|&c| is_cjk(c)).count();
        } else {
            words += 1;
        }
    }
    words + cjk.div_ceil(2)
}

/// Strips a leading list marker ("- ", "* ", "• ", "1. ", "2) ", "> ") and Markdown emphasis.
pub(super) fn strip_marker(line: &str) -> &str {
    let mut s = line.trim();
    loop {
        let before = s;
        for bullet in ["- ", "* ", "+ ", "• ", "> ", "・"] {
            if let Some(rest) = s.strip_prefix(bullet) {
                s = rest.trim_start();
            }
        }
        let digits = s.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && digits <= 3 {
            let rest = &s[digits..];
            if let Some(r) = rest
                .strip_prefix(". ")
                .or_else(|| rest.strip_prefix(") "))
                .or_else(|| {
                    if rest == "." || rest == ")" {
                        Some("")
                    } else {
                        None
                    }
                })
            {
                s = r.trim_start();
            }
        }
        if s == before {
            break;
        }
    }
    s.trim_matches(|c| c == '*' || c == '_').trim()
}

/// A fast hasher for the small integer keys of the repetition checks (word ids and four-word
/// sequences of them); the std hasher costs more than the rest of the check.
#[derive(Default)]
pub(super) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn write_u128(&mut self, n: u128) {
        self.write_u64(n as u64);
        self.write_u64((n >> 64) as u64);
    }
}

type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// The words of a text as ids, for repetition checks.
pub(super) struct Words {
    /// Each word's id, in order.
    pub(super) ids: Vec<u32>,
    /// The lower-cased word of each id.
    pub(super) vocab: Vec<String>,
}

/// The lower-cased words of `text` as ids, URLs and citation markers left out (a list of
/// sources from one site shares long runs of URL words).
pub(super) fn word_ids(text: &str) -> Words {
    let clean = without_citations(text);
    let mut index: IdMap<String, u32> = IdMap::default();
    let mut words = Words {
        ids: Vec::new(),
        vocab: Vec::new(),
    };
    for chunk in clean.split_whitespace() {
        if chunk.contains("://") || chunk.starts_with("www.") {
            continue;
        }
        for w in chunk.unicode_words() {
            let lower = if w.chars().any(char::is_uppercase) {
                Cow::Owned(w.to_lowercase())
            } else {
                Cow::Borrowed(w)
            };
            let id = match index.get(lower.as_ref()) {
                Some(&id) => id,
                None => {
                    let id = words.vocab.len() as u32;
                    let owned = lower.into_owned();
                    index.insert(owned.clone(), id);
                    words.vocab.push(owned);
                    id
                }
            };
            words.ids.push(id);
        }
    }
    words
}

/// The four-word sequences of `ids`, each packed in one key.
pub(super) fn four_grams(ids: &[u32]) -> Vec<u128> {
    ids.windows(4)
        .map(|w| {
            (u128::from(w[0]) << 96)
                | (u128::from(w[1]) << 64)
                | (u128::from(w[2]) << 32)
                | u128::from(w[3])
        })
        .collect()
}

/// The words of a four-word sequence as text: spaced, except between CJK words
/// ("量子コンピュータは").
pub(super) fn gram_text(words: &Words, gram: u128) -> String {
    let mut out = String::new();
    for shift in [96, 64, 32, 0] {
        let w = &words.vocab[((gram >> shift) as u32) as usize];
        let cjk_pair = out.chars().last().is_some_and(is_cjk) && w.starts_with(is_cjk);
        if !out.is_empty() && !cjk_pair {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// The sequence said most often among `grams` (the earliest such, for a stable answer).
pub(super) fn most_said(grams: &[u128]) -> u128 {
    let mut counts: IdMap<u128, usize> = IdMap::default();
    let mut best = (0usize, grams[0]);
    for g in grams {
        let n = counts.entry(*g).or_default();
        *n += 1;
        if *n > best.0 {
            best = (*n, *g);
        }
    }
    best.1
}

/// The share of distinct four-word sequences in `text` (1 when it is too short to tell): what
/// [`MIN_DISTINCT_4GRAMS`] is compared with.
pub fn distinct_4gram_ratio(text: &str) -> f64 {
    let words = word_ids(text);
    if words.ids.len() < MIN_WORDS_FOR_4GRAMS {
        return 1.0;
    }
    let grams = four_grams(&words.ids);
    let distinct: HashSet<u128, BuildHasherDefault<IdHasher>> = grams.iter().copied().collect();
    distinct.len() as f64 / grams.len() as f64
}

/// The share of `text`'s four-word sequences that `body` says too (0 when `text` has fewer
/// than four words): a finding the body already says word for word, listed again, makes the
/// report read the same passage twice.
pub fn share_said_in(text: &str, body: &str) -> f64 {
    let in_body = word_ids(body).ids.len();
    // One vocabulary for both, so that a word has one id in each.
    let words = word_ids(&format!("{body}\n{text}"));
    let (said, own) = words.ids.split_at(in_body.min(words.ids.len()));
    if own.len() < 4 {
        return 0.0;
    }
    let said: HashSet<u128, BuildHasherDefault<IdHasher>> = four_grams(said).into_iter().collect();
    let own = four_grams(own);
    own.iter().filter(|g| said.contains(g)).count() as f64 / own.len() as f64
}

/// Repetition over the whole text and within any [`LOOP_WINDOW`] of it.
pub(super) fn repetition(text: &str) -> Option<Degeneracy> {
    let words = word_ids(text);
    if words.ids.len() < MIN_WORDS_FOR_4GRAMS {
        return None;
    }
    let grams = four_grams(&words.ids);
    let distinct: HashSet<u128, BuildHasherDefault<IdHasher>> = grams.iter().copied().collect();
    let distinct = distinct.len() as f64 / grams.len() as f64;
    if distinct < MIN_DISTINCT_4GRAMS {
        return Some(Degeneracy::Repetitive {
            distinct,
            phrase: gram_text(&words, most_said(&grams)),
        });
    }
    local_loop(&words, &grams)
}

/// The least varied [`LOOP_WINDOW`] of four-word sequences, when it loops.
fn local_loop(words: &Words, grams: &[u128]) -> Option<Degeneracy> {
    if grams.len() <= LOOP_WINDOW {
        return None;
    }
    // Slide a window over the sequences, keeping counts, and remember the least varied stretch.
    let mut window: IdMap<u128, usize> = IdMap::default();
    let mut worst = (usize::MAX, 0usize);
    for (i, g) in grams.iter().enumerate() {
        *window.entry(*g).or_default() += 1;
        if i >= LOOP_WINDOW {
            let old = grams[i - LOOP_WINDOW];
            if let Some(n) = window.get_mut(&old) {
                *n -= 1;
                if *n == 0 {
                    window.remove(&old);
                }
            }
        }
        if i + 1 >= LOOP_WINDOW && window.len() < worst.0 {
            worst = (window.len(), i + 1 - LOOP_WINDOW);
        }
    }
    let share = worst.0 as f64 / LOOP_WINDOW as f64;
    (share < LOOP_MIN_DISTINCT).then(|| Degeneracy::Loop {
        distinct: share,
        phrase: gram_text(words, most_said(&grams[worst.1..worst.1 + LOOP_WINDOW])),
    })
}

/// The sentences of `text` worth comparing for repeats: cut at line breaks and sentence ends,
/// normalised (lower case, punctuation as single spaces) with every run of digits as `#` (so
/// "item 1 is important", "item 2 is important" … are one sentence), and long enough to count.
pub(super) fn repeatable_sentences(text: &str) -> Vec<String> {
    let clean = without_citations(text);
    let mut out = Vec::new();
    let mut key = String::new();
    let mut chars = clean.chars().peekable();
    let mut finish = |key: &mut String| {
        let k = key.trim_end();
        let words = k.split(' ').filter(|w| !w.is_empty() && *w != "#").count();
        if words >= REPEAT_MIN_WORDS || cjk_chars(k) >= 2 * REPEAT_MIN_WORDS {
            out.push(k.to_string());
        }
        key.clear();
    };
    while let Some(c) = chars.next() {
        if c.is_numeric() {
            if !key.ends_with('#') {
                key.push('#');
            }
        } else if c.is_alphanumeric() {
            key.extend(c.to_lowercase());
        } else if !key.is_empty() && !key.ends_with(' ') {
            key.push(' ');
        }
        let end = match c {
            '\n' | '。' | '！' | '？' => true,
            '.' | '!' | '?' => chars.peek().is_none_or(|n| n.is_whitespace()),
            _ => false,
        };
        if end {
            finish(&mut key);
        }
    }
    finish(&mut key);
    out
}

pub(super) fn repeated_sentence(text: &str) -> Option<Degeneracy> {
    let sentences = repeatable_sentences(text);
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for s in &sentences {
        *counts.entry(s.as_str()).or_default() += 1;
    }
    let (sentence, times) = counts
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(a.0)))?;
    let share = times as f64 / sentences.len() as f64;
    (times >= SENTENCE_REPEATS || (times >= 2 && share > SENTENCE_REPEAT_SHARE)).then(|| {
        Degeneracy::RepeatedSentence {
            sentence: sentence.to_string(),
            times,
        }
    })
}

/// Whether `text` is only a label such as "1. Fact:" or "**Answer:**".
pub(super) fn label(text: &str) -> Option<String> {
    let body = strip_marker(text);
    let body = body.trim_end_matches(['*', '_']);
    let stem = body.strip_suffix(':').or_else(|| body.strip_suffix('：'))?;
    let words = stem.unicode_words().count();
    (words <= 3 && !stem.contains(':')).then(|| body.to_string())
}

/// Why `text` is degenerate, if it is: no words at all, only a label, a loop over the whole
/// text or a stretch of it, or one sentence over and over. A one-sentence answer and an
/// ordinary Markdown report (headings, bullets, `[1]` markers) are not degenerate.
pub fn degenerate(text: &str) -> Option<Degeneracy> {
    if !without_citations(text).chars().any(char::is_alphabetic) {
        return Some(Degeneracy::NoWords);
    }
    if let Some(l) = label(text) {
        return Some(Degeneracy::Label(l));
    }
    repeated_sentence(text).or_else(|| repetition(text))
}

/// What makes `text` degenerate however it goes on, for a text still being written: a
/// stretch that loops, one sentence said [`SENTENCE_REPEATS`] times, or more than
/// [`RUNAWAY_FACTOR`] times `max_words` (each stays true of every longer text that begins with
/// it; the shares over the whole text may still change, so they wait for the end). Repeats are
/// counted among the ended sentences only: one still being written may yet differ from the
/// one it begins like.
pub fn degenerate_so_far(text: &str, max_words: usize) -> Option<Degeneracy> {
    let words = word_count(text);
    if words > max_words.saturating_mul(RUNAWAY_FACTOR) {
        return Some(Degeneracy::Runaway { words, max_words });
    }
    let ended = text
        .char_indices()
        .rev()
        .find(|(_, c)| matches!(c, '.' | '!' | '?' | '\n' | '。' | '！' | '？'))
        .map_or("", |(i, c)| &text[..i + c.len_utf8()]);
    if let Some(d @ Degeneracy::RepeatedSentence { times, .. }) = repeated_sentence(ended) {
        if times >= SENTENCE_REPEATS {
            return Some(d);
        }
    }
    let words = word_ids(text);
    local_loop(&words, &four_grams(&words.ids))
}

/// [`degenerate`], and also runaway: more than [`RUNAWAY_FACTOR`] times the `max_words` that
/// were asked for (a model that does not stop).
pub fn degenerate_within(text: &str, max_words: usize) -> Option<Degeneracy> {
    if let Some(d) = degenerate(text) {
        return Some(d);
    }
    let words = word_count(text);
    (words > max_words.saturating_mul(RUNAWAY_FACTOR))
        .then_some(Degeneracy::Runaway { words, max_words })
}
