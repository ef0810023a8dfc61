//! The app's daily backups over forty days: one a day at most, the newest seven and one for
//! each of four weeks before them kept, and a person's own backups never touched.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use research_api::Studio;

struct Hands(AtomicI64);

impl research_graph::Clock for Hands {
    fn now_ms(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
}

const DAY: i64 = 86_400_000;

#[test]
fn daily_backups_rotate_and_a_persons_own_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("studio.sqlite3");
    let t0: i64 = 1_800_000_000_000;
    let clock = Arc::new(Hands(AtomicI64::new(t0)));
    let studio = Studio::open(Some(&db)).unwrap().with_clock(clock.clone());
    // A person's own backup, and the first automatic one.
    let (own, _) = studio.backup(None).unwrap();
    let first = studio
        .backup_if_due()
        .unwrap()
        .expect("none yet: one is taken");
    assert!(first
        .file_name()
        .unwrap()
        .to_string_lossy()
        .starts_with("research-auto-"));
    // Within the day, none more.
    clock.0.store(t0 + DAY / 2, Ordering::SeqCst);
    assert!(studio.backup_if_due().unwrap().is_none());
    for day in 1..=40 {
        clock.0.store(t0 + day * DAY, Ordering::SeqCst);
        assert!(studio.backup_if_due().unwrap().is_some(), "day {day}");
    }
    let folder = research_api::backups::backup_folder(&db);
    let names: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    let auto = names
        .iter()
        .filter(|n| n.starts_with("research-auto-"))
        .count();
    assert_eq!(
        auto,
        research_api::backups::KEEP_DAILY + research_api::backups::KEEP_WEEKLY,
        "{names:?}"
    );
    assert!(own.is_file(), "a person's own backup is never rotated away");
    // The newest is today's, and every one kept is sound.
    let newest = research_api::backups::backups(&folder);
    assert!(!newest.is_empty());
    for b in newest {
        assert!(research_store::safety::check(&b, false).unwrap().is_empty());
    }
}

/// Issue 56: the rotation is the person's to choose (the `backups` setting), off takes none,
/// and Settings is told where the backups are, the newest and how many.
#[test]
fn the_rotation_is_configurable_and_settings_sees_the_newest_backup() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("studio.sqlite3");
    let t0: i64 = 1_800_000_000_000;
    let clock = Arc::new(Hands(AtomicI64::new(t0)));
    let studio = Studio::open(Some(&db)).unwrap().with_clock(clock.clone());
    let set = |value: &str| {
        let mut settings = studio.settings().unwrap();
        settings.set("backups", value).unwrap();
        settings.save(&studio.settings_path()).unwrap();
    };
    let status = studio.backup_status().unwrap();
    assert_eq!((status.count, status.newest.is_none()), (0, true));
    assert_eq!(status.rotation.daily, research_api::backups::KEEP_DAILY);
    set("2,1");
    for day in 0..=20 {
        clock.0.store(t0 + day * DAY, Ordering::SeqCst);
        assert!(studio.backup_if_due().unwrap().is_some(), "day {day}");
    }
    let status = studio.backup_status().unwrap();
    assert_eq!(status.count, 3, "two daily and one weekly: {status:?}");
    assert_eq!((status.rotation.daily, status.rotation.weekly), (2, 1));
    let newest = status.newest.expect("a newest backup");
    assert!(newest.bytes > 0 && newest.path.contains("research-auto-"));
    // Off: none taken, none removed.
    set("off");
    clock.0.store(t0 + 30 * DAY, Ordering::SeqCst);
    assert!(studio.backup_if_due().unwrap().is_none());
    assert_eq!(studio.backup_status().unwrap().count, 3);
    // A value that says nothing clear is refused, naming the form.
    let mut settings = studio.settings().unwrap();
    let err = settings.set("backups", "weekly").unwrap_err();
    assert!(err.message.contains("DAILY,WEEKLY"), "{}", err.message);
    assert!(settings.set("backups", "0,3").is_err());
}
