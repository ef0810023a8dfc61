//! Harvesting: search → read → extract. The searches run at once, the best new hits of each
//! are fetched and stored, and their text goes to the extractor ([`super::extract`]) a page or
//! a few pages a call; what each search gave is recorded for the dead-end rules.

use std::collections::{BTreeMap, BTreeSet};

use futures::stream::{self, StreamExt};
use research_graph::NodeError;
use research_search::{Hit, HitKind, SearchQuery};

use super::extract::{self, Listing, PageText};
use super::relevance;
use crate::ask::{warn, Ctx};
use crate::guard;
use crate::records::{Evidence, Found, RankedHit, Source, Warning, WarningKind};
use crate::text::{page_words, query_similarity, same_page, DUPLICATE_QUERY};
use crate::Progress;

/// How many page fetches and extraction calls run at once within one step.
const PARALLEL_PAGES: usize = 8;

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
    /// Every search's hits merged and ranked against the question, best first (round 0: the
    /// caller numbers its rounds).
    pub ranked: Vec<RankedHit>,
}

impl Harvest {
    /// This harvest and `more`, made in the same round, as one.
    pub fn extend(&mut self, more: Harvest) {
        self.found.extend(more.found);
        self.searches_done.extend(more.searches_done);
        self.warnings.extend(more.warnings);
        self.yields.extend(more.yields);
        let after = self.ranked.len();
        self.ranked
            .extend(more.ranked.into_iter().enumerate().map(|(i, mut r)| {
                r.rank = after + i + 1;
                r
            }));
    }
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
    /// The person's question as asked: what it names anchors the reading
    /// ([`guard::Anchors`]); the topic's clarification and earlier turns do not.
    pub asked: &'a str,
    /// The research tree whose typed searches say where to look and when (the trust
    /// pipeline's; empty in the others).
    pub tree: &'a super::tree::ResearchTree,
}

/// What a harvest already has: pages read (never read again) and, for a follow-up, the
/// session's sources whose stored text is read for this question instead of being fetched.
#[derive(Debug, Clone, Copy)]
pub struct Known<'a> {
    /// URLs already read in this run.
    pub urls: &'a BTreeSet<String>,
    /// Sources carried over from earlier turns, not yet read for this question, by URL.
    pub stored: &'a BTreeMap<String, Source>,
    /// The pages read before (URL, the SHA-256 of the stored text): a page saying what one of
    /// them says is not read again ([`same_page`]).
    pub pages: &'a [(String, String)],
}

/// Every kind of source a search can go to (the library is always among them).
const EVERY_KIND: [HitKind; 3] = [HitKind::Web, HitKind::Academic, HitKind::News];

/// Seed 000 (000-07): every search carries its kind — the trust tree's when it typed it, else
/// what the query asks for in words ([`relevance::kind_of_search`]: papers, news), else the
/// depth's kinds.
fn typed(tree: &crate::steps::tree::ResearchTree, query: SearchQuery) -> SearchQuery {
    let query = tree.typed(query);
    if query.kind.is_some() {
        return query;
    }
    let kind = relevance::kind_of_search(&query.text);
    query.of_kind(kind)
}

/// The kinds of source `query` went to, in words.
fn kinds_of(query: &SearchQuery) -> String {
    let kinds: Vec<&str> = match query.kind {
        Some(k) => vec![k.word()],
        None => query.among.iter().map(|k| k.word()).collect(),
    };
    format!("{} sources", kinds.join(" and "))
}

