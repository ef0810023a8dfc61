//! Evidence: quotes that are statements, facts that say what their quotes say, candidates ranked
//! against the question (BM25), and support a model cannot fake.

#[allow(unused_imports)]
use super::*;

// ---------------------------------------------------------------------------------------------
// Facts and quotes
// ---------------------------------------------------------------------------------------------

/// Whether `line` ends like a sentence (after closing quotes and brackets).
pub(super) fn closes(line: &str) -> bool {
    line.trim_end_matches(['"', '\'', '”', '’', ')', ']', '」', '』', '*', '_'])
        .ends_with(['.', '!', '?', '。', '！', '？', '…'])
}

/// Whether `line` is code: many of `{}();=<>[]` and backticks, a prompt, or a statement end.
pub(super) fn code(line: &str) -> bool {
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
pub(super) fn metadata(line: &str) -> bool {
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
pub(super) fn heading(line: &str, words: usize) -> bool {
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

/// Whether a report's cited sentence says nothing a source could bear out, however many of its
/// words the source has: under three words, or a title or name (in capitals or Title Case, with
/// no sentence end) — "[1] (Mozilla Public License Version 2.0)".
pub fn no_claim(sentence: &str) -> bool {
    let unmarked = without_citations(strip_marker(sentence.trim()));
    let clean = unmarked
        .trim()
        .trim_matches(|c: char| "()[]\"'“”*_".contains(c))
        .trim();
    let words = clean
        .unicode_words()
        .filter(|w| w.chars().any(char::is_alphabetic))
        .count();
    if words < 3 && cjk_chars(clean) < STATEMENT_MIN_CJK {
        return true;
    }
    if closes(clean) || cjk_chars(clean) >= STATEMENT_MIN_CJK {
        return false;
    }
    let cased: Vec<char> = clean
        .chars()
        .filter(|c| c.is_lowercase() || c.is_uppercase())
        .collect();
    let capitals = cased.len() >= 4 && cased.iter().all(|c| c.is_uppercase());
    let long: Vec<&str> = clean
        .unicode_words()
        .filter(|w| w.chars().count() >= 4 && w.chars().all(char::is_alphabetic))
        .collect();
    let title = !long.is_empty() && long.iter().all(|w| w.starts_with(char::is_uppercase));
    capitals || title
}

/// Whether `quote` is a statement a fact can rest on: a sentence of at least
/// [`STATEMENT_MIN_WORDS`] words (or [`STATEMENT_MIN_CJK`] CJK characters) that is not a
/// heading or page title, not a bare list number or bullet, not code, not metadata (checksums,
/// commit and release-note lines, "Version 1.2", copyright, dates or URLs alone), and not
/// itself a loop. A table's row is a statement when two of its cells say something: read with
/// its header it states them ([`research_check::table`]).
pub fn statement(quote: &str) -> bool {
    let line = quote.trim();
    if line.is_empty() || line.starts_with('#') {
        return false;
    }
    if let Some(cells) = research_check::table::cells(line) {
        return research_check::table::says_something(&cells);
    }
    let body = strip_marker(line);
    let clean = without_citations(body);
    let clean = clean.trim();
    // Words with letters: "block size - 8" is three words and a number, not four words.
    let words = clean
        .unicode_words()
        .filter(|w| !w.chars().any(is_cjk) && w.chars().any(char::is_alphabetic))
        .count();
    let cjk = cjk_chars(clean);
    if words < STATEMENT_MIN_WORDS && cjk < STATEMENT_MIN_CJK {
        return false;
    }
    let unmarked = without_citations(line);
    if heading(unmarked.trim(), words)
        || dangling(clean)
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

/// Whether the text stops on a word that needs more after it ("…, which", "… and the"): a
/// fragment cut from a longer sentence, not a statement.
fn dangling(text: &str) -> bool {
    const OPEN_ENDED: &[&str] = &[
        "which", "whose", "and", "or", "but", "because", "the", "a", "an", "of",
    ];
    text.unicode_words()
        .next_back()
        .is_some_and(|w| OPEN_ENDED.contains(&w.to_lowercase().as_str()))
}

/// The share of `claim`'s distinct word terms found in `quote`, how many that is, and how many
/// the claim has.
pub(super) fn coverage(claim: &str, quote: &str) -> (f64, usize, usize) {
    let c = word_terms(claim);
    if c.is_empty() {
        return (0.0, 0, 0);
    }
    let q = word_terms(quote);
    let shared = c.intersection(&q).count();
    (shared as f64 / c.len() as f64, shared, c.len())
}

/// Whether `fact` says what `quote` says: it is not degenerate, every number in it is in the
/// quote, and it is a span of the quote, or it shares at least [`FACT_OVERLAP`] of its content
/// words (and at least [`FACT_MIN_SHARED`]) with the quote and the citation checker, reading
/// the quote alone, would keep it in a report ([`research_check::Verdict::kept`]). Shared stems alone let a made-up fact stand beside a quote that
/// uses its words in other senses ("a single-threaded database … faster" beside a passage on a
/// server's "single … process" and concurrency).
pub fn fact_matches_quote(fact: &str, quote: &str) -> bool {
    if degenerate(fact).is_some() || !missing_numbers(fact, quote).is_empty() {
        return false;
    }
    let (share, shared, total) = coverage(fact, quote);
    let f = normalize(&without_citations(fact));
    if total >= FACT_MIN_SHARED && f.split(' ').count() >= 3 && normalize(quote).contains(&f) {
        return true;
    }
    shared >= FACT_MIN_SHARED && share >= FACT_OVERLAP && {
        let cited = [research_check::Passage {
            source: 1,
            text: quote,
        }];
        research_check::check(fact, &cited, &research_check::SourceTexts::new()).kept()
    }
}

// ---------------------------------------------------------------------------------------------
// Relevance
// ---------------------------------------------------------------------------------------------

/// Every sentence's BM25 score against `query`'s content words (their [`topic_terms`], a stop
/// word written in capitals kept as the name it is: [`terms_naming`]) ([`BM25_K1`], [`BM25_B`]), the
/// given sentences being the corpus, best first and ties by index; sentences that share
/// nothing with the query score 0 and come last.
pub fn rank_sentences(query: &str, sentences: &[&str]) -> Vec<(usize, f64)> {
    // "EXPLAIN" in "the difference between EXPLAIN and EXPLAIN ANALYZE" is the command, and
    // "EXPLAIN shows the plan" names it; "we explain" does not.
    let query: HashSet<String> = terms_naming(query).into_iter().collect();
    let docs: Vec<HashMap<String, usize>> = sentences
        .iter()
        .map(|s| {
            let mut tf: HashMap<String, usize> = HashMap::new();
            for t in terms_naming(s) {
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

/// Pronouns that point back at something said before: a sentence opening with one leans on
/// the sentence before it, and a question using one leans on the session's earlier turns.
pub const POINTS_BACK: &[&str] = &[
    "it", "it's", "its", "this", "that", "these", "those", "they", "their", "theirs", "them", "he",
    "she", "his", "her",
];

/// Whether `word` (lower case) points back: one of [`POINTS_BACK`] or of the caller's `also`.
pub fn points_back(word: &str, also: &[&str]) -> bool {
    POINTS_BACK.contains(&word) || also.contains(&word)
}

/// Words besides [`POINTS_BACK`] that open a sentence leaning on the one before ("Such a file…",
/// "Both are…", "However, …", "But with SQLite, …", "Nevertheless, …"; この, その, しかし):
/// without that one it points at nothing, or turns on what it does not say.
const LEANS_ON: &[&str] = &[
    "such",
    "both",
    "thus",
    "therefore",
    "hence",
    "however",
    "also",
    "but",
    "yet",
    "nevertheless",
    "nonetheless",
    "moreover",
    "furthermore",
    "instead",
    "otherwise",
    "consequently",
    "accordingly",
    "この",
    "その",
    "これ",
    "それ",
    "また",
    "しかし",
    "ただし",
];

/// Phrases that point back from inside a sentence ("SQLite does not work this way", "… is often
/// faster in this scenario"): what they point at is in the sentence before.
const POINTS_BACK_WITHIN: &[&str] = &[
    "this way",
    "that way",
    "in this case",
    "in that case",
    "in these cases",
    "in such cases",
    "in such a case",
    "in this scenario",
    "in that scenario",
    "in this situation",
    "the above",
];

/// Whether `sentence` leans on the sentence before it: it opens so ([`POINTS_BACK`], the
/// connectives of [`LEANS_ON`]) or points back from within ([`POINTS_BACK_WITHIN`]). The audit
/// keeps the sentence such a one leans on, extraction quotes it with the sentence before, and
/// an extractive abstract never quotes it alone.
pub fn leans_on_previous(sentence: &str) -> bool {
    let text = sentence.trim_start_matches(|c: char| !c.is_alphanumeric());
    let first = text
        .split_word_bounds()
        .find(|w| w.chars().any(char::is_alphanumeric))
        .unwrap_or("")
        .replace('\u{2019}', "'")
        .to_lowercase();
    points_back(&first, LEANS_ON)
        || LEANS_ON
            .iter()
            .any(|w| !w.is_ascii() && text.starts_with(w))
        || {
            // Read whole only when the opening did not decide.
            let words = format!(" {} ", normalize(text));
            POINTS_BACK_WITHIN
                .iter()
                .any(|p| words.contains(&format!(" {p} ")))
        }
}

/// Whether `text` mentions the topic at all: one content word in common, compared by their
/// [`topic_terms`] (stems, Japanese bigrams). The bar for a quote to be on topic; [`shares_content`] is the bar for
/// evidence to answer a question.
pub fn mentions(topic: &str, text: &str) -> bool {
    let (a, b) = (topic_term_set(topic), topic_term_set(text));
    a.intersection(&b).next().is_some()
}

/// Whether `b` is about topic `a`: they share [`SHARED_TERMS`] content words, or half of `a`'s
/// when it has fewer than four ("What does Cachegrind measure?" needs one of its two, not a
/// sentence that says both), plurals and Japanese bigrams folded.
pub fn shares_content(a: &str, b: &str) -> bool {
    let (a, b) = (topic_term_set(a), topic_term_set(b));
    let need = SHARED_TERMS.min(a.len().div_ceil(2)).min(b.len());
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

// ---------------------------------------------------------------------------------------------
// Cross-validation
// ---------------------------------------------------------------------------------------------

/// The terms a claim and a passage are compared by (content words, stemmed, without numbers):
/// computed once per sentence of a source when many claims are looked for in it.
pub fn claim_terms(text: &str) -> HashSet<String> {
    word_terms(text)
}

/// The numbers `passage` states in disagreement with `claim`, when it is about the same thing:
/// at least [`CONTRADICTION_OVERLAP`] of the claim's content words (and
/// [`CONTRADICTION_MIN_SHARED`]) are in the passage, the claim states a number the passage does
/// not, and the passage states one the claim does not ("50,000 workers" against "20,000
/// workers"; with two numbers or more, one of them agreeing). `None` when they do not disagree.
pub fn disagrees(claim: &str, passage: &str) -> Option<Vec<String>> {
    let (share, shared, _) = coverage(claim, passage);
    if share < CONTRADICTION_OVERLAP || shared < CONTRADICTION_MIN_SHARED {
        return None;
    }
    if missing_numbers(claim, passage).is_empty() {
        return None;
    }
    // With two numbers or more, one must agree: it anchors the subject ("town 2 handles 1,074
    // ships" against "town 2 handles 1,574"), where none agreeing is another subject ("town 3
    // handles 1,111 ships").
    let (mine, theirs) = (number_forms(claim), number_forms(passage));
    let required = numbers(claim).iter().filter(|n| n.required).count();
    if required >= 2 && mine.intersection(&theirs).next().is_none() {
        return None;
    }
    let other = missing_numbers(passage, claim);
    (!other.is_empty()).then_some(other)
}
