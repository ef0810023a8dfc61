//! One request per key at a time across the process. Two runs going together (a comparison's
//! two sides, a run and a recheck) read the same pages and run the same searches; the caches
//! only help once a request has ended, so without this each side fetched the same page (compare
//! mode measured up to three times). A second caller of a key in flight waits for the first's
//! answer — or its error — instead of asking again.
//!
//! The work runs in a task of its own: a waiter that is cancelled (its run stopped) stops
//! waiting, and the others still get the answer.

use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use futures::future::{BoxFuture, FutureExt, Shared};

/// Pages being fetched, by URL.
pub type PagesInFlight =
    InFlight<String, Result<research_fetch::Document, research_fetch::FetchError>>;

/// Searches being run, by (provider, query, result count).
pub type SearchesInFlight = InFlight<
    (String, String, usize),
    Result<Vec<research_search::Hit>, research_search::SearchError>,
>;

/// The requests in flight by key, each shared by every caller that asks for it meanwhile.
pub struct InFlight<K, V: Clone> {
    going: Arc<Mutex<HashMap<K, Going<V>>>>,
    next: AtomicU64,
}

/// One request in flight: its number (to tell it from a later one of the same key) and its
/// answer, shared.
struct Going<V: Clone> {
    id: u64,
    answer: Shared<BoxFuture<'static, V>>,
}

impl<K, V: Clone> Default for InFlight<K, V> {
    fn default() -> Self {
        Self {
            going: Arc::default(),
            next: AtomicU64::new(0),
        }
    }
}

