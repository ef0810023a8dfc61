//! Backups of this machine's database and restoring one: a copy taken while runs write, in the
//! data folder's `backups/` unless another folder is named, and a restore that checks the copy
//! first and keeps the file it replaces. A shared PostgreSQL database is backed up on its
//! server (`pg_dump`), not here. API keys are in the keychain, never in the file.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::{database, ApiError, ErrorCode, Studio};
use research_graph::{Clock, SystemClock};

/// The folder backups go to when none is named: `backups/` beside the database.
pub fn backup_folder(db: &Path) -> PathBuf {
    db.parent()
        .map(|d| d.join("backups"))
        .unwrap_or_else(|| PathBuf::from("backups"))
}

/// `YYYYMMDD-HHMMSS` (UTC) of `ms`: what backups and replaced files are named by.
pub fn stamp(ms: i64) -> String {
    let date = research_pipeline::report::date(ms).replace('-', "");
    let secs = ms.div_euclid(1000).rem_euclid(86_400);
    format!(
        "{date}-{:02}{:02}{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

fn storage_error(e: research_store::StoreError) -> ApiError {
    let code = match e {
        research_store::StoreError::Damaged { .. }
        | research_store::StoreError::NewerSchema { .. } => ErrorCode::InvalidInput,
        _ => ErrorCode::Storage,
    };
    ApiError::new(code, e.to_string())
}

impl Studio {
    /// Backs up this database into `folder` (the data folder's `backups/` when `None`) as
    /// `research-<stamp>.sqlite3`, consistent while runs write; the backup's path and size.
    pub fn backup(&self, folder: Option<&Path>) -> Result<(PathBuf, u64), ApiError> {
        if !self.storage().starts_with("SQLite") {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                format!(
                    "this is a shared database ({}): back it up on its server with pg_dump",
                    self.storage()
                ),
            ));
        }
        let folder = folder
            .map(Path::to_path_buf)
            .unwrap_or_else(|| backup_folder(self.db_path()));
        let target = folder.join(format!("research-{}.sqlite3", stamp(self.now_ms())));
        let bytes =
            research_store::safety::backup(self.db_path(), &target).map_err(storage_error)?;
        Ok((target, bytes))
    }
}

/// Daily backups the app keeps: the newest this many.
pub const KEEP_DAILY: usize = 7;

/// Weekly backups the app keeps besides the daily ones: the newest of each of this many weeks
/// before them.
pub const KEEP_WEEKLY: usize = 4;

/// How many of its own backups the app keeps (the `backups` setting); none are taken when both
/// are 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Rotation {
    /// The newest this many daily backups.
    pub daily: usize,
    /// Then the newest of each of this many weeks before them.
    pub weekly: usize,
}

impl Default for Rotation {
    fn default() -> Self {
        Self {
            daily: KEEP_DAILY,
            weekly: KEEP_WEEKLY,
        }
    }
}

impl std::fmt::Display for Rotation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_off() {
            write!(f, "off")
        } else {
            write!(f, "{},{}", self.daily, self.weekly)
        }
    }
}

impl Rotation {
    /// No automatic backups.
    pub fn is_off(&self) -> bool {
        self.daily == 0 && self.weekly == 0
    }

    /// The setting's text: `DAILY,WEEKLY`, `off`, or empty for the built-in rotation (`None`).
    pub fn parse(text: &str) -> Result<Option<Self>, ApiError> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(None);
        }
        if text.eq_ignore_ascii_case("off") || text.eq_ignore_ascii_case("none") {
            return Ok(Some(Self {
                daily: 0,
                weekly: 0,
            }));
        }
        let bad = || {
            ApiError::new(
                ErrorCode::InvalidInput,
                format!("backups: write DAILY,WEEKLY (e.g. 7,4), or off; not {text:?}"),
            )
        };
        let (d, w) = text.split_once(',').ok_or_else(bad)?;
        let n = |s: &str| s.trim().parse::<usize>().ok().filter(|n| *n <= 366);
        let rotation = Self {
            daily: n(d).ok_or_else(bad)?,
            weekly: n(w).ok_or_else(bad)?,
        };
        if rotation.daily == 0 && rotation.weekly > 0 {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                "backups: weekly backups are kept from the daily ones; keep at least one daily",
            ));
        }
        Ok(Some(rotation))
    }

    /// The rotation the settings ask for (the built-in one when unset or unreadable).
    pub fn of(settings: &crate::Settings) -> Self {
        settings
            .backups
            .as_deref()
            .and_then(|t| Self::parse(t).ok().flatten())
            .unwrap_or_default()
    }
}

