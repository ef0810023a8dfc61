//! A session as one file: everything it produced — its runs with their checkpoints (so a paused
//! run still resumes), sources and the texts read, evidence, checked claims, report versions,
//! audit trail, model calls and conversation — in a zip archive that another machine or data
//! folder imports with its ids kept. Written and read through the store seams
//! ([`research_store::SessionStore`], [`research_store::ThreadStore`], the checkpointer), so a
//! session moves between this machine's file and a team's server alike.
//!
//! The archive holds `session.json` (the records, [`FORMAT`] and [`VERSION`]), each text read
//! under `documents/` by its SHA-256, and each checkpoint's and write's bytes under `runs/`.
//! A schedule stays on the machine that runs it; API keys are never in a session.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use research_graph::{CheckpointRecord, ThreadId, WriteKind, WriteRecord};
use research_store::{
    ClaimRow, ConversationSummary, EvidenceRow, ReportRow, SessionRecord, SessionStatus, SourceRow,
    ThreadRecord, TurnRow,
};
use serde::{Deserialize, Serialize};

use crate::{ApiError, ErrorCode, Studio};

/// What `session.json` says it is.
pub const FORMAT: &str = "research-studio-session";

/// The archive layout this build writes, and the newest it reads.
pub const VERSION: u32 = 1;

/// A session file's extension.
pub const EXTENSION: &str = "research-session";

/// The largest archive member read (a text read, a checkpoint): a file claiming more is not a
/// session this app wrote.
const MAX_MEMBER_BYTES: u64 = 512 * 1024 * 1024;

#[derive(Serialize, Deserialize)]
struct Manifest {
    format: String,
    version: u32,
    exported_at_ms: i64,
    session: SessionRecord,
    runs: Vec<Run>,
    reports: Vec<ReportRow>,
    turns: Vec<TurnRow>,
    summary: ConversationSummary,
    /// The SHA-256 of every text the runs read (`documents/<sha>`).
    documents: Vec<String>,
}

#[derive(Serialize, Deserialize)]
struct Run {
    thread_id: String,
    question: String,
    thread: Option<ThreadRecord>,
    sources: Vec<SourceRow>,
    evidence: Vec<EvidenceRow>,
    claims: Vec<ClaimRow>,
    events: Vec<(i64, String, serde_json::Value)>,
    calls: Vec<serde_json::Value>,
    checkpoints: Vec<Checkpoint>,
    writes: Vec<StepWrite>,
}

#[derive(Serialize, Deserialize)]
struct Checkpoint {
    seq: u64,
    created_at_ms: i64,
    snapshot: bool,
}

#[derive(Serialize, Deserialize)]
struct StepWrite {
    checkpoint: u64,
    task: i64,
    kind: i16,
    idx: u32,
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Imported {
    /// The session, by the id it had where it was exported.
    pub session_id: String,
    /// Its title.
    pub title: String,
    /// Its runs.
    pub runs: usize,
    /// Its report versions.
    pub reports: usize,
    /// Whether it was here already, so nothing was imported (an archive imported twice is
    /// one session, not two).
    pub already_here: bool,
}

fn invalid(file: &Path, why: impl std::fmt::Display) -> ApiError {
    ApiError::new(
        ErrorCode::InvalidInput,
        format!(
            "{} is not a session file this app can read: {why}",
            file.display()
        ),
    )
}

fn storage(what: &str, e: impl std::fmt::Display) -> ApiError {
    ApiError::new(ErrorCode::Storage, format!("{what}: {e}"))
}

/// What a salvage saved and what it could not.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Salvage {
    /// The sessions saved, each to its file.
    pub saved: Vec<Salvaged>,
    /// The sessions that could not be read whole, with why.
    pub lost: Vec<Unsalvaged>,
}

/// A session a salvage saved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Salvaged {
    /// Its id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// The session file it was saved to.
    pub file: String,
}

/// A session a salvage could not save.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct Unsalvaged {
    /// Its id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// What could not be read.
    pub problem: String,
}

fn member(run: usize, name: &str) -> String {
    format!("runs/{run}/{name}")
}

impl Studio {
    /// Writes session `id` (or a run of it) with everything it produced to `file` as one
    /// archive; returns the session's id and the archive's size. A session whose run is going
    /// on is refused: its last steps are not saved yet.
    pub async fn export_session(&self, id: &str, file: &Path) -> Result<(String, u64), ApiError> {
        let id = self.session_named(id)?;
        let session = self
            .sessions()
            .get(&id)?
            .ok_or_else(|| ApiError::new(ErrorCode::NotFound, format!("no session {id}")))?;
        if session.status == SessionStatus::Running {
            return Err(ApiError::new(
                ErrorCode::Conflict,
                format!(
                    "session {id} has a run going on; export it when the run has ended (or cancel it)"
                ),
            ));
        }
        let bytes = self.archive_to(session, file).await?;
        Ok((id, bytes))
    }

