//! Every embedder passes the same conformance check; the real model's test says why it skipped
//! when its files are absent (`bash scripts/fetch-embedder.sh` installs them).

use research_embed::{conformance, similarity, Embedder, TrigramEmbedder};

#[test]
fn the_test_embedder_conforms() {
    conformance::check_tokens(&TrigramEmbedder::default());
    conformance::check_tokens(&TrigramEmbedder::new(7));
}

#[test]
fn the_test_embedder_is_deterministic_and_close_for_shared_letters() {
    let e = TrigramEmbedder::default();
    let v = e.embed(&["indexing", "indexes", "volcano"]).unwrap();
    assert!(similarity(&v[0], &v[1]) > similarity(&v[0], &v[2]) + 0.2);
    // Stable across processes: the hash is not seeded.
    assert_eq!(e.embed(&["indexing"]).unwrap()[0], v[0]);
}

#[cfg(feature = "bert")]
fn real_model() -> Option<research_embed::BertEmbedder> {
    let Some(dir) = research_embed::locate_model() else {
        eprintln!(
            "SKIPPED: no embedding model (run `bash scripts/fetch-embedder.sh`, or set {})",
            research_embed::MODEL_ENV
        );
        return None;
    };
    Some(research_embed::BertEmbedder::load(&dir).expect("the installed model loads"))
}

#[cfg(feature = "bert")]
#[test]
fn the_real_model_conforms_and_knows_paraphrases() {
    let Some(model) = real_model() else { return };
    conformance::check_tokens(&model);
    assert_eq!(model.dimensions(), 384);
    // Meaning, not words: the paraphrase shares no content word with the question.
    let v = model
        .embed(&[
            "How does the database survive a power failure during a commit?",
            "After an outage, the journal lets SQLite roll back a half-finished transaction.",
            "The gardener planted tulips along the fence in spring.",
        ])
        .unwrap();
    let on = similarity(&v[0], &v[1]);
    let off = similarity(&v[0], &v[2]);
    assert!(on > off + 0.2, "paraphrase {on} vs unrelated {off}");
}

#[cfg(feature = "bert")]
#[test]
fn a_folder_without_the_model_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let err = research_embed::BertEmbedder::load(dir.path()).unwrap_err();
    assert!(err.to_string().contains("config.json"), "{err}");
    std::fs::write(dir.path().join("config.json"), r#"{"model_type": "gpt2"}"#).unwrap();
    let err = research_embed::BertEmbedder::load(dir.path()).unwrap_err();
    assert!(err.to_string().contains("config.json"), "{err}");
}

/// sentence-transformers' documentation gives these three sentences' similarities under
/// all-MiniLM-L6-v2 (its quickstart): matching them to three decimals checks the whole path —
/// tokenizer, encoder, padding mask, mean pooling, normalisation — against the reference.
#[cfg(feature = "bert")]
#[test]
fn the_real_model_matches_the_published_similarities() {
    let Some(model) = real_model() else { return };
    let v = model
        .embed(&[
            "The weather is lovely today.",
            "It's so sunny outside!",
            "He drove to the stadium.",
        ])
        .unwrap();
    let published = [((0, 1), 0.6660), ((0, 2), 0.1046), ((1, 2), 0.1411)];
    for ((a, b), expected) in published {
        let got = similarity(&v[a], &v[b]);
        assert!(
            (got - expected).abs() < 1e-3,
            "similarity of {a} and {b}: {got:.4}, published {expected:.4}"
        );
    }
}

/// The model distilled to a vector per token conforms as the model does, keeps the model's
/// sense of which texts are near, and is read back from its table as it was made.
#[cfg(feature = "bert")]
#[test]
fn the_distilled_model_conforms_and_is_kept() {
    let Some(model) = real_model() else { return };
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("model.distilled");
    let made = model.distilled(&table).unwrap();
    conformance::check(&made);
    assert_eq!(made.dimensions(), model.dimensions());
    assert_ne!(
        made.model_id(),
        model.model_id(),
        "its vectors are never mixed with the model's"
    );
    let texts = [
        "How does the database recover after a crash during a write?",
        "The rollback journal lets the database undo a half-written transaction after a crash.",
        "The gardener planted tulips along the fence in spring.",
    ];
    let v = made.embed(&texts).unwrap();
    assert!(similarity(&v[0], &v[1]) > similarity(&v[0], &v[2]) + 0.1);
    // Kept: read back, the same vectors, without distilling again.
    assert!(table.is_file());
    let t = std::time::Instant::now();
    let kept = model.distilled(&table).unwrap();
    assert_eq!(kept.embed(&texts).unwrap(), v);
    assert!(
        t.elapsed() < std::time::Duration::from_secs(30),
        "read, not made again"
    );
}
