//! Deterministic checks on what a model wrote, so that a weak model can produce a short report
//! but never a degenerate or falsely confident one.
//!
//! Everything here is a pure function of text: no model is asked whether a model's output is
//! good. The checks are
//!
//! - [`degenerate`] / [`degenerate_within`]: free text that loops, repeats one sentence, runs
//!   away far past its length, or has no words at all;
//! - [`usable_question`], [`usable_search`] and [`fallback_plan`]: plans whose questions and
//!   searches are made of words, with a plan built from the user's question when they are not;
//! - [`statement`] and [`fact_matches_quote`]: quotes that are sentences (not headings, code,
//!   checksums or release-note lines) and facts that say what their quote says;
//! - [`rank_sentences`] and [`shares_content`]: relevance by BM25 instead of the model's word;
//! - [`supports`]: a claim is supported only when its content words and every one of its
//!   numbers are in the quote.
//!
//! All of them see text through [`content_words`]: lower-cased words without stop words, with
//! Japanese handled without spaces (runs of kanji and of katakana are words, kana-only tokens
//! such as particles are dropped, and kanji runs are compared by bigrams).
//!
//! The work is linear in the text (one pass of word segmentation and hashing), so checking a
//! 2,000-word report costs well under a millisecond in release builds.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::LazyLock;

use unicode_segmentation::UnicodeSegmentation;

use crate::text::{normalize, query_similarity, DUPLICATE_QUERY};

#[cfg(test)]
mod tests;

// ---------------------------------------------------------------------------------------------
// Thresholds
// ---------------------------------------------------------------------------------------------

/// Below this share of distinct four-word sequences a text is repetitive: real prose scores
/// above 0.9 and the loops a tiny model writes below 0.1, so halfway flags mostly-repeated text.
pub const MIN_DISTINCT_4GRAMS: f64 = 0.5;

/// A text needs this many words before its four-word sequences say anything about repetition.
pub const MIN_WORDS_FOR_4GRAMS: usize = 24;

/// The stretch of words in which a local loop is looked for (a good report that ends in a loop).
pub const LOOP_WINDOW: usize = 100;

/// Below this share of distinct four-word sequences within one [`LOOP_WINDOW`] the stretch is a
/// loop: real prose stays above 0.9 in any window, a phrase repeated for 100 words below 0.2.
pub const LOOP_MIN_DISTINCT: f64 = 0.35;

/// One sentence said this many times is a loop, whatever the length of the text.
pub const SENTENCE_REPEATS: usize = 3;

/// One sentence (said at least twice) making up more than this share of all sentences is a loop.
pub const SENTENCE_REPEAT_SHARE: f64 = 0.3;

/// Sentences shorter than this many words are not counted as repeats (headings, "Yes.").
pub const REPEAT_MIN_WORDS: usize = 4;

/// A text longer than this many times the words asked for has run away.
pub const RUNAWAY_FACTOR: usize = 2;

/// A research question needs this many content words (in languages written with spaces)…
pub const QUESTION_MIN_WORDS: usize = 3;

/// …or this many CJK characters (Japanese has no spaces; "量子暗号" is already a topic).
pub const QUESTION_MIN_CJK: usize = 4;

/// Above this share of digits among letters and digits, text is numbers, not words.
pub const MAX_DIGIT_SHARE: f64 = 0.5;

/// A search is a keyword query, not a sentence: at most this many words.
pub const SEARCH_MAX_WORDS: usize = 12;

/// A search needs one content word of at least this many letters ("10," and "1." have none).
pub const SEARCH_MIN_LETTERS: usize = 3;

/// Above this share of punctuation among non-space characters, a search is markup, not words.
pub const SEARCH_MAX_PUNCT_SHARE: f64 = 0.35;

/// The whole-question search of a fallback plan keeps at most this many content words.
pub const FALLBACK_QUERY_WORDS: usize = 8;

/// A quote that is a statement has at least this many words…
pub const STATEMENT_MIN_WORDS: usize = 6;

/// …or, in Japanese and Chinese, this many CJK characters (about six words).
pub const STATEMENT_MIN_CJK: usize = 15;

/// A line without closing punctuation and shorter than this is a heading or a title.
pub const HEADING_MAX_WORDS: usize = 8;

/// Above this share of code characters (`{}();=<>[]` and backticks) a line is code.
pub const CODE_CHAR_SHARE: f64 = 0.1;

/// A run of this many hexadecimal digits is a checksum or a hash (sha256 has 64, md5 32).
pub const HEX_RUN: usize = 16;

/// A fact must share at least this share of its content words with its quote…
pub const FACT_OVERLAP: f64 = 0.5;

/// …and at least this many of them ("1. Fact:" shares none).
pub const FACT_MIN_SHARED: usize = 2;

/// A claim is supported when at least this share of its content words are in the quote:
/// paraphrases of a quote keep about two thirds of its words, unrelated sentences under a third.
pub const SUPPORT_OVERLAP: f64 = 0.6;

/// …and at least this many of them.
pub const SUPPORT_MIN_SHARED: usize = 2;

/// BM25 term-frequency saturation (the usual value).
pub const BM25_K1: f64 = 1.2;

/// BM25 length normalisation (the usual value).
pub const BM25_B: f64 = 0.75;

/// Two texts share content when they have this many content words in common (or all of the
/// shorter one's, when it has fewer).
pub const SHARED_TERMS: usize = 2;

// ---------------------------------------------------------------------------------------------
// Words
// ---------------------------------------------------------------------------------------------

