//! The database file kept safe: damaged and newer files are refused before anything writes to
//! them, a backup taken while another connection writes is whole, and a restore keeps the file
//! it replaces.

use research_store::{open_connection, safety, StoreError};
use sha2::Digest;

fn hash(path: &std::path::Path) -> Vec<u8> {
    sha2::Sha256::digest(std::fs::read(path).unwrap()).to_vec()
}

/// A database with `rows` notes, written without the store (which checks a file once per
/// process: these tests damage files it would otherwise have checked already).
fn filled(path: &std::path::Path, rows: usize) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.execute_batch("CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, body TEXT)")
        .unwrap();
    for i in 0..rows {
        conn.execute(
            "INSERT INTO notes (body) VALUES (?1)",
            [format!("note {i} {}", "x".repeat(200))],
        )
        .unwrap();
    }
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
}

fn notes(path: &std::path::Path) -> i64 {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.query_row("SELECT count(*) FROM notes", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_damaged_file_is_refused_and_never_written_to() {
    let dir = tempfile::tempdir().unwrap();
    // Bytes flipped inside the tables' pages.
    let db = dir.path().join("flipped.sqlite3");
    filled(&db, 400);
    let mut bytes = std::fs::read(&db).unwrap();
    let page = 4096;
    for b in &mut bytes[3 * page + 100..3 * page + 400] {
        *b ^= 0x5a;
    }
    std::fs::write(&db, &bytes).unwrap();
    let before = hash(&db);
    let err = open_connection(&db).expect_err("refused");
    assert!(matches!(err, StoreError::Damaged { .. }), "{err}");
    assert!(err.to_string().contains("nothing was written"), "{err}");
    assert_eq!(hash(&db), before, "not a byte changed");
    assert!(!safety::check(&db, true).unwrap().is_empty());
    // Cut short: the same.
    let cut = dir.path().join("cut.sqlite3");
    filled(&cut, 400);
    let bytes = std::fs::read(&cut).unwrap();
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let before = hash(&cut);
    assert!(matches!(
        open_connection(&cut).err(),
        Some(StoreError::Damaged { .. })
    ));
    assert_eq!(hash(&cut), before);
    // A torn page: a power cut in the middle of writing one page back, its first half new
    // and its second half as it was before the rows on it were rewritten.
    let torn = dir.path().join("torn.sqlite3");
    filled(&torn, 400);
    let old = std::fs::read(&torn).unwrap();
    {
        let conn = rusqlite::Connection::open(&torn).unwrap();
        conn.execute_batch(
            "UPDATE notes SET body = printf('rewritten %d %s', id, substr(body, 1, 40 + id % 90));",
        )
        .unwrap();
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .unwrap();
    }
    let mut bytes = std::fs::read(&torn).unwrap();
    let at = 5 * page;
    assert_ne!(
        bytes[at..at + page],
        old[at..at + page],
        "the page was rewritten"
    );
    bytes[at + page / 2..at + page].copy_from_slice(&old[at + page / 2..at + page]);
    std::fs::write(&torn, &bytes).unwrap();
    let before = hash(&torn);
    assert!(matches!(
        open_connection(&torn).err(),
        Some(StoreError::Damaged { .. })
    ));
    assert_eq!(hash(&torn), before, "not a byte changed");
}

#[test]
fn a_file_from_a_newer_build_is_left_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("newer.sqlite3");
    filled(&db, 3);
    let newer = research_store::schema_version() + 1;
    rusqlite::Connection::open(&db)
        .unwrap()
        .pragma_update(None, "user_version", newer as i64)
        .unwrap();
    let before = hash(&db);
    let err = open_connection(&db).expect_err("refused");
    assert!(
        matches!(err, StoreError::NewerSchema { found, .. } if found == newer),
        "{err}"
    );
    assert!(err.to_string().contains("newer Research Studio"), "{err}");
    assert_eq!(hash(&db), before);
}

#[test]
fn a_backup_taken_while_another_connection_writes_is_whole_and_restores() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("research.sqlite3");
    filled(&db, 50);
    // Another connection in the middle of a write: the backup has what was committed.
    let writer = open_connection(&db).unwrap();
    writer.execute_batch("BEGIN IMMEDIATE").unwrap();
    writer
        .execute("INSERT INTO notes (body) VALUES ('uncommitted')", [])
        .unwrap();
    let target = dir.path().join("backups").join("one.sqlite3");
    let bytes = safety::backup(&db, &target).unwrap();
    writer.execute_batch("COMMIT").unwrap();
    assert!(bytes > 0);
    assert!(safety::check(&target, true).unwrap().is_empty());
    assert_eq!(notes(&target), 50);
    assert!(!dir.path().join("backups").join("one.partial").exists());
    // Never over an existing file.
    assert!(safety::backup(&db, &target).is_err());
    drop(writer);

    // Restored: the backup's rows, and the file it replaced kept beside it with its own.
    let kept = safety::restore(&target, &db, "20261128-120000")
        .unwrap()
        .expect("the replaced file is kept");
    assert_eq!(notes(&db), 50);
    assert_eq!(notes(&kept), 51);
    assert!(kept
        .to_string_lossy()
        .ends_with(".replaced-20261128-120000"));
    open_connection(&db).expect("the restored file opens and is brought up to date");

    // A damaged backup is never restored, and the database stays as it was.
    let damaged = dir.path().join("damaged.sqlite3");
    let b = std::fs::read(&target).unwrap();
    std::fs::write(&damaged, &b[..b.len() / 2]).unwrap();
    let before = hash(&db);
    assert!(matches!(
        safety::restore(&damaged, &db, "x"),
        Err(StoreError::Damaged { .. })
    ));
    assert_eq!(hash(&db), before);
}

