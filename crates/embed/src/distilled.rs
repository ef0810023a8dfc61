//! A sentence model distilled to one vector per token: a text's vector is the weighted mean of
//! its tokens' vectors, with no network to run. Made once from the installed model (each token
//! of its vocabulary through the whole model alone, as the model2vec method does), it indexes a
//! library hundreds of times faster than the model; on the retrieval questions its hybrid
//! ranking finds as many answering pages as the model's (BENCHMARKS.md, "The distilled model
//! weighs words by how rare they are").
//!
//! A token is weighed by how rare it is ([`rarity_weights`]): WordPiece vocabularies are built
//! most frequent first, so the rank stands in for how common a token is, and the common ones
//! ("the", "of", punctuation) say little about what a passage is about.

use std::path::Path;

use tokenizers::Tokenizer;

use crate::{normalize, EmbedError, Embedder};

/// What the table file starts with: its format, then the model id, the vocabulary size and
/// the dimensions. The second format weighs tokens by how rare they are ([`rarity_weights`]);
/// a table of the first is made again.
const MAGIC: &[u8; 8] = b"RSDIST02";

/// What the distilled model's id adds to the model's: its vectors are stored under it, so the
/// vectors of the first weighting ("+distilled") are another model's and are made again.
const SUFFIX: &str = "+distilled2";

/// How far a common token is weighed down: a token of estimated share `p` of running text
/// weighs `RARITY / (RARITY + p)` (the smooth inverse frequency of Arora, Liang and Ma, 2017).
/// Chosen on the SQLite retrieval questions (1e-4 of 3e-5, 1e-4, 3e-4, 1e-3 and 1e-2: the
/// passages nearest in meaning put an answering page in the first five for 18 of 18, against
/// 11 with the first weighting) and scored on the PostgreSQL and Python questions, which the
/// choice never saw: 7 of 8 (4 before) and 6 of 8 (3 before). BENCHMARKS.md.
const RARITY: f32 = 1e-4;

/// Tokens read per text at most: a library passage is a few hundred tokens.
const MAX_TOKENS: usize = 1024;

/// Each token's weight by how rare it is, from its place in the vocabulary. A WordPiece
/// vocabulary lists its reserved entries and every single character first, then words and
/// pieces most frequent first: a word's rank is its place after the first entry of two or
/// more characters (not a reserved `[…]` one), and its share of running text is estimated by
/// Zipf's law (rank `r` of `n`: `1 / (r · H(n))`). Reserved entries, punctuation and the
/// letters and digits of ASCII weigh as the commonest word — a passage is its words, not its
/// punctuation; any other letter standing alone (a Han character, a kana) is a word in its own
/// right and weighs as a rare word does (with this weighting alone, Japanese questions were
/// read by their few Latin words: 0 of 17 GIMP questions found an answering page in the first
/// five by meaning, 2 with the first weighting, 4 with this). The weight of "the" is
/// then about 0.001 and of a word past rank 10,000 about 0.9: "How do I open a database in
/// memory" is read as "open", "database", "memory" (the first weighting, the logarithm of the
/// rank, weighed "the" three quarters as much as the rarest word).
fn rarity_weights(tokenizer: &Tokenizer, vocab: usize) -> Vec<f32> {
    let mut first_word = usize::MAX;
    let mut letters = vec![false; vocab];
    for (token, id) in tokenizer.get_vocab(true) {
        let piece = token.strip_prefix("##").unwrap_or(&token);
        let reserved = token.starts_with('[') && token.ends_with(']');
        let mut chars = piece.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => {
                if let Some(letter) = letters.get_mut(id as usize) {
                    *letter = c.is_alphabetic() && !c.is_ascii();
                }
            }
            (Some(_), Some(_)) if !reserved => first_word = first_word.min(id as usize),
            _ => {}
        }
    }
    let harmonic = (vocab.max(2) as f32).ln() + 0.577;
    (0..vocab)
        .map(|id| {
            if letters[id] {
                return 1.0;
            }
            let rank = id.saturating_sub(first_word) + 1;
            let share = 1.0 / (rank as f32 * harmonic);
            RARITY / (RARITY + share)
        })
        .collect()
}

