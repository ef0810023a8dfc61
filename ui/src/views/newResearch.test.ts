import { describe, expect, it } from "vitest";
import type { RoleInfo, RunConfig } from "../types";
import { readConfig } from "./newResearch";
import { settingText } from "./settings";

const role = (r: RoleInfo["role"], fast: boolean): RoleInfo => ({ role: r, words: r, fast, prompt_tokens: 0, completion_tokens: 0 });

describe("the New research form", () => {
  const fields: Record<string, string> = {
    llm: "ollama:qwen2.5:7b", "fast-llm": "", mode: "multi", depth: "quick", structure: "concise", style: "academic", trust: "batched",
    "target-words": "800", "max-revisions": "12", search: "local, wikipedia ,", "budget-cost": "0", "budget-calls": "200", "budget-tokens": "x",
    language: "", "review-timeout": "20000", "on-timeout": "stop", "role-write": "openai:gpt-4o", "role-plan": "",
  };
  const read = (defaults: RunConfig | null) =>
    readConfig((id) => fields[id] ?? "", (id) => id !== "review-plan", { roles: [role("write", false), role("plan", false)], defaults });

  it("reads the fields into a run configuration, bounded and trimmed", () => {
    const c = read(null);
    expect(c.models).toEqual({ model: "ollama:qwen2.5:7b", fast_model: null, roles: { write: "openai:gpt-4o" } });
    expect(c.mode).toBe("multi");
    expect(c.search).toEqual(["local", "wikipedia"]);
    expect(c.budget).toEqual({ max_calls: 200, max_tokens: null, max_cost_usd: null });
    expect(c.max_revisions).toBe(10);
    expect(c.target_words).toBe(800);
    expect(c.review).toEqual({ clarify: true, plan: false, report: true });
    expect(c.review_timeout).toEqual({ minutes: 10080, then: "stop" });
    expect(c.language).toBeNull();
  });

  it("keeps what the form does not offer from the api's defaults", () => {
    const c = read({ max_revisions: 2, no_input: true, models: { model: "", fast_model: null, roles: {} } } as unknown as RunConfig);
    expect(c.no_input).toBe(false);
    fields["max-revisions"] = "";
    expect(read({ max_revisions: 2 } as unknown as RunConfig).max_revisions).toBe(2);
  });
});

describe("settings fields", () => {
  it("shows an empty built-in list as none and an absent one as empty", () => {
    const s = { banned_words: [], trusted_domains: null, allowed_hosts: [], default_model: "m" } as never;
    expect(settingText(s, "banned_words")).toBe("none");
    expect(settingText(s, "trusted_domains")).toBe("");
    expect(settingText(s, "allowed_hosts")).toBe("");
    expect(settingText(s, "default_model")).toBe("m");
  });
});
