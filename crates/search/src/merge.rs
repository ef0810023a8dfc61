//! Several providers as one: their hit lists merged by rank, each URL once.
//!
//! `research search` and a research run both ask several providers the same query at once; the
//! one rule for putting their answers together lives here so both give the same order.

use std::collections::HashSet;
use std::sync::Arc;

use async_trait::async_trait;

use crate::{Hit, HitKind, SearchError, SearchProvider, SearchQuery};

/// `url` reduced for duplicate detection: without fragment, trailing slashes, `https://` or
/// `http://`, a leading `www.`, and lowercased.
///
/// Only for comparing: the hit keeps the URL the provider gave.
pub fn normalize_url(url: &str) -> String {
    let url = url.split('#').next().unwrap_or(url);
    url.trim_end_matches('/')
        .trim_start_matches("https://")
        .trim_start_matches("http://")
        .trim_start_matches("www.")
        .to_lowercase()
}

/// The hits of `lists` interleaved by rank — every list's first hit in list order, then every
/// list's second, and so on — keeping only the first hit of each [`normalize_url`] URL.
pub fn merge_by_rank(lists: &[Vec<Hit>]) -> Vec<Hit> {
    let mut seen = HashSet::new();
    let mut hits = Vec::new();
    let longest = lists.iter().map(Vec::len).max().unwrap_or(0);
    for rank in 0..longest {
        for list in lists {
            if let Some(hit) = list.get(rank) {
                if seen.insert(normalize_url(&hit.url)) {
                    hits.push(hit.clone());
                }
            }
        }
    }
    hits
}

/// Several providers queried at once, their hits merged by rank with duplicate URLs removed
/// ([`merge_by_rank`]); a provider that fails is reported while another answers.
pub struct MultiSearch {
    providers: Vec<(String, Arc<dyn SearchProvider>)>,
}

impl MultiSearch {
    /// Searches all of `providers`, each under its name; their order is the merge order.
    pub fn new(providers: Vec<(String, Arc<dyn SearchProvider>)>) -> Self {
        Self { providers }
    }

    /// The merged hits of the providers that answered, and each failing provider's name and
    /// error, in provider order. When every provider fails the hits are empty.
    pub async fn search_all(&self, query: &SearchQuery) -> (Vec<Hit>, Vec<(String, SearchError)>) {
        let asked = self.asked(query);
        let answers = futures::future::join_all(asked.iter().map(|(_, p)| p.search(query))).await;
        let mut lists = Vec::new();
        let mut failures = Vec::new();
        for ((name, _), answer) in asked.into_iter().zip(answers) {
            match answer {
                Ok(hits) => lists.push(hits),
                Err(e) => failures.push((name.clone(), e)),
            }
        }
        (merge_by_rank(&lists), failures)
    }

    /// Whether a provider is named `name`.
    pub fn has(&self, name: &str) -> bool {
        self.providers.iter().any(|(n, _)| n == name)
    }

    /// The names of the providers a query of no one kind, among `kinds`, goes to ([`Self::asked`]'s
    /// rule: the library is always among them).
    pub fn reached(&self, kinds: &[HitKind]) -> Vec<&str> {
        let query = SearchQuery {
            among: kinds.to_vec(),
            ..SearchQuery::new("", 0)
        };
        self.asked(&query)
            .into_iter()
            .map(|(name, _)| name.as_str())
            .collect()
    }

    /// The providers `query` goes to: for one kind of source, the providers of that kind when
    /// there are any; for some kinds ([`SearchQuery::among`]), the providers of those kinds and
    /// the library when there are any; otherwise all of them.
    fn asked(&self, query: &SearchQuery) -> Vec<&(String, Arc<dyn SearchProvider>)> {
        let of_kind: Vec<&(String, Arc<dyn SearchProvider>)> = match query.kind {
            Some(kind) => self
                .providers
                .iter()
                .filter(|(_, p)| p.kind() == kind)
                .collect(),
            None if !query.among.is_empty() => {
                // Decided on the providers besides the library: with none of the kinds wanted
                // (arXiv alone at a depth that wants the web), all of them are asked.
                let wanted = |p: &Arc<dyn SearchProvider>| query.among.contains(&p.kind());
                if self
                    .providers
                    .iter()
                    .any(|(_, p)| p.kind() != HitKind::Local && wanted(p))
                {
                    self.providers
                        .iter()
                        .filter(|(_, p)| p.kind() == HitKind::Local || wanted(p))
                        .collect()
                } else {
                    Vec::new()
                }
            }
            None => Vec::new(),
        };
        if of_kind.is_empty() {
            self.providers.iter().collect()
        } else {
            of_kind
        }
    }
}

