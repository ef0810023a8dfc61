//! Reports that stay true: every source a session's latest report cites is read again, its text
//! compared with the one the report was checked against (by hash), and the report's audit
//! re-run on what changed — a source's quotes that are no longer in it, or the source gone —
//! with no model call. What changed becomes a new report version: the sentences that lost their
//! support marked where they stand, and a section saying what was found; the session keeps when
//! it was last checked.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use research_fetch::FetchError;
use research_pipeline::guard::no_claim;
use research_pipeline::report::{cited_ids, date};
use research_pipeline::steps::audit::{
    audit, without_markers, AuditEntry, AuditStatus, SourceTexts,
};
use research_pipeline::text::{normalize, quote_in};
use research_pipeline::{sha256_hex, Evidence};
use serde::{Deserialize, Serialize};

use crate::blocking::in_place;
use crate::{ApiError, Studio, ThreadId};

/// What reading a cited source again found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum SourceState {
    /// The same text as when the report was checked.
    Unchanged,
    /// The text changed: this many of its quotes are still in it, this many are not.
    Changed {
        /// Quotes still there.
        kept: usize,
        /// Quotes no longer there.
        lost: usize,
    },
    /// It is gone (HTTP 404 or 410, or the file no longer exists).
    Gone {
        /// How it was found gone.
        why: String,
    },
    /// It could not be read now (offline, a timeout, a server error): taken as unchanged.
    Unchecked {
        /// Why.
        why: String,
    },
}

/// One cited source, read again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct SourceCheck {
    /// Its citation number in the report.
    pub source_id: u32,
    /// Where it is.
    pub url: String,
    /// What was found.
    pub state: SourceState,
}

/// A sentence of the report that a changed or vanished source no longer supports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct LostSupport {
    /// The sentence.
    pub sentence: String,
    /// Its citations.
    pub sources: Vec<u32>,
    /// What the audit says of it now, in words.
    pub why: String,
}

/// A recheck's findings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Recheck {
    /// The session.
    pub session_id: String,
    /// The run whose report was checked.
    pub thread_id: String,
    /// When.
    pub checked_at_ms: i64,
    /// Every cited source.
    pub sources: Vec<SourceCheck>,
    /// Sentences that lost their support.
    pub lost: Vec<LostSupport>,
    /// The report version recorded with the findings (none when nothing changed).
    pub version: Option<u32>,
}

fn rank(status: AuditStatus) -> u8 {
    match status {
        AuditStatus::Verified => 3,
        AuditStatus::Partly => 2,
        AuditStatus::Rewritten | AuditStatus::Flagged => 1,
        AuditStatus::Removed => 0,
    }
}

/// Why a source that could not be read is taken as gone (`Ok(Some)`), or why it could not be
/// checked (`Err`); `Ok(None)`: an error that says nothing of the source (a timeout, a 500).
/// A file is gone only when it lies in one of this computer's library folders (`roots`) and is
/// not there: a file another computer of the team read is not this computer's to judge.
fn gone(url: &str, e: &FetchError, roots: &[std::path::PathBuf]) -> Result<Option<String>, String> {
    if let Some(path) = url
        .strip_prefix("file:")
        .and_then(|_| url::Url::parse(url).ok())
        .and_then(|u| u.to_file_path().ok())
    {
        if !roots.iter().any(|r| path.starts_with(r)) {
            return Err(
                "the file is not in this computer's library (another computer read it)".into(),
            );
        }
        return Ok((!path.exists()).then(|| "the file no longer exists".to_string()));
    }
    Ok(match e {
        FetchError::Status { status, .. } if matches!(status, 404 | 410) => {
            Some(format!("it answers HTTP {status}"))
        }
        _ => None,
    })
}

