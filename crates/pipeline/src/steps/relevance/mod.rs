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

pub mod answers;
mod gate;
pub use gate::Gate;

/// Searches made from the question's own terms that open every plan, before the model's.
pub const QUESTION_SEARCHES: usize = 1;

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

/// Words a search uses when it asks for papers: it goes to the paper providers (arXiv,
/// Semantic Scholar). "Journal" is not one: a rollback journal is no periodical.
const PAPER_WORDS: &[&str] = &[
    "paper",
    "papers",
    "preprint",
    "preprints",
    "peer-reviewed",
    "arxiv",
    "meta-analysis",
    "論文",
];

/// Words a search uses when it asks for news: it goes to the news providers.
const NEWS_WORDS: &[&str] = &["news", "headlines", "ニュース", "報道"];

/// The kind of source a search asks for in its own words, when it names one (seed 000: each
/// search carries its kind and goes to matching providers): papers, or news. `None` for the
/// rest, which go to the depth's kinds of source.
pub fn kind_of_search(query: &str) -> Option<research_search::HitKind> {
    let lower = query.to_lowercase();
    let words: Vec<&str> = lower.unicode_words().collect();
    let says = |list: &[&str]| {
        list.iter()
            .any(|w| words.contains(w) || ((!w.is_ascii() || w.contains('-')) && lower.contains(w)))
    };
    if lower.contains("white paper") {
        return None;
    }
    if says(PAPER_WORDS) || lower.contains("systematic review") {
        Some(research_search::HitKind::Academic)
    } else if says(NEWS_WORDS) {
        Some(research_search::HitKind::News)
    } else {
        None
    }
}

/// Why aspect `aspect` (a section heading) is refused: it echoes the prompt or the schema
/// ("Aspects", "Coverage", a file path). It need not share a word with the question: a report
/// on Rust's memory has a section on borrowing.
pub fn refuse_aspect(aspect: &str, question: &str) -> Option<String> {
    echo(aspect, question)
}

