//! Keeping the database file safe: a quick check before anything writes to it, refusing a file
//! a newer build wrote, consistent backups while a run writes, and restoring one with the file
//! it replaces kept beside it. Nothing here deletes a person's data.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::{Connection, OpenFlags};

use crate::StoreError;

/// What SQLite's check found wrong, at most this many lines of it.
const PROBLEMS_SHOWN: usize = 5;

/// The problems SQLite's `quick_check` (or, `full`, its `integrity_check`) finds in the
/// database at `path`, read-only: empty when it is sound. A file that is not a database at all
/// is one problem.
pub fn check(path: &Path, full: bool) -> Result<Vec<String>, StoreError> {
    // Before SQLite reads it: a log from another database would be read as this one's.
    if let Some(foreign) = foreign_log(path) {
        return Ok(vec![foreign]);
    }
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| StoreError::Open {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    Ok(problems(&conn, full))
}

fn problems(conn: &Connection, full: bool) -> Vec<String> {
    let pragma = if full {
        "PRAGMA integrity_check"
    } else {
        "PRAGMA quick_check"
    };
    let rows = conn.prepare(pragma).and_then(|mut s| {
        s.query_map([], |r| r.get::<_, String>(0))?
            .collect::<Result<Vec<_>, _>>()
    });
    match rows {
        Ok(rows) if rows == ["ok"] => Vec::new(),
        Ok(rows) => rows.into_iter().take(PROBLEMS_SHOWN).collect(),
        Err(e) => vec![e.to_string()],
    }
}

/// Refuses, before anything writes to it, a database SQLite finds damaged: checked once per
/// file per process (the check reads the whole file; it is opened many times).
pub(crate) fn sound_before_use(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    static CHECKED: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());
    let key = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    if CHECKED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .contains(&key)
    {
        return Ok(());
    }
    // After a process that had the file open ended without closing it (killed, a power cut),
    // the full check: SQLite's quick one does not compare indexes with their tables.
    let unclean = opened_after_unclean_end(path);
    if unclean {
        tracing::info!(path = %path.display(), "the last process ended without closing the database: checking it in full");
    }
    let found = match foreign_log(path) {
        Some(foreign) => vec![foreign],
        None => problems(conn, unclean),
    };
    if !found.is_empty() {
        return Err(StoreError::Damaged {
            path: path.to_path_buf(),
            problems: found,
        });
    }
    CHECKED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(key);
    Ok(())
}

/// Why the write-ahead log beside the database at `path` (`<path>-wal`) is another
/// database's, when it plainly is: SQLite would read its pages as this file's (a `-wal` left
/// from an unclean shutdown, then a database copied over the file, mixes the two), and nothing
/// in SQLite's format ties a log to its file. A log of another page size is another's; so is
/// one whose last committed copy of the first page names another file identity
/// ([`mark_identity`]). Only the frames of the log's current generation (their salts match its
/// header) count. A log that does not hold the first page cannot be told apart this way
/// (nothing in SQLite's format can tell it), and is read.
pub fn foreign_log(path: &Path) -> Option<String> {
    use std::io::{Read, Seek, SeekFrom};
    let wal = PathBuf::from(format!("{}-wal", path.display()));
    let mut header = [0u8; 100];
    std::fs::File::open(path)
        .ok()?
        .read_exact(&mut header)
        .ok()?;
    // A log may be large after an unclean end: only its headers and the first page's identity
    // are read, never the pages themselves.
    let mut log = std::fs::File::open(&wal).ok()?;
    let length = log.metadata().ok()?.len();
    let mut log_header = [0u8; 32];
    log.read_exact(&mut log_header).ok()?;
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    if !matches!(be(&log_header[0..4]), 0x377f_0682 | 0x377f_0683) {
        return None;
    }
    let file_page = match u16::from_be_bytes([header[16], header[17]]) {
        1 => 65_536,
        n => n as u64,
    };
    let log_page = u64::from(be(&log_header[8..12]));
    let another = |why: String| {
        Some(format!(
            "its write-ahead log {} is another database's ({why}); moving that file aside lets this one open",
            wal.display()
        ))
    };
    if log_page != file_page {
        return another(format!("pages of {log_page} bytes, not {file_page}"));
    }
    let identity = be(&header[68..72]);
    if identity == 0 {
        return None;
    }
    // The first page as the log's last committed transaction left it (an identity is set once
    // and never changed, so only the latest copy speaks for the log).
    let salts = &log_header[16..24];
    let (mut pending, mut committed) = (None, None);
    let mut at = 32u64;
    let mut frame = [0u8; 24];
    let mut id = [0u8; 4];
    while at + 24 + log_page <= length {
        log.seek(SeekFrom::Start(at)).ok()?;
        log.read_exact(&mut frame).ok()?;
        if &frame[8..16] != salts {
            break;
        }
        if be(&frame[0..4]) == 1 {
            log.seek(SeekFrom::Start(at + 24 + 68)).ok()?;
            log.read_exact(&mut id).ok()?;
            pending = Some(be(&id));
        }
        if be(&frame[4..8]) != 0 {
            committed = pending.or(committed);
        }
        at += 24 + log_page;
    }
    match committed {
        Some(theirs) if theirs != identity => another(format!(
            "its copy of the first page is file {theirs:08x}'s, not {identity:08x}'s"
        )),
        _ => None,
    }
}

