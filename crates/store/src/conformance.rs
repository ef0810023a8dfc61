//! One conformance suite for every [`SessionStore`] and [`ThreadStore`]: the same checks run
//! against SQLite here and against PostgreSQL in `research-postgres`.
//!
//! Use [`store_conformance!`](crate::store_conformance) in a test module with an expression that
//! makes a fresh, empty [`Database`]; it writes one `#[test]` per check. A check that needs two
//! processes opens the database twice.

use std::sync::Arc;

use crate::{
    ClaimRow, ConversationSummary, EvidenceRow, ModelCounts, ModelRunRow, Schedule, SessionRecord,
    SessionStatus, SessionStore, SourceRow, ThreadRecord, ThreadStore, TurnRow,
};

/// A fresh database the checks open stores on; each `open` is another connection to it, as
/// another process would have.
pub trait Database {
    /// The sessions store, on a new connection.
    fn sessions(&self) -> Arc<dyn SessionStore>;
    /// The thread registry, on a new connection.
    fn threads(&self) -> Arc<dyn ThreadStore>;
}

/// A session record for the checks.
pub fn session(id: &str, title: &str, at: i64) -> SessionRecord {
    SessionRecord {
        id: id.into(),
        title: title.into(),
        question: format!("{title}?"),
        config: serde_json::json!({"mode": "single"}),
        status: SessionStatus::Running,
        created_at_ms: at,
        updated_at_ms: at,
        checked_at_ms: None,
    }
}

fn source(id: u32, sha256: &str, at: i64) -> SourceRow {
    SourceRow {
        source_id: id,
        url: format!("https://example.org/{id}"),
        title: format!("Page {id}"),
        kind: "web".into(),
        sha256: sha256.into(),
        accessed_at_ms: at,
        // Every other source with what a citation style needs, so both kinds are read back.
        citation: (id % 2 == 1).then(|| research_cite::Citation {
            authors: vec![research_cite::Name::parse("Hipp, D. Richard").unwrap()],
            issued: Some("2024-03".into()),
            doi: Some("10.1/x".into()),
            ..Default::default()
        }),
    }
}

