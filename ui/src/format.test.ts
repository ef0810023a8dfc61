import { describe, expect, it } from "vitest";
import { answerForm, answerFromText, questionCount, resumeNote, statusBadge } from "./format";
import type { PendingQuestion } from "./types";

type Q = PendingQuestion["question"];
const plan: Q = { type: "plan_review", plan: { questions: ["Q1", "Q2"], aspects: ["a"], searches: ["s1"] } };
const review: Q = { type: "report_review", report: "# R", draft: "Draft [1]" };

describe("words", () => {
  it("badges a session running in this window as running now", () => {
    expect(statusBadge("interrupted", false)).toBe("paused");
    expect(statusBadge("interrupted", true)).toBe("running now");
    expect(statusBadge("finished", false)).toBe("");
    expect(statusBadge("odd", false)).toBe("odd");
  });

  it("counts a question's characters only near the limit", () => {
    expect(questionCount("short")).toBe("");
    expect(questionCount("x".repeat(3600))).toBe("3600 / 4000 characters");
  });

  it("offers Resume only where there is something to resume", () => {
    expect(resumeNote("failed")).toMatch(/stopped on an error/);
    expect(resumeNote("interrupted")).toMatch(/did not finish/);
    expect(resumeNote("finished")).toBeNull();
  });
});

describe("answers typed in the page", () => {
  it("refuses an empty answer", () => {
    expect(answerFromText(plan, null, "  ")).toEqual({ error: "Type your answer first." });
  });

  it("reads a plan edit, keeping the searches when none are typed", () => {
    expect(answerFromText(plan, "edit_plan", "A\nB\n---\nx\n")).toEqual({ type: "edit_plan", plan: { questions: ["A", "B"], aspects: ["a"], searches: ["x"] } });
    expect(answerFromText(plan, "edit_plan", "A")).toEqual({ type: "edit_plan", plan: { questions: ["A"], aspects: ["a"], searches: ["s1"] } });
    expect(answerFromText(plan, "edit_plan", "---\nx")).toEqual({ error: "The plan needs at least one research question." });
  });

  it("reads a report answer by the kind the dialog named", () => {
    expect(answerFromText(review, "reject_report", "no")).toEqual({ type: "reject_report", reason: "no" });
    expect(answerFromText(review, "edit_report", "new")).toEqual({ type: "edit_report", draft: "new" });
    expect(answerFromText(review, "revise_report", "more")).toEqual({ type: "revise_report", feedback: "more" });
  });

  it("starts the field from the plan or the draft, and offers editing instead of revising", () => {
    expect(answerForm(plan, "edit_plan").value).toBe("Q1\nQ2\n---\ns1");
    expect(answerForm(review, "edit_report")).toMatchObject({ title: "Edit the report", value: "Draft [1]", rows: 20, editor: true });
    expect(answerForm(review, "revise_report")).toMatchObject({ title: "Request changes", editInstead: true });
    expect(answerForm(review, "reject_report")).toMatchObject({ title: "Reject the report", editInstead: false });
  });
});
