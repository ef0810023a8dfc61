import { describe, expect, it } from "vitest";
import { draftCards, escalationWords, reviewHeadline, scoreRows } from "./review";
import type { Critique, Issue, ReviewView, ReviewedDraft } from "./types";

const issue = (description: string): Issue => ({ category: "coherence", severity: "major", location: "Summary", description, fix: "", found_by: "model" });
const critique = (overall: number, issues: Issue[], verdict: Critique["verdict"] = "revise"): Critique => ({
  scores: [{ criterion: "accuracy", score: overall }, { criterion: "style", score: overall + 1 }], overall, issues, verdict, summary: "ok", improvement_potential: 0.5,
});
const draft = (version: number, body: string, c: Critique | null): ReviewedDraft => ({ version, body, report: body, audit: [], rejected: null, critique: c, asked: version > 1 ? "issues" : "" });

const view: ReviewView = {
  record: {
    drafts: [draft(1, "Bees dance.", critique(6, [issue("Abrupt.")])), draft(2, "Bees dance on combs.", critique(7, [], "approve"))],
    fallback: null, failure: null, escalations: [{ after_draft: 2, choice: "accept", automatic: false }],
  },
  weights: [{ criterion: "accuracy", weight: 0.25 }, { criterion: "style", weight: 0.1 }],
  fixed: [[issue("Abrupt.")], []],
  best: 2,
};

describe("the Review view's reading", () => {
  it("scores each criterion per draft with its weight", () => {
    expect(scoreRows(view)).toEqual([
      { criterion: "accuracy", label: "Accuracy", weight: "25%", scores: [6, 7] },
      { criterion: "style", label: "Style", weight: "10%", scores: [7, 8] },
    ]);
  });

  it("gives each revision its diff from the draft before and what it fixed", () => {
    const cards = draftCards(view);
    expect(cards[0].diff).toBeNull();
    expect(cards[0].fixed.map((i) => i.description)).toEqual(["Abrupt."]);
    expect(cards[1].diff).toMatchObject({ added: 3, removed: 1 });
    expect(cards[1].best).toBe(true);
  });

  it("says how the loop ended and what the person chose", () => {
    expect(reviewHeadline(view)).toBe("The first draft and 1 revision. Draft 2 was approved at 7.0/10.");
    expect(escalationWords(view.record.escalations[0])).toContain("you chose to accept the best draft");
  });
});
