// The review pipeline's record read for the Review view: the score table, each draft with its
// issues, what the next draft fixed and its changes from the one before (tested without a DOM).
import { diffCounts, wordDiff, type DiffPart } from "./diff";
import type { Criterion, Critique, EscalationChoice, Escalated, FoundBy, Issue, ReviewView, Severity, Verdict } from "./types";

export const CRITERION_WORDS: Record<Criterion, string> = {
  accuracy: "Accuracy", completeness: "Completeness", coherence: "Coherence", citation: "Citation", methodology: "Methodology", style: "Style",
};
export const SEVERITY_WORDS: Record<Severity, string> = { critical: "critical", major: "major", minor: "minor", suggestion: "suggestion" };
export const VERDICT_WORDS: Record<Verdict, string> = { approve: "approved", revise: "revision asked", reject: "rejected" };
export const FOUND_BY_WORDS: Record<FoundBy, string> = { check: "a check", model: "the reviewer" };
export const CHOICE_WORDS: Record<EscalationChoice, string> = {
  accept: "accept the best draft with its open issues as caveats", research_more: "research more", stop: "stop the run",
};

/** One row of the score table: a criterion, its weight and each draft's score (`null`: not reviewed). */
export interface ScoreRow {
  criterion: Criterion;
  label: string;
  /** "25%", or "" when the weight is not known. */
  weight: string;
  scores: (number | null)[];
}

/** A draft as the view shows it. */
export interface DraftCard {
  version: number;
  critique: Critique | null;
  /** Why this draft was written ("" for the first). */
  asked: string;
  /** The issues of this draft the next one no longer has. */
  fixed: Issue[];
  /** Its changes from the draft before (`null` for the first), with word counts. */
  diff: { parts: DiffPart[]; added: number; removed: number } | null;
  body: string;
  best: boolean;
}

export function scoreRows(view: ReviewView): ScoreRow[] {
  const criteria = view.weights.length ? view.weights.map((w) => w.criterion) : (Object.keys(CRITERION_WORDS) as Criterion[]);
  return criteria.map((criterion) => {
    const weight = view.weights.find((w) => w.criterion === criterion)?.weight;
    return {
      criterion,
      label: CRITERION_WORDS[criterion],
      weight: weight === undefined ? "" : `${Math.round(weight * 100)}%`,
      scores: view.record.drafts.map((d) => d.critique?.scores.find((s) => s.criterion === criterion)?.score ?? null),
    };
  });
}

export function draftCards(view: ReviewView): DraftCard[] {
  const drafts = view.record.drafts;
  return drafts.map((d, i) => {
    const parts = i > 0 ? wordDiff(drafts[i - 1].body, d.body) : null;
    return {
      version: d.version,
      critique: d.critique,
      asked: d.asked,
      fixed: view.fixed[i] ?? [],
      diff: parts ? { parts, ...diffCounts(parts) } : null,
      body: d.body,
      best: view.best === d.version,
    };
  });
}

/** "7.5" */
export const score = (n: number | null) => (n === null ? "—" : n.toFixed(1));

/** The line above the table: how many drafts, how the loop ended. */
export function reviewHeadline(view: ReviewView): string {
  const drafts = view.record.drafts;
  const n = drafts.length;
  const revisions = n > 1 ? ` and ${n - 1} revision${n === 2 ? "" : "s"}` : "";
  const last = drafts[n - 1]?.critique;
  const approved = drafts.find((d) => d.critique?.verdict === "approve");
  const end = approved
    ? `Draft ${approved.version} was approved at ${score(approved.critique?.overall ?? null)}/10.`
    : view.best !== null
      ? `No draft was approved; the report is draft ${view.best}, the best scored.`
      : last ? `The last review: ${VERDICT_WORDS[last.verdict]}.` : "";
  return `The first draft${revisions}. ${end}`.trim();
}

/** An escalation and its answer, in words. */
export function escalationWords(e: Escalated): string {
  return `After draft ${e.after_draft} the run asked what to do; ${e.automatic ? "with no one to ask it chose to" : "you chose to"} ${CHOICE_WORDS[e.choice]}.`;
}
