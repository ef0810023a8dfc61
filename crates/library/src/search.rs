//! Searching the library: passages by keywords (every word of the question first, then any of
//! its uncommon words), by meaning, and the two fused by rank into the best passage per file —
//! the library as the search provider `local`.

use std::collections::HashSet;
use std::path::Path;

use async_trait::async_trait;
use research_search::{Hit, HitKind, SearchError, SearchProvider, SearchQuery};

use crate::text::{excerpt, unsegment_cjk};
use crate::{
    file_url, fuse_by_rank, query_words, FoundPassage, Library, LibraryError, LibraryIndex,
    Neighbour, Ranked, Ranking, MIN_SIMILARITY,
};

/// Passages a word may be in and still be searched for among the question's words when any of
/// them will do. BM25 ranks by a word in that many passages hardly at all, and a search for it
/// scores every passage it is in: a million passages hold "the", "how" or the library's own
/// subject hundreds of thousands of times, most of a second a search (at 128,000 passages the
/// keyword p50 went from 136 to 31 ms, BENCHMARKS). Libraries smaller than this rank as if
/// every word were asked.
pub const COMMON_WORD_PASSAGES: usize = 10_000;

/// The most words a search leaves out one at a time (a query each) before it asks for any of
/// them: a longer question leaving out one word is nearly the question, and the queries add up.
const ALL_BUT_ONE_UP_TO: usize = 8;

/// Word-set overlap (shared over either's, words of three letters or more) at which a file's
/// best passage repeats one already found: the same page twice (a manual's rendered page and
/// its source text, an index and its part) is one page to a reader, and the slot goes to the
/// next. Measured on the Python documentation (html and `_sources` twins): 0.5 finds 67% of a
/// twin's passages and 7% of other files' nearest passages, nearly all copies themselves
/// (an index page and its letter, "what's new" pages repeating each other).
const REPEATS: f64 = 0.5;

/// `words` without those in more than `common` passages (none when every word is that common:
/// the passages with all of them were found first, and any of such words says little).
/// Counting stops past the threshold, so asking costs at most that many postings a word. Rarest
/// first.
fn uncommon_words(
    index: &dyn LibraryIndex,
    words: &[String],
    common: usize,
) -> Result<Vec<(String, usize)>, research_store::StoreError> {
    let counts = index.passages_with(words, common + 1)?;
    let mut kept: Vec<(String, usize)> = words
        .iter()
        .cloned()
        .zip(counts)
        .filter(|(_, n)| *n <= common)
        .collect();
    // Rarest first, as a search for any of them wants them (`LibraryIndex::keyword`).
    kept.sort_by_key(|(_, n)| *n);
    Ok(kept)
}

/// How near a library's passages come in meaning to a question ([`Library::nearness`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Nearness {
    /// The similarity of the passage nearest the question.
    pub nearest: f32,
    /// The similarity under which the model that read the passages finds them unrelated to a
    /// question ([`research_embed::Embedder::unrelated_below`]).
    pub unrelated_below: f32,
    /// That model.
    pub model: String,
}

impl Nearness {
    /// Whether the library has nothing on the question: even its nearest passage is as far from
    /// it as the passages of a library on another subject (measured per model, held out on
    /// libraries it was not chosen on: BENCHMARKS.md, "A library that has nothing on the
    /// question").
    pub fn has_nothing(&self) -> bool {
        self.nearest < self.unrelated_below
    }
}

/// Passages with fewer distinct words are never called repeats: short notes written from one
/// template ("Tundra lichen note number 3") differ in what few words they have.
const REPEATS_FROM_WORDS: usize = 20;

/// A passage's words of three letters or more and its numbers, lower-cased.
fn word_set(text: &str) -> HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3 || w.chars().any(|c| c.is_ascii_digit()))
        .map(str::to_lowercase)
        .collect()
}

/// Shared words over the words of either (Jaccard); 0 for a passage of few words.
fn overlap(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    if a.len() < REPEATS_FROM_WORDS || b.len() < REPEATS_FROM_WORDS {
        return 0.0;
    }
    let shared = a.intersection(b).count();
    let either = a.len() + b.len() - shared;
    if either == 0 {
        0.0
    } else {
        shared as f64 / either as f64
    }
}

