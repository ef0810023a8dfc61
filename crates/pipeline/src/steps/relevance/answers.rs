//! Whether a passage answers a question — not only shares a word with it. The one measure
//! behind the passages a report quotes ([`super::Gate::best`]), the coverage it states
//! ([`crate::steps::gaps::evidence_coverage`]), the "passages on the question" line, and the
//! sentences extraction takes from a page besides the model's picks.
//!
//! A passage is scored against a key (the question, or a research question) by signals read
//! from the text alone: how much of the key it says (BM25 within the passages compared, the
//! share of the key's words), how close its meaning is (the sentence model the program
//! installs, [`research_check::meaning::installed`]; without one the words decide, with their
//! own weights), whether it says what the question asks for (a cost or a benefit for a question
//! on trade-offs, a cause for a why, a step for a how), and whether it is about the document
//! rather than the subject ("This section describes…", "New in version 3.2"), a table row with
//! nothing to say alone, or a heading. The weights and the threshold ([`Weights::answers`]) are
//! a logistic regression fitted on gold answers written by reading four documentation sets
//! (`benches/answers/`), on one half of the questions, and scored on the other
//! (`scripts/answer-fit.py`, BENCHMARKS.md).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use research_check::meaning::Meaning;
use unicode_segmentation::UnicodeSegmentation;

use crate::guard;

/// The committed weights (next to this crate's `Cargo.toml`).
const COMMITTED: &str = include_str!("../../../answers-weights.txt");

/// What a question asks for: what a passage that answers it says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AskedFor {
    /// Advantages and disadvantages, costs, when one is the better choice.
    TradeOffs,
    /// How two things differ.
    Difference,
    /// A cause or a reason.
    Why,
    /// A procedure or a mechanism.
    How,
    /// A condition.
    When,
    /// A definition, a value, a list of kinds.
    What,
}

/// Words (lower case, matched at a word's start) and Japanese strings that say each kind of
/// answer.
fn cues(kind: AskedFor) -> (&'static [&'static str], &'static [&'static str]) {
    match kind {
        AskedFor::TradeOffs => (
            &[
                "advantage",
                "disadvantage",
                "benefit",
                "drawback",
                "cost",
                "penalt",
                "faster",
                "slower",
                "overhead",
                "downside",
                "however",
                "but",
                "although",
                "risk",
                "lose",
                "lost",
                "expense",
                "exchange",
                "price",
                "better",
                "worse",
                "more",
                "less",
                "fewer",
                "only",
                "cannot",
                "requires",
                "improve",
                "reduc",
            ],
            &[
                "利点",
                "欠点",
                "長所",
                "短所",
                "ただし",
                "しかし",
                "速く",
                "遅く",
                "一方",
                "必要",
            ],
        ),
        AskedFor::Difference => (
            &[
                "whereas", "while", "unlike", "instead", "rather", "than", "differ", "both", "but",
                "however", "only", "same", "similar", "contrast",
            ],
            &[
                "違い",
                "一方",
                "対し",
                "異な",
                "ではなく",
                "同じ",
                "似て",
                "だけ",
                "比べ",
            ],
        ),
        AskedFor::Why => (
            &[
                "because",
                "since",
                "so",
                "reason",
                "cause",
                "due",
                "order",
                "therefore",
                "result",
                "prevent",
                "avoid",
                "ensure",
                "otherwise",
                "unless",
            ],
            &["ため", "ので", "から", "原因", "理由", "場合", "なければ"],
        ),
        AskedFor::How => (
            &[
                "by", "using", "use", "run", "set", "enable", "call", "command", "option", "first",
                "then", "step", "click", "select", "create", "pragma", "type", "press", "specify",
                "install", "invoke",
            ],
            &[
                "クリック",
                "選択",
                "押",
                "メニュー",
                "設定",
                "ドラッグ",
                "手順",
                "すると",
                "して",
                "使",
            ],
        ),
        AskedFor::When => (
            &[
                "when",
                "if",
                "unless",
                "should",
                "recommend",
                "best",
                "better",
                "appropriate",
                "suitable",
                "only",
                "need",
                "whenever",
            ],
            &["場合", "とき", "時", "推奨", "必要"],
        ),
        AskedFor::What => (
            &[
                "is", "are", "means", "called", "defined", "refers", "consists", "contains",
                "include", "kinds", "types",
            ],
            &["とは", "です", "である", "呼ば", "意味", "種類"],
        ),
    }
}

