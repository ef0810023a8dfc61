//! A page as the extractor sees it ([`Listing`]): its most relevant sentences, numbered, and
//! which of them answer the question. Apart from the call because what a page shows and which
//! sentences answer are decided before any model is asked, and the answering sentences across
//! all the pages of one reading ([`answer_across`]) — a page is one of several, and the
//! sentences that answer best are where they are, not two on every page.

use super::super::harvest::Reading;
use super::super::relevance::answers;
use crate::config::DepthLimits;
use crate::guard;
use crate::text::{self, normalize};
use research_llm::estimate_tokens;

use super::{Room, SENTENCES_PER_PAGE};

/// The sentences the pages of one reading take besides the model's picks, at most: those that
/// answer best across all of them together ([`answer_across`]). A small model's picks are one
/// vote, not the decider (SmolLM2 took a filename rule from the page that lists WAL's
/// advantages, and none of them).
pub const ANSWERING_PASSAGES: usize = 8;

/// Of [`ANSWERING_PASSAGES`], at most this many from one page: the page that answers gives
/// most, and a second page that answers too still has room.
pub const ANSWERING_PER_PAGE: usize = 5;

/// Sentences of a page outside the chunks shown to the model that the answering measure reads
/// too, at most (the page's best against the question by BM25): at quick depth a long page
/// shows one chunk, chosen by the question's words, and the sentence that answers ("A partial
/// index is an index over a subset of the rows of a table.") may be in another.
pub const BEYOND_PER_PAGE: usize = 30;

/// A page read and stored, to extract from.
#[derive(Debug, Clone, Copy)]
pub struct PageText<'a> {
    /// The search that found it.
    pub query: &'a str,
    /// Its title, naming it among other pages in one call.
    pub title: &'a str,
    /// Its stored text.
    pub text: &'a str,
}

/// A page as the extractor sees it: its most relevant sentences, and what its answer is
/// checked against.
pub struct Listing {
    /// The sentences shown, as the page shows them (quotes are made of this text).
    pub(super) shown: Vec<String>,
    /// What each sentence shown says: its words, or a table row's cells under their columns'
    /// names. What the model reads and what relevance is judged by; the quote stays the row.
    pub(super) readings: Vec<String>,
    /// The whole stored text, normalised (every quote must be in it).
    pub(super) normalized: String,
    /// The stored text normalised as it is, markup and list numbers kept: a quote joined from
    /// several sentences must be in it too, or a list item's number would vanish from between
    /// them ("the Work. Grant of …" where the text says "the Work. 2. Grant of …").
    pub(super) raw: String,
    /// The block of the stored text (a paragraph, a list item, a heading, a table) each shown
    /// sentence is in: a quote joins sentences of one block only, since sentences the page set
    /// apart (a sidebar removed between two paragraphs) do not say one thing together.
    pub(super) blocks: Vec<usize>,
    /// Shown sentences that share something with the search and the question, those that
    /// answer best first ([`answers::answering`]).
    pub(super) ranked: Vec<usize>,
    /// Whether each shown sentence answers the question or a research question.
    pub(super) answering: Vec<bool>,
    /// Statements of the page outside the chunks shown, as they read, that the answering
    /// measure reads too ([`BEYOND_PER_PAGE`]); the model never sees them.
    pub(super) beyond: Vec<String>,
    /// Whether each of `beyond` answers, among the best of all the pages ([`answer_across`]).
    pub(super) beyond_answering: Vec<bool>,
    /// Whether the page is plainly on the topic: the model must then take at least one fact.
    pub(super) on_topic: bool,
    /// What its lines cost in a prompt.
    pub(super) tokens: usize,
}

