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
//!   numbers are in the quote;
//! - [`banned_uses`] and [`rewrite_banned`]: the words a report may not use, rewritten away.
//!
//! All of them see text through [`content_words`]: lower-cased words without stop words, with
//! Japanese handled without spaces (runs of kanji and of katakana are words, kana-only tokens
//! such as particles are dropped, and kanji runs are compared by bigrams).
//!
//! The work is linear in the text (one pass of word segmentation and hashing), so checking a
//! 2,000-word report costs well under a millisecond in release builds.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};

use unicode_segmentation::UnicodeSegmentation;

use crate::text::{normalize, query_similarity, DUPLICATE_QUERY};

mod banned;
mod degenerate;
mod evidence;
mod plan;

pub use self::banned::*;
pub use self::degenerate::*;
pub use self::evidence::*;
pub use self::plan::*;
// Words and numbers are the checker's: the guard sees text as the citation checker does.
use research_check::numbers::*;
pub use research_check::words::*;

#[cfg(test)]
mod tests;

// ---------------------------------------------------------------------------------------------
// Thresholds
// ---------------------------------------------------------------------------------------------

/// Below this share of distinct four-word sequences a text is repetitive: 2,000-word stretches
/// of manual pages score 0.75 to 0.91 (paragraphs 0.58 and up), a report 1.0, and the loops a
/// tiny model writes 0.005 to 0.05.
pub const MIN_DISTINCT_4GRAMS: f64 = 0.5;

/// A text needs this many words before its four-word sequences say anything about repetition.
pub const MIN_WORDS_FOR_4GRAMS: usize = 24;

/// The stretch of words in which a local loop is looked for (a good report that ends in a loop).
pub const LOOP_WINDOW: usize = 100;

/// Below this share of distinct four-word sequences within one [`LOOP_WINDOW`] the stretch is a
/// loop: the least varied 100 words of five manual pages score 0.47 (bash's option lists) and
/// up, a phrase repeated for 100 words 0.04 to 0.13.
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
pub const QUESTION_MIN_WORDS: usize = 2;

/// …or this many CJK characters (Japanese has no spaces; "量子暗号" is already a topic).
pub const QUESTION_MIN_CJK: usize = 4;

/// Above this share of digits among letters and digits, text is numbers, not words.
pub const MAX_DIGIT_SHARE: f64 = 0.5;

/// A report section's heading (a plan's aspect) has at most this many words.
pub const ASPECT_MAX_WORDS: usize = 8;

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

/// A passage is about the same thing as a claim when it has this share of the claim's content
/// words: higher than [`SUPPORT_OVERLAP`], since the numbers are what differ.
pub const CONTRADICTION_OVERLAP: f64 = 0.75;

/// …and at least this many of them.
pub const CONTRADICTION_MIN_SHARED: usize = 3;

/// BM25 term-frequency saturation (the usual value).
pub const BM25_K1: f64 = 1.2;

/// BM25 length normalisation (the usual value).
pub const BM25_B: f64 = 0.75;

/// Two texts share content when they have this many content words in common (or all of the
/// shorter one's, when it has fewer).
pub const SHARED_TERMS: usize = 2;
