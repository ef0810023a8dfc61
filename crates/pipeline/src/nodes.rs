//! The steps of the pipeline. Each is an async function of the state (or a worker's assignment)
//! and the run's [`Env`]; model calls are typed and schema-constrained, and everything a model
//! says about a source is checked against the source's stored text before it is kept.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use futures::stream::{self, StreamExt};
use research_graph::{NodeCtx, NodeError};
use research_llm::{estimate_tokens, ChatRequest, LlmClient, LlmError, Message};
use research_search::{Hit, SearchQuery};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::config::DepthLimits;
use crate::prompts::{self, fill, language_name};
use crate::report;
use crate::state::*;
use crate::text::{self, normalize, query_similarity, quote_in, DUPLICATE_QUERY};
use crate::{Env, Progress};

type Ctx = NodeCtx<Env>;
type NodeResult = Result<ResearchUpdate, NodeError>;

/// How many page fetches and extractions run at once within one step.
const PARALLEL_PAGES: usize = 8;

fn llm_error(e: LlmError) -> NodeError {
    // The HTTP layer already retried what can be retried; the run stops at its checkpoint.
    NodeError::permanent(e)
}

/// The metered client for `role` and a request to it, shrunk to the model's context.
fn request_for(
    ctx: &Ctx,
    role: &str,
    system: String,
    user: String,
    max_tokens: u32,
) -> (research_llm::Metered, ChatRequest) {
    let client = ctx.config.models.for_role(role, ctx.node());
    let user = fit_to_context(&client, &system, user, max_tokens);
    let mut request =
        ChatRequest::new(vec![Message::system(system), Message::user(user)]).purpose(role);
    request.max_tokens = Some(max_tokens);
    request.temperature = Some(0.2);
    (client, request)
}

