//! Checking any Markdown document against its sources (`research check`): the sources are read
//! as the library reads files and as runs fetch pages, and every sentence gets the citation
//! checker's verdict ([`research_check`]), in the shape of a run's audit.

use std::collections::BTreeMap;
use std::path::Path;

use research_check::document::{claims, Claim};
use research_check::{check_with, Passage, SourceTexts, Status, Weights};
use serde::{Deserialize, Serialize};

use crate::{ApiError, ErrorCode, Studio};

pub use research_check::Weights as CheckWeights;

/// A document with more sentences than this is refused (checking is linear in sentences, but a
/// writer's document has hundreds; more is a corpus, to be split).
pub const MAX_CHECK_SENTENCES: usize = 10_000;

/// A document larger than this is refused before it is read.
pub const MAX_CHECK_DOCUMENT_BYTES: u64 = 16 * 1024 * 1024;

/// Where one source of a checked document is read from: `N=PATH` or `N=URL`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct CheckSource {
    /// The `N` of the document's `[N]` markers.
    #[ts(type = "number")]
    pub id: usize,
    /// A file path, or an `http(s)://` URL.
    pub location: String,
}

impl std::str::FromStr for CheckSource {
    type Err = ApiError;

    fn from_str(spec: &str) -> Result<Self, ApiError> {
        let bad = || {
            ApiError::new(
                ErrorCode::InvalidInput,
                format!(
                    "a source is N=PATH or N=URL (for the marker [N]), not {spec:?}: e.g. \
                     --source 1=notes.md or --source 2=https://example.org/page"
                ),
            )
        };
        let (id, location) = spec.split_once('=').ok_or_else(bad)?;
        let id: usize = id.trim().parse().map_err(|_| bad())?;
        let location = location.trim();
        if location.is_empty() {
            return Err(bad());
        }
        Ok(CheckSource {
            id,
            location: location.to_string(),
        })
    }
}

/// A source's text as the checker reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckedSourceText {
    /// Where it was read from (a path, a URL, or a session source's URL).
    pub location: String,
    /// Its readable text.
    pub text: String,
}

/// What the checker says of a sentence of a checked document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum CheckStatus {
    /// A cited source states it.
    Verified,
    /// A cited source says much of it, not all.
    Partly,
    /// No cited source says it.
    Unsupported,
    /// A cited source says something else about the same thing.
    Contradicted,
    /// It cites nothing (a source that says it may be suggested).
    Uncited,
}

impl CheckStatus {
    /// Every status, in the order a legend lists them.
    pub const ALL: [CheckStatus; 5] = [
        CheckStatus::Verified,
        CheckStatus::Partly,
        CheckStatus::Unsupported,
        CheckStatus::Contradicted,
        CheckStatus::Uncited,
    ];

    /// As written in JSON and in the CLI's text.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckStatus::Verified => "verified",
            CheckStatus::Partly => "partly",
            CheckStatus::Unsupported => "unsupported",
            CheckStatus::Contradicted => "contradicted",
            CheckStatus::Uncited => "uncited",
        }
    }

    /// The mark shown beside a sentence.
    pub fn symbol(self) -> &'static str {
        match self {
            CheckStatus::Verified => "✓",
            CheckStatus::Partly => "~",
            CheckStatus::Unsupported | CheckStatus::Contradicted => "✗",
            CheckStatus::Uncited => "?",
        }
    }

    /// Whether a writer's CI fails on it.
    pub fn fails(self) -> bool {
        matches!(self, CheckStatus::Unsupported | CheckStatus::Contradicted)
    }

    /// What it means, with what a ✓ was measured to be worth (`weights`' held-out precision).
    pub fn meaning(self, weights: &Weights) -> String {
        match self {
            CheckStatus::Verified => match weights.verified_precision {
                Some(p) => format!(
                    "a cited source states it; the checker's verified was right {:.0} times in 100 \
                     against people's judgements on claims it was not fitted on",
                    p * 100.0
                ),
                None => "a cited source states it (these weights do not say how often a verified \
                         was right)"
                    .into(),
            },
            CheckStatus::Partly => {
                "a cited source says much of it, not all, or not clearly enough to call it verified"
                    .into()
            }
            CheckStatus::Unsupported => "no cited source says it".into(),
            CheckStatus::Contradicted => {
                "a cited source says something else about the same thing (another number, or the \
                 opposite)"
                    .into()
            }
            CheckStatus::Uncited => {
                "it cites no source; one that says it is suggested when found".into()
            }
        }
    }
}