/// What `question` asks for, from its words.
pub fn asked_for(question: &str) -> AskedFor {
    let q = question.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| q.contains(w));
    if has(&[
        "trade-off",
        "tradeoff",
        "trade off",
        "advantage",
        "disadvantage",
        "pros and cons",
        "benefit",
        "drawback",
        "downside",
        "cost of",
        "costs",
        "better choice",
        "worth",
        "利点",
        "欠点",
        "長所",
        "短所",
        "使い分け",
    ]) {
        AskedFor::TradeOffs
    } else if has(&[
        "differ",
        "difference",
        "compare",
        "versus",
        " vs",
        "違い",
        "違います",
        "違う",
    ]) {
        AskedFor::Difference
    } else if has(&["why", "なぜ", "理由", "原因"]) {
        AskedFor::Why
    } else if has(&["how ", "how?", "どう", "どのように", "方法", "には"]) {
        AskedFor::How
    } else if q.starts_with("when") || has(&["いつ", "どんなとき", "場合"]) {
        AskedFor::When
    } else {
        AskedFor::What
    }
}

/// Openings of a sentence about the document rather than its subject: a book's, a page's or a
/// section's blurb.
const ABOUT_THE_DOCUMENT_OPENS: &[&str] = &[
    "this article",
    "this document",
    "this page",
    "this section",
    "this chapter",
    "this guide",
    "this tutorial",
    "this manual",
    "this book",
    "the following sections",
    "the following chapters",
    "see also",
    "see section",
    "see chapter",
    "for more information",
    "for further information",
    // The author steering the reader ("We begin with an overview of the steps…", "We here
    // restate…", "The claim of the previous paragraph is checked…"): none of the 360 gold
    // sentences or the judged ones opens so. "As mentioned above, …" is left out: it leads a fact.
    "we begin",
    "we here",
    "we now",
    "we will",
    "we shall",
    "we restate",
    "the previous paragraph",
    "the claim of the previous",
    "in the previous section",
    "in the next section",
    "the next section",
    "the sections that follow",
    "the remainder of this",
    "the rest of this",
    "この章では",
    "この節では",
    "このページでは",
    "本章では",
    "本節では",
];

/// Phrases of a changelog line, a version note or a pointer elsewhere in the document anywhere
/// in a sentence ("… are discussed in later sections", "…, as discussed below": both judged
/// "no" in the pooled judgements of `benches/answers/`, and no gold sentence has one).
const ABOUT_THE_DOCUMENT: &[&str] = &[
    "new in version",
    "changed in version",
    "deprecated since version",
    "added in version",
    "release notes",
    "discussed below",
    "described below",
    "explained below",
    "see below",
    "discussed later",
    "described later",
    "explained later",
    "in later sections",
    "in a later section",
    "in the following section",
];

/// Whether `passage` is about the document rather than its subject (a blurb, a pointer
/// elsewhere, a changelog line) — in any of its sentences: a quote a model joined from two
/// ("… SQLite does make use of many temporary files. This article describes the various
/// temporary files …") carries the blurb as much as one that opens with it.
pub fn about_the_document(passage: &str) -> bool {
    let lower = passage.to_lowercase();
    ABOUT_THE_DOCUMENT.iter().any(|w| lower.contains(w))
        || passage.split_sentence_bounds().any(|sentence| {
            let opening = sentence
                .trim_start_matches(['-', '*', '•', ' ', '\n'])
                .to_lowercase();
            ABOUT_THE_DOCUMENT_OPENS
                .iter()
                .any(|w| opening.starts_with(w))
        })
}

/// Whether `passage` says little alone: a table row whose cells are a word or two each
/// (`| On | Off | Yes |`), or a heading.
pub fn says_little(passage: &str) -> bool {
    let p = passage.trim();
    if p.starts_with('#') {
        return true;
    }
    research_check::table::cells(p)
        .is_some_and(|cells| cells.iter().all(|c| c.split_whitespace().count() <= 2))
}

/// Whether `passage` says one of `kind`'s cues.
fn cued(kind: AskedFor, passage: &str) -> bool {
    let (words, strings) = cues(kind);
    let lower = passage.to_lowercase();
    strings.iter().any(|s| lower.contains(s))
        || lower
            .split(|c: char| !c.is_alphanumeric() && c != '-')
            .any(|w| {
                !w.is_empty()
                    && words
                        .iter()
                        .any(|c| w.starts_with(c) && w.len() <= c.len() + 4)
            })
}

/// The signals of one passage against one key, in [`SIGNALS`] order.
pub type Signals = [f64; 7];

/// The signals' names, as the weights file spells them.
pub const SIGNALS: [&str; 7] = [
    "bm25", "cover", "meaning", "asked", "document", "little", "short",
];

