//! The trust pipeline's reading of a question (seed 002's analyzer and discovery): what is asked
//! (intent, query class, entities, time scope, complexity) and how sure the run can be of it.
//! The model reads the question once; a quick search then checks that its entities are findable,
//! and the run's confidence in its reading is the model's, capped by what the search found. A
//! clarification is asked only below [`CLARIFY_BELOW`], at most [`MAX_CLARIFICATIONS`] times.

use research_graph::NodeError;
use research_search::SearchQuery;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Brief;
use crate::ask::{ask_or, warn, Ctx};
use crate::guard;
use crate::records::{Understanding, Warning, WarningKind};
use crate::roles::Role;

/// Below this confidence in its reading the run asks for a clarification (seed 002).
pub const CLARIFY_BELOW: f64 = 0.7;

pub use super::intake::MAX_CLARIFICATIONS;

/// Hits the discovery search asks for.
const DISCOVERY_HITS: usize = 5;

/// What kind of answer a question wants.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ts_rs::TS,
)]
#[serde(rename_all = "snake_case")]
pub enum QueryClass {
    /// A fact or a short set of facts.
    #[default]
    Factual,
    /// Two or more things weighed against each other.
    Comparative,
    /// A field or a question to survey.
    Exploratory,
}

/// How much research a question needs.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, ts_rs::TS,
)]
#[serde(rename_all = "snake_case")]
pub enum Complexity {
    /// One line of research answers it: the fast path, one agent.
    #[default]
    Simple,
    /// Several independent lines: the orchestrator and parallel workers.
    Complex,
}

/// The reading of a question.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Profile {
    /// What the person wants to know, in one sentence.
    pub intent: String,
    /// Factual, comparative or exploratory.
    pub class: QueryClass,
    /// The things the question is about.
    pub entities: Vec<String>,
    /// The time the question is about, when it names one.
    pub temporal: Option<String>,
    /// Simple (fast path) or complex (orchestrator).
    pub complexity: Complexity,
    /// How sure the run is of its reading, 0 to 1 (the model's, capped by the discovery search).
    pub confidence: f64,
    /// Why that confidence, in words.
    pub why: String,
    /// Clarifications asked so far.
    pub clarifications: u32,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct ProfileOut {
    #[schemars(length(max = 200))]
    intent: String,
    class: QueryClass,
    #[schemars(length(max = 5), inner(length(max = 60)))]
    entities: Vec<String>,
    /// The time period asked about, or an empty string.
    #[schemars(length(max = 60))]
    temporal: String,
    complexity: Complexity,
    /// How sure you are that the reading is the one meant, 0 to 1.
    #[schemars(range(min = 0.0, max = 1.0))]
    confidence: f64,
    #[schemars(length(max = 200))]
    question: String,
    #[schemars(length(max = 5), inner(length(max = 80)))]
    options: Vec<String>,
    #[schemars(length(max = 200))]
    interpretation: String,
}

const ANALYZE: &str = "You analyse a research question before it is researched. Give its intent \
in one sentence; its class: factual (a fact or a few), comparative (things weighed against each \
other) or exploratory (a field to survey); the entities it is about (names of things, people, \
places, products); the time period it asks about, if any; its complexity: simple when one line of \
research answers it, complex when it needs several independent lines; and your confidence, 0 to 1, \
that your reading is the one meant (low when a name has several meanings or the scope is unclear). \
When the confidence is under 0.7, write one short clarification question and 2 to 5 distinct \
options. Always give `interpretation`: the most likely reading in one sentence.";

/// Reads `brief`: the profile and the clarification to ask if one is needed.
pub async fn analyze(
    ctx: &Ctx,
    brief: &Brief,
    clarifications: u32,
) -> Result<(Profile, Understanding, Vec<Warning>), NodeError> {
    let (out, warnings) = ask_or::<ProfileOut>(
        ctx,
        Role::Understand,
        ANALYZE.to_string(),
        brief.block(),
        700,
    )
    .await?;
    let Some(out) = out else {
        // No usable reading: the question as asked, with no claim of certainty either way.
        let profile = Profile {
            intent: brief.query.clone(),
            confidence: 0.5,
            why: "the model gave no usable reading; the question is taken as asked".into(),
            clarifications,
            ..Default::default()
        };
        return Ok((profile, Understanding::default(), warnings));
    };
    let mut entities: Vec<String> = Vec::new();
    for e in out.entities {
        let e = e.trim().to_string();
        // An entity is words of the question's topic, not a label or a fragment.
        if guard::usable_search(&e) && !entities.iter().any(|x| x.eq_ignore_ascii_case(&e)) {
            entities.push(e);
        }
    }
    let mut complexity = out.complexity;
    if out.class == QueryClass::Comparative && entities.len() >= 2 {
        // Two things weighed need a line of research each.
        complexity = Complexity::Complex;
    }
    let mut options: Vec<String> = Vec::new();
    for o in out.options {
        let o = o.trim().to_string();
        if !o.is_empty() && !options.iter().any(|x| x.eq_ignore_ascii_case(&o)) {
            options.push(o);
        }
    }
    let confidence = if out.confidence.is_finite() {
        out.confidence.clamp(0.0, 1.0)
    } else {
        0.5
    };
    let profile = Profile {
        intent: out.intent.trim().to_string(),
        class: out.class,
        entities,
        temporal: Some(out.temporal.trim().to_string()).filter(|t| !t.is_empty()),
        complexity,
        confidence,
        why: format!("the model's confidence in its reading is {confidence:.2}"),
        clarifications,
    };
    let understanding = Understanding {
        is_clear: confidence >= CLARIFY_BELOW,
        ambiguities: Vec::new(),
        question: out.question.trim().to_string(),
        options,
        interpretation: super::intake::reading_of(brief, &out.interpretation),
    };
    Ok((profile, understanding, warnings))
}

/// The discovery search: checks that the profile's entities are findable and caps its
/// confidence by the share that are (no model call).
pub async fn discover(ctx: &Ctx, brief: &Brief, profile: &Profile) -> (Profile, Vec<Warning>) {
    let mut profile = profile.clone();
    let query = guard::fallback_plan(&brief.query, 1).1.into_iter().next();
    let Some(query) = query.filter(|_| !profile.entities.is_empty()) else {
        return (profile, Vec::new());
    };
    let hits = match ctx
        .config
        .search
        .search(
            &SearchQuery::new(query.clone(), DISCOVERY_HITS)
                .among(ctx.config.config.limits().kinds),
        )
        .await
    {
        Ok(hits) => hits,
        Err(e) => {
            let mut w = warn(ctx, format!("the discovery search failed: {e}"));
            w.kind = WarningKind::SearchFailed;
            w.detail = e.to_string();
            return (profile, vec![w]);
        }
    };
    let seen: String = hits
        .iter()
        .map(|h| format!("{} {}", h.title, h.snippet))
        .collect::<Vec<_>>()
        .join(" ");
    let found: Vec<&String> = profile
        .entities
        .iter()
        .filter(|e| guard::shares_content(e, &seen))
        .collect();
    let share = found.len() as f64 / profile.entities.len() as f64;
    if share < profile.confidence {
        let missing: Vec<&str> = profile
            .entities
            .iter()
            .filter(|e| !found.contains(e))
            .map(String::as_str)
            .collect();
        profile.confidence = (share * 100.0).round() / 100.0;
        profile.why = format!(
            "the discovery search (\"{query}\", {} hits) found nothing on {}",
            hits.len(),
            missing.join(", ")
        );
    } else {
        profile.why = format!("{}; the discovery search found every entity", profile.why);
    }
    (profile, Vec::new())
}
