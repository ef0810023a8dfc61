//! A research run's progress as lines a person reads: the step it is on (in the words of the
//! pipeline's outline, so a new pipeline's steps read as well as the standard's), its searches,
//! the pages it read, its rounds. One owner for the wording the CLI prints on stderr and the MCP
//! server sends as progress notifications.

use std::sync::Mutex;

use research_graph::Event;
use research_pipeline::{OutlineStep, Progress};

/// Turns a run's events into progress lines.
pub struct ProgressLines {
    /// The steps of the pipeline the run walks.
    steps: Vec<OutlineStep>,
    /// The step last announced, so parallel workers announce their step once.
    last: Mutex<String>,
}

impl ProgressLines {
    /// Lines for a run of a pipeline with these steps ([`crate::Studio::run_outline`]).
    pub fn new(steps: Vec<OutlineStep>) -> Self {
        Self {
            steps,
            last: Mutex::new(String::new()),
        }
    }

    fn step_line(&self, node: &str) -> Option<String> {
        // Steps without a model call (review points, collecting) say nothing worth a line.
        let step = self
            .steps
            .iter()
            .find(|s| s.node == node && s.role.is_some())?;
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        if *last == node {
            return None;
        }
        *last = node.to_string();
        Some(step.doing.to_lowercase())
    }

    /// The line `event` is worth, if any: a step begun (once), a search, a page read, a round's
    /// coverage, a warning, a retry. Detail lines begin with two spaces.
    pub fn line(&self, event: &Event) -> Option<String> {
        Some(match event {
            Event::NodeStarted { node, .. } => self.step_line(node)?,
            Event::Custom { payload, task, .. } => {
                match serde_json::from_value::<Progress>(payload.clone()).ok()? {
                    Progress::Assigned { question } => {
                        format!("  worker {}: {question}", task.map_or(0, |t| t + 1))
                    }
                    Progress::Searching { query } => format!("  searching: {query}"),
                    Progress::Skipped { query, similar_to } => {
                        format!("  skipped (same as \"{similar_to}\"): {query}")
                    }
                    Progress::Read { url, facts } => format!("  read {url} ({facts} facts)"),
                    Progress::Warning { message } => format!("  warning: {message}"),
                    Progress::Coverage {
                        iteration,
                        coverage,
                        ..
                    } => format!("  round {iteration}: coverage {:.0}%", coverage * 100.0),
                    _ => return None,
                }
            }
            Event::NodeRetrying { node, error, .. } => {
                format!("  {node} failed ({error}); retrying")
            }
            _ => return None,
        })
    }
}
