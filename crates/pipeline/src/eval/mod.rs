//! The result of a run as the CLI prints it (`research run --json`) and the ten structural checks
//! of seed 004's evaluation suite, used by the tests and by `research eval`.

use std::collections::BTreeSet;

use research_llm::UsageTotals;
use serde::{Deserialize, Serialize};

use crate::pipelines::standard::ResearchState;
use crate::records::{Claim, Evidence, Outcome, Source};
use crate::report::cited_ids;

pub mod cases;

/// Counts and settings of a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct Metadata {
    /// `single` or `multi`.
    pub mode: String,
    /// Rounds of the gap or synthesis loop.
    pub iterations: u32,
    /// Searches run.
    pub queries: Vec<String>,
    /// Searches skipped as near-duplicates.
    pub queries_skipped: Vec<String>,
    /// Sources read.
    pub sources_count: usize,
    /// Evidence items.
    pub evidence_count: usize,
    /// Model calls.
    pub llm_calls: u64,
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Estimated cost in US dollars (a lower bound when some prices are unknown).
    pub cost_usd: f64,
    /// Wall time from start to the report, ms.
    pub wall_ms: i64,
    /// Claims supported by their quotes.
    pub claims_supported: usize,
    /// Claims checked.
    pub claims_total: usize,
    /// Supported / total.
    pub confidence: f64,
    /// Coverage of the research questions.
    pub coverage: f64,
    /// Coverage after each round.
    pub coverage_history: Vec<f64>,
    /// The report's language.
    pub language: String,
    /// How the run ended.
    pub outcome: Outcome,
    /// Models per role.
    pub models: std::collections::BTreeMap<String, String>,
    /// Model use per graph node.
    pub usage_by_node: std::collections::BTreeMap<String, UsageTotals>,
    /// Warnings.
    pub warnings: Vec<String>,
    /// The model's searches and research questions the run refused, each with why.
    pub refused: Vec<String>,
    /// Evidence items on the question or an accepted research question: the only ones the
    /// report may cite and the confidence and coverage count.
    pub evidence_on_question: usize,
}

/// One run's result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct RunResult {
    /// The thread of the run.
    pub thread_id: String,
    /// The question.
    pub question: String,
    /// The report (Markdown).
    pub report: String,
    /// Sources read.
    pub sources: Vec<Source>,
    /// Evidence with verbatim quotes.
    pub evidence: Vec<Evidence>,
    /// Checked claims.
    pub claims: Vec<Claim>,
    /// The plan's research questions.
    pub research_questions: Vec<String>,
    /// The audit of the report's cited sentences.
    pub audit: Vec<crate::steps::audit::AuditEntry>,
    /// The review pipeline's drafts with their reviews (absent in other pipelines).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review: Option<crate::steps::review::ReviewRecord>,
    /// The trust pipeline's reading of the question (absent in other pipelines).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub profile: Option<crate::steps::profile::Profile>,
    /// The trust pipeline's research tree: question levels, typed searches, outline (absent in
    /// other pipelines).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub tree: Option<crate::steps::tree::ResearchTree>,
    /// The trust engine's record: credibility, cross-validated claims, hallucination score
    /// (absent in other pipelines).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub trust: Option<crate::steps::trust::TrustRecord>,
    /// Every round's search hits, merged and ranked against the question before the source
    /// cap chose what to read (best first within a round; `picked` marks those read).
    pub ranked_hits: Vec<crate::records::RankedHit>,
    /// Counts and settings.
    pub metadata: Metadata,
}

impl Metadata {
    /// Fills the usage counters from the run's meter and records the models per role.
    pub fn with_usage(
        &mut self,
        meter: &research_llm::Meter,
        models: std::collections::BTreeMap<String, String>,
    ) {
        let usage = meter.totals();
        self.llm_calls = usage.calls;
        self.prompt_tokens = usage.prompt_tokens;
        self.completion_tokens = usage.completion_tokens;
        self.cost_usd = usage.cost_usd;
        self.models = models;
        self.usage_by_node = meter.by_node();
    }
}