/// The backups beside a database, as Settings shows them.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct BackupStatus {
    /// The folder they are kept in.
    pub folder: String,
    /// The newest backup, when there is one.
    pub newest: Option<BackupFile>,
    /// How many backups the folder holds (the app's own, a person's, the copies before an
    /// upgrade).
    pub count: usize,
    /// How many of its own the app keeps.
    pub rotation: Rotation,
    /// A restore asked for that is applied when the app next starts.
    pub pending: Option<PendingRestore>,
}

/// One backup file.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
pub struct BackupFile {
    /// Its path.
    pub path: String,
    /// When it was taken (ms since the epoch).
    pub taken_at_ms: i64,
    /// Its size.
    pub bytes: u64,
}

/// What the app's own backups are named with (a person's `research backup` never is, so the
/// rotation never removes one of theirs).
const AUTO: &str = "research-auto-";

/// A day in milliseconds.
const DAY_MS: i64 = 86_400_000;

/// Milliseconds since the epoch of a [`stamp`] (`YYYYMMDD-HHMMSS`, UTC).
fn stamp_ms(stamp: &str) -> Option<i64> {
    let (date, time) = stamp.split_once('-')?;
    let num = |s: &str| s.parse::<i64>().ok();
    let (y, m, d) = (
        num(date.get(0..4)?)?,
        num(date.get(4..6)?)?,
        num(date.get(6..8)?)?,
    );
    let (hh, mm, ss) = (
        num(time.get(0..2)?)?,
        num(time.get(2..4)?)?,
        num(time.get(4..6)?)?,
    );
    let days = research_pipeline::report::days_from_civil(y, m, d);
    Some(days * DAY_MS + (hh * 3600 + mm * 60 + ss) * 1000)
}

/// The app's own backups in `folder` with when each was taken, newest first.
fn automatic(folder: &Path) -> Vec<(i64, PathBuf)> {
    let mut found: Vec<(i64, PathBuf)> = std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_string();
            let stamp = name.strip_prefix(AUTO)?.strip_suffix(".sqlite3")?;
            Some((stamp_ms(stamp)?, p))
        })
        .collect();
    found.sort_by(|a, b| b.cmp(a));
    found
}

impl Studio {
    /// The app's daily backup: taken when the newest of its own is a day old or more (or there
    /// is none), then the rotation — the newest [`KEEP_DAILY`], and the newest of each of the
    /// [`KEEP_WEEKLY`] weeks before them; older ones of its own are removed, a person's own
    /// backups and the copies taken before an upgrade never are. The backup taken, if one was.
    pub fn backup_if_due(&self) -> Result<Option<PathBuf>, ApiError> {
        if !self.storage().starts_with("SQLite") {
            return Ok(None);
        }
        let rotation = Rotation::of(&self.settings()?);
        if rotation.is_off() {
            return Ok(None);
        }
        let folder = backup_folder(self.db_path());
        let now = self.now_ms();
        let newest = automatic(&folder).first().map(|(at, _)| *at);
        if newest.is_some_and(|at| now - at < DAY_MS) {
            return Ok(None);
        }
        let target = folder.join(format!("{AUTO}{}.sqlite3", stamp(now)));
        research_store::safety::backup(self.db_path(), &target).map_err(storage_error)?;
        let kept = automatic(&folder);
        let mut weeks = std::collections::BTreeSet::new();
        for (i, (at, path)) in kept.iter().enumerate() {
            let week = at.div_euclid(7 * DAY_MS);
            let keep = i < rotation.daily || (weeks.len() < rotation.weekly && weeks.insert(week));
            if !keep {
                if let Err(e) = std::fs::remove_file(path) {
                    tracing::warn!("could not remove the old backup {}: {e}", path.display());
                }
            }
        }
        Ok(Some(target))
    }