impl From<Status> for CheckStatus {
    fn from(status: Status) -> Self {
        match status {
            Status::Verified => CheckStatus::Verified,
            Status::Partly => CheckStatus::Partly,
            Status::Unsupported => CheckStatus::Unsupported,
            Status::Contradicted => CheckStatus::Contradicted,
        }
    }
}

/// A status, its mark and what it means: the legend of a checked document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CheckMeaning {
    /// The status.
    pub status: CheckStatus,
    /// Its mark: ✓, ~, ✗ or ?.
    pub symbol: String,
    /// What it means.
    pub meaning: String,
}

/// One sentence of a checked document, in the shape of a run's audit entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CheckedSentence {
    /// The sentence as the document shows it, with its markers.
    pub sentence: String,
    /// The sources its markers cite (empty: an uncited sentence).
    #[ts(type = "number[]")]
    pub sources: Vec<usize>,
    /// What the checker says of it.
    pub status: CheckStatus,
    /// The source whose passage bears it out best.
    #[ts(type = "number | null")]
    pub source: Option<usize>,
    /// That passage: the best window of one to three sentences of the source.
    pub passage: String,
    /// Why, in words.
    pub check: String,
    /// The calibrated probability that a person calls it attributable to its sources.
    pub score: f64,
    /// The signals the score comes from.
    pub signals: BTreeMap<String, f64>,
    /// For an uncited sentence: the source that says it, to cite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub suggested: Option<usize>,
    /// The model's second opinion, when one was asked (`--llm`): whether it finds the sentence
    /// in the passage. It can only lower `verified`; on `partly` it is recorded, not acted on,
    /// until that path is measured to be right nine times in ten.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub model: Option<bool>,
}

/// The checker's findings on a document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct DocumentCheck {
    /// One entry per sentence.
    pub audit: Vec<CheckedSentence>,
    /// Where each source was read from, by its number.
    #[serde(default)]
    #[ts(type = "Record<number, string>")]
    pub sources: BTreeMap<usize, String>,
    /// What each status means, with the measured precision of verified.
    #[serde(default)]
    pub legend: Vec<CheckMeaning>,
}

impl DocumentCheck {
    /// Whether a sentence is unsupported or contradicted (a writer's CI fails on it).
    pub fn fails(&self) -> bool {
        self.audit.iter().any(|s| s.status.fails())
    }

    /// How many sentences have `status`.
    pub fn count(&self, status: CheckStatus) -> usize {
        self.audit.iter().filter(|s| s.status == status).count()
    }
}

/// A document to check and where its sources are: the app's "Check a document".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CheckRequest {
    /// The Markdown text whose `[N]` markers cite the sources.
    pub document: String,
    /// Where each source is read from (ignored with `session`).
    #[serde(default)]
    pub sources: Vec<CheckSource>,
    /// Check against the sources of this session's latest run instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub session: Option<String>,
}

/// Reads a weights file for [`check_document`] ("calibrate your own": the format of the
/// committed `crates/check/weights.txt`).
pub fn read_weights(path: &Path) -> Result<Weights, ApiError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        ApiError::new(
            ErrorCode::InvalidInput,
            format!("could not read the weights file {}: {e}", path.display()),
        )
    })?;
    Weights::parse(&text).map_err(|e| {
        ApiError::new(
            ErrorCode::InvalidInput,
            format!("the weights file {} is not valid: {e}", path.display()),
        )
    })
}

