//! Backups of this machine's database and restoring one: a copy taken while runs write, in the
//! data folder's `backups/` unless another folder is named, and a restore that checks the copy
//! first and keeps the file it replaces. A shared PostgreSQL database is backed up on its
//! server (`pg_dump`), not here. API keys are in the keychain, never in the file.

use std::path::{Path, PathBuf};

use crate::{ApiError, ErrorCode, Studio};

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
            let keep = i < KEEP_DAILY || (weeks.len() < KEEP_WEEKLY && weeks.insert(week));
            if !keep {
                if let Err(e) = std::fs::remove_file(path) {
                    tracing::warn!("could not remove the old backup {}: {e}", path.display());
                }
            }
        }
        Ok(Some(target))
    }
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
    research_store::safety::restore(from, db, &stamp(now_ms)).map_err(storage_error)
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