/// Sessions are listed newest first, found by their words (wildcards literal), renamed, given a
/// status and a checked time, and deleted with every row they produced and texts no one uses.
pub fn sessions_list_search_rename_and_delete(db: &dyn Database) {
    let s = db.sessions();
    s.create(&session("a", "Rust memory", 1)).unwrap();
    s.create(&session("b", "100% organic_food", 2)).unwrap();
    assert_eq!(s.list(None).unwrap()[0].id, "b");
    assert_eq!(s.list(Some("memory")).unwrap().len(), 1);
    assert_eq!(
        s.list(Some("%")).unwrap().len(),
        1,
        "LIKE wildcards are literal"
    );
    assert_eq!(s.list(Some("t_m")).unwrap().len(), 0, "so is _");
    assert!(s.rename("a", "Ownership", 3).unwrap());
    assert!(!s.rename("zzz", "x", 3).unwrap());
    assert_eq!(s.list(None).unwrap()[0].id, "a", "renaming moves it up");
    s.set_status("a", SessionStatus::Waiting, 4).unwrap();
    s.set_checked("a", 4).unwrap();
    let a = s.get("a").unwrap().unwrap();
    assert_eq!(
        (a.title.as_str(), a.status, a.checked_at_ms, a.updated_at_ms),
        ("Ownership", SessionStatus::Waiting, Some(4), 4)
    );
    assert_eq!(a.config, serde_json::json!({"mode": "single"}));
    assert!(s.get("zzz").unwrap().is_none());

    s.add_run("a", "t-a", "Rust memory?", 4).unwrap();
    s.add_run("a", "t-a2", "And borrowing?", 5).unwrap();
    assert_eq!(
        s.runs("a").unwrap(),
        vec![
            ("t-a".to_string(), "Rust memory?".to_string()),
            ("t-a2".to_string(), "And borrowing?".to_string())
        ]
    );
    let sha = s.put_document("page text", 4).unwrap();
    assert_eq!(s.put_document("page text", 5).unwrap(), sha, "stored once");
    assert_eq!(s.document(&sha).unwrap().as_deref(), Some("page text"));
    s.save_findings(
        "a",
        "t-a",
        &[source(2, &sha, 4), source(1, &sha, 4)],
        &[EvidenceRow {
            evidence_id: 1,
            source_id: 1,
            fact: "f".into(),
            quote: "page text".into(),
        }],
        &[
            ClaimRow {
                evidence_id: 1,
                text: "second".into(),
                supported: false,
            },
            ClaimRow {
                evidence_id: 1,
                text: "first".into(),
                supported: true,
            },
        ],
    )
    .unwrap();
    let ids: Vec<u32> = s
        .sources("t-a")
        .unwrap()
        .iter()
        .map(|r| r.source_id)
        .collect();
    assert_eq!(ids, vec![1, 2]);
    assert_eq!(s.sources("t-a").unwrap()[0], source(1, &sha, 4));
    assert_eq!(s.sources("t-a").unwrap()[1], source(2, &sha, 4));
    assert_eq!(s.evidence("t-a").unwrap().len(), 1);
    let claims = s.claims("t-a").unwrap();
    assert_eq!(
        (claims[0].text.as_str(), claims[0].supported),
        ("second", false)
    );
    assert_eq!(
        (claims[1].text.as_str(), claims[1].supported),
        ("first", true)
    );
    // Saving again replaces.
    s.save_findings("a", "t-a", &[source(1, &sha, 4)], &[], &[])
        .unwrap();
    assert_eq!(s.sources("t-a").unwrap().len(), 1);
    assert!(s.evidence("t-a").unwrap().is_empty() && s.claims("t-a").unwrap().is_empty());

    assert_eq!(
        s.add_report("a", "t-a", "# R", &serde_json::json!({"model": "m"}), 5)
            .unwrap(),
        1
    );
    assert_eq!(
        s.add_report("a", "t-a", "# R2", &serde_json::json!({}), 6)
            .unwrap(),
        2
    );
    assert_eq!(
        s.add_report("a", "t-a2", "# S", &serde_json::json!({}), 7)
            .unwrap(),
        1
    );
    let reports = s.reports("a").unwrap();
    assert_eq!(reports.len(), 3);
    assert_eq!(reports[0].provenance, serde_json::json!({"model": "m"}));
    assert_eq!(
        (reports[1].markdown.as_str(), reports[1].version),
        ("# R2", 2)
    );
    s.add_event("a", "t-a", 5, "node", &serde_json::json!({"n": 1}))
        .unwrap();
    s.add_event("a", "t-a", 5, "node", &serde_json::json!({"n": 2}))
        .unwrap();
    let events = s.events("t-a").unwrap();
    assert_eq!(events.len(), 2);
    assert_eq!(
        events[1],
        (5, "node".to_string(), serde_json::json!({"n": 2}))
    );
    s.add_call("t-a", &serde_json::json!({"role": "planner"}))
        .unwrap();
    assert_eq!(
        s.calls("t-a").unwrap(),
        vec![serde_json::json!({"role": "planner"})]
    );
    assert_eq!(s.session_of("t-a").unwrap().as_deref(), Some("a"));
    assert_eq!(s.session_of("nope").unwrap(), None);

    s.set_status("a", SessionStatus::Finished, 8).unwrap();
    assert!(s.delete("a").unwrap());
    assert!(s.get("a").unwrap().is_none());
    assert!(s.runs("a").unwrap().is_empty());
    assert!(s.sources("t-a").unwrap().is_empty());
    assert!(s.reports("a").unwrap().is_empty());
    assert!(s.events("t-a").unwrap().is_empty());
    assert!(s.calls("t-a").unwrap().is_empty());
    assert!(
        s.document(&sha).unwrap().is_none(),
        "an orphaned text is removed"
    );
    assert!(!s.delete("a").unwrap());
    assert_eq!(s.list(None).unwrap().len(), 1);
}

