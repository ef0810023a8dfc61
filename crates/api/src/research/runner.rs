//! Which process runs a thread: a record in the sessions store that the process renews while
//! it runs (a lease), so that a run is never executed by two processes at once — on one machine
//! or on two sharing a database — and a run whose process died is taken over.
//!
//! On the machine that runs it, a dead process is seen at once (Linux: `/proc`, with its start
//! time so a reused pid is not mistaken for it). From another machine only the lease can tell:
//! a record its holder stopped renewing is taken over once it has expired.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use research_graph::ThreadId;
use research_store::SessionStore;
use tokio_util::sync::CancellationToken;

use crate::{ApiError, ErrorCode};

use super::in_place;

/// How long a record holds without being renewed; it is renewed three times within it.
const LEASE_MS: i64 = 60_000;

/// A process's record: `MACHINE/PID:START/UNTIL_MS`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Record {
    machine: String,
    process: String,
    until_ms: i64,
}

impl Record {
    fn mine(now_ms: i64, lease_ms: i64) -> Self {
        Self {
            machine: this_machine(),
            process: this_process(),
            until_ms: now_ms + lease_ms,
        }
    }

    fn parse(text: &str) -> Self {
        let mut parts = text.splitn(3, '/');
        match (parts.next(), parts.next(), parts.next()) {
            (Some(machine), Some(process), until) => Self {
                machine: machine.to_string(),
                process: process.to_string(),
                until_ms: until.and_then(|u| u.parse().ok()).unwrap_or(0),
            },
            // A record from before machines were named: this machine's.
            _ => Self {
                machine: this_machine(),
                process: text.to_string(),
                until_ms: 0,
            },
        }
    }

    fn text(&self) -> String {
        format!("{}/{}/{}", self.machine, self.process, self.until_ms)
    }

    fn is_this_process(&self) -> bool {
        self.machine == this_machine() && self.process == this_process()
    }

    /// Whether its process still runs: on this machine, asked of the system; on another, while
    /// its lease holds. `None` when it cannot be told (another system than Linux).
    fn alive(&self, now_ms: i64) -> Option<bool> {
        let lease = self.until_ms >= now_ms;
        if self.machine != this_machine() {
            return Some(lease);
        }
        // Where the system cannot tell (not Linux), the lease does; a record from before leases
        // (no expiry) stays unknown.
        process_alive(&self.process).or((self.until_ms > 0).then_some(lease))
    }
}

/// Whether the process recorded as `runner` still runs (see [`Record::alive`]).
pub(crate) fn alive(runner: &str, now_ms: i64) -> Option<bool> {
    Record::parse(runner).alive(now_ms)
}

/// Now by the store's clock ([`SessionStore::clock_ms`]: a shared server's, so machines agree
/// on when a lease ran out), else by this machine's when the store cannot say.
pub(crate) fn store_ms(sessions: &dyn SessionStore) -> i64 {
    sessions.clock_ms().unwrap_or_else(|_| wall_ms())
}

/// This machine's wall clock, in ms since the epoch (never a test's injected clock).
fn wall_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// The record that this process runs a thread: renewed while it lives, taken off when the run
/// returns. A run whose lease was lost (its process was asleep or cut off from the database for
/// longer than the lease, and another took it over) is cancelled, and writes nothing more.
pub(crate) struct Runner {
    sessions: Arc<dyn SessionStore>,
    thread: ThreadId,
    /// The record as last written; held while it is renewed or released, so a renewal in flight
    /// and the release never cross.
    held: Arc<Mutex<String>>,
    lost: Arc<AtomicBool>,
    renewal: tokio::task::JoinHandle<()>,
}

impl Runner {
    /// Claims `thread` for this process; a conflict when another live process runs it. `cancel`
    /// is the run's: cancelled when the lease is lost.
    pub(crate) fn claim(
        sessions: Arc<dyn SessionStore>,
        thread: &ThreadId,
        cancel: CancellationToken,
    ) -> Result<Self, ApiError> {
        Self::claim_for(sessions, thread, cancel, LEASE_MS)
    }

