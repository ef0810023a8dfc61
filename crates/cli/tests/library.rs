//! `research library` as a user runs it.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_research");

fn research(args: &[&str], db: &str) -> std::process::Output {
    Command::new(BIN)
        .args(args)
        .args(["--db", db])
        .output()
        .unwrap()
}

#[test]
fn add_list_search_and_remove_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite3");
    let db = db.to_str().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(
        docs.join("bees.md"),
        "# Bees\n\nHoney bees perform a waggle dance.",
    )
    .unwrap();
    std::fs::write(docs.join("junk.txt"), [0u8, 1, 2, 0]).unwrap();
    let docs = docs.to_str().unwrap();

    let out = research(&["library", "add", docs], db);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let told = String::from_utf8_lossy(&out.stderr);
    assert!(told.contains("skipped"), "unreadable files are named");
    // Not a terminal: whole lines a log can keep, the last one the total.
    assert!(!told.contains('\r'), "{told:?}");
    assert!(
        told.lines()
            .any(|l| l == "scanned 2 files: 1 indexed, 0 unchanged, 1 unreadable"),
        "{told}"
    );
    let listed: serde_json::Value =
        serde_json::from_slice(&research(&["library", "list", "--json"], db).stdout).unwrap();
    assert_eq!(
        (listed[0]["files"].as_u64(), listed[0]["failed"].as_u64()),
        (Some(1), Some(1))
    );

    let hits: serde_json::Value =
        serde_json::from_slice(&research(&["library", "search", "waggle", "--json"], db).stdout)
            .unwrap();
    assert!(hits[0]["url"].as_str().unwrap().ends_with("/docs/bees.md"));
    let out = research(
        &["search", "waggle dance", "--search", "local", "--json"],
        db,
    );
    let outcome: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(outcome["hits"][0]["kind"], "local");

    assert!(research(&["library", "remove", docs], db).status.success());
    let out = research(&["library", "remove", docs], db);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not in the library"));
}

/// `research` with the embedding model at `model` (a folder; an empty one means "not installed").
fn research_with_model(args: &[&str], db: &str, model: &std::path::Path) -> std::process::Output {
    Command::new(BIN)
        .args(args)
        .args(["--db", db])
        .env("RESEARCH_STUDIO_EMBEDDER", model)
        .env_remove("RESEARCH_LLM")
        .output()
        .unwrap()
}

/// The method section's line on how the library was searched, from a scripted run.
fn library_line(db: &str, model: &std::path::Path) -> String {
    report_of(
        db,
        model,
        "How do honeybees communicate and organise their colonies?",
    )["report"]
        .as_str()
        .unwrap()
        .lines()
        .find(|l| l.contains("Library search"))
        .unwrap_or_default()
        .to_string()
}

