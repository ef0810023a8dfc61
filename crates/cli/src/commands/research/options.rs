//! The enumerated choices of `research run`, and the run configuration they make.
//!
//! The library types ([`Mode`], [`Depth`], [`Structure`]) stay free of clap; these CLI-side
//! mirrors give clap the valid values, so a wrong one is an error that lists them.

use std::ffi::OsStr;

use clap::builder::{EnumValueParser, PossibleValue, TypedValueParser};
use clap::ValueEnum;
use research_api::{
    ApiError, Budget, Depth, ErrorCode, Mode, ModelRouting, ReviewPoints, RunConfig, Settings,
    Structure,
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

fn review_points(points: impl IntoIterator<Item = ReviewPoint>) -> ReviewPoints {
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

/// The review points saved in the settings (a hand-edited file may hold anything).
fn saved_review_points(saved: &[String]) -> Result<Vec<ReviewPoint>, ApiError> {
    saved
        .iter()
        .flat_map(|s| s.split(','))
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            ReviewPoint::from_str(p, false)
                .map_err(|_| invalid(format!("--review {p}: use clarify, plan, report or none")))
        })
        .collect()
}

pub(super) fn invalid(message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::InvalidInput, message)
}

/// The run configuration `args` ask for, with `settings` filling in what they leave out.
pub(super) fn config(
    args: &RunArgs,
    models: ModelRouting,
    settings: &Settings,
) -> Result<RunConfig, ApiError> {
    let review = match (&args.review, &settings.review) {
        (Some(points), _) => review_points(points.iter().copied()),
        (None, Some(saved)) => review_points(saved_review_points(saved)?),
        (None, None) => review_points([ReviewPoint::Clarify]),
    };
    let search = args
        .search
        .clone()
        .or_else(|| settings.search.as_ref().map(|s| s.join(",")))
        .unwrap_or_else(|| "auto".into());
    Ok(RunConfig {
        mode: args.mode.into(),
        depth: args.depth.into(),
        structure: args.structure.into(),
        models,
        system_prompt: args.system_prompt.clone(),
        max_iterations: args.max_iterations,
        min_coverage: args.min_coverage,
        search: search
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
        budget: Budget {
            max_calls: args.max_calls,
            max_tokens: args.max_tokens,
            max_cost_usd: args.max_cost,
        },
        review,
        no_input: args.no_input,
        language: args.language.clone(),
    })
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

    fn config_of(argv: &[&str], settings: &Settings) -> Result<RunConfig, ApiError> {
        let run = Run::try_parse_from(["run", "q"].iter().chain(argv)).unwrap();
        config(&run.args, ModelRouting::single("scripted:x"), settings)
    }

    fn points(c: &RunConfig) -> (bool, bool, bool) {
        (c.review.clarify, c.review.plan, c.review.report)
    }

    #[test]
    fn choices_map_to_the_run_configuration() {
        let defaults = config_of(&[], &Settings::default()).unwrap();
        assert_eq!(defaults.mode, Mode::Single);
        assert_eq!(defaults.depth, Depth::Standard);
        assert_eq!(defaults.structure, Structure::Detailed);
        assert_eq!(points(&defaults), (true, false, false));
        let chosen = config_of(
            &[
                "--mode",
                "multi",
                "--depth",
                "quick",
                "--structure",
                "bullet_points",
            ],
            &Settings::default(),
        )
        .unwrap();
        assert_eq!(chosen.mode, Mode::Multi);
        assert_eq!(chosen.depth, Depth::Quick);
        assert_eq!(chosen.structure, Structure::BulletPoints);
        let deep = config_of(&["--depth", "comprehensive"], &Settings::default()).unwrap();
        assert_eq!(deep.depth, Depth::Comprehensive);
    }

    #[test]
    fn review_points_come_from_the_flag_then_the_settings() {
        let saved = Settings {
            review: Some(vec!["report".into()]),
            ..Default::default()
        };
        let flag = |v: &str| points(&config_of(&["--review", v], &saved).unwrap());
        assert_eq!(flag(" plan, report"), (false, true, true));
        assert_eq!(flag("clarify,,plan"), (true, true, false));
        assert_eq!(flag("none"), (false, false, false));
        assert_eq!(flag(""), (false, false, false));
        assert_eq!(
            points(&config_of(&[], &saved).unwrap()),
            (false, false, true)
        );
        assert!(Run::try_parse_from(["run", "q", "--review", "plan,bogus"]).is_err());
    }

    #[test]
    fn saved_review_points_read_like_the_flag() {
        let saved = vec!["plan, report".to_string(), "none".to_string()];
        let points = review_points(saved_review_points(&saved).unwrap());
        assert!(!points.clarify && points.plan && points.report);
        assert!(saved_review_points(&[String::new()]).unwrap().is_empty());
        let err = saved_review_points(&["plan,bogus".into()]).unwrap_err();
        assert_eq!(
            err.message,
            "--review bogus: use clarify, plan, report or none"
        );
    }
}