    /// Saves every session of this database that can still be read to `folder`, one session
    /// file each ([`EXTENSION`]), as it stands (a run that was going when the file was damaged
    /// is saved up to its last step): what a damaged file still holds, before a backup takes its
    /// place. A session that cannot be read whole is named with why, and the others are saved.
    pub async fn salvage_sessions(&self, folder: &Path) -> Result<Salvage, ApiError> {
        std::fs::create_dir_all(folder)
            .map_err(|e| storage(&format!("cannot write to {}", folder.display()), e))?;
        let listed = self.sessions().list(None).map_err(|e| {
            ApiError::new(
                ErrorCode::Storage,
                format!("not even the list of sessions can be read: {e}"),
            )
        })?;
        let mut salvage = Salvage::default();
        for session in listed {
            // Titles repeat; ids do not.
            let short: String = session
                .id
                .chars()
                .filter(|c| c.is_alphanumeric())
                .take(8)
                .collect();
            let file = folder.join(format!(
                "{}-{short}.{EXTENSION}",
                crate::file_stem(&session.title, "session")
            ));
            let (id, title) = (session.id.clone(), session.title.clone());
            match self.archive_to(session, &file).await {
                Ok(_) => salvage.saved.push(Salvaged {
                    id,
                    title,
                    file: file.display().to_string(),
                }),
                Err(e) => salvage.lost.push(Unsalvaged {
                    id,
                    title,
                    problem: e.message,
                }),
            }
        }
        Ok(salvage)
    }

    /// Writes `session` to `file` whole or not at all; the file's size.
    async fn archive_to(&self, session: SessionRecord, file: &Path) -> Result<u64, ApiError> {
        let part = file.with_extension("part");
        let out = std::fs::File::create(&part)
            .map_err(|e| storage(&format!("cannot write {}", part.display()), e))?;
        let written = self.write_archive(session, out).await;
        let done = written.and_then(|()| {
            std::fs::rename(&part, file)
                .map_err(|e| storage(&format!("cannot write {}", file.display()), e))
        });
        if let Err(e) = done {
            let _ = std::fs::remove_file(&part);
            return Err(e);
        }
        Ok(std::fs::metadata(file).map(|m| m.len()).unwrap_or(0))
    }

    async fn write_archive(
        &self,
        session: SessionRecord,
        out: std::fs::File,
    ) -> Result<(), ApiError> {
        let mut zip = zip::ZipWriter::new(std::io::BufWriter::new(out));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        let put = |zip: &mut zip::ZipWriter<_>, name: &str, bytes: &[u8]| {
            zip.start_file(name, options)
                .and_then(|()| zip.write_all(bytes).map_err(Into::into))
                .map_err(|e| storage("cannot write the session file", e))
        };
        let store = self.sessions();
        let mut documents = BTreeSet::new();
        let mut runs = Vec::new();
        for (n, (thread_id, question)) in store.runs(&session.id)?.into_iter().enumerate() {
            let sources = store.sources(&thread_id)?;
            documents.extend(sources.iter().map(|s| s.sha256.clone()));
            let (checkpoints, writes) = self.checkpoints_of(&thread_id).await?;
            let mut run = Run {
                thread: self.threads.get(&thread_id)?,
                evidence: store.evidence(&thread_id)?,
                claims: store.claims(&thread_id)?,
                events: store.events(&thread_id)?,
                calls: store.calls(&thread_id)?,
                thread_id,
                question,
                sources,
                checkpoints: Vec::new(),
                writes: Vec::new(),
            };
            for c in checkpoints {
                put(&mut zip, &member(n, &format!("{}.body", c.seq)), &c.body)?;
                if let Some(snapshot) = &c.snapshot {
                    put(
                        &mut zip,
                        &member(n, &format!("{}.snapshot", c.seq)),
                        snapshot,
                    )?;
                }
                run.checkpoints.push(Checkpoint {
                    seq: c.seq,
                    created_at_ms: c.created_at_ms,
                    snapshot: c.snapshot.is_some(),
                });
            }
            for w in writes {
                let kind = w.kind.code();
                put(
                    &mut zip,
                    &member(
                        n,
                        &format!("{}-{}-{kind}-{}.write", w.checkpoint, w.task, w.idx),
                    ),
                    &w.value,
                )?;
                run.writes.push(StepWrite {
                    checkpoint: w.checkpoint,
                    task: w.task,
                    kind,
                    idx: w.idx,
                });
            }
            runs.push(run);
        }
        for sha in &documents {
            // A text a run read but the store no longer has (never, short of damage) is left
            // out; the source still lists it.
            if let Some(text) = store.document(sha)? {
                put(&mut zip, &format!("documents/{sha}"), text.as_bytes())?;
            }
        }
        let manifest = Manifest {
            format: FORMAT.into(),
            version: VERSION,
            exported_at_ms: self.now_ms(),
            reports: store.reports(&session.id)?,
            turns: store.turns(&session.id)?,
            summary: store.summary(&session.id)?,
            session,
            runs,
            documents: documents.into_iter().collect(),
        };
        let json = serde_json::to_vec_pretty(&manifest)
            .map_err(|e| storage("cannot write the session file", e))?;
        put(&mut zip, "session.json", &json)?;
        zip.finish()
            .map_err(|e| storage("cannot write the session file", e))?
            .flush()
            .map_err(|e| storage("cannot write the session file", e))
    }

