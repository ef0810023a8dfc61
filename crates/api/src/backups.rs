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
    }
}
