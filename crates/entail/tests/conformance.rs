//! The [`Entailment`] contract, run against every reader: the word reader always, the ONNX
//! cross-encoder where `scripts/fetch-entailment.sh` installed it (the test suite's script does,
//! and names it in `RESEARCH_STUDIO_ENTAILMENT`: then its absence is a failure, not a skip).

use research_entail::{conformance, locate_model, OnnxEntailment, WordEntailment};

#[test]
fn the_word_reader_keeps_the_contract() {
    conformance::check(&WordEntailment);
}

#[test]
fn the_onnx_cross_encoder_keeps_the_contract() {
    let Some(dir) = locate_model() else {
        assert!(
            std::env::var_os(research_entail::MODEL_ENV).is_none(),
            "{} names a folder with no entailment model in it",
            research_entail::MODEL_ENV
        );
        eprintln!("skipped: no entailment model (scripts/fetch-entailment.sh)");
        return;
    };
    let reader = OnnxEntailment::load(&dir).expect("the installed model loads");
    conformance::check(&reader);
}

#[test]
fn a_folder_without_a_card_or_with_a_wrong_one_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let e = OnnxEntailment::load(dir.path()).unwrap_err().to_string();
    assert!(e.contains("entailment.json"), "{e}");
    std::fs::write(dir.path().join("entailment.json"), "{\"model_id\": 3}").unwrap();
    let e = OnnxEntailment::load(dir.path()).unwrap_err().to_string();
    assert!(e.contains("not valid"), "{e}");
}
