//! The checks of the library by meaning: what is embedded and when, another model or a broken
//! one, stopped passes, the approximate index kept in step and saved, and what another process
//! indexed.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use research_embed::{Embedder, TrigramEmbedder};

use super::{corpus, library, six_notes, write, Broken, Counting, Database};
use crate::{LibraryIndex, Ranking};

/// Only new and changed passages are embedded; a deleted passage takes its vector with it.
pub fn only_new_and_changed_passages_are_embedded(db: &dyn Database) {
    let docs = corpus();
    let embedder = Arc::new(Counting::default());
    let lib = library(db).with_embedder(embedder.clone());
    lib.add(docs.path(), &|_| {}).unwrap();
    assert_eq!(embedder.texts.load(Ordering::SeqCst), 3);

    // Nothing changed: nothing embedded.
    lib.reindex(&|_| {}).unwrap();
    assert_eq!(embedder.texts.load(Ordering::SeqCst), 3);
    assert_eq!(lib.embed_pending().unwrap(), 0);

    // One file changed, one added, one removed: two passages embedded, the removed one's
    // vector gone with it.
    std::thread::sleep(std::time::Duration::from_millis(20));
    write(
        docs.path(),
        "bees.md",
        "# Bees\n\nHoney bees waggle to point at flowers.",
    );
    write(docs.path(), "wasps.md", "# Wasps\n\nWasps hunt insects.");
    std::fs::remove_file(docs.path().join("ants.md")).unwrap();
    let report = lib.reindex(&|_| {}).unwrap();
    assert_eq!((report.indexed, report.removed), (2, 1), "{report:?}");
    assert_eq!(embedder.texts.load(Ordering::SeqCst), 5);
    assert_eq!(lib.embedded_share().unwrap(), (3, 3));
    assert_eq!(lib.vectors_stored().unwrap(), 3);
    // The search sees the new vectors, not the ones it had read before.
    let hits = lib.search("waggles", 5).unwrap();
    assert!(hits[0].url.ends_with("bees.md"), "{hits:?}");
    assert!(lib
        .search("pheromones", 5)
        .unwrap()
        .iter()
        .all(|h| !h.url.ends_with("ants.md")));

    lib.remove(docs.path()).unwrap();
    assert_eq!(lib.embedded_share().unwrap(), (0, 0));
    assert_eq!(lib.vectors_stored().unwrap(), 0);
}

/// Vectors of another model are made again; a model that fails leaves keyword ranking, said.
pub fn another_model_re_embeds_and_a_broken_one_falls_back_to_keywords(db: &dyn Database) {
    let docs = corpus();
    let first = library(db).with_embedder(Arc::new(TrigramEmbedder::new(64)));
    first.add(docs.path(), &|_| {}).unwrap();
    drop(first);

    let embedder = Arc::new(Counting::default());
    let lib = library(db).with_embedder(embedder.clone());
    assert_eq!(lib.embedded_share().unwrap(), (0, 3));
    assert_eq!(lib.embed_pending().unwrap(), 3);
    assert!(lib.search("indexes", 5).unwrap()[0]
        .url
        .ends_with("indexing.md"));
    drop(lib);

    let broken = library(db).with_embedder(Arc::new(Broken));
    write(docs.path(), "new.md", "# New\n\nA fresh note about nectar.");
    let report = broken.reindex(&|_| {}).unwrap();
    assert_eq!(report.indexed, 1, "{report:?}");
    let ranked = broken.search_ranked("nectar", 5).unwrap();
    assert_eq!(ranked.ranking, Ranking::Bm25);
    assert_eq!(ranked.hits.len(), 2, "{:?}", ranked.hits);
}

/// Indexing by meaning stopped after a batch keeps that batch, and the next pass embeds only
/// the rest: a person who stops it, or closes the app, loses nothing.
pub fn a_stopped_pass_keeps_what_it_embedded_and_the_next_goes_on(db: &dyn Database) {
    let docs = tempfile::tempdir().unwrap();
    for i in 0..(crate::vectors::EMBED_BATCH + 8) {
        write(
            docs.path(),
            &format!("note{i}.md"),
            format!("# Note {i}\n\nForagers visited flower patch number {i} today."),
        );
    }
    let keywords = library(db);
    keywords.add(docs.path(), &|_| {}).unwrap();
    let passages = keywords.passage_count().unwrap();
    assert!(passages > crate::vectors::EMBED_BATCH, "{passages}");
    drop(keywords);
    let embedder = Arc::new(Counting::default());
    let lib = library(db).with_embedder(embedder.clone());
    let seen = std::sync::Mutex::new(Vec::new());
    let first = lib
        .embed_pending_with(
            &|done, total| seen.lock().unwrap().push((done, total)),
            &|| true,
        )
        .unwrap();
    assert_eq!(
        first,
        crate::vectors::EMBED_BATCH,
        "one batch, then it stops"
    );
    assert_eq!(
        *seen.lock().unwrap(),
        vec![(crate::vectors::EMBED_BATCH, passages)]
    );
    assert_eq!(lib.vectors_stored().unwrap(), crate::vectors::EMBED_BATCH);
    let rest = lib.embed_pending_with(&|_, _| {}, &|| false).unwrap();
    assert_eq!(rest, passages - crate::vectors::EMBED_BATCH);
    assert_eq!(lib.vectors_stored().unwrap(), passages);
    assert_eq!(
        embedder.texts.load(Ordering::SeqCst),
        passages,
        "none embedded twice"
    );
}

