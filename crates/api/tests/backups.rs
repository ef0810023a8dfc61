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

/// A restore asked for while the database is open (Settings → Backups) is applied when it is
/// next opened: the backup in place, the file it replaced kept, said once; a damaged backup is
/// refused when asked, and one gone by the next start leaves the database as it was.
#[test]
fn a_restore_asked_for_while_open_is_applied_at_the_next_start() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("studio.sqlite3");
    let studio = Studio::open(Some(&db)).unwrap();
    let add = |id: &str, at: i64| {
        use research_store::SessionStore;
        research_store::SqliteSessions::open(&db)
            .unwrap()
            .create(&research_store::conformance::session(id, id, at))
            .unwrap();
    };
    add("before", 1);
    let (backup, _) = studio.backup(None).unwrap();
    add("after", 2);

    // Damaged or missing backups are refused at once; nothing is pending.
    let junk = dir.path().join("junk.sqlite3");
    std::fs::write(&junk, b"not a database at all").unwrap();
    assert!(studio.restore_at_next_start(&junk).is_err());
    assert!(studio
        .restore_at_next_start(&dir.path().join("gone.sqlite3"))
        .is_err());
    assert!(studio.backup_status().unwrap().pending.is_none());

    let pending = studio.restore_at_next_start(&backup).unwrap();
    assert_eq!(studio.backup_status().unwrap().pending, Some(pending));
    // Still the database as it is until the next start.
    assert_eq!(studio.list_sessions(None).unwrap().len(), 2);
    drop(studio);

    let reopened = Studio::open(Some(&db)).unwrap();
    let restored = reopened
        .restored()
        .expect("the restore was applied")
        .clone();
    assert_eq!(restored.problem, None);
    let kept = restored.kept.expect("the file replaced is kept");
    assert!(std::path::Path::new(&kept).is_file(), "{kept}");
    let titles: Vec<String> = reopened
        .list_sessions(None)
        .unwrap()
        .into_iter()
        .map(|s| s.title)
        .collect();
    assert_eq!(
        titles,
        ["before"],
        "the backup's sessions, not the later one"
    );
    assert!(reopened.backup_status().unwrap().pending.is_none());
    drop(reopened);
    // Said once: the next start has nothing to apply.
    assert!(Studio::open(Some(&db)).unwrap().restored().is_none());

    // Asked for, then the backup went away: the database opens as it was, and says why.
    let studio = Studio::open(Some(&db)).unwrap();
    let (second, _) = studio.backup(Some(&dir.path().join("elsewhere"))).unwrap();
    studio.restore_at_next_start(&second).unwrap();
    drop(studio);
    std::fs::remove_file(&second).unwrap();
    let opened = Studio::open(Some(&db)).unwrap();
    let restored = opened.restored().unwrap();
    assert!(restored.kept.is_none());
    assert!(
        restored.problem.as_deref().unwrap().contains("no backup"),
        "{restored:?}"
    );
    assert_eq!(opened.list_sessions(None).unwrap().len(), 1);

    // Taken back before a restart: nothing happens.
    opened.restore_at_next_start(&backup).unwrap();
    assert!(opened.cancel_pending_restore().unwrap());
    assert!(!opened.cancel_pending_restore().unwrap());
}
