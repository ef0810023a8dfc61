//! Both indexes held to the one suite, and what only the file-backed one promises: saved and
//! loaded it finds what it found, and a file it cannot trust is refused, never half-read.

use research_nearest::conformance::{self, unit_vectors};
use research_nearest::{Approximate, Exact, Nearest};

#[test]
fn the_scan_passes_the_suite() {
    conformance::run(&|d| Box::new(Exact::new(d)));
}

#[test]
fn the_approximate_index_passes_the_suite() {
    conformance::run(&|d| Box::new(Approximate::new(d).expect("an index")));
}

fn filled(count: usize) -> (Approximate, Vec<(i64, Vec<f32>)>) {
    let index = Approximate::new(48).expect("an index");
    let vectors: Vec<(i64, Vec<f32>)> = unit_vectors(count, 48, 11)
        .into_iter()
        .enumerate()
        .map(|(i, v)| (i as i64 * 3 + 1, v))
        .collect();
    index.add(&vectors).expect("add");
    (index, vectors)
}

#[test]
fn a_saved_index_is_loaded_with_its_members_and_finds_the_same() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("vectors").join("model.usearch");
    let (index, vectors) = filled(500);
    index.remove(&[4, 7]).expect("remove");
    index.save(&path).expect("save");
    let names: Vec<String> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    assert!(
        names.iter().all(|n| !n.ends_with(".tmp")),
        "nothing half-written is left: {names:?}"
    );
    let loaded = Approximate::load(&path, 48).expect("loaded");
    assert_eq!(loaded.ids(), index.ids());
    for (_, v) in vectors.iter().step_by(25) {
        assert_eq!(
            loaded.nearest(v, 10).unwrap(),
            index.nearest(v, 10).unwrap()
        );
    }
    // It goes on growing after a load.
    let more: Vec<(i64, Vec<f32>)> = unit_vectors(600, 48, 12)
        .into_iter()
        .enumerate()
        .map(|(i, v)| (100_000 + i as i64, v))
        .collect();
    loaded.add(&more).expect("add after load");
    assert_eq!(loaded.len(), 498 + 600);
    assert_eq!(loaded.nearest(&more[599].1, 1).unwrap()[0].id, 100_599);
}

#[test]
fn a_file_that_cannot_be_trusted_is_refused() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("model.usearch");
    assert!(Approximate::load(&path, 48).is_none(), "no file");
    let (index, _) = filled(300);
    index.save(&path).expect("save");
    assert!(Approximate::load(&path, 48).is_some());
    assert!(
        Approximate::load(&path, 64).is_none(),
        "made for other vectors"
    );
    // The graph cut short (a disk that filled, a copy stopped).
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    assert!(Approximate::load(&path, 48).is_none(), "graph cut short");
    std::fs::write(&path, &bytes).unwrap();
    // The members cut short.
    let mut ids_path = path.as_os_str().to_owned();
    ids_path.push(".ids");
    let ids = std::fs::read(&ids_path).unwrap();
    std::fs::write(&ids_path, &ids[..ids.len() - 5]).unwrap();
    assert!(Approximate::load(&path, 48).is_none(), "members cut short");
    // Members of another graph (saved later, with more vectors).
    std::fs::write(&ids_path, &ids).unwrap();
    assert!(Approximate::load(&path, 48).is_some());
    let (bigger, _) = filled(400);
    let other = dir.path().join("other.usearch");
    bigger.save(&other).unwrap();
    let mut other_ids = other.as_os_str().to_owned();
    other_ids.push(".ids");
    std::fs::copy(&other_ids, &ids_path).unwrap();
    assert!(
        Approximate::load(&path, 48).is_none(),
        "another graph's members"
    );
    // Members of a graph of the same size holding other ids (saved by another process).
    let same_size = Approximate::new(48).expect("an index");
    same_size
        .add(
            &unit_vectors(300, 48, 13)
                .into_iter()
                .enumerate()
                .map(|(i, v)| (i as i64 * 3 + 2, v))
                .collect::<Vec<_>>(),
        )
        .unwrap();
    let twin = dir.path().join("twin.usearch");
    same_size.save(&twin).unwrap();
    std::fs::copy(&twin, &path).unwrap();
    assert!(
        Approximate::load(&path, 48).is_none(),
        "a graph of the same size with other ids"
    );
    std::fs::write(&path, b"not an index at all").unwrap();
    assert!(Approximate::load(&path, 48).is_none(), "garbage");
}