/// A text's vector from its tokens' distilled vectors.
pub struct DistilledEmbedder {
    tokenizer: Tokenizer,
    /// `vocab × dimensions`, each row unit length, already weighted.
    table: Vec<f32>,
    dimensions: usize,
    /// Tokens with no vector of their own (markers, padding): skipped.
    skipped: Vec<bool>,
    id: String,
    /// The languages of the model it was distilled from.
    languages: Option<Vec<String>>,
}

impl std::fmt::Debug for DistilledEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DistilledEmbedder")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

fn compute(e: impl std::fmt::Display) -> EmbedError {
    EmbedError::Compute(e.to_string())
}

impl DistilledEmbedder {
    /// The embedder for `rows` (one unit vector per token id, from the model `model_id`) and
    /// the model's `tokenizer` (its padding and truncation are set here).
    pub(crate) fn new(
        mut tokenizer: Tokenizer,
        rows: Vec<Vec<f32>>,
        model_id: &str,
    ) -> Result<Self, EmbedError> {
        let dimensions = rows.first().map(Vec::len).unwrap_or(0);
        if dimensions == 0 || rows.iter().any(|r| r.len() != dimensions) {
            return Err(compute("the distilled table has rows of different lengths"));
        }
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(tokenizers::TruncationParams {
                max_length: MAX_TOKENS,
                ..Default::default()
            }))
            .map_err(compute)?;
        let special: std::collections::BTreeSet<u32> = tokenizer
            .get_added_tokens_decoder()
            .into_iter()
            .filter(|(_, t)| t.special)
            .map(|(id, _)| id)
            .collect();
        let weights = rarity_weights(&tokenizer, rows.len());
        // Every token's vector leans the same way (what any text of this model shares): that
        // direction says nothing about a passage, so it is taken out, and the rest set to unit
        // length ("all but the top", Mu and Viswanath 2018).
        let mut mean = vec![0.0f32; dimensions];
        for row in &rows {
            mean.iter_mut()
                .zip(row)
                .for_each(|(m, x)| *m += x / rows.len() as f32);
        }
        let mut table = Vec::with_capacity(rows.len() * dimensions);
        let mut skipped = Vec::with_capacity(rows.len());
        for (id, row) in rows.iter().enumerate() {
            let mut centred: Vec<f32> = row.iter().zip(&mean).map(|(x, m)| x - m).collect();
            normalize(&mut centred);
            table.extend(centred.iter().map(|x| x * weights[id]));
            skipped.push(special.contains(&(id as u32)));
        }
        Ok(Self {
            tokenizer,
            table,
            dimensions,
            skipped,
            id: format!("{model_id}{SUFFIX}"),
            languages: None,
        })
    }

    /// The same, for a model made for `languages` (what the model it was distilled from reads).
    pub(crate) fn made_for(mut self, languages: Option<Vec<String>>) -> Self {
        self.languages = languages;
        self
    }

    /// Writes the table to `path` (for [`DistilledEmbedder::read`]): made once per model, read
    /// at every start.
    pub fn write(&self, path: &Path) -> Result<(), EmbedError> {
        let file_error = |e: std::io::Error| EmbedError::ModelFile {
            file: path.to_path_buf(),
            reason: e.to_string(),
        };
        let mut bytes = Vec::with_capacity(self.table.len() * 4 + 64);
        bytes.extend_from_slice(MAGIC);
        let id = self.id.as_bytes();
        bytes.extend_from_slice(&(id.len() as u32).to_le_bytes());
        bytes.extend_from_slice(id);
        bytes.extend_from_slice(&(self.skipped.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&(self.dimensions as u32).to_le_bytes());
        for s in &self.skipped {
            bytes.push(*s as u8);
        }
        for x in &self.table {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(file_error)?;
        }
        // Written whole or not at all: a table cut short would give wrong vectors silently. Each
        // process writes its own part, so two making the table at once never mix.
        let partial = path.with_extension(format!("partial-{}", std::process::id()));
        std::fs::write(&partial, &bytes).map_err(file_error)?;
        std::fs::rename(&partial, path).map_err(file_error)
    }

    /// The table written by [`DistilledEmbedder::write`], for the model whose tokenizer is
    /// `tokenizer` and whose id is `model_id`; `None` when the file is not there, or is of
    /// another model or format (it is then made again).
    pub fn read(path: &Path, mut tokenizer: Tokenizer, model_id: &str) -> Option<Self> {
        let bytes = std::fs::read(path).ok()?;
        let mut at = 0usize;
        let mut take = |n: usize| -> Option<&[u8]> {
            let s = bytes.get(at..at + n)?;
            at += n;
            Some(s)
        };
        if take(8)? != MAGIC {
            return None;
        }
        let u32_at = |s: &[u8]| u32::from_le_bytes([s[0], s[1], s[2], s[3]]) as usize;
        let id_len = u32_at(take(4)?);
        let id = String::from_utf8(take(id_len)?.to_vec()).ok()?;
        if id != format!("{model_id}{SUFFIX}") {
            return None;
        }
        let vocab = u32_at(take(4)?);
        let dimensions = u32_at(take(4)?);
        let skipped: Vec<bool> = take(vocab)?.iter().map(|b| *b != 0).collect();
        let table: Vec<f32> = take(vocab * dimensions * 4)?
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        if take(1).is_some() || dimensions == 0 {
            return None;
        }
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(tokenizers::TruncationParams {
                max_length: MAX_TOKENS,
                ..Default::default()
            }))
            .ok()?;
        Some(Self {
            tokenizer,
            table,
            dimensions,
            skipped,
            id,
            languages: None,
        })
    }
}