    /// Every checkpoint of `thread` with its snapshot where it has one, and every write, oldest
    /// first: the chains that rebuild each checkpoint, walked back from the latest.
    async fn checkpoints_of(
        &self,
        thread: &str,
    ) -> Result<(Vec<CheckpointRecord>, Vec<WriteRecord>), ApiError> {
        let id = ThreadId::new(thread);
        let fail = |e: research_graph::CheckpointError| storage("cannot read the run's steps", e);
        let mut checkpoints: Vec<CheckpointRecord> = Vec::new();
        let mut writes: Vec<WriteRecord> = Vec::new();
        let mut upto: Option<u64> = None;
        loop {
            let Some(chain) = self.checkpointer.load(&id, upto).await.map_err(fail)? else {
                break;
            };
            let Some(first) = chain.checkpoints.first().map(|c| c.seq) else {
                break;
            };
            checkpoints.extend(chain.checkpoints);
            writes.extend(chain.writes);
            if first == 0 {
                break;
            }
            upto = Some(first - 1);
        }
        checkpoints.sort_by_key(|c| c.seq);
        checkpoints.dedup_by_key(|c| c.seq);
        writes.sort_by_key(|w| (w.checkpoint, w.task, w.kind.code(), w.idx));
        writes.dedup_by_key(|w| (w.checkpoint, w.task, w.kind.code(), w.idx));
        Ok((checkpoints, writes))
    }

