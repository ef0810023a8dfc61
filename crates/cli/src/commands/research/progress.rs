//! A research run's progress, one line on stderr per step worth a line.

use research_api::{Event, EventSink};

/// Prints a research run's progress on stderr.
pub(super) struct RunProgress;

impl EventSink for RunProgress {
    fn emit(&self, event: Event) {
        let line = match event {
            Event::NodeStarted { node, .. } => match node.as_str() {
                "understand" => "reading the question".to_string(),
                "plan" => "planning".to_string(),
                "detect_gaps" => "looking for gaps".to_string(),
                "orchestrate" => "splitting the question among workers".to_string(),
                "synthesize" => "combining the workers' findings".to_string(),
                "verify" => "checking claims against their quotes".to_string(),
                "write_report" | "revise_report" => "writing the report".to_string(),
                _ => return,
            },
            Event::Custom { payload, task, .. } => match payload["type"].as_str() {
                Some("assigned") => format!(
                    "  worker {}: {}",
                    task.map_or(0, |t| t + 1),
                    payload["question"].as_str().unwrap_or("")
                ),
                Some("searching") => {
                    format!("  searching: {}", payload["query"].as_str().unwrap_or(""))
                }
                Some("skipped") => format!(
                    "  skipped (same as \"{}\"): {}",
                    payload["similar_to"].as_str().unwrap_or(""),
                    payload["query"].as_str().unwrap_or("")
                ),
                Some("read") => format!(
                    "  read {} ({} facts)",
                    payload["url"].as_str().unwrap_or(""),
                    payload["facts"]
                ),
                Some("warning") => {
                    format!("  warning: {}", payload["message"].as_str().unwrap_or(""))
                }
                Some("coverage") => format!(
                    "  round {}: coverage {:.0}%",
                    payload["iteration"],
                    payload["coverage"].as_f64().unwrap_or(0.0) * 100.0
                ),
                _ => return,
            },
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
