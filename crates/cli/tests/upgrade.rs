//! Issue 56: a database written by each earlier release opens in today's build with every
//! session in it. The files in `fixtures/earlier-schemas/` were made by those releases' own
//! `research` CLIs, built from this repository's history and used as a person used them
//! (`scripts/earlier-schema-fixtures.sh`; the manifest beside each file says what was done with
//! it): a finished run, a follow-up, a report revised at its review, a run left waiting at the
//! plan review, a fork, a recheck, a schedule, a library and a fetched page.
//!
//! Each is opened as a person's file would be: every row of every table is still there, every
//! session shows with its runs and report versions, finished runs are still finished, the run
//! waiting at its plan review goes on to a report, an old session takes a follow-up and a
//! recheck, the library still answers, and the file as it was is kept beside it.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::*;
use serde_json::Value;

fn earlier_schemas() -> Vec<(PathBuf, Value)> {
    let dir = fixtures().join("earlier-schemas");
    let mut found: Vec<(PathBuf, Value)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|manifest| {
            let value: Value =
                serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
            let file = manifest.with_extension("sqlite3.gz");
            (file, value)
        })
        .collect();
    found.sort_by_key(|(_, m)| m["schema"].as_u64());
    found
}

/// The manifest's step `name`, when the release could do it.
fn step<'a>(manifest: &'a Value, name: &str) -> Option<&'a Value> {
    manifest["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["step"] == name && s["status"] == "ok")
}

