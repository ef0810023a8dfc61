//! Another process writing to the database must not stall this one's runtime: an api call that
//! has to wait for the write lock waits off the runtime's workers, so the rest of the process
//! (here, the task that lets the other writer finish) goes on meanwhile.

use std::sync::mpsc;
use std::time::Duration;

use research_api::{MemoryKeys, ResearchRequest, RunConfig, Studio, TurnKind};

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_call_waiting_for_another_writer_does_not_hold_the_runtime() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("studio.sqlite3");
    let studio = Studio::open(Some(&db)).unwrap();
    // Never run: the session only needs a model that could be.
    let script = dir.path().join("script.json");
    std::fs::write(&script, "[]").unwrap();
    let (session, _) = studio
        .start_research(&ResearchRequest {
            question: "How do honeybees find flowers?".into(),
            config: RunConfig {
                models: research_api::ModelRouting::single(format!(
                    "scripted:{}",
                    script.display()
                )),
                search: vec!["wikipedia".into()],
                ..RunConfig::default()
            },
            ..Default::default()
        })
        .unwrap();

    // "Another process": a connection of its own holds the write lock until told to let go.
    let (release, released) = mpsc::channel::<()>();
    let (locked, is_locked) = mpsc::channel::<()>();
    let other = std::thread::spawn({
        let db = db.clone();
        move || {
            let mut conn = rusqlite::Connection::open(&db).unwrap();
            let tx = conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .unwrap();
            locked.send(()).unwrap();
            released.recv().unwrap();
            tx.commit().unwrap();
        }
    });
    is_locked.recv().unwrap();

    // The call's first write waits for the lock on the runtime's only worker...
    let asking = tokio::spawn({
        let studio = studio.clone();
        async move {
            studio
                .ask_in_session(
                    &session,
                    "And how far do they fly?",
                    Some(TurnKind::FollowUp),
                    None,
                    &MemoryKeys::default(),
                )
                .await
        }
    });
    std::thread::sleep(Duration::from_millis(300));
    // ...and this task, which lets the other writer finish, must still get to run. Were the
    // worker held, it would run only after the store's busy timeout had failed the call.
    tokio::spawn(async move { release.send(()).unwrap() });

    let turn = asking
        .await
        .unwrap()
        .expect("the call waited for the lock, then wrote");
    assert!(turn.thread_id.is_some(), "{turn:?}");
    other.join().unwrap();
}
