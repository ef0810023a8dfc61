//! What every [`Embedder`] must do, as one check that tests run against each implementation
//! (`check` panics with the broken rule, like an assertion).

use crate::{similarity, Embedder};

/// Asserts the [`Embedder`] contract on `embedder`: one vector per text, all of
/// [`Embedder::dimensions`] entries and unit length, the same vector for the same text whatever
/// the batch holds (padding must not leak into it), no failure on empty, very long or non-Latin
/// text, and a near-duplicate closer than an unrelated sentence.
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