/// The extraction schema for a text of `sentences` numbered sentences.
fn extract_schema(
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

/// Asks for JSON valid for `schema` (checked), read as a `T`.
async fn ask_schema<T: DeserializeOwned>(
    ctx: &Ctx,
    role: &str,
    system: String,
    user: String,
    max_tokens: u32,
    schema: research_llm::OutputSchema,
) -> Result<T, NodeError> {
    let (client, request) = request_for(ctx, role, system, user, max_tokens);
    let value = match research_llm::generate_json(&client, request, schema, None).await {
        Ok(answer) => answer.value,
        // Out-of-range numbers in an otherwise readable answer: keep it, the caller filters.
        Err(LlmError::InvalidOutput { raw, error, .. }) => research_llm::json::extract(&raw)
            .and_then(|text| serde_json::from_str(&text).ok())
            .ok_or_else(|| {
                NodeError::permanent(format!(
                    "the model did not produce valid JSON for {role}: {error}"
                ))
            })?,
        Err(e) => return Err(llm_error(e)),
    };
    serde_json::from_value(value)
        .map_err(|e| NodeError::permanent(format!("the {role} answer has the wrong shape: {e}")))
}

/// Like [`ask`], but a model that cannot produce the JSON even after the re-ask is a warning
/// and `None`, for steps whose work has a sensible default (a small local model must not sink
/// a whole run over a gap assessment). Provider failures still stop the run.
async fn ask_or<T: JsonSchema + DeserializeOwned>(
    ctx: &Ctx,
    role: &str,
    system: String,
    user: String,
    max_tokens: u32,
) -> Result<(Option<T>, Vec<Warning>), NodeError> {
    let (client, request) = request_for(ctx, role, system, user, max_tokens);
    match research_llm::generate::<T>(&client, request, None).await {
        Ok(answer) => Ok((Some(answer.value), Vec::new())),
        Err(e @ LlmError::InvalidOutput { .. }) => Ok((
            None,
            vec![warn(
                ctx,
                format!("the {role} step went on without the model's answer: {e}"),
            )],
        )),
        Err(e) => Err(llm_error(e)),
    }
}

/// The context guard: cuts the user message (whose tail holds the least important evidence)
/// so that the prompt and the answer fit the model's window.
fn fit_to_context(client: &dyn LlmClient, system: &str, user: String, max_tokens: u32) -> String {
    let Some(window) = client.context_tokens() else {
        return user;
    };
    // Estimates run a little under real tokenizers on code and numbers: keep a margin.
    let room = (window.saturating_sub(max_tokens as usize + 64) * 8 / 10)
        .saturating_sub(estimate_tokens(system));
    if estimate_tokens(&user) <= room {
        return user;
    }
    let mut kept = String::new();
    for line in user.split_inclusive('\n') {
        if estimate_tokens(&kept) + estimate_tokens(line) > room {
            break;
        }
        kept.push_str(line);
    }
    kept
}

fn limits(ctx: &Ctx) -> DepthLimits {
    ctx.config.config.limits()
}

fn numbered(items: &[String]) -> String {
    items
        .iter()
        .enumerate()
        .map(|(i, q)| format!("{}. {q}\n", i + 1))
        .collect()
}

fn follow_up_context(state: &ResearchState) -> String {
    if state.context.is_empty() {
        String::new()
    } else {
        format!(
            "Earlier in this research session:\n{}\n\nThe new question is a follow-up; read it in that light.\n",
            state.context
        )
    }
}

fn context_block(state: &ResearchState) -> String {
    let mut out = String::new();
    if !state.context.is_empty() {
        // A follow-up: the earlier turns of the session, so "it" and "they" resolve.
        out.push_str(&format!(
            "Earlier in this research session:\n{}\n\nThis is a follow-up question.\n",
            state.context
        ));
    }
    out.push_str(&format!("Research question: {}\n", state.query));
    if !state.clarification.is_empty() {
        out.push_str(&format!("Clarification: {}\n", state.clarification));
    }
    out
}

// ---------------------------------------------------------------------------------------------
// understand → clarify → plan → review_plan

#[derive(Debug, Deserialize, JsonSchema)]
struct UnderstandOut {
    is_clear: bool,
    #[schemars(length(max = 3), inner(length(max = 40)))]
    ambiguities: Vec<String>,
    #[schemars(length(max = 200))]
    question: String,
    #[schemars(length(max = 5), inner(length(max = 80)))]
    options: Vec<String>,
    #[schemars(length(max = 200))]
    interpretation: String,
}

pub(crate) async fn understand(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let (out, skipped_warnings) = ask_or::<UnderstandOut>(
        &ctx,
        "understand",
        prompts::UNDERSTAND.to_string(),
        format!("{}Question: {}", follow_up_context(&state), state.query),
        600,
    )
    .await?;
    let out = out.unwrap_or_else(|| UnderstandOut {
        is_clear: true,
        ambiguities: Vec::new(),
        question: String::new(),
        options: Vec::new(),
        interpretation: String::new(),
    });
    let mut options: Vec<String> = Vec::new();
    for o in out.options {
        let o = o.trim().to_string();
        if !o.is_empty() && !options.iter().any(|x| x.eq_ignore_ascii_case(&o)) {
            options.push(o);
        }
    }
    options.truncate(5);
    // A clarification without real choices would only stall the run.
    let is_clear = out.is_clear || options.len() < 2 || out.question.trim().is_empty();
    let understanding = Understanding {
        is_clear,
        ambiguities: out.ambiguities,
        question: out.question.trim().to_string(),
        options,
        interpretation: out.interpretation.trim().to_string(),
    };
    let config = &ctx.config.config;
    let ask_user = !is_clear && config.review.clarify && !config.no_input;
    let mut update = ResearchUpdate {
        ask_clarification: Some(ask_user),
        warnings: Some(skipped_warnings),
        ..Default::default()
    };
    if !is_clear && !ask_user {
        let reading = if understanding.interpretation.is_empty() {
            state.query.clone()
        } else {
            understanding.interpretation.clone()
        };
        update.decisions = Some(vec![Decision {
            point: "clarification".into(),
            decision: format!("the question was read as: {reading}"),
            automatic: true,
        }]);
        update.clarification = Some(reading);
    }
    update.understanding = Some(understanding);
    Ok(update)
}

pub(crate) async fn clarify(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let u = &state.understanding;
    let answer: Answer = ctx.interrupt(Question::Clarify {
        question: u.question.clone(),
        options: u.options.clone(),
        ambiguities: u.ambiguities.clone(),
    })?;
    let text = match answer {
        Answer::Clarify { text } => text.trim().to_string(),
        other => {
            return Err(NodeError::permanent(format!(
                "the clarification question needs a clarification answer, not {other:?}"
            )))
        }
    };
    let text = if text.is_empty() {
        u.interpretation.clone()
    } else {
        text
    };
    Ok(ResearchUpdate {
        decisions: Some(vec![Decision {
            point: "clarification".into(),
            decision: text.clone(),
            automatic: false,
        }]),
        clarification: Some(text),
        ..Default::default()
    })
}

#[derive(Debug, Deserialize, JsonSchema)]
struct PlanOut {
    #[schemars(length(min = 1, max = 5), inner(length(min = 3, max = 160)))]
    questions: Vec<String>,
    #[schemars(length(max = 6), inner(length(max = 60)))]
    aspects: Vec<String>,
    #[schemars(length(min = 1, max = 6), inner(length(min = 3, max = 80)))]
    searches: Vec<String>,
}

/// Trims, drops empties and near-duplicates (of each other and of `done`), and caps the count.
fn distinct_searches(candidates: Vec<String>, done: &[String], max: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in candidates {
        let c = c.trim().trim_matches('"').trim().to_string();
        if c.is_empty() || c.chars().count() > 300 {
            continue;
        }
        let seen = done
            .iter()
            .chain(out.iter())
            .any(|d| query_similarity(d, &c) >= DUPLICATE_QUERY);
        if !seen {
            out.push(c);
        }
        if out.len() >= max {
            break;
        }
    }
    out
}

fn clean_list(items: Vec<String>, max: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for i in items {
        let i = i.trim().to_string();
        if !i.is_empty() && !out.contains(&i) {
            out.push(i);
        }
    }
    out.truncate(max);
    out
}

pub(crate) async fn plan(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let l = limits(&ctx);
    let (out, skipped_warnings) = ask_or::<PlanOut>(
        &ctx,
        "plan",
        fill(
            prompts::PLAN,
            &[
                ("questions", l.questions.to_string()),
                ("searches", l.initial_searches.to_string()),
            ],
        ),
        context_block(&state),
        700,
    )
    .await?;
    let out = out.unwrap_or_else(|| PlanOut {
        questions: Vec::new(),
        aspects: Vec::new(),
        searches: Vec::new(),
    });
    let mut questions = clean_list(out.questions, l.questions);
    if questions.is_empty() {
        questions.push(state.query.clone());
    }
    let mut searches = distinct_searches(out.searches, &[], l.initial_searches);
    if searches.is_empty() {
        searches.push(state.query.clone());
    }
    let plan = Plan {
        questions,
        aspects: clean_list(out.aspects, 8),
        searches: searches.clone(),
    };
    Ok(ResearchUpdate {
        mode: Some(ctx.config.config.mode),
        warnings: Some(skipped_warnings),
        pending_searches: Some(searches),
        plan: Some(plan),
        iteration: Some(0),
        ..Default::default()
    })
}

pub(crate) async fn review_plan(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let config = &ctx.config.config;
    if !config.review.plan {
        return Ok(ResearchUpdate::default());
    }
    if config.no_input {
        return Ok(ResearchUpdate {
            decisions: Some(vec![Decision {
                point: "plan review".into(),
                decision: "approved".into(),
                automatic: true,
            }]),
            ..Default::default()
        });
    }
    let answer: Answer = ctx.interrupt(Question::PlanReview {
        plan: state.plan.clone(),
    })?;
    let decision = |d: &str| {
        Some(vec![Decision {
            point: "plan review".into(),
            decision: d.into(),
            automatic: false,
        }])
    };
    match answer {
        Answer::ApprovePlan => Ok(ResearchUpdate {
            decisions: decision("approved"),
            ..Default::default()
        }),
        Answer::EditPlan { plan } => {
            let l = limits(&ctx);
            let questions = clean_list(plan.questions, 10);
            let searches = distinct_searches(plan.searches, &[], l.initial_searches.max(10));
            if searches.is_empty() {
                return Err(NodeError::permanent(
                    "the edited plan has no searches; give at least one",
                ));
            }
            Ok(ResearchUpdate {
                decisions: decision("edited"),
                pending_searches: Some(searches.clone()),
                plan: Some(Plan {
                    questions: if questions.is_empty() {
                        vec![state.query.clone()]
                    } else {
                        questions
                    },
                    aspects: plan.aspects,
                    searches,
                }),
                ..Default::default()
            })
        }
        Answer::CancelPlan => Ok(ResearchUpdate {
            decisions: decision("cancelled"),
            outcome: Some(Outcome::Cancelled),
            finished_at_ms: Some(ctx.clock.now_ms()),
            ..Default::default()
        }),
        other => Err(NodeError::permanent(format!(
            "the plan review needs approve, edit or cancel, not {other:?}"
        ))),
    }
}

// ---------------------------------------------------------------------------------------------
// Searching, reading and extracting: shared by the single agent and the workers.

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
struct Harvest {
    found: Vec<Found>,
    searches_done: Vec<String>,
    warnings: Vec<Warning>,
}

fn warn(ctx: &Ctx, message: String) -> Warning {
    ctx.emit(Progress::Warning {
        message: message.clone(),
    });
    tracing::warn!(node = ctx.node(), "{message}");
    Warning {
        node: ctx.node().to_string(),
        message,
        url: None,
    }
}

/// A page that could not be read: a warning that names its URL, for the Sources list.
fn unread(ctx: &Ctx, url: &str, message: String) -> Warning {
    Warning {
        url: Some(url.to_string()),
        ..warn(ctx, message)
    }
}

/// Runs `queries`, reads the best new hits and extracts evidence from each page.
async fn harvest(
    ctx: &Ctx,
    queries: &[String],
    known_urls: &BTreeSet<String>,
    max_new_sources: usize,
    question_context: &str,
    questions: &[String],
) -> Result<Harvest, NodeError> {
    let l = limits(ctx);
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
                    .search(&SearchQuery::new(q.clone(), l.results_per_search))
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
    for (query, result) in searches {
        searches_done.push(query.clone());
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
            }
            Err(e) => {
                failures += 1;
                warnings.push(warn(ctx, format!("the search \"{query}\" failed: {e}")));
            }
        }
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
    let pages: Vec<Result<Option<Found>, Warning>> = stream::iter(picked)
        .map(|(query, hit)| read_page(ctx, query, hit, question_context, questions, l))
        .buffered(PARALLEL_PAGES)
        .collect()
        .await;
    let mut found = Vec::new();
    for page in pages {
        match page {
            Ok(Some(f)) => found.push(f),
            Ok(None) => {}
            Err(w) => warnings.push(w),
        }
    }
    Ok(Harvest {
        found,
        searches_done,
        warnings,
    })
}

