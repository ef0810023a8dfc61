//! The enumerated choices of `research run`, and the run configuration they make.
//!
//! The library types ([`Mode`], [`Depth`], [`Structure`]) stay free of clap; these CLI-side
//! mirrors give clap the valid values, so a wrong one is an error that lists them.

use std::ffi::OsStr;

use clap::builder::{EnumValueParser, PossibleValue, TypedValueParser};
use clap::ValueEnum;
use research_api::{
    ApiError, Background, Budget, Depth, ErrorCode, Mode, ModelRouting, ReviewPoints,
    ReviewTimeout, RunConfig, Structure, Style, TimeoutAction, TrustVariant,
};

use super::RunArgs;

/// `--mode`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum ModeArg {
    Single,
    Multi,
}

impl From<ModeArg> for Mode {
    fn from(mode: ModeArg) -> Self {
        match mode {
            ModeArg::Single => Mode::Single,
            ModeArg::Multi => Mode::Multi,
        }
    }
}

/// `--depth`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum DepthArg {
    Quick,
    Standard,
    Comprehensive,
}

impl From<DepthArg> for Depth {
    fn from(depth: DepthArg) -> Self {
        match depth {
            DepthArg::Quick => Depth::Quick,
            DepthArg::Standard => Depth::Standard,
            DepthArg::Comprehensive => Depth::Comprehensive,
        }
    }
}

/// `--structure`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum StructureArg {
    Detailed,
    Concise,
    BulletPoints,
}

impl From<StructureArg> for Structure {
    fn from(structure: StructureArg) -> Self {
        match structure {
            StructureArg::Detailed => Structure::Detailed,
            StructureArg::Concise => Structure::Concise,
            StructureArg::BulletPoints => Structure::BulletPoints,
        }
    }
}

/// `--on-timeout`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum OnTimeoutArg {
    Approve,
    Stop,
}

impl From<OnTimeoutArg> for TimeoutAction {
    fn from(action: OnTimeoutArg) -> Self {
        match action {
            OnTimeoutArg::Approve => TimeoutAction::Approve,
            OnTimeoutArg::Stop => TimeoutAction::Stop,
        }
    }
}

/// `--as`: what a question asked in an open session is, when the person says.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum TurnArg {
    FollowUp,
    TopicChange,
    Cancel,
}

impl From<TurnArg> for research_api::TurnKind {
    fn from(kind: TurnArg) -> Self {
        use research_api::TurnKind;
        match kind {
            TurnArg::FollowUp => TurnKind::FollowUp,
            TurnArg::TopicChange => TurnKind::TopicChange,
            TurnArg::Cancel => TurnKind::Cancel,
        }
    }
}

/// `--trust`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum TrustArg {
    Batched,
    Full,
}

impl From<TrustArg> for TrustVariant {
    fn from(variant: TrustArg) -> Self {
        match variant {
            TrustArg::Batched => TrustVariant::Batched,
            TrustArg::Full => TrustVariant::Full,
        }
    }
}

/// `--style`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum StyleArg {
    Academic,
    Technical,
    Executive,
}

impl From<StyleArg> for Style {
    fn from(style: StyleArg) -> Self {
        match style {
            StyleArg::Academic => Style::Academic,
            StyleArg::Technical => Style::Technical,
            StyleArg::Executive => Style::Executive,
        }
    }
}

/// One of `--review`'s comma-separated points.
#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum ReviewPoint {
    Clarify,
    Plan,
    Report,
    None,
}

/// Parses one `--review` point as it always was: spaces around it are ignored, and an empty one
/// (`--review ""`, `clarify,,plan`) stands for nothing, like `none`.
#[derive(Clone)]
pub struct ReviewPointParser;

impl TypedValueParser for ReviewPointParser {
    type Value = ReviewPoint;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<ReviewPoint, clap::Error> {
        let value = value.to_str().map_or(value, |s| OsStr::new(s.trim()));
        if value.is_empty() {
            return Ok(ReviewPoint::None);
        }
        EnumValueParser::<ReviewPoint>::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            ReviewPoint::value_variants()
                .iter()
                .filter_map(ValueEnum::to_possible_value),
        ))
    }
}

pub(super) fn review_points(points: impl IntoIterator<Item = ReviewPoint>) -> ReviewPoints {
    let mut review = ReviewPoints::none();
    for point in points {
        match point {
            ReviewPoint::Clarify => review.clarify = true,
            ReviewPoint::Plan => review.plan = true,
            ReviewPoint::Report => review.report = true,
            ReviewPoint::None => {}
        }
    }
    review
}