    fn claim_for(
        sessions: Arc<dyn SessionStore>,
        thread: &ThreadId,
        cancel: CancellationToken,
        lease_ms: i64,
    ) -> Result<Self, ApiError> {
        let now = in_place(|| sessions.clock_ms())?;
        let me = Record::mine(now, lease_ms).text();
        let takeable = |other: &str| {
            let other = Record::parse(other);
            other.is_this_process() || other.alive(now) == Some(false)
        };
        let claimed = in_place(|| sessions.claim_runner(thread.as_str(), &me, &takeable))?;
        if !claimed {
            return Err(taken(thread));
        }
        let held = Arc::new(Mutex::new(me));
        let lost = Arc::new(AtomicBool::new(false));
        let renewal = tokio::spawn(renew(
            sessions.clone(),
            thread.clone(),
            Lease {
                held: held.clone(),
                lost: lost.clone(),
                cancel,
                ms: lease_ms,
            },
        ));
        Ok(Self {
            sessions,
            thread: thread.clone(),
            held,
            lost,
            renewal,
        })
    }

    /// A conflict when this process no longer holds the run (another took it over): nothing it
    /// found may be written over the other's.
    pub(crate) fn still_held(&self) -> Result<(), ApiError> {
        if self.lost.load(Ordering::SeqCst) {
            return Err(ApiError::new(
                ErrorCode::Conflict,
                format!(
                    "run {} is no longer held by this process (its hold lapsed while it could not renew it, or another process took it over); resume it where it goes on",
                    self.thread
                ),
            ));
        }
        Ok(())
    }
}

fn taken(thread: &ThreadId) -> ApiError {
    ApiError::new(
        ErrorCode::Conflict,
        format!("run {thread} is running in another process; wait for it to end or stop it there"),
    )
}

/// What the renewal keeps: the record as last written, whether it was lost, the run's token,
/// and the lease's length.
struct Lease {
    held: Arc<Mutex<String>>,
    lost: Arc<AtomicBool>,
    cancel: CancellationToken,
    ms: i64,
}

/// Renews the lease a third of its length before it would run out, for as long as the run goes;
/// cancels the run when another process took it over, or when the lease ran out unrenewed.
async fn renew(sessions: Arc<dyn SessionStore>, thread: ThreadId, lease: Lease) {
    let Lease {
        held,
        lost,
        cancel,
        ms,
    } = lease;
    let period = Duration::from_millis((ms / 3) as u64);
    // This process's own view of when its hold lapses, on its monotonic clock: a renewal that
    // hangs (a dead link), or a machine that slept, cannot keep a run going past it.
    let mut lapses = tokio::time::Instant::now() + period * 2;
    loop {
        tokio::time::sleep(period).await;
        let began = tokio::time::Instant::now();
        let (store, t, h) = (sessions.clone(), thread.clone(), held.clone());
        let renewal = tokio::task::spawn_blocking(move || {
            let mut held = h.lock().unwrap_or_else(|p| p.into_inner());
            // Written and judged on the store's clock only: a lease is never written on this
            // machine's clock when the store cannot say its own.
            let now = store.clock_ms()?;
            let new = Record::mine(now, ms).text();
            if store.swap_runner(t.as_str(), Some(&held), &new)? {
                *held = new;
                return Ok(true);
            }
            // A renewal that committed although its answer was lost left our own newer record:
            // it is still ours.
            match store.runner(t.as_str())? {
                Some(current) if Record::parse(&current).is_this_process() => {
                    *held = current;
                    Ok(true)
                }
                _ => Ok(false),
            }
        });
        let outcome = tokio::select! {
            done = renewal => done,
            _ = tokio::time::sleep_until(lapses) => {
                tracing::warn!(%thread, "the run's hold lapsed while the database did not answer; it stops here");
                lost.store(true, Ordering::SeqCst);
                cancel.cancel();
                return;
            }
        };
        let gone = match outcome {
            Ok(Ok(true)) => {
                lapses = began + Duration::from_millis(ms as u64) - period;
                false
            }
            Ok(Ok(false)) => {
                tracing::warn!(%thread, "another process took this run over; it stops here");
                true
            }
            // The store could not be reached: the run goes on while its hold has not lapsed.
            Ok(Err(e)) => {
                let e: research_store::StoreError = e;
                tracing::warn!(%thread, "the run's lease could not be renewed: {e}");
                tokio::time::Instant::now() >= lapses
            }
            Err(e) => {
                tracing::warn!(%thread, "the run's lease renewal stopped: {e}");
                true
            }
        };
        if gone {
            lost.store(true, Ordering::SeqCst);
            cancel.cancel();
            return;
        }
    }
}

