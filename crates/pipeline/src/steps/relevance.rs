//! Relevance to the question, whatever the model writes: the question's own terms are always
//! searched; a model's search or research question that echoes its prompt or schema, answers
//! instead of asking, or shares no word with the question is refused (and the run says why);
//! hits from every search are merged and ranked against the question before the source cap
//! picks what to read; the next round's searches can come from the best passages read
//! (pseudo-relevance feedback, no model); and only evidence on the question may be cited.
//!
//! Everything here is a pure function of text, ranked by the guard's BM25 and compared by its
//! content words ([`guard::rank_sentences`], [`guard::mentions`], [`guard::shares_content`]),
//! so a weak model's plan can add to the research but not send it elsewhere.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use research_search::Hit;
use unicode_segmentation::UnicodeSegmentation;

use crate::ask::{warn, Ctx};
use crate::guard;
use crate::records::{Evidence, RankedHit, Warning, WarningKind};

/// Searches made from the question's own terms that open every plan, before the model's.
pub const QUESTION_SEARCHES: usize = 1;

/// An extractive report gives a passage when it scores at least this share of the best
/// passage's score against the question (or a research question): the tail of passages that
/// share one common word ("write" in "read and write any schema format") is left out.
pub const BEST_FLOOR: f64 = 0.15;

/// Share of a key's words a passage that ranks under [`BEST_FLOOR`] still needs to be listed.
pub const BEST_COVERAGE: f64 = 0.34;

/// Passages read that the next round's searches are drawn from (pseudo-relevance feedback).
pub const FEEDBACK_PASSAGES: usize = 3;

/// Distinctive terms of the best passages added to the question's in a feedback search.
pub const FEEDBACK_TERMS: usize = 3;

/// Words a model is told in its prompts and schemas (field names, instruction words): a
/// search or research question made of nothing else echoes them.
const TOLD_WORDS: &str = "question questions research aspect aspects search searches query \
    queries keyword keywords web coverage covered well_covered partial missing gap gaps \
    new_searches fact facts sentence sentences end_sentence interpretation status schema json \
    object array string items properties required type title description assistant user system \
    prompt answer plan planout gapsout extractout evidence report number numbers text source \
    sources focused good short different project";

/// Labels of the prompt's own blocks, which a model sometimes writes back as a line.
const PROMPT_LABELS: &[&str] = &[
    "research question:",
    "research questions:",
    "clarification:",
    "search:",
    "text:",
    "question:",
    "questions:",
    "aspects:",
    "searches:",
    "evidence:",
];

/// Labels an answer opens with.
const ANSWER_LABELS: &[&str] = &["a:", "answer:", "response:", "a.", "ans:"];

/// Words a research question may open with when it does not end in a question mark: it asks
/// or tells the researcher what to find.
const ASKING_WORDS: &str = "what what's when where which who whom whose why how is are was were \
    do does did can could should would will has have had compare describe explain list identify \
    find determine evaluate assess analyse analyze investigate examine outline summarise \
    summarize show give discuss define";

/// The searches made from `query`'s own terms (stop words out, phrases kept, Japanese runs
/// joined): the first [`QUESTION_SEARCHES`] of the question's fallback plan.
pub fn question_searches(query: &str, max_searches: usize) -> Vec<String> {
    guard::fallback_plan(query, max_searches.max(QUESTION_SEARCHES))
        .1
        .into_iter()
        .take(max_searches.min(QUESTION_SEARCHES))
        .collect()
}

/// The lower-cased label `text` opens with, when it is one of `labels`.
fn opens_with<'a>(text: &str, labels: &[&'a str]) -> Option<&'a str> {
    let lower = text.trim_start().to_lowercase();
    labels.iter().copied().find(|l| lower.starts_with(l))
}