/// Deleting a session keeps the texts a running run has read (it saves its sources only at the
/// end) and removes older orphans; once nothing runs, they go too.
pub fn deleting_keeps_the_texts_a_running_run_read(db: &dyn Database) {
    let s = db.sessions();
    s.create(&session("done", "Finished", 1)).unwrap();
    s.set_status("done", SessionStatus::Finished, 1).unwrap();
    s.add_run("done", "t-done", "Q?", 1).unwrap();
    let shared = s.put_document("a page both read", 1).unwrap();
    s.save_findings("done", "t-done", &[source(1, &shared, 1)], &[], &[])
        .unwrap();
    let orphan = s.put_document("read by nobody now", 2).unwrap();
    s.create(&session("live", "Running", 10)).unwrap();
    s.set_status("live", SessionStatus::Running, 10).unwrap();
    s.add_run("live", "t-live", "Q2?", 10).unwrap();
    s.put_document("a page both read", 11).unwrap();
    let own = s
        .put_document("only the live run has read this", 12)
        .unwrap();
    assert!(s.delete("done").unwrap());
    assert!(
        s.document(&shared).unwrap().is_some(),
        "the live run's read page went"
    );
    assert!(
        s.document(&own).unwrap().is_some(),
        "the live run's own page went"
    );
    assert!(
        s.document(&orphan).unwrap().is_none(),
        "an older orphan stays"
    );
    s.set_status("live", SessionStatus::Finished, 20).unwrap();
    s.create(&session("other", "Other", 21)).unwrap();
    assert!(s.delete("other").unwrap());
    assert!(s.document(&own).unwrap().is_none());
}

/// Deleting a session deletes its threads' checkpoints and registry rows too.
pub fn deleting_a_session_deletes_its_threads(db: &dyn Database) {
    let s = db.sessions();
    let threads = db.threads();
    s.create(&session("a", "A", 1)).unwrap();
    s.add_run("a", "t-a", "A?", 1).unwrap();
    threads
        .insert(&ThreadRecord {
            thread_id: "t-a".into(),
            graph: "standard".into(),
            config: serde_json::json!({}),
            created_at_ms: 1,
        })
        .unwrap();
    assert!(s.delete("a").unwrap());
    assert!(threads.get("t-a").unwrap().is_none());
}

/// A run is claimed by one process at a time and taken over when its process died; only its
/// holder lets it go.
pub fn a_run_is_claimed_by_one_process(db: &dyn Database) {
    let s = db.sessions();
    s.create(&session("a", "Rust memory", 1)).unwrap();
    s.add_run("a", "t", "Rust memory?", 2).unwrap();
    let alive = |_: &str| false;
    let dead = |_: &str| true;
    assert!(s.claim_runner("t", "app", &alive).unwrap());
    assert!(s.claim_runner("t", "app", &alive).unwrap(), "its own again");
    assert!(
        !s.claim_runner("t", "mcp", &alive).unwrap(),
        "the app runs it"
    );
    s.release_runner("t", "mcp").unwrap();
    assert_eq!(
        s.runner("t").unwrap().as_deref(),
        Some("app"),
        "not the MCP's to release"
    );
    assert!(
        !s.swap_runner("t", None, "cli").unwrap(),
        "a stale expectation"
    );
    assert!(s.claim_runner("t", "mcp", &dead).unwrap());
    s.release_runner("t", "mcp").unwrap();
    assert_eq!(s.runner("t").unwrap(), None);
}