/// The signals of each of `passages` against `key`: BM25 relative to the best of them, the
/// share of the key's words it says, its meaning's closeness (0 without `meaning`), whether it
/// says what the key asks for, whether it is about the document, says little, or is short.
pub fn signals(key: &str, passages: &[&str], meaning: Option<&Meaning>) -> Vec<Signals> {
    let ranked = guard::rank_sentences(key, passages);
    let top = ranked.first().map_or(0.0, |(_, s)| *s);
    let mut bm25 = vec![0.0; passages.len()];
    for (i, s) in ranked {
        bm25[i] = if top > 0.0 { s / top } else { 0.0 };
    }
    // Names as BM25 reads them ([`guard::rank_sentences`]): a stop word in capitals is one.
    let naming = |text: &str| -> std::collections::HashSet<String> {
        guard::terms_naming(text).into_iter().collect()
    };
    let key_terms = naming(key);
    let kind = asked_for(key);
    let closeness: Vec<f64> = meaning
        .and_then(|m| {
            let mut texts = vec![key];
            texts.extend_from_slice(passages);
            let encoded = m.encode(&texts).ok()?;
            let (k, rest) = encoded.split_first()?;
            Some(
                rest.iter()
                    .map(|p| research_embed::similarity(&k.sentence, &p.sentence) as f64)
                    .collect(),
            )
        })
        .unwrap_or_else(|| vec![0.0; passages.len()]);
    passages
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let terms = naming(p);
            let cover = if key_terms.is_empty() {
                0.0
            } else {
                key_terms.intersection(&terms).count() as f64 / key_terms.len() as f64
            };
            let words = guard::word_count(p);
            [
                bm25[i],
                cover,
                closeness[i],
                f64::from(u8::from(cued(kind, p))),
                f64::from(u8::from(about_the_document(p))),
                f64::from(u8::from(says_little(p))),
                f64::from(u8::from(words < 6)),
            ]
        })
        .collect()
}

/// The signals that decide by rule, not weight: a passage about the document, or one that says
/// little alone (a bare table row, a heading), never answers — a reader would not quote it as
/// the answer however many of the question's words it has. Left out of the fit.
pub const RULES: [&str; 2] = ["document", "little"];

/// A logistic regression over [`SIGNALS`] but the [`RULES`], and the probability at or above
/// which a passage answers.
#[derive(Debug, Clone, PartialEq)]
pub struct Weights {
    bias: f64,
    weights: BTreeMap<&'static str, f64>,
    /// The probability at or above which a passage answers its key.
    pub answers: f64,
}

impl Weights {
    fn parse(text: &str, section: &str) -> Option<Self> {
        let mut values: BTreeMap<String, f64> = BTreeMap::new();
        let mut inside = false;
        for line in text.lines().map(str::trim) {
            if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                inside = name == section;
                continue;
            }
            if !inside || line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (k, v) = line.split_once(char::is_whitespace)?;
            values.insert(k.to_string(), v.trim().parse().ok()?);
        }
        let mut weights = BTreeMap::new();
        for name in SIGNALS.iter().filter(|n| !RULES.contains(n)) {
            weights.insert(*name, *values.get(*name)?);
        }
        Some(Self {
            bias: *values.get("bias")?,
            weights,
            answers: *values.get("answers")?,
        })
    }

    /// The committed weights for reading with words alone (`meaning` false) or with the
    /// sentence model too.
    pub fn committed(meaning: bool) -> &'static Self {
        static WORDS: OnceLock<Weights> = OnceLock::new();
        static MEANING: OnceLock<Weights> = OnceLock::new();
        let (cell, section) = if meaning {
            (&MEANING, "meaning")
        } else {
            (&WORDS, "words")
        };
        cell.get_or_init(|| {
            Self::parse(COMMITTED, section).expect("answers-weights.txt has every signal")
        })
    }

    /// The probability that a passage with `signals` answers its key: 0 when a rule says it
    /// cannot.
    pub fn probability(&self, signals: &Signals) -> f64 {
        let named = || SIGNALS.iter().zip(signals.iter());
        if named().any(|(n, s)| RULES.contains(n) && *s > 0.0) {
            return 0.0;
        }
        let z = self.bias
            + named()
                .filter_map(|(n, s)| self.weights.get(n).map(|w| w * s))
                .sum::<f64>();
        1.0 / (1.0 + (-z).exp())
    }
}

/// How well each of `passages` answers `key`, 0–1, read with the installed sentence model when
/// there is one.
pub fn answering(key: &str, passages: &[&str]) -> Vec<f64> {
    let meaning = research_check::meaning::installed();
    let weights = Weights::committed(meaning.is_some());
    signals(key, passages, meaning)
        .iter()
        .map(|s| weights.probability(s))
        .collect()
}