const STOP_WORDS: &str =
    "a about above after again against all also am an and any are aren't as at be because been \
    before being below between both but by can can't cannot could couldn't describe did didn't \
    do does doesn't doing don't down during each either etc explain few for from further had \
    hadn't has hasn't have haven't having he her here hers herself him himself his how however \
    i if in into is isn't it it's its itself just let's may me might more most must my myself \
    nor of off on once only or other our ours ourselves out over own please same shall she \
    should shouldn't so some such tell than that that's the their theirs them themselves then \
    there there's these they this those through thus to too under until up upon us very via vs \
    versus was wasn't we were weren't what what's when where whether which while who whom whose \
    why will with within without won't would wouldn't you your yours yourself";

/// Words a complete English question or query does not end with.
const DANGLING: &str =
    "a an and are as at between but by for from in into is its of on or our than that the their \
    this to via vs was were with your";

/// Questions that open with these end with a question mark when they are complete.
const INTERROGATIVE: &str =
    "are can could did do does has have how is should was were what when where which who whom \
    whose why will would";

/// Kanji that carry no topic on their own ("what", "etc.", "-ic", "thing", "for").
/// Whether `word` is in the space-separated `list`.
fn listed(list: &str, word: &str) -> bool {
    list.split_whitespace().any(|w| w == word)
}

static STOP_SET: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| STOP_WORDS.split_whitespace().collect());

fn stop_word(word: &str) -> bool {
    STOP_SET.contains(word)
}

const JA_STOP: &[&str] = &["何", "等", "的", "事", "為", "方", "物"];

/// Japanese particles a complete question or query does not end with.
/// ("とは" and "こと" end complete topics, so は and と are not here.)
const JA_DANGLING: &str = "の を に が へ や から まで より および について における";

const NUMBER_WORDS: &[(&str, &str)] = &[
    ("zero", "0"),
    ("one", "1"),
    ("two", "2"),
    ("three", "3"),
    ("four", "4"),
    ("five", "5"),
    ("six", "6"),
    ("seven", "7"),
    ("eight", "8"),
    ("nine", "9"),
    ("ten", "10"),
    ("eleven", "11"),
    ("twelve", "12"),
];

const MONTHS: &[(&str, &str)] = &[
    ("january", "1"),
    ("jan", "1"),
    ("february", "2"),
    ("feb", "2"),
    ("march", "3"),
    ("mar", "3"),
    ("april", "4"),
    ("apr", "4"),
    ("may", "5"),
    ("june", "6"),
    ("jun", "6"),
    ("july", "7"),
    ("jul", "7"),
    ("august", "8"),
    ("aug", "8"),
    ("september", "9"),
    ("sep", "9"),
    ("sept", "9"),
    ("october", "10"),
    ("oct", "10"),
    ("november", "11"),
    ("nov", "11"),
    ("december", "12"),
    ("dec", "12"),
];

/// Powers of ten that a following word multiplies a number by.
const MULTIPLIERS: &[(&str, usize)] = &[
    ("thousand", 3),
    ("million", 6),
    ("billion", 9),
    ("trillion", 12),
    ("千", 3),
    ("万", 4),
    ("億", 8),
    ("兆", 12),
];

fn is_han(c: char) -> bool {
    matches!(c as u32, 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x3134F)
        || c == '々'
        || c == '〆'
}

fn is_hiragana(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x309F)
}

fn is_katakana(c: char) -> bool {
    matches!(c as u32, 0x30A0..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F)
}

fn is_cjk(c: char) -> bool {
    is_han(c) || is_hiragana(c) || is_katakana(c)
}

fn cjk_chars(text: &str) -> usize {
    text.chars().filter(|&c| is_cjk(c)).count()
}

fn ascii_digit(c: char) -> Option<char> {
    match c {
        '0'..='9' => Some(c),
        '０'..='９' => char::from_u32(c as u32 - '０' as u32 + '0' as u32),
        _ => None,
    }
}

fn is_digit(c: char) -> bool {
    ascii_digit(c).is_some()
}

/// The kind of a content word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A word of a language written with spaces, lower-cased.
    Word,
    /// A token that starts with a digit.
    Number,
    /// A run of kanji.
    Han,
    /// A run of katakana.
    Katakana,
}

/// A content word and where it is in the text it came from.
#[derive(Debug, Clone)]
struct Token {
    text: String,
    kind: Kind,
    start: usize,
    end: usize,
}

/// Removes citation markers such as `[1]`, `[2, 3]` and `[4-6]`, which are not words.
fn without_citations(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'[' {
            let mut j = i + 1;
            let mut digits = 0;
            while j < bytes.len()
                && (bytes[j].is_ascii_digit() || matches!(bytes[j], b',' | b'-' | b' ' | b'^'))
            {
                digits += usize::from(bytes[j].is_ascii_digit());
                j += 1;
            }
            if j < bytes.len() && bytes[j] == b']' && digits > 0 {
                out.push_str(&text[last..i]);
                out.push(' ');
                last = j + 1;
                i = j + 1;
                continue;
            }
        }
        i += 1;
    }
    out.push_str(&text[last..]);
    out
}

