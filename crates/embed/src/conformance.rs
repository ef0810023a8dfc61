//! What every [`Embedder`] must do, as one check that tests run against each implementation
//! (`check` panics with the broken rule, like an assertion).

use crate::{similarity, Embedder, TokenEmbedder};

/// Asserts the [`Embedder`] contract on `embedder`: one vector per text, all of
/// [`Embedder::dimensions`] entries and unit length, the same vector for the same text whatever
/// the batch holds (padding must not leak into it), no failure on empty, very long or non-Latin
/// text, a near-duplicate closer than an unrelated sentence, and a floor for unrelated
/// questions ([`Embedder::unrelated_below`]) that a near-duplicate clears.
pub fn check(embedder: &dyn Embedder) {
    let id = embedder.model_id().to_string();
    assert!(!id.is_empty(), "an embedder names its model");
    assert!(embedder.dimensions() > 0, "{id}: vectors have entries");
    assert!(
        embedder.embed(&[]).expect("an empty batch").is_empty(),
        "{id}: no texts, no vectors"
    );

    let long = "Write-ahead logging keeps the database consistent after a crash. ".repeat(300);
    let texts = [
        "The cat sat on the mat.",
        "The cat sat on the mat!",
        "Quarterly revenue rose by four percent.",
        long.as_str(),
        "量子コンピュータは重ね合わせを利用して計算します。",
        "The cat sat on the mat.",
    ];
    let vectors = embedder.embed(&texts).expect("a batch of ordinary texts");
    assert_eq!(vectors.len(), texts.len(), "{id}: one vector per text");
    for (text, v) in texts.iter().zip(&vectors) {
        let head: String = text.chars().take(30).collect();
        assert_eq!(v.len(), embedder.dimensions(), "{id}: length for {head:?}");
        assert!(v.iter().all(|x| x.is_finite()), "{id}: finite for {head:?}");
        let norm = similarity(v, v).sqrt();
        assert!(
            (norm - 1.0).abs() < 1e-3,
            "{id}: unit length for {head:?}, got {norm}"
        );
    }
    assert!(
        similarity(&vectors[0], &vectors[5]) > 0.9999,
        "{id}: the same text twice in a batch gives the same vector"
    );
    assert!(
        similarity(&vectors[0], &vectors[1]) > similarity(&vectors[0], &vectors[2]),
        "{id}: a near-duplicate is closer than an unrelated sentence"
    );
    // The floor under which a library has nothing on a question is a similarity, and a passage
    // that says the question's own words again is never under it.
    let floor = embedder.unrelated_below();
    assert!(
        (0.0..1.0).contains(&floor),
        "{id}: the unrelated floor is a similarity under 1, got {floor}"
    );
    assert!(
        similarity(&vectors[0], &vectors[1]) >= floor,
        "{id}: a near-duplicate clears the unrelated floor {floor}"
    );

    // Alone, and beside a much longer text that pads it, a text has the same vector.
    let alone = embedder.embed(&[texts[2]]).expect("one text");
    assert!(
        similarity(&alone[0], &vectors[2]) > 0.9999,
        "{id}: a text's vector does not depend on the rest of its batch"
    );
    let again = embedder.embed(&[texts[2]]).expect("one text again");
    assert!(
        similarity(&alone[0], &again[0]) > 0.99999,
        "{id}: the same text gives the same vector on every call"
    );
}

/// Asserts the [`TokenEmbedder`] contract on `embedder` besides [`check`]'s: one encoding per
/// text whose sentence vector is [`Embedder::embed`]'s, unit-length token vectors, none for a
/// text of punctuation alone, the same tokens whatever the batch holds, and a word closer to
/// itself in another sentence than to an unrelated word.
pub fn check_tokens(embedder: &dyn TokenEmbedder) {
    check(embedder);
    let id = embedder.model_id().to_string();
    assert!(
        embedder
            .embed_tokens(&[])
            .expect("an empty batch")
            .is_empty(),
        "{id}: no texts, no encodings"
    );
    let texts = [
        "The cat sat on the mat.",
        "Quarterly revenue rose by four percent.",
        "... !!",
        "A cat slept.",
    ];
    let encoded = embedder
        .embed_tokens(&texts)
        .expect("a batch of ordinary texts");
    assert_eq!(encoded.len(), texts.len(), "{id}: one encoding per text");
    let sentences = embedder.embed(&texts).expect("the same texts");
    for ((text, e), s) in texts.iter().zip(&encoded).zip(&sentences) {
        let apart = e
            .sentence
            .iter()
            .zip(s)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(
            e.sentence.len() == s.len() && apart < 1e-4,
            "{id}: the sentence vector of {text:?} is embed()'s"
        );
        assert_eq!(
            e.pieces.len(),
            e.tokens.len(),
            "{id}: a piece per token in {text:?}"
        );
        for t in &e.tokens {
            assert_eq!(
                t.len(),
                embedder.dimensions(),
                "{id}: token length in {text:?}"
            );
            let norm = similarity(t, t).sqrt();
            assert!((norm - 1.0).abs() < 1e-3, "{id}: unit token in {text:?}");
        }
    }
    assert!(!encoded[0].tokens.is_empty(), "{id}: words have tokens");
    assert!(
        encoded[2].tokens.is_empty(),
        "{id}: punctuation alone has no tokens"
    );
    let alone = embedder.embed_tokens(&[texts[3]]).expect("one text");
    assert_eq!(
        alone[0].tokens.len(),
        encoded[3].tokens.len(),
        "{id}: batch-independent tokens"
    );
    for (a, b) in alone[0].tokens.iter().zip(&encoded[3].tokens) {
        assert!(
            similarity(a, b) > 0.999,
            "{id}: a token's vector does not depend on its batch"
        );
    }
    // "cat" is the second word of the first text and of the last.
    let best =
        |v: &[f32], of: &[Vec<f32>]| of.iter().map(|t| similarity(v, t)).fold(f32::MIN, f32::max);
    let cat = &encoded[0].tokens[1];
    assert!(
        best(cat, &encoded[3].tokens) > best(cat, &encoded[1].tokens),
        "{id}: a word is closer to itself elsewhere than to unrelated words"
    );
}