/// Why `text` echoes what the model was told rather than being about the question: an
/// address, a file path or a JSON-schema URL; a label of the prompt's blocks; or nothing but
/// words of its prompt and schema (field names, instruction words) that the question does not
/// use. `question` is what the person asked.
fn echo(text: &str, question: &str) -> Option<String> {
    let t = text.trim();
    if t.contains("://") || t.contains("www.") {
        return Some("it is an address, not words about the question".into());
    }
    let path = t.split_whitespace().any(|w| {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric());
        (w.contains('/') || w.contains('\\'))
            && (w.contains('.') || w.contains(':'))
            && !w.contains("//")
    }) || t.split_whitespace().any(|w| {
        let w = w.to_lowercase();
        w.ends_with(".json") || w.ends_with(".yaml") || w.ends_with(".toml")
    });
    if path {
        return Some("it is a file path, not words about the question".into());
    }
    if let Some(label) = opens_with(t, PROMPT_LABELS) {
        let question_says = question
            .to_lowercase()
            .contains(label.trim_end_matches(':'));
        if !question_says {
            return Some(format!("it echoes the prompt's label \"{label}\""));
        }
    }
    let words = guard::content_words(t);
    if words.is_empty() {
        return None;
    }
    let told: BTreeSet<&str> = TOLD_WORDS.split_whitespace().collect();
    let own: BTreeSet<String> = guard::content_words(question).into_iter().collect();
    let folded = |w: &str| {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '_');
        told.contains(w) || told.contains(w.trim_end_matches('s'))
    };
    let all_told = words.iter().all(|w| folded(w));
    let none_asked = !words.iter().any(|w| own.contains(w));
    (all_told && none_asked).then(|| {
        format!(
            "it echoes the prompt's or schema's own words ({})",
            words.join(", ")
        )
    })
}

/// Why aspect `aspect` (a section heading) is refused: it echoes the prompt or the schema
/// ("Aspects", "Coverage", a file path). It need not share a word with the question: a report
/// on Rust's memory has a section on borrowing.
pub fn refuse_aspect(aspect: &str, question: &str) -> Option<String> {
    echo(aspect, question)
}

/// Whether `text` opens by asking: an interrogative or a word that tells the researcher what
/// to find, in English; a Japanese question word anywhere.
fn asks(text: &str) -> bool {
    let first = text
        .unicode_words()
        .next()
        .map(str::to_lowercase)
        .unwrap_or_default();
    if ASKING_WORDS.split_whitespace().any(|w| w == first) {
        return true;
    }
    [
        "何", "どう", "なぜ", "どの", "どれ", "いつ", "どこ", "誰", "違い", "とは", "か",
    ]
    .iter()
    .any(|w| text.contains(w))
}

/// Why research question `q` is refused, or `None` when it may be researched: it echoes the
/// prompt or schema, is an answer or a statement rather than a question ("A: 1. It uses a
/// single-threaded database…"), or shares no content word with `anchors` (the question, the
/// session's focus).
pub fn refuse_question(q: &str, question: &str, anchors: &str) -> Option<String> {
    if let Some(why) = echo(q, question) {
        return Some(why);
    }
    let t = q.trim();
    if let Some(label) = opens_with(t, ANSWER_LABELS) {
        return Some(format!(
            "it is an answer (\"{}\"), not a question",
            label.trim_end_matches([':', '.'])
        ));
    }
    let end = t
        .trim_end_matches(['"', '\'', '”', '’', ')', '」', '』', '*'])
        .chars()
        .last()
        .unwrap_or(' ');
    // A question ends in a question mark or opens by asking ("Explain how…"); anything else
    // is a statement, with or without its full stop ("The track-origin options allow you to
    // specify a custom tracking logic, which…" widened what counted as on the question).
    if !matches!(end, '?' | '？') && !asks(t) {
        return Some("it is a statement, not a question".into());
    }
    if !guard::mentions(anchors, t) {
        return Some("it shares no word with the question".into());
    }
    None
}

