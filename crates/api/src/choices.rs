//! What the forms offer, as the api owns it: the option lists of a run's choices with their
//! labels, the limits the api checks, which session statuses can be resumed, the model each
//! cloud provider is tested with, and the setting keys. The desktop app renders its selects and
//! bounds from [`form_choices`] instead of restating them.

use research_search::HitKind;
use serde::{Deserialize, Serialize};

use crate::research::MAX_QUESTION_CHARS;
use crate::{
    Depth, Mode, SessionStatus, Structure, Style, TimeoutAction, TrustVariant,
    MAX_REVIEW_TIMEOUT_MINUTES, MAX_REVISIONS,
};

/// One option of a list: the value the api reads (its serde name) and the words shown for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct Choice {
    /// The value, as the run configuration spells it.
    pub value: String,
    /// The words shown for it.
    pub label: String,
    /// It is the run configuration's default.
    pub default: bool,
}

/// The model a cloud provider's key is tested with before any model of it is chosen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ProbeModel {
    /// The provider (`openai`, `anthropic`, `gemini`).
    pub provider: String,
    /// A small model of it, as a model string.
    pub model: String,
}

/// One key of the [`crate::Settings`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct SettingKey {
    /// The key (`default_model`, `banned_words`, …).
    pub key: String,
    /// What it holds.
    pub help: String,
    /// A list whose absence means the built-in one, and whose emptiness is a choice ("none").
    pub builtin_default: bool,
}

/// Everything a form offers that the api decides.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct FormChoices {
    /// Single or multi agent.
    pub modes: Vec<Choice>,
    /// How much research to do.
    pub depths: Vec<Choice>,
    /// The report's shapes.
    pub structures: Vec<Choice>,
    /// The report's registers.
    pub styles: Vec<Choice>,
    /// The trust pipeline's engine variants.
    pub trust_variants: Vec<Choice>,
    /// What an unanswered review point does.
    pub timeout_actions: Vec<Choice>,
    /// The review points (the fields of a run's review points), each with when it asks.
    pub review_points: Vec<Choice>,
    /// The longest question accepted, in characters.
    pub question_max_chars: u32,
    /// The longest note of the planner's background (what you know, method), in characters.
    pub background_max_chars: u32,
    /// The most revisions a run may allow (the fewest is 0).
    pub max_revisions: u32,
    /// The longest a review point may wait, in minutes (the shortest is 1).
    pub review_timeout_max_minutes: u32,
    /// The session statuses whose last run can be resumed.
    pub resumable: Vec<SessionStatus>,
    /// The model each cloud provider is tested with.
    pub probe_models: Vec<ProbeModel>,
    /// The settings' keys.
    pub settings: Vec<SettingKey>,
    /// How often a session can be kept current (a schedule's intervals), the default marked.
    pub schedule_intervals: Vec<Choice>,
}

fn choices<T: Serialize + Default + PartialEq + Copy, L: Into<String>>(
    all: &[T],
    label: fn(T) -> L,
) -> Vec<Choice> {
    all.iter()
        .map(|&v| Choice {
            value: serde_json::to_value(v)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            label: label(v).into(),
            default: v == T::default(),
        })
        .collect()
}

fn mode(m: Mode) -> &'static str {
    match m {
        Mode::Single => "Single agent",
        Mode::Multi => "Multi-agent (parallel workers)",
    }
}

/// The depth's name and the kinds of source it searches (its limits say which).
fn depth(d: Depth) -> String {
    let name = match d {
        Depth::Quick => "Quick",
        Depth::Standard => "Standard",
        Depth::Comprehensive => "Comprehensive",
    };
    let kinds: Vec<&str> = d
        .limits()
        .kinds
        .iter()
        .map(|k| match k {
            HitKind::Web => "web",
            HitKind::Academic => "papers",
            HitKind::News => "news",
            HitKind::Local => "library",
        })
        .collect();
    // The library is searched at every depth: the label names what the depth adds.
    format!("{name} ({})", kinds.join(", "))
}

fn structure(s: Structure) -> &'static str {
    match s {
        Structure::Detailed => "Detailed",
        Structure::Concise => "Concise",
        Structure::BulletPoints => "Bullet points",
    }
}

fn style(s: Style) -> &'static str {
    match s {
        Style::Academic => "Academic",
        Style::Technical => "Technical",
        Style::Executive => "Executive",
    }
}

fn trust(t: TrustVariant) -> &'static str {
    match t {
        TrustVariant::Batched => "Batched (2 checking calls)",
        TrustVariant::Full => "Full (1 call per claim)",
    }
}

fn timeout(t: TimeoutAction) -> &'static str {
    match t {
        TimeoutAction::Approve => "go on (approve)",
        TimeoutAction::Stop => "stop the run",
    }
}

/// The review points with when each asks, in the order of [`crate::ReviewPoints`]' fields.
const REVIEW_POINTS: [(&str, &str); 3] = [
    ("clarify", "when the question is ambiguous"),
    ("plan", "to approve the plan"),
    ("report", "to approve the report"),
];