impl RunResult {
    /// The result of a standard-pipeline state.
    pub fn from_state(
        thread_id: &str,
        state: &ResearchState,
        meter: &research_llm::Meter,
        models: std::collections::BTreeMap<String, String>,
    ) -> Self {
        let mut result = crate::pipelines::standard::result_of(state);
        result.thread_id = thread_id.to_string();
        result.metadata.with_usage(meter, models);
        result
    }
}

/// The outcome of one check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// The check's name.
    pub name: &'static str,
    /// Whether it passed.
    pub passed: bool,
    /// Why not, when it failed.
    pub detail: String,
}

fn check(name: &'static str, problems: Vec<String>) -> Check {
    Check {
        name,
        passed: problems.is_empty(),
        detail: problems.join("; "),
    }
}

/// Runs the ten structural checks.
pub fn structural_checks(r: &RunResult) -> Vec<Check> {
    let report = r.report.trim();
    let ids: BTreeSet<u32> = r.sources.iter().map(|s| s.id).collect();
    let cited = cited_ids(report);
    let mut out = Vec::new();

    let mut p = Vec::new();
    if !report.starts_with("# ") {
        p.push("no title".to_string());
    }
    if report.lines().filter(|l| l.starts_with("## ")).count() < 2 {
        p.push("fewer than two sections".into());
    }
    let has_sources = report
        .lines()
        .any(|l| l.starts_with("## ") && (l.contains("Sources") || l.contains("出典")));
    if !has_sources {
        p.push("no sources section".into());
    }
    out.push(check("markdown_structure", p));

    // A report that opens with an abstract keeps the academic frame (seed 000): its length, and
    // a conclusion after it.
    let opens_with_abstract = report
        .lines()
        .find_map(|l| l.strip_prefix("## "))
        .is_some_and(crate::steps::write::frame::is_abstract);
    out.push(check(
        "academic_frame",
        if opens_with_abstract {
            crate::steps::write::frame::problems(report)
                .iter()
                .map(|p| p.to_string())
                .collect()
        } else {
            Vec::new()
        },
    ));

    out.push(check(
        "citations_present",
        if cited.is_empty() {
            vec!["no [n] citation markers".into()]
        } else {
            vec![]
        },
    ));

    let bad: Vec<String> = cited
        .iter()
        .filter(|c| !ids.contains(c))
        .map(|c| format!("[{c}] names no source"))
        .collect();
    out.push(check("citations_map_to_sources", bad));

    let m = &r.metadata;
    let mut p = Vec::new();
    if m.mode.is_empty() {
        p.push("mode missing".to_string());
    }
    if m.language.is_empty() {
        p.push("language missing".into());
    }
    if m.sources_count != r.sources.len() {
        p.push(format!(
            "sources_count {} but {} sources",
            m.sources_count,
            r.sources.len()
        ));
    }
    if m.evidence_count != r.evidence.len() {
        p.push(format!(
            "evidence_count {} but {} evidence items",
            m.evidence_count,
            r.evidence.len()
        ));
    }
    if m.claims_total != r.claims.len()
        || m.claims_supported != r.claims.iter().filter(|c| c.supported).count()
    {
        p.push("claim counts do not match the claims".into());
    }
    if m.llm_calls == 0 {
        p.push("no model calls recorded".into());
    }
    out.push(check("metadata_complete", p));

    out.push(check(
        "evidence_populated",
        if r.evidence.is_empty() {
            vec!["no evidence".into()]
        } else {
            vec![]
        },
    ));

    let mut p = Vec::new();
    for (name, v) in [("coverage", m.coverage), ("confidence", m.confidence)] {
        if !(0.0..=1.0).contains(&v) || v.is_nan() {
            p.push(format!("{name} {v} outside [0, 1]"));
        }
    }
    if m.claims_total > 0 {
        let ratio = m.claims_supported as f64 / m.claims_total as f64;
        if (ratio - m.confidence).abs() > 1e-9 {
            p.push(format!(
                "confidence {} is not supported/total {ratio}",
                m.confidence
            ));
        }
    }
    if let Some(t) = &r.trust {
        // The trust pipeline's scores: each a share, and each mark what its sources bear out.
        let mut scores = vec![("hallucination score".to_string(), t.hallucination)];
        scores.extend(
            t.credibility
                .iter()
                .map(|c| (format!("credibility of source {}", c.source_id), c.score)),
        );
        scores.extend(
            t.claims
                .iter()
                .enumerate()
                .map(|(i, c)| (format!("confidence of claim {}", i + 1), c.confidence)),
        );
        for (name, v) in scores {
            if !(0.0..=1.0).contains(&v) || v.is_nan() {
                p.push(format!("{name} {v} outside [0, 1]"));
            }
        }
        if t.unsupported > t.writer_claims {
            p.push(format!(
                "{} unsupported of {} writer claims",
                t.unsupported, t.writer_claims
            ));
        }
        for c in &t.claims {
            let corroborated = c.mark == crate::steps::trust::corroborate::TrustMark::Corroborated;
            if corroborated && c.origins < 2 {
                p.push(format!(
                    "a ✓✓ claim with {} origin: {}",
                    c.origins, c.sentence
                ));
            }
        }
    }
    out.push(check("scores_in_bounds", p));

    // Japanese has no spaces: count characters as words there.
    let words = report
        .split_whitespace()
        .count()
        .max(report.chars().filter(|c| *c as u32 >= 0x2E80).count() / 2);
    out.push(check(
        "report_minimum_length",
        if words < 200 {
            vec![format!("{words} words, fewer than 200")]
        } else {
            vec![]
        },
    ));

    let p: Vec<String> = r
        .evidence
        .iter()
        .filter(|e| {
            e.fact.trim().is_empty() || e.quote.trim().is_empty() || !ids.contains(&e.source_id)
        })
        .map(|e| format!("evidence {} lacks a fact, a quote or a known source", e.id))
        .collect();
    out.push(check("evidence_fields", p));

    let p: Vec<String> = r
        .sources
        .iter()
        .filter(|s| s.url.trim().is_empty() || s.title.trim().is_empty())
        .map(|s| format!("source {} lacks a URL or title", s.id))
        .collect();
    out.push(check("sources_have_urls", p));

    out.push(check(
        "no_empty_report",
        if report.is_empty() {
            vec!["the report is empty".into()]
        } else {
            vec![]
        },
    ));
    out
}