/// A document chosen to check (the app's file picker): where it is and its text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct ChosenDocument {
    /// The file's path.
    pub path: String,
    /// Its text.
    pub text: String,
}

impl ChosenDocument {
    /// Reads the document at `path` ([`read_check_document`]'s checks).
    pub fn read(path: &Path) -> Result<Self, ApiError> {
        Ok(ChosenDocument {
            path: path.display().to_string(),
            text: read_check_document(path)?,
        })
    }
}

/// Reads the document to check: a text file of at most [`MAX_CHECK_DOCUMENT_BYTES`].
pub fn read_check_document(path: &Path) -> Result<String, ApiError> {
    let meta = std::fs::metadata(path).map_err(|e| {
        ApiError::new(
            ErrorCode::NotFound,
            format!("could not read the document {}: {e}", path.display()),
        )
    })?;
    if !meta.is_file() {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            format!("the document {} is not a file", path.display()),
        ));
    }
    if meta.len() > MAX_CHECK_DOCUMENT_BYTES {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            format!(
                "the document {} is larger than {} MB; split it",
                path.display(),
                MAX_CHECK_DOCUMENT_BYTES / (1024 * 1024)
            ),
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| {
        ApiError::new(
            ErrorCode::Storage,
            format!("could not read the document {}: {e}", path.display()),
        )
    })?;
    if bytes.contains(&0) {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            format!(
                "the document {} is binary data, not Markdown or text",
                path.display()
            ),
        ));
    }
    String::from_utf8(bytes).map_err(|_| {
        ApiError::new(
            ErrorCode::InvalidInput,
            format!("the document {} is not UTF-8 text", path.display()),
        )
    })
}

/// Reads each source: a URL through the fetch guard (private and local addresses only when
/// `allowed_hosts` names them), anything else as a file, read as the library reads its files.
pub async fn read_check_sources(
    sources: &[CheckSource],
    allowed_hosts: &[String],
) -> Result<BTreeMap<usize, CheckedSourceText>, ApiError> {
    let mut out = BTreeMap::new();
    for s in sources {
        if out.contains_key(&s.id) {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                format!("source {} is given twice", s.id),
            ));
        }
        let remote = s.location.starts_with("http://") || s.location.starts_with("https://");
        let document = if remote {
            crate::fetch(&s.location, allowed_hosts)
                .await
                .map_err(|e| ApiError {
                    message: format!("source {} ({}): {}", s.id, s.location, e.message),
                    ..e
                })?
        } else {
            let path = Path::new(&s.location);
            let extractor = research_fetch::Extractor::for_this_program();
            let read = {
                let path = path.to_path_buf();
                tokio::task::spawn_blocking(move || research_library::read_file(&path, &extractor))
                    .await
                    .map_err(|e| {
                        ApiError::new(ErrorCode::Storage, format!("reading a source failed: {e}"))
                    })?
            };
            read.map_err(|e| {
                let code = if path.exists() {
                    ErrorCode::InvalidInput
                } else {
                    ErrorCode::NotFound
                };
                let reason = match e {
                    research_fetch::FetchError::NoText { reason, .. } => reason,
                    other => other.to_string(),
                };
                ApiError::new(
                    code,
                    format!("source {} ({}) cannot be read: {reason}", s.id, s.location),
                )
            })?
        };
        let text = research_check::text::readable(&document.text);
        if text.trim().is_empty() {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                format!("source {} ({}) has no text", s.id, s.location),
            ));
        }
        out.insert(
            s.id,
            CheckedSourceText {
                location: s.location.clone(),
                text,
            },
        );
    }
    Ok(out)
}

impl Studio {
    /// The sources of a session's latest run, by citation number, with their stored texts.
    pub fn check_sources_of_session(
        &self,
        session_id: &str,
    ) -> Result<BTreeMap<usize, CheckedSourceText>, ApiError> {
        let sessions = self.sessions();
        let report = self.latest_report(session_id, "it has no sources to check against")?;
        let mut out = BTreeMap::new();
        for row in sessions.sources(&report.thread_id)? {
            if let Some(text) = sessions.document(&row.sha256)? {
                out.insert(
                    row.source_id as usize,
                    CheckedSourceText {
                        location: row.url,
                        text: research_check::text::readable(&text),
                    },
                );
            }
        }
        Ok(out)
    }
}