/// The nearest passages of a library with nothing on the question are not returned.
pub fn vectors_alone_do_not_return_what_is_far_from_the_question(db: &dyn Database) {
    let docs = corpus();
    let lib = library(db).with_embedder(Arc::new(TrigramEmbedder::default()));
    lib.add(docs.path(), &|_| {}).unwrap();
    assert!(lib.search("zzyzx qwv", 5).unwrap().is_empty());
}

/// A passage id is never another passage's: a file indexed again, or dropped and another
/// indexed after it, gets ids above every id given before (an index of vectors kept elsewhere
/// learns what changed from the ids alone).
pub fn passage_ids_are_never_used_again(db: &dyn Database) {
    let docs = corpus();
    let index = db.index();
    let lib = library(db);
    lib.add(docs.path(), &|_| {}).unwrap();
    let ids = |index: &dyn LibraryIndex| -> Vec<i64> {
        index
            .pending_vectors("no-model", None, 0, usize::MAX)
            .unwrap()
            .into_iter()
            .map(|(id, _)| id)
            .collect()
    };
    let first = ids(index.as_ref());
    assert_eq!(first.len(), 3, "{first:?}");
    // Read a page at a time (as an indexing pass over a large library does): the same passages.
    let (mut paged, mut after) = (Vec::new(), 0);
    loop {
        let page = index.pending_vectors("no-model", None, after, 2).unwrap();
        let Some((last, _)) = page.last() else {
            break;
        };
        assert!(page.len() <= 2, "{page:?}");
        after = *last;
        paged.extend(page.iter().map(|(id, _)| *id));
    }
    assert_eq!(paged, first);
    // The last file indexed, indexed again (its passages deleted, new ones written).
    std::thread::sleep(std::time::Duration::from_millis(20));
    let mut latest = *first.iter().max().unwrap();
    for round in 0..3 {
        write(
            docs.path(),
            "wasps.md",
            format!("# Wasps\n\nWasps hunt insects, round {round}."),
        );
        lib.reindex(&|_| {}).unwrap();
        let now = ids(index.as_ref());
        let new: Vec<i64> = now
            .iter()
            .copied()
            .filter(|id| !first.contains(id))
            .collect();
        assert_eq!(new.len(), 1, "{now:?}");
        assert!(
            new[0] > latest,
            "id {} given again (latest {latest})",
            new[0]
        );
        latest = new[0];
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // Dropped, then another file added: still above.
    std::fs::remove_file(docs.path().join("wasps.md")).unwrap();
    lib.reindex(&|_| {}).unwrap();
    write(docs.path(), "moths.md", "# Moths\n\nMoths fly at night.");
    lib.reindex(&|_| {}).unwrap();
    let now = ids(index.as_ref());
    assert!(
        now.iter().all(|id| first.contains(id) || *id > latest),
        "{now:?}"
    );
}

/// A model's vectors are listed by id without reading them, and read for the ids asked (none
/// of another model, none of a passage that has no vector).
pub fn vectors_are_listed_and_read_by_id(db: &dyn Database) {
    let docs = corpus();
    let index = db.index();
    let lib = library(db).with_embedder(Arc::new(TrigramEmbedder::new(64)));
    lib.add(docs.path(), &|_| {}).unwrap();
    let model = TrigramEmbedder::new(64).model_id().to_string();
    let ids = index.vector_ids(&model).unwrap();
    assert_eq!(ids.len(), 3);
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "ascending: {ids:?}");
    assert!(index.vector_ids("another-model").unwrap().is_empty());
    let asked = [ids[2], 999_999_999, ids[0]];
    let read = index.vectors_of(&model, &asked).unwrap();
    assert_eq!(
        read.iter().map(|(id, _)| *id).collect::<Vec<_>>(),
        vec![ids[0], ids[2]]
    );
    assert!(read.iter().all(|(_, bytes)| bytes.len() == 64 * 4));
    assert!(index.vectors_of("another-model", &ids).unwrap().is_empty());
    assert!(index.vectors_of(&model, &[]).unwrap().is_empty());
}

