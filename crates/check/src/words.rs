//! Words as the checks see them: tokens, stop words, stems, Japanese runs and bigrams, and the
//! content words every check compares.

use std::collections::HashSet;
use std::sync::LazyLock;

use unicode_segmentation::UnicodeSegmentation;

use crate::numbers::split_number;

// ---------------------------------------------------------------------------------------------
// Words
// ---------------------------------------------------------------------------------------------

/// English words that say nothing about the topic, including the filler of questions
/// ("explain", "tell", "please").
pub const STOP_WORDS: &str =
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
pub const DANGLING: &str =
    "a an and are as at between but by for from in into is its of on or our than that the their \
    this to via vs was were with your";

/// Questions that open with these end with a question mark when they are complete.
pub const INTERROGATIVE: &str =
    "are can could did do does has have how is should was were what when where which who whom \
    whose why will would";

/// Whether `word` is in the space-separated `list`.
pub fn listed(list: &str, word: &str) -> bool {
    list.split_whitespace().any(|w| w == word)
}

/// The English stop words as a set.
pub static STOP_SET: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| STOP_WORDS.split_whitespace().collect());

/// Whether `word` (lower-cased) is an English stop word.
pub fn stop_word(word: &str) -> bool {
    STOP_SET.contains(word)
}

/// Kanji that carry no topic on their own ("what", "etc.", "-ic", "thing", "for", "way",
/// "object").
pub const JA_STOP: &[&str] = &["何", "等", "的", "事", "為", "方", "物"];

/// Japanese particles a complete question or query does not end with.
/// ("とは" and "こと" end complete topics, so は and と are not here.)
pub const JA_DANGLING: &str = "の を に が へ や から まで より および について における";

/// Number words and their digits.
pub const NUMBER_WORDS: &[(&str, &str)] = &[
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
    ("twice", "2"),
    ("thrice", "3"),
];

/// Month names and abbreviations, read as numbers next to a number ("May 2023" = "2023-05").
pub const MONTHS: &[(&str, &str)] = &[
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
pub const MULTIPLIERS: &[(&str, usize)] = &[
    ("thousand", 3),
    ("million", 6),
    ("billion", 9),
    ("trillion", 12),
    ("千", 3),
    ("万", 4),
    ("億", 8),
    ("兆", 12),
    // Sizes: "32 KiB" is not "32 MiB" (a power of ten apart is enough to tell them apart, and
    // "32 KB" and "32 KiB" read the same).
    ("kb", 3),
    ("kib", 3),
    ("kilobytes", 3),
    ("mb", 6),
    ("mib", 6),
    ("megabytes", 6),
    ("gb", 9),
    ("gib", 9),
    ("gigabytes", 9),
    ("tb", 12),
    ("tib", 12),
    ("terabytes", 12),
];

/// Whether `c` is a kanji (Han ideograph, or the iteration marks 々 and 〆).
pub fn is_han(c: char) -> bool {
    matches!(c as u32, 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x3134F)
        || c == '々'
        || c == '〆'
}

/// Whether `c` is hiragana.
pub fn is_hiragana(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x309F)
}

/// Whether `c` is katakana (full or half width).
pub fn is_katakana(c: char) -> bool {
    matches!(c as u32, 0x30A0..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F)
}

/// Whether `c` is kanji or kana.
pub fn is_cjk(c: char) -> bool {
    is_han(c) || is_hiragana(c) || is_katakana(c)
}

/// How many kanji and kana characters `text` has.
pub fn cjk_chars(text: &str) -> usize {
    text.chars().filter(|&c| is_cjk(c)).count()
}

/// The ASCII digit of `c`, fullwidth digits included.
pub fn ascii_digit(c: char) -> Option<char> {
    match c {
        '0'..='9' => Some(c),
        '０'..='９' => char::from_u32(c as u32 - '０' as u32 + '0' as u32),
        _ => None,
    }
}

/// Whether `c` is a digit, ASCII or fullwidth.
pub fn is_digit(c: char) -> bool {
    ascii_digit(c).is_some()
}

/// The kind of a content word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
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
pub struct Token {
    /// The word as compared (lower-cased, or the run as written).
    pub text: String,
    /// What kind of word it is.
    pub kind: Kind,
    /// Its first byte in the citation-free text.
    pub start: usize,
    /// The byte after its end.
    pub end: usize,
}