/// The model id of the distilled table at `path` (what its vectors are stored under), read from
/// its head alone; `None` when there is no such table.
pub fn distilled_id(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut file = std::fs::File::open(path).ok()?;
    let mut head = [0u8; 12];
    file.read_exact(&mut head).ok()?;
    if &head[..8] != MAGIC {
        return None;
    }
    let len = u32::from_le_bytes([head[8], head[9], head[10], head[11]]) as usize;
    let mut id = vec![0u8; len.min(4096)];
    file.read_exact(&mut id).ok()?;
    String::from_utf8(id).ok()
}

/// [`Embedder::unrelated_below`] for the distilled vectors, whose similarities run higher than
/// the model's: chosen on the SQLite manual between the nearest passage to 27 questions it
/// answers (0.60 at least) and to 20 it has nothing on (0.39 at most); held out, on Python's and
/// PostgreSQL's manuals, it keeps all 16 answered questions (0.55 at least) and drops all 40
/// others (0.46 at most). BENCHMARKS.md, "A library that has nothing on the question".
pub const DISTILLED_UNRELATED_BELOW: f32 = 0.5;

impl Embedder for DistilledEmbedder {
    fn model_id(&self) -> &str {
        &self.id
    }

    fn unrelated_below(&self) -> f32 {
        DISTILLED_UNRELATED_BELOW
    }

    fn languages(&self) -> Option<&[String]> {
        self.languages.as_deref()
    }