impl<K, V> InFlight<K, V>
where
    K: Eq + Hash + Clone + Send + 'static,
    V: Clone + Send + Sync + 'static,
{
    /// The answer for `key`: the one in flight if another caller asked already, else `work()`
    /// run in a task of its own. `failed` turns a task that panicked into an answer. The task
    /// lets its key go as it ends, whether anyone still waits or not: a later caller asks anew
    /// (the caches have the answer), never gets an old one.
    pub async fn run<F>(&self, key: K, work: impl FnOnce() -> F, failed: fn(String) -> V) -> V
    where
        F: Future<Output = V> + Send + 'static,
    {
        let answer = {
            let mut going = self.going.lock().unwrap_or_else(|p| p.into_inner());
            match going.get(&key) {
                Some(g) => g.answer.clone(),
                None => {
                    let id = self.next.fetch_add(1, Ordering::Relaxed);
                    let (map, k) = (self.going.clone(), key.clone());
                    let job = work();
                    let task = tokio::spawn(async move {
                        let answer = job.await;
                        let mut going = map.lock().unwrap_or_else(|p| p.into_inner());
                        if going.get(&k).is_some_and(|g| g.id == id) {
                            going.remove(&k);
                        }
                        answer
                    });
                    let answer = async move {
                        task.await
                            .unwrap_or_else(|e| failed(format!("the request stopped: {e}")))
                    }
                    .boxed()
                    .shared();
                    going.insert(
                        key,
                        Going {
                            id,
                            answer: answer.clone(),
                        },
                    );
                    answer
                }
            }
        };
        answer.await
    }

    /// How many keys are in flight.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.going.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Whether nothing is in flight.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use research_fetch::{FetchError, FetchPolicy, Fetcher, HttpFetcher};
    use wiremock::matchers::path;
    use wiremock::{Mock, MockServer, ResponseTemplate};

    use super::*;

    type Pages = InFlight<String, Result<research_fetch::Document, FetchError>>;

    fn fetcher() -> Arc<HttpFetcher> {
        Arc::new(
            HttpFetcher::new(FetchPolicy {
                allowed_hosts: research_fetch::AllowedHosts::new(["127.0.0.1:*"]),
                ..Default::default()
            })
            .unwrap(),
        )
    }

    fn stopped(why: String) -> Result<research_fetch::Document, FetchError> {
        Err(FetchError::NoText {
            url: String::new(),
            reason: why,
        })
    }

    async fn fetch_through(
        pages: &Pages,
        f: &Arc<HttpFetcher>,
        url: &str,
    ) -> Result<research_fetch::Document, FetchError> {
        let (f, u) = (f.clone(), url.to_string());
        pages
            .run(
                url.to_string(),
                move || async move { f.fetch(&u).await },
                stopped,
            )
            .await
    }

    #[tokio::test]
    async fn fifty_identical_fetches_at_once_reach_the_server_once() {
        let server = MockServer::start().await;
        Mock::given(path("/page"))
            .respond_with(
                ResponseTemplate::new(200)
                    .set_body_raw(
                        "<html><body><p>Bees dance to tell where food is.</p></body></html>",
                        "text/html",
                    )
                    .set_delay(Duration::from_millis(300)),
            )
            .expect(1)
            .mount(&server)
            .await;
        let (pages, f) = (Arc::new(Pages::default()), fetcher());
        let url = format!("{}/page", server.uri());
        let all = futures::future::join_all((0..50).map(|_| fetch_through(&pages, &f, &url))).await;
        assert!(all
            .iter()
            .all(|r| r.as_ref().is_ok_and(|d| d.text.contains("Bees dance"))));
        assert!(pages.is_empty(), "the key is let go once answered");
        server.verify().await;
    }

    #[tokio::test]
    async fn an_error_reaches_every_waiter() {
        let server = MockServer::start().await;
        Mock::given(path("/gone"))
            .respond_with(ResponseTemplate::new(404).set_delay(Duration::from_millis(200)))
            .expect(1)
            .mount(&server)
            .await;
        let (pages, f) = (Arc::new(Pages::default()), fetcher());
        let url = format!("{}/gone", server.uri());
        let all = futures::future::join_all((0..10).map(|_| fetch_through(&pages, &f, &url))).await;
        assert!(
            all.iter()
                .all(|r| matches!(r, Err(FetchError::Status { status: 404, .. }))),
            "{all:?}"
        );
        server.verify().await;
    }

    #[tokio::test]
    async fn a_request_whose_waiters_all_went_is_let_go_when_it_ends() {
        let pages: InFlight<u32, u32> = InFlight::default();
        let waiter = pages.run(
            1,
            || async {
                tokio::time::sleep(Duration::from_millis(100)).await;
                7
            },
            |_| 0,
        );
        // The only waiter gives up at once.
        assert!(tokio::time::timeout(Duration::from_millis(10), waiter)
            .await
            .is_err());
        assert_eq!(pages.len(), 1);
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(pages.is_empty(), "no old answer is kept for a later caller");
        assert_eq!(pages.run(1, || async { 8 }, |_| 0).await, 8);
    }

    #[tokio::test]
    async fn a_cancelled_waiter_does_not_cancel_the_others() {
        let server = MockServer::start().await;
        Mock::given(path("/slow"))
            .respond_with(
                ResponseTemplate::new(200)
                    .set_body_raw(
                        "<html><body><p>Slow but there in the end, every word.</p></body></html>",
                        "text/html",
                    )
                    .set_delay(Duration::from_millis(400)),
            )
            .expect(1)
            .mount(&server)
            .await;
        let (pages, f) = (Arc::new(Pages::default()), fetcher());
        let url = format!("{}/slow", server.uri());
        // The first caller starts the fetch and is cancelled at once.
        let first = {
            let (pages, f, url) = (pages.clone(), f.clone(), url.clone());
            tokio::spawn(async move { fetch_through(&pages, &f, &url).await })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        let second = {
            let (pages, f, url) = (pages.clone(), f.clone(), url.clone());
            tokio::spawn(async move { fetch_through(&pages, &f, &url).await })
        };
        first.abort();
        let got = second.await.unwrap();
        assert!(got.is_ok_and(|d| d.text.contains("Slow but there")));
        server.verify().await;
    }
}