impl Listing {
    /// The most relevant chunks of `page`, in document order, cut into sentences.
    pub fn new(page: &PageText<'_>, reading: &Reading<'_>, l: &DepthLimits) -> Self {
        let doc_text = page.text;
        // What the person asked (a follow-up's own question within the session's focus, not
        // everything earlier turns said), the research questions the page is read for, and the
        // search that found it.
        let relevance_key = format!(
            "{} {} {}",
            reading.topic,
            reading.questions.join(" "),
            page.query
        );
        // A chunk counts the question's words its statements say: a table of contents or a
        // list of links names every section ("Use of uninitialised values", "Detected errors:
        // Data Races") and says none of them. A page whose title names the subject of a
        // question that asks what it is or does opens by saying so: its first chunk whose
        // statements name it counts one word more ("Cachegrind simulates … and gathers the
        // following statistics" answers "What does Cachegrind measure?" without the word
        // "measure", which a later chunk on comparing two runs has).
        let anchors = guard::Anchors::of(reading.asked);
        let mut lead_open = anchors.asks_what_it_is() && anchors.named_in(page.title);
        let mut chunks: Vec<(usize, std::ops::Range<usize>, Vec<String>)> =
            text::chunks(doc_text, text::CHUNK_CHARS)
                .into_iter()
                .map(|r| {
                    // The chunk's sentences read within the chunk alone, so a table row looks
                    // for its header no further up than the chunk: linear in the page, where a
                    // long table's rows each walking up to its header is not.
                    let chunk = &doc_text[r.clone()];
                    // Each sentence read once: (is a row, its reading), statements only.
                    let read: Vec<(bool, String)> = text::sentences(chunk, 0..chunk.len())
                        .iter()
                        .map(|s| (s.is_row(chunk), s.reading(chunk)))
                        .filter(|(_, r)| guard::statement(r))
                        .collect();
                    let said: Vec<&str> = read.iter().map(|(_, r)| r.as_str()).collect();
                    let said = said.join(" ");
                    let statements: Vec<String> = read
                        .into_iter()
                        .filter(|(row, _)| !row)
                        .map(|(_, r)| r)
                        .collect();
                    let lead = lead_open && anchors.named_in(&said);
                    lead_open &= !lead;
                    (
                        text::overlap(&relevance_key, &said) + usize::from(lead),
                        r,
                        statements,
                    )
                })
                .collect();
        chunks.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.start.cmp(&b.1.start)));
        // The statements of the chunks not shown, the best of them against the question kept
        // for the answering measure.
        let unshown: Vec<String> = chunks
            .iter()
            .skip(l.chunks_per_page)
            .flat_map(|c| c.2.iter().cloned())
            .collect();
        let beyond: Vec<String> = {
            let texts: Vec<&str> = unshown.iter().map(String::as_str).collect();
            guard::rank_sentences(&relevance_key, &texts)
                .into_iter()
                .filter(|(_, score)| *score > 0.0)
                .take(BEYOND_PER_PAGE)
                .map(|(i, _)| unshown[i].clone())
                .collect()
        };
        chunks.truncate(l.chunks_per_page);
        chunks.sort_by_key(|c| c.1.start);
        let mut sentences = Vec::new();
        for (_, range, _) in chunks {
            sentences.extend(text::sentences(doc_text, range));
        }
        let read: Vec<String> = sentences.iter().map(|s| s.reading(doc_text)).collect();
        // The sentences shown are the page's best against the question, never its first ones:
        // ranked (BM25), the best kept, shown in the page's order.
        let mut keep: Vec<usize> = {
            let texts: Vec<&str> = read.iter().map(String::as_str).collect();
            guard::rank_sentences(&relevance_key, &texts)
                .into_iter()
                .take(SENTENCES_PER_PAGE)
                .map(|(i, _)| i)
                .collect()
        };
        keep.sort_unstable();
        // A kept sentence as quoted (a row as it stands; a sentence's reading is its words).
        let shown: Vec<String> = keep
            .iter()
            .map(|&i| match sentences[i].is_row(doc_text) {
                true => text::plain(&doc_text[sentences[i].range.clone()]),
                false => read[i].clone(),
            })
            .collect();
        let readings: Vec<String> = keep.iter().map(|&i| read[i].clone()).collect();
        let starts = block_starts(doc_text);
        let blocks: Vec<usize> = keep
            .iter()
            .map(|&i| starts.partition_point(|&b| b <= sentences[i].range.start))
            .collect();
        let texts: Vec<&str> = readings.iter().map(String::as_str).collect();
        // Ranked by how well each answers the question or a research question (the measure the
        // report and its coverage use), among those that share something with what was asked.
        let shares: Vec<usize> = guard::rank_sentences(&relevance_key, &texts)
            .into_iter()
            .filter(|(_, score)| *score > 0.0)
            .map(|(i, _)| i)
            .collect();
        let mut score = vec![0.0f64; texts.len()];
        for key in
            std::iter::once(reading.topic).chain(reading.questions.iter().map(String::as_str))
        {
            for (s, a) in score.iter_mut().zip(answers::answering(key, &texts)) {
                *s = s.max(a);
            }
        }
        let threshold = answers::threshold();
        let answering: Vec<bool> = score.iter().map(|s| *s >= threshold).collect();
        let mut ranked = shares;
        ranked.sort_by(|&a, &b| score[b].total_cmp(&score[a]).then(a.cmp(&b)));
        let lines = numbered_lines(&readings, 0);
        Self {
            on_topic: text::overlap(&relevance_key, &lines) >= 2,
            tokens: estimate_tokens(&lines) + 24,
            normalized: if shown.is_empty() {
                String::new()
            } else {
                normalize(&text::plain(doc_text))
            },
            raw: if shown.is_empty() {
                String::new()
            } else {
                normalize(doc_text)
            },
            shown,
            readings,
            blocks,
            ranked,
            answering,
            beyond_answering: vec![false; beyond.len()],
            beyond,
        }
    }

    /// The numbered lines, numbers starting after `before`.
    pub(super) fn lines(&self, before: usize) -> String {
        numbered_lines(&self.readings, before)
    }
}