/// The probability at or above which a passage answers, for the reading in use.
pub fn threshold() -> f64 {
    Weights::committed(research_check::meaning::installed().is_some()).answers
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_question_asks_for() {
        assert_eq!(
            asked_for("What are the advantages and disadvantages of using WAL?"),
            AskedFor::TradeOffs
        );
        assert_eq!(
            asked_for(
                "What is the difference between write-ahead logging and the rollback journal?"
            ),
            AskedFor::Difference
        );
        assert_eq!(
            asked_for("Why are default arguments shared?"),
            AskedFor::Why
        );
        assert_eq!(asked_for("How do I turn on foreign keys?"), AskedFor::How);
        assert_eq!(
            asked_for("When is a client/server database a better choice?"),
            AskedFor::TradeOffs
        );
        assert_eq!(
            asked_for("グリッドとガイドの違いは何ですか？"),
            AskedFor::Difference
        );
        assert_eq!(asked_for("What is a partial index?"), AskedFor::What);
    }

    #[test]
    fn the_pros_and_cons_answer_a_question_on_trade_offs_and_a_bare_row_does_not() {
        let key = "What are the trade-offs between WAL and a rollback journal?";
        let passages = [
            "WAL is significantly faster in most scenarios.",
            "| On | Off | Yes | all |",
            "This article describes the rollback journal and WAL.",
            "SQLite database files need no particular file extension.",
            "All processes using a database must be on the same host computer; WAL does not work over a network filesystem.",
        ];
        // Read with words alone (tests install no sentence model; `tests/answers_real.rs` reads
        // with it): the pros and cons rank above the filename rule, the row and the blurb never
        // answer.
        let scores = answering(key, &passages);
        let t = threshold();
        assert!(scores[0] > scores[3], "{scores:?}");
        assert!(scores[4] > scores[3], "{scores:?}");
        assert_eq!(scores[1], 0.0, "a bare row says little alone");
        assert_eq!(scores[2], 0.0, "a sentence about the document");
        assert!(scores[3] < t, "{scores:?} {t}");
    }

    /// PostgreSQL's EXPLAIN page against pg-08: the command's name is a stop word ("explain"),
    /// and its coverage was stated at 2% with two of the five facts quoted.
    #[test]
    fn a_command_named_by_a_stop_word_in_capitals_is_read_as_its_name() {
        let key = "What is the difference between EXPLAIN and EXPLAIN ANALYZE?";
        let passages = [
            "With the ANALYZE option, EXPLAIN actually executes the query, and then displays the true row counts and true run time.",
            "We explain below how the planner chooses among the possible plans for a query.",
            "Keep in mind that the statement is actually executed when the ANALYZE option is used.",
        ];
        let scores = answering(key, &passages);
        assert!(scores[0] > scores[1], "{scores:?}");
        let signals = signals(key, &passages, None);
        assert!(signals[0][1] > signals[1][1], "{signals:?}");
        assert!(signals[0][1] > signals[2][1], "{signals:?}");
    }

    #[test]
    fn a_blurb_joined_to_a_fact_is_about_the_document() {
        assert!(about_the_document(
            "But SQLite does make use of many temporary files. This article describes the various temporary files that SQLite creates."
        ));
        assert!(about_the_document("- This page explains WAL."));
        assert!(!about_the_document(
            "A rollback journal is a temporary file used to implement atomic commit. It is deleted at the end."
        ));
        assert!(!about_the_document("Call this point the end mark."));
        // The author steering the reader (SQLite's atomic-commit page), and a fact led by a
        // pointer back (PostgreSQL's transaction isolation page, judged bearing).
        assert!(about_the_document(
            "We begin with an overview of the steps SQLite takes in order to perform an atomic commit."
        ));
        assert!(about_the_document(
            "The claim of the previous paragraph is extensively checked in the SQLite regression test suite."
        ));
        assert!(!about_the_document(
            "As mentioned above, this is specifically allowed by the standard."
        ));
        // Pointers elsewhere, anywhere in the sentence (SQLite's atomic-commit page, PostgreSQL's
        // EXPLAIN page).
        assert!(about_the_document(
            "The details of file formats used to guard against damage from power failures are discussed in later sections."
        ));
        assert!(about_the_document(
            "We can investigate that using EXPLAIN ANALYZE, as discussed below."
        ));
    }

    #[test]
    fn the_committed_weights_parse_for_both_readings() {
        for meaning in [false, true] {
            let w = Weights::committed(meaning);
            assert!(w.answers > 0.0 && w.answers < 1.0, "{w:?}");
        }
    }
}