/// Checks every sentence of `markdown` against `sources` with `weights`: a sentence with
/// markers against the sources it cites, one without against every source (naming the one
/// that says it, to cite). Errors: an empty document, one over [`MAX_CHECK_SENTENCES`]
/// sentences, a marker naming no given source.
pub fn check_document(
    markdown: &str,
    sources: &BTreeMap<usize, CheckedSourceText>,
    weights: &Weights,
) -> Result<DocumentCheck, ApiError> {
    let claims: Vec<Claim> = claims(markdown);
    if claims.is_empty() {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            "the document has no sentences to check",
        ));
    }
    if claims.len() > MAX_CHECK_SENTENCES {
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            format!(
                "the document has {} sentences; research check reads at most {MAX_CHECK_SENTENCES} \
                 at once: split it",
                claims.len()
            ),
        ));
    }
    let mut unknown: Vec<usize> = claims
        .iter()
        .flat_map(|c| c.sources.iter().copied())
        .filter(|n| !sources.contains_key(n))
        .collect();
    unknown.sort_unstable();
    unknown.dedup();
    if !unknown.is_empty() {
        let list: Vec<String> = unknown.iter().map(|n| format!("[{n}]")).collect();
        let given: Vec<String> = sources.keys().map(|n| n.to_string()).collect();
        return Err(ApiError::new(
            ErrorCode::InvalidInput,
            format!(
                "the document cites {} but no such source was given ({}); add --source N=PATH|URL \
                 for each",
                list.join(", "),
                if given.is_empty() {
                    "no sources were given".to_string()
                } else {
                    format!("the sources are {}", given.join(", "))
                }
            ),
        ));
    }
    let mut texts = SourceTexts::new();
    for (id, s) in sources {
        texts.insert(*id, &s.text);
    }
    let all: Vec<Passage<'_>> = sources
        .iter()
        .map(|(id, s)| Passage {
            source: *id,
            text: &s.text,
        })
        .collect();
    let mut audit = Vec::with_capacity(claims.len());
    for claim in claims {
        let cited: Vec<Passage<'_>> = all
            .iter()
            .filter(|p| claim.sources.contains(&p.source))
            .copied()
            .collect();
        let uncited = cited.is_empty();
        let verdict = check_with(
            &claim.text,
            if uncited { &all } else { &cited },
            &texts,
            weights,
        );
        let (status, check, suggested) = if uncited {
            match (verdict.status, verdict.source) {
                (Status::Verified | Status::Partly, Some(n)) => (
                    CheckStatus::Uncited,
                    format!(
                        "uncited: source [{n}] says it, cite it ({})",
                        verdict.reason
                    ),
                    Some(n),
                ),
                _ => (
                    CheckStatus::Uncited,
                    "uncited: no source says it (an uncited claim)".to_string(),
                    None,
                ),
            }
        } else {
            (verdict.status.into(), verdict.reason, None)
        };
        audit.push(CheckedSentence {
            sentence: claim.text,
            sources: claim.sources,
            status,
            source: verdict.source,
            passage: verdict.aligned,
            check,
            score: verdict.score,
            signals: verdict
                .signals
                .named()
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            suggested,
            model: None,
        });
    }
    Ok(DocumentCheck {
        audit,
        sources: sources
            .iter()
            .map(|(id, s)| (*id, s.location.clone()))
            .collect(),
        legend: CheckStatus::ALL
            .iter()
            .map(|&status| CheckMeaning {
                status,
                symbol: status.symbol().into(),
                meaning: status.meaning(weights),
            })
            .collect(),
    })
}