/// Sentences as numbered lines, numbers starting after `before`.
fn numbered_lines(shown: &[String], before: usize) -> String {
    let mut listing = String::new();
    for (i, s) in shown.iter().enumerate() {
        listing.push_str(&format!("[{}] {s}\n", before + i + 1));
    }
    listing
}

/// Groups pages for extraction calls, in order: each alone without `room`, else up to
/// [`super::PAGES_PER_CALL`] whose listings and answers fit the `room` of one call together. A page
/// with nothing to show is in no group.
pub fn pack(listings: &[Listing], room: Option<&Room>) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut used = 0;
    for (i, listing) in listings.iter().enumerate() {
        if listing.shown.is_empty() {
            continue;
        }
        let cost = listing.tokens;
        let joins = match (room, groups.last()) {
            (Some(room), Some(last)) => room.holds(last.len() + 1, used + cost),
            _ => false,
        };
        if joins {
            used += cost;
            if let Some(last) = groups.last_mut() {
                last.push(i);
            }
        } else {
            used = cost;
            groups.push(vec![i]);
        }
    }
    groups
}

/// Marks the sentences that answer across `listings`, the pages of one reading: each shown
/// sentence that shares something with what was asked is scored against the question and each
/// research question together with all the others ([`answers::answering`] compares a passage
/// with those beside it, as it was fitted), and the best at or above the measure's threshold
/// are taken — [`ANSWERING_PASSAGES`] at most, [`ANSWERING_PER_PAGE`] from one page, a
/// sentence another page already gives in the same words once.
pub fn answer_across(listings: &mut [Listing], reading: &Reading<'_>) {
    // (page, sentence, whether it is beyond the shown ones)
    let mut at: Vec<(usize, usize, bool)> = Vec::new();
    let mut texts: Vec<&str> = Vec::new();
    for (k, listing) in listings.iter().enumerate() {
        for &i in &listing.ranked {
            at.push((k, i, false));
            texts.push(listing.readings[i].as_str());
        }
        for (i, b) in listing.beyond.iter().enumerate() {
            at.push((k, i, true));
            texts.push(b.as_str());
        }
    }
    let mut score = vec![0.0f64; texts.len()];
    for key in std::iter::once(reading.topic).chain(reading.questions.iter().map(String::as_str)) {
        for (s, a) in score.iter_mut().zip(answers::answering(key, &texts)) {
            *s = s.max(a);
        }
    }
    let threshold = answers::threshold();
    let mut order: Vec<usize> = (0..texts.len())
        .filter(|&j| score[j] >= threshold)
        .collect();
    order.sort_by(|&a, &b| score[b].total_cmp(&score[a]).then(a.cmp(&b)));
    let mut per_page = vec![0usize; listings.len()];
    let mut said = std::collections::BTreeSet::new();
    let mut picked = Vec::new();
    for j in order {
        let (k, i, beyond) = at[j];
        if picked.len() >= ANSWERING_PASSAGES {
            break;
        }
        if per_page[k] >= ANSWERING_PER_PAGE || !said.insert(normalize(texts[j])) {
            continue;
        }
        per_page[k] += 1;
        picked.push((k, i, beyond));
    }
    for listing in listings.iter_mut() {
        listing.answering.iter_mut().for_each(|a| *a = false);
        listing.beyond_answering.iter_mut().for_each(|a| *a = false);
    }
    for (k, i, beyond) in picked {
        match beyond {
            false => listings[k].answering[i] = true,
            true => listings[k].beyond_answering[i] = true,
        }
    }
}