impl Library {
    /// The best passage per file for `text`, best first (see [`Library::search_ranked`]).
    pub fn search(&self, text: &str, limit: usize) -> Result<Vec<Hit>, LibraryError> {
        Ok(self.search_ranked(text, limit)?.hits)
    }

    /// The best passage per file for `text`, best first, and how they were ranked: by BM25, and
    /// when an embedding model is set, fused by rank with the passages nearest the question in
    /// meaning. A model that fails on this question is logged and the search falls back to
    /// BM25, which the answer says.
    pub fn search_ranked(&self, text: &str, limit: usize) -> Result<Ranked, LibraryError> {
        // Several passages of one file may rank high; look deep enough to fill `limit` files.
        let depth = (limit * 8).max(100);
        let words = query_words(text);
        let keyword = self.keyword_passages(&words, depth)?;
        let (nearest, ranking) = match self.nearest_passages(text, depth, !keyword.is_empty()) {
            Ok(Some((nearest, model))) => (nearest, Ranking::Hybrid { model }),
            Ok(None) => (Vec::new(), Ranking::Bm25),
            Err(e) => {
                tracing::warn!(error = %e, "the library ranks by keywords alone for this search");
                (Vec::new(), Ranking::Bm25)
            }
        };
        let fused = fuse_by_rank(&[&keyword, &nearest]);
        // The passages taken, best first.
        let mut taken: Vec<(i64, FoundPassage)> = Vec::new();
        // The word sets of the passages read of the files taken, so a page repeating one of
        // them is passed over.
        let mut said_by_taken: Vec<HashSet<String>> = Vec::new();
        // Read a few more than the hits wanted at a time, one call each (a round trip on a
        // server): most candidates are taken, and a file's second passage or a repeat is rare.
        let mut candidates = fused.chunks(limit.max(1) * 2);
        'read: while taken.len() < limit {
            let Some(chunk) = candidates.next() else {
                break;
            };
            let mut read: std::collections::HashMap<i64, FoundPassage> =
                self.index.passages(chunk)?.into_iter().collect();
            for id in chunk {
                if taken.len() >= limit {
                    break 'read;
                }
                let Some(found) = read.remove(id) else {
                    continue;
                };
                let said = word_set(&found.text);
                if taken.iter().any(|(_, t)| t.path == found.path) {
                    // Read anyway: a later file repeating this passage repeats that file.
                    said_by_taken.push(said);
                    continue;
                }
                if said_by_taken.iter().any(|t| overlap(t, &said) >= REPEATS) {
                    continue;
                }
                said_by_taken.push(said);
                taken.push((*id, found));
            }
        }
        // Around the words when a hit was found by them, else (by meaning) its start.
        let by_words: Vec<i64> = taken
            .iter()
            .map(|(id, _)| *id)
            .filter(|id| keyword.contains(id))
            .collect();
        let mut snippets: std::collections::HashMap<i64, String> = match by_words.is_empty() {
            true => Default::default(),
            false => self
                .index
                .snippets(&by_words, &words)?
                .into_iter()
                .collect(),
        };
        let hits = taken
            .into_iter()
            .map(|(id, found)| {
                let FoundPassage {
                    path,
                    title,
                    text,
                    reference,
                } = found;
                // A reference manager's record names the paper; the file's own title else.
                let (title, citation) = match reference {
                    Some(r) => (r.title.or(title), r.citation),
                    None => (title, Default::default()),
                };
                let title = title.unwrap_or_else(|| {
                    Path::new(&path)
                        .file_name()
                        .map(|n| n.to_string_lossy().to_string())
                        .unwrap_or_default()
                });
                let snippet = match snippets.remove(&id) {
                    Some(snippet) => unsegment_cjk(&snippet),
                    None => excerpt(&unsegment_cjk(&text)),
                };
                Hit {
                    title,
                    url: file_url(Path::new(&path)),
                    snippet,
                    published: citation.issued.clone(),
                    kind: HitKind::Local,
                    provider: "local".into(),
                    citation,
                }
            })
            .collect();
        Ok(Ranked { hits, ranking })
    }

    /// Passages matching `words` by their stems, best first: those with every word first, then
    /// those with any (a page that says three of the question's four words is still worth
    /// reading when one page says all four).
    fn keyword_passages(&self, words: &[String], depth: usize) -> Result<Vec<i64>, LibraryError> {
        let mut found: Vec<i64> = Vec::new();
        if words.is_empty() {
            return Ok(found);
        }
        for id in self.index.keyword(words, true, depth)? {
            if found.len() < depth && !found.contains(&id) {
                found.push(id);
            }
        }
        // Enough passages say every word, or there is one word: a search for any adds nothing.
        if found.len() >= depth || words.len() < 2 {
            return Ok(found);
        }
        // Words in most passages are left out of both searches below (the any-word search
        // would score every passage they are in; BENCHMARKS).
        let uncommon = uncommon_words(self.index.as_ref(), words, COMMON_WORD_PASSAGES)?;
        // A word in no passage — one the index does not keep (a server's stemmer leaves out
        // "the") or one no file says (a typo) — can only empty a search for all. The searches
        // below are over the words that are there; when the one for every word found nothing,
        // the one for every word that is there comes first.
        let missing: Vec<&String> = uncommon
            .iter()
            .filter(|(_, n)| *n == 0)
            .map(|(w, _)| w)
            .collect();
        if !missing.is_empty() && found.is_empty() {
            let there: Vec<String> = words
                .iter()
                .filter(|w| !missing.contains(w))
                .cloned()
                .collect();
            if there.len() >= 2 {
                found = self.index.keyword(&there, true, depth)?;
                found.truncate(depth);
                if found.len() >= depth {
                    return Ok(found);
                }
            }
        }
        let mut distinct: Vec<String> = Vec::with_capacity(uncommon.len());
        for (w, _) in uncommon.iter().filter(|(_, n)| *n > 0) {
            if !distinct.iter().any(|d| d.eq_ignore_ascii_case(w)) {
                distinct.push(w.clone());
            }
        }
        // Then those with all words but one, each left out in turn (fused by rank): a page that
        // says "EXPLAIN ANALYZE" and "actual time" but not the question's "output" ranks above
        // one that says "ANALYZE" alone, which a search for any word cannot tell apart.
        if (3..=ALL_BUT_ONE_UP_TO).contains(&distinct.len()) {
            let mut lists = Vec::with_capacity(distinct.len());
            for left_out in 0..distinct.len() {
                let rest: Vec<String> = distinct
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i != left_out)
                    .map(|(_, w)| w.clone())
                    .collect();
                lists.push(self.index.keyword(&rest, true, depth)?);
            }
            let lists: Vec<&[i64]> = lists.iter().map(Vec::as_slice).collect();
            for id in fuse_by_rank(&lists) {
                if found.len() >= depth {
                    return Ok(found);
                }
                if !found.contains(&id) {
                    found.push(id);
                }
            }
        }
        // A word in no passage adds nothing to a search for any, and costs a statement on a
        // server.
        let any: Vec<String> = uncommon
            .into_iter()
            .filter(|(_, n)| *n > 0)
            .map(|(w, _)| w)
            .collect();
        if any.is_empty() {
            return Ok(found);
        }
        for id in self.index.keyword(&any, false, depth)? {
            if found.len() < depth && !found.contains(&id) {
                found.push(id);
            }
        }
        Ok(found)
    }

    /// Passages nearest `text` in meaning, best first, down to [`MIN_SIMILARITY`], and the
    /// model's name; `None` without an embedding model. None at all when no passage has the
    /// question's words (`by_words` false) and even the nearest is under the model's
    /// [`research_embed::Embedder::unrelated_below`]: the library has nothing on the question,
    /// and its nearest passages would only fill the results with what a reader would call off
    /// the subject. Where words did find passages the floor is not applied: a run's short
    /// searches ("turn foreign", "foreign key") sit lower in meaning than the questions the floor
    /// was measured on, and losing their nearest passages cost SQLite's answer benchmark two
    /// facts of 44 (BENCHMARKS.md, "A library that has nothing on the question").
    fn nearest_passages(
        &self,
        text: &str,
        depth: usize,
        by_words: bool,
    ) -> Result<Option<(Vec<i64>, String)>, LibraryError> {
        if let Some(language) = self.unread_language(text) {
            tracing::debug!(%language, "the library ranks this question by keywords alone");
            return Ok(None);
        }
        let Some(found) = self.nearest(text, depth)? else {
            return Ok(None);
        };
        let model = self.ranking_model().unwrap_or_default();
        if !by_words
            && found
                .first()
                .is_none_or(|n| n.similarity < self.unrelated_below())
        {
            return Ok(Some((Vec::new(), model)));
        }
        let nearest = found
            .into_iter()
            .filter(|n| n.similarity >= MIN_SIMILARITY)
            .map(|n| n.id)
            .collect();
        Ok(Some((nearest, model)))
    }

    /// How near the library's passages come in meaning to a question asked as any of `texts` (a
    /// follow-up alone, and with the subject it follows): the nearest passage to the nearest of
    /// them. `None` when that cannot be judged: no embedding model, a question in a language the
    /// model was not made for, or passages without the model's vectors yet (a library still being
    /// indexed by meaning may hold the answer among them). Judged once for a run's question, it
    /// tells a library that has nothing on it from one whose words merely recur in it ("Why do
    /// cats purr?" finds "Why Is SQLite Coded In C" by its words).
    pub fn nearness(&self, texts: &[&str]) -> Result<Option<Nearness>, LibraryError> {
        let (embedded, passages) = self.embedded_share()?;
        if self.embedder.is_none() || embedded < passages {
            return Ok(None);
        }
        let mut nearest: Option<f32> = None;
        for text in texts {
            if self.unread_language(text).is_some() {
                return Ok(None);
            }
            let Some(found) = self.nearest(text, 1)? else {
                return Ok(None);
            };
            if let Some(n) = found.first() {
                nearest = Some(nearest.map_or(n.similarity, |best| best.max(n.similarity)));
            }
        }
        Ok(nearest.map(|nearest| Nearness {
            nearest,
            unrelated_below: self.unrelated_below(),
            model: self.ranking_model().unwrap_or_default(),
        }))
    }

    /// The similarity under which the model finds a passage unrelated to what is asked (0 with
    /// no model, or one not measured).
    fn unrelated_below(&self) -> f32 {
        self.embedder.as_ref().map_or(0.0, |e| e.unrelated_below())
    }

    /// The language of `text` when the embedding model was not made for it, so that the
    /// library ranks it by keywords alone; `None` when the model reads it (or says nothing of
    /// its languages), or there is no model. An English model's neighbours of a Japanese
    /// question put its answering pages below where keywords put them (13 of 17 in the first
    /// five against 17; BENCHMARKS.md, "The distilled model weighs words by how rare they are").
    pub fn unread_language(&self, text: &str) -> Option<String> {
        let languages = self.embedder.as_ref()?.languages()?;
        let language = research_embed::detect_language(text);
        (!languages.contains(&language)).then_some(language)
    }

    fn ranking_model(&self) -> Option<String> {
        self.embedder.as_ref().map(|e| e.model_id().to_string())
    }

    /// The `depth` passages nearest `text` in meaning alone, with their similarities, best
    /// first; `None` without an embedding model. What hybrid ranking fuses with the keywords'.
    pub fn nearest(
        &self,
        text: &str,
        depth: usize,
    ) -> Result<Option<Vec<Neighbour>>, LibraryError> {
        let Some(embedder) = &self.embedder else {
            return Ok(None);
        };
        let question = embedder.embed(&[text])?.pop().ok_or_else(|| {
            research_embed::EmbedError::Compute("no vector for the question".into())
        })?;
        Ok(Some(self.vectors.nearest(
            &self.index,
            embedder.model_id(),
            &question,
            depth,
        )?))
    }
}

