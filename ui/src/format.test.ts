import { describe, expect, it } from "vitest";
import { answerForm, answerFromText, configOf, importText, modeOf, questionCount, resumeNote, statusBadge } from "./format";
import type { PendingQuestion, SessionDetail } from "./types";

type Q = PendingQuestion["question"];
const plan: Q = { type: "plan_review", plan: { questions: ["Q1", "Q2"], aspects: ["a"], searches: ["s1"] } };
const review: Q = { type: "report_review", report: "# R", draft: "Draft [1]" };

describe("words", () => {
  it("says what an import added, updated and could not add", () => {
    const indexed = { total: 2, scanned: 2, indexed: 2, unchanged: 0, failed: [], removed: 0 };
    expect(importText({ references: 3, files: 2, new: 1, missing: [["gone", "files/9/gone.pdf", "not found"]], without_files: ["bare"], folders: ["/z"], indexed }))
      .toBe("3 references: 2 attached files in the library with their records (1 new, 1 updated). 1 attached file not added (files/9/gone.pdf of gone: not found). 1 reference without a file, so not searchable by text.");
    expect(importText({ references: 1, files: 1, new: 1, missing: [], without_files: [], folders: ["/z"], indexed }))
      .toBe("1 reference: 1 attached file in the library with their records (1 new, 0 updated).");
  });

  it("badges a session running in this window as running now", () => {
    expect(statusBadge("interrupted", false)).toBe("paused");
    expect(statusBadge("interrupted", true)).toBe("running now");
    expect(statusBadge("finished", false)).toBe("");
    expect(statusBadge("odd" as never, false)).toBe("odd");
  });

  it("counts a question's characters only near the api's limit", () => {
    expect(questionCount("short", 4000)).toBe("");
    expect(questionCount("x".repeat(3600), 4000)).toBe("3600 / 4000 characters");
    expect(questionCount("x".repeat(3600), 5000)).toBe("");
    expect(questionCount("x".repeat(95), 100)).toBe("95 / 100 characters");
  });

  it("offers Resume only for the statuses the api calls resumable", () => {
    const resumable = ["running", "interrupted", "failed"] as const;
    expect(resumeNote("failed", resumable)).toMatch(/stopped on an error/);
    expect(resumeNote("interrupted", resumable)).toMatch(/did not finish/);
    expect(resumeNote("finished", resumable)).toBeNull();
    expect(resumeNote("interrupted", ["failed"])).toBeNull();
    expect(resumeNote("cancelled", ["cancelled"])).toMatch(/did not finish/);
  });

  it("reads a session's mode and configuration from the api's typed config", () => {
    const d = (config: unknown) => ({ config } as unknown as SessionDetail);
    expect(modeOf(d({ mode: "multi" }))).toBe("multi");
    expect(modeOf(d(null))).toBe("single");
    expect(configOf(d(null))).toBeNull();
    expect(configOf(d({ mode: "single", models: { model: "m" } }))?.models.model).toBe("m");
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
