//! Meaning: how close a sentence is to the window it is aligned to when the words differ.
//!
//! Word signals verify a sentence that copies its passage and miss one that says the same in a
//! writer's own words ("SQLite uses a rollback journal to make commits atomic" against a page that
//! explains how the journal makes a commit all-or-nothing). The sentence model the project ships
//! (all-MiniLM-L6-v2, `research-embed`) reads both: the window's similarity to the sentence, and
//! how much of the sentence finds a close match, token by token, in the window (the recall of
//! BERTScore). The checker stays a pure function of its inputs: a [`Meaning`] is handed in (or
//! installed once by the program, [`install`]) and without one the word signals decide alone,
//! with the weights fitted without meaning.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use research_embed::{similarity, EmbedError, Encoded, TokenEmbedder};
use research_entail::Entailment;

/// Encodings kept before the cache is emptied: about 40 MB of vectors at 384 dimensions and
/// 60 tokens a text; a report's sources are far fewer.
const CACHE_TEXTS: usize = 4_000;

/// A sentence model with a cache of the texts it has read: a source's windows are encoded once
/// for every sentence that cites it, and again for the next report only when evicted.
pub struct Meaning {
    encoder: Arc<dyn TokenEmbedder>,
    cache: Mutex<HashMap<String, Arc<Encoded>>>,
    /// The entailment reader, where the program installed one ([`install_entailment`]): it
    /// reads a window and a sentence together, which no similarity of the two does.
    entailment: Option<Arc<dyn Entailment>>,
    /// Its readings, by window and sentence: an audit of a second draft reads the same pairs.
    read: Mutex<HashMap<(String, String), f64>>,
}

impl std::fmt::Debug for Meaning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Meaning")
            .field("model", &self.encoder.model_id())
            .field(
                "entailment",
                &self.entailment.as_ref().map(|e| e.model_id().to_string()),
            )
            .finish_non_exhaustive()
    }
}

/// What meaning says of a sentence and one window.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Closeness {
    /// The cosine similarity of the two texts' vectors.
    pub similarity: f64,
    /// The mean, over the sentence's content tokens (not stop words), of each token's best
    /// cosine similarity to a window token (BERTScore's recall, stop words weighing nothing in
    /// place of its IDF weights).
    pub token_recall: f64,
    /// The mean of the two content tokens of the sentence that match worst in any of the windows
    /// read with it: a sentence that says one thing its sources do not has a word that matches
    /// nothing.
    pub token_weakest: f64,
    /// [`Closeness::token_recall`] against every window read with it at once: a sentence that
    /// draws on two sources ("… dance to tell nestmates where food is, and workers change tasks
    /// as they age [3][1]") finds each half in its own source's window.
    pub token_recall_cited: f64,
    /// The mean, over the window's content tokens, of each one's best match in the sentence:
    /// a window that is the sentence in other words scores high, a long one that mentions it low.
    pub token_precision: f64,
}

impl Meaning {
    /// Reads with `encoder`.
    pub fn new(encoder: Arc<dyn TokenEmbedder>) -> Self {
        Self {
            encoder,
            cache: Mutex::new(HashMap::new()),
            entailment: None,
            read: Mutex::new(HashMap::new()),
        }
    }

    /// Reads with `encoder`, and entailment with `reader`.
    pub fn with_entailment(encoder: Arc<dyn TokenEmbedder>, reader: Arc<dyn Entailment>) -> Self {
        Self {
            entailment: Some(reader),
            ..Self::new(encoder)
        }
    }

    /// The entailment reader's id, when there is one.
    pub fn entailment_id(&self) -> Option<&str> {
        self.entailment.as_ref().map(|e| e.model_id())
    }

    /// How surely the entailment reader finds that `window` does not bear `sentence` out
    /// ([`crate::Signals::denied`]); `None` without a reader or when it failed.
    pub fn denied(&self, window: &str, sentence: &str) -> Option<f64> {
        let reader = self.entailment.as_ref()?;
        let key = (window.to_string(), sentence.to_string());
        if let Some(d) = self
            .read
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
        {
            return Some(*d);
        }
        let p = reader
            .entailment(&[(window, sentence)])
            .ok()?
            .first()
            .copied()?;
        let d = -(f64::from(p).max(1e-3)).log10();
        let mut read = self.read.lock().unwrap_or_else(|p| p.into_inner());
        if read.len() >= CACHE_TEXTS {
            read.clear();
        }
        read.insert(key, d);
        Some(d)
    }

