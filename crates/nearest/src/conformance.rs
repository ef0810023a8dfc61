//! The suite every [`Nearest`] passes, so a library finds the same passages whichever index
//! holds its vectors. Run it with a maker of empty indexes of a given length:
//! `research_nearest::conformance::run(&|d| Box::new(Exact::new(d)))`.

use crate::{Nearest, NearestError, CANDIDATES};

/// Makes an empty index of vectors of the given length.
pub type Maker<'a> = &'a dyn Fn(usize) -> Box<dyn Nearest>;

const DIMENSIONS: usize = 32;

/// Runs every check, panicking at the first that fails.
pub fn run(make: Maker<'_>) {
    an_empty_index_finds_nothing(make);
    the_nearest_are_found_best_first(make);
    a_vector_added_again_replaces_the_first(make);
    removed_vectors_are_never_found(make);
    vectors_of_another_length_are_refused(make);
    many_vectors_are_found_as_a_scan_finds_them(make);
    sentence_vectors_are_ranked_as_a_scan_ranks_them(make);
    many_searches_at_once_find_what_one_finds(make);
}

/// Thirty-two searches at once (a run's parallel searches, several runs) each find what the
/// same search finds alone.
pub fn many_searches_at_once_find_what_one_finds(make: Maker<'_>) {
    let index: std::sync::Arc<dyn Nearest> = make(DIMENSIONS).into();
    index
        .add(&numbered(topical_vectors(600, 12, DIMENSIONS, 9), 1))
        .expect("add");
    let questions = topical_vectors(32, 12, DIMENSIONS, 10);
    let alone: Vec<_> = questions
        .iter()
        .map(|q| index.nearest(q, 10).expect("search"))
        .collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = questions
            .iter()
            .map(|q| {
                let index = index.clone();
                s.spawn(move || {
                    (0..20)
                        .map(|_| index.nearest(q, 10).expect("a search at once"))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for (handle, alone) in handles.into_iter().zip(&alone) {
            for found in handle.join().expect("a search thread") {
                assert_eq!(&found, alone);
            }
        }
    });
}

/// Deterministic unit vectors (no random source: the suite is the same on every run).
pub fn unit_vectors(count: usize, dimensions: usize, seed: u64) -> Vec<Vec<f32>> {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) as f32 / (1u64 << 31) as f32) - 0.5
    };
    (0..count)
        .map(|_| {
            let mut v: Vec<f32> = (0..dimensions).map(|_| next()).collect();
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            v.iter_mut().for_each(|x| *x /= norm);
            v
        })
        .collect()
}

fn scan(vectors: &[(i64, Vec<f32>)], query: &[f32], depth: usize) -> Vec<i64> {
    let mut scored: Vec<(f32, i64)> = vectors
        .iter()
        .map(|(id, v)| (v.iter().zip(query).map(|(a, b)| a * b).sum(), *id))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().take(depth).map(|(_, id)| id).collect()
}

fn numbered(vectors: Vec<Vec<f32>>, first: i64) -> Vec<(i64, Vec<f32>)> {
    vectors
        .into_iter()
        .enumerate()
        .map(|(i, v)| (first + i as i64, v))
        .collect()
}

/// Nothing held: nothing found, no ids.
pub fn an_empty_index_finds_nothing(make: Maker<'_>) {
    let index = make(DIMENSIONS);
    let query = &unit_vectors(1, DIMENSIONS, 1)[0];
    assert!(index.nearest(query, 10).expect("search").is_empty());
    assert_eq!(index.len(), 0);
    assert!(index.is_empty());
    assert!(index.ids().is_empty());
    assert_eq!(index.dimensions(), DIMENSIONS);
}

/// A vector held is its own nearest, similarity about 1; the rest follow best first; ids are
/// listed ascending.
pub fn the_nearest_are_found_best_first(make: Maker<'_>) {
    let index = make(DIMENSIONS);
    let vectors = numbered(unit_vectors(50, DIMENSIONS, 2), 100);
    index.add(&vectors).expect("add");
    assert_eq!(index.len(), 50);
    assert_eq!(index.ids(), (100..150).collect::<Vec<i64>>());
    for (id, v) in vectors.iter().step_by(7) {
        let found = index.nearest(v, 5).expect("search");
        assert_eq!(found.len(), 5, "five asked for, five found");
        assert_eq!(found[0].id, *id, "a held vector is its own nearest");
        assert!(
            (found[0].similarity - 1.0).abs() < 0.02,
            "its similarity is about 1: {}",
            found[0].similarity
        );
        assert!(
            found.windows(2).all(|w| w[0].similarity >= w[1].similarity),
            "best first: {found:?}"
        );
    }
    assert!(index.nearest(&vectors[0].1, 0).expect("search").is_empty());
}

/// One id, one vector: the last added is the one found, and the count does not grow.
pub fn a_vector_added_again_replaces_the_first(make: Maker<'_>) {
    let index = make(DIMENSIONS);
    let vectors = numbered(unit_vectors(20, DIMENSIONS, 3), 1);
    index.add(&vectors).expect("add");
    let fresh = unit_vectors(1, DIMENSIONS, 99).remove(0);
    index.add(&[(5, fresh.clone())]).expect("add again");
    assert_eq!(index.len(), 20);
    let found = index.nearest(&fresh, 1).expect("search");
    assert_eq!(found[0].id, 5);
    assert!((found[0].similarity - 1.0).abs() < 0.02);
    let old = index.nearest(&vectors[4].1, 1).expect("search");
    assert!(
        old[0].id != 5 || old[0].similarity < 0.98,
        "the first vector of id 5 is gone: {old:?}"
    );
    // Two vectors for one id in one batch: the last one counts.
    let (a, b) = (
        unit_vectors(1, DIMENSIONS, 7).remove(0),
        unit_vectors(1, DIMENSIONS, 8).remove(0),
    );
    index.add(&[(500, a), (500, b.clone())]).expect("add twice");
    assert_eq!(index.len(), 21);
    assert_eq!(index.nearest(&b, 1).expect("search")[0].id, 500);
}