pub(super) fn invalid(message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::InvalidInput, message)
}

/// The run configuration `args` ask for. What they leave open (models, providers, review
/// points) stays empty or default for the api to fill from the settings.
/// The providers `--search` names, comma-separated.
pub(super) fn providers(search: Option<&str>) -> Vec<String> {
    search
        .iter()
        .flat_map(|s| s.split(','))
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

pub(super) fn config(args: &RunArgs, models: ModelRouting) -> RunConfig {
    RunConfig {
        mode: args.mode.into(),
        depth: args.depth.into(),
        structure: args.structure.into(),
        models,
        system_prompt: args.system_prompt.clone(),
        max_iterations: args.max_iterations,
        min_coverage: args.min_coverage,
        min_supported: args.min_supported,
        background: Background {
            known: args.known.clone().unwrap_or_default(),
            domains: args
                .domains
                .as_deref()
                .map(|d| {
                    d.split(',')
                        .map(|d| d.trim().to_string())
                        .filter(|d| !d.is_empty())
                        .collect()
                })
                .unwrap_or_default(),
            method: args.method.clone().unwrap_or_default(),
        },
        verification_loops: args.verification_loops,
        search: providers(args.search.as_deref()),
        budget: Budget {
            max_calls: args.max_calls,
            max_tokens: args.max_tokens,
            max_cost_usd: args.max_cost,
        },
        review: args.review.clone().map(review_points).unwrap_or_default(),
        no_input: args.no_input,
        language: args.language.clone(),
        style: args.style.into(),
        target_words: args.target_length,
        max_revisions: args.max_revisions,
        review_timeout: args.review_timeout.map(|minutes| ReviewTimeout {
            minutes,
            then: args.on_timeout.into(),
        }),
        trust: args.trust.into(),
        trusted_domains: args.trusted_domains.as_deref().map(domain_list),
        low_trust_domains: args.low_trust_domains.as_deref().map(domain_list),
        record_calls: args.record_calls,
        banned_words: args.banned_words.as_deref().map(|words| {
            words
                .split(',')
                .map(|w| w.trim().to_lowercase())
                .filter(|w| !w.is_empty() && w != "none")
                .collect()
        }),
        // The api adds what the models did in the person's runs when the run starts.
        measured: Default::default(),
    }
}

/// A comma-separated domain list (`none` for an empty one).
fn domain_list(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(|d| d.trim().to_lowercase())
        .filter(|d| !d.is_empty() && d != "none")
        .collect()
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Run {
        #[command(flatten)]
        args: RunArgs,
    }

    fn config_of(argv: &[&str]) -> RunConfig {
        let run = Run::try_parse_from(["run", "q"].iter().chain(argv)).unwrap();
        config(&run.args, ModelRouting::single("scripted:x"))
    }

    fn points(c: &RunConfig) -> (bool, bool, bool) {
        (c.review.clarify, c.review.plan, c.review.report)
    }

    #[test]
    fn choices_map_to_the_run_configuration() {
        let defaults = config_of(&[]);
        assert_eq!(defaults.mode, Mode::Single);
        assert_eq!(defaults.depth, Depth::Standard);
        assert_eq!(defaults.structure, Structure::Detailed);
        assert_eq!(points(&defaults), (true, false, false));
        assert!(defaults.search.is_empty(), "left for the settings");
        let chosen = config_of(&[
            "--mode",
            "multi",
            "--depth",
            "quick",
            "--structure",
            "bullet_points",
            "--search",
            "local, wikipedia",
        ]);
        assert_eq!(chosen.mode, Mode::Multi);
        assert_eq!(chosen.depth, Depth::Quick);
        assert_eq!(chosen.structure, Structure::BulletPoints);
        assert_eq!(chosen.search, ["local", "wikipedia"]);
        let deep = config_of(&["--depth", "comprehensive"]);
        assert_eq!(deep.depth, Depth::Comprehensive);
    }

    #[test]
    fn review_points_come_from_the_flag() {
        let flag = |v: &str| points(&config_of(&["--review", v]));
        assert_eq!(flag(" plan, report"), (false, true, true));
        assert_eq!(flag("clarify,,plan"), (true, true, false));
        assert_eq!(flag("none"), (false, false, false));
        assert_eq!(flag(""), (false, false, false));
        assert!(Run::try_parse_from(["run", "q", "--review", "plan,bogus"]).is_err());
    }
}