/// Asks `llm` for its second opinion on every cited sentence the checker verified or found
/// partly said (in batches, the audit's question: [`verdict_request`]): a "no" lowers
/// `verified` to `partly`, with the reason; nothing is raised. A call that fails leaves the
/// checker's verdicts and is returned as the error's words in `Ok`, so a document is never
/// lost to a model.
pub async fn second_opinion(
    found: &mut DocumentCheck,
    llm: &str,
    connect: &crate::ConnectSettings,
) -> Result<Option<String>, ApiError> {
    use research_pipeline::steps::verify::{read_verdicts, verdict_request, VERDICTS_PER_CALL};
    let asked: Vec<usize> = found
        .audit
        .iter()
        .enumerate()
        .filter(|(_, s)| {
            matches!(s.status, CheckStatus::Verified | CheckStatus::Partly)
                && !s.sources.is_empty()
                && !s.passage.is_empty()
        })
        .map(|(i, _)| i)
        .collect();
    let claims: Vec<(String, String)> = asked
        .iter()
        .map(|&i| {
            let s = &found.audit[i];
            (
                research_check::words::without_citations(&s.sentence)
                    .trim()
                    .to_string(),
                s.passage.clone(),
            )
        })
        .collect();
    let mut problem = None;
    for (batch_at, batch) in claims.chunks(VERDICTS_PER_CALL).enumerate() {
        let pairs: Vec<(&str, &str)> = batch
            .iter()
            .map(|(c, p)| (c.as_str(), p.as_str()))
            .collect();
        let (system, prompt, schema) = verdict_request(&pairs);
        let answer = crate::ask(
            crate::AskRequest {
                prompt,
                llm: llm.to_string(),
                system: Some(system.to_string()),
                schema: Some(schema),
            },
            connect,
            None,
        )
        .await;
        let verdicts = match answer {
            Ok(a) => read_verdicts(&a.json.unwrap_or_default(), pairs.len()),
            Err(e) if e.code == ErrorCode::InvalidInput => return Err(e),
            Err(e) => {
                problem = Some(format!(
                    "the model's second opinion was not had ({}); the checker's verdicts stand",
                    e.message
                ));
                break;
            }
        };
        for (k, verdict) in verdicts.into_iter().enumerate() {
            let s = &mut found.audit[asked[batch_at * VERDICTS_PER_CALL + k]];
            s.model = verdict;
            if verdict == Some(false) && s.status == CheckStatus::Verified {
                s.status = CheckStatus::Partly;
                s.check = format!(
                    "partly: the model does not find it in the passage, though the checker did ({})",
                    s.check
                );
            }
        }
    }
    Ok(problem)
}

impl Studio {
    /// Checks a document against its sources (files, URLs through the fetch guard with the
    /// settings' allowed hosts, or a session's) with the committed weights: the app's "Check a
    /// document".
    pub async fn check_document(&self, request: CheckRequest) -> Result<DocumentCheck, ApiError> {
        if request.document.len() as u64 > MAX_CHECK_DOCUMENT_BYTES {
            return Err(ApiError::new(
                ErrorCode::InvalidInput,
                format!(
                    "the document is larger than {} MB; split it",
                    MAX_CHECK_DOCUMENT_BYTES / (1024 * 1024)
                ),
            ));
        }
        let sources = match &request.session {
            Some(id) => {
                let id = id.clone();
                self.blocking(move |s| s.check_sources_of_session(&id))
                    .await?
            }
            None => {
                if request.sources.is_empty() {
                    return Err(ApiError::new(
                        ErrorCode::InvalidInput,
                        "add the sources the document cites ([1] is the first), or choose a session whose sources it cites",
                    ));
                }
                let hosts = self.settings()?.allowed_hosts;
                read_check_sources(&request.sources, &hosts).await?
            }
        };
        let weights = Weights::active().clone();
        tokio::task::spawn_blocking(move || check_document(&request.document, &sources, &weights))
            .await
            .map_err(|e| ApiError::new(ErrorCode::Storage, format!("the check stopped: {e}")))?
    }
}