/// A write-ahead log with `extra` committed on `db` and kept: the log as an unclean shutdown
/// leaves it (copied aside while the connection is open, put back after it closed).
fn log_left_by(db: &std::path::Path, extra: &str) -> Vec<u8> {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    conn.execute_batch(extra).unwrap();
    let log = std::fs::read(format!("{}-wal", db.display())).unwrap();
    drop(conn);
    log
}

/// Issue 56: a `-wal` from another database beside the file (a database copied over one that
/// was not shut down cleanly) is refused before SQLite reads its pages as this file's — told by
/// its page size, or by the file identity its copy of the first page carries; the log an
/// unclean shutdown of this file leaves is read as before.
#[test]
fn a_write_ahead_log_of_another_database_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    // The store gives every file it opens an identity (checked once per file per process, so
    // the files here are made as it makes them, and opened by it only once their log is there).
    let fresh = dir.path().join("fresh.sqlite3");
    drop(open_connection(&fresh).unwrap());
    let id = |db: &std::path::Path| -> i64 {
        rusqlite::Connection::open(db)
            .unwrap()
            .query_row("PRAGMA application_id", [], |r| r.get(0))
            .unwrap()
    };
    assert_ne!(id(&fresh), 0, "a file the store made has its identity");
    let made = |name: &str, identity: i32| {
        let db = dir.path().join(name);
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.pragma_update(None, "journal_mode", "WAL").unwrap();
        conn.pragma_update(None, "application_id", identity)
            .unwrap();
        conn.execute_batch("CREATE TABLE notes (x)").unwrap();
        db
    };
    let ours = made("ours.sqlite3", 0x1111);
    let theirs = made("theirs.sqlite3", 0x2222);

    // Their log (a new table: its first page is in it) beside our file.
    let log = log_left_by(
        &theirs,
        "CREATE TABLE theirs_only (x); INSERT INTO theirs_only VALUES (1);",
    );
    let wal = format!("{}-wal", ours.display());
    std::fs::write(&wal, &log).unwrap();
    let before = hash(&ours);
    let found = safety::check(&ours, false).unwrap();
    assert!(
        found.len() == 1 && found[0].contains("is another database's"),
        "{found:?}"
    );
    let err = open_connection(&ours).expect_err("refused");
    assert!(matches!(err, StoreError::Damaged { .. }), "{err}");
    assert_eq!(hash(&ours), before, "not a byte changed");
    assert_eq!(
        std::fs::read(&wal).unwrap(),
        log,
        "the log is left as it was"
    );

    // A log of another page size: the same.
    let other_pages = dir.path().join("big-pages.sqlite3");
    {
        let conn = rusqlite::Connection::open(&other_pages).unwrap();
        conn.pragma_update(None, "page_size", 8192).unwrap();
        conn.pragma_update(None, "journal_mode", "WAL").unwrap();
        conn.execute_batch("CREATE TABLE t (x)").unwrap();
    }
    let log = log_left_by(&other_pages, "INSERT INTO t VALUES (1);");
    std::fs::write(format!("{}-wal", fresh.display()), &log).unwrap();
    let found = safety::check(&fresh, false).unwrap();
    assert!(
        found[0].contains("pages of 8192 bytes, not 4096"),
        "{found:?}"
    );

    // Our own log, left by a shutdown that never came: read, its rows there.
    let mine = made("mine.sqlite3", 0x3333);
    let log = log_left_by(&mine, "CREATE TABLE mine (x); INSERT INTO mine VALUES (7);");
    std::fs::write(format!("{}-wal", mine.display()), &log).unwrap();
    assert_eq!(safety::check(&mine, false).unwrap(), Vec::<String>::new());
    let conn = open_connection(&mine).unwrap();
    let seven: i64 = conn
        .query_row("SELECT x FROM mine", [], |r| r.get(0))
        .unwrap();
    assert_eq!(seven, 7);
}

