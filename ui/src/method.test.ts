import { describe, expect, it } from "vitest";
import { coverageWords, durationWords, methodView } from "./method";
import type { Metadata, SessionDetail } from "./types";

const metadata = {
  mode: "single", iterations: 2, queries: ["waggle dance", "bee colony roles", "pollination crops"],
  queries_skipped: ["waggle dances"], sources_count: 3, evidence_count: 6, llm_calls: 14, prompt_tokens: 900,
  completion_tokens: 300, cost_usd: 0, wall_ms: 75_000, claims_supported: 5, claims_total: 6, confidence: 0.83,
  coverage: 0.83, coverage_history: [0.5, 0.83], language: "en", outcome: "completed", models: {},
  usage_by_node: {}, warnings: [],
} as unknown as Metadata;

function detail(withMethod: boolean): SessionDetail {
  return {
    session: { id: "s", title: "Bees", question: "Tell me about bees", config: { mode: "single", depth: "standard" } },
    runs: [["t1", "Tell me about bees"], ["t2", "And wasps?"]],
    reports: [{ thread_id: "t2", version: 1, markdown: "", provenance: { llm_calls: 14, prompt_tokens: 900, completion_tokens: 300, models: { writer: "scripted:x" }, search: ["local"] } }],
    sources: [], evidence: [],
    claims: [{ evidence_id: 1, text: "a", supported: true }, { evidence_id: 2, text: "b", supported: false }],
    report_html: "",
    method: withMethod ? {
      interpretation: "Honeybee communication", research_questions: ["How do bees talk?", "Who does what?", "Which crops?"],
      question_coverage: ["well_covered", "partial", "missing"], gaps: ["crop yields"], workers: 0, metadata,
      planner: "Approach: Read the dance studies (the planner's own confidence in the plan: 80%).",
      concerns: ["The sources may describe only the dances."],
    } : null,
  } as unknown as SessionDetail;
}

describe("method panel", () => {
  it("shows the plan with coverage, the searches, rounds and what is missing", () => {
    const view = methodView(detail(true));
    const rows = Object.fromEntries(view.rows);
    expect(rows["Question"]).toBe("And wasps?"); // the report is the follow-up's
    expect(rows["Understood as"]).toBe("Honeybee communication");
    expect(rows["Rounds of searching"]).toBe("2");
    expect(rows["Coverage"]).toBe("83 % (by round: 50 % → 83 %)");
    expect(rows["Searches run"]).toBe("3 (1 near-duplicate skipped)");
    expect(rows["Claims supported"]).toBe("1 of 2");
    expect(rows["Model calls"]).toBe("14 (1200 tokens)");
    expect(rows["Time taken"]).toBe("1 min 15 s");
    expect(view.plan.map((p) => p.coverage)).toEqual(["answered", "partly answered", "nothing found"]);
    expect(view.searches).toHaveLength(3);
    expect(view.skipped).toEqual(["waggle dances"]);
    expect(view.gaps).toEqual(["crop yields"]);
    expect(view.turns).toEqual(["Tell me about bees", "And wasps?"]);
    expect(view.planner).toContain("Approach: Read the dance studies");
    expect(view.concerns).toEqual(["The sources may describe only the dances."]);
  });

  it("still shows counts for a report saved without a method record", () => {
    const view = methodView(detail(false));
    const rows = Object.fromEntries(view.rows);
    expect(rows["Rounds of searching"]).toBeUndefined();
    expect(rows["Sources read"]).toBe("0");
    expect(view.plan).toEqual([]);
    expect(view.planner).toBeNull();
    expect(view.concerns).toEqual([]);
  });

  it("words coverage and durations", () => {
    expect(coverageWords(undefined)).toBe("");
    expect(durationWords(4_400)).toBe("4 s");
    expect(durationWords(300)).toBe("under 1 s");
    expect(durationWords(600_000)).toBe("10 min 00 s");
  });
});