#[async_trait]
impl SearchProvider for Library {
    fn name(&self) -> &'static str {
        "local"
    }

    fn kind(&self) -> HitKind {
        HitKind::Local
    }

    async fn search(&self, query: &SearchQuery) -> Result<Vec<Hit>, SearchError> {
        Library::search(self, &query.text, query.limit).map_err(|e| SearchError::BadResponse {
            provider: "local",
            detail: e.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule a search for any word follows: a word in more passages than the limit is left
    /// out, the rest kept rarest first; every word that common leaves none.
    #[test]
    fn the_commonest_words_are_left_out_of_a_search_for_any() {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().join("docs");
        std::fs::create_dir_all(&docs).unwrap();
        for (name, text) in [
            ("a.md", "the bees dance"),
            ("b.md", "the hive hums"),
            ("c.md", "the queen rests"),
        ] {
            std::fs::write(docs.join(name), text).unwrap();
        }
        let lib = Library::open(&dir.path().join("db.sqlite3")).unwrap();
        lib.add(&docs, &|_| {}).unwrap();
        let index = lib.index.as_ref();
        let words = |w: &[&str]| -> Vec<String> { w.iter().map(|w| w.to_string()).collect() };
        // "the" is in three passages, "dances" (by its stem) in one, "wasps" in none.
        assert_eq!(
            uncommon_words(index, &words(&["the", "dances", "wasps"]), 2).unwrap(),
            [("wasps".to_string(), 0), ("dances".to_string(), 1)]
        );
        assert_eq!(
            uncommon_words(index, &words(&["the", "dances"]), 3).unwrap(),
            [("dances".to_string(), 1), ("the".to_string(), 3)]
        );
        assert!(uncommon_words(index, &words(&["the", "hive"]), 0)
            .unwrap()
            .is_empty());
        assert!(uncommon_words(index, &[], 2).unwrap().is_empty());
        // A search for any word still finds a passage by its one uncommon word.
        assert_eq!(
            lib.keyword_passages(&words(&["dances", "wasps"]), 5)
                .unwrap()
                .len(),
            1
        );
    }

    /// The trigram embedder, saying what a real model's card and measurements say: the
    /// languages it was made for, and the similarity under which a library has nothing on a
    /// question.
    struct Told {
        trigrams: research_embed::TrigramEmbedder,
        languages: Option<Vec<String>>,
        unrelated_below: f32,
    }

    impl research_embed::Embedder for Told {
        fn model_id(&self) -> &str {
            self.trigrams.model_id()
        }
        fn dimensions(&self) -> usize {
            self.trigrams.dimensions()
        }
        fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, research_embed::EmbedError> {
            self.trigrams.embed(texts)
        }
        fn languages(&self) -> Option<&[String]> {
            self.languages.as_deref()
        }
        fn unrelated_below(&self) -> f32 {
            self.unrelated_below
        }
    }

    /// A folder of `files` (name, text) in `dir`, and a library over it read by `embedder`.
    fn library_of(dir: &Path, files: &[(&str, &str)], embedder: Told) -> Library {
        let docs = dir.join("docs");
        std::fs::create_dir_all(&docs).unwrap();
        for (name, text) in files {
            std::fs::write(docs.join(name), text).unwrap();
        }
        let lib = Library::open(&dir.join("db.sqlite3"))
            .unwrap()
            .with_embedder(std::sync::Arc::new(embedder));
        lib.add(&docs, &|_| {}).unwrap();
        lib.embed_pending().unwrap();
        lib
    }

    #[test]
    fn a_library_with_nothing_on_the_question_gives_no_nearest_passages() {
        // No word of the question is on the page: only meaning can find it.
        let question = "beehive dancers";
        let found = |unrelated_below: f32| {
            let dir = tempfile::tempdir().unwrap();
            let bees = (
                "bees.md",
                "Honeybees dance to tell the hive where flowers are.",
            );
            let told = Told {
                trigrams: Default::default(),
                languages: None,
                unrelated_below,
            };
            let lib = library_of(dir.path(), &[bees], told);
            assert!(lib
                .keyword_passages(&query_words(question), 5)
                .unwrap()
                .is_empty());
            lib.search(question, 5).unwrap().len()
        };
        assert_eq!(found(0.0), 1, "the nearest passage, by meaning");
        assert_eq!(found(0.99), 0, "under the model's floor: nothing on it");
    }

    #[test]
    fn a_question_is_judged_by_the_passage_nearest_any_of_its_readings() {
        let dir = tempfile::tempdir().unwrap();
        let bees = (
            "bees.md",
            "Honeybees dance to tell the hive where flowers are.",
        );
        let told = |unrelated_below: f32| Told {
            trigrams: Default::default(),
            languages: Some(vec!["en".into()]),
            unrelated_below,
        };
        let lib = library_of(dir.path(), &[bees], told(0.3));
        let alone = "What about their predators?";
        let followed = "Honeybees dance to tell the hive. What about their predators?";
        let judged = |texts: &[&str]| lib.nearness(texts).unwrap().unwrap();
        let (apart, together) = (judged(&[alone]), judged(&[alone, followed]));
        assert!(apart.has_nothing(), "{apart:?}");
        assert!(!together.has_nothing(), "{together:?}");
        assert!(together.nearest > apart.nearest);
        assert_eq!(together.unrelated_below, 0.3);
        // What cannot be judged is not called unrelated: a language the model was not made
        // for, or a library without a model.
        assert_eq!(lib.nearness(&["ミツバチの天敵は？"]).unwrap(), None);
        let plain = Library::open(&dir.path().join("db.sqlite3")).unwrap();
        assert_eq!(plain.nearness(&[alone]).unwrap(), None);
        // Nor is a library still being indexed by meaning: a passage without a vector (added
        // by keywords alone) may be the one on the question.
        let more = dir.path().join("more");
        std::fs::create_dir_all(&more).unwrap();
        std::fs::write(
            more.join("wasps.md"),
            "Wasps and hornets prey on honeybees.",
        )
        .unwrap();
        plain.add(&more, &|_| {}).unwrap();
        assert_eq!(lib.nearness(&[alone]).unwrap(), None);
        lib.embed_pending().unwrap();
        assert!(lib.nearness(&[alone]).unwrap().is_some());
    }

    #[test]
    fn a_question_in_a_language_the_model_was_not_made_for_is_ranked_by_keywords() {
        let dir = tempfile::tempdir().unwrap();
        let files = [
            ("en.md", "Bees dance to tell the hive where flowers are."),
            ("ja.md", "ミツバチは踊りで花の場所を仲間に伝える。"),
        ];
        let told = Told {
            trigrams: Default::default(),
            languages: Some(vec!["en".into()]),
            unrelated_below: 0.0,
        };
        let lib = library_of(dir.path(), &files, told);
        let english = lib
            .search_ranked("How do bees tell where flowers are?", 5)
            .unwrap();
        assert!(
            matches!(english.ranking, Ranking::Hybrid { .. }),
            "{:?}",
            english.ranking
        );
        let japanese = lib
            .search_ranked("ミツバチはどうやって花の場所を伝えますか？", 5)
            .unwrap();
        assert_eq!(japanese.ranking, Ranking::Bm25);
        assert!(
            japanese.hits[0].url.ends_with("ja.md"),
            "{:?}",
            japanese.hits
        );
    }

    /// A word no passage has (a typo, or a word a server's stemmer drops) does not count among
    /// the words a page may lack: with eight words that are there and one that is not, the
    /// page with seven of the eight ranks first, above short pages with two each.
    #[test]
    fn a_word_in_no_passage_is_not_among_the_words_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().join("docs");
        std::fs::create_dir_all(&docs).unwrap();
        let filler = " Woodland surveys record each stand by its height, girth and age, and note \
                      the soil beneath it."
            .repeat(6);
        let seven = format!(
            "The alder, birch, cedar, hazel, larch, maple and rowan of the valley.{filler}"
        );
        for (name, text) in [
            ("seven.md", seven.as_str()),
            ("q1.md", "Alder and birch."),
            ("q2.md", "Cedar and hazel."),
            ("q3.md", "Larch and maple."),
            ("q4.md", "Rowan and spruce."),
        ] {
            std::fs::write(docs.join(name), text).unwrap();
        }
        let lib = Library::open(&dir.path().join("db.sqlite3")).unwrap();
        lib.add(&docs, &|_| {}).unwrap();
        let question: Vec<String> = "alder birch cedar hazel larch maple rowan spruce xqzzy"
            .split(' ')
            .map(String::from)
            .collect();
        let found = lib.keyword_passages(&question, 5).unwrap();
        let texts = lib.index.passages(&found[..1]).unwrap();
        assert!(
            texts[0].1.path.ends_with("seven.md"),
            "{:?}",
            lib.index.passages(&found).unwrap()
        );
    }

    /// A page with all the question's words but one ranks above pages with one of them, and a
    /// page repeating one already found (a manual's rendered page and its source) is passed
    /// over for the next.
    #[test]
    fn all_words_but_one_rank_next_and_a_repeated_page_is_passed_over() {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().join("docs");
        std::fs::create_dir_all(&docs).unwrap();
        // Long passages: BM25 ranks a short one saying two of the words often above them.
        let filler = " The planner chooses among join methods, scan types and orders by their \
                      estimated cost, which it derives from statistics about the tables."
            .repeat(6);
        let explain = format!(
            "EXPLAIN ANALYZE runs the statement and shows the actual time each plan node took \
             beside the planner's estimates, so the two can be compared.{filler}"
        );
        let other = " Each row of the listing is indented under its parent node, and the \
                     innermost nodes are those the executor starts with when it reads tables."
            .repeat(6);
        let listing =
            format!("EXPLAIN ANALYZE output lists each node with actual rows and loops.{other}");
        for (name, text) in [
            // Eight pages with one of the words each, listed before the answer by name.
            (
                "a1.md",
                "ANALYZE collects statistics about the contents of tables.",
            ),
            ("a2.md", "ANALYZE can be run on a single column as well."),
            ("a3.md", "The time zone names are kept in a catalog."),
            ("a4.md", "The actual rows are counted by the executor."),
            ("a5.md", "Output goes to the server log by default."),
            ("a6.md", "Autovacuum runs ANALYZE after many rows change."),
            // Two of the words, said often in a short passage: BM25 puts it first among any.
            ("a7.md", "Analyze time. Analyze, analyze: time, time."),
            ("b.md", explain.as_str()),
            // The same page again, as a manual's source text beside its rendered page.
            ("b-source.txt", explain.as_str()),
            ("c.md", listing.as_str()),
        ] {
            std::fs::write(docs.join(name), text).unwrap();
        }
        let lib = Library::open(&dir.path().join("db.sqlite3")).unwrap();
        lib.add(&docs, &|_| {}).unwrap();
        // No passage has all four words; b and c have three of them.
        let words: Vec<String> = ["explain", "analyze", "actual", "time"]
            .iter()
            .map(|w| w.to_string())
            .collect();
        let found = lib.keyword_passages(&words, 50).unwrap();
        let path_of = |id: i64| lib.index.passages(&[id]).unwrap().remove(0).1.path;
        let first: Vec<String> = found[..3].iter().map(|id| path_of(*id)).collect();
        assert!(
            first
                .iter()
                .all(|p| p.ends_with("c.md") || p.contains("/b")),
            "{first:?}"
        );
        let hits = lib.search("explain analyze actual time", 10).unwrap();
        let twins = hits.iter().filter(|h| h.url.contains("/b")).count();
        assert_eq!(
            twins,
            1,
            "{:?}",
            hits.iter().map(|h| &h.url).collect::<Vec<_>>()
        );
        assert!(hits.iter().any(|h| h.url.ends_with("c.md")));
    }
}
