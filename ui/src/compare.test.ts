import { describe, expect, it } from "vitest";
import { compareRows, sharedWords, sideWords } from "./compare";
import type { CompareColumn } from "./types";

const column = (over: Partial<CompareColumn>): CompareColumn => ({
  label: "A", thread_id: "t1", pipeline: "standard", status: "finished", error: null, sources: 3, evidence: 6, iterations: 1, coverage: 0.75,
  verified_sentences: 8, audited_sentences: 10, confidence: 0.9, calls: 12, tokens: 12345, cost_usd: 0, wall_ms: 4200, only_here: [], ...over,
});

describe("compare", () => {
  it("tabulates both sides, one row per measure", () => {
    const rows = compareRows([column({}), column({ label: "B", pipeline: "trust", status: null, error: "no model", cost_usd: 0.0123, wall_ms: 75_000 })]);
    expect(rows[0]).toEqual(["Outcome", "finished", "failed: no model"]);
    expect(rows.find((r) => r[0] === "Coverage of its questions")).toEqual(["Coverage of its questions", "75%", "75%"]);
    expect(rows.find((r) => r[0] === "Cited sentences verified")?.[1]).toBe("8 of 10");
    expect(rows.find((r) => r[0] === "Tokens")?.[1]).toBe("12,345");
    expect(rows.find((r) => r[0] === "Cost")).toEqual(["Cost", "none (local)", "$0.01"]);
    expect(rows.find((r) => r[0] === "Time")).toEqual(["Time", "4.2 s", "1 min 15 s"]);
  });

  it("says what each side runs and what they share", () => {
    const request = { question: "Q", pipeline: "trust", review: null, allowed_hosts: [], searxng_url: null,
      config: { mode: "multi", depth: "quick", models: { model: "scripted:x", fast_model: null, roles: {} } } } as never;
    expect(sideWords(request, (n) => (n === "trust" ? "Trust" : n))).toBe("Trust · multi · quick · scripted:x");
    expect(sharedWords({ session_id: "s", concurrent: true, columns: [], shared_sources: ["a"] })).toBe("1 source both sides read; the sides ran at the same time.");
  });
});
