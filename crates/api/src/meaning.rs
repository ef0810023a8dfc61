//! The library by meaning: how far indexing is and at what rate (worded here once for the
//! command line and the app), and where its approximate vector index is kept.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Progress of indexing the library by meaning.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct EmbedProgress {
    /// Passages embedded so far.
    #[ts(type = "number")]
    pub done: u64,
    /// Passages to embed in this pass.
    #[ts(type = "number")]
    pub total: u64,
    /// Passages a second so far in this pass.
    pub per_second: f64,
    /// The time left at that rate, in words ("about 12 min").
    pub left: String,
}

impl EmbedProgress {
    /// `done` of `total` after `secs` of this pass.
    pub fn after(done: usize, total: usize, secs: f64) -> Self {
        let per_second = match secs > 0.0 {
            true => done as f64 / secs,
            false => 0.0,
        };
        let left = match per_second > 0.0 {
            true => time_left(total.saturating_sub(done) as f64 / per_second),
            false => String::new(),
        };
        Self {
            done: done as u64,
            total: total as u64,
            per_second: (per_second * 10.0).round() / 10.0,
            left,
        }
    }
}

/// A time left in words: "under a minute", "about 12 min", "about 1 h 05 min".
pub fn time_left(secs: f64) -> String {
    let minutes = (secs / 60.0).round() as u64;
    match minutes {
        0 => "under a minute".to_string(),
        1..=59 => format!("about {minutes} min"),
        _ => format!("about {} h {:02} min", minutes / 60, minutes % 60),
    }
}

/// Where the library's approximate vector indexes of the database at `db` are kept: a folder
/// beside it (a cache, rebuilt whenever it is missing; not backed up).
pub(crate) fn vector_folder_root(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(".vectors");
    PathBuf::from(name)
}

/// The folder for one place the records are (this file, or a team's server), so an index made
/// from one database never serves another.
pub(crate) fn vector_folder(db: &Path, storage: &str) -> PathBuf {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(storage.as_bytes());
    let short: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    vector_folder_root(db).join(short)
}

#[cfg(test)]
mod tests {
    use super::{time_left, EmbedProgress};

    #[test]
    fn time_left_reads_as_words() {
        assert_eq!(time_left(20.0), "under a minute");
        assert_eq!(time_left(12.0 * 60.0), "about 12 min");
        assert_eq!(time_left(65.0 * 60.0), "about 1 h 05 min");
    }

    #[test]
    fn the_rate_and_the_time_left_come_from_the_pass_so_far() {
        let p = EmbedProgress::after(300, 3_300, 1.0);
        assert_eq!((p.done, p.total, p.per_second), (300, 3_300, 300.0));
        assert_eq!(p.left, "under a minute");
        let p = EmbedProgress::after(1000, 1_000_000, 10.0);
        assert_eq!(p.left, "about 2 h 47 min");
        assert_eq!(EmbedProgress::after(0, 10, 0.0).left, "");
    }
}