/// LLM-as-judge evaluators (seed 004): relevance, groundedness, completeness, quality and
/// citation faithfulness, each a structured answer from a judge model. Useful with a strong
/// model; a small local one will give scores, not judgement.
pub mod judge {
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    use research_llm::{generate, ChatRequest, LlmClient, LlmError, Message};

    use super::RunResult;

    /// Relevance: does the report answer the question?
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
    pub struct Relevance {
        /// 1 (off topic) to 5 (answers it fully).
        #[schemars(range(min = 1, max = 5))]
        pub score: u8,
        /// Why.
        #[schemars(length(max = 400))]
        pub reasoning: String,
    }

    /// Groundedness: factual claims of the report checked against the run's evidence.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
    pub struct Groundedness {
        /// Claims found in the report.
        #[schemars(range(min = 0, max = 100))]
        pub claims: u32,
        /// Of those, claims the evidence supports.
        #[schemars(range(min = 0, max = 100))]
        pub grounded: u32,
        /// Claims not supported.
        #[schemars(length(max = 10), inner(length(max = 200)))]
        pub ungrounded: Vec<String>,
    }

    /// Completeness: the report against the plan's research questions.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
    pub struct Completeness {
        /// 1 to 5.
        #[schemars(range(min = 1, max = 5))]
        pub score: u8,
        /// Questions the report answers.
        #[schemars(length(max = 10), inner(length(max = 200)))]
        pub covered: Vec<String>,
        /// Questions it leaves open.
        #[schemars(length(max = 10), inner(length(max = 200)))]
        pub missed: Vec<String>,
    }