/// Gives the database a file identity when it has none: a random number in its header's
/// application id, which a write-ahead log's copy of the first page carries, so a log from
/// another file is told apart ([`foreign_log`]). Never changed once set.
pub(crate) fn mark_identity(conn: &mut Connection) -> rusqlite::Result<()> {
    use sha2::Digest;
    let id: i64 = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
    if id != 0 {
        return Ok(());
    }
    // One writer at a time: two connections opening a new file give it one identity.
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let id: i64 = tx.pragma_query_value(None, "application_id", |r| r.get(0))?;
    if id != 0 {
        return Ok(());
    }
    let seed = format!(
        "{:?} {} {:?}",
        std::time::SystemTime::now(),
        std::process::id(),
        std::thread::current().id()
    );
    let digest = sha2::Sha256::digest(seed.as_bytes());
    let mut id = i32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]]);
    if id == 0 {
        id = 1;
    }
    tx.pragma_update(None, "application_id", id)?;
    tx.commit()
}

/// The markers this process left beside the files it opened, taken away when it exits.
static MARKERS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Whether the last process to have the database at `path` open ended without closing it: a
/// marker `<file>.open-<pid>` of a process no longer running is beside it (a process that
/// exits takes its marker away; one killed cannot). Such markers are taken away, and this
/// process's is put in their place.
pub(crate) fn opened_after_unclean_end(path: &Path) -> bool {
    if !path.is_file() {
        return false;
    }
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return false;
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let prefix = format!("{}.open-", name.to_string_lossy());
    let me = std::process::id();
    let mut unclean = false;
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let file = entry.file_name().to_string_lossy().to_string();
        let Some(pid) = file
            .strip_prefix(&prefix)
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != me && !running(pid) {
            unclean = true;
            let _ = std::fs::remove_file(entry.path());
        }
    }
    let mine = dir.join(format!("{prefix}{me}"));
    if std::fs::write(&mine, b"").is_ok() {
        MARKERS.lock().unwrap_or_else(|p| p.into_inner()).push(mine);
        take_markers_away_at_exit();
    }
    unclean
}

