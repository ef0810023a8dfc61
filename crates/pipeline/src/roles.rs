//! The one list of model roles. A role is what a model call is for; the user routes roles to
//! models (a default model, a fast model, per-role overrides), the estimate prices calls by role,
//! and the app shows roles in words. Everything above this crate reads roles from here (or from
//! the generated TypeScript), so adding a role is one variant and one row below.

use research_llm::{ModelRouting, RoleModels};
use serde::{Deserialize, Serialize};

/// What a model call is for.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ts_rs::TS,
)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Reading the question: is it clear, what are its readings.
    Understand,
    /// Planning research questions and searches.
    Plan,
    /// Taking facts from a page by sentence number.
    Extract,
    /// Judging coverage and naming gaps (single agent).
    Gaps,
    /// Splitting the work between workers (multi agent).
    Orchestrate,
    /// A worker's summary of what it found.
    Summarize,
    /// Combining the workers' findings.
    Synthesize,
    /// Checking claims against their quotes.
    Verify,
    /// Themes, contradictions and gaps across the evidence, before writing (review pipeline).
    Analyze,
    /// Writing (and revising) the report.
    Write,
    /// Reviewing a draft against the six criteria (review pipeline).
    Review,
}

/// What the app and the estimate need to know of a role.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct RoleInfo {
    /// The role.
    pub role: Role,
    /// What it does, in words for the app.
    pub words: String,
    /// Whether the fast model answers it unless a per-role model is set.
    pub fast: bool,
    /// Typical prompt tokens of one call (for estimates).
    pub prompt_tokens: u64,
    /// Typical completion tokens of one call (for estimates).
    pub completion_tokens: u64,
}

impl Role {
    /// Every role, in the order a run reaches them.
    pub const ALL: [Role; 11] = [
        Role::Understand,
        Role::Plan,
        Role::Extract,
        Role::Gaps,
        Role::Orchestrate,
        Role::Summarize,
        Role::Synthesize,
        Role::Verify,
        Role::Analyze,
        Role::Write,
        Role::Review,
    ];

    /// The role's name (as in settings and saved routings).
    pub fn name(self) -> &'static str {
        match self {
            Role::Understand => "understand",
            Role::Plan => "plan",
            Role::Extract => "extract",
            Role::Gaps => "gaps",
            Role::Orchestrate => "orchestrate",
            Role::Summarize => "summarize",
            Role::Synthesize => "synthesize",
            Role::Verify => "verify",
            Role::Analyze => "analyze",
            Role::Write => "write",
            Role::Review => "review",
        }
    }

    /// Whether the fast model answers this role unless overridden: the high-volume, narrow
    /// tasks (reading the question, extraction, checking, worker summaries).
    pub fn fast(self) -> bool {
        matches!(
            self,
            Role::Understand | Role::Extract | Role::Verify | Role::Summarize
        )
    }

    /// Typical (prompt, completion) tokens of one call, for estimates.
    pub fn typical_tokens(self) -> (u64, u64) {
        match self {
            Role::Understand => (600, 200),
            Role::Plan => (900, 500),
            Role::Extract => (1_600, 350),
            Role::Gaps => (1_400, 300),
            Role::Orchestrate => (900, 300),
            Role::Summarize => (1_800, 400),
            Role::Synthesize => (2_500, 500),
            Role::Verify => (2_500, 600),
            Role::Analyze => (3_000, 500),
            Role::Write => (4_500, 1_500),
            Role::Review => (3_500, 700),
        }
    }

    /// What the role does, in the app's words.
    pub fn words(self) -> &'static str {
        match self {
            Role::Understand => "Reading the question",
            Role::Plan => "Planning",
            Role::Extract => "Taking facts from pages",
            Role::Gaps => "Finding gaps",
            Role::Orchestrate => "Splitting the work (multi-agent)",
            Role::Summarize => "Worker summaries (multi-agent)",
            Role::Synthesize => "Combining findings (multi-agent)",
            Role::Verify => "Checking claims",
            Role::Analyze => "Analysing themes and contradictions (review pipeline)",
            Role::Write => "Writing the report",
            Role::Review => "Reviewing drafts (review pipeline)",
        }
    }

    /// The role of this name.
    pub fn from_name(name: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.name() == name)
    }

    /// The model string this role's calls go to under `routing`.
    pub fn model(self, routing: &ModelRouting) -> &str {
        routing.model_for(self.name(), self.fast())
    }

    /// The metered client for this role, its calls counted against `node`.
    pub fn client(self, models: &RoleModels, node: &str) -> research_llm::Metered {
        models.for_role(self.name(), self.fast(), node)
    }

    /// Everything the app shows of this role.
    pub fn info(self) -> RoleInfo {
        let (prompt_tokens, completion_tokens) = self.typical_tokens();
        RoleInfo {
            role: self,
            words: self.words().to_string(),
            fast: self.fast(),
            prompt_tokens,
            completion_tokens,
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_match_serde() {
        for role in Role::ALL {
            assert_eq!(Role::from_name(role.name()), Some(role));
            assert_eq!(
                serde_json::to_value(role).unwrap(),
                serde_json::json!(role.name())
            );
        }
    }

    #[test]
    fn the_fast_model_answers_fast_roles_unless_overridden() {
        let mut routing = ModelRouting {
            model: "openai:gpt-4o".into(),
            fast_model: Some("openai:gpt-4o-mini".into()),
            ..Default::default()
        };
        routing
            .roles
            .insert("write".into(), "anthropic:claude-sonnet-4-5".into());
        assert_eq!(Role::Plan.model(&routing), "openai:gpt-4o");
        assert_eq!(Role::Extract.model(&routing), "openai:gpt-4o-mini");
        assert_eq!(Role::Write.model(&routing), "anthropic:claude-sonnet-4-5");
    }
}