    fn dimensions(&self) -> usize {
        self.dimensions
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        texts
            .iter()
            .map(|text| {
                let encoding = self.tokenizer.encode(*text, false).map_err(compute)?;
                let ids: Vec<usize> = encoding
                    .get_ids()
                    .iter()
                    .map(|&id| id as usize)
                    .filter(|&id| id < self.skipped.len())
                    .collect();
                let sum = |ids: &mut dyn Iterator<Item = usize>| {
                    let mut v = vec![0.0f32; self.dimensions];
                    for id in ids {
                        let row = &self.table[id * self.dimensions..(id + 1) * self.dimensions];
                        v.iter_mut().zip(row).for_each(|(a, b)| *a += b);
                    }
                    v
                };
                let mut v = sum(&mut ids.iter().copied().filter(|&id| !self.skipped[id]));
                // A text of nothing but unknown pieces, or of nothing: what its pieces are, or
                // the first token's vector — a unit vector all such texts share.
                if v.iter().all(|x| *x == 0.0) {
                    v = sum(&mut ids.iter().copied());
                }
                if v.iter().all(|x| *x == 0.0) {
                    v = sum(&mut std::iter::once(0));
                }
                normalize(&mut v);
                Ok(v)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A three-word tokenizer (and a marker), whole words only.
    fn tokenizer() -> Tokenizer {
        let vocab = [("[CLS]", 0), ("journal", 1), ("crash", 2), ("tulip", 3)]
            .into_iter()
            .map(|(w, i)| (w.to_string(), i))
            .collect();
        let model = tokenizers::models::wordlevel::WordLevel::builder()
            .vocab(vocab)
            .unk_token("[CLS]".into())
            .build()
            .unwrap();
        let mut t = Tokenizer::new(model);
        t.with_pre_tokenizer(Some(tokenizers::pre_tokenizers::whitespace::Whitespace {}));
        t.add_special_tokens(&[tokenizers::AddedToken::from("[CLS]", true)]);
        t
    }

    fn rows() -> Vec<Vec<f32>> {
        vec![
            vec![1.0, 0.0, 0.0],
            vec![0.0, 1.0, 0.0],
            vec![0.0, 0.8, 0.6],
            vec![0.0, 0.0, 1.0],
        ]
    }

    #[test]
    fn common_words_and_punctuation_weigh_little_and_a_han_character_as_a_word() {
        let words = [
            "[CLS]",
            "[unused0]",
            ".",
            "a",
            "の",
            "the",
            "of",
            "##s",
            "journal",
        ];
        let mut vocab: Vec<(String, u32)> = words
            .iter()
            .enumerate()
            .map(|(i, w)| (w.to_string(), i as u32))
            .collect();
        // A vocabulary of 20,000: "journal" far down it.
        vocab.extend((words.len()..20_000).map(|i| (format!("w{i}"), i as u32)));
        let last = vocab.len() as u32 - 1;
        vocab[8].1 = last;
        vocab[last as usize].1 = 8;
        let model = tokenizers::models::wordlevel::WordLevel::builder()
            .vocab(vocab.into_iter().collect())
            .unk_token("[CLS]".into())
            .build()
            .unwrap();
        let w = rarity_weights(&Tokenizer::new(model), 20_000);
        let (period, a, no, the, of, s, journal) =
            (w[2], w[3], w[4], w[5], w[6], w[7], w[last as usize]);
        assert!(
            the < 0.01 && of < 0.01 && period < 0.01 && a < 0.01,
            "{w:?}"
        );
        assert!(s > the && journal > 0.8 && no == 1.0);
    }

    #[test]
    fn a_text_is_its_words_and_a_table_is_read_back_whole_or_not_at_all() {
        let made = DistilledEmbedder::new(tokenizer(), rows(), "m").unwrap();
        // Words it does not know, and no words, are still unit vectors (the conformance suite
        // runs on the real model's distillation: this vocabulary is too small for it).
        for v in made.embed(&["The cat sat.", ""]).unwrap() {
            assert!((crate::similarity(&v, &v) - 1.0).abs() < 1e-5);
        }
        let v = made.embed(&["journal crash", "crash", "tulip"]).unwrap();
        assert!(crate::similarity(&v[0], &v[1]) > crate::similarity(&v[0], &v[2]));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.distilled");
        made.write(&path).unwrap();
        let kept = DistilledEmbedder::read(&path, tokenizer(), "m").unwrap();
        assert_eq!(kept.embed(&["journal crash"]).unwrap()[0], v[0]);
        // Another model's table, or one cut short, is not read.
        assert!(DistilledEmbedder::read(&path, tokenizer(), "other").is_none());
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
        assert!(DistilledEmbedder::read(&path, tokenizer(), "m").is_none());
        std::fs::write(&path, MAGIC).unwrap();
        assert!(DistilledEmbedder::read(&path, tokenizer(), "m").is_none());
    }
}