impl Drop for Runner {
    fn drop(&mut self) {
        self.renewal.abort();
        // Waits for a renewal in flight, which holds the record; the release only clears the
        // record if it is still exactly ours (a lapsed hold nobody took is ours to clear).
        let (sessions, thread, held) = (&self.sessions, &self.thread, &self.held);
        in_place(|| {
            let held = held.lock().unwrap_or_else(|p| p.into_inner());
            if let Err(e) = sessions.release_runner(thread.as_str(), &held) {
                tracing::warn!("could not clear the run's process: {e}");
            }
        });
    }
}

/// The variable that names this machine when the system's own id cannot tell it apart (two
/// containers or cloned virtual machines with one `/etc/machine-id`).
pub const MACHINE_ENV: &str = "RESEARCH_STUDIO_MACHINE";

/// This machine, as no other machine sharing the database names itself: `RESEARCH_STUDIO_MACHINE`
/// when set; else (Linux) its `/etc/machine-id` with this boot's id and the process namespace
/// (a record from before a reboot, or from another container, is then another machine's,
/// judged by its lease); else its host name.
pub(crate) fn this_machine() -> String {
    static MACHINE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    MACHINE
        .get_or_init(|| {
            let read = |p: &str| {
                std::fs::read_to_string(p)
                    .ok()
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty() && s != "uninitialized")
            };
            let named = std::env::var(MACHINE_ENV)
                .ok()
                .filter(|m| !m.trim().is_empty())
                .or_else(|| {
                    let id =
                        read("/etc/machine-id").or_else(|| read("/var/lib/dbus/machine-id"))?;
                    let boot = read("/proc/sys/kernel/random/boot_id").unwrap_or_default();
                    let namespace = std::fs::read_link("/proc/self/ns/pid")
                        .map(|l| l.display().to_string())
                        .unwrap_or_default();
                    Some(format!("{id}:{boot}:{namespace}"))
                })
                .or_else(|| std::env::var("COMPUTERNAME").ok())
                .or_else(|| read("/proc/sys/kernel/hostname"))
                .or_else(|| std::env::var("HOSTNAME").ok())
                .unwrap_or_else(|| "this-machine".into());
            named.replace('/', "-")
        })
        .clone()
}

/// This process: its pid and, where it can be read, when it started (a pid used again by
/// another process is not mistaken for it).
fn this_process() -> String {
    let pid = std::process::id();
    format!("{pid}:{}", started_at(pid).unwrap_or_default())
}

/// When process `pid` started, in clock ticks since boot (Linux: `/proc/PID/stat`, field 22).
fn started_at(pid: u32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // After the command name, which may hold spaces and parentheses.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19).map(String::from)
}

/// Whether process `pid:start` of this machine is alive, where that can be told.
fn process_alive(process: &str) -> Option<bool> {
    let (pid, start) = process.split_once(':').unwrap_or((process, ""));
    let pid: u32 = pid.parse().ok()?;
    if !cfg!(target_os = "linux") {
        return (pid == std::process::id()).then_some(true);
    }
    // A process that has exited but not yet been reaped by its parent (a zombie, a killed
    // server the app has not waited for) runs nothing: it is not alive.
    if exited(pid) {
        return Some(false);
    }
    Some(match started_at(pid) {
        None => false,
        Some(now) => start.is_empty() || now == start,
    })
}

