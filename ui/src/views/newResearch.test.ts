import { describe, expect, it } from "vitest";
import { probeModel } from "../actions/settings";
import { testChoices } from "../choices.fixture";
import type { RoleInfo, RunConfig, SettingKey } from "../types";
import { readConfig, readReview, reviewOf } from "./newResearch";
import { settingText } from "./settings";

const role = (r: RoleInfo["role"], fast: boolean): RoleInfo => ({ role: r, words: r, fast, prompt_tokens: 0, completion_tokens: 0 });

describe("the New research form", () => {
  const fields: Record<string, string> = {
    llm: "ollama:qwen2.5:7b", "fast-llm": "", mode: "multi", depth: "quick", structure: "concise", style: "academic", trust: "batched",
    "target-words": "800", "max-revisions": "12", search: "local, wikipedia ,", "budget-cost": "0", "budget-calls": "200", "budget-tokens": "x",
    language: "", "review-timeout": "20000", "on-timeout": "stop", "role-write": "openai:gpt-4o", "role-plan": "",
    "background-known": "WAL mode exists", "background-domains": " academic, ,industry", "background-method": "",
  };
  const read = (defaults: RunConfig | null, choices = testChoices) =>
    readConfig((id) => fields[id] ?? "", (id) => id !== "review-plan", { roles: [role("write", false), role("plan", false)], defaults, choices });

  it("reads the fields into a run configuration, bounded by the api's limits and trimmed", () => {
    const c = read(null);
    expect(c.models).toEqual({ model: "ollama:qwen2.5:7b", fast_model: null, roles: { write: "openai:gpt-4o" } });
    expect(c.mode).toBe("multi");
    expect(c.search).toEqual(["local", "wikipedia"]);
    expect(c.budget).toEqual({ max_calls: 200, max_tokens: null, max_cost_usd: null });
    expect(c.max_revisions).toBe(7);
    expect(c.target_words).toBe(800);
    expect(c.review).toEqual({ clarify: true, plan: false, report: true });
    expect(c.review_timeout).toEqual({ minutes: 60, then: "stop" });
    expect(c.language).toBeNull();
    expect(c.record_calls).toBe(true);
    expect(c.background).toEqual({ known: "WAL mode exists", domains: ["academic", "industry"], method: "" });
    const wider = read(null, { ...testChoices, max_revisions: 20, review_timeout_max_minutes: 30000 });
    expect(wider.max_revisions).toBe(12);
    expect(wider.review_timeout).toEqual({ minutes: 20000, then: "stop" });
  });

  it("keeps what the form does not offer from the api's defaults", () => {
    const c = read({ max_revisions: 2, no_input: true, models: { model: "", fast_model: null, roles: {} } } as unknown as RunConfig);
    expect(c.no_input).toBe(false);
    fields["max-revisions"] = "";
    expect(read({ max_revisions: 2 } as unknown as RunConfig).max_revisions).toBe(2);
  });

  it("takes the review points the api names", () => {
    const two = { ...testChoices, review_points: testChoices.review_points.slice(0, 2) };
    expect(readReview((id) => id === "review-plan", two, { clarify: true, plan: false, report: true })).toEqual({ clarify: false, plan: true, report: true });
    expect(reviewOf(["plan,report", "odd"], testChoices)).toEqual({ clarify: false, plan: true, report: true });
    expect(reviewOf([], testChoices)).toEqual({ clarify: false, plan: false, report: false });
  });
});

describe("settings fields", () => {
  const key = (k: string): SettingKey => testChoices.settings.find((s) => s.key === k) ?? { key: k, help: "", builtin_default: false };

  it("shows an empty built-in list as none and an absent one as empty, as the api says which lists are built in", () => {
    const s = { banned_words: [], trusted_domains: null, allowed_hosts: [], default_model: "m" } as never;
    expect(settingText(s, key("banned_words"))).toBe("none");
    expect(settingText(s, key("trusted_domains"))).toBe("");
    expect(settingText(s, key("allowed_hosts"))).toBe("");
    expect(settingText(s, key("default_model"))).toBe("m");
    expect(settingText(s, { key: "banned_words", help: "", builtin_default: false })).toBe("");
  });

  it("tests a cloud provider with the api's probe model", () => {
    expect(probeModel({ choices: testChoices }, "openai")).toBe("openai:tiny");
    expect(probeModel({ choices: testChoices }, "anthropic")).toBeNull();
    expect(probeModel({ choices: null }, "openai")).toBeNull();
  });
});