/// Runs `queries`, reads the best new hits (a carried source from its stored text) and
/// extracts evidence from each page.
pub async fn harvest(
    ctx: &Ctx,
    queries: &[String],
    known: Known<'_>,
    max_new_sources: usize,
    reading: Reading<'_>,
) -> Result<Harvest, NodeError> {
    let known_urls = known.urls;
    let l = ctx.config.config.limits();
    let env = ctx.config.clone();
    let mut warnings = Vec::new();
    #[allow(clippy::type_complexity)]
    let searches: Vec<(String, Result<Vec<Hit>, String>, Option<String>)> =
        stream::iter(queries.iter().cloned())
            .map(|q| {
                let env = env.clone();
                let ctx = ctx.clone();
                async move {
                    ctx.emit(Progress::Searching { query: q.clone() });
                    let query = typed(
                        reading.tree,
                        SearchQuery::new(q.clone(), l.results_per_search).among(l.kinds),
                    );
                    let mut result = env.search.search(&query).await.map_err(|e| e.to_string());
                    // Seed 000 (000-12): a search that found nothing on its kind of source is tried
                    // on every other kind before the round gives up on it.
                    let wider = SearchQuery {
                        kind: None,
                        among: EVERY_KIND.to_vec(),
                        ..query.clone()
                    };
                    let switched = matches!(&result, Ok(hits) if hits.is_empty())
                        && env.search.asked_for(&wider) != env.search.asked_for(&query);
                    if switched {
                        result = env.search.search(&wider).await.map_err(|e| e.to_string());
                    }
                    (q, result, switched.then(|| kinds_of(&query)))
                }
            })
            .buffered(PARALLEL_PAGES)
            .collect()
            .await;
    let mut searches_done = Vec::new();
    let mut failures = 0;
    let mut yields: Vec<SearchYield> = Vec::new();
    let mut answered: Vec<Vec<Hit>> = Vec::new();
    for (query, result, switched) in searches {
        searches_done.push(query.clone());
        if let Some(from) = switched {
            let found = result.as_ref().map_or(0, Vec::len);
            let mut w = warn(
                ctx,
                format!(
                    "\"{query}\" found nothing on {from}; tried on every kind of source, it found {found}"
                ),
            );
            w.kind = WarningKind::Switched;
            warnings.push(w);
        }
        let mut outcome = SearchYield {
            query: query.clone(),
            ..Default::default()
        };
        match result {
            Ok(hits) => {
                outcome.hits = hits.len();
                answered.push(hits);
            }
            Err(e) => {
                outcome.failed = true;
                answered.push(Vec::new());
                failures += 1;
                let mut w = warn(ctx, format!("the search \"{query}\" failed: {e}"));
                w.kind = WarningKind::SearchFailed;
                w.detail = e;
                warnings.push(w);
            }
        }
        yields.push(outcome);
    }
    // Every search's hits merged and ranked against the question and its research questions
    // (title, snippet, address), so the source cap reads the most relevant first, whichever
    // search found them: a weak model's searches cannot crowd out the page that answers.
    let key = format!("{} {}", reading.topic, reading.questions.join(" "));
    let merged = relevance::merge_hits(&key, &guard::Anchors::of(reading.asked), &answered);
    // As many pages as the searches would have read each (the plan's pages per search), at most.
    let most = l.pages_per_search * answered.iter().filter(|h| !h.is_empty()).count();
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
    // Carried sources cost no fetch and are no new source: they do not use up the room.
    let mut new_picked = 0;
    let mut picked_urls = known_urls.clone();
    let mut chosen: BTreeSet<String> = BTreeSet::new();
    let mut pages: Vec<Fetched> = Vec::new();
    // The words of each page read (before, and kept here), so a page saying the same as one is
    // read once. A stored text that cannot be read is not compared.
    // A carried source not yet read for this question is no earlier page: it is read now.
    let mut read: Vec<(String, BTreeSet<String>)> = known
        .pages
        .iter()
        .filter(|(url, _)| !known.stored.contains_key(url))
        .filter_map(|(url, sha)| {
            let text = ctx.config.documents.get(sha).ok().flatten()?;
            Some((url.clone(), page_words(&text)))
        })
        .collect();
    let (mut next, mut unreadable) = (0, 0);
    loop {
        let mut picked: Vec<(String, Hit)> = Vec::new();
        while next < merged.len() && pages.len() + unreadable + picked.len() < most {
            let (s, hit, _) = &merged[next];
            next += 1;
            let stored = known.stored.contains_key(&hit.url);
            if !stored && new_picked >= max_new_sources {
                // No room for new sources; a carried one may still be read from the store.
                continue;
            }
            if picked_urls.insert(hit.url.clone()) {
                picked.push((queries[*s].clone(), hit.clone()));
                chosen.insert(hit.url.clone());
                new_picked += usize::from(!stored);
                yields[*s].picked += 1;
            }
        }
        if picked.is_empty() {
            break;
        }
        let fetched: Vec<Result<Fetched, Warning>> = stream::iter(picked)
            .map(|(query, hit)| {
                let stored = known.stored.get(&hit.url);
                async move {
                    match stored {
                        Some(source) => stored_page(ctx, query, source),
                        None => fetch_page(ctx, query, hit).await,
                    }
                }
            })
            .buffered(PARALLEL_PAGES)
            .collect()
            .await;
        for page in fetched {
            let page = match page {
                Ok(page) => page,
                Err(w) => {
                    // A page that could not be read used its room, as before copies were
                    // looked for: only a copy's room goes to the next page.
                    unreadable += 1;
                    warnings.push(w);
                    continue;
                }
            };
            let words = page_words(&page.text);
            let copy_of = read
                .iter()
                .find(|(url, k)| *url != page.source.url && same_page(k, &words));
            if let Some((first, _)) = copy_of {
                // Read once: the room goes to the next page.
                let url = page.source.url.clone();
                let message = format!("{url} says what {first} says; read once");
                warnings.push(unread(
                    ctx,
                    &url,
                    WarningKind::Repeated,
                    message,
                    String::new(),
                ));
                chosen.remove(&url);
                new_picked -= usize::from(!known.stored.contains_key(&url));
                if let Some(y) = yields.iter_mut().find(|y| y.query == page.query) {
                    y.picked -= 1;
                }
                continue;
            }
            read.push((page.source.url.clone(), words));
            pages.push(page);
        }
    }
    let ranked = relevance::ranked_record(0, &merged, queries, &chosen);
    let mut listings: Vec<Listing> = pages
        .iter()
        .map(|p| Listing::new(&p.text(), &reading, &l))
        .collect();
    extract::answer_across(&mut listings, &reading);
    let groups = extract::pack(&listings, extract::room(ctx, &reading, &l).as_ref());
    let extracted: Vec<(Vec<usize>, Result<extract::Extracted, NodeError>)> = stream::iter(groups)
        .map(|group| {
            let (listings, pages) = (&listings, &pages);
            async move {
                let of: Vec<&Listing> = group.iter().map(|&i| &listings[i]).collect();
                let queries: Vec<&str> = group.iter().map(|&i| pages[i].query.as_str()).collect();
                let titles: Vec<&str> = group
                    .iter()
                    .map(|&i| pages[i].source.title.as_str())
                    .collect();
                let result = extract::extract(ctx, &of, &queries, &titles, &reading, &l).await;
                (group, result)
            }
        })
        .buffered(PARALLEL_PAGES)
        .collect()
        .await;
    // Pages with nothing to show are read, with no evidence.
    let mut evidence: Vec<Option<Vec<Evidence>>> =
        listings.iter().map(|_| Some(Vec::new())).collect();
    for (group, result) in extracted {
        match result {
            Ok((per_page, ws)) => {
                warnings.extend(ws);
                for (i, e) in group.into_iter().zip(per_page) {
                    evidence[i] = Some(e);
                }
            }
            Err(e) => {
                for i in group {
                    let url = &pages[i].source.url;
                    let mut w = warn(ctx, format!("could not extract facts from {url}: {e}"));
                    w.kind = WarningKind::NotExtracted;
                    w.url = Some(url.clone());
                    w.detail = e.to_string();
                    warnings.push(w);
                    evidence[i] = None;
                }
            }
        }
    }
    let mut found = Vec::new();
    for (page, evidence) in pages.into_iter().zip(evidence) {
        let Some(evidence) = evidence else { continue };
        ctx.emit(Progress::Read {
            url: page.source.url.clone(),
            facts: evidence.len(),
        });
        if let Some(y) = yields.iter_mut().find(|y| y.query == page.query) {
            y.read += 1;
            y.evidence += evidence.len();
        }
        let evidence = evidence
            .into_iter()
            .map(|mut e| {
                e.source_url = page.source.url.clone();
                e.query = page.query.clone();
                e
            })
            .collect();
        found.push(Found {
            source: page.source,
            evidence,
        });
    }
    Ok(Harvest {
        found,
        searches_done,
        warnings,
        yields,
        ranked,
    })
}