/// Where each block of `text` after the first starts: after a blank line, and at a line that
/// opens a list item, a heading or a table row (a line break inside a paragraph, as a plain
/// text file wraps it, is not a block's end).
pub(super) fn block_starts(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut blank = false;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        let opens = t.starts_with(['#', '|', '-', '*', '+', '>'])
            || t.split_once(['.', ')']).is_some_and(|(n, _)| {
                !n.is_empty() && n.len() <= 3 && n.bytes().all(|b| b.is_ascii_digit())
            });
        if at > 0 && !t.trim().is_empty() && (blank || opens) {
            out.push(at);
        }
        blank = t.trim().is_empty();
        at += line.len();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steps::tree::ResearchTree;

    fn listing(sentences: &[&str]) -> Listing {
        let shown: Vec<String> = sentences.iter().map(|s| s.to_string()).collect();
        Listing {
            readings: shown.clone(),
            blocks: vec![0; shown.len()],
            answering: vec![true; shown.len()],
            ranked: (0..shown.len()).collect(),
            normalized: normalize(&shown.join(" ")),
            raw: normalize(&shown.join(" ")),
            shown,
            on_topic: true,
            tokens: 0,
            beyond: Vec::new(),
            beyond_answering: Vec::new(),
        }
    }

    #[test]
    fn the_sentences_that_answer_are_taken_where_they_are_not_two_a_page() {
        let tree = ResearchTree::default();
        let questions = vec![];
        let reading = Reading {
            context: "",
            topic:
                "What are the advantages and disadvantages of WAL compared to a rollback journal?",
            questions: &questions,
            asked:
                "What are the advantages and disadvantages of WAL compared to a rollback journal?",
            tree: &tree,
        };
        let answers_page = listing(&[
            "There are advantages and disadvantages to using WAL instead of a rollback journal.",
            "WAL is significantly faster in most scenarios.",
            "WAL provides more concurrency as readers do not block writers and a writer does not block readers.",
            "WAL uses many fewer fsync() operations and is thus less vulnerable to problems on systems where the fsync() system call is broken.",
            "All processes using a database must be on the same host computer; WAL does not work over a network filesystem.",
            "WAL might be very slightly slower than the traditional rollback-journal approach in applications that do mostly reads.",
            "WAL does not work well for very large transactions.",
        ]);
        let beside = listing(&[
            "SQLite database files need no particular file extension.",
            "The rollback journal is a file associated with each database file.",
            "Filenames are limited to the 8+3 form on some old systems.",
        ]);
        // Read with words alone here (tests install no sentence model): the lead-in and the
        // sentences naming both ways answer; `tests/answers_real.rs` reads with the model.
        let mut pages = vec![beside, answers_page];
        answer_across(&mut pages, &reading);
        let taken = |l: &Listing| l.answering.iter().filter(|a| **a).count();
        assert!(
            taken(&pages[1]) >= 2 && taken(&pages[1]) <= ANSWERING_PER_PAGE,
            "{:?}",
            pages[1].answering
        );
        assert!(taken(&pages[0]) + taken(&pages[1]) <= ANSWERING_PASSAGES);
        assert!(!pages[0].answering[0], "the filename rule does not answer");
        assert!(!pages[0].answering[2]);
    }

    #[test]
    fn a_sentence_outside_the_chunk_shown_is_read_for_the_answer() {
        let tree = ResearchTree::default();
        let questions = vec![];
        let question = "What is a partial index?";
        let reading = Reading {
            context: "",
            topic: question,
            questions: &questions,
            asked: question,
            tree: &tree,
        };
        // A long page whose chunk with the question's words repeated is shown at quick depth,
        // and whose definition sits at its end, in another chunk.
        let filler =
            "The query planner reads the statistics table before it plans a join. ".repeat(60);
        let usage = "The partial index can be used by a query on a partial index column when the WHERE clause of the partial index is implied. ".repeat(20);
        let page = format!(
            "# Partial indexes\n\n{usage}\n\n{filler}\n\nA partial index is an index over a subset of the rows of a table."
        );
        let text = PageText {
            query: "partial index",
            title: "Partial Indexes",
            text: &page,
        };
        let limits = crate::config::Depth::Quick.limits();
        let mut pages = vec![Listing::new(&text, &reading, &limits)];
        let definition = "A partial index is an index over a subset of the rows of a table.";
        assert!(
            !pages[0].shown.iter().any(|s| s == definition),
            "the definition is not in the chunk shown: {:?}",
            &pages[0].shown[..2]
        );
        assert!(
            pages[0].beyond.iter().any(|s| s == definition),
            "{:?}",
            pages[0].beyond
        );
        answer_across(&mut pages, &reading);
        let at = pages[0]
            .beyond
            .iter()
            .position(|s| s == definition)
            .unwrap();
        assert!(
            pages[0].beyond_answering[at],
            "{:?}",
            pages[0].beyond_answering
        );
    }
}