fn unzip(gz: &Path, to: &Path) {
    let out = std::process::Command::new("gzip")
        .arg("-dc")
        .arg(gz)
        .output()
        .expect("gzip runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::write(to, out.stdout).unwrap();
}

/// Every table's row count: ordinary tables, and full-text tables counted through themselves
/// (their shadow tables hold the index's own segments, which a rebuild merges).
fn row_counts(db: &Path) -> BTreeMap<String, i64> {
    let conn =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let tables: Vec<(String, bool)> = conn
        .prepare(
            "SELECT name, sql LIKE 'CREATE VIRTUAL%' FROM sqlite_master \
             WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let virtual_tables: Vec<&String> = tables.iter().filter(|(_, v)| *v).map(|(t, _)| t).collect();
    tables
        .iter()
        .filter(|(t, _)| {
            !virtual_tables
                .iter()
                .any(|v| t.starts_with(&format!("{v}_")))
        })
        .map(|(t, _)| {
            let n = conn
                .query_row(&format!("SELECT COUNT(*) FROM \"{t}\""), [], |r| r.get(0))
                .unwrap();
            (t.clone(), n)
        })
        .collect()
}

fn user_version(db: &Path) -> i64 {
    rusqlite::Connection::open(db)
        .unwrap()
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap()
}

/// Sessions as the earlier release left them: id → (status, runs, report versions).
fn sessions_before(db: &Path) -> BTreeMap<String, (String, i64, i64)> {
    let conn =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT s.id, s.status, \
               (SELECT COUNT(*) FROM runs r WHERE r.session_id = s.id), \
               (SELECT COUNT(*) FROM reports p WHERE p.session_id = s.id) \
             FROM sessions s",
        )
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?, r.get(3)?))))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn a_database_from_every_earlier_release_opens_with_every_session() {
    let schemas = earlier_schemas();
    let releases = schemas.len();
    let script = format!("scripted:{}", fixtures().join("script.json").display());
    for (gz, manifest) in schemas {
        let schema = manifest["schema"].as_i64().unwrap();
        let context = format!("schema {schema} ({})", manifest["release"]);
        let dir = tempfile::tempdir().unwrap();
        // The library folder as the release read it, where its file URLs point (under this
        // test's folder: the checker maps those URLs here).
        let old_corpus = manifest["corpus"]["path"].as_str().unwrap();
        let pages = dir.path().join("pages");
        let copied = pages.join(old_corpus.trim_start_matches('/'));
        std::fs::create_dir_all(&copied).unwrap();
        for (name, text) in manifest["corpus"]["files"].as_object().unwrap() {
            std::fs::write(copied.join(name), text.as_str().unwrap()).unwrap();
        }
        let grounded = |result: &Value| {
            check_grounding_over(
                result,
                dir.path(),
                &pages,
                Some(format!("file://{old_corpus}/={}", pages.display())),
            )
        };
        let db = dir.path().join("research.sqlite3");
        unzip(&gz, &db);
        assert_eq!(user_version(&db), schema, "{context}");
        let rows = row_counts(&db);
        let sessions = sessions_before(&db);
        assert!(sessions.len() >= 3, "{context}: {sessions:?}");

        // Opened by today's build: every session listed, the schema brought up to date.
        let listed = ok(&research(&["sessions", "list", "--json"], &db));
        let listed: BTreeMap<String, String> = listed
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["id"].as_str().unwrap().to_string(),
                    s["status"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(
            listed.keys().collect::<Vec<_>>(),
            sessions.keys().collect::<Vec<_>>(),
            "{context}"
        );
        assert!(user_version(&db) > schema, "{context}: upgraded");
        let after = row_counts(&db);
        for (table, n) in &rows {
            // Schema 4 indexes CJK text anew: the passages an earlier release extracted are
            // cleared for the next re-index to read the files again (its files are kept).
            if schema < 4 && table.starts_with("library_passages") {
                continue;
            }
            assert_eq!(
                after.get(table),
                Some(n),
                "{context}: table {table} kept its rows"
            );
        }
        // The file as the earlier release left it, kept beside it.
        let copies: Vec<PathBuf> = std::fs::read_dir(dir.path().join("backups"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(copies.len(), 1, "{context}: {copies:?}");
        assert_eq!(user_version(&copies[0]), schema, "{context}: the copy");
        assert!(
            row_counts(&copies[0]) == rows,
            "{context}: the copy before the upgrade holds every row as it was"
        );

        // Every session shows, with its runs and every report version; nothing changed state.
        for (id, (status, runs, reports)) in &sessions {
            assert_eq!(&listed[id], status, "{context}: {id}'s status");
            let shown = ok(&research(&["sessions", "show", id, "--json"], &db));
            assert_eq!(
                shown["runs"].as_array().unwrap().len() as i64,
                *runs,
                "{context}: {id}'s runs"
            );
            assert_eq!(
                shown["reports"].as_array().unwrap().len() as i64,
                *reports,
                "{context}: {id}'s report versions"
            );
            if status == "finished" {
                let out = dir.path().join(format!("{id}.md"));
                let exported = research(
                    &[
                        "export",
                        id,
                        "--format",
                        "md",
                        "--out",
                        out.to_str().unwrap(),
                    ],
                    &db,
                );
                assert!(
                    exported.status.success(),
                    "{context}: {id} exports: {}",
                    String::from_utf8_lossy(&exported.stderr)
                );
                let text = std::fs::read_to_string(&out).unwrap();
                assert!(
                    text.contains("](#source-"),
                    "{context}: {id}'s report cites:\n{text}"
                );
            }
        }

        // The report revised at its review has both versions.
        if let Some(revised) = step(&manifest, "revised") {
            let session = revised["result_session_id"].as_str().unwrap();
            assert!(
                sessions[session].2 >= 2,
                "{context}: {:?}",
                sessions[session]
            );
        }

        // The library still answers from the passages the earlier release indexed (those of
        // schema 3 are read again from the files at the next re-index, above).
        if schema >= 4 {
            let hits = ok(&research(
                &["library", "search", "waggle dance", "--json"],
                &db,
            ));
            assert!(
                hits.as_array().is_some_and(|h| !h.is_empty()),
                "{context}: {hits:#}"
            );
        }

        // The folder the release read is elsewhere on this machine, as after a move: added
        // where it is now, and the old place removed (schema 3's passages, cleared above, are
        // read again from the files so).
        let added = research(&["library", "add", copied.to_str().unwrap()], &db);
        assert!(added.status.success(), "{context}");
        let removed = research(&["library", "remove", old_corpus], &db);
        assert!(
            removed.status.success(),
            "{context}: {}",
            String::from_utf8_lossy(&removed.stderr)
        );

        // The run left waiting at its plan review goes on, in today's build, to a report.
        if let Some(paused) = step(&manifest, "paused") {
            assert_eq!(paused["result_status"], "waiting", "{context}");
            let thread = paused["result_thread_id"].as_str().unwrap();
            let done = ok(&research(
                &["resume", thread, "--approve", "--llm", &script, "--json"],
                &db,
            ));
            assert_eq!(done["status"], "finished", "{context}: {done:#}");
            grounded(&done);
        }

        // An old session takes a follow-up and a recheck.
        let first = step(&manifest, "finished").expect("every release finished a run");
        let session = first["result_session_id"].as_str().unwrap();
        let next = ok(&research(
            &[
                "run",
                "What do the dances tell other bees?",
                "--follow-up",
                session,
                "--llm",
                &script,
                "--search",
                "local",
                "--no-input",
                "--json",
            ],
            &db,
        ));
        assert_eq!(next["session_id"], session, "{context}");
        assert_eq!(next["status"], "finished", "{context}");
        grounded(&next);
        ok(&research(&["recheck", session, "--json"], &db));

        // A schedule the earlier release set is still listed.
        if step(&manifest, "schedule").is_some() {
            let listed = ok(&research(&["watch", "--list", "--json"], &db));
            assert!(
                listed.to_string().contains(session),
                "{context}: {listed:#}"
            );
        }
    }
    // Every release since the sessions' tables (schema 3) up to the one before today's.
    assert_eq!(
        releases,
        research_store::schema_version() - 3,
        "one database per earlier release"
    );
}
