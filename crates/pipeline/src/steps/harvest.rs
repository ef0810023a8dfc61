//! Harvesting: search → read → extract by sentence number. The extractor is shown a page as
//! numbered sentences and answers with numbers (the JSON schema is cut to the numbers that
//! exist), so every quote is a verbatim span of the stored text — and it is checked anyway.

use std::collections::{BTreeMap, BTreeSet};

use futures::stream::{self, StreamExt};
use research_graph::NodeError;
use research_search::{Hit, SearchQuery};
use schemars::JsonSchema;
use serde::Deserialize;

use super::numbered;
use crate::ask::{ask_schema, warn, Ctx};
use crate::config::DepthLimits;
use crate::guard;
use crate::prompts::{self, fill};
use crate::records::{Evidence, Found, Source, Warning, WarningKind};
use crate::roles::Role;
use crate::text::{self, normalize, query_similarity, quote_in, DUPLICATE_QUERY};
use crate::Progress;

/// How many page fetches and extractions run at once within one step.
const PARALLEL_PAGES: usize = 8;

/// The extraction schema for a text of `sentences` numbered sentences.
pub(crate) fn extract_schema(
    sentences: usize,
    max_facts: usize,
    at_least_one: bool,
) -> research_llm::OutputSchema {
    let number = serde_json::json!({"type": "integer", "minimum": 1, "maximum": sentences.max(1)});
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
                        "properties": {
                            "fact": {"type": "string", "maxLength": 300},
                            "sentence": number,
                            "end_sentence": number,
                        },
                        "required": ["fact", "sentence", "end_sentence"],
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
    #[schemars(length(max = 300))]
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

/// What a batch of searches produced.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Harvest {
    /// Pages read with the evidence taken from each (not yet numbered).
    pub found: Vec<Found>,
    /// The searches run.
    pub searches_done: Vec<String>,
    /// Failed searches and unreadable pages.
    pub warnings: Vec<Warning>,
    /// What each search gave, in the order run.
    pub yields: Vec<SearchYield>,
}

/// What one search gave: the ground for calling it a dead end.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchYield {
    /// The query.
    pub query: String,
    /// Whether the provider failed (a provider problem, not a dead end).
    pub failed: bool,
    /// Hits the provider returned.
    pub hits: usize,
    /// Hits not read before, picked to read.
    pub picked: usize,
    /// Of those, pages that could be read.
    pub read: usize,
    /// Evidence items taken from them.
    pub evidence: usize,
}

/// A page that could not be read: a warning that names its URL, for the Sources list.
fn unread(ctx: &Ctx, url: &str, kind: WarningKind, message: String, detail: String) -> Warning {
    Warning {
        url: Some(url.to_string()),
        kind,
        detail,
        ..warn(ctx, message)
    }
}

/// Splits `pending` into the searches to run and those skipped as near-duplicates of `done`
/// (or of each other), reporting each skip.
pub fn skip_repeats(ctx: &Ctx, pending: &[String], done: &[String]) -> (Vec<String>, Vec<String>) {
    let mut skipped = Vec::new();
    let mut queries: Vec<String> = Vec::new();
    for q in pending {
        let earlier = done.iter().chain(queries.iter());
        if let Some(similar) = earlier
            .into_iter()
            .find(|d| query_similarity(d, q) >= DUPLICATE_QUERY)
        {
            ctx.emit(Progress::Skipped {
                query: q.clone(),
                similar_to: similar.clone(),
            });
            skipped.push(q.clone());
        } else {
            queries.push(q.clone());
        }
    }
    (queries, skipped)
}

/// What the pages are read for.
#[derive(Debug, Clone, Copy)]
pub struct Reading<'a> {
    /// The question's prompt block (with a worker's sub-question), shown to the extractor.
    pub context: &'a str,
    /// The user's words ([`Brief::topic`](super::Brief::topic), a worker's sub-question):
    /// what a quote must mention.
    pub topic: &'a str,
    /// The research questions (a worker's sub-question).
    pub questions: &'a [String],
    /// The research tree whose typed searches say where to look and when (the trust
    /// pipeline's; empty in the others).
    pub tree: &'a super::tree::ResearchTree,
}