/// A database whose index no longer matches its table: SQLite's quick check passes it, its
/// full check does not.
fn index_out_of_step(path: &std::path::Path) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.execute_batch(
        "CREATE TABLE t (x, y); CREATE INDEX i ON t (x);
         INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c');
         PRAGMA writable_schema = ON;
         UPDATE sqlite_master SET sql = 'CREATE INDEX i ON t (y)' WHERE name = 'i';",
    )
    .unwrap();
}

/// Issue 56: after a process that had the file open ended without closing it (its marker is
/// there, the process gone), the file is checked in full before use — a damage SQLite's quick
/// check misses is found — and the stale marker is taken away; while that process still runs,
/// or after a clean end (no marker), the quick check is the one.
#[test]
fn a_file_left_open_by_a_process_that_died_is_checked_in_full() {
    let dir = tempfile::tempdir().unwrap();
    let marker = |db: &std::path::Path, pid: u32| {
        let m = std::path::PathBuf::from(format!("{}.open-{pid}", db.display()));
        std::fs::write(&m, b"").unwrap();
        m
    };
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    let dead = gone.id();
    gone.wait().unwrap();

    let died = dir.path().join("died.sqlite3");
    index_out_of_step(&died);
    let stale = marker(&died, dead);
    let err = open_connection(&died).expect_err("checked in full");
    assert!(err.to_string().contains("missing from index"), "{err}");
    assert!(!stale.exists(), "the dead process's marker is taken away");

    let clean = dir.path().join("clean.sqlite3");
    index_out_of_step(&clean);
    drop(open_connection(&clean).expect("the quick check passes it"));

    let mut alive = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    let running = dir.path().join("running.sqlite3");
    index_out_of_step(&running);
    let theirs = marker(&running, alive.id());
    drop(open_connection(&running).expect("another process has it open: the quick check"));
    assert!(theirs.exists(), "a running process's marker stays");
    alive.kill().unwrap();
    let _ = alive.wait();
    // This process's own marker is beside the files it opened until it exits.
    assert!(
        std::path::Path::new(&format!("{}.open-{}", clean.display(), std::process::id())).exists()
    );
}
