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
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("skipped"),
        "unreadable files are named"
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