/// Whether `text` opens by asking: an interrogative or a word that tells the researcher what
/// to find, in English; in Japanese a question word anywhere, or a sentence ending on か.
fn asks(text: &str) -> bool {
    let first = text
        .unicode_words()
        .next()
        .map(str::to_lowercase)
        .unwrap_or_default();
    if ASKING_WORDS.split_whitespace().any(|w| w == first) {
        return true;
    }
    // "か" asks only where a sentence ends on it ("…ありますか"), not inside "から" or "ほか".
    let end = text.trim_end_matches(['。', '.', '」', '』', ' ', '　']);
    end.ends_with('か')
        || end.ends_with("かな")
        || [
            "何", "どう", "なぜ", "どの", "どれ", "いつ", "どこ", "誰", "違い", "とは",
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
    // Sharing a word is not being about it: "How does the World Trade Organization (WTO) report
    // on waste management?" shares "report" with "What does Massif report about heap memory?".
    // One that names a subject of its own is held to the rule a page is (`Anchors::about`);
    // one that names nothing ("How does ownership work?") narrows the question's own subject.
    let names = guard::Anchors::of(question);
    let own = guard::Anchors::of(t);
    if !own.is_empty() && !names.about(t) {
        return Some(format!(
            "it is about something else: it names {}, not {}",
            own.listed(),
            names.listed()
        ));
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
/// A hit that is not about what the person's question names ([`guard::Anchors::about`]: it
/// does not say "Cachegrind" and shares only "measure" with "What does Cachegrind measure?")
/// goes after every hit that is, whatever its score: it matched the question's other words on
/// a page about something else.
/// Returns, for each row, the index of its search and the hit.
pub fn merge_hits(
    key: &str,
    anchors: &guard::Anchors,
    searches: &[Vec<Hit>],
) -> Vec<(usize, Hit, f64)> {
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
    // About the question first; then, when it names two things or more (a comparison), by how
    // many of them a hit names; then its words.
    let several = anchors.count() >= 2;
    let named: Vec<(bool, usize)> = texts
        .iter()
        .map(|t| {
            let (about, names) = anchors.about_naming(t);
            (about, if several { names } else { 0 })
        })
        .collect();
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&a, &b| {
        let (sa, sb) = (scores[&a], scores[&b]);
        named[b]
            .cmp(&named[a])
            .then(sb.total_cmp(&sa))
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

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) const Q: &str =
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
        // A tiny model's string with "か" inside a word ("から") is not asking (SmolLM2 made this
        // a research question of a run on layer masks; the report used it as a heading).
        let masks =
            "レイヤーマスクを追加するとき、マスクの初期化方法にはどんな選択肢がありますか？";
        let made = "レコーチュームバスの隣許は、レサシジューラリアにおいそれる方法を追加しまして、\
                    マグリングゲールを向下に行うことが多く的角度上に使用さらであるから；\
                    10.3.2-467985_v1.x.zfaiyuko_miyamae_jirimura_sakurazawa_nagato";
        assert!(refuse_question(made, masks, masks).is_some());
        assert_eq!(
            refuse_question("マスクの初期化方法はどれを選べばよいのか", masks, masks),
            None
        );
        // A question that names a subject of its own, sharing only a word with the question, is
        // refused; one sharing two of the question's other terms is about it without naming it,
        // and one that names nothing narrows the question's subject.
        let massif = "What does Massif report about heap memory?";
        let why = refuse_question(
            "How does the World Trade Organization (WTO) report on waste management?",
            massif,
            massif,
        )
        .unwrap();
        assert!(why.contains("WTO") && why.contains("not Massif"), "{why}");
        assert_eq!(
            refuse_question("How is a heap profile read?", massif, massif),
            None,
            "names nothing of its own"
        );
        assert_eq!(
            refuse_question("How is heap memory measured over time?", massif, massif),
            None
        );
        assert_eq!(
            refuse_question("What does Massif's graph show?", massif, massif),
            None
        );
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
            citation: Default::default(),
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
        let merged = merge_hits(Q, &guard::Anchors::of(Q), &[echo, question]);
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
            &guard::Anchors::default(),
            &[
                vec![hit("a", "a", ""), hit("b", "b", "")],
                vec![hit("c", "c", "")],
            ],
        );
        let urls: Vec<&str> = ties.iter().map(|r| r.1.url.as_str()).collect();
        assert_eq!(urls, vec!["a", "c", "b"]);
    }

    #[test]
    fn a_hit_on_another_subject_goes_after_the_hits_on_the_one_the_question_names() {
        let q = "What does Cachegrind measure?";
        let searches = [
            vec![hit(
                "file:///doc/ms-manual.html",
                "Massif: a heap profiler",
                "It measures how much heap memory your program uses, and can measure the stack",
            )],
            vec![
                hit(
                    "file:///doc/cg-manual.html",
                    "Cachegrind: a cache and branch-prediction profiler",
                    "Cachegrind simulates how your program interacts with the cache",
                ),
                hit(
                    "file:///doc/cl-format.html",
                    "Callgrind Format Specification",
                    "The format is upwards compatible with the one Cachegrind writes",
                ),
            ],
        ];
        let merged = merge_hits(q, &guard::Anchors::of(q), &searches);
        let urls: Vec<&str> = merged.iter().map(|r| r.1.url.as_str()).collect();
        assert_eq!(urls[2], "file:///doc/ms-manual.html", "{merged:?}");
        assert!(merged[2].2 > merged[0].2, "whatever its score: {merged:?}");
    }

    /// A question comparing two things it names reads the pages naming both first: PostgreSQL's
    /// EXPLAIN against EXPLAIN ANALYZE read the ANALYZE command's page and a progress report,
    /// whose words matched more, and never "Using EXPLAIN".
    #[test]
    fn hits_naming_more_of_the_questions_names_are_read_first() {
        let q = "What is the difference between EXPLAIN and EXPLAIN ANALYZE?";
        let searches = [vec![
            hit(
                "file:///doc/progress-reporting.html",
                "Progress Reporting",
                "Whenever ANALYZE is running, the view will contain a row for each backend running ANALYZE; analyze phases are listed",
            ),
            hit(
                "file:///doc/using-explain.html",
                "Using EXPLAIN",
                "With the ANALYZE option, EXPLAIN actually executes the query and shows the true row counts",
            ),
        ]];
        let merged = merge_hits(q, &guard::Anchors::of(q), &searches);
        assert_eq!(
            merged[0].1.url, "file:///doc/using-explain.html",
            "{merged:?}"
        );
    }

    pub(super) fn ev(id: u32, source_id: u32, quote: &str) -> Evidence {
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

    #[test]
    fn a_search_that_asks_for_papers_or_news_carries_that_kind() {
        use research_search::HitKind;
        assert_eq!(
            kind_of_search("honeybee waggle dance papers"),
            Some(HitKind::Academic)
        );
        assert_eq!(
            kind_of_search("CRISPR meta-analysis"),
            Some(HitKind::Academic)
        );
        assert_eq!(kind_of_search("ミツバチ 論文"), Some(HitKind::Academic));
        assert_eq!(kind_of_search("sqlite release news"), Some(HitKind::News));
        // A rollback journal is no periodical; a white paper is a web page.
        assert_eq!(kind_of_search("sqlite rollback journal commit"), None);
        assert_eq!(kind_of_search("cloud security white paper"), None);
        assert_eq!(kind_of_search("rust borrow checker rules"), None);
    }
}
