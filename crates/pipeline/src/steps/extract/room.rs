//! How many pages one extraction call holds: the window a model has, less the prompt's fixed
//! part and the answer each page needs, and when pages share a call at all ([`packs`]).

use super::{restating, system_prompt, PAGES_PER_CALL};
use crate::ask::{prompt_room, window, Ctx};
use crate::config::DepthLimits;
use crate::roles::Role;
use crate::steps::harvest::Reading;
use research_llm::estimate_tokens;

/// Pages share a call with a model whose window holds at least this many tokens (and then
/// only as many as its window holds with their answers: [`Room::holds`]).
pub const PACK_MIN_WINDOW: usize = 16_000;

/// Under a call budget, pages share a call from this window: a small model's 4,096 tokens
/// hold three or four short pages' sentence numbers. Measured with SmolLM2-135M on the SQLite answer
/// set (BENCHMARKS, "Pages sharing a small model's window"): quick runs' calls 8 → 4, answer
/// facts found 17 → 15 of 44 — a cost paid only when the person set the budget that needs it.
pub const PACK_MIN_WINDOW_BUDGETED: usize = 4_096;

/// Whether pages share calls with a model of this `window`, in a run with a call budget or
/// without.
fn packs(window: usize, budgeted: bool) -> bool {
    window >= PACK_MIN_WINDOW || (budgeted && window >= PACK_MIN_WINDOW_BUDGETED)
}

/// Answer tokens asked for per page in a call.
const ANSWER_TOKENS_PER_PAGE: u32 = 600;

/// Answer tokens asked for per page when the answer is sentence numbers alone (a handful of
/// `{"sentence": n, "end_sentence": m}`).
const NUMBERS_TOKENS_PER_PAGE: u32 = 200;

/// The extraction calls that read `pages` pages with a model of this `window`: the estimate
/// of [`pack`] before the pages are known, an upper bound (a call budget lets short pages share
/// a smaller window too).
pub fn calls(pages: u64, window: Option<usize>) -> u64 {
    match window {
        Some(w) if w >= PACK_MIN_WINDOW => pages.div_ceil(PAGES_PER_CALL as u64),
        _ => pages,
    }
}

/// What one extraction call with this run's extractor holds: its window, less the prompt's
/// fixed part; `None` when the window is unknown or small (one page a call).
pub fn room(ctx: &Ctx, reading: &Reading<'_>, l: &DepthLimits) -> Option<Room> {
    let budgeted = ctx.config.config.budget.max_calls.is_some();
    let window = window(ctx, Role::Extract).filter(|w| packs(*w, budgeted))?;
    let restates = restating(ctx);
    let system = system_prompt(PAGES_PER_CALL, l, restates);
    let head = estimate_tokens(reading.context) + estimate_tokens(&reading.questions.join("\n"));
    Some(Room {
        window,
        system,
        head: head + 64,
        answer: answer_tokens(restates),
    })
}

/// The room of one extraction call ([`room`]).
#[derive(Debug, Clone)]
pub struct Room {
    window: usize,
    system: String,
    /// The question and research questions, with a margin.
    head: usize,
    /// Answer tokens a page needs.
    answer: u32,
}

impl Room {
    /// Whether `pages` pages whose listings take `tokens` tokens fit one call, with the answer
    /// each needs.
    pub fn holds(&self, pages: usize, tokens: usize) -> bool {
        pages <= PAGES_PER_CALL
            && tokens + self.head
                <= prompt_room(self.window, &self.system, self.answer * pages as u32)
    }
}

/// Answer tokens one call of `pages` pages asks for: a page alone as it always did; pages
/// sharing a call what [`Room::holds`] reserved for them.
pub(super) fn call_answer_tokens(pages: usize, restates: bool) -> u32 {
    match pages {
        1 => ANSWER_TOKENS_PER_PAGE,
        n => answer_tokens(restates) * n as u32,
    }
}

/// Answer tokens reserved per page: a fact in the model's words and its sentence numbers, or
/// the numbers alone.
fn answer_tokens(restates: bool) -> u32 {
    if restates {
        ANSWER_TOKENS_PER_PAGE
    } else {
        NUMBERS_TOKENS_PER_PAGE
    }
}

#[cfg(test)]
impl Room {
    /// A room of `tokens` tokens for listings, answers taking none.
    pub(crate) fn of_tokens(tokens: usize) -> Self {
        Self {
            window: (tokens + 1) * 10 / 8 + 66,
            system: String::new(),
            head: 0,
            answer: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_counts_a_call_per_four_pages_only_with_a_large_window() {
        assert_eq!(calls(10, None), 10);
        assert_eq!(calls(10, Some(4_096)), 10);
        assert_eq!(calls(10, Some(128_000)), 3);
        assert_eq!(calls(0, Some(128_000)), 0);
    }

    #[test]
    fn a_small_window_packs_only_under_a_call_budget() {
        assert!(!packs(4_096, false));
        assert!(packs(4_096, true));
        assert!(!packs(2_048, true));
        assert!(packs(128_000, false));
    }

    /// Each page in a call takes its answer from the window too: a small model's 4,096 tokens
    /// hold three pages of 700 tokens with their sentence numbers, not four; with facts in the
    /// model's words (600 tokens a page), two.
    #[test]
    fn each_page_brings_its_answer_into_the_window() {
        let numbers = Room {
            window: 4_096,
            system: "x".repeat(1_200),
            head: 100,
            answer: NUMBERS_TOKENS_PER_PAGE,
        };
        assert!(numbers.holds(3, 2_100));
        assert!(!numbers.holds(4, 2_800));
        let words = Room {
            answer: ANSWER_TOKENS_PER_PAGE,
            ..numbers
        };
        assert!(words.holds(2, 1_400));
        assert!(!words.holds(3, 2_100));
    }
}