/// Runs `queries`, reads the best new hits and extracts evidence from each page.
pub async fn harvest(
    ctx: &Ctx,
    queries: &[String],
    known_urls: &BTreeSet<String>,
    max_new_sources: usize,
    reading: Reading<'_>,
) -> Result<Harvest, NodeError> {
    let l = ctx.config.config.limits();
    let env = ctx.config.clone();
    let mut warnings = Vec::new();
    let searches: Vec<(String, Result<Vec<Hit>, String>)> = stream::iter(queries.iter().cloned())
        .map(|q| {
            let env = env.clone();
            let ctx = ctx.clone();
            async move {
                ctx.emit(Progress::Searching { query: q.clone() });
                let result = env
                    .search
                    .search(
                        &reading
                            .tree
                            .typed(SearchQuery::new(q.clone(), l.results_per_search)),
                    )
                    .await
                    .map_err(|e| e.to_string());
                (q, result)
            }
        })
        .buffered(PARALLEL_PAGES)
        .collect()
        .await;
    let mut picked: Vec<(String, Hit)> = Vec::new();
    let mut picked_urls = known_urls.clone();
    let mut searches_done = Vec::new();
    let mut failures = 0;
    let mut yields: Vec<SearchYield> = Vec::new();
    for (query, result) in searches {
        searches_done.push(query.clone());
        let mut outcome = SearchYield {
            query: query.clone(),
            ..Default::default()
        };
        match &result {
            Ok(hits) => outcome.hits = hits.len(),
            Err(_) => outcome.failed = true,
        }
        match result {
            Ok(hits) => {
                let mut taken = 0;
                for hit in hits {
                    if taken >= l.pages_per_search || picked.len() >= max_new_sources {
                        break;
                    }
                    if picked_urls.insert(hit.url.clone()) {
                        picked.push((query.clone(), hit));
                        taken += 1;
                    }
                }
                outcome.picked = taken;
            }
            Err(e) => {
                failures += 1;
                let mut w = warn(ctx, format!("the search \"{query}\" failed: {e}"));
                w.kind = WarningKind::SearchFailed;
                w.detail = e;
                warnings.push(w);
            }
        }
        yields.push(outcome);
    }
    if failures > 0 && failures == queries.len() {
        // Every search failed: that is a provider problem to fix and resume, not "nothing found".
        return Err(NodeError::permanent(format!(
            "every search failed ({})",
            warnings
                .last()
                .map(|w| w.message.as_str())
                .unwrap_or("no detail")
        )));
    }
    let page_queries: Vec<String> = picked.iter().map(|(q, _)| q.clone()).collect();
    let pages: Vec<PageRead> = stream::iter(picked)
        .map(|(query, hit)| read_page(ctx, query, hit, reading, l))
        .buffered(PARALLEL_PAGES)
        .collect()
        .await;
    let mut found = Vec::new();
    for (page, query) in pages.into_iter().zip(page_queries) {
        let outcome = yields.iter_mut().find(|y| y.query == query);
        match page {
            Ok((f, ws)) => {
                if let Some(y) = outcome {
                    y.read += 1;
                    y.evidence += f.as_ref().map_or(0, |f| f.evidence.len());
                }
                found.extend(f);
                warnings.extend(ws);
            }
            Err(w) => warnings.push(w),
        }
    }
    Ok(Harvest {
        found,
        searches_done,
        warnings,
        yields,
    })
}

/// A page read: what it gave (with the model calls' warnings), or why it gave nothing.
type PageRead = Result<(Option<Found>, Vec<Warning>), Warning>;