/// Removes citation markers such as `[1]`, `[2, 3]` and `[4-6]`, which are not words.
pub fn without_citations(text: &str) -> String {
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
pub fn tokens(text: &str) -> Vec<Token> {
    tokens_keeping(text, false)
}

/// [`tokens`] of a question, where a stop word written in capitals is a name and kept
/// ("the difference between EXPLAIN and EXPLAIN ANALYZE", "what the WHO advises") — unless the
/// whole question is written in capitals: it shouts, and its capitals name nothing.
pub fn question_tokens(text: &str) -> Vec<Token> {
    tokens_keeping(text, !shouts(text))
}

/// Whether `text` is written in capitals (half its Latin letters or more are): its capitals
/// then name nothing, and a word of its phrasing written so is still phrasing.
pub fn shouts(text: &str) -> bool {
    let letters = text.chars().filter(|c| c.is_alphabetic() && c.is_ascii());
    let (upper, all) = letters.fold((0, 0), |(u, a), c| {
        (u + usize::from(c.is_uppercase()), a + 1)
    });
    upper * 2 >= all
}

/// Whether `word` is written in capitals: two letters or more, every one a capital.
pub fn in_capitals(word: &str) -> bool {
    word.chars().filter(|c| c.is_alphabetic()).count() >= 2
        && word.chars().all(|c| !c.is_alphabetic() || c.is_uppercase())
}

/// The content words of `text`, a stop word written in capitals kept when `capitals`.
fn tokens_keeping(text: &str, capitals: bool) -> Vec<Token> {
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
        } else if !((stop_word(&lower) && !(capitals && in_capitals(word)))
            || (lower.chars().count() == 1 && first.is_alphabetic()))
        {
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
/// `-ing`, `-er` and a final `e` are folded ("released", "releases", "release" → "releas"),
/// and the words one to twelve become digits.
pub fn stem(word: &str) -> String {
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
pub fn bigrams(run: &str) -> Vec<String> {
    let chars: Vec<char> = run.chars().collect();
    if chars.len() < 2 {
        return vec![run.to_string()];
    }
    chars.windows(2).map(|w| w.iter().collect()).collect()
}

/// Whether `s` has an English vowel (y included).
pub fn has_vowel(s: &str) -> bool {
    s.bytes().any(|b| b"aeiouy".contains(&b))
}

/// The terms under which texts are compared: stemmed words, canonical numbers, katakana words,
/// and kanji runs as bigrams (a single kanji as itself). Repeats are kept (for BM25).
pub fn terms(text: &str) -> Vec<String> {
    terms_by(text, stem)
}

/// The distinct [`terms`] of `text`.
pub fn term_set(text: &str) -> HashSet<String> {
    terms(text).into_iter().collect()
}

/// The terms under which a text is compared with a question to say what it is about: like
/// [`terms`], with English words cut to their Porter stems, which also fold derivations
/// ("communicate", "communication" → "commun"; "organise", "organised" → "organis"). Too coarse
/// for telling whether a sentence says what a claim says ([`terms`] is for that), right for
/// whether a passage is on a question, and the same stems the library's index matches by.
pub fn topic_terms(text: &str) -> Vec<String> {
    terms_by(text, topic_stem)
}

/// A word as [`topic_terms`] cuts it: Porter's stem (a number word as a number).
fn topic_stem(w: &str) -> String {
    thread_local! {
        static PORTER: rust_stemmers::Stemmer =
            rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English);
    }
    if NUMBER_WORDS.iter().any(|(n, _)| *n == w) {
        stem(w)
    } else {
        PORTER.with(|p| p.stem(w).into_owned())
    }
}

/// The [`topic_terms`] of a name a question writes ([`question_tokens`] found it): a stop word
/// written in capitals is one ("EXPLAIN").
pub fn name_terms(name: &str) -> HashSet<String> {
    terms_of(tokens_keeping(name, true), topic_stem)
        .into_iter()
        .collect()
}

/// The [`topic_terms`] of a text a question's names are looked for in, in order: a stop word
/// written in capitals kept, as in [`question_tokens`] ("EXPLAIN shows the plan").
pub fn terms_naming(text: &str) -> Vec<String> {
    terms_of(question_tokens(text), topic_stem)
}

/// The terms of `text`, its words cut by `stem_word` (numbers, katakana and kanji as in [`terms`]).
fn terms_by(text: &str, stem_word: impl Fn(&str) -> String) -> Vec<String> {
    terms_of(tokens(text), stem_word)
}

fn terms_of(tokens: Vec<Token>, stem_word: impl Fn(&str) -> String) -> Vec<String> {
    let mut out = Vec::new();
    for t in tokens {
        match t.kind {
            Kind::Word => out.push(stem_word(&t.text)),
            Kind::Number => out.extend(split_number(&t.text).into_iter().map(|(n, _)| n)),
            Kind::Katakana => out.push(t.text),
            Kind::Han => out.extend(bigrams(&t.text)),
        }
    }
    out
}

/// The distinct [`topic_terms`] of `text`.
pub fn topic_term_set(text: &str) -> HashSet<String> {
    topic_terms(text).into_iter().collect()
}

/// Words that belong to a number rather than to what is said ("3.5 million", "45 percent").
pub const NUMBER_UNITS: &str =
    "thousand thousands million millions billion billions trillion percent per cent 万 億 兆";

/// The terms compared for overlap between a claim and a quote: [`terms`] without numbers,
/// month names and number units, which [`missing_numbers`] checks in their own way (so
/// "3.5 million" and "3,500,000", or "March 4" and "03-04", do not count as different words).
pub fn word_terms(text: &str) -> HashSet<String> {
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