/// A page fetched and stored, waiting for extraction.
struct Fetched {
    query: String,
    source: Source,
    text: String,
}

impl Fetched {
    fn text(&self) -> PageText<'_> {
        PageText {
            query: &self.query,
            title: &self.source.title,
            text: &self.text,
        }
    }
}

/// A carried source read from its stored text (checked against its hash), not fetched.
fn stored_page(ctx: &Ctx, query: String, source: &Source) -> Result<Fetched, Warning> {
    ctx.emit(Progress::Reading {
        url: source.url.clone(),
    });
    match ctx.config.documents.get(&source.sha256) {
        Ok(Some(text)) if crate::env::sha256_hex(&text) == source.sha256 => Ok(Fetched {
            query,
            source: source.clone(),
            text,
        }),
        Ok(_) => Err(unread(
            ctx,
            &source.url,
            WarningKind::NotStored,
            format!("the stored text of {} is gone or changed", source.url),
            String::new(),
        )),
        Err(e) => Err(unread(
            ctx,
            &source.url,
            WarningKind::NotStored,
            format!("could not read the stored text of {}: {e}", source.url),
            e.to_string(),
        )),
    }
}

/// Fetches one hit and stores its text. A page that cannot be read is a warning, not a failure.
async fn fetch_page(ctx: &Ctx, query: String, hit: Hit) -> Result<Fetched, Warning> {
    let env = &ctx.config;
    ctx.emit(Progress::Reading {
        url: hit.url.clone(),
    });
    let doc = match env.fetcher.fetch(&hit.url).await {
        Ok(doc) => doc,
        Err(e) => {
            let kind = match e {
                research_fetch::FetchError::Blocked { .. } => WarningKind::Blocked,
                _ => WarningKind::Unreadable,
            };
            return Err(unread(
                ctx,
                &hit.url,
                kind,
                format!("could not read {}: {e}", hit.url),
                e.to_string(),
            ));
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
        // The provider's record (a paper index's authors and venue) before what the page says
        // of itself: the first is curated, the second is whatever the site wrote.
        citation: Some(hit.citation.clone().or(doc.citation.clone())).filter(|c| !c.is_empty()),
    };
    Ok(Fetched {
        query,
        source,
        text: doc.text,
    })
}

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
                let id = Source::next_id(sources);
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
            e.id = Evidence::next_id(evidence);
            e.source_id = id;
            evidence.push(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(url: &str) -> Source {
        Source {
            id: 0,
            url: url.into(),
            title: url.into(),
            kind: "web".into(),
            provider: "test".into(),
            published: None,
            sha256: String::new(),
            accessed_at_ms: 0,
            citation: None,
        }
    }

    /// Issue 52, N1: the trust ranking dropped a source's evidence, then "research more" at the
    /// escalation numbered new evidence by the count, reusing an id the store already had.
    #[test]
    fn new_evidence_and_sources_never_reuse_an_id_after_a_drop() {
        let (mut sources, mut evidence) = (Vec::new(), Vec::new());
        let found = |url: &str, quotes: &[&str]| Found {
            source: source(url),
            evidence: quotes
                .iter()
                .map(|q| Evidence::unnumbered(q.to_string(), q.to_string()))
                .collect(),
        };
        number(
            &mut sources,
            &mut evidence,
            [
                found("https://a.example/", &["One.", "Two."]),
                found("https://b.example/", &["Three."]),
            ],
        );
        assert_eq!(evidence.iter().map(|e| e.id).collect::<Vec<_>>(), [1, 2, 3]);
        // The ranking drops the first source and its evidence.
        evidence.retain(|e| e.source_id != 1);
        sources.retain(|s| s.id != 1);
        number(
            &mut sources,
            &mut evidence,
            [found("https://c.example/", &["Four."])],
        );
        let ids: Vec<u32> = evidence.iter().map(|e| e.id).collect();
        assert_eq!(ids, [3, 4], "a new id after the highest, never a taken one");
        let source_ids: Vec<u32> = sources.iter().map(|s| s.id).collect();
        assert_eq!(source_ids, [2, 3]);
    }
}