/// Whether process `pid` is running (a process of another user counts).
fn running(pid: u32) -> bool {
    #[cfg(unix)]
    {
        // Signal 0 asks only whether it could be sent: no such process is ESRCH.
        let sent = unsafe { libc::kill(pid as libc::pid_t, 0) };
        sent == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

fn take_markers_away_at_exit() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    extern "C" fn take_away() {
        if let Ok(markers) = MARKERS.lock() {
            for marker in markers.iter() {
                let _ = std::fs::remove_file(marker);
            }
        }
    }
    ONCE.call_once(|| {
        #[cfg(unix)]
        unsafe {
            libc::atexit(take_away);
        }
    });
}

/// The schema version a database file is at (SQLite's `user_version`, which the migrations
/// keep), read-only.
fn schema_of(path: &Path) -> Result<usize, StoreError> {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let v: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    Ok(v.max(0) as usize)
}

/// A consistent copy of the database at `db` in `target`, taken while other connections read
/// and write it (one read transaction: what was committed when it began), compacted, checked,
/// and put in place whole or not at all. The size of the copy in bytes.
pub fn backup(db: &Path, target: &Path) -> Result<u64, StoreError> {
    if target.exists() {
        return Err(StoreError::Open {
            path: target.to_path_buf(),
            message: "a file is already there; a backup never replaces one".into(),
        });
    }
    if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| StoreError::Open {
            path: dir.to_path_buf(),
            message: e.to_string(),
        })?;
    }
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    let partial = target.with_extension("partial");
    let _ = std::fs::remove_file(&partial);
    conn.execute("VACUUM INTO ?1", [partial.to_string_lossy().as_ref()])?;
    let found = check(&partial, true)?;
    if !found.is_empty() {
        let _ = std::fs::remove_file(&partial);
        return Err(StoreError::Damaged {
            path: db.to_path_buf(),
            problems: found,
        });
    }
    std::fs::rename(&partial, target).map_err(|e| StoreError::Open {
        path: target.to_path_buf(),
        message: e.to_string(),
    })?;
    Ok(std::fs::metadata(target).map(|m| m.len()).unwrap_or(0))
}

/// Whether the backup `from` can be put in a database's place: whole by SQLite's full check,
/// and of a schema this build can read.
pub fn restorable(from: &Path) -> Result<(), StoreError> {
    let found = check(from, true)?;
    if !found.is_empty() {
        return Err(StoreError::Damaged {
            path: from.to_path_buf(),
            problems: found,
        });
    }
    let known = crate::schema_version();
    let schema = schema_of(from)?;
    if schema > known {
        return Err(StoreError::NewerSchema {
            path: from.to_path_buf(),
            found: schema,
            known,
        });
    }
    Ok(())
}

/// Puts the backup `from` in the place of the database at `db`, after checking it in full and
/// that this build can read its schema; the file it replaces (its log written into it first)
/// is kept beside it as `<db>.replaced-<tag>`, whose path is returned (`None` when there was
/// no database yet). Only while no program has `db` open.
pub fn restore(from: &Path, db: &Path, tag: &str) -> Result<Option<PathBuf>, StoreError> {
    restorable(from)?;
    let staged = db.with_extension("restoring");
    std::fs::copy(from, &staged).map_err(|e| StoreError::Open {
        path: staged.clone(),
        message: e.to_string(),
    })?;
    let mut kept = None;
    if db.exists() {
        // The log's committed pages into the file, so the file kept is whole on its own.
        if let Ok(conn) = Connection::open(db) {
            let _ = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        }
        let aside = PathBuf::from(format!("{}.replaced-{tag}", db.display()));
        std::fs::rename(db, &aside).map_err(|e| StoreError::Open {
            path: db.to_path_buf(),
            message: e.to_string(),
        })?;
        for suffix in ["-wal", "-shm"] {
            let side = PathBuf::from(format!("{}{suffix}", db.display()));
            if side.exists() {
                let _ = std::fs::rename(&side, format!("{}{suffix}", aside.display()));
            }
        }
        kept = Some(aside);
    }
    std::fs::rename(&staged, db).map_err(|e| StoreError::Open {
        path: db.to_path_buf(),
        message: e.to_string(),
    })?;
    Ok(kept)
}

/// The copy taken before an upgrade of the database at `path` from schema `from`:
/// `backups/research-before-schema-<to>-<unix seconds>.sqlite3` beside it.
pub(crate) fn before_upgrade(path: &Path, from: usize) -> Result<PathBuf, StoreError> {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let folder = path
        .parent()
        .map(|d| d.join("backups"))
        .unwrap_or_else(|| PathBuf::from("backups"));
    let target = folder.join(format!(
        "research-before-schema-{}-from-{from}-{secs}.sqlite3",
        crate::schema_version()
    ));
    backup(path, &target)?;
    Ok(target)
}