/// Whether process `pid` has exited and only waits to be reaped (`/proc/PID/stat` state `Z`
/// or `X`).
fn exited(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let rest = &stat[stat.rfind(')')? + 1..];
            rest.split_whitespace().next().map(|s| s == "Z" || s == "X")
        })
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_is_alive_while_it_runs_and_not_after() {
        let now = wall_ms();
        assert_eq!(alive(&Record::mine(now, LEASE_MS).text(), now), Some(true));
        if cfg!(target_os = "linux") {
            // A pid no process has, and ours with another start time (a pid used again); a
            // record from before machines were named is read as this machine's.
            let me = this_machine();
            assert_eq!(alive(&format!("{me}/4194304:1/{now}"), now), Some(false));
            let pid = std::process::id();
            assert_eq!(alive(&format!("{me}/{pid}:1/{now}"), now), Some(false));
            assert_eq!(alive("4194304:1", now), Some(false));
            assert_eq!(alive(&this_process(), now), Some(true));
        }
    }

    #[test]
    fn another_machines_process_is_alive_while_its_lease_holds() {
        let record = format!("elsewhere/1:1/{}", 10_000);
        assert_eq!(
            alive(&record, 9_999),
            Some(true),
            "a live run elsewhere is not taken"
        );
        assert_eq!(alive(&record, 10_000), Some(true));
        assert_eq!(
            alive(&record, 10_001),
            Some(false),
            "its holder stopped renewing it"
        );
    }

    /// The record keeps its machine and process however its lease changes.
    #[test]
    fn a_record_round_trips_and_knows_its_own_process() {
        let now = wall_ms();
        let mine = Record::mine(now, LEASE_MS);
        assert_eq!(Record::parse(&mine.text()), mine);
        assert!(Record::parse(&Record::mine(now + 5, LEASE_MS).text()).is_this_process());
        assert!(!Record::parse("elsewhere/1:1/5").is_this_process());
    }

    fn store_with_a_run() -> (tempfile::TempDir, Arc<dyn SessionStore>, ThreadId) {
        let dir = tempfile::tempdir().unwrap();
        let store = research_store::SqliteSessions::open(&dir.path().join("db.sqlite")).unwrap();
        store
            .create(&research_store::conformance::session("s", "S", 1))
            .unwrap();
        store.add_run("s", "t", "S?", 1).unwrap();
        (dir, Arc::new(store), ThreadId::new("t".to_string()))
    }

    /// While the run goes its lease is renewed (its expiry moves on); when it returns the
    /// record is gone.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_lease_is_renewed_while_the_run_goes_and_let_go_after() {
        let (_dir, store, thread) = store_with_a_run();
        let runner =
            Runner::claim_for(store.clone(), &thread, CancellationToken::new(), 300).unwrap();
        let first = Record::parse(&store.runner("t").unwrap().unwrap()).until_ms;
        tokio::time::sleep(Duration::from_millis(450)).await;
        let later = Record::parse(&store.runner("t").unwrap().unwrap()).until_ms;
        assert!(later > first, "not renewed: {first} then {later}");
        assert!(runner.still_held().is_ok());
        drop(runner);
        assert_eq!(store.runner("t").unwrap(), None);
    }

    /// Another process that took the run over (this one's lease had run out) stops this one:
    /// its run is cancelled, it may write nothing more, and it does not clear the other's record.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_run_taken_over_is_cancelled_here_and_the_others_record_kept() {
        let (_dir, store, thread) = store_with_a_run();
        let cancel = CancellationToken::new();
        let runner = Runner::claim_for(store.clone(), &thread, cancel.clone(), 300).unwrap();
        let mine = store.runner("t").unwrap().unwrap();
        assert!(store
            .swap_runner("t", Some(&mine), "elsewhere/1:1/99")
            .unwrap());
        tokio::time::timeout(Duration::from_secs(5), cancel.cancelled())
            .await
            .expect("the run was not cancelled");
        let err = runner.still_held().unwrap_err();
        assert_eq!(err.code, ErrorCode::Conflict);
        drop(runner);
        assert_eq!(
            store.runner("t").unwrap().as_deref(),
            Some("elsewhere/1:1/99")
        );
    }

    #[test]
    fn a_process_that_exited_but_was_not_reaped_is_not_alive() {
        if !cfg!(target_os = "linux") {
            return;
        }
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        // Not waited for yet: a zombie once it has exited.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !exited(pid) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let start = started_at(pid).expect("still in /proc until reaped");
        assert_eq!(process_alive(&format!("{pid}:{start}")), Some(false));
        child.wait().unwrap();
    }
}