    /// Quality: five sub-scores, 1 to 5 each.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
    pub struct Quality {
        /// Depth of research.
        #[schemars(range(min = 1, max = 5))]
        pub depth: u8,
        /// Diversity of sources.
        #[schemars(range(min = 1, max = 5))]
        pub source_diversity: u8,
        /// Analytical rigour.
        #[schemars(range(min = 1, max = 5))]
        pub rigor: u8,
        /// Clarity of writing.
        #[schemars(range(min = 1, max = 5))]
        pub clarity: u8,
        /// How well citations are woven in.
        #[schemars(range(min = 1, max = 5))]
        pub citation_integration: u8,
    }

    /// Citation faithfulness: do the citations say what the report says they do?
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
    pub struct Faithfulness {
        /// 1 to 5.
        #[schemars(range(min = 1, max = 5))]
        pub score: u8,
        /// Citations that misrepresent their source.
        #[schemars(length(max = 10), inner(length(max = 200)))]
        pub problems: Vec<String>,
    }

    /// All five verdicts.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct Verdicts {
        /// Relevance.
        pub relevance: Relevance,
        /// Groundedness.
        pub groundedness: Groundedness,
        /// Completeness.
        pub completeness: Completeness,
        /// Quality.
        pub quality: Quality,
        /// Citation faithfulness.
        pub citation_faithfulness: Faithfulness,
    }

    fn evidence(r: &RunResult) -> String {
        r.evidence
            .iter()
            .map(|e| format!("[{}] {} — \"{}\"\n", e.source_id, e.fact, e.quote))
            .collect()
    }

    async fn ask<T: JsonSchema + serde::de::DeserializeOwned>(
        judge: &dyn LlmClient,
        purpose: &str,
        task: &str,
        material: String,
    ) -> Result<T, LlmError> {
        let mut request = ChatRequest::new(vec![
            Message::system(format!(
                "You are a strict evaluator of research reports. {task} Answer in JSON."
            )),
            Message::user(material),
        ])
        .purpose(purpose);
        request.temperature = Some(0.0);
        request.max_tokens = Some(800);
        Ok(generate::<T>(judge, request, None).await?.value)
    }

    /// Runs the five evaluators on `result` with `judge`.
    pub async fn judge(judge: &dyn LlmClient, r: &RunResult) -> Result<Verdicts, LlmError> {
        let report = format!("Question: {}\n\nReport:\n{}", r.question, r.report);
        let with_evidence = format!("{report}\n\nEvidence collected:\n{}", evidence(r));
        let questions: String = r
            .research_questions
            .iter()
            .map(|q| format!("- {q}\n"))
            .collect();
        Ok(Verdicts {
            relevance: ask(judge, "judge_relevance", "Score 1-5 how well the report answers the question, section by section.", report.clone()).await?,
            groundedness: ask(judge, "judge_groundedness", "List the report's factual claims and count how many the evidence supports.", with_evidence.clone()).await?,
            completeness: ask(judge, "judge_completeness", "Say which planned research questions the report answers and which it misses, and score 1-5.", format!("{report}\n\nPlanned questions:\n{questions}")).await?,
            quality: ask(judge, "judge_quality", "Score 1-5 each: research depth, source diversity, analytical rigor, clarity, citation integration.", report.clone()).await?,
            citation_faithfulness: ask(judge, "judge_faithfulness", "Check whether each inline citation [n] represents what evidence [n] says; score 1-5.", with_evidence).await?,
        })
    }
}