/// A library searched by the approximate index (here from five vectors) finds what the scan
/// finds, follows files that change, is saved in its folder at the end of a pass and loaded
/// from it by the next process, and a saved index that cannot be trusted is rebuilt.
pub fn the_approximate_index_is_kept_in_step_and_saved(db: &dyn Database) {
    let docs = six_notes();
    let folder = tempfile::tempdir().unwrap();
    let search = || {
        Arc::new(crate::VectorSearch::kept_in(folder.path().join("vectors")).approximate_from(5))
    };
    let first = search();
    let lib = library(db)
        .with_embedder(Arc::new(TrigramEmbedder::default()))
        .with_vector_search(first.clone());
    lib.add(docs.path(), &|_| {}).unwrap();
    assert_eq!(first.held(), Some((6, true)), "approximate, every vector");
    let saved: Vec<_> = std::fs::read_dir(folder.path().join("vectors"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    assert!(saved.iter().any(|n| n.ends_with(".usearch")), "{saved:?}");
    let hits = lib.search("indeksing", 5).unwrap();
    assert!(hits[0].url.ends_with("indexing.md"), "{hits:?}");
    let scanned = library(db).with_embedder(Arc::new(TrigramEmbedder::default()));
    assert_eq!(
        lib.search("a writer changes the table", 3).unwrap(),
        scanned.search("a writer changes the table", 3).unwrap(),
        "the approximate index ranks as the scan does"
    );

    // A file changed and one removed: found as they are now, never as they were.
    std::thread::sleep(std::time::Duration::from_millis(20));
    write(
        docs.path(),
        "bees.md",
        "# Bees\n\nHoney bees waggle to point at flowers.",
    );
    std::fs::remove_file(docs.path().join("ants.md")).unwrap();
    lib.reindex(&|_| {}).unwrap();
    let hits = lib.search("waggles", 5).unwrap();
    assert!(hits[0].url.ends_with("bees.md"), "{hits:?}");
    assert!(lib
        .search("pheromones trails", 5)
        .unwrap()
        .iter()
        .all(|h| !h.url.ends_with("ants.md")));
    assert_eq!(first.held(), Some((5, true)));
    drop(lib);

    // The next process loads the saved index: the same answers.
    let second = search();
    let next = library(db)
        .with_embedder(Arc::new(TrigramEmbedder::default()))
        .with_vector_search(second.clone());
    let hits = next.search("waggles", 5).unwrap();
    assert!(hits[0].url.ends_with("bees.md"), "{hits:?}");
    assert_eq!(second.held(), Some((5, true)));

    // Its files damaged: rebuilt from the index, the same answers.
    for entry in std::fs::read_dir(folder.path().join("vectors")).unwrap() {
        std::fs::write(entry.unwrap().path(), b"damaged").unwrap();
    }
    let third = search();
    let again = library(db)
        .with_embedder(Arc::new(TrigramEmbedder::default()))
        .with_vector_search(third.clone());
    assert_eq!(again.search("waggles", 5).unwrap(), hits);
    assert_eq!(third.held(), Some((5, true)));
}

/// A search never waits for the approximate index to be built: while a thread of its own
/// builds it the search ranks by keywords, and says so; once built, by meaning too.
pub fn a_search_never_waits_for_the_index_to_be_built(db: &dyn Database) {
    let docs = six_notes();
    library(db)
        .with_embedder(Arc::new(TrigramEmbedder::default()))
        .add(docs.path(), &|_| {})
        .unwrap();
    let folder = tempfile::tempdir().unwrap();
    let vectors = Arc::new(
        crate::VectorSearch::kept_in(folder.path().to_path_buf())
            .approximate_from(5)
            .in_background_from(3),
    );
    let lib = library(db)
        .with_embedder(Arc::new(TrigramEmbedder::default()))
        .with_vector_search(vectors.clone());
    let first = lib.search_ranked("indexing", 5).unwrap();
    assert_eq!(first.ranking, Ranking::Bm25, "keywords while it is built");
    assert!(first.hits[0].url.ends_with("indexing.md"), "{first:?}");
    let started = std::time::Instant::now();
    while vectors.building() {
        assert!(started.elapsed().as_secs() < 30, "built within 30 s");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let then = lib.search_ranked("indeksing", 5).unwrap();
    assert!(matches!(then.ranking, Ranking::Hybrid { .. }), "{then:?}");
    assert!(then.hits[0].url.ends_with("indexing.md"), "{then:?}");
    assert_eq!(vectors.held(), Some((6, true)));
}

/// A process searching by meaning finds what another process indexed meanwhile (the command
/// line beside the app), once it next asks the index's tally.
pub fn what_another_process_indexed_is_found_by_meaning(db: &dyn Database) {
    let docs = corpus();
    let app = library(db)
        .with_embedder(Arc::new(TrigramEmbedder::default()))
        .with_vector_search(Arc::new(
            crate::VectorSearch::in_memory().recheck_every(std::time::Duration::ZERO),
        ));
    app.add(docs.path(), &|_| {}).unwrap();
    assert!(app.search("indeksing", 5).unwrap()[0]
        .url
        .ends_with("indexing.md"));
    let more = tempfile::tempdir().unwrap();
    write(
        more.path(),
        "wasps.md",
        "# Wasps\n\nPaper wasps chew wood into nests.",
    );
    let command_line = library(db).with_embedder(Arc::new(TrigramEmbedder::default()));
    command_line.add(more.path(), &|_| {}).unwrap();
    let found = app.nearest("paper waspss chewing wod", 1).unwrap().unwrap();
    let wasps = db
        .index()
        .vector_ids(TrigramEmbedder::default().model_id())
        .unwrap()
        .into_iter()
        .max()
        .unwrap();
    assert_eq!(
        found[0].id, wasps,
        "the other process's passage, by meaning"
    );
}

/// The counts the Library view shows (files, passages, vectors) and the tally a copy of the
/// vectors compares are what the rows say after every kind of change: added, changed, embedded
/// by another model, removed.
/// (An index may keep them as rows change rather than count: the team library does.)
pub fn counts_and_the_vector_tally_follow_every_change(db: &dyn Database) {
    let index = db.index();
    let truth = |model: &str| crate::VectorTally::of(&index.vector_ids(model).unwrap());
    let (one, two) = (TrigramEmbedder::new(64), TrigramEmbedder::new(32));
    let (first, second) = (one.model_id().to_string(), two.model_id().to_string());
    assert_eq!(index.vector_tally(&first).unwrap(), Default::default());
    let counts = index.counts(Some(&first)).unwrap();
    assert_eq!(
        (counts.passages, counts.vectors, counts.vectors_of_model),
        (0, 0, 0)
    );

    let docs = six_notes();
    let lib = library(db).with_embedder(Arc::new(one));
    lib.add(docs.path(), &|_| {}).unwrap();
    let tally = index.vector_tally(&first).unwrap();
    assert_eq!((tally, tally.count), (truth(&first), 6));
    let counts = index.counts(Some(&first)).unwrap();
    assert_eq!(
        (counts.passages, counts.vectors, counts.vectors_of_model),
        (6, 6, 6)
    );

    // A file changed (its passage and vector replaced), one removed, one added.
    std::thread::sleep(std::time::Duration::from_millis(20));
    write(
        docs.path(),
        "bees.md",
        "# Bees\n\nBees dance.\n\nScouts look for a new hive in spring.",
    );
    std::fs::remove_file(docs.path().join("ants.md")).unwrap();
    write(docs.path(), "moths.md", "# Moths\n\nMoths fly to the lamp.");
    lib.reindex(&|_| {}).unwrap();
    let tally = index.vector_tally(&first).unwrap();
    assert_eq!((tally, tally.count), (truth(&first), 6), "{tally:?}");
    assert_eq!(index.counts(Some(&first)).unwrap().passages, 6);
    let folders = index.folders().unwrap();
    assert_eq!(
        (folders.len(), folders[0].files, folders[0].failed),
        (1, 6, 0)
    );

    // Another model embeds them all again: the vectors move from one tally to the other.
    let other = library(db).with_embedder(Arc::new(two));
    other.reindex(&|_| {}).unwrap();
    assert_eq!(index.vector_tally(&first).unwrap().count, 0);
    let tally = index.vector_tally(&second).unwrap();
    assert_eq!((tally, tally.count), (truth(&second), 6));
    let counts = index.counts(Some(&first)).unwrap();
    assert_eq!(
        (counts.passages, counts.vectors, counts.vectors_of_model),
        (6, 6, 0)
    );

    // The folder removed: nothing left to count.
    other.remove(docs.path()).unwrap();
    assert!(index.folders().unwrap().is_empty());
    assert_eq!(index.vector_tally(&second).unwrap(), Default::default());
    let counts = index.counts(Some(&second)).unwrap();
    assert_eq!(
        (counts.passages, counts.vectors, counts.vectors_of_model),
        (0, 0, 0)
    );
}