    /// Imports the session archived in `file` with its ids: once — a session already here is
    /// left as it is and said so. A run id taken by another session here is refused. Nothing
    /// is left half-imported: a failure removes what the import had written.
    pub async fn import_session(&self, file: &Path) -> Result<Imported, ApiError> {
        let reader = std::fs::File::open(file).map_err(|e| {
            ApiError::new(
                ErrorCode::NotFound,
                format!("cannot open {}: {e}", file.display()),
            )
        })?;
        let mut zip = zip::ZipArchive::new(std::io::BufReader::new(reader))
            .map_err(|e| invalid(file, format!("not a zip archive ({e})")))?;
        let read = |zip: &mut zip::ZipArchive<_>, name: &str| -> Result<Vec<u8>, ApiError> {
            let entry = zip
                .by_name(name)
                .map_err(|_| invalid(file, format!("{name} is missing")))?;
            if entry.size() > MAX_MEMBER_BYTES {
                return Err(invalid(
                    file,
                    format!("{name} is larger than any session's"),
                ));
            }
            let mut bytes = Vec::with_capacity(entry.size() as usize);
            entry
                .take(MAX_MEMBER_BYTES)
                .read_to_end(&mut bytes)
                .map_err(|e| invalid(file, format!("{name} cannot be read ({e})")))?;
            Ok(bytes)
        };
        let manifest: Manifest =
            serde_json::from_slice(&read(&mut zip, "session.json")?).map_err(|e| {
                invalid(
                    file,
                    format!("session.json is not what this app writes ({e})"),
                )
            })?;
        if manifest.format != FORMAT {
            return Err(invalid(
                file,
                format!("it says it is \"{}\"", manifest.format),
            ));
        }
        if manifest.version > VERSION {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                format!(
                    "{} was written by a newer Research Studio (session file version {}, this one reads up to {VERSION}); update the app to import it",
                    file.display(),
                    manifest.version
                ),
            ));
        }
        let store = self.sessions();
        let session = manifest.session.clone();
        let imported = Imported {
            session_id: session.id.clone(),
            title: session.title.clone(),
            runs: manifest.runs.len(),
            reports: manifest.reports.len(),
            already_here: store.get(&session.id)?.is_some(),
        };
        if imported.already_here {
            return Ok(imported);
        }
        for run in &manifest.runs {
            if let Some(other) = store.session_of(&run.thread_id)? {
                return Err(ApiError::new(
                    ErrorCode::Conflict,
                    format!(
                        "run {} of this session file belongs to session {other} here; nothing was imported",
                        run.thread_id
                    ),
                ));
            }
        }
        // Every member is read before anything is written, so a damaged archive writes nothing.
        let mut texts = Vec::new();
        for sha in &manifest.documents {
            let text = String::from_utf8(read(&mut zip, &format!("documents/{sha}"))?)
                .map_err(|_| invalid(file, format!("documents/{sha} is not text")))?;
            texts.push(text);
        }
        let mut steps = Vec::new();
        for (n, run) in manifest.runs.iter().enumerate() {
            let thread = ThreadId::new(run.thread_id.clone());
            let mut checkpoints = Vec::new();
            for c in &run.checkpoints {
                checkpoints.push(CheckpointRecord {
                    thread_id: thread.clone(),
                    seq: c.seq,
                    created_at_ms: c.created_at_ms,
                    body: read(&mut zip, &member(n, &format!("{}.body", c.seq)))?,
                    snapshot: if c.snapshot {
                        Some(read(&mut zip, &member(n, &format!("{}.snapshot", c.seq)))?)
                    } else {
                        None
                    },
                });
            }
            let mut writes = Vec::new();
            for w in &run.writes {
                let kind = WriteKind::from_code(i64::from(w.kind)).ok_or_else(|| {
                    invalid(
                        file,
                        format!(
                            "a step's write has a kind ({}) this build does not know",
                            w.kind
                        ),
                    )
                })?;
                writes.push(WriteRecord {
                    thread_id: thread.clone(),
                    checkpoint: w.checkpoint,
                    task: w.task,
                    kind,
                    idx: w.idx,
                    value: read(
                        &mut zip,
                        &member(
                            n,
                            &format!("{}-{}-{}-{}.write", w.checkpoint, w.task, w.kind, w.idx),
                        ),
                    )?,
                });
            }
            steps.push((checkpoints, writes));
        }
        let written = self.write_imported(&manifest, texts, steps).await;
        if let Err(e) = written {
            let _ = store.delete(&session.id);
            for run in &manifest.runs {
                let _ = self
                    .checkpointer
                    .delete_thread(&ThreadId::new(run.thread_id.clone()))
                    .await;
            }
            return Err(e);
        }
        Ok(imported)
    }

    async fn write_imported(
        &self,
        manifest: &Manifest,
        texts: Vec<String>,
        steps: Vec<(Vec<CheckpointRecord>, Vec<WriteRecord>)>,
    ) -> Result<(), ApiError> {
        let store = self.sessions();
        let now = self.now_ms();
        for text in &texts {
            store.put_document(text, now)?;
        }
        let session = &manifest.session;
        store.create(session)?;
        for (run, (checkpoints, writes)) in manifest.runs.iter().zip(steps) {
            let created = run
                .thread
                .as_ref()
                .map_or(session.created_at_ms, |t| t.created_at_ms);
            store.add_run(&session.id, &run.thread_id, &run.question, created)?;
            if let Some(thread) = &run.thread {
                if self.threads.get(&thread.thread_id)?.is_none() {
                    self.threads.insert(thread)?;
                }
            }
            for c in checkpoints {
                let seq = c.seq;
                let own: Vec<WriteRecord> = writes
                    .iter()
                    .filter(|w| w.checkpoint == seq)
                    .cloned()
                    .collect();
                self.checkpointer
                    .put_checkpoint(c, own)
                    .await
                    .map_err(|e| storage("cannot save the run's steps", e))?;
            }
            store.save_findings(
                &session.id,
                &run.thread_id,
                &run.sources,
                &run.evidence,
                &run.claims,
            )?;
            for (at, kind, payload) in &run.events {
                store.add_event(&session.id, &run.thread_id, *at, kind, payload)?;
            }
            for call in &run.calls {
                store.add_call(&run.thread_id, call)?;
            }
        }
        for report in &manifest.reports {
            store.add_report(
                &session.id,
                &report.thread_id,
                &report.markdown,
                &report.provenance,
                report.created_at_ms,
            )?;
        }
        for turn in &manifest.turns {
            store.add_turn(&session.id, turn)?;
        }
        if !manifest.summary.text.is_empty() {
            store.set_summary(&session.id, &manifest.summary)?;
        }
        if let Some(at) = session.checked_at_ms {
            store.set_checked(&session.id, at)?;
        }
        // The status last: `create` may have set it, and the runs' saves may move it.
        store.set_status(&session.id, session.status, session.updated_at_ms)?;
        Ok(())
    }
}

/// The file a session is exported to when none is named: `<title>.research-session` in
/// `folder`.
pub fn default_file(folder: &Path, title: &str) -> PathBuf {
    folder.join(format!(
        "{}.{EXTENSION}",
        crate::file_stem(title, "session")
    ))
}