/// Why search `q` is refused, or `None` when it may run: it echoes the prompt or schema, is an
/// answer or a sentence rather than keywords, or shares no content word with `anchors` (the
/// question, the session's focus, the passages read so far).
pub fn refuse_search(q: &str, question: &str, anchors: &str) -> Option<String> {
    if let Some(why) = echo(q, question) {
        return Some(why);
    }
    let t = q.trim();
    if opens_with(t, ANSWER_LABELS).is_some() {
        return Some("it is an answer, not a search".into());
    }
    let sentence = t.ends_with(['.', '。', '!', '！']) && guard::word_count(t) >= 5;
    if sentence {
        return Some("it is a sentence, not a search".into());
    }
    if !guard::mentions(anchors, t) {
        return Some("it shares no word with the question or a passage read".into());
    }
    None
}

/// The warning that records a refusal: `what` (a search, a research question) was refused,
/// with why, for `research run --json` and the report's method section.
pub fn refused(ctx: &Ctx, what: &str, text: &str, why: &str) -> Warning {
    let text: String = text.trim().chars().take(160).collect();
    Warning {
        kind: WarningKind::Refused,
        detail: why.to_string(),
        ..warn(ctx, format!("refused the {what} \"{text}\": {why}"))
    }
}

/// What a hit is ranked by: its title, its snippet and the words of its address (a library
/// path names the page: `atomiccommit.html`, `gimp-tool-fuzzy-select.html`).
fn hit_text(hit: &Hit) -> String {
    let tail = hit
        .url
        .rsplit('/')
        .next()
        .unwrap_or_default()
        .split(['.', '-', '_'])
        .collect::<Vec<_>>()
        .join(" ");
    format!("{} {} {tail}", hit.title, hit.snippet)
}

/// Every search's hits merged, one row per address (the first search to find it), ranked by
/// BM25 against `key` (the question and its research questions): best first, ties in the
/// searches' own order taken round by round (each search's first hit, then each one's second…).
/// Returns, for each row, the index of its search and the hit.
pub fn merge_hits(key: &str, searches: &[Vec<Hit>]) -> Vec<(usize, Hit, f64)> {
    let mut rows: Vec<(usize, usize, Hit)> = Vec::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for (s, hits) in searches.iter().enumerate() {
        for (pos, hit) in hits.iter().enumerate() {
            if seen.insert(hit.url.clone()) {
                rows.push((s, pos, hit.clone()));
            }
        }
    }
    let texts: Vec<String> = rows.iter().map(|(_, _, h)| hit_text(h)).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let scores: HashMap<usize, f64> = guard::rank_sentences(key, &refs).into_iter().collect();
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&a, &b| {
        let (sa, sb) = (scores[&a], scores[&b]);
        sb.total_cmp(&sa)
            .then(rows[a].1.cmp(&rows[b].1))
            .then(rows[a].0.cmp(&rows[b].0))
    });
    let mut rows: Vec<Option<(usize, usize, Hit)>> = rows.into_iter().map(Some).collect();
    order
        .into_iter()
        .filter_map(|i| {
            let (s, _, hit) = rows[i].take()?;
            Some((s, hit, scores[&i]))
        })
        .collect()
}

/// The merged hits as the run's record.
pub fn ranked_record(
    round: u32,
    merged: &[(usize, Hit, f64)],
    queries: &[String],
    picked: &BTreeSet<String>,
) -> Vec<RankedHit> {
    merged
        .iter()
        .enumerate()
        .map(|(i, (s, hit, score))| RankedHit {
            round,
            rank: i + 1,
            url: hit.url.clone(),
            title: hit.title.clone(),
            query: queries.get(*s).cloned().unwrap_or_default(),
            score: (score * 1000.0).round() / 1000.0,
            picked: picked.contains(&hit.url),
        })
        .collect()
}