/// Fetches one hit, stores its text, and extracts quoted facts from its most relevant chunks.
/// A page that cannot be read is a warning, not a failure; a model failure is a failure.
async fn read_page(
    ctx: &Ctx,
    query: String,
    hit: Hit,
    reading: Reading<'_>,
    l: DepthLimits,
) -> PageRead {
    let env = &ctx.config;
    ctx.emit(Progress::Reading {
        url: hit.url.clone(),
    });
    let doc = match env.fetcher.fetch(&hit.url).await {
        Ok(doc) => doc,
        Err(e) => {
            return Err(unread(
                ctx,
                &hit.url,
                WarningKind::Unreadable,
                format!("could not read {}: {e}", hit.url),
                e.to_string(),
            ))
        }
    };
    let sha256 = match env.documents.put(&doc.text) {
        Ok(sha) => sha,
        Err(e) => {
            return Err(unread(
                ctx,
                &hit.url,
                WarningKind::NotStored,
                format!("could not store {}: {e}", hit.url),
                e.to_string(),
            ))
        }
    };
    let title = doc
        .title
        .clone()
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| {
            if hit.title.trim().is_empty() {
                hit.url.clone()
            } else {
                hit.title.clone()
            }
        });
    let source = Source {
        id: 0,
        url: if hit.url.starts_with("file://") {
            hit.url.clone()
        } else {
            doc.final_url.clone()
        },
        title,
        kind: format!("{:?}", hit.kind).to_lowercase(),
        provider: hit.provider.clone(),
        published: hit.published.clone(),
        sha256,
        accessed_at_ms: ctx.clock.now_ms(),
    };
    let (evidence, warnings) = match extract(ctx, &doc.text, &query, reading, l).await {
        Ok(done) => done,
        Err(e) => {
            let mut w = warn(
                ctx,
                format!("could not extract facts from {}: {e}", hit.url),
            );
            w.kind = WarningKind::NotExtracted;
            w.detail = e.to_string();
            return Err(w);
        }
    };
    ctx.emit(Progress::Read {
        url: source.url.clone(),
        facts: evidence.len(),
    });
    let evidence = evidence
        .into_iter()
        .map(|mut e| {
            e.source_url = source.url.clone();
            e.query = query.clone();
            e
        })
        .collect();
    Ok((Some(Found { source, evidence }), warnings))
}