/// Of eight processes claiming one run at once, exactly one gets it.
pub fn one_of_many_claims_wins(db: &dyn Database) {
    let s = db.sessions();
    s.create(&session("a", "A", 1)).unwrap();
    s.add_run("a", "t", "A?", 1).unwrap();
    let stores: Vec<Arc<dyn SessionStore>> = (0..8).map(|_| db.sessions()).collect();
    let won: usize = std::thread::scope(|scope| {
        let handles: Vec<_> = stores
            .iter()
            .enumerate()
            .map(|(i, store)| {
                scope.spawn(move || {
                    store
                        .claim_runner("t", &format!("p{i}"), &|_| false)
                        .unwrap() as usize
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    });
    assert_eq!(won, 1);
}

/// Writers on several connections at once lose no write: events, calls and report versions
/// (numbered without a gap or a twin).
pub fn concurrent_writers_lose_nothing(db: &dyn Database) {
    let s = db.sessions();
    s.create(&session("a", "A", 1)).unwrap();
    s.add_run("a", "t", "A?", 1).unwrap();
    let stores: Vec<Arc<dyn SessionStore>> = (0..4).map(|_| db.sessions()).collect();
    std::thread::scope(|scope| {
        for (i, store) in stores.iter().enumerate() {
            scope.spawn(move || {
                for j in 0..10 {
                    let n = (i * 10 + j) as i64;
                    store
                        .add_event("a", "t", n, "step", &serde_json::json!(n))
                        .unwrap();
                    store.add_call("t", &serde_json::json!(n)).unwrap();
                    store
                        .add_report("a", "t", "# R", &serde_json::json!({}), n)
                        .unwrap();
                }
            });
        }
    });
    assert_eq!(s.events("t").unwrap().len(), 40);
    assert_eq!(s.calls("t").unwrap().len(), 40);
    let mut versions: Vec<u32> = s.reports("a").unwrap().iter().map(|r| r.version).collect();
    versions.sort();
    assert_eq!(versions, (1..=40).collect::<Vec<u32>>());
}

/// Caches answer within their age, per provider, query and count, and replace older answers.
pub fn caches_expire(db: &dyn Database) {
    let s = db.sessions();
    s.cache_search("brave", "q", 5, &serde_json::json!([1]), 1_000)
        .unwrap();
    assert!(s
        .cached_search("brave", "q", 5, 1_500, 1_000)
        .unwrap()
        .is_some());
    assert!(s
        .cached_search("brave", "q", 5, 3_000, 1_000)
        .unwrap()
        .is_none());
    assert!(s
        .cached_search("brave", "q", 6, 1_500, 1_000)
        .unwrap()
        .is_none());
    assert!(s
        .cached_search("tavily", "q", 5, 1_500, 1_000)
        .unwrap()
        .is_none());
    s.cache_search("brave", "q", 5, &serde_json::json!([2]), 2_500)
        .unwrap();
    assert_eq!(
        s.cached_search("brave", "q", 5, 3_000, 1_000).unwrap(),
        Some(serde_json::json!([2]))
    );
    s.cache_page(
        "https://x",
        &serde_json::json!({"title": "X"}),
        "text",
        1_000,
    )
    .unwrap();
    let (meta, text) = s.cached_page("https://x", 1_100, 1_000).unwrap().unwrap();
    assert_eq!((meta["title"].as_str(), text.as_str()), (Some("X"), "text"));
    assert!(s.cached_page("https://x", 9_000, 1_000).unwrap().is_none());
    s.cache_page("https://x", &serde_json::json!({}), "new text", 9_000)
        .unwrap();
    assert_eq!(
        s.cached_page("https://x", 9_000, 1_000).unwrap().unwrap().1,
        "new text"
    );
}

/// A conversation keeps its turns in order and its summary once written.
pub fn conversation_turns_and_summary(db: &dyn Database) {
    let s = db.sessions();
    s.create(&session("a", "A", 1)).unwrap();
    assert_eq!(s.summary("a").unwrap(), ConversationSummary::default());
    for (i, q) in ["first?", "second?"].iter().enumerate() {
        s.add_turn(
            "a",
            &TurnRow {
                thread_id: (i == 0).then(|| "t".to_string()),
                question: q.to_string(),
                classification: serde_json::json!({"kind": "research"}),
                focus: vec!["rust".into()],
                reply: String::new(),
                created_at_ms: i as i64,
            },
        )
        .unwrap();
    }
    let turns = s.turns("a").unwrap();
    assert_eq!(turns.len(), 2);
    assert_eq!(turns[0].thread_id.as_deref(), Some("t"));
    assert_eq!(turns[1].question, "second?");
    assert_eq!(turns[1].focus, vec!["rust".to_string()]);
    let summary = ConversationSummary {
        text: "About Rust.".into(),
        turns: 2,
    };
    s.set_summary("a", &summary).unwrap();
    assert_eq!(s.summary("a").unwrap(), summary);
    assert_eq!(s.summary("nope").unwrap(), ConversationSummary::default());
}

const DAY: i64 = 86_400_000;

fn daily(session_id: &str, next_due_ms: i64) -> Schedule {
    Schedule {
        session_id: session_id.into(),
        every_ms: DAY,
        research_again: false,
        paused: false,
        next_due_ms,
        last_run_ms: None,
        last_outcome: None,
        created_at_ms: 0,
    }
}

/// A due schedule is taken once, runs again on its grid, and a machine that slept runs it once.
pub fn a_due_schedule_is_taken_once(db: &dyn Database) {
    let s = db.sessions();
    s.create(&session("s1", "t", 0)).unwrap();
    s.set_schedule(&daily("s1", DAY)).unwrap();
    assert!(
        s.take_due(DAY - 1, "a", 60_000).unwrap().is_empty(),
        "not due yet"
    );
    assert_eq!(s.take_due(DAY, "a", 60_000).unwrap().len(), 1);
    assert!(
        s.take_due(DAY + 1, "b", 60_000).unwrap().is_empty(),
        "the lease holds"
    );
    assert!(
        !s.finish_schedule("s1", "b", DAY + 1, "x").unwrap(),
        "not b's"
    );
    assert!(s.finish_schedule("s1", "a", DAY + 5, "unchanged").unwrap());
    let after = s.schedule("s1").unwrap().unwrap();
    assert_eq!(after.next_due_ms, 2 * DAY);
    assert_eq!(after.last_outcome.as_deref(), Some("unchanged"));
    assert_eq!(after.last_run_ms, Some(DAY + 5));
    assert_eq!(s.take_due(12 * DAY + 7, "a", 60_000).unwrap().len(), 1);
    s.finish_schedule("s1", "a", 12 * DAY + 9, "ok").unwrap();
    assert_eq!(s.schedule("s1").unwrap().unwrap().next_due_ms, 13 * DAY);
    assert!(s.take_due(12 * DAY + 10, "a", 60_000).unwrap().is_empty());
}

/// A lease whose holder died expires; a paused schedule waits; a removed one is gone, and so is
/// a deleted session's.
pub fn leases_expire_and_paused_schedules_wait(db: &dyn Database) {
    let s = db.sessions();
    s.create(&session("s1", "t", 0)).unwrap();
    s.set_schedule(&Schedule {
        research_again: true,
        ..daily("s1", 0)
    })
    .unwrap();
    assert!(s.schedule("s1").unwrap().unwrap().research_again);
    assert_eq!(s.take_due(10, "dead", 1_000).unwrap().len(), 1);
    assert!(s.take_due(500, "b", 1_000).unwrap().is_empty());
    assert_eq!(s.take_due(2_000, "b", 1_000).unwrap().len(), 1, "expired");
    s.finish_schedule("s1", "b", 2_000, "ok").unwrap();
    assert!(s.pause_schedule("s1", true).unwrap());
    assert!(s.schedule("s1").unwrap().unwrap().paused);
    assert!(s.take_due(3 * DAY, "b", 1_000).unwrap().is_empty());
    assert!(s.remove_schedule("s1").unwrap());
    assert!(s.schedules().unwrap().is_empty());
    assert!(!s.remove_schedule("s1").unwrap());
    assert!(!s.pause_schedule("s1", false).unwrap());
    s.create(&session("s2", "u", 0)).unwrap();
    s.set_schedule(&daily("s2", 0)).unwrap();
    s.delete("s2").unwrap();
    assert!(s.schedules().unwrap().is_empty());
}

/// Of several processes taking due schedules at once, each schedule goes to one.
pub fn due_schedules_go_to_one_process(db: &dyn Database) {
    let s = db.sessions();
    for i in 0..6 {
        let id = format!("s{i}");
        s.create(&session(&id, "t", 0)).unwrap();
        s.set_schedule(&daily(&id, 0)).unwrap();
    }
    let stores: Vec<Arc<dyn SessionStore>> = (0..4).map(|_| db.sessions()).collect();
    let taken: usize = std::thread::scope(|scope| {
        let handles: Vec<_> = stores
            .iter()
            .enumerate()
            .map(|(i, store)| {
                scope.spawn(move || store.take_due(10, &format!("p{i}"), 60_000).unwrap().len())
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    });
    assert_eq!(taken, 6);
}

/// The thread registry keeps a thread's graph and configuration, newest first.
pub fn threads_are_registered(db: &dyn Database) {
    let t = db.threads();
    for (id, at) in [("t1", 1), ("t2", 2)] {
        t.insert(&ThreadRecord {
            thread_id: id.into(),
            graph: "standard".into(),
            config: serde_json::json!({"depth": "quick"}),
            created_at_ms: at,
        })
        .unwrap();
    }
    assert!(
        t.insert(&ThreadRecord {
            thread_id: "t1".into(),
            graph: "x".into(),
            config: serde_json::json!({}),
            created_at_ms: 3,
        })
        .is_err(),
        "a thread is registered once"
    );
    t.set_config("t1", &serde_json::json!({"depth": "deep"}))
        .unwrap();
    let t1 = t.get("t1").unwrap().unwrap();
    assert_eq!(
        (t1.graph.as_str(), &t1.config),
        ("standard", &serde_json::json!({"depth": "deep"}))
    );
    assert!(t.get("t9").unwrap().is_none());
    let ids: Vec<String> = t.list().unwrap().into_iter().map(|r| r.thread_id).collect();
    assert_eq!(ids, vec!["t2", "t1"]);
}

/// What the models did is summed per model over runs; a run recorded again counts once; a
/// deleted session's counts stay.
pub fn models_are_measured_over_runs(db: &dyn Database) {
    let s = db.sessions();
    assert!(s.model_totals().unwrap().is_empty());
    let row = |model: &str, facts: u64, drafts: u64, refused: u64| ModelRunRow {
        model: model.into(),
        counts: ModelCounts {
            facts,
            own_words: facts,
            drafts,
            refused,
            verdicts_asked: 3,
            verdicts_given: 1,
            completion_tokens: 100,
            call_ms: 2_000,
        },
    };
    s.create(&session("s", "S", 1)).unwrap();
    s.add_run("s", "t1", "q", 1).unwrap();
    s.record_models("t1", 10, &[row("m.gguf", 4, 1, 1), row("other", 0, 1, 0)])
        .unwrap();
    // Resumed and saved again: replaced, not added.
    s.record_models("t1", 20, &[row("m.gguf", 5, 1, 1)])
        .unwrap();
    s.record_models("t2", 30, &[row("m.gguf", 7, 1, 0)])
        .unwrap();
    assert!(s.delete("s").unwrap());
    let totals = s.model_totals().unwrap();
    assert_eq!(totals.len(), 1, "{totals:?}");
    let m = &totals[0];
    assert_eq!((m.model.as_str(), m.runs, m.last_at_ms), ("m.gguf", 2, 30));
    assert_eq!(
        m.counts,
        ModelCounts {
            facts: 12,
            own_words: 12,
            drafts: 2,
            refused: 1,
            verdicts_asked: 6,
            verdicts_given: 2,
            completion_tokens: 200,
            call_ms: 4_000,
        }
    );
    // Seen by another connection, as another process would.
    assert_eq!(db.sessions().model_totals().unwrap(), totals);
}

/// Writes one `#[test]` per conformance check, each on a fresh database from `$make`.
#[macro_export]
macro_rules! store_conformance {
    ($make:expr) => {
        $crate::store_conformance!(@tests $make;
            sessions_list_search_rename_and_delete, deleting_keeps_the_texts_a_running_run_read,
            deleting_a_session_deletes_its_threads, a_run_is_claimed_by_one_process,
            one_of_many_claims_wins, concurrent_writers_lose_nothing, caches_expire,
            conversation_turns_and_summary, a_due_schedule_is_taken_once,
            leases_expire_and_paused_schedules_wait, due_schedules_go_to_one_process,
            threads_are_registered, models_are_measured_over_runs);
    };
    (@tests $make:expr; $($check:ident),*) => {
        $(
            #[test]
            fn $check() {
                let db = $make;
                $crate::conformance::$check(&db);
            }
        )*
    };
}