/// The words of research question `q` that say what it asks: without the words of the
/// model's prompt and schema ("The answer to this question is: …") that `topic` does not use,
/// so a passage saying "to answer this question quickly" is not on it.
fn asked_words(q: &str, topic: &str) -> String {
    let told: BTreeSet<&str> = TOLD_WORDS.split_whitespace().collect();
    let own = guard::topic_term_set(topic);
    q.unicode_words()
        .filter(|w| {
            let lower = w.to_lowercase();
            !told.contains(lower.as_str()) || guard::topic_term_set(&lower).is_subset(&own)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// What evidence must be about to be cited: the question (with its clarification and the
/// session's focus) or one of its accepted research questions.
#[derive(Debug, Clone)]
pub struct Gate {
    topic: String,
    questions: Vec<String>,
    focus: String,
}

impl Gate {
    /// The gate for `topic` ([`Brief::topic`](super::Brief::topic)) and the plan's accepted
    /// research questions.
    pub fn new(topic: &str, questions: &[String]) -> Self {
        Self {
            topic: topic.to_string(),
            questions: questions.iter().map(|q| asked_words(q, topic)).collect(),
            focus: String::new(),
        }
    }

    /// The gate of a follow-up in a session about `focus`: its evidence must also come from a
    /// page that speaks of the session's subject ("And how do they find water?" after a run on
    /// honeybees is not answered by a sourdough recipe's "flour and water").
    pub fn within(mut self, focus: &[String]) -> Self {
        self.focus = focus.join(" ");
        self
    }

    /// Whether a passage is plainly on the question: it shares the question's content words
    /// ([`guard::shares_content`]: two, or half of a short question's) or a research
    /// question's.
    pub fn on_question(&self, quote: &str) -> bool {
        guard::shares_content(&self.topic, quote)
            || self
                .questions
                .iter()
                .any(|q| guard::shares_content(q, quote))
    }

    /// The evidence on the question, in order: the passages plainly on it, and those of the
    /// same pages that share at least a word with the question or a research question (a page
    /// about the question says more than its sentences repeat of it). A passage that shares
    /// nothing is never on it; one that shares a single word the whole corpus uses ("SQLite"
    /// in SQLite's manual) is not, unless its page is about the question.
    pub fn citable(&self, evidence: &[Evidence]) -> Vec<Evidence> {
        let plainly: Vec<bool> = evidence
            .iter()
            .map(|e| self.on_question(&e.quote))
            .collect();
        let pages: BTreeSet<u32> = evidence
            .iter()
            .zip(&plainly)
            .filter(|(_, on)| **on)
            .map(|(e, _)| e.source_id)
            .collect();
        let asked = format!("{} {}", self.topic, self.questions.join(" "));
        // Pages that speak of the session's subject, for a follow-up (every page otherwise).
        let on_subject: Option<BTreeSet<u32>> = (!self.focus.trim().is_empty()).then(|| {
            evidence
                .iter()
                .filter(|e| guard::mentions(&self.focus, &e.quote))
                .map(|e| e.source_id)
                .collect()
        });
        evidence
            .iter()
            .zip(plainly)
            .filter(|(e, on)| {
                *on || (pages.contains(&e.source_id) && guard::mentions(&asked, &e.quote))
            })
            .filter(|(e, _)| on_subject.as_ref().is_none_or(|p| p.contains(&e.source_id)))
            .map(|(e, _)| e.clone())
            .collect()
    }

    /// Up to `max` passages ranked highest against the question and against each research
    /// question in turn (the question's best, the first research question's best, …, then
    /// each one's second best), each once: what an extractive report gives.
    /// (A passage that ends in a colon only leads in to a list it does not hold — "The following
    /// commands are available:" — and says nothing on its own: it is never one of the best.)
    pub fn best(&self, evidence: &[Evidence], max: usize) -> Vec<Evidence> {
        let quotes: Vec<&str> = evidence.iter().map(|e| e.quote.as_str()).collect();
        let keys: Vec<&str> = std::iter::once(self.topic.as_str())
            .chain(self.questions.iter().map(String::as_str))
            .collect();
        let rankings: Vec<Vec<usize>> = keys
            .iter()
            .map(|k| {
                let ranked = guard::rank_sentences(k, &quotes);
                let top = ranked.first().map_or(0.0, |(_, s)| *s);
                // A word every passage shares weighs nearly nothing in the ranking, yet it is the
                // subject ("vacuum" in every passage on VACUUM): a passage with a third of the
                // key's words stays however far below the best it ranks.
                let key = guard::topic_term_set(k);
                let covers = |i: usize| {
                    let q = guard::topic_term_set(quotes[i]);
                    !key.is_empty()
                        && key.intersection(&q).count() as f64 / key.len() as f64 >= BEST_COVERAGE
                };
                ranked
                    .into_iter()
                    .filter(|&(i, s)| s > 0.0 && (s >= top * BEST_FLOOR || covers(i)))
                    .map(|(i, _)| i)
                    .collect()
            })
            .collect();
        let mut out: Vec<Evidence> = Vec::new();
        let mut taken: BTreeSet<usize> = BTreeSet::new();
        let mut quotes_taken: BTreeSet<String> = BTreeSet::new();
        let mut depth = 0;
        while out.len() < max && rankings.iter().any(|r| depth < r.len()) {
            for r in &rankings {
                if let Some(&i) = r.get(depth) {
                    if out.len() < max
                        && taken.insert(i)
                        && !leads_in(&evidence[i].quote)
                        && quotes_taken.insert(crate::text::normalize(&evidence[i].quote))
                    {
                        out.push(evidence[i].clone());
                    }
                }
            }
            depth += 1;
        }
        out
    }
}

/// Searches for the next round drawn from the best passages read so far, without a model
/// (pseudo-relevance feedback): the titles of the sources of the [`FEEDBACK_PASSAGES`] passages
/// ranked highest against `topic`, and the question's terms with the [`FEEDBACK_TERMS`] terms
/// most distinctive of those passages (frequent in them, rare in the rest of what was read).
/// `titles` gives each source's title by its id. None repeats a search in `done`.
pub fn feedback_searches(
    topic: &str,
    evidence: &[Evidence],
    titles: &BTreeMap<u32, String>,
    done: &[String],
    max: usize,
) -> Vec<String> {
    if evidence.is_empty() || max == 0 {
        return Vec::new();
    }
    let quotes: Vec<&str> = evidence.iter().map(|e| e.quote.as_str()).collect();
    // The best passages on the question: what the next pages should be like.
    let best: Vec<usize> = guard::rank_sentences(topic, &quotes)
        .into_iter()
        .filter(|&(i, s)| s > 0.0 && guard::shares_content(topic, quotes[i]))
        .take(FEEDBACK_PASSAGES)
        .map(|(i, _)| i)
        .collect();
    if best.is_empty() {
        return Vec::new();
    }
    let own: BTreeSet<String> = guard::content_words(topic).into_iter().collect();
    // Document frequency over the other passages read, term frequency over the best ones.
    let mut df: HashMap<String, usize> = HashMap::new();
    for (i, q) in quotes.iter().enumerate() {
        if best.contains(&i) {
            continue;
        }
        let words: BTreeSet<String> = guard::content_words(q).into_iter().collect();
        for w in words {
            *df.entry(w).or_default() += 1;
        }
    }
    let mut tf: HashMap<String, usize> = HashMap::new();
    let mut in_best: BTreeSet<String> = BTreeSet::new();
    for &i in &best {
        for w in guard::content_words(quotes[i]) {
            in_best.insert(w.clone());
            let useful = !own.contains(&w)
                && (w.chars().count() >= 4 || w.chars().any(|c| c as u32 >= 0x2E80))
                && !w.chars().next().is_some_and(|c| c.is_ascii_digit());
            if useful {
                *tf.entry(w).or_default() += 1;
            }
        }
    }
    let rest = (quotes.len() - best.len()) as f64;
    let mut scored: Vec<(f64, String)> = tf
        .into_iter()
        .map(|(w, f)| {
            let d = df.get(&w).copied().unwrap_or(0) as f64;
            (f as f64 * ((rest + 1.0) / (d + 0.5)).ln().max(0.1), w)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    // The question's words the best passages use, in the question's order: the anchor.
    let head: Vec<String> = guard::content_words(topic)
        .into_iter()
        .filter(|w| in_best.contains(w))
        .take(3)
        .collect();
    let mut candidates: Vec<String> = Vec::new();
    let terms: Vec<String> = scored
        .into_iter()
        .take(FEEDBACK_TERMS)
        .map(|(_, w)| w)
        .collect();
    if !terms.is_empty() {
        candidates.push(
            head.iter()
                .chain(terms.iter())
                .cloned()
                .collect::<Vec<_>>()
                .join(" "),
        );
    }
    for &i in &best {
        if let Some(title) = titles.get(&evidence[i].source_id) {
            let title: String = guard::content_words(title).join(" ");
            if !title.is_empty() {
                candidates.push(title);
            }
        }
    }
    let candidates = candidates
        .into_iter()
        .filter(|c| guard::usable_search(c))
        .collect();
    super::distinct_searches(candidates, done, max)
}

/// Whether `quote` only leads in to what follows it (it ends in a colon).
fn leads_in(quote: &str) -> bool {
    let q = quote.trim_end();
    q.ends_with(':') || q.ends_with('：')
}

#[cfg(test)]
mod tests {
    use super::*;

    const Q: &str =
        "How does SQLite make sure a transaction is atomic when the power fails in the middle of a commit?";

    #[test]
    fn echoes_of_the_schema_and_prompt_are_refused_as_searches() {
        for echo in [
            "Questions",
            "Aspects",
            "searches",
            "Coverage",
            "research questions",
            "https://json-schema.org/draft/2020-12/Coverage",
            "aspects/scopes.json:https://example.org/x",
            "Research question: transaction power failure",
        ] {
            let why = refuse_search(echo, Q, Q);
            assert!(why.is_some(), "{echo} was not refused");
        }
        assert_eq!(refuse_search("sqlite atomic commit", Q, Q), None);
        assert_eq!(refuse_search("rollback journal power loss", Q, Q), None);
        // A search with nothing of the question, but with a word of a passage read, is fine.
        assert_eq!(
            refuse_search("rollback journal", Q, &format!("{Q} the rollback journal")),
            None
        );
        assert!(refuse_search(
            "make utility archive files",
            "Why do ferns curl?",
            "Why do ferns curl?"
        )
        .is_some());
    }

    #[test]
    fn answers_and_statements_are_refused_as_research_questions() {
        let answer =
            "A: 1. It uses a single-threaded database, which allows for faster data processing.";
        let why = refuse_question(answer, Q, Q).unwrap();
        assert!(why.contains("answer"), "{why}");
        let statement = "SQLite transactions are atomic even on power failure.";
        assert!(refuse_question(statement, Q, Q)
            .unwrap()
            .contains("statement"));
        assert!(refuse_question("aspects/scopes.json:https://x.org/a", Q, Q).is_some());
        let unstopped = "The track-origin options allow you to specify a custom tracking logic";
        assert!(
            refuse_question(unstopped, "What does --track-origins do?", "track origins")
                .unwrap()
                .contains("statement")
        );
        assert_eq!(
            refuse_question("SQLite atomic commit after a power failure?", Q, Q),
            None
        );
        assert!(refuse_question("What does the archive utility do?", Q, Q)
            .unwrap()
            .contains("no word"));
        assert_eq!(
            refuse_question("How does the rollback journal keep a commit atomic?", Q, Q),
            None
        );
        assert_eq!(
            refuse_question("Explain how SQLite recovers after a power failure.", Q, Q),
            None
        );
        // Japanese: a question about the two tools is kept, a statement is not.
        let ja = "ファジー選択ツールと色域選択ツールの違いは何ですか？";
        assert_eq!(
            refuse_question("ファジー選択ツールの使い方は？", ja, ja),
            None
        );
        assert!(refuse_question("これはとても良いツールです。", ja, ja).is_some());
    }

    #[test]
    fn the_question_is_searched_by_its_own_terms_in_its_own_language() {
        let s = question_searches(Q, 3);
        assert_eq!(s.len(), 1);
        assert!(s[0].contains("sqlite") && s[0].contains("atomic"), "{s:?}");
        let ja = question_searches("ファジー選択ツールと色域選択ツールの違いは何ですか？", 3);
        assert!(
            ja[0].contains("ファジー") && ja[0].contains("色域"),
            "{ja:?}"
        );
    }

    fn hit(url: &str, title: &str, snippet: &str) -> Hit {
        Hit {
            title: title.into(),
            url: url.into(),
            snippet: snippet.into(),
            published: None,
            kind: research_search::HitKind::Web,
            provider: "test".into(),
        }
    }

    #[test]
    fn hits_of_every_search_are_merged_and_ranked_against_the_question() {
        let echo = vec![
            hit(
                "file:///doc/assert.html",
                "The assert() Macro",
                "SQLite uses assert()",
            ),
            hit(
                "file:///doc/bindptr.html",
                "Pointer Passing Interfaces",
                "pointers",
            ),
        ];
        let question =
            vec![
            hit("file:///doc/lang.html", "Query Language", "SQL as understood by SQLite"),
            hit(
                "file:///doc/atomiccommit.html",
                "Atomic Commit In SQLite",
                "a transaction is atomic even if a power failure occurs in the middle of a commit",
            ),
            hit("file:///doc/assert.html", "The assert() Macro", "SQLite uses assert()"),
        ];
        let merged = merge_hits(Q, &[echo, question]);
        assert_eq!(merged.len(), 4, "one row per address");
        assert_eq!(merged[0].1.url, "file:///doc/atomiccommit.html");
        assert_eq!(merged[0].0, 1, "found by the second search");
        // The row of a page two searches found belongs to the first.
        let assert_row = merged
            .iter()
            .find(|r| r.1.url.ends_with("assert.html"))
            .unwrap();
        assert_eq!(assert_row.0, 0);
        // Ties keep the searches' own order, round by round.
        let ties = merge_hits(
            "zebra",
            &[
                vec![hit("a", "a", ""), hit("b", "b", "")],
                vec![hit("c", "c", "")],
            ],
        );
        let urls: Vec<&str> = ties.iter().map(|r| r.1.url.as_str()).collect();
        assert_eq!(urls, vec!["a", "c", "b"]);
    }

    fn ev(id: u32, source_id: u32, quote: &str) -> Evidence {
        Evidence {
            id,
            source_id,
            source_url: format!("file:///doc/{source_id}.html"),
            fact: quote.into(),
            quote: quote.into(),
            question: None,
            query: String::new(),
        }
    }

    #[test]
    fn only_evidence_on_the_question_is_citable_and_the_best_comes_first() {
        let gate = Gate::new(
            Q,
            &["What does the rollback journal hold during a commit?".into()],
        );
        let evidence = vec![
            ev(1, 1, "SQLite uses assert() macros to check its own internal state during testing."),
            ev(2, 2, "The make utility builds the amalgamation from the source tree."),
            ev(3, 3, "An atomic commit means the transaction either happens completely or not at all, even after a power failure."),
            ev(4, 3, "The rollback journal holds the original content of every page the commit changes."),
        ];
        let citable = gate.citable(&evidence);
        let ids: Vec<u32> = citable.iter().map(|e| e.id).collect();
        assert_eq!(ids, vec![3, 4]);
        // A passage sharing one word is on the question when its page is about it.
        let mut more = evidence.clone();
        more.push(ev(
            5,
            3,
            "SQLite syncs the journal to disk before it overwrites the database.",
        ));
        more.push(ev(
            6,
            1,
            "SQLite syncs the journal to disk before it overwrites the database.",
        ));
        let ids: Vec<u32> = gate.citable(&more).iter().map(|e| e.id).collect();
        assert_eq!(ids, vec![3, 4, 5]);
        // A research question's words from the prompt do not make a passage on it.
        let told = Gate::new(
            "How do tomato plants survive a hot and dry summer?",
            &["The answer to this question is: How do tomato plants survive a heatwave?".into()],
        );
        let wal = ev(
            7,
            4,
            "The purpose of the wal-index is to answer this question quickly:",
        );
        assert!(told.citable(&[wal]).is_empty());
        // A follow-up's evidence comes from pages on the session's subject.
        let water = Gate::new("water", &[]).within(&["honeybees colonies".into()]);
        let read = vec![
            ev(
                1,
                1,
                "The starter must be fed with flour and water regularly.",
            ),
            ev(
                2,
                2,
                "Honeybee foragers also collect water to cool the colony.",
            ),
        ];
        let ids: Vec<u32> = water.citable(&read).iter().map(|e| e.id).collect();
        assert_eq!(ids, vec![2]);
        let best = gate.best(&citable, 5);
        assert_eq!(best[0].id, 3, "the question's best first");
        assert_eq!(best.len(), 2);
        // A passage sharing one common word with the question, far below the best, is left out.
        let wal = Gate::new(
            "What is the difference between write-ahead logging and the rollback journal?",
            &[],
        );
        let read = vec![
            ev(1, 1, "The difference between the rollback journal and the write-ahead log is that the rollback journal copies the original content before the write."),
            ev(2, 2, "Newer versions can read and write any schema format between 1 and 4."),
            ev(3, 3, "A write-ahead log appends changes to a separate WAL file, and readers use it too."),
        ];
        let ids: Vec<u32> = wal.best(&read, 5).iter().map(|e| e.id).collect();
        assert_eq!(ids, vec![1, 3]);
        // A passage that only leads in to a list ("…are:") says nothing by itself.
        let vacuum = Gate::new("What does the VACUUM command do?", &[]);
        let read = vec![
            ev(1, 1, "The VACUUM command works by copying the contents of the database into a temporary database file and then overwriting the original."),
            ev(2, 1, "The VACUUM command may change the ROWIDs of entries in any tables that do not have an explicit INTEGER PRIMARY KEY for the following reasons:"),
        ];
        let ids: Vec<u32> = vacuum.best(&read, 5).iter().map(|e| e.id).collect();
        assert_eq!(ids, vec![1]);
        // The subject's word in every passage weighs nearly nothing in the ranking; a passage
        // with it is still on the question (SmolLM2's run on SQLite's docs listed one passage).
        let read = vec![
            ev(1, 1, "The VACUUM command rebuilds the database file, repacking it into a minimal amount of disk space."),
            ev(2, 1, "By default, VACUUM operates on the main database."),
            ev(3, 2, "An RBU Vacuum operation requires less temporary disk space and writes less data to disk than an SQLite VACUUM."),
        ];
        let ids: Vec<u32> = vacuum.best(&read, 5).iter().map(|e| e.id).collect();
        assert_eq!(ids, vec![1, 2, 3]);
    }

    #[test]
    fn the_next_round_searches_come_from_the_best_passages_read() {
        let evidence = vec![
            ev(1, 1, "An atomic commit in SQLite writes the rollback journal before any page of the database changes."),
            ev(2, 1, "After a power failure the rollback journal is replayed so the commit is atomic."),
            ev(3, 2, "The make utility builds the amalgamation."),
        ];
        let titles = BTreeMap::from([
            (1, "Atomic Commit In SQLite".to_string()),
            (2, "How To Compile".to_string()),
        ]);
        let searches = feedback_searches(Q, &evidence, &titles, &[], 3);
        assert!(!searches.is_empty());
        assert!(
            searches
                .iter()
                .any(|s| s.contains("rollback") || s.contains("journal")),
            "{searches:?}"
        );
        assert!(
            !searches.iter().any(|s| s.contains("compile")),
            "{searches:?}"
        );
        // Nothing on the question read: nothing to draw from.
        assert!(feedback_searches("Why do ferns curl?", &evidence, &titles, &[], 3).is_empty());
    }
}