/// The content words of `text` with their kinds and byte spans (into the citation-free text).
fn tokens(text: &str) -> Vec<Token> {
    let clean = without_citations(text);
    let mut out = Vec::new();
    let mut han: Option<Token> = None;
    let flush = |han: &mut Option<Token>, out: &mut Vec<Token>| {
        if let Some(run) = han.take() {
            if !JA_STOP.contains(&run.text.as_str()) {
                out.push(run);
            }
        }
    };
    for (start, word) in clean.unicode_word_indices() {
        let end = start + word.len();
        if word.chars().all(is_han) {
            match han.as_mut() {
                Some(run) if run.end == start => {
                    run.text.push_str(word);
                    run.end = end;
                }
                _ => {
                    flush(&mut han, &mut out);
                    han = Some(Token {
                        text: word.to_string(),
                        kind: Kind::Han,
                        start,
                        end,
                    });
                }
            }
            continue;
        }
        flush(&mut han, &mut out);
        if word.chars().all(|c| is_hiragana(c) || c == 'ー') {
            continue; // particles and inflections
        }
        if word.chars().all(|c| is_katakana(c) || is_hiragana(c)) {
            if word.chars().count() >= 2 {
                out.push(Token {
                    text: word.to_string(),
                    kind: Kind::Katakana,
                    start,
                    end,
                });
            }
            continue;
        }
        let lower = word.to_lowercase();
        let first = lower.chars().next().unwrap_or(' ');
        if is_digit(first) {
            out.push(Token {
                text: lower,
                kind: Kind::Number,
                start,
                end,
            });
        } else if !(stop_word(&lower) || (lower.chars().count() == 1 && first.is_alphabetic())) {
            out.push(Token {
                text: lower,
                kind: Kind::Word,
                start,
                end,
            });
        }
    }
    flush(&mut han, &mut out);
    out
}

/// The content words of `text`, in order: lower-cased words without English stop words or
/// single letters; numbers kept as written; citation markers like `[1]` dropped. Japanese is
/// cut without spaces: a run of kanji is one word, a run of katakana is one word, and kana-only
/// tokens (particles, inflections) are dropped, so "量子コンピュータの応用" gives "量子",
/// "コンピュータ", "応用".
pub fn content_words(text: &str) -> Vec<String> {
    tokens(text).into_iter().map(|t| t.text).collect()
}

/// A light English stemmer, the same on both sides of every comparison: plurals, `-ed`,
/// `-ing`, `-er` and a final `e` are folded ("released", "releases", "release" → "releas"), and the
/// words one to twelve become digits.
fn stem(word: &str) -> String {
    if let Some((_, n)) = NUMBER_WORDS.iter().find(|(w, _)| *w == word) {
        return (*n).to_string();
    }
    let word = word
        .strip_suffix("'s")
        .or_else(|| word.strip_suffix("’s"))
        .unwrap_or(word);
    if word.len() <= 3 || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return word.to_string();
    }
    let mut s = word.to_string();
    let mut verb = false;
    if s.ends_with("ies") || (s.ends_with("ied") && s.len() > 4) {
        s.truncate(s.len() - 3);
        s.push('y');
    } else if s.ends_with("sses")
        || s.ends_with("ches")
        || s.ends_with("shes")
        || s.ends_with("xes")
        || s.ends_with("zes")
    {
        s.truncate(s.len() - 2);
    } else if s.ends_with("ing") && has_vowel(&s[..s.len() - 3]) {
        s.truncate(s.len() - 3);
        verb = true;
    } else if s.ends_with("ed") && !s.ends_with("eed") && has_vowel(&s[..s.len() - 2]) {
        s.truncate(s.len() - 2);
        verb = true;
    } else if s.ends_with('s') && !s.ends_with("ss") && !s.ends_with("us") && !s.ends_with("is") {
        s.pop();
    }
    // "computer", "computers", "computing" → "comput"; "compiler", "compile" → "compil".
    if !verb && s.len() >= 6 && s.ends_with("er") && has_vowel(&s[..s.len() - 2]) {
        s.truncate(s.len() - 2);
    }
    let b = s.as_bytes();
    if verb
        && b.len() >= 3
        && b[b.len() - 1] == b[b.len() - 2]
        && !matches!(
            b[b.len() - 1],
            b'l' | b's' | b'z' | b'a' | b'e' | b'i' | b'o' | b'u'
        )
    {
        s.pop();
    }
    if s.len() >= 3 && s.ends_with('e') {
        s.pop();
    }
    s
}

/// A run of kanji as its character bigrams ("所有権" → "所有", "有権"), a single kanji as
/// itself: Japanese words are mostly two kanji, so bigrams match across different cuts.
fn bigrams(run: &str) -> Vec<String> {
    let chars: Vec<char> = run.chars().collect();
    if chars.len() < 2 {
        return vec![run.to_string()];
    }
    chars.windows(2).map(|w| w.iter().collect()).collect()
}

fn has_vowel(s: &str) -> bool {
    s.bytes().any(|b| b"aeiouy".contains(&b))
}

/// The terms under which texts are compared: stemmed words, canonical numbers, katakana words,
/// and kanji runs as bigrams (a single kanji as itself). Repeats are kept (for BM25).
fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for t in tokens(text) {
        match t.kind {
            Kind::Word => out.push(stem(&t.text)),
            Kind::Number => out.extend(split_number(&t.text).into_iter().map(|(n, _)| n)),
            Kind::Katakana => out.push(t.text),
            Kind::Han => out.extend(bigrams(&t.text)),
        }
    }
    out
}

fn term_set(text: &str) -> HashSet<String> {
    terms(text).into_iter().collect()
}

/// Words that belong to a number rather than to what is said ("3.5 million", "45 percent").
const NUMBER_UNITS: &str =
    "thousand thousands million millions billion billions trillion percent per cent 万 億 兆";