/// Removed ids are never found again, unknown ids are ignored, and an id removed may come back.
pub fn removed_vectors_are_never_found(make: Maker<'_>) {
    let index = make(DIMENSIONS);
    let vectors = numbered(unit_vectors(40, DIMENSIONS, 4), 1);
    index.add(&vectors).expect("add");
    let gone: Vec<i64> = (1..=40).filter(|i| i % 3 == 0).collect();
    index.remove(&gone).expect("remove");
    index
        .remove(&[1000, 2000])
        .expect("unknown ids are ignored");
    assert_eq!(index.len(), 40 - gone.len());
    assert!(index.ids().iter().all(|id| !gone.contains(id)));
    for (_, v) in &vectors {
        let found = index.nearest(v, 40).expect("search");
        assert!(
            found.iter().all(|n| !gone.contains(&n.id)),
            "a removed id was found: {found:?}"
        );
    }
    index.add(&[vectors[2].clone()]).expect("back");
    assert_eq!(index.nearest(&vectors[2].1, 1).expect("search")[0].id, 3);
    index.remove(&index.ids()).expect("remove all");
    assert!(index.is_empty());
    assert!(index.nearest(&vectors[0].1, 5).expect("search").is_empty());
}

/// A vector or a question of another length is an error, and nothing is added.
pub fn vectors_of_another_length_are_refused(make: Maker<'_>) {
    let index = make(DIMENSIONS);
    let short = vec![1.0_f32; DIMENSIONS - 1];
    let good = unit_vectors(1, DIMENSIONS, 5).remove(0);
    let refused = index.add(&[(1, good), (2, short.clone())]);
    assert!(matches!(refused, Err(NearestError::Dimensions { .. })));
    assert_eq!(index.len(), 0, "nothing of a refused batch is added");
    assert!(matches!(
        index.nearest(&short, 3),
        Err(NearestError::Dimensions { .. })
    ));
}

/// Vectors around `topics` centres, as a library's passages gather around what they are about
/// (uniformly scattered vectors have no nearest worth the name: every one is about as far).
pub fn topical_vectors(count: usize, topics: usize, dimensions: usize, seed: u64) -> Vec<Vec<f32>> {
    let centres = unit_vectors(topics, dimensions, seed);
    let noise = unit_vectors(count, dimensions, seed + 1);
    noise
        .into_iter()
        .enumerate()
        .map(|(i, n)| {
            let mut v: Vec<f32> = centres[i % topics]
                .iter()
                .zip(&n)
                .map(|(c, n)| c + 0.6 * n)
                .collect();
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            v.iter_mut().for_each(|x| *x /= norm);
            v
        })
        .collect()
}

/// Two thousand vectors of 64 dimensions on forty topics, added in batches: the ten a scan
/// finds nearest are among the thirty the index finds (at least 95 in 100 over fifty
/// questions), so a caller that asks for [`CANDIDATES`] times what it keeps and re-scores them
/// with the stored vectors ranks as a scan does.
pub fn many_vectors_are_found_as_a_scan_finds_them(make: Maker<'_>) {
    let dimensions = 64;
    let index = make(dimensions);
    let vectors = numbered(topical_vectors(2000, 40, dimensions, 6), 10_000);
    for batch in vectors.chunks(300) {
        index.add(batch).expect("add");
    }
    assert_eq!(index.len(), 2000);
    // Questions on the library's topics, in other words than any passage.
    let questions: Vec<Vec<f32>> = topical_vectors(2050, 40, dimensions, 6).split_off(2000);
    let recall = recall_at_10(index.as_ref(), &vectors, &questions, 10 * CANDIDATES);
    assert!(recall >= 0.95, "recall@10 {recall:.3}");
}

/// The share of the ten a scan finds nearest each of `questions` that are among the `asked`
/// the index finds.
fn recall_at_10(
    index: &dyn Nearest,
    vectors: &[(i64, Vec<f32>)],
    questions: &[Vec<f32>],
    asked: usize,
) -> f64 {
    let mut kept = 0;
    for q in questions {
        let found = index.nearest(q, asked).expect("search");
        kept += scan(vectors, q, 10)
            .iter()
            .filter(|id| found.iter().any(|n| n.id == **id))
            .count();
    }
    kept as f64 / (questions.len() * 10) as f64
}

/// Three thousand vectors as wide as the sentence model's (384), near forty topics: the ten
/// nearest the index finds, asked for ten, are the ten a scan finds (at least 95 in 100 over
/// fifty questions). A unit vector that wide has components of a few hundredths; an index that
/// stores them in fewer bits must keep those differences (usearch's own 8-bit cast kept 87 in
/// 100 here).
pub fn sentence_vectors_are_ranked_as_a_scan_ranks_them(make: Maker<'_>) {
    let dimensions = 384;
    let index = make(dimensions);
    let all = topical_vectors(3050, 40, dimensions, 21);
    let (passages, questions) = all.split_at(3000);
    let vectors = numbered(passages.to_vec(), 1);
    for batch in vectors.chunks(500) {
        index.add(batch).expect("add");
    }
    let recall = recall_at_10(index.as_ref(), &vectors, questions, 10);
    assert!(recall >= 0.95, "recall@10 {recall:.3}");
}
