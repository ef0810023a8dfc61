//! What every [`Entailment`] must do, as one check that tests run against each implementation
//! (`check` panics with the broken rule, like an assertion).

use crate::Entailment;

/// Asserts the [`Entailment`] contract on `reader`: one probability per pair, each finite and
/// from 0 to 1, the same for a pair whatever the batch holds (padding must not leak into it), no
/// failure on an empty batch, a premise far longer than the model reads, or non-Latin text; and
/// a premise that states the hypothesis ranks above one that denies it. (Not that an unrelated
/// premise ranks low: the reader the project installs reads a denial, not whether a passage is
/// on the sentence at all — the checker's words and sentence model read that.)
pub fn check(reader: &dyn Entailment) {
    let id = reader.model_id().to_string();
    assert!(!id.is_empty(), "a reader names its model");
    assert!(
        reader.entailment(&[]).expect("an empty batch").is_empty(),
        "{id}: no pairs, no probabilities"
    );

    let long = "Write-ahead logging keeps the database consistent after a crash. ".repeat(400);
    let states = "WAL works best with smaller transactions. For transactions larger than about \
        100 megabytes, traditional rollback journal modes will likely be faster.";
    let hypothesis = "For transactions over about 100 megabytes, rollback journal modes are \
        likely to be faster than WAL.";
    let pairs = [
        (states, hypothesis),
        (
            "WAL works best with smaller transactions. For transactions larger than about 100 \
             megabytes, traditional rollback journal modes will not be faster than WAL.",
            hypothesis,
        ),
        (
            "The Eiffel Tower is 330 metres tall and received 5,889,000 visitors in 2015.",
            hypothesis,
        ),
        (
            long.as_str(),
            "The database stays consistent after a crash.",
        ),
        (
            "量子コンピュータは重ね合わせを利用して計算します。",
            "量子コンピュータは重ね合わせを使う。",
        ),
        (states, hypothesis),
    ];
    let p = reader
        .entailment(&pairs)
        .expect("a batch of ordinary pairs");
    assert_eq!(p.len(), pairs.len(), "{id}: one probability per pair");
    for (pair, x) in pairs.iter().zip(&p) {
        let head: String = pair.1.chars().take(30).collect();
        assert!(
            x.is_finite() && (0.0..=1.0).contains(x),
            "{id}: a probability for {head:?}, got {x}"
        );
    }
    assert!(
        (p[0] - p[5]).abs() < 1e-4,
        "{id}: the same pair twice in a batch, {} and {}",
        p[0],
        p[5]
    );
    let alone = reader.entailment(&[pairs[0]]).expect("one pair");
    assert!(
        (alone[0] - p[0]).abs() < 1e-4,
        "{id}: the same pair alone and in a batch, {} and {}",
        alone[0],
        p[0]
    );
    assert!(
        p[0] > p[1],
        "{id}: a premise that states it ({}) above one that denies it ({})",
        p[0],
        p[1]
    );
}