impl Studio {
    /// Reads again every source the session's latest report cites and records what changed
    /// as a new report version (see the module doc). Costs no model call.
    pub async fn recheck(&self, session_id: &str) -> Result<Recheck, ApiError> {
        let sessions = self.sessions();
        let report = self.latest_report(session_id, "there is nothing to check")?;
        let thread = ThreadId::new(report.thread_id.clone());
        let (_, saved) = self.research_run(&thread)?;
        let rows = sessions.sources(thread.as_str())?;
        let url_of: BTreeMap<u32, String> =
            rows.iter().map(|s| (s.source_id, s.url.clone())).collect();
        let evidence: Vec<Evidence> = sessions
            .evidence(thread.as_str())?
            .into_iter()
            .map(|e| Evidence {
                id: e.evidence_id,
                source_id: e.source_id,
                source_url: url_of.get(&e.source_id).cloned().unwrap_or_default(),
                fact: e.fact,
                quote: e.quote,
                question: None,
                query: String::new(),
            })
            .collect();
        let cited = cited_ids(&report.markdown);
        // An MCP source's results are read from the cache: there is no page to read again.
        let fetcher = self.fetcher(
            &saved,
            &sessions,
            Arc::new(self.library()?),
            research_search::McpDocuments::default(),
            true,
        )?;
        // This computer's library folders as their paths read (without Windows' `\\?\` prefix
        // that canonical paths carry); none when the library cannot be read.
        let roots: Vec<std::path::PathBuf> = self
            .library()
            .and_then(|l| Ok(l.folders()?))
            .unwrap_or_default()
            .into_iter()
            .map(|f| std::path::PathBuf::from(f.path.strip_prefix(r"\\?\").unwrap_or(&f.path)))
            .collect();
        let now = self.clock.now_ms();
        let mut checks = Vec::new();
        // Evidence no longer said by its source.
        let mut lost_items: BTreeSet<u32> = BTreeSet::new();
        for source in rows.iter().filter(|s| cited.contains(&s.source_id)) {
            let items: Vec<&Evidence> = evidence
                .iter()
                .filter(|e| e.source_id == source.source_id)
                .collect();
            let state = match fetcher.fetch(&source.url).await {
                Ok(doc) if sha256_hex(&doc.text) == source.sha256 => SourceState::Unchanged,
                Ok(doc) => {
                    // Kept beside the old text, so both can be shown.
                    if let Err(e) = in_place(|| sessions.put_document(&doc.text, now)) {
                        tracing::warn!("could not keep the new text of {}: {e}", source.url);
                    }
                    let text = normalize(&doc.text);
                    let (kept, lost): (Vec<&&Evidence>, Vec<&&Evidence>) =
                        items.iter().partition(|e| quote_in(&e.quote, &text));
                    lost_items.extend(lost.iter().map(|e| e.id));
                    SourceState::Changed {
                        kept: kept.len(),
                        lost: lost.len(),
                    }
                }
                Err(e) => match gone(&source.url, &e, &roots) {
                    Ok(Some(why)) => {
                        lost_items.extend(items.iter().map(|e| e.id));
                        SourceState::Gone { why }
                    }
                    Ok(None) => SourceState::Unchecked { why: e.to_string() },
                    Err(why) => SourceState::Unchecked { why },
                },
            };
            checks.push(SourceCheck {
                source_id: source.source_id,
                url: source.url.clone(),
                state,
            });
        }
        in_place(|| sessions.set_checked(session_id, now))?;
        let mut outcome = Recheck {
            session_id: session_id.to_string(),
            thread_id: thread.to_string(),
            checked_at_ms: now,
            sources: checks,
            lost: Vec::new(),
            version: None,
        };
        let changed = outcome.sources.iter().any(|c| {
            matches!(
                c.state,
                SourceState::Changed { .. } | SourceState::Gone { .. }
            )
        });
        if !changed {
            return Ok(outcome);
        }
        // The audit's words-and-numbers checks on each sentence that cites a changed or vanished
        // source, alone, with and without what is no longer said: a sentence whose verdict
        // falls has lost its support.
        let remaining: Vec<Evidence> = evidence
            .iter()
            .filter(|e| !lost_items.contains(&e.id))
            .cloned()
            .collect();
        let touched: BTreeSet<u32> = outcome
            .sources
            .iter()
            .filter(|c| {
                matches!(
                    c.state,
                    SourceState::Changed { .. } | SourceState::Gone { .. }
                )
            })
            .map(|c| c.source_id)
            .collect();
        let alone = |sentence: &str, evidence: &[Evidence]| {
            audit(sentence, evidence, &SourceTexts::default())
                .entries
                .first()
                .map_or(AuditStatus::Removed, |e| e.status)
        };
        let mut seen = BTreeSet::new();
        for entry in audit(&report.markdown, &evidence, &SourceTexts::default()).entries {
            let sentence = entry.sentence.trim().to_string();
            // A line of the sources list ("[3] Title — <url>") names a source; it claims nothing.
            if !entry.sources.iter().any(|s| touched.contains(s))
                || sentence.starts_with('[')
                || no_claim(&without_markers(&sentence))
                || !seen.insert(sentence.clone())
            {
                continue;
            }
            if rank(alone(&sentence, &remaining)) < rank(alone(&sentence, &evidence)) {
                outcome.lost.push(LostSupport {
                    why: why_lost(&entry, &outcome.sources),
                    sources: entry.sources.clone(),
                    sentence,
                });
            }
        }
        let markdown = marked(&report.markdown, &outcome, &report.provenance);
        let mut provenance = report.provenance.clone();
        if let Some(map) = provenance.as_object_mut() {
            map.insert(
                "recheck".into(),
                serde_json::to_value(&outcome).unwrap_or_default(),
            );
        }
        outcome.version = Some(in_place(|| {
            sessions.add_report(session_id, thread.as_str(), &markdown, &provenance, now)
        })?);
        Ok(outcome)
    }
}

fn why_lost(entry: &AuditEntry, checks: &[SourceCheck]) -> String {
    let mut parts = Vec::new();
    for id in &entry.sources {
        match checks.iter().find(|c| c.source_id == *id).map(|c| &c.state) {
            Some(SourceState::Gone { .. }) => parts.push(format!("source {id} is gone")),
            Some(SourceState::Changed { .. }) => {
                parts.push(format!("source {id} no longer says this"))
            }
            _ => {}
        }
    }
    parts.join("; ")
}

/// The report with each sentence that lost its support marked where it stands, and a section
/// saying what the recheck found.
fn marked(markdown: &str, recheck: &Recheck, provenance: &serde_json::Value) -> String {
    let ja = provenance
        .pointer("/config/language")
        .and_then(|v| v.as_str())
        == Some("ja");
    let day = date(recheck.checked_at_ms);
    let mut out = markdown.trim_end().to_string();
    for lost in &recheck.lost {
        // Marked where the report has it, after its closing punctuation; a sentence the report
        // no longer has verbatim is listed below only.
        if let Some(at) = out.find(&lost.sentence) {
            let mut end = at + lost.sentence.len();
            while let Some(c) = out[end..]
                .chars()
                .next()
                .filter(|c| ".!?。！？\"”)*".contains(*c))
            {
                end += c.len_utf8();
            }
            out.insert_str(end, &format!(" ⚠ *({}, {day})*", lost.why));
        }
    }
    let count =
        |f: fn(&SourceState) -> bool| recheck.sources.iter().filter(|c| f(&c.state)).count();
    let unchanged = count(|s| matches!(s, SourceState::Unchanged));
    let changed = count(|s| matches!(s, SourceState::Changed { .. }));
    let gone = count(|s| matches!(s, SourceState::Gone { .. }));
    let unchecked = count(|s| matches!(s, SourceState::Unchecked { .. }));
    out.push_str(&format!(
        "\n\n## {} ({day})\n\n",
        if ja {
            "出典の再確認"
        } else {
            "Sources checked again"
        }
    ));
    out.push_str(&format!(
        "{} cited sources read again: {unchanged} unchanged, {changed} changed, {gone} gone, {unchecked} could not be read.\n\n",
        recheck.sources.len()
    ));
    for c in &recheck.sources {
        let line = match &c.state {
            SourceState::Unchanged => continue,
            SourceState::Changed { kept, lost } => format!(
                "- [{}] changed: {lost} of its {} quotes are no longer in it",
                c.source_id,
                kept + lost
            ),
            SourceState::Gone { why } => format!("- [{}] is gone: {why}", c.source_id),
            SourceState::Unchecked { why } => {
                format!(
                    "- [{}] could not be read now ({why}); taken as unchanged",
                    c.source_id
                )
            }
        };
        out.push_str(&line);
        out.push('\n');
    }
    if recheck.lost.is_empty() {
        out.push_str("\nEvery cited sentence still holds.\n");
    } else {
        out.push_str(&format!(
            "\n{} sentence(s) no longer hold:\n\n",
            recheck.lost.len()
        ));
        for lost in &recheck.lost {
            out.push_str(&format!("- \"{}\" — {}\n", lost.sentence, lost.why));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_gone_only_from_this_computers_library() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let missing = url::Url::from_file_path(root.join("gone.md"))
            .unwrap()
            .to_string();
        let err = FetchError::InvalidUrl("unreadable".into());
        assert_eq!(
            gone(&missing, &err, std::slice::from_ref(&root)),
            Ok(Some("the file no longer exists".into()))
        );
        let elsewhere = url::Url::from_file_path("/home/someone-else/notes/a.md")
            .unwrap()
            .to_string();
        assert!(gone(&elsewhere, &err, &[root])
            .unwrap_err()
            .contains("another computer"));
    }
}
