//! Extraction by sentence number. The extractor is shown a page's most relevant sentences,
//! numbered, and answers with numbers (the JSON schema is cut to the numbers that exist), so
//! every quote is a verbatim span of the stored text — and it is checked anyway.
//!
//! A model with a large window reads several pages in one call ([`pack`]): up to
//! [`PAGES_PER_CALL`] pages whose listings fit its window, numbered on from one page to the
//! next. That is what keeps a trust run at standard depth near a dozen calls when it reads ten
//! pages. A small window belongs to a small model, which reads one page a call: the numbers stay
//! few and the page is all it has to keep apart (measured: it finds a little less with three) —
//! unless the person set a call budget, which a page a call may not fit.

mod listing;
mod room;

pub use listing::{answer_across, pack, Listing, PageText};
use room::call_answer_tokens;
pub use room::{calls, room, Room, PACK_MIN_WINDOW, PACK_MIN_WINDOW_BUDGETED};

use schemars::JsonSchema;
use serde::Deserialize;

use super::harvest::Reading;
use super::numbered;
use crate::ask::{ask_schema, Ctx};
use crate::config::DepthLimits;
use crate::guard;
use crate::prompts::{self, fill};
use crate::records::{Evidence, ModelWork, Warning};
use crate::roles::Role;
use crate::text::{self, quote_in};
use research_graph::NodeError;

/// At most this many pages go into one extraction call.
pub const PAGES_PER_CALL: usize = 4;

/// Sentences of one page shown to the extractor, at most.
pub(crate) const SENTENCES_PER_PAGE: usize = 80;

/// Passages taken from an on-topic page at least, by rank, when the model took fewer.
const FALLBACK_PASSAGES: usize = 2;