    /// The model's id.
    pub fn model_id(&self) -> &str {
        self.encoder.model_id()
    }

    /// The encodings of `texts`, in order: the cached ones as they are, the others in one batch.
    pub fn encode(&self, texts: &[&str]) -> Result<Vec<Arc<Encoded>>, EmbedError> {
        let missing: Vec<&str> = {
            let cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            let mut seen = std::collections::HashSet::new();
            texts
                .iter()
                .copied()
                .filter(|t| !cache.contains_key(*t) && seen.insert(*t))
                .collect()
        };
        let fresh = if missing.is_empty() {
            Vec::new()
        } else {
            self.encoder.embed_tokens(&missing)?
        };
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        // What this call needs is taken from the cache before it may be emptied to make room
        // (a call with more new texts than the cache holds empties it, and still answers).
        let mut out: HashMap<&str, Arc<Encoded>> = texts
            .iter()
            .filter_map(|t| cache.get(*t).map(|e| (*t, e.clone())))
            .collect();
        if cache.len() + fresh.len() > CACHE_TEXTS {
            cache.clear();
        }
        for (text, e) in missing.iter().zip(fresh) {
            let e = Arc::new(e);
            if cache.len() < CACHE_TEXTS {
                cache.insert((*text).to_string(), e.clone());
            }
            out.insert(text, e);
        }
        Ok(texts
            .iter()
            .map(|t| {
                out.get(t)
                    .cloned()
                    .expect("every text was encoded or cached")
            })
            .collect())
    }

    /// How close `sentence` is to each of `windows`, in order (its token alignment to all of
    /// them together in each one's `token_recall_cited` and `token_weakest`); `None` when the
    /// model failed (the word signals then decide alone).
    pub fn closeness(&self, sentence: &str, windows: &[&str]) -> Option<Vec<Closeness>> {
        let mut texts = vec![sentence];
        texts.extend_from_slice(windows);
        let encoded = self.encode(&texts).ok()?;
        let (claim, windows) = encoded.split_first()?;
        let all = Encoded {
            sentence: Vec::new(),
            tokens: windows
                .iter()
                .flat_map(|w| w.tokens.iter().cloned())
                .collect(),
            pieces: windows
                .iter()
                .flat_map(|w| w.pieces.iter().cloned())
                .collect(),
        };
        let cited = best_matches(claim, &all);
        let mut weakest = cited.clone();
        weakest.sort_by(f64::total_cmp);
        weakest.truncate(2);
        let (recall_cited, weakest) = (mean(&cited), mean(&weakest));
        Some(
            windows
                .iter()
                .map(|w| Closeness {
                    token_recall_cited: recall_cited,
                    token_weakest: weakest,
                    ..closeness(claim, w)
                })
                .collect(),
        )
    }
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Whether a token counts: not a stop word ("the", "of", "is" match anything), and not a
/// single letter or digit.
fn content(piece: &str) -> bool {
    let word = piece.trim_start_matches("##");
    piece.starts_with("##")
        || (word.chars().count() > 1 && !crate::words::stop_word(&word.to_lowercase()))
}

/// Each content token of `from`, its best cosine similarity to any token of `to`.
fn best_matches(from: &Encoded, to: &Encoded) -> Vec<f64> {
    from.tokens
        .iter()
        .zip(&from.pieces)
        .filter(|(_, piece)| content(piece))
        .map(|(t, _)| {
            to.tokens
                .iter()
                .map(|w| similarity(t, w))
                .fold(f32::MIN, f32::max) as f64
        })
        .collect()
}

/// The closeness of two encodings (the sentence's alignment to this window alone: its
/// `token_recall_cited` is its `token_recall`).
pub fn closeness(claim: &Encoded, window: &Encoded) -> Closeness {
    let (recall, precision) = if window.tokens.is_empty() || claim.tokens.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        (best_matches(claim, window), best_matches(window, claim))
    };
    let mut weakest = recall.clone();
    weakest.sort_by(f64::total_cmp);
    weakest.truncate(2);
    Closeness {
        similarity: similarity(&claim.sentence, &window.sentence) as f64,
        token_recall: mean(&recall),
        token_weakest: mean(&weakest),
        token_precision: mean(&precision),
        token_recall_cited: mean(&recall),
    }
}

type Loader = Box<dyn FnOnce() -> Option<Arc<dyn TokenEmbedder>> + Send>;
type ReaderLoader = Box<dyn FnOnce() -> Option<Arc<dyn Entailment>> + Send>;