/// What the forms offer (the app loads it once at start-up).
pub fn form_choices() -> FormChoices {
    let review = crate::ReviewPoints::default();
    let on = |name: &str| match name {
        "clarify" => review.clarify,
        "plan" => review.plan,
        _ => review.report,
    };
    FormChoices {
        modes: choices(&[Mode::Single, Mode::Multi], mode),
        depths: choices(
            &[Depth::Quick, Depth::Standard, Depth::Comprehensive],
            depth,
        ),
        structures: choices(
            &[
                Structure::Detailed,
                Structure::Concise,
                Structure::BulletPoints,
            ],
            structure,
        ),
        styles: choices(
            &[Style::Academic, Style::Technical, Style::Executive],
            style,
        ),
        trust_variants: choices(&[TrustVariant::Batched, TrustVariant::Full], trust),
        timeout_actions: choices(&[TimeoutAction::Approve, TimeoutAction::Stop], timeout),
        review_points: REVIEW_POINTS
            .iter()
            .map(|&(value, label)| Choice {
                value: value.into(),
                label: label.into(),
                default: on(value),
            })
            .collect(),
        question_max_chars: MAX_QUESTION_CHARS as u32,
        background_max_chars: research_pipeline::MAX_BACKGROUND_CHARS as u32,
        max_revisions: MAX_REVISIONS,
        review_timeout_max_minutes: MAX_REVIEW_TIMEOUT_MINUTES,
        resumable: SessionStatus::ALL
            .into_iter()
            .filter(|s| s.resumable())
            .collect(),
        probe_models: crate::providers::PROBE_MODELS
            .iter()
            .map(|&(provider, model)| ProbeModel {
                provider: provider.into(),
                model: model.into(),
            })
            .collect(),
        settings: crate::SETTING_KEYS
            .iter()
            .map(|&(key, help)| SettingKey {
                key: key.into(),
                help: help.into(),
                builtin_default: crate::settings::BUILTIN_LISTS.contains(&key),
            })
            .collect(),
        schedule_intervals: crate::research::INTERVALS
            .iter()
            .map(|&(value, label)| Choice {
                value: value.into(),
                label: label.into(),
                default: value == crate::research::DEFAULT_INTERVAL,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::DeserializeOwned;

    fn all_read_as<T: DeserializeOwned + Serialize + std::fmt::Debug>(list: &[Choice]) {
        assert!(!list.is_empty());
        assert_eq!(list.iter().filter(|c| c.default).count(), 1, "{list:?}");
        for c in list {
            let v: T = serde_json::from_value(serde_json::Value::String(c.value.clone()))
                .unwrap_or_else(|e| panic!("`{}` is not a value: {e}", c.value));
            assert_eq!(serde_json::to_value(&v).unwrap(), c.value.as_str());
        }
    }

    #[test]
    fn every_choice_is_a_value_of_its_enum() {
        let c = form_choices();
        all_read_as::<Mode>(&c.modes);
        all_read_as::<Depth>(&c.depths);
        all_read_as::<Structure>(&c.structures);
        all_read_as::<Style>(&c.styles);
        all_read_as::<TrustVariant>(&c.trust_variants);
        all_read_as::<TimeoutAction>(&c.timeout_actions);
    }

    #[test]
    fn review_points_are_the_fields_of_review_points() {
        let c = form_choices();
        let fields = serde_json::to_value(crate::ReviewPoints::default()).unwrap();
        let fields: Vec<&String> = fields.as_object().unwrap().keys().collect();
        let names: Vec<&String> = c.review_points.iter().map(|p| &p.value).collect();
        assert_eq!(fields.len(), names.len());
        for p in &c.review_points {
            assert_eq!(fields_default(&p.value), p.default, "{}", p.value);
            let settings = crate::Settings {
                review: Some(vec![p.value.clone()]),
                ..Default::default()
            };
            let points = settings.review_points().unwrap().unwrap();
            let json = serde_json::to_value(points).unwrap();
            assert_eq!(
                json[&p.value], true,
                "the setting `{}` sets its field",
                p.value
            );
        }
    }

    fn fields_default(name: &str) -> bool {
        serde_json::to_value(crate::ReviewPoints::default()).unwrap()[name] == true
    }

    #[test]
    fn limits_and_statuses_are_the_apis() {
        let c = form_choices();
        assert_eq!(c.question_max_chars as usize, MAX_QUESTION_CHARS);
        assert!(crate::DEFAULT_MAX_REVISIONS <= c.max_revisions);
        assert_eq!(
            c.resumable,
            [
                SessionStatus::Running,
                SessionStatus::Interrupted,
                SessionStatus::Failed
            ]
        );
        for s in SessionStatus::ALL {
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
            assert_eq!(SessionStatus::from_name(s.as_str()), s);
        }
    }

    #[test]
    fn probe_models_are_model_strings_of_keyed_providers() {
        for p in form_choices().probe_models {
            let spec: research_llm::ModelSpec = p.model.parse().unwrap();
            let _ = spec;
            assert!(p.model.starts_with(&format!("{}:", p.provider)));
        }
    }

    #[test]
    fn builtin_lists_are_setting_keys() {
        let c = form_choices();
        let keys: Vec<&str> = c.settings.iter().map(|s| s.key.as_str()).collect();
        for k in crate::settings::BUILTIN_LISTS {
            assert!(keys.contains(k), "{k}");
        }
        assert_eq!(c.settings.iter().filter(|s| s.builtin_default).count(), 3);
    }
}