/// Fails only when every provider the query went to failed (naming each) — for a query of one
/// kind, every provider of that kind; otherwise the merged hits, with the failures logged as
/// warnings.
#[async_trait]
impl SearchProvider for MultiSearch {
    fn name(&self) -> &'static str {
        "multi"
    }

    fn asked_for(&self, query: &SearchQuery) -> Vec<String> {
        self.asked(query)
            .into_iter()
            .map(|(name, _)| name.clone())
            .collect()
    }

    async fn search(&self, query: &SearchQuery) -> Result<Vec<Hit>, SearchError> {
        let (hits, failures) = self.search_all(query).await;
        // Compared with the providers asked, not all of them: a typed query whose providers all
        // failed is a failure even while providers of other kinds would have answered.
        if !failures.is_empty() && failures.len() == self.asked(query).len() {
            let detail: Vec<String> = failures.iter().map(|(n, e)| format!("{n}: {e}")).collect();
            return Err(SearchError::Config(format!(
                "every search provider failed ({})",
                detail.join("; ")
            )));
        }
        for (name, e) in failures {
            tracing::warn!("search provider {name} failed: {e}");
        }
        Ok(hits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(url: &str, provider: &str) -> Hit {
        Hit {
            title: url.into(),
            url: url.into(),
            snippet: String::new(),
            published: None,
            kind: HitKind::Web,
            provider: provider.into(),
            citation: Default::default(),
        }
    }

    fn urls(hits: &[Hit]) -> Vec<(&str, &str)> {
        hits.iter()
            .map(|h| (h.url.as_str(), h.provider.as_str()))
            .collect()
    }

    struct Fixed(Result<Vec<Hit>, SearchError>, HitKind);

    #[async_trait]
    impl SearchProvider for Fixed {
        fn name(&self) -> &'static str {
            "fixed"
        }
        fn kind(&self) -> HitKind {
            self.1
        }
        async fn search(&self, _: &SearchQuery) -> Result<Vec<Hit>, SearchError> {
            self.0.clone()
        }
    }

    fn fixed(
        name: &str,
        answer: Result<Vec<Hit>, SearchError>,
    ) -> (String, Arc<dyn SearchProvider>) {
        (name.to_string(), Arc::new(Fixed(answer, HitKind::Web)))
    }

    #[test]
    fn a_query_of_every_kind_reaches_more_only_when_there_are_other_kinds() {
        let of = |kind: HitKind, name: &str| -> (String, Arc<dyn SearchProvider>) {
            (name.to_string(), Arc::new(Fixed(Ok(Vec::new()), kind)))
        };
        let web_only = SearchQuery::new("q", 5).among(&[HitKind::Web]);
        let every =
            SearchQuery::new("q", 5).among(&[HitKind::Web, HitKind::Academic, HitKind::News]);
        let plain = MultiSearch::new(vec![of(HitKind::Web, "ddg"), of(HitKind::Local, "local")]);
        assert_eq!(plain.asked_for(&web_only), plain.asked_for(&every));
        let with_papers = MultiSearch::new(vec![
            of(HitKind::Web, "ddg"),
            of(HitKind::Academic, "arxiv"),
            of(HitKind::Local, "local"),
        ]);
        assert_eq!(with_papers.asked_for(&web_only), vec!["ddg", "local"]);
        assert_eq!(with_papers.asked_for(&every), vec!["ddg", "arxiv", "local"]);
        assert_eq!(with_papers.reached(&[HitKind::Web]), vec!["ddg", "local"]);
    }

    #[tokio::test]
    async fn a_query_for_one_kind_goes_to_the_providers_of_that_kind_when_there_are_any() {
        let multi = MultiSearch::new(vec![
            fixed("web", Ok(vec![hit("https://w.org/1", "web")])),
            (
                "papers".into(),
                Arc::new(Fixed(
                    Ok(vec![hit("https://p.org/1", "papers")]),
                    HitKind::Academic,
                )),
            ),
        ]);
        let academic = SearchQuery::new("bees", 5).of_kind(Some(HitKind::Academic));
        assert_eq!(
            urls(&multi.search_all(&academic).await.0),
            [("https://p.org/1", "papers")]
        );
        // No news provider: every provider is asked.
        let news = SearchQuery::new("bees", 5).of_kind(Some(HitKind::News));
        assert_eq!(multi.search_all(&news).await.0.len(), 2);
        assert_eq!(
            multi.search_all(&SearchQuery::new("bees", 5)).await.0.len(),
            2
        );
    }

    #[tokio::test]
    async fn a_query_among_some_kinds_goes_to_their_providers_and_the_library() {
        let of = |name: &str, kind| -> (String, Arc<dyn SearchProvider>) {
            (
                name.into(),
                Arc::new(Fixed(
                    Ok(vec![hit(&format!("https://{name}.org/1"), name)]),
                    kind,
                )),
            )
        };
        let multi = MultiSearch::new(vec![
            of("web", HitKind::Web),
            of("papers", HitKind::Academic),
            of("news", HitKind::News),
            of("library", HitKind::Local),
        ]);
        let asked = |kinds: &[HitKind]| {
            let query = SearchQuery::new("bees", 5).among(kinds);
            let mut names: Vec<String> =
                multi.asked(&query).iter().map(|(n, _)| n.clone()).collect();
            names.sort();
            names
        };
        assert_eq!(asked(&[HitKind::Web]), ["library", "web"]);
        assert_eq!(
            asked(&[HitKind::Web, HitKind::Academic]),
            ["library", "papers", "web"]
        );
        assert_eq!(asked(&[]), ["library", "news", "papers", "web"]);
        // Only a news provider chosen and a depth that reaches web alone: it is still asked
        // (a search that asks no one finds nothing).
        let news_only = MultiSearch::new(vec![of("news", HitKind::News)]);
        let query = SearchQuery::new("bees", 5).among(&[HitKind::Web]);
        assert_eq!(news_only.asked(&query).len(), 1);
        // The same with the library beside it: both are asked, not the library alone.
        let papers_and_library = MultiSearch::new(vec![
            of("papers", HitKind::Academic),
            of("library", HitKind::Local),
        ]);
        assert_eq!(papers_and_library.asked(&query).len(), 2);
    }

    #[tokio::test]
    async fn a_typed_search_fails_when_every_provider_of_its_kind_fails() {
        // The web provider answers, but an academic query never asks it: the academic
        // providers all failing is every asked provider failing, an error, not "no results".
        let multi = MultiSearch::new(vec![
            fixed("web", Ok(vec![hit("https://w.org/1", "web")])),
            (
                "papers".into(),
                Arc::new(Fixed(
                    Err(SearchError::Unavailable {
                        provider: "openalex",
                        reason: "HTTP 503".into(),
                    }),
                    HitKind::Academic,
                )),
            ),
        ]);
        let academic = SearchQuery::new("bees", 5).of_kind(Some(HitKind::Academic));
        let SearchError::Config(message) = multi.search(&academic).await.unwrap_err() else {
            panic!("not a Config error");
        };
        assert!(
            message.starts_with("every search provider failed (papers: "),
            "{message}"
        );
        // An untyped query still has the web provider's answer.
        assert_eq!(
            multi
                .search(&SearchQuery::new("bees", 5))
                .await
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn urls_normalize_for_comparison() {
        for same in [
            "https://www.Example.com/a/",
            "http://example.com/a",
            "example.com/a#section",
            "https://www.EXAMPLE.com/A//",
        ] {
            assert_eq!(normalize_url(same), "example.com/a", "{same}");
        }
        // The scheme and `www.` are stripped before lowercasing, so only in lowercase (as
        // providers write them); kept so because both callers always compared URLs this way.
        assert_eq!(
            normalize_url("HTTPS://WWW.EXAMPLE.COM/A"),
            "https://www.example.com/a"
        );
        // The query string still counts; `file://` is left as it is.
        assert_eq!(normalize_url("https://a.org/p?q=1"), "a.org/p?q=1");
        assert_ne!(
            normalize_url("https://a.org/p?q=1"),
            normalize_url("https://a.org/p?q=2")
        );
        assert_eq!(
            normalize_url("file:///home/me/Notes.md"),
            "file:///home/me/notes.md"
        );
        assert_eq!(normalize_url(""), "");
    }

    #[test]
    fn merge_interleaves_by_rank_and_keeps_the_first_of_each_url() {
        let lists = vec![
            vec![
                hit("https://a.org/1", "x"),
                hit("https://a.org/2", "x"),
                hit("https://a.org/3", "x"),
            ],
            vec![hit("http://www.a.org/2/", "y"), hit("https://b.org/1", "y")],
            vec![],
            vec![hit("https://a.org/1#top", "z")],
        ];
        assert_eq!(
            urls(&merge_by_rank(&lists)),
            [
                // Rank 1: z's `a.org/1#top` is x's `a.org/1` again.
                ("https://a.org/1", "x"),
                ("http://www.a.org/2/", "y"),
                // Rank 2: x's `a.org/2` came already, from y.
                ("https://b.org/1", "y"),
                ("https://a.org/3", "x"),
            ]
        );
        assert!(merge_by_rank(&[]).is_empty());
        assert!(merge_by_rank(&[vec![], vec![]]).is_empty());
    }

    #[test]
    fn duplicates_within_one_list_are_dropped_too() {
        let lists = vec![vec![
            hit("https://a.org/", "x"),
            hit("https://a.org", "x"),
            hit("https://b.org", "x"),
        ]];
        assert_eq!(
            urls(&merge_by_rank(&lists)),
            [("https://a.org/", "x"), ("https://b.org", "x")]
        );
    }

    #[tokio::test]
    async fn multi_search_merges_and_reports_failures_per_provider() {
        let down = SearchError::Unavailable {
            provider: "brave",
            reason: "HTTP 503".into(),
        };
        let multi = MultiSearch::new(vec![
            fixed(
                "tavily",
                Ok(vec![
                    hit("https://a.org", "tavily"),
                    hit("https://b.org", "tavily"),
                ]),
            ),
            fixed("brave", Err(down.clone())),
            fixed(
                "serper",
                Ok(vec![
                    hit("https://www.a.org/", "serper"),
                    hit("https://c.org", "serper"),
                ]),
            ),
        ]);
        let query = SearchQuery::new("bees", 5);
        let (hits, failures) = multi.search_all(&query).await;
        assert_eq!(
            urls(&hits),
            [
                ("https://a.org", "tavily"),
                ("https://b.org", "tavily"),
                ("https://c.org", "serper")
            ]
        );
        assert_eq!(failures, vec![("brave".to_string(), down)]);
        // As a provider: a partial failure is only logged.
        assert_eq!(multi.search(&query).await.unwrap(), hits);
        assert_eq!(multi.name(), "multi");
    }

    #[tokio::test]
    async fn multi_search_fails_only_when_every_provider_fails() {
        let multi = MultiSearch::new(vec![
            fixed(
                "duckduckgo",
                Err(SearchError::RateLimited {
                    provider: "duckduckgo",
                }),
            ),
            fixed("wikipedia", Err(SearchError::Config("no".into()))),
        ]);
        let query = SearchQuery::new("bees", 5);
        let (hits, failures) = multi.search_all(&query).await;
        assert!(hits.is_empty());
        assert_eq!(failures.len(), 2);
        let SearchError::Config(message) = multi.search(&query).await.unwrap_err() else {
            panic!("not a Config error");
        };
        assert!(
            message.starts_with("every search provider failed (duckduckgo: "),
            "{message}"
        );
        assert!(message.ends_with("; wikipedia: no)"), "{message}");

        // One provider answering with nothing is not a failure; nor are no providers at all.
        let quiet = MultiSearch::new(vec![
            fixed(
                "duckduckgo",
                Err(SearchError::RateLimited {
                    provider: "duckduckgo",
                }),
            ),
            fixed("wikipedia", Ok(vec![])),
        ]);
        assert_eq!(quiet.search(&query).await.unwrap(), vec![]);
        assert_eq!(
            MultiSearch::new(vec![]).search(&query).await.unwrap(),
            vec![]
        );
    }
}