    /// The backups beside this database: where, the newest and how many, and the rotation kept.
    pub fn backup_status(&self) -> Result<BackupStatus, ApiError> {
        let folder = backup_folder(self.db_path());
        let found = backups(&folder);
        let newest = found.first().map(|p| {
            let meta = std::fs::metadata(p).ok();
            let modified = meta
                .as_ref()
                .and_then(|m| m.modified().ok())
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_millis() as i64);
            BackupFile {
                path: p.display().to_string(),
                taken_at_ms: modified,
                bytes: meta.map_or(0, |m| m.len()),
            }
        });
        Ok(BackupStatus {
            folder: folder.display().to_string(),
            newest,
            count: found.len(),
            rotation: Rotation::of(&self.settings()?),
            pending: pending_restore(self.db_path()),
        })
    }
}

/// A restore asked for while the database is open: the backup replaces it when it is next
/// opened (the app restarts for it), before anything reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct PendingRestore {
    /// The backup.
    pub from: String,
    /// When it was asked for, ms since the epoch.
    pub asked_at_ms: i64,
}

/// What a restore applied at start did: the backup in place and the file it replaced kept, or
/// why not (the database was then opened as it was).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Restored {
    /// The backup.
    pub from: String,
    /// Where the file it replaced is kept, when it was put in place.
    pub kept: Option<String>,
    /// Why it was not put in place, when it was not.
    pub problem: Option<String>,
}

/// Where a pending restore of `db` is written down.
fn pending_file(db: &Path) -> PathBuf {
    PathBuf::from(format!("{}.restore-pending", db.display()))
}

/// The restore pending for the database `db`, if one is.
pub fn pending_restore(db: &Path) -> Option<PendingRestore> {
    let text = std::fs::read_to_string(pending_file(db)).ok()?;
    serde_json::from_str(&text).ok()
}

/// Applies the restore pending for `db`, if one is, while nothing has the file open: the
/// backup in place (checked in full again) and the file it replaces kept beside it. Tried
/// once: a backup that cannot be put in place leaves the database as it was, and says why.
pub(crate) fn apply_pending_restore(db: &Path, now_ms: i64) -> Option<Restored> {
    let marker = pending_file(db);
    if !marker.exists() {
        return None;
    }
    let pending = pending_restore(db);
    let _ = std::fs::remove_file(&marker);
    let Some(pending) = pending else {
        return Some(Restored {
            from: String::new(),
            kept: None,
            problem: Some(format!(
                "the restore asked for could not be read from {}",
                marker.display()
            )),
        });
    };
    let done = restore(db, Path::new(&pending.from), now_ms);
    if let Err(e) = &done {
        tracing::error!("the restore asked for was not done: {}", e.message);
    }
    Some(Restored {
        kept: done
            .as_ref()
            .ok()
            .and_then(|kept| kept.as_ref())
            .map(|p| p.display().to_string()),
        problem: done.err().map(|e| e.message),
        from: pending.from,
    })
}

impl Studio {
    /// Asks for the backup `from` to replace this database when it is next opened (the app
    /// restarts for it): checked now, so a damaged backup or a newer build's is refused at once
    /// and nothing is asked. This machine's file only.
    pub fn restore_at_next_start(&self, from: &Path) -> Result<PendingRestore, ApiError> {
        if !self.storage().starts_with("SQLite") {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                format!(
                    "this is a shared database ({}): restore it on its server",
                    self.storage()
                ),
            ));
        }
        if !from.is_file() {
            return Err(ApiError::new(
                ErrorCode::NotFound,
                format!("there is no backup at {}", from.display()),
            ));
        }
        research_store::safety::restorable(from).map_err(storage_error)?;
        let from = from.canonicalize().unwrap_or_else(|_| from.to_path_buf());
        let pending = PendingRestore {
            from: from.display().to_string(),
            asked_at_ms: self.now_ms(),
        };
        let text = serde_json::to_string(&pending).unwrap_or_default();
        std::fs::write(pending_file(self.db_path()), text).map_err(|e| {
            ApiError::new(
                ErrorCode::Storage,
                format!("the restore could not be written down: {e}"),
            )
        })?;
        Ok(pending)
    }

    /// Takes back a restore asked for and not yet applied; false when none was pending.
    pub fn cancel_pending_restore(&self) -> Result<bool, ApiError> {
        match std::fs::remove_file(pending_file(self.db_path())) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(ApiError::new(ErrorCode::Storage, e.to_string())),
        }
    }
}