/// A scripted run's result on `question`, searching the library alone.
fn report_of(db: &str, model: &std::path::Path, question: &str) -> serde_json::Value {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/script.json");
    let out = research_with_model(
        &[
            "run",
            question,
            "--llm",
            &format!("scripted:{script}"),
            "--search",
            "local",
            "--no-input",
            "--json",
        ],
        db,
        model,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_library_is_indexed_by_meaning_on_request_and_the_report_says_how_it_was_searched() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db.sqlite3");
    let db = db.to_str().unwrap();
    let corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/corpus");
    let none = dir.path().join("no-model");
    std::fs::create_dir_all(&none).unwrap();
    assert!(research_with_model(&["library", "add", corpus], db, &none)
        .status
        .success());

    // No model installed: keywords alone, said; indexing by meaning is a clear error.
    let line = library_line(db, &none);
    assert!(
        line.contains("keywords (BM25) alone; no embedding model is installed"),
        "{line}"
    );
    let out = research_with_model(&["library", "embed"], db, &none);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no embedding model is installed") && err.contains("fetch-embedder"),
        "{err}"
    );

    let Some(model) = research_embed_model() else {
        eprintln!(
            "SKIPPED the hybrid half: no embedding model (run `bash scripts/fetch-embedder.sh`)"
        );
        return;
    };
    // Installed, nothing embedded yet: still keywords alone, and the report says how to add meaning.
    let line = library_line(db, &model);
    assert!(line.contains("not indexed by meaning yet"), "{line}");
    let out = research_with_model(&["library", "embed"], db, &model);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("passages embedded"));
    let line = library_line(db, &model);
    assert!(
        line.contains("hybrid ranking") && line.contains("have a vector"),
        "{line}"
    );
    // A question the library has nothing on is judged so once, by meaning: the report says so
    // and reads none of its passages, though one shares a word with it (the sourdough
    // starter's "flour and water"); the honeybee question above was not judged so.
    let report = report_of(db, &model, "How do I keep water out of my basement?");
    assert!(
        report["sources"].as_array().unwrap().is_empty(),
        "{}",
        report["sources"]
    );
    let text = report["report"].as_str().unwrap();
    assert!(
        text.contains("Library: nothing on this question") && text.contains("under 0.44"),
        "{text}"
    );
    let summary = text.split("## Method").next().unwrap();
    assert!(
        summary.contains("Nothing on this question was found") && !summary.contains("rephrase"),
        "{summary}"
    );
    let on_it = report_of(
        db,
        &model,
        "How do honeybees communicate and organise their colonies?",
    );
    let text = on_it["report"].as_str().unwrap();
    assert!(!text.contains("nothing on this question"), "{text}");
    assert!(!on_it["sources"].as_array().unwrap().is_empty());
    // Embedding again finds nothing left to do.
    let out = research_with_model(&["library", "embed"], db, &model);
    assert!(String::from_utf8_lossy(&out.stderr).contains("0 passages embedded"));
    // A question in a language the model was not made for (its card says English) is ranked
    // by keywords alone, and the search says why.
    let out = research_with_model(
        &[
            "library",
            "search",
            "ミツバチはどうやって仲間に花の場所を伝えますか？",
        ],
        db,
        &model,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("keywords (BM25) alone") && err.contains("this question's language (ja)"),
        "{err}"
    );
    let out = research_with_model(
        &[
            "library",
            "search",
            "How do honeybees tell where flowers are?",
        ],
        db,
        &model,
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("hybrid ranking"));

    // A new user with the model installed: adding a folder indexes it by meaning too, with
    // no second command; `--keywords-only` leaves that for later, and says nothing of it.
    let fresh = dir.path().join("fresh.sqlite3");
    let fresh = fresh.to_str().unwrap();
    let out = research_with_model(&["library", "add", corpus], fresh, &model);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("indexing by meaning") && err.contains("passages embedded"),
        "{err}"
    );
    let line = library_line(fresh, &model);
    assert!(line.contains("hybrid ranking"), "{line}");
    let keywords = dir.path().join("keywords.sqlite3");
    let keywords = keywords.to_str().unwrap();
    let out = research_with_model(
        &["library", "add", corpus, "--keywords-only"],
        keywords,
        &model,
    );
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stderr).contains("embedded"));
    assert!(library_line(keywords, &model).contains("not indexed by meaning yet"));
}

/// A library of a thousand passages or more is indexed by the model distilled to a vector per
/// token, and searched by it: the searches' line names it. Its table is made on first use (here
/// in a cache of the test's own, about 40 s), which the progress says, and the rate shown is the
/// embedding's, not the table's ("0.8 a second, about 2 h 10 min left" before it was).
#[test]
fn a_library_of_a_thousand_passages_is_indexed_by_the_distilled_model() {
    let Some(model) = research_embed_model() else {
        eprintln!("SKIPPED: no embedding model (run `bash scripts/fetch-embedder.sh`)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes");
    std::fs::create_dir_all(&notes).unwrap();
    let birds = [
        "wren", "heron", "kestrel", "curlew", "linnet", "plover", "siskin",
    ];
    let places = [
        "estuary",
        "hedgerow",
        "moor",
        "reed bed",
        "orchard",
        "shingle spit",
    ];
    let foods = ["beetles", "seeds", "worms", "small fish", "berries"];
    for i in 0..1_000 {
        let text = format!(
            "Field note {i}: a {} was seen near the {} at dawn, feeding on {}.",
            birds[i % birds.len()],
            places[i % places.len()],
            foods[i % foods.len()]
        );
        std::fs::write(notes.join(format!("note-{i:04}.md")), text).unwrap();
    }
    let db = dir.path().join("db.sqlite3");
    let db = db.to_str().unwrap();
    let cache = dir.path().join("cache");
    let with_own_cache = |args: &[&str]| {
        Command::new(BIN)
            .args(args)
            .args(["--db", db])
            .env("RESEARCH_STUDIO_EMBEDDER", &model)
            .env("RESEARCH_STUDIO_CACHE", &cache)
            .output()
            .unwrap()
    };
    let out = with_own_cache(&["library", "add", notes.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("making the sentence model's table") && err.contains("passages embedded"),
        "{err}"
    );
    // The progress after the table: a rate of hundreds a second, never hours left.
    assert!(!err.contains(" h "), "{err}");
    let out = with_own_cache(&["library", "search", "Where do herons feed?"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("hybrid ranking") && err.contains("+distilled"),
        "{err}"
    );
}

/// The installed embedding model's folder, as the test suite installs it.
fn research_embed_model() -> Option<std::path::PathBuf> {
    std::env::var_os("RESEARCH_STUDIO_EMBEDDER")
        .map(std::path::PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|h| {
                std::path::PathBuf::from(h).join(".cache/research-studio/models/all-MiniLM-L6-v2")
            })
        })
        .filter(|d| d.join("model.safetensors").is_file())
}