static LOADER: Mutex<Option<Loader>> = Mutex::new(None);
static READER: Mutex<Option<ReaderLoader>> = Mutex::new(None);
static INSTALLED: OnceLock<Option<Meaning>> = OnceLock::new();

/// Installs the program's sentence model, loaded on first use by `load` (`None`: not
/// installed, the word signals decide alone): the app and `research` install it once at start,
/// so that the audit, `research check`, trust marks, recheck and MCP read with the same checker.
/// Libraries and tests do not install one, so their verdicts are the word signals'. A second
/// install before the first use replaces the first; after it, it is ignored.
pub fn install(load: impl FnOnce() -> Option<Arc<dyn TokenEmbedder>> + Send + 'static) {
    *LOADER.lock().unwrap_or_else(|p| p.into_inner()) = Some(Box::new(load));
}

/// Installs the program's entailment reader beside its sentence model, loaded with it on first
/// use by `load` (`None`: not installed, the checker reads without it). Read only with a
/// sentence model: it decides among windows meaning has chosen.
pub fn install_entailment(load: impl FnOnce() -> Option<Arc<dyn Entailment>> + Send + 'static) {
    *READER.lock().unwrap_or_else(|p| p.into_inner()) = Some(Box::new(load));
}

/// The installed sentence model, loading it on the first call after [`install`]; `None` when
/// none was installed or it did not load.
pub fn installed() -> Option<&'static Meaning> {
    if INSTALLED.get().is_none() && LOADER.lock().unwrap_or_else(|p| p.into_inner()).is_none() {
        return None;
    }
    INSTALLED
        .get_or_init(|| {
            let load = LOADER.lock().unwrap_or_else(|p| p.into_inner()).take()?;
            let encoder = load()?;
            let reader = READER.lock().unwrap_or_else(|p| p.into_inner()).take();
            Some(match reader.and_then(|load| load()) {
                Some(reader) => Meaning::with_entailment(encoder, reader),
                None => Meaning::new(encoder),
            })
        })
        .as_ref()
}

/// What the program's checker reads, in words for a report's method section: words alone, with
/// the sentence model's meaning, and with the entailment reader where it is installed.
pub fn reading() -> String {
    match installed() {
        None => "Citations checked by their words alone (no sentence model is installed)".into(),
        Some(m) => match m.entailment_id() {
            None => format!(
                "Citations checked by their words and meaning ({}); no entailment reader is installed",
                m.model_id()
            ),
            Some(reader) => format!(
                "Citations checked by their words, meaning ({}) and entailment ({}): a sentence \
                 with most of its passage's words that the passage does not bear out is not kept \
                 as written",
                m.model_id(),
                reader
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use research_embed::TrigramEmbedder;

    #[test]
    fn a_window_in_the_sentence_s_words_is_closer_than_another_and_texts_are_cached() {
        let m = Meaning::new(Arc::new(TrigramEmbedder::default()));
        let c = m
            .closeness(
                "The journal makes commits atomic.",
                &[
                    "A rollback journal makes each commit atomic.",
                    "The tower is 330 metres tall.",
                ],
            )
            .unwrap();
        assert!(c[0].similarity > c[1].similarity, "{c:?}");
        assert!(c[0].token_recall > c[1].token_recall, "{c:?}");
        assert!(c[0].token_recall <= 1.0 + 1e-6);
        let again = m.encode(&["The tower is 330 metres tall."]).unwrap();
        let cached = m.cache.lock().unwrap().len();
        assert_eq!(cached, 3, "the sentence and both windows, once each");
        assert!(!again[0].tokens.is_empty());
    }

    #[test]
    fn a_call_with_more_texts_than_the_cache_holds_still_answers_every_one() {
        // The pipeline's answering measure reads a run's pages at once: thousands of sentences,
        // some read before. Emptying the cache to make room must not lose those.
        let m = Meaning::new(Arc::new(TrigramEmbedder::default()));
        m.encode(&["a sentence read before", "another one"])
            .unwrap();
        let many: Vec<String> = (0..CACHE_TEXTS + 10)
            .map(|i| format!("sentence number {i}"))
            .collect();
        let mut texts: Vec<&str> = vec!["a sentence read before"];
        texts.extend(many.iter().map(String::as_str));
        let encoded = m.encode(&texts).unwrap();
        assert_eq!(encoded.len(), texts.len());
        assert!(m.cache.lock().unwrap().len() <= CACHE_TEXTS);
        assert_eq!(m.encode(&["another one"]).unwrap().len(), 1);
    }
}
