//! A research run's progress, one line on stderr per step worth a line (the api's
//! [`ProgressLines`] words them).

use research_api::{Event, EventSink, OutlineStep, ProgressLines};

/// Prints a research run's progress on stderr.
pub(super) struct RunProgress(ProgressLines);

impl RunProgress {
    pub(super) fn new(steps: Vec<OutlineStep>) -> Self {
        Self(ProgressLines::new(steps))
    }
}

impl EventSink for RunProgress {
    fn emit(&self, event: Event) {
        if let Some(line) = self.0.line(&event) {
            eprintln!("{line}");
        }
    }

    fn wants_updates(&self) -> bool {
        false
    }
}