/// The extraction schema for a text of `sentences` numbered sentences: each fact a sentence
/// number (and the last sentence it runs over), and in words too when the model `restates`.
pub(crate) fn extract_schema(
    sentences: usize,
    max_facts: usize,
    at_least_one: bool,
    restates: bool,
) -> research_llm::OutputSchema {
    let number = serde_json::json!({"type": "integer", "minimum": 1, "maximum": sentences.max(1)});
    let (properties, required) = if restates {
        (
            serde_json::json!({
                "fact": {"type": "string", "maxLength": 300},
                "sentence": number,
                "end_sentence": number,
            }),
            serde_json::json!(["fact", "sentence", "end_sentence"]),
        )
    } else {
        (
            serde_json::json!({"sentence": number, "end_sentence": number}),
            serde_json::json!(["sentence", "end_sentence"]),
        )
    };
    research_llm::OutputSchema {
        name: "ExtractOut".into(),
        schema: serde_json::json!({
            "type": "object",
            "properties": {
                "facts": {
                    "type": "array",
                    "minItems": if at_least_one { 1 } else { 0 },
                    "maxItems": max_facts,
                    "items": {
                        "type": "object",
                        "properties": properties,
                        "required": required,
                        "additionalProperties": false,
                    }
                }
            },
            "required": ["facts"],
            "additionalProperties": false,
        }),
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
struct FactOut {
    /// Empty when the model was asked for numbers alone: the quote stands for it.
    #[schemars(length(max = 300))]
    #[serde(default)]
    fact: String,
    #[schemars(range(min = 1, max = 80))]
    sentence: i64,
    #[schemars(range(min = 1, max = 80))]
    end_sentence: i64,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct ExtractOut {
    #[schemars(length(max = 6))]
    facts: Vec<FactOut>,
}

/// Whether this run's extractor is asked to restate each fact in its own words: any model but
/// one measured to copy its quotes ([`crate::measured::Measured::only_copies`]).
fn restating(ctx: &Ctx) -> bool {
    !crate::measured::of_role(&ctx.config.config, Role::Extract).is_some_and(|m| m.only_copies())
}

fn system_prompt(pages: usize, l: &DepthLimits, restates: bool) -> String {
    let facts = (l.facts_per_page * pages).to_string();
    let (prompt, several) = if restates {
        (prompts::EXTRACT, prompts::EXTRACT_PAGES)
    } else {
        (prompts::EXTRACT_SENTENCES, prompts::EXTRACT_PAGES_SENTENCES)
    };
    let mut system = fill(prompt, &[("facts", facts)]);
    if pages > 1 {
        system.push(' ');
        system.push_str(several);
    }
    system
}

/// Extracts evidence from the pages `group` of `listings` in one model call: for each page of
/// the group, in order, its evidence (not yet numbered), with the call's warnings.
pub async fn extract(
    ctx: &Ctx,
    listings: &[&Listing],
    queries: &[&str],
    titles: &[&str],
    reading: &Reading<'_>,
    l: &DepthLimits,
) -> Result<Extracted, NodeError> {
    let Reading {
        context: question_context,
        topic,
        questions,
        ..
    } = *reading;
    let total: usize = listings.iter().map(|p| p.shown.len()).sum();
    if total == 0 {
        return Ok((vec![Vec::new(); listings.len()], Vec::new()));
    }
    let mut user = format!(
        "{question_context}Research questions:\n{}",
        numbered(questions)
    );
    let mut starts = Vec::with_capacity(listings.len());
    let mut before = 0;
    if let [page] = listings {
        user.push_str(&format!(
            "Search: {}\n\nText:\n{}",
            queries[0],
            page.lines(0)
        ));
        starts.push(0);
    } else {
        user.push_str(&format!(
            "\nText of {} pages, sentence numbers running on from one page to the next:\n",
            listings.len()
        ));
        for (k, page) in listings.iter().enumerate() {
            user.push_str(&format!(
                "\nPage {}: {} (found by the search \"{}\")\n{}",
                k + 1,
                text::plain(titles[k]),
                queries[k],
                page.lines(before)
            ));
            starts.push(before);
            before += page.shown.len();
        }
    }
    // The schema is cut to this text: sentence numbers that exist, as many facts as wanted,
    // and at least one when a page is plainly on the topic, so a small model constrained by the
    // grammar cannot answer with numbers that point nowhere.
    let on_topic = listings.iter().any(|p| p.on_topic);
    let max_facts = l.facts_per_page * listings.len();
    let restates = restating(ctx);
    let (out, warnings): (ExtractOut, Vec<Warning>) = ask_schema(
        ctx,
        Role::Extract,
        system_prompt(listings.len(), l, restates),
        user,
        call_answer_tokens(listings.len(), restates),
        extract_schema(total, max_facts, on_topic, restates),
    )
    .await?;
    // Each fact to its page, numbered within it; a fact running over a page's end is read as
    // its first sentence.
    let mut per_page: Vec<Vec<Chosen>> = (0..listings.len()).map(|_| Vec::new()).collect();
    for f in out.facts.into_iter().take(max_facts) {
        let first = f.sentence.clamp(0, 100_000) as usize;
        let Some(k) = (0..listings.len())
            .rev()
            .find(|&k| first > starts[k] && first <= starts[k] + listings[k].shown.len())
        else {
            continue;
        };
        let end = f.end_sentence.clamp(0, 100_000) as usize;
        let len = listings[k].shown.len();
        let (first, end) = (first - starts[k], end.saturating_sub(starts[k]));
        per_page[k].push(Chosen {
            fact: f.fact,
            first,
            last: if end >= first && end <= len && end - first <= 3 {
                end
            } else {
                first
            },
        });
    }
    // The research questions count as topic too: they carry it across languages (a Japanese
    // question over English pages) and are themselves guarded.
    let topic = format!("{topic} {}", questions.join(" "));
    let mut work = ModelWork::default();
    let evidence = listings
        .iter()
        .zip(per_page)
        .map(|(page, chosen)| {
            let (evidence, restated) = take(page, chosen, &topic, l);
            work.add(&restated);
            evidence
        })
        .collect();
    // What its restating was worth, when it was asked to restate ([`crate::measured`]).
    if restates && !work.is_empty() {
        ctx.emit(crate::env::Progress::ModelWork {
            model: Role::Extract.model(&ctx.config.config.models).to_string(),
            work,
        });
    }
    Ok((evidence, warnings))
}

/// What one extraction call gave: for each page of its group, in order, its evidence (not yet
/// numbered), with the call's warnings.
pub type Extracted = (Vec<Vec<Evidence>>, Vec<Warning>);

/// A fact the model chose, by its page's own sentence numbers.
struct Chosen {
    fact: String,
    first: usize,
    last: usize,
}

/// Where a quote of shown sentences `at..last` starts: one sentence earlier when it opens by
/// referring back ("It measures how much heap memory your program uses.") and the sentence
/// before it in the page is shown, so the quote says what "it" is ("Massif is a heap
/// profiler. It measures …") — read alone, in a report on another tool, it would say
/// something else. Only when the two are adjacent in the stored text.
fn antecedent(page: &Listing, at: usize, last: usize) -> usize {
    // "There …" too: it may name a place the sentence before named.
    let opens = guard::leans_on_previous(&page.shown[at])
        || page.shown[at]
            .split_whitespace()
            .next()
            .is_some_and(|w| w.eq_ignore_ascii_case("there"));
    if !opens || at == 0 || last - at > 3 {
        return at;
    }
    let joined = page.shown[at - 1..last].join(" ");
    let adjacent = quote_in(&joined, &page.normalized)
        && quote_in(&joined, &page.raw)
        && page.blocks[at - 1] == page.blocks[at];
    // A sentence, however short ("Massif is a heap profiler."), not a heading or a row.
    let before = page.shown[at - 1].trim();
    let sentence = before.ends_with(['.', '!', '?', '。'])
        && before.split_whitespace().count() >= 3
        && research_check::table::cells(before).is_none();
    if adjacent && sentence {
        at - 1
    } else {
        at
    }
}

/// The evidence a page gives for the model's choices: guarded, verbatim, topped up with the
/// page's best passages when the model took too little; with the facts kept in the model's
/// words and how many of those were its quote's words (its restating, measured).
fn take(
    page: &Listing,
    chosen: Vec<Chosen>,
    topic: &str,
    l: &DepthLimits,
) -> (Vec<Evidence>, ModelWork) {
    let mut restated = ModelWork::default();
    let shown = &page.shown;
    let normalized = &page.normalized;
    let texts: Vec<&str> = shown.iter().map(String::as_str).collect();
    let ranked = &page.ranked;
    // A sentence is on the topic by what it says (a table row with its header), and a
    // statement as it stands.
    let usable = |i: usize| guard::statement(texts[i]) && guard::mentions(topic, &page.readings[i]);
    // The best-ranked statements on the topic that no evidence item quotes or contains yet: what
    // tops up a page the model took little from.
    let untaken = |taken: &[Evidence]| {
        let taken: Vec<String> = taken.iter().map(|e| e.quote.clone()).collect();
        let texts = &texts;
        ranked
            .iter()
            .copied()
            .filter(move |&i| usable(i))
            .filter(move |&i| {
                let t = texts[i];
                quote_in(t, normalized)
                    && !taken
                        .iter()
                        .any(|q| q.contains(t) || t.contains(q.as_str()))
            })
    };
    let mut evidence: Vec<Evidence> = Vec::new();
    for c in chosen.into_iter().take(l.facts_per_page) {
        // The sentences as the page shows them, joined; when the stored text has something
        // between them that is not a sentence (a list of links, a table), or they are in two
        // blocks of it (paragraphs, list items), only the first. A table's rows are never
        // joined: each says its own.
        let chosen = c.first - 1;
        let mut at = antecedent(page, chosen, c.last);
        let mut quote = shown[at..c.last].join(" ");
        let rows = (at..c.last).any(|i| research_check::table::cells(&shown[i]).is_some());
        if rows
            || page.blocks[at] != page.blocks[c.last - 1]
            || !quote_in(&quote, normalized)
            || (c.last > at + 1 && !quote_in(&quote, &page.raw))
        {
            // The sentence chosen alone (never the one before it alone).
            at = chosen;
            quote = shown[at].clone();
        }
        let mut fact = c.fact.trim().to_string();
        let mut model_fact = true;
        // On topic means sharing a word with what the user asked or a research question (not
        // only with the search, which a weak model's plan may have sent anywhere).
        // (A row is read with its header; joined sentences are never rows.)
        let reading = if quote == shown[at] {
            page.readings[at].as_str()
        } else {
            quote.as_str()
        };
        if !guard::mentions(topic, reading) || !guard::statement(&quote) {
            // Off the question, or not a statement (a heading, a list number, a checksum line):
            // the best-ranked statement on the topic not taken yet stands in, as it reads.
            let Some(&best) = ranked
                .iter()
                .find(|&&i| usable(i) && !evidence.iter().any(|e| e.quote == texts[i]))
            else {
                continue;
            };
            quote = texts[best].to_string();
            fact = quote.clone();
            model_fact = false;
        }
        // Verbatim by construction; checked anyway, since this is the product's promise. A
        // quote another one already says is not taken twice; one that says another (a
        // sentence and the "It …" after it) takes its place.
        if !quote_in(&quote, normalized) || evidence.iter().any(|e| e.quote.contains(&quote)) {
            continue;
        }
        evidence.retain(|e| !quote.contains(&e.quote));
        // A fact that is empty, looped, or says what its quote does not is replaced by the quote.
        if fact.is_empty()
            || guard::degenerate(&fact).is_some()
            || !guard::fact_matches_quote(&fact, &quote)
        {
            fact = quote.clone();
        }
        if model_fact {
            restated.facts += 1;
            restated.own_words += u64::from(text::normalize(&fact) == text::normalize(&quote));
        }
        evidence.push(Evidence::unnumbered(fact, quote));
    }
    let wanted = FALLBACK_PASSAGES.min(l.facts_per_page);
    if evidence.len() < wanted {
        // The model took little or nothing usable from a page that is on the topic (a base
        // model under a grammar often answers with no facts): its best-ranked statements not
        // taken yet stand, as they read.
        let more: Vec<Evidence> = untaken(&evidence)
            .take(wanted - evidence.len())
            .map(|i| Evidence::unnumbered(texts[i].to_string(), texts[i].to_string()))
            .collect();
        evidence.extend(more);
    }
    // The page's sentences that answer, whatever the model picked.
    let answering: Vec<Evidence> = untaken(&evidence)
        .filter(|&i| page.answering[i])
        .take(listing::ANSWERING_PER_PAGE)
        .map(|i| Evidence::unnumbered(texts[i].to_string(), texts[i].to_string()))
        .collect();
    evidence.extend(answering);
    // The page's sentences beyond those shown that answer best among all the pages (as many as
    // [`answer_across`] marked): verbatim in the page by construction, checked anyway.
    let beyond: Vec<Evidence> = page
        .beyond
        .iter()
        .zip(&page.beyond_answering)
        .filter(|(b, answers)| {
            **answers
                && quote_in(b, normalized)
                && guard::mentions(topic, b)
                && !evidence
                    .iter()
                    .any(|e| e.quote.contains(b.as_str()) || b.contains(&e.quote))
        })
        .map(|(b, _)| Evidence::unnumbered(b.clone(), b.clone()))
        .collect();
    evidence.extend(beyond);
    (evidence, restated)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::normalize;

    fn listing(sentences: usize, chars: usize) -> Listing {
        Listing {
            shown: (0..sentences).map(|_| "x".repeat(chars)).collect(),
            readings: (0..sentences).map(|_| "x".repeat(chars)).collect(),
            blocks: vec![0; sentences],
            normalized: String::new(),
            raw: String::new(),
            ranked: Vec::new(),
            answering: vec![false; sentences],
            on_topic: false,
            tokens: sentences * (chars / 4 + 4) + 24,
            beyond: Vec::new(),
            beyond_answering: Vec::new(),
        }
    }

    #[test]
    fn a_quote_never_joins_sentences_across_a_list_number_the_text_has() {
        let doc = "Contributor shall mean any person whose contribution has been incorporated within the Work.\n\n   2. Grant of Copyright License. Each Contributor grants You a copyright license.";
        let page = page_of(
            doc,
            &[
                "Contributor shall mean any person whose contribution has been incorporated within the Work.",
                "Grant of Copyright License.",
            ],
        );
        let chosen = vec![Chosen {
            fact: "A contributor is anyone whose work was incorporated.".into(),
            first: 1,
            last: 2,
        }];
        let limits = crate::config::Depth::Quick.limits();
        let evidence = take(&page, chosen, "contributor license work", &limits).0;
        assert_eq!(evidence.len(), 1, "{evidence:?}");
        assert!(
            evidence[0].quote.ends_with("within the Work."),
            "{:?}",
            evidence[0].quote
        );
        assert!(quote_in(&evidence[0].quote, &normalize(doc)));
    }

    #[test]
    fn a_quote_is_one_passage_never_two_paragraphs_the_page_set_apart() {
        // Two paragraphs a removed sidebar stood between: adjacent in the text's words, apart in
        // its blocks.
        const UPDATE: &str = "The package lists are refreshed during the apt update operation.";
        const SEARCH: &str = "The apt-cache command can do keyword-based package searches.";
        let limits = crate::config::Depth::Quick.limits();
        let both = || {
            vec![Chosen {
                fact: "apt update refreshes the lists; apt-cache searches them.".into(),
                first: 1,
                last: 2,
            }]
        };
        let topic = "apt package update search";
        let page = page_of(&format!("{UPDATE}\n\n{SEARCH}"), &[UPDATE, SEARCH]);
        let evidence = take(&page, both(), topic, &limits).0;
        assert_eq!(evidence[0].quote, UPDATE, "{evidence:?}");
        // So is a list item after a paragraph; one paragraph's two sentences are one quote.
        let page = page_of(&format!("{UPDATE}\n- {SEARCH}"), &[UPDATE, SEARCH]);
        assert_eq!(take(&page, both(), topic, &limits).0[0].quote, UPDATE);
        let page = page_of(&format!("{UPDATE} {SEARCH}"), &[UPDATE, SEARCH]);
        assert_eq!(
            take(&page, both(), topic, &limits).0[0].quote,
            format!("{UPDATE} {SEARCH}")
        );
        // A plain text file's wrapped line is not a block's end.
        assert!(listing::block_starts("one line\nwrapped here.\n\nNext.").len() == 1);
    }

    #[test]
    fn what_the_model_restated_is_counted_and_what_it_copied_too() {
        // Its own words for one sentence, the sentence itself for the other: two facts it
        // gave, one of them only its quote's words (its measurement, [`crate::measured`]).
        const UPDATE: &str = "The package lists are refreshed during the apt update operation.";
        const SEARCH: &str = "The apt-cache command can do keyword-based package searches.";
        let limits = crate::config::Depth::Quick.limits();
        let page = page_of(&format!("{UPDATE}\n\n{SEARCH}"), &[UPDATE, SEARCH]);
        let chosen = vec![
            Chosen {
                fact: "apt update refreshes the package lists.".into(),
                first: 1,
                last: 1,
            },
            Chosen {
                fact: SEARCH.into(),
                first: 2,
                last: 2,
            },
        ];
        let (evidence, work) = take(&page, chosen, "apt package update search", &limits);
        assert_eq!(evidence.len(), 2, "{evidence:?}");
        assert_eq!((work.facts, work.own_words), (2, 1));
    }

    fn page_of(doc: &str, shown: &[&str]) -> Listing {
        let shown: Vec<String> = shown.iter().map(|s| s.to_string()).collect();
        let starts = listing::block_starts(doc);
        let blocks = shown
            .iter()
            .map(|s| {
                let at = doc.find(s.as_str()).unwrap_or(0);
                starts.partition_point(|&b| b <= at)
            })
            .collect();
        Listing {
            blocks,
            normalized: normalize(&text::plain(doc)),
            raw: normalize(doc),
            readings: shown.clone(),
            answering: vec![false; shown.len()],
            shown,
            ranked: Vec::new(),
            on_topic: true,
            tokens: 0,
            beyond: Vec::new(),
            beyond_answering: Vec::new(),
        }
    }

    #[test]
    fn a_quote_that_opens_with_it_says_what_it_is() {
        const NAMES: &str = "Massif is a heap profiler.";
        const IT: &str = "It measures how much heap memory your program uses.";
        let limits = crate::config::Depth::Quick.limits();
        let chosen = || {
            vec![Chosen {
                fact: "It measures heap memory use.".into(),
                first: 2,
                last: 2,
            }]
        };
        let page = page_of(&format!("{NAMES} {IT}"), &[NAMES, IT]);
        let evidence = take(&page, chosen(), "heap memory measure", &limits).0;
        assert_eq!(evidence[0].quote, format!("{NAMES} {IT}"));
        // Not when something the page says stands between them.
        let page = page_of(
            &format!("{NAMES} Run it with --tool=massif. {IT}"),
            &[NAMES, IT],
        );
        let evidence = take(&page, chosen(), "heap memory measure", &limits).0;
        assert_eq!(evidence[0].quote, IT);
        // Both sentences chosen apart: one passage, said once.
        let page = page_of(&format!("{NAMES} {IT}"), &[NAMES, IT]);
        let both = vec![
            Chosen {
                fact: NAMES.into(),
                first: 1,
                last: 1,
            },
            Chosen {
                fact: IT.into(),
                first: 2,
                last: 2,
            },
        ];
        let evidence = take(&page, both, "heap memory measure profiler", &limits).0;
        let quotes: Vec<&str> = evidence.iter().map(|e| e.quote.as_str()).collect();
        assert_eq!(quotes, [format!("{NAMES} {IT}")]);
    }

    #[test]
    fn a_page_about_the_questions_subject_is_read_from_its_opening() {
        let overview = "Cachegrind simulates how your program interacts with a machine's cache \
            hierarchy and branch predictor, and gathers statistics on reads, writes and misses. ";
        let filler = "The annotated output lists files and functions by their counts. ".repeat(60);
        let later = "Comparing two Cachegrind runs is very useful to measure how a change to a \
            program affected its performance. ";
        let doc = format!("{overview}{filler}{later}{filler}");
        let tree = super::super::tree::ResearchTree::default();
        let questions = vec!["What does Cachegrind measure?".to_string()];
        let reading = Reading {
            context: "",
            topic: "What does Cachegrind measure?",
            questions: &questions,
            asked: "What does Cachegrind measure?",
            tree: &tree,
        };
        let limits = crate::config::Depth::Quick.limits();
        let listing = |title: &str| {
            let page = PageText {
                query: "cachegrind measure",
                title,
                text: &doc,
            };
            Listing::new(&page, &reading, &limits).shown.join(" ")
        };
        let about = listing("Cachegrind: a cache and branch-prediction profiler");
        assert!(about.contains("Cachegrind simulates"), "{about}");
        // A page that only mentions it is read where it says most of the question's words.
        let other = listing("Release notes");
        assert!(other.contains("to measure how a change"), "{other}");
        assert!(!other.contains("Cachegrind simulates"), "{other}");
    }

    #[test]
    fn a_table_of_contents_does_not_stand_for_the_section_it_names() {
        let contents = "4. Memcheck: a memory error detector\n4.1. Overview\n4.2. Explanation of \
            error messages from Memcheck\n4.2.1. Use of uninitialised values\n4.2.2. Illegal frees\n\n";
        let overview = "Memcheck is a memory error detector. It can detect the following problems \
            that are common in C and C++ programs.\n\n";
        let filler = "The error messages list the stack of the function that failed. ".repeat(60);
        let section = "\n\nMemcheck detects uninitialised values by tracking a validity bit for \
            every bit of data the program handles, and reports a use of values that are not valid.\n\n";
        let doc = format!("{contents}{overview}{filler}{section}{filler}");
        let tree = super::super::tree::ResearchTree::default();
        let questions = vec!["How does Memcheck detect uninitialised values?".to_string()];
        let reading = Reading {
            context: "",
            topic: &questions[0],
            questions: &questions,
            asked: &questions[0],
            tree: &tree,
        };
        let page = PageText {
            query: "memcheck detect uninitialised values",
            title: "Memcheck: a memory error detector",
            text: &doc,
        };
        let limits = crate::config::Depth::Quick.limits();
        let shown = Listing::new(&page, &reading, &limits).shown.join(" ");
        assert!(shown.contains("tracking a validity bit"), "{shown}");
    }

    #[test]
    fn a_model_that_does_not_restate_is_asked_for_numbers_alone() {
        let item = |restates: bool| {
            extract_schema(12, 3, true, restates).schema["properties"]["facts"]["items"].clone()
        };
        assert!(item(true)["properties"]["fact"].is_object());
        assert!(item(false)["properties"].get("fact").is_none());
        assert_eq!(item(false)["properties"]["sentence"]["maximum"], 12);
    }

    #[test]
    fn without_room_each_page_is_its_own_call() {
        let pages = vec![
            listing(3, 40),
            listing(3, 40),
            listing(0, 0),
            listing(2, 40),
        ];
        assert_eq!(pack(&pages, None), vec![vec![0], vec![1], vec![3]]);
    }

    #[test]
    fn pages_share_a_call_up_to_the_room_and_the_page_limit() {
        let pages: Vec<Listing> = (0..10).map(|_| listing(10, 200)).collect();
        let one = pages[0].tokens;
        // Room for two pages: pairs.
        assert_eq!(
            pack(&pages, Some(&Room::of_tokens(2 * one + 1))),
            vec![vec![0, 1], vec![2, 3], vec![4, 5], vec![6, 7], vec![8, 9]]
        );
        // Room for all: still four at most.
        assert_eq!(
            pack(&pages, Some(&Room::of_tokens(100 * one))),
            vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7], vec![8, 9]]
        );
        // A page larger than the room still gets a call of its own.
        assert_eq!(
            pack(&pages[..2], Some(&Room::of_tokens(one / 2))),
            vec![vec![0], vec![1]]
        );
    }
}