/// The terms compared for overlap between a claim and a quote: [`terms`] without numbers,
/// month names and number units, which [`missing_numbers`] checks in their own way (so
/// "3.5 million" and "3,500,000", or "March 4" and "03-04", do not count as different words).
fn word_terms(text: &str) -> HashSet<String> {
    let kept: Vec<Token> = tokens(text)
        .into_iter()
        .filter(|t| {
            t.kind != Kind::Number
                && !listed(NUMBER_UNITS, &t.text)
                && !MONTHS.iter().any(|(m, _)| *m == t.text)
        })
        .collect();
    let mut out = HashSet::new();
    for t in kept {
        match t.kind {
            Kind::Word => {
                let s = stem(&t.text);
                if !s.bytes().all(|b| b.is_ascii_digit()) {
                    out.insert(s);
                }
            }
            Kind::Han => out.extend(bigrams(&t.text)),
            _ => {
                out.insert(t.text);
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Numbers
// ---------------------------------------------------------------------------------------------

/// Strips leading zeros of an integer part ("007" → "7", "" → "0").
fn int_part(digits: &str) -> &str {
    let t = digits.trim_start_matches('0');
    if t.is_empty() {
        "0"
    } else {
        t
    }
}

/// The canonical form of a number without thousands separators: "3.50" → "3.5", "2.0" → "2",
/// "05" → "5"; a dotted version or date keeps its parts ("01.05.2023" → "1.5.2023").
fn canonical(number: &str) -> String {
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
fn scale(number: &str, zeros: usize) -> Option<String> {
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
fn split_number(token: &str) -> Vec<(String, usize)> {
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
struct Number {
    /// As written.
    shown: String,
    /// Its value, canonical, multiplied out when a word such as "million" follows.
    value: String,
    /// The number unmultiplied, when a multiplier followed.
    bare: Option<String>,
    /// Whether a claim that says it must be backed by it ("one" is usually not a number).
    required: bool,
}

/// The numbers and dates of `text`: digits (thousands separators, decimals, fullwidth digits,
/// "million"/"万" multipliers), month names next to a number, and the words one to twelve.
/// Citation markers are not numbers.
fn numbers(text: &str) -> Vec<Number> {
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
fn number_forms(text: &str) -> HashSet<String> {
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
fn missing_numbers(claim: &str, quote: &str) -> Vec<String> {
    let have = number_forms(quote);
    let mut missing: Vec<String> = Vec::new();
    for n in numbers(claim) {
        if n.required && !have.contains(&n.value) && !missing.contains(&n.shown) {
            missing.push(n.shown);
        }
    }
    missing
}

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
fn strip_marker(line: &str) -> &str {
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

/// The lower-cased word tokens of `text` for repetition checks, URLs and citation markers left
/// out (a list of sources from one site shares long runs of URL words).
fn plain_words(text: &str) -> Vec<String> {
    let clean = without_citations(text);
    let mut out = Vec::new();
    for chunk in clean.split_whitespace() {
        if chunk.contains("://") || chunk.starts_with("www.") {
            continue;
        }
        out.extend(chunk.unicode_words().map(str::to_lowercase));
    }
    out
}

/// Four-word sequences of `words` as interned ids.
fn four_grams(words: &[String]) -> Vec<[u32; 4]> {
    let mut ids: HashMap<&str, u32> = HashMap::with_capacity(words.len());
    let seq: Vec<u32> = words
        .iter()
        .map(|w| {
            let next = ids.len() as u32;
            *ids.entry(w.as_str()).or_insert(next)
        })
        .collect();
    seq.windows(4).map(|w| [w[0], w[1], w[2], w[3]]).collect()
}

/// The words of `gram` as text: spaced, except between CJK words ("量子コンピュータは").
fn gram_text(words: &[String], grams: &[[u32; 4]], gram: [u32; 4]) -> String {
    let at = grams.iter().position(|g| *g == gram).unwrap_or(0);
    let mut out = String::new();
    for w in &words[at..(at + 4).min(words.len())] {
        let cjk_pair = out.chars().last().is_some_and(is_cjk) && w.starts_with(is_cjk);
        if !out.is_empty() && !cjk_pair {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// The share of distinct four-word sequences in `text` (1 when it is too short to tell). Real
/// prose scores above 0.9, a looping model under 0.1.
pub fn distinct_4gram_ratio(text: &str) -> f64 {
    let words = plain_words(text);
    if words.len() < MIN_WORDS_FOR_4GRAMS {
        return 1.0;
    }
    let grams = four_grams(&words);
    let distinct: HashSet<&[u32; 4]> = grams.iter().collect();
    distinct.len() as f64 / grams.len() as f64
}

/// Repetition over the whole text and within any [`LOOP_WINDOW`] of it.
fn repetition(text: &str) -> Option<Degeneracy> {
    let words = plain_words(text);
    if words.len() < MIN_WORDS_FOR_4GRAMS {
        return None;
    }
    let grams = four_grams(&words);
    let mut counts: HashMap<[u32; 4], usize> = HashMap::with_capacity(grams.len());
    for g in &grams {
        *counts.entry(*g).or_default() += 1;
    }
    let distinct = counts.len() as f64 / grams.len() as f64;
    if distinct < MIN_DISTINCT_4GRAMS {
        let (&top, _) = counts
            .iter()
            .max_by_key(|(g, n)| (**n, std::cmp::Reverse(**g)))
            .expect("at least one four-word sequence");
        return Some(Degeneracy::Repetitive {
            distinct,
            phrase: gram_text(&words, &grams, top),
        });
    }
    if grams.len() <= LOOP_WINDOW {
        return None;
    }
    // Slide a window over the sequences, keeping counts, and remember the least varied stretch.
    let mut window: HashMap<[u32; 4], usize> = HashMap::with_capacity(LOOP_WINDOW);
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
    if share < LOOP_MIN_DISTINCT {
        let stretch = &grams[worst.1..worst.1 + LOOP_WINDOW];
        let mut local: HashMap<[u32; 4], usize> = HashMap::new();
        for g in stretch {
            *local.entry(*g).or_default() += 1;
        }
        let top = stretch
            .iter()
            .copied()
            .max_by_key(|g| local[g])
            .expect("a full window");
        return Some(Degeneracy::Loop {
            distinct: share,
            phrase: gram_text(&words, &grams, top),
        });
    }
    None
}

/// The sentences of `text` worth comparing for repeats, normalised and with every run of
/// digits as `#` (so "item 1 is important", "item 2 is important" … are one sentence).
fn repeatable_sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        for sentence in line.split_sentence_bounds() {
            let mut norm = String::new();
            let mut in_digits = false;
            for c in normalize(&without_citations(sentence)).chars() {
                if c.is_numeric() {
                    if !in_digits {
                        norm.push('#');
                    }
                    in_digits = true;
                } else {
                    norm.push(c);
                    in_digits = false;
                }
            }
            let words = norm
                .split(' ')
                .filter(|w| !w.is_empty() && *w != "#")
                .count();
            if words >= REPEAT_MIN_WORDS || cjk_chars(&norm) >= 2 * REPEAT_MIN_WORDS {
                out.push(norm);
            }
        }
    }
    out
}

fn repeated_sentence(text: &str) -> Option<Degeneracy> {
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
fn label(text: &str) -> Option<String> {
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

// ---------------------------------------------------------------------------------------------
// Plans
// ---------------------------------------------------------------------------------------------

fn is_list_number(token: &str) -> bool {
    let digits = token.bytes().take_while(u8::is_ascii_digit).count();
    (1..=3).contains(&digits) && matches!(&token[digits..], "." | ")" | "" | ",")
}

/// Whether `text` has a run of list numbers ("1. 1. 2. 3.") or ends in one ("… 19.").
fn has_list_run(text: &str) -> bool {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let marker = |t: &str| is_list_number(t) && !t.bytes().all(|b| b.is_ascii_digit());
    let bare = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    let run = tokens
        .windows(2)
        .any(|w| (marker(w[0]) && is_list_number(w[1])) || (is_list_number(w[0]) && marker(w[1])));
    let bare_run = tokens.windows(3).any(|w| w.iter().all(|t| bare(t)));
    let trailing = tokens.len() > 1 && tokens.last().is_some_and(|t| marker(t));
    run || bare_run || trailing
}

/// Whether digits are more than [`MAX_DIGIT_SHARE`] of the letters and digits of `text`.
fn mostly_digits(text: &str) -> bool {
    let (mut digits, mut alnum) = (0usize, 0usize);
    for c in text.chars().filter(|c| c.is_alphanumeric()) {
        alnum += 1;
        digits += usize::from(c.is_numeric());
    }
    alnum == 0 || digits as f64 > MAX_DIGIT_SHARE * alnum as f64
}

/// The last word of `text` (any script), lower-cased.
fn last_word(text: &str) -> Option<String> {
    text.unicode_words().next_back().map(str::to_lowercase)
}

/// Whether `text` ends on something that can end a question or a query rather than mid-phrase:
/// not on a dangling function word or particle, and not on a consonant run no English word
/// ends with ("infrastr").
fn ends_on_word(text: &str) -> bool {
    let Some(last) = last_word(text) else {
        return false;
    };
    if last.chars().all(is_hiragana) {
        let text = text.trim_end();
        return !JA_DANGLING.split_whitespace().any(|p| text.ends_with(p));
    }
    if listed(DANGLING, &last) {
        return false;
    }
    if last.len() >= 4 && last.bytes().all(|b| b.is_ascii_lowercase()) {
        let consonants = last
            .bytes()
            .rev()
            .take_while(|b| !b"aeiouy".contains(b))
            .count();
        let tail = &last[last.len() - consonants..];
        if consonants >= 3 && !listed(ENGLISH_FINAL_CLUSTERS, tail) {
            return false;
        }
        if matches!(last.as_bytes()[last.len() - 1], b'j' | b'q') {
            return false;
        }
    }
    true
}

/// Consonant runs of three or more that end English words (a truncated word ends elsewhere).
const ENGLISH_FINAL_CLUSTERS: &str =
    "chs cks cts dth dths ffs fth fts ghs ght ghts hts lch lds lfs lks lls lms lph lps lsh lth \
    lths lts mbs mph mps mpt mpts nch nct ncts nds ngs ngst ngth ngths nks nth nths nts phs pts \
    rbs rch rcs rds rgs rks rld rlds rls rms rns rph rps rsh rst rth rths rts sch shs sks sms \
    sps sts tch ths tts wls wns wth xth xts";

/// Whether `q` can stand as a research question: built from words (at least
/// [`QUESTION_MIN_WORDS`] content words, or [`QUESTION_MIN_CJK`] CJK characters), not mostly
/// digits, without runs of list numbers ("… 1. 1. 2. 3."), and not cut off: a question that
/// opens like one ("What", "How", "Does" …) ends with a question mark, and any other ends on a
/// complete word, not on "the" or a particle.
pub fn usable_question(q: &str) -> bool {
    let q = q.trim();
    if q.is_empty() || degenerate(q).is_some() || has_list_run(q) || mostly_digits(q) {
        return false;
    }
    let words = tokens(q).iter().filter(|t| t.kind != Kind::Number).count();
    if words < QUESTION_MIN_WORDS && cjk_chars(q) < QUESTION_MIN_CJK {
        return false;
    }
    let end = q
        .trim_end_matches(['"', '\'', '”', '’', ')', '」', '』', '*'])
        .chars()
        .last()
        .unwrap_or(' ');
    if matches!(end, '?' | '？' | '!' | '！' | '。') {
        return true;
    }
    let first = q
        .unicode_words()
        .next()
        .map(str::to_lowercase)
        .unwrap_or_default();
    if listed(INTERROGATIVE, &first) {
        return false; // a question that never reached its question mark was cut off
    }
    // Japanese questions end with か or a noun; a trailing particle means it was cut.
    end == '.' || ends_on_word(q)
}

/// Whether `q` can be sent as a web search: a keyword query of at most [`SEARCH_MAX_WORDS`]
/// words with at least one content word of [`SEARCH_MIN_LETTERS`] letters (or a CJK word), not
/// mostly digits ("1. 1. 2. 3.", "10,") or punctuation ("**name\[\]**"), and not ending on a
/// dangling "the" or particle.
pub fn usable_search(q: &str) -> bool {
    let q = q.trim();
    if q.is_empty() || has_list_run(q) || word_count(q) > SEARCH_MAX_WORDS {
        return false;
    }
    let has_word = tokens(q).iter().any(|t| match t.kind {
        Kind::Word => t.text.chars().filter(|c| c.is_alphabetic()).count() >= SEARCH_MIN_LETTERS,
        Kind::Han | Kind::Katakana => true,
        Kind::Number => false,
    });
    if !has_word {
        return false;
    }
    let all: Vec<&str> = q.unicode_words().collect();
    let numeric = all
        .iter()
        .filter(|w| w.chars().next().is_some_and(is_digit))
        .count();
    if numeric as f64 > MAX_DIGIT_SHARE * all.len() as f64 {
        return false;
    }
    let (mut punct, mut visible) = (0usize, 0usize);
    for c in q.chars().filter(|c| !c.is_whitespace()) {
        visible += 1;
        punct += usize::from(!c.is_alphanumeric());
    }
    if punct as f64 > SEARCH_MAX_PUNCT_SHARE * visible as f64 {
        return false;
    }
    ends_on_word(q)
}

/// The content words of `question` as search phrases: words that touch in the text (Japanese
/// kanji and katakana runs) are joined without a space, numbers stay only next to words.
fn phrases(question: &str) -> Vec<String> {
    let clean = without_citations(question);
    let toks = tokens(question);
    let mut out: Vec<String> = Vec::new();
    let mut prev_end: Option<usize> = None;
    for t in toks {
        let touching = prev_end == Some(t.start)
            && matches!(t.kind, Kind::Han | Kind::Katakana)
            && clean[..t.start].chars().last().is_some_and(is_cjk);
        match out.last_mut() {
            Some(last) if touching => last.push_str(&t.text),
            _ => {
                if !out.contains(&t.text) {
                    out.push(t.text)
                }
            }
        }
        prev_end = Some(t.end);
    }
    out
}

/// A plan built from the user's question alone, for when the model's plan is not usable: the
/// question itself as the one research question, and up to `max_searches` keyword queries from
/// its content words (all of them, then adjacent pairs, then the first word with each later
/// one, then single words), each usable and distinct from the ones before
/// (`query_similarity` below [`DUPLICATE_QUERY`]).
pub fn fallback_plan(question: &str, max_searches: usize) -> (Vec<String>, Vec<String>) {
    let q = question.trim();
    let questions = if q.is_empty() {
        Vec::new()
    } else {
        vec![q.to_string()]
    };
    let words = phrases(q);
    let mut candidates: Vec<String> = Vec::new();
    if !words.is_empty() {
        candidates.push(words[..words.len().min(FALLBACK_QUERY_WORDS)].join(" "));
    }
    candidates.extend(words.windows(2).map(|w| w.join(" ")));
    if let Some(first) = words.first() {
        candidates.extend(words.iter().skip(2).map(|w| format!("{first} {w}")));
    }
    candidates.extend(
        words
            .iter()
            .filter(|w| w.chars().count() >= 4 || w.chars().any(is_cjk))
            .cloned(),
    );
    let mut searches: Vec<String> = Vec::new();
    for c in candidates {
        if searches.len() >= max_searches {
            break;
        }
        if usable_search(&c)
            && searches
                .iter()
                .all(|s| query_similarity(s, &c) < DUPLICATE_QUERY)
        {
            searches.push(c);
        }
    }
    if searches.is_empty() && max_searches > 0 && usable_search(q) {
        searches.push(q.to_string());
    }
    (questions, searches)
}

// ---------------------------------------------------------------------------------------------
// Facts and quotes
// ---------------------------------------------------------------------------------------------

/// Whether `line` ends like a sentence (after closing quotes and brackets).
fn closes(line: &str) -> bool {
    line.trim_end_matches(['"', '\'', '”', '’', ')', ']', '」', '』', '*', '_'])
        .ends_with(['.', '!', '?', '。', '！', '？', '…'])
}

/// Whether `line` is code: many of `{}();=<>[]` and backticks, a prompt, or a statement end.
fn code(line: &str) -> bool {
    let total = line.chars().count();
    let marks = line
        .chars()
        .filter(|c| {
            matches!(
                c,
                '{' | '}' | '(' | ')' | ';' | '=' | '<' | '>' | '[' | ']' | '`'
            )
        })
        .count();
    let trimmed = line.trim_end();
    (marks >= 4 && marks as f64 > CODE_CHAR_SHARE * total as f64)
        || trimmed.ends_with([';', '{', '}'])
        || [
            "$ ", ">>> ", "// ", "/* ", "#include", "fn ", "let ", "def ", "import ",
        ]
        .iter()
        .any(|p| line.starts_with(p))
}

/// Whether `line` is metadata rather than a statement: a checksum or hash, a commit line, a
/// release-note line with a pull-request number, a version or copyright line, or dates and
/// URLs with hardly a word around them.
fn metadata(line: &str) -> bool {
    let mut run = 0;
    let mut hex_digit = false;
    for c in line.chars() {
        if c.is_ascii_hexdigit() {
            run += 1;
            hex_digit |= c.is_ascii_digit();
            if run >= HEX_RUN && hex_digit {
                return true;
            }
        } else {
            run = 0;
            hex_digit = false;
        }
    }
    let lower = line.to_lowercase();
    let first = lower.split_whitespace().next().unwrap_or("");
    let commit = (7..=12).contains(&first.len())
        && first.bytes().all(|b| b.is_ascii_hexdigit())
        && first.bytes().any(|b| b.is_ascii_digit())
        && first.bytes().any(|b| b.is_ascii_alphabetic());
    if commit {
        return true;
    }
    let pull = lower.contains("(#")
        || lower.contains("/pull/")
        || lower.contains("/issues/")
        || lower.contains(" by @");
    if pull {
        return true;
    }
    if lower.starts_with("copyright")
        || lower.starts_with('©')
        || lower.starts_with("(c) ")
        || lower.contains("all rights reserved")
    {
        return true;
    }
    let versioned = |p: &str| {
        lower
            .strip_prefix(p)
            .map(|r| r.trim_start_matches([':', ' ', '\t']))
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()))
    };
    if versioned("version")
        || versioned("release")
        || versioned("v")
        || versioned("last updated")
        || versioned("updated")
        || versioned("published")
    {
        return true;
    }
    // What is left once URLs, numbers, dates and month names are taken away.
    let words = lower
        .split_whitespace()
        .filter(|w| !w.contains("://") && !w.starts_with("www.") && !w.contains('@'))
        .flat_map(|w| w.unicode_words())
        .filter(|w| {
            w.chars().any(char::is_alphabetic)
                && !w.starts_with(|c: char| c.is_ascii_digit())
                && !MONTHS.iter().any(|(m, _)| m == w)
                && !stop_word(w)
        })
        .count();
    words < 2 && cjk_chars(line) < STATEMENT_MIN_CJK
}

/// Whether `line` reads as a heading or a page title: a Markdown heading, a bold-only line, an
/// all-capitals line, a short line that does not close like a sentence, or a title with a site
/// separator ("Foo - Wikipedia", "Bar | Docs").
fn heading(line: &str, words: usize) -> bool {
    if line.starts_with('#') || (line.starts_with("**") && line.ends_with("**") && !closes(line)) {
        return true;
    }
    let letters: Vec<char> = line.chars().filter(|c| c.is_alphabetic()).collect();
    let cased: Vec<&char> = letters
        .iter()
        .filter(|c| c.is_lowercase() || c.is_uppercase())
        .collect();
    if cased.len() >= 4 && cased.iter().all(|c| c.is_uppercase()) {
        return true;
    }
    if closes(line) {
        return false;
    }
    if words < HEADING_MAX_WORDS && cjk_chars(line) < STATEMENT_MIN_CJK {
        return true;
    }
    if [" | ", " - ", " – ", " — ", " :: ", " · "]
        .iter()
        .any(|s| line.contains(s))
    {
        return true;
    }
    // Title Case: nearly every longer word capitalised and no sentence end.
    let long: Vec<&str> = line
        .unicode_words()
        .filter(|w| w.chars().count() >= 4 && w.chars().all(char::is_alphabetic))
        .collect();
    long.len() >= 4
        && long
            .iter()
            .filter(|w| w.starts_with(char::is_uppercase))
            .count() as f64
            >= 0.8 * long.len() as f64
}

/// Whether `quote` is a statement a fact can rest on: a sentence of at least
/// [`STATEMENT_MIN_WORDS`] words (or [`STATEMENT_MIN_CJK`] CJK characters) that is not a
/// heading or page title, not a bare list number or bullet, not code, not metadata (checksums,
/// commit and release-note lines, "Version 1.2", copyright, dates or URLs alone), and not
/// itself a loop.
pub fn statement(quote: &str) -> bool {
    let line = quote.trim();
    if line.is_empty() || line.starts_with('#') {
        return false;
    }
    let body = strip_marker(line);
    let clean = without_citations(body);
    let clean = clean.trim();
    let words = clean
        .unicode_words()
        .filter(|w| !w.chars().any(is_cjk))
        .count();
    let cjk = cjk_chars(clean);
    if words < STATEMENT_MIN_WORDS && cjk < STATEMENT_MIN_CJK {
        return false;
    }
    let unmarked = without_citations(line);
    if heading(unmarked.trim(), words)
        || code(clean)
        || metadata(clean)
        || degenerate(clean).is_some()
    {
        return false;
    }
    // A sentence says several different things: "1. 1. 2. 3. 4. 5." and loops do not.
    let content = tokens(clean);
    let distinct: HashSet<&str> = content.iter().map(|t| t.text.as_str()).collect();
    let words = content.iter().filter(|t| t.kind != Kind::Number).count();
    (distinct.len() >= 3 && words >= 2) || (cjk >= STATEMENT_MIN_CJK && words >= 1)
}

/// The share of `claim`'s distinct word terms found in `quote`, how many that is, and how many
/// the claim has.
fn coverage(claim: &str, quote: &str) -> (f64, usize, usize) {
    let c = word_terms(claim);
    if c.is_empty() {
        return (0.0, 0, 0);
    }
    let q = word_terms(quote);
    let shared = c.intersection(&q).count();
    (shared as f64 / c.len() as f64, shared, c.len())
}

/// Whether `fact` says what `quote` says: it is not degenerate, shares at least
/// [`FACT_OVERLAP`] of its content words (and at least [`FACT_MIN_SHARED`]) with the quote or
/// is a span of it, and every number in it is in the quote.
pub fn fact_matches_quote(fact: &str, quote: &str) -> bool {
    if degenerate(fact).is_some() || !missing_numbers(fact, quote).is_empty() {
        return false;
    }
    let (share, shared, total) = coverage(fact, quote);
    let span = total >= FACT_MIN_SHARED && {
        let f = normalize(&without_citations(fact));
        f.split(' ').count() >= 3 && normalize(quote).contains(&f)
    };
    span || (shared >= FACT_MIN_SHARED && share >= FACT_OVERLAP)
}

// ---------------------------------------------------------------------------------------------
// Relevance
// ---------------------------------------------------------------------------------------------

/// Every sentence's BM25 score against `query`'s content words ([`BM25_K1`], [`BM25_B`]), the
/// given sentences being the corpus, best first and ties by index; sentences that share
/// nothing with the query score 0 and come last.
pub fn rank_sentences(query: &str, sentences: &[&str]) -> Vec<(usize, f64)> {
    let query: HashSet<String> = term_set(query);
    let docs: Vec<HashMap<String, usize>> = sentences
        .iter()
        .map(|s| {
            let mut tf: HashMap<String, usize> = HashMap::new();
            for t in terms(s) {
                *tf.entry(t).or_default() += 1;
            }
            tf
        })
        .collect();
    let lengths: Vec<usize> = docs.iter().map(|d| d.values().sum()).collect();
    let n = docs.len() as f64;
    let avg = (lengths.iter().sum::<usize>() as f64 / n.max(1.0)).max(1.0);
    let idf: Vec<(&String, f64)> = query
        .iter()
        .map(|t| {
            let df = docs.iter().filter(|d| d.contains_key(t)).count() as f64;
            (t, ((n - df + 0.5) / (df + 0.5) + 1.0).ln())
        })
        .collect();
    let mut scores: Vec<(usize, f64)> = docs
        .iter()
        .zip(&lengths)
        .enumerate()
        .map(|(i, (doc, &len))| {
            let norm = BM25_K1 * (1.0 - BM25_B + BM25_B * len as f64 / avg);
            let score = idf
                .iter()
                .map(|(t, idf)| {
                    let tf = doc.get(*t).copied().unwrap_or(0) as f64;
                    idf * tf * (BM25_K1 + 1.0) / (tf + norm)
                })
                .sum();
            (i, score)
        })
        .collect();
    scores.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scores
}

/// Whether `a` and `b` are about the same thing: they share [`SHARED_TERMS`] content words (or
/// every one of the shorter's, when it has fewer), plurals and Japanese bigrams folded.
pub fn shares_content(a: &str, b: &str) -> bool {
    let (a, b) = (term_set(a), term_set(b));
    let need = SHARED_TERMS.min(a.len()).min(b.len());
    need > 0 && a.intersection(&b).count() >= need
}

// ---------------------------------------------------------------------------------------------
// Verification
// ---------------------------------------------------------------------------------------------

/// How far a quote supports a claim, checked without a model.
#[derive(Debug, Clone, PartialEq)]
pub struct Support {
    /// The share of the claim's content words found in the quote, 0 to 1.
    pub overlap: f64,
    /// Whether every number and date of the claim is in the quote.
    pub numbers_ok: bool,
    /// Whether the quote supports the claim: overlap of at least [`SUPPORT_OVERLAP`] (and at
    /// least [`SUPPORT_MIN_SHARED`] words), all numbers present, and a claim that is not
    /// degenerate.
    pub supported: bool,
    /// Why, in words.
    pub reason: String,
}

/// Whether `quote` supports `claim`, as a model cannot fake it: enough of the claim's content
/// words are in the quote ([`SUPPORT_OVERLAP`]) and every number and date the claim states is
/// in the quote ("1,000" = "1000", "3.5 million" = "3,500,000", "May 2023" = "2023-05",
/// fullwidth digits and "2023年" read as numbers; citation markers ignored).
pub fn supports(claim: &str, quote: &str) -> Support {
    let missing = missing_numbers(claim, quote);
    let numbers_ok = missing.is_empty();
    let (overlap, shared, total) = coverage(claim, quote);
    let degenerate_claim = degenerate(claim);
    let enough = overlap >= SUPPORT_OVERLAP && shared >= SUPPORT_MIN_SHARED;
    let supported = degenerate_claim.is_none() && numbers_ok && enough;
    let reason = if let Some(d) = degenerate_claim {
        format!("not supported: the claim is degenerate ({d})")
    } else if total < SUPPORT_MIN_SHARED {
        format!("not supported: the claim has only {total} content words")
    } else if !numbers_ok {
        format!(
            "not supported: the quote does not state {}",
            missing
                .iter()
                .map(|m| format!("\"{m}\""))
                .collect::<Vec<_>>()
                .join(", ")
        )
    } else if !enough {
        format!(
            "not supported: only {shared} of the claim's {total} content words ({:.0}%) are in \
             the quote",
            overlap * 100.0
        )
    } else {
        format!(
            "supported: {shared} of the claim's {total} content words ({:.0}%) are in the \
             quote, and every number it states",
            overlap * 100.0
        )
    };
    Support {
        overlap,
        numbers_ok,
        supported,
        reason,
    }
}