/// Checks the whole database file at `db` with SQLite's full integrity check, read-only (the
/// check at every start is the quick one): the problems found, none when it is sound.
pub fn check_whole(db: &Path) -> Result<Vec<String>, ApiError> {
    if !db.is_file() {
        return Err(ApiError::new(
            ErrorCode::NotFound,
            format!("there is no database at {}", db.display()),
        ));
    }
    research_store::safety::check(db, true).map_err(storage_error)
}

/// The backups in `folder` (those `research backup` takes and the copies taken before an
/// upgrade), newest first.
pub fn backups(folder: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("research-") && n.ends_with(".sqlite3"))
        })
        .collect();
    let taken = |p: &PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    found.sort_by_key(|p| std::cmp::Reverse((taken(p), p.clone())));
    found
}

/// Puts the backup `from` in the place of the database `db` (no program may have it open):
/// checked in full first, refused when damaged or written by a newer build; the file it
/// replaces is kept beside it, named with `now_ms`, and its path returned.
pub fn restore(db: &Path, from: &Path, now_ms: i64) -> Result<Option<PathBuf>, ApiError> {
    if !from.is_file() {
        return Err(ApiError::new(
            ErrorCode::NotFound,
            format!("there is no backup at {}", from.display()),
        ));
    }
    // The library's approximate vector index is this database's: its passage ids are not the
    // backup's. Deleted first, so no crash leaves it beside the backup.
    let vectors = crate::meaning::vector_folder_root(db);
    if vectors.exists() {
        std::fs::remove_dir_all(&vectors).map_err(|e| {
            ApiError::new(
                ErrorCode::Storage,
                format!(
                    "the library's vector index at {} could not be deleted before the restore: {e}",
                    vectors.display()
                ),
            )
        })?;
    }
    research_store::safety::restore(from, db, &stamp(now_ms)).map_err(storage_error)
}

/// Opening around a restore, and a damaged file opened to read only.
impl Studio {
    /// Opens the database file at `path` to read what can still be read, writing nothing to it:
    /// a damaged file's sessions, saved as session files ([`Studio::salvage_sessions`]) before
    /// it is replaced by a backup.
    pub fn open_read_only(path: &Path) -> Result<Self, ApiError> {
        if !path.is_file() {
            return Err(ApiError::new(
                ErrorCode::NotFound,
                format!("there is no database at {}", path.display()),
            ));
        }
        let stores = database::open_read_only(path)?;
        Ok(Self::on(path.to_path_buf(), stores))
    }

    /// Applies the restore the person asked for before the database is opened, when it is this
    /// machine's file and one is pending.
    pub(crate) fn restore_pending(path: &Path) -> Option<Restored> {
        if database::shared_address(path).ok().flatten().is_some() {
            return None;
        }
        apply_pending_restore(path, SystemClock.now_ms())
    }

    pub(crate) fn with_restored(mut self, restored: Option<Restored>) -> Self {
        self.restored = restored;
        self
    }

    /// What the restore asked for at the last start did, when one was pending as this
    /// database was opened.
    pub fn restored(&self) -> Option<&Restored> {
        self.restored.as_ref()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn stamps_name_backups_in_time_order() {
        assert_eq!(super::stamp(0), "19700101-000000");
        assert_eq!(super::stamp(1_795_891_103_189), "20261128-183823");
        for ms in [0, 1_795_891_103_000, 951_782_400_000, 4_107_542_399_000] {
            assert_eq!(super::stamp_ms(&super::stamp(ms)), Some(ms), "{ms}");
        }
    }
}
