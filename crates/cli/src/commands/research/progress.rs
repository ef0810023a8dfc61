//! A research run's progress, one line on stderr per step worth a line. The words for each step
//! come from the pipeline's outline, so a new pipeline's steps read as well as the standard's.

use std::sync::Mutex;

use research_api::{Event, EventSink, OutlineStep, Progress};

/// Prints a research run's progress on stderr.
pub(super) struct RunProgress {
    /// The steps of the pipeline the run walks.
    steps: Vec<OutlineStep>,
    /// The step last announced, so parallel workers announce their step once.
    last: Mutex<String>,
}

impl RunProgress {
    pub(super) fn new(steps: Vec<OutlineStep>) -> Self {
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
}

impl EventSink for RunProgress {
    fn emit(&self, event: Event) {
        let line = match event {
            Event::NodeStarted { node, .. } => match self.step_line(&node) {
                Some(line) => line,
                None => return,
            },
            Event::Custom { payload, task, .. } => {
                let Ok(progress) = serde_json::from_value::<Progress>(payload) else {
                    return;
                };
                match progress {
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
                    _ => return,
                }
            }
            Event::NodeRetrying { node, error, .. } => {
                format!("  {node} failed ({error}); retrying")
            }
            _ => return,
        };
        eprintln!("{line}");
    }

    fn wants_updates(&self) -> bool {
        false
    }
}