async fn extract(
    ctx: &Ctx,
    doc_text: &str,
    query: &str,
    reading: Reading<'_>,
    l: DepthLimits,
) -> Result<(Vec<Evidence>, Vec<Warning>), NodeError> {
    let Reading {
        context: question_context,
        topic,
        questions,
        ..
    } = reading;
    // The most relevant chunks, in document order.
    let relevance_key = format!("{query} {question_context}");
    let mut chunks: Vec<(usize, std::ops::Range<usize>)> =
        text::chunks(doc_text, text::CHUNK_CHARS)
            .into_iter()
            .map(|r| (text::overlap(&relevance_key, &doc_text[r.clone()]), r))
            .collect();
    chunks.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.start.cmp(&b.1.start)));
    chunks.truncate(l.chunks_per_page);
    chunks.sort_by_key(|c| c.1.start);
    let mut sentences = Vec::new();
    for (_, range) in chunks {
        sentences.extend(text::sentences(doc_text, range));
    }
    sentences.truncate(80);
    if sentences.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    // Each sentence as the page shows it: quotes are made of this text.
    let shown: Vec<String> = sentences
        .iter()
        .map(|s| text::plain(&doc_text[s.range.clone()]))
        .collect();
    let mut listing = String::new();
    for (i, s) in shown.iter().enumerate() {
        listing.push_str(&format!("[{}] {s}\n", i + 1));
    }
    let user = format!(
        "{question_context}Research questions:\n{}Search: {query}\n\nText:\n{listing}",
        numbered(questions)
    );
    // The schema is cut to this text: sentence numbers that exist, as many facts as wanted,
    // and at least one when the text is plainly on the topic, so a small model constrained by
    // the grammar cannot answer with numbers that point nowhere.
    let on_topic = text::overlap(&relevance_key, &listing) >= 2;
    let (out, warnings): (ExtractOut, Vec<Warning>) = ask_schema(
        ctx,
        Role::Extract,
        fill(prompts::EXTRACT, &[("facts", l.facts_per_page.to_string())]),
        user,
        600,
        extract_schema(sentences.len(), l.facts_per_page, on_topic),
    )
    .await?;
    let normalized = normalize(&text::plain(doc_text));
    // The candidates ranked against the question without the model (BM25): a choice that shares
    // nothing with the question is replaced by the best statement the model did not take.
    let texts: Vec<&str> = shown.iter().map(String::as_str).collect();
    let ranked: Vec<usize> = guard::rank_sentences(&relevance_key, &texts)
        .into_iter()
        .filter(|(_, score)| *score > 0.0)
        .map(|(i, _)| i)
        .collect();
    // The research questions count too: they carry the topic across languages (a Japanese
    // question over English pages) and are themselves guarded.
    let topic = format!("{topic} {}", questions.join(" "));
    // The best-ranked statements on the topic that no evidence item quotes or contains yet: what
    // tops up a page the model took little from.
    let untaken = |taken: &[Evidence]| {
        let taken: Vec<String> = taken.iter().map(|e| e.quote.clone()).collect();
        let (topic, normalized) = (&topic, &normalized);
        ranked.iter().map(|&i| texts[i]).filter(move |t| {
            guard::statement(t)
                && guard::mentions(topic, t)
                && quote_in(t, normalized)
                && !taken
                    .iter()
                    .any(|q| q.contains(*t) || t.contains(q.as_str()))
        })
    };
    let mut evidence: Vec<Evidence> = Vec::new();
    for f in out.facts.into_iter().take(l.facts_per_page) {
        let first = f.sentence.clamp(0, 10_000) as usize;
        if first == 0 || first > sentences.len() {
            continue;
        }
        // A continuation that runs past the text or too far is read as the one sentence.
        let end = f.end_sentence.clamp(0, 10_000) as usize;
        let last = if end >= first && end <= sentences.len() && end - first <= 3 {
            end
        } else {
            first
        };
        // The sentences as the page shows them, joined; when the stored text has something
        // between them that is not a sentence (a list of links, a table), only the first.
        let mut quote = shown[first - 1..last].join(" ");
        if !quote_in(&quote, &normalized) {
            quote = shown[first - 1].clone();
        }
        let mut fact = f.fact.trim().to_string();
        // On topic means sharing a word with what the user asked or a research question (not
        // only with the search, which a weak model's plan may have sent anywhere).
        if !guard::mentions(&topic, &quote) || !guard::statement(&quote) {
            // Off the question, or not a statement (a heading, a list number, a checksum line):
            // the best-ranked statement on the topic not taken yet stands in, as it reads.
            let Some(best) = ranked.iter().map(|&i| texts[i]).find(|t| {
                guard::statement(t)
                    && guard::mentions(&topic, t)
                    && !evidence.iter().any(|e| e.quote == *t)
            }) else {
                continue;
            };
            quote = best.to_string();
            fact = quote.clone();
        }
        // Verbatim by construction; checked anyway, since this is the product's promise.
        if !quote_in(&quote, &normalized) || evidence.iter().any(|e| e.quote == quote) {
            continue;
        }
        // A fact that is empty, looped, or says what its quote does not is replaced by the quote.
        if fact.is_empty()
            || guard::degenerate(&fact).is_some()
            || !guard::fact_matches_quote(&fact, &quote)
        {
            fact = quote.clone();
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
            .map(|t| Evidence::unnumbered(t.to_string(), t.to_string()))
            .collect();
        evidence.extend(more);
    }
    Ok((evidence, warnings))
}

/// Passages taken from an on-topic page at least, by rank, when the model took fewer.
const FALLBACK_PASSAGES: usize = 2;

/// Numbers new sources and evidence after those already known, dropping duplicates.
pub fn number(
    sources: &mut Vec<Source>,
    evidence: &mut Vec<Evidence>,
    found: impl IntoIterator<Item = Found>,
) {
    let mut ids: BTreeMap<String, u32> = sources.iter().map(|s| (s.url.clone(), s.id)).collect();
    for f in found {
        let id = match ids.get(&f.source.url) {
            Some(id) => *id,
            None => {
                let id = sources.len() as u32 + 1;
                let mut source = f.source.clone();
                source.id = id;
                sources.push(source);
                ids.insert(f.source.url.clone(), id);
                id
            }
        };
        for mut e in f.evidence {
            if evidence
                .iter()
                .any(|x| x.source_id == id && x.quote == e.quote)
            {
                continue;
            }
            e.id = evidence.len() as u32 + 1;
            e.source_id = id;
            evidence.push(e);
        }
    }
}