/// Fetches one hit, stores its text, and extracts quoted facts from its most relevant chunks.
/// A page that cannot be read is a warning, not a failure; a model failure is a failure.
async fn read_page(
    ctx: &Ctx,
    query: String,
    hit: Hit,
    question_context: &str,
    questions: &[String],
    l: DepthLimits,
) -> Result<Option<Found>, Warning> {
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
                format!("could not read {}: {e}", hit.url),
            ))
        }
    };
    let sha256 = match env.documents.put(&doc.text) {
        Ok(sha) => sha,
        Err(e) => {
            return Err(unread(
                ctx,
                &hit.url,
                format!("could not store {}: {e}", hit.url),
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
        sha256,
        accessed_at_ms: ctx.clock.now_ms(),
    };
    let evidence = match extract(ctx, &doc.text, &query, question_context, questions, l).await {
        Ok(evidence) => evidence,
        Err(e) => {
            return Err(warn(
                ctx,
                format!("could not extract facts from {}: {e}", hit.url),
            ))
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
    Ok(Some(Found { source, evidence }))
}

async fn extract(
    ctx: &Ctx,
    doc_text: &str,
    query: &str,
    question_context: &str,
    questions: &[String],
    l: DepthLimits,
) -> Result<Vec<Evidence>, NodeError> {
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
        return Ok(Vec::new());
    }
    let mut listing = String::new();
    for (i, s) in sentences.iter().enumerate() {
        listing.push_str(&format!("[{}] {}\n", i + 1, &doc_text[s.range.clone()]));
    }
    let user = format!(
        "{question_context}Research questions:\n{}Search: {query}\n\nText:\n{listing}",
        numbered(questions)
    );
    // The schema is cut to this text: sentence numbers that exist, as many facts as wanted,
    // and at least one when the text is plainly on the topic, so a small model constrained by
    // the grammar cannot answer with numbers that point nowhere.
    let on_topic = text::overlap(&relevance_key, &listing) >= 2;
    let out: ExtractOut = ask_schema(
        ctx,
        "extract",
        fill(prompts::EXTRACT, &[("facts", l.facts_per_page.to_string())]),
        user,
        600,
        extract_schema(sentences.len(), l.facts_per_page, on_topic),
    )
    .await?;
    let normalized = normalize(doc_text);
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
        let span = sentences[first - 1].range.start..sentences[last - 1].range.end;
        let quote = doc_text[span].trim().to_string();
        // Verbatim by construction; checked anyway, since this is the product's promise.
        if !quote_in(&quote, &normalized) || evidence.iter().any(|e| e.quote == quote) {
            continue;
        }
        let fact = f.fact.trim().to_string();
        evidence.push(Evidence {
            id: 0,
            source_id: 0,
            source_url: String::new(),
            fact: if fact.is_empty() { quote.clone() } else { fact },
            quote,
            question: None,
            query: String::new(),
        });
    }
    Ok(evidence)
}

/// Numbers new sources and evidence after those already known, dropping duplicates.
fn number(
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

pub(crate) async fn search_and_extract(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let l = limits(&ctx);
    let mut skipped = Vec::new();
    let mut queries = Vec::new();
    for q in &state.pending_searches {
        let earlier = state.searches_done.iter().chain(queries.iter());
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
    let known: BTreeSet<String> = state.sources.iter().map(|s| s.url.clone()).collect();
    let room = l.max_sources.saturating_sub(state.sources.len());
    let harvest = harvest(
        &ctx,
        &queries,
        &known,
        room,
        &context_block(&state),
        &state.plan.questions,
    )
    .await?;
    let mut sources = state.sources.clone();
    let mut evidence = state.evidence.clone();
    number(&mut sources, &mut evidence, harvest.found);
    Ok(ResearchUpdate {
        sources: Some(sources),
        evidence: Some(evidence),
        searches_done: Some(harvest.searches_done),
        searches_skipped: Some(skipped),
        pending_searches: Some(Vec::new()),
        warnings: Some(harvest.warnings),
        ..Default::default()
    })
}

// ---------------------------------------------------------------------------------------------
// The gap loop (single agent)

#[derive(Debug, Deserialize, JsonSchema)]
struct QuestionCoverage {
    #[schemars(range(min = 1, max = 10))]
    question: i64,
    status: Coverage,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct GapsOut {
    #[schemars(length(max = 6))]
    coverage: Vec<QuestionCoverage>,
    #[schemars(length(max = 4), inner(length(max = 150)))]
    gaps: Vec<String>,
    #[schemars(length(max = 5), inner(length(max = 80)))]
    new_searches: Vec<String>,
}

fn evidence_listing(evidence: &[Evidence]) -> String {
    evidence
        .iter()
        .map(|e| format!("- [{}] {}\n", e.source_id, e.fact.replace('\n', " ")))
        .collect()
}

pub(crate) async fn detect_gaps(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let l = limits(&ctx);
    let questions = &state.plan.questions;
    let user = format!(
        "{}Research questions:\n{}\nEvidence collected so far:\n{}",
        context_block(&state),
        numbered(questions),
        if state.evidence.is_empty() {
            "(none)\n".to_string()
        } else {
            evidence_listing(&state.evidence)
        }
    );
    let (out, skipped_warnings) = ask_or::<GapsOut>(
        &ctx,
        "gaps",
        fill(
            prompts::GAPS,
            &[("searches", l.initial_searches.to_string())],
        ),
        user,
        600,
    )
    .await?;
    let out = out.unwrap_or_else(|| GapsOut {
        coverage: Vec::new(),
        gaps: Vec::new(),
        new_searches: Vec::new(),
    });
    // Evidence only accumulates, so a question's coverage never goes down.
    let mut by_question = state.coverage_by_question.clone();
    by_question.resize(questions.len(), Coverage::Missing);
    for c in out.coverage {
        let i = c.question.clamp(0, 1_000) as usize;
        if i >= 1 && i <= by_question.len() {
            by_question[i - 1] = by_question[i - 1].max(c.status);
        }
    }
    if state.evidence.is_empty() {
        // Nothing found cannot cover anything, whatever the model says.
        by_question.iter_mut().for_each(|c| *c = Coverage::Missing);
    }
    let coverage = if by_question.is_empty() {
        0.0
    } else {
        by_question.iter().map(|c| c.score()).sum::<f64>() / by_question.len() as f64
    };
    let coverage = coverage.max(state.coverage).clamp(0.0, 1.0);
    let iteration = state.iteration + 1;
    let pending = distinct_searches(out.new_searches, &state.searches_done, l.initial_searches);
    ctx.emit(Progress::Coverage {
        iteration,
        coverage,
        gaps: out.gaps.len(),
    });
    Ok(ResearchUpdate {
        coverage_by_question: Some(by_question),
        coverage: Some(coverage),
        coverage_history: Some(vec![coverage]),
        gaps: Some(clean_list(out.gaps, 5)),
        warnings: Some(skipped_warnings),
        pending_searches: Some(pending),
        iteration: Some(iteration),
        ..Default::default()
    })
}

/// The gap loop's exits (seed 004): enough coverage, nothing left to search, or out of rounds.
pub(crate) fn after_gaps(state: &ResearchState, min_coverage: f64, max_iterations: u32) -> bool {
    state.coverage >= min_coverage
        || state.pending_searches.is_empty()
        || state.iteration >= max_iterations
}

// ---------------------------------------------------------------------------------------------
// Multi agent: orchestrate → search_worker × N → collect → synthesize

#[derive(Debug, Deserialize, JsonSchema)]
struct SubQuestionOut {
    #[schemars(length(max = 200))]
    question: String,
    #[schemars(length(max = 3), inner(length(max = 80)))]
    searches: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct OrchestrateOut {
    #[schemars(length(max = 5))]
    sub_questions: Vec<SubQuestionOut>,
}

/// A worker's input: its assignment and the URLs already read.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct WorkerInput {
    pub assignment: Assignment,
    pub known_urls: BTreeSet<String>,
    pub max_sources: usize,
    pub context: String,
}

pub(crate) async fn orchestrate(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let l = limits(&ctx);
    let mut user = format!(
        "{}Planned research questions:\n{}",
        context_block(&state),
        numbered(&state.plan.questions)
    );
    if state.iteration > 0 {
        user.push_str(&format!(
            "\nEarlier rounds left these gaps:\n{}\nSuggested searches:\n{}\nSearches already run (do not repeat):\n{}",
            numbered(&state.synthesis.gaps),
            numbered(&state.synthesis.additional_searches),
            numbered(&state.searches_done)
        ));
    }
    let (out, skipped_warnings) = ask_or::<OrchestrateOut>(
        &ctx,
        "orchestrate",
        fill(
            prompts::ORCHESTRATE,
            &[
                ("workers", l.workers.to_string()),
                ("searches", l.searches_per_worker.to_string()),
            ],
        ),
        user,
        700,
    )
    .await?;
    let out = out.unwrap_or_else(|| OrchestrateOut {
        sub_questions: Vec::new(),
    });
    let round = state.iteration + 1;
    let mut done = state.searches_done.clone();
    let mut assignments = Vec::new();
    for sq in out.sub_questions.into_iter().take(l.workers) {
        let question = sq.question.trim().to_string();
        if question.is_empty() {
            continue;
        }
        let mut searches = distinct_searches(sq.searches, &done, l.searches_per_worker);
        if searches.is_empty()
            && !done
                .iter()
                .any(|d| query_similarity(d, &question) >= DUPLICATE_QUERY)
        {
            searches.push(question.clone());
        }
        if searches.is_empty() {
            continue;
        }
        done.extend(searches.iter().cloned());
        assignments.push(Assignment {
            index: assignments.len(),
            round,
            question,
            searches,
            query: state.query.clone(),
        });
    }
    if assignments.is_empty() {
        // The plan's own searches, split among workers, when the model offered nothing usable.
        let pending = distinct_searches(
            state
                .plan
                .searches
                .iter()
                .chain(state.synthesis.additional_searches.iter())
                .cloned()
                .collect(),
            &state.searches_done,
            l.workers * l.searches_per_worker,
        );
        for (i, chunk) in pending.chunks(l.searches_per_worker).enumerate() {
            assignments.push(Assignment {
                index: i,
                round,
                question: state
                    .plan
                    .questions
                    .get(i)
                    .cloned()
                    .unwrap_or_else(|| state.query.clone()),
                searches: chunk.to_vec(),
                query: state.query.clone(),
            });
        }
    }
    Ok(ResearchUpdate {
        assignments: Some(assignments),
        warnings: Some(skipped_warnings),
        ..Default::default()
    })
}

/// The fan-out: one worker per assignment.
pub(crate) fn fan_out(state: &ResearchState, max_sources: usize) -> Vec<research_graph::Send> {
    let known: BTreeSet<String> = state.sources.iter().map(|s| s.url.clone()).collect();
    let room = max_sources.saturating_sub(state.sources.len());
    let per_worker = (room / state.assignments.len().max(1)).max(1);
    state
        .assignments
        .iter()
        .map(|a| {
            research_graph::Send::new(
                "search_worker",
                WorkerInput {
                    assignment: a.clone(),
                    known_urls: known.clone(),
                    max_sources: per_worker,
                    context: context_block(state),
                },
            )
        })
        .collect()
}

#[derive(Debug, Deserialize, JsonSchema)]
struct WorkerSummaryOut {
    #[schemars(length(max = 800))]
    answer: String,
    #[schemars(length(max = 5), inner(length(max = 150)))]
    findings: Vec<String>,
    confidence: f64,
    #[schemars(length(max = 3), inner(length(max = 120)))]
    gaps: Vec<String>,
}

pub(crate) async fn search_worker(input: WorkerInput, ctx: Ctx) -> NodeResult {
    let a = &input.assignment;
    ctx.emit(Progress::Assigned {
        question: a.question.clone(),
    });
    let context = format!("{}Sub-question: {}\n", input.context, a.question);
    let harvest = harvest(
        &ctx,
        &a.searches,
        &input.known_urls,
        input.max_sources,
        &context,
        std::slice::from_ref(&a.question),
    )
    .await?;
    let mut warnings = harvest.warnings.clone();
    let facts: Vec<Evidence> = harvest
        .found
        .iter()
        .flat_map(|f| f.evidence.iter().cloned())
        .collect();
    let summary = if facts.is_empty() {
        WorkerSummaryOut {
            answer: String::new(),
            findings: Vec::new(),
            confidence: 0.0,
            gaps: vec![a.question.clone()],
        }
    } else {
        let listing: String = facts
            .iter()
            .map(|e| format!("- {}\n", e.fact.replace('\n', " ")))
            .collect();
        let (out, skipped) = ask_or::<WorkerSummaryOut>(
            &ctx,
            "summarize",
            prompts::WORKER_SUMMARY.to_string(),
            format!("{context}\nFacts found:\n{listing}"),
            700,
        )
        .await?;
        warnings.extend(skipped);
        out.unwrap_or(WorkerSummaryOut {
            answer: String::new(),
            findings: facts.iter().take(5).map(|e| e.fact.clone()).collect(),
            confidence: 0.5,
            gaps: Vec::new(),
        })
    };
    Ok(ResearchUpdate {
        found: Some(harvest.found),
        worker_results: Some(vec![WorkerResult {
            assignment: a.clone(),
            answer: summary.answer.trim().to_string(),
            findings: clean_list(summary.findings, 6),
            confidence: summary.confidence.clamp(0.0, 1.0),
            gaps: clean_list(summary.gaps, 4),
            searches_done: harvest.searches_done.clone(),
        }]),
        done_workers: Some(1),
        searches_done: Some(harvest.searches_done),
        warnings: Some(warnings),
        ..Default::default()
    })
}

pub(crate) async fn collect(state: Arc<ResearchState>, _ctx: Ctx) -> NodeResult {
    let mut sources = state.sources.clone();
    let mut evidence = state.evidence.clone();
    // `found` holds every round's pages in worker order; numbering skips what is known.
    number(&mut sources, &mut evidence, state.found.iter().cloned());
    Ok(ResearchUpdate {
        sources: Some(sources),
        evidence: Some(evidence),
        ..Default::default()
    })
}

#[derive(Debug, Deserialize, JsonSchema)]
struct SynthesisOut {
    needs_more_research: bool,
    #[schemars(length(max = 1000))]
    summary: String,
    #[schemars(length(max = 3), inner(length(max = 150)))]
    conflicts: Vec<String>,
    #[schemars(length(max = 3), inner(length(max = 150)))]
    gaps: Vec<String>,
    #[schemars(length(max = 5), inner(length(max = 80)))]
    additional_searches: Vec<String>,
}

pub(crate) async fn synthesize(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let l = limits(&ctx);
    let round = state.iteration + 1;
    let this_round: Vec<&WorkerResult> = state
        .worker_results
        .iter()
        .filter(|w| w.assignment.round == round)
        .collect();
    let mut listing = String::new();
    for w in &this_round {
        listing.push_str(&format!(
            "### {}\nAnswer: {}\nFindings:\n{}Confidence: {:.2}\nGaps: {}\n\n",
            w.assignment.question,
            w.answer,
            w.findings
                .iter()
                .map(|f| format!("- {f}\n"))
                .collect::<String>(),
            w.confidence,
            w.gaps.join("; ")
        ));
    }
    let (out, skipped_warnings) = ask_or::<SynthesisOut>(
        &ctx,
        "synthesize",
        fill(
            prompts::SYNTHESIZE,
            &[("searches", l.initial_searches.to_string())],
        ),
        format!("{}\nResearcher reports:\n{listing}", context_block(&state)),
        800,
    )
    .await?;
    let out = out.unwrap_or_else(|| SynthesisOut {
        needs_more_research: false,
        summary: String::new(),
        conflicts: Vec::new(),
        gaps: Vec::new(),
        additional_searches: Vec::new(),
    });
    let confidences: Vec<f64> = this_round.iter().map(|w| w.confidence).collect();
    let mean = if confidences.is_empty() || state.evidence.is_empty() {
        0.0
    } else {
        confidences.iter().sum::<f64>() / confidences.len() as f64
    };
    let coverage = mean.max(state.coverage).clamp(0.0, 1.0);
    let additional = distinct_searches(
        out.additional_searches,
        &state.searches_done,
        l.initial_searches,
    );
    ctx.emit(Progress::Coverage {
        iteration: round,
        coverage,
        gaps: out.gaps.len(),
    });
    Ok(ResearchUpdate {
        synthesis: Some(Synthesis {
            summary: out.summary.trim().to_string(),
            conflicts: clean_list(out.conflicts, 4),
            gaps: clean_list(out.gaps.clone(), 4),
            additional_searches: additional,
            needs_more_research: out.needs_more_research,
        }),
        gaps: Some(clean_list(out.gaps, 4)),
        warnings: Some(skipped_warnings),
        iteration: Some(round),
        coverage: Some(coverage),
        coverage_history: Some(vec![coverage]),
        ..Default::default()
    })
}

/// Whether the synthesis loop is done.
pub(crate) fn after_synthesis(state: &ResearchState, max_iterations: u32) -> bool {
    !state.synthesis.needs_more_research
        || state.iteration >= max_iterations
        || state.synthesis.additional_searches.is_empty()
}

// ---------------------------------------------------------------------------------------------
// verify → write_report → review_report → revise_report

#[derive(Debug, Deserialize, JsonSchema)]
struct Verdict {
    #[schemars(range(min = 1, max = 20))]
    claim: i64,
    supported: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct VerifyOut {
    #[schemars(length(max = 20))]
    verdicts: Vec<Verdict>,
}

/// Up to `max` evidence items, taken round-robin over sources so one page cannot crowd out the
/// rest.
fn spread(evidence: &[Evidence], max: usize) -> Vec<Evidence> {
    let mut by_source: BTreeMap<u32, Vec<&Evidence>> = BTreeMap::new();
    for e in evidence {
        by_source.entry(e.source_id).or_default().push(e);
    }
    let mut out = Vec::new();
    let mut round = 0;
    while out.len() < max {
        let mut any = false;
        for items in by_source.values() {
            if let Some(e) = items.get(round) {
                out.push((*e).clone());
                any = true;
                if out.len() >= max {
                    break;
                }
            }
        }
        if !any {
            break;
        }
        round += 1;
    }
    out.sort_by_key(|e| e.id);
    out
}

pub(crate) async fn verify(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let chosen = spread(&state.evidence, 20);
    if chosen.is_empty() {
        return Ok(ResearchUpdate {
            claims: Some(Vec::new()),
            confidence: Some(0.0),
            ..Default::default()
        });
    }
    let listing: String = chosen
        .iter()
        .enumerate()
        .map(|(i, e)| {
            format!(
                "Claim {}: {}\nQuote: \"{}\"\n\n",
                i + 1,
                e.fact.replace('\n', " "),
                e.quote.replace('\n', " ")
            )
        })
        .collect();
    let (out, skipped_warnings) =
        ask_or::<VerifyOut>(&ctx, "verify", prompts::VERIFY.to_string(), listing, 600).await?;
    let out = out.unwrap_or_else(|| VerifyOut {
        verdicts: Vec::new(),
    });
    if !skipped_warnings.is_empty() {
        // Unchecked is not the same as unsupported: report no verification rather than 0%.
        return Ok(ResearchUpdate {
            claims: Some(Vec::new()),
            confidence: Some(0.0),
            warnings: Some(skipped_warnings),
            ..Default::default()
        });
    }
    let verdicts: BTreeMap<usize, bool> = out
        .verdicts
        .into_iter()
        .map(|v| (v.claim.clamp(0, 1_000) as usize, v.supported))
        .collect();
    // A claim the model skipped is not counted as supported.
    let claims: Vec<Claim> = chosen
        .iter()
        .enumerate()
        .map(|(i, e)| Claim {
            evidence_id: e.id,
            text: e.fact.clone(),
            supported: verdicts.get(&(i + 1)).copied().unwrap_or(false),
        })
        .collect();
    let supported = claims.iter().filter(|c| c.supported).count();
    let confidence = supported as f64 / claims.len() as f64;
    Ok(ResearchUpdate {
        claims: Some(claims),
        confidence: Some(confidence),
        ..Default::default()
    })
}

/// The evidence the writer gets: the supported claims' evidence when there is any.
fn writer_evidence(state: &ResearchState) -> Vec<Evidence> {
    let supported: BTreeSet<u32> = state
        .claims
        .iter()
        .filter(|c| c.supported)
        .map(|c| c.evidence_id)
        .collect();
    let chosen: Vec<Evidence> = state
        .evidence
        .iter()
        .filter(|e| supported.contains(&e.id))
        .cloned()
        .collect();
    if chosen.is_empty() {
        spread(&state.evidence, 20)
    } else {
        chosen
    }
}

fn writer_listing(evidence: &[Evidence], sources: &[Source]) -> String {
    let mut out = String::new();
    for e in evidence {
        let title = sources
            .iter()
            .find(|s| s.id == e.source_id)
            .map(|s| s.title.as_str())
            .unwrap_or_default();
        out.push_str(&format!(
            "[{}] ({title}) {} — \"{}\"\n",
            e.source_id,
            e.fact.replace('\n', " "),
            e.quote.replace('\n', " ")
        ));
    }
    out
}

fn caveats(state: &ResearchState, min_coverage: f64) -> Vec<String> {
    let ja = state.language == "ja";
    let mut out = Vec::new();
    if !state.claims.is_empty() && state.confidence < 0.5 {
        out.push(if ja {
            format!(
                "検証で引用により裏付けられた主張は {:.0}% にとどまります。結論は慎重に扱ってください。",
                state.confidence * 100.0
            )
        } else {
            format!(
                "Only {:.0}% of the checked claims were supported by their quotes; treat the conclusions with care.",
                state.confidence * 100.0
            )
        });
    }
    if state.coverage < min_coverage && !state.plan.questions.is_empty() {
        out.push(if ja {
            format!(
                "調査課題の網羅度は {:.0}% です。答えきれていない点があります。",
                state.coverage * 100.0
            )
        } else {
            format!(
                "The research questions were covered to {:.0}%; some remain partly unanswered.",
                state.coverage * 100.0
            )
        });
    }
    if state.sources.len() == 1 {
        out.push(if ja {
            "根拠は一つの出典のみに基づいています。".to_string()
        } else {
            "All evidence comes from a single source.".to_string()
        });
    }
    out
}

async fn write_body(
    state: &ResearchState,
    ctx: &Ctx,
    evidence: &[Evidence],
    revision: Option<(&str, &str)>,
) -> Result<String, NodeError> {
    let config = &ctx.config.config;
    let valid: BTreeSet<u32> = evidence.iter().map(|e| e.source_id).collect();
    let valid_list = valid
        .iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let language = language_name(&state.language).to_string();
    let (template, extra) = match revision {
        Some((draft, feedback)) => (
            prompts::REVISE,
            format!("\nCurrent report:\n{draft}\n\nReviewer's feedback: {feedback}\n"),
        ),
        None => (prompts::WRITE, String::new()),
    };
    let mut system = fill(template, &[("valid", valid_list), ("language", language)]);
    system.push(' ');
    system.push_str(prompts::structure_rule(config.structure));
    if let Some(custom) = &config.system_prompt {
        system.push_str("\nAdditional instructions: ");
        system.push_str(custom);
    }
    let mut user = context_block(state);
    if state.mode == crate::Mode::Multi && !state.synthesis.summary.is_empty() {
        user.push_str(&format!(
            "Synthesis of the researchers' work: {}\n",
            state.synthesis.summary
        ));
    }
    user.push_str(&extra);
    user.push_str("\nEvidence (source number, title, fact, quote):\n");
    user.push_str(&writer_listing(evidence, &state.sources));
    let client = ctx.config.models.for_role("write", ctx.node());
    let max_tokens = 1500;
    let user = fit_to_context(&client, &system, user, max_tokens);
    let mut request =
        ChatRequest::new(vec![Message::system(system), Message::user(user)]).purpose("write");
    request.max_tokens = Some(max_tokens);
    request.temperature = Some(0.3);
    let stream = |piece: &str| ctx.token(piece);
    let answer = client
        .complete(&request, Some(&stream))
        .await
        .map_err(llm_error)?;
    let body = report::strip_model_extras(&answer.text);
    // Any source with evidence may be cited, also one whose claims the writer was not shown.
    let (body, repaired, removed) = report::repair_citations(&body, &state.evidence);
    // Text the writer put in quotation marks must be found in a source it read.
    let texts: Vec<String> = state
        .sources
        .iter()
        .filter_map(|s| ctx.config.documents.get(&s.sha256).ok().flatten())
        .map(|t| normalize(&t))
        .collect();
    let (body, unquoted) = report::unquote_unfound(&body, &texts);
    if unquoted > 0 {
        ctx.emit(Progress::QuotesUnquoted { count: unquoted });
    }
    if repaired + removed > 0 {
        ctx.emit(Progress::CitationsRepaired { repaired, removed });
    }
    Ok(body)
}

pub(crate) async fn write_report(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    ctx.emit(Progress::Writing);
    let calls = |ctx: &Ctx| ctx.config.models.meter().totals().calls;
    if state.evidence.is_empty() {
        let report = report::nothing_found(&state, ctx.clock.now_ms(), calls(&ctx));
        return Ok(ResearchUpdate {
            report: Some(report),
            draft: Some(String::new()),
            ..Default::default()
        });
    }
    let evidence = writer_evidence(&state);
    let body = write_body(&state, &ctx, &evidence, None).await?;
    let min_coverage = ctx.config.config.min_coverage;
    let report = report::assemble(
        &state,
        &body,
        &evidence,
        &caveats(&state, min_coverage),
        ctx.clock.now_ms(),
        calls(&ctx),
    );
    Ok(ResearchUpdate {
        report: Some(report),
        draft: Some(body),
        ..Default::default()
    })
}

pub(crate) async fn review_report(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let config = &ctx.config.config;
    let finish = |decisions: Option<Vec<Decision>>| ResearchUpdate {
        outcome: Some(Outcome::Finished),
        finished_at_ms: Some(ctx.clock.now_ms()),
        decisions,
        ..Default::default()
    };
    if !config.review.report || state.draft.is_empty() {
        return Ok(finish(None));
    }
    if config.no_input {
        return Ok(finish(Some(vec![Decision {
            point: "report review".into(),
            decision: "approved".into(),
            automatic: true,
        }])));
    }
    let answer: Answer = ctx.interrupt(Question::ReportReview {
        report: state.report.clone(),
    })?;
    let decision = |d: String| {
        Some(vec![Decision {
            point: "report review".into(),
            decision: d,
            automatic: false,
        }])
    };
    match answer {
        Answer::ApproveReport => Ok(finish(decision("approved".into()))),
        Answer::ReviseReport { feedback } => Ok(ResearchUpdate {
            feedback: Some(feedback.trim().to_string()),
            decisions: decision(format!("revision requested: {}", feedback.trim())),
            ..Default::default()
        }),
        Answer::RejectReport { reason } => Ok(ResearchUpdate {
            outcome: Some(Outcome::Rejected),
            rejection: Some(reason.trim().to_string()),
            finished_at_ms: Some(ctx.clock.now_ms()),
            decisions: decision(format!("rejected: {}", reason.trim())),
            ..Default::default()
        }),
        other => Err(NodeError::permanent(format!(
            "the report review needs approve, revise or reject, not {other:?}"
        ))),
    }
}

pub(crate) async fn revise_report(state: Arc<ResearchState>, ctx: Ctx) -> NodeResult {
    let evidence = writer_evidence(&state);
    let body = write_body(
        &state,
        &ctx,
        &evidence,
        Some((&state.draft, &state.feedback)),
    )
    .await?;
    let report = report::assemble(
        &state,
        &body,
        &evidence,
        &caveats(&state, ctx.config.config.min_coverage),
        ctx.clock.now_ms(),
        ctx.config.models.meter().totals().calls,
    );
    Ok(ResearchUpdate {
        report_versions: Some(vec![state.report.clone()]),
        report: Some(report),
        draft: Some(body),
        outcome: Some(Outcome::Finished),
        finished_at_ms: Some(ctx.clock.now_ms()),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Small;

    #[async_trait::async_trait]
    impl LlmClient for Small {
        fn spec(&self) -> &str {
            "small"
        }
        fn context_tokens(&self) -> Option<usize> {
            Some(1_000)
        }
        async fn complete(
            &self,
            _: &ChatRequest,
            _: Option<research_llm::TokenSink<'_>>,
        ) -> Result<research_llm::ChatResponse, LlmError> {
            unreachable!()
        }
    }

    #[test]
    fn the_context_guard_drops_the_tail_of_the_evidence_to_fit() {
        let evidence: String = (1..=200)
            .map(|i| format!("- [{i}] fact number {i} with a few more words to take room\n"))
            .collect();
        let user = format!("Question: what?\nEvidence:\n{evidence}");
        let fitted = fit_to_context(&Small, "system prompt", user.clone(), 300);
        assert!(fitted.len() < user.len());
        assert!(fitted.starts_with("Question: what?"), "the head is kept");
        assert!(estimate_tokens(&fitted) + 300 <= 1_000);
        assert!(fitted.ends_with('\n'), "cut at a line, not inside one");
        // A model without a known window gets everything.
        struct Big;
        #[async_trait::async_trait]
        impl LlmClient for Big {
            fn spec(&self) -> &str {
                "big"
            }
            async fn complete(
                &self,
                _: &ChatRequest,
                _: Option<research_llm::TokenSink<'_>>,
            ) -> Result<research_llm::ChatResponse, LlmError> {
                unreachable!()
            }
        }
        assert_eq!(fit_to_context(&Big, "s", user.clone(), 300), user);
    }
}
