import { describe, expect, it } from "vitest";
import { applyEvent, emptyLive, formatUsage, modelForNode, stuckNotice } from "./live";
import type { Event, RoleInfo } from "./types";
import type { RunGuide } from "./live";

// As the api gives them for the standard pipeline (graph_outline and roles).
const role = (r: RoleInfo["role"], fast: boolean): RoleInfo => ({ role: r, words: r, fast, prompt_tokens: 0, completion_tokens: 0 });
const guide: RunGuide = {
  steps: [
    { node: "understand", role: "understand", doing: "Reading the question" },
    { node: "plan", role: "plan", doing: "Planning the research" },
    { node: "search_and_extract", role: "extract", doing: "Searching and reading sources" },
    { node: "detect_gaps", role: "gaps", doing: "Looking for gaps" },
    { node: "search_worker", role: "extract", doing: "Workers are researching" },
    { node: "verify", role: "verify", doing: "Checking claims against the sources" },
    { node: "write_report", role: "write", doing: "Writing the report" },
  ],
  roles: [role("understand", true), role("plan", false), role("extract", true), role("gaps", false), role("verify", true), role("write", false)],
};

const started = (node: string, task = 0): Event => ({ type: "node_started", step: 1, task, node });
const finished = (node: string, task = 0): Event => ({ type: "node_finished", step: 1, task, node, update: null });
const custom = (node: string, payload: Record<string, unknown>, task: number | null = null): Event =>
  ({ type: "custom", node, task, payload } as unknown as Event);

describe("live run view", () => {
  it("tracks the active node, finished nodes and the streamed report", () => {
    const s = emptyLive(0, guide);
    applyEvent(s, started("plan"), 1);
    expect([...s.active]).toEqual(["plan"]);
    expect(s.activity).toBe("Planning the research");
    applyEvent(s, finished("plan"), 2);
    expect(s.active.size).toBe(0);
    expect(s.done.has("plan")).toBe(true);
    applyEvent(s, custom("write_report", { type: "writing" }), 3);
    applyEvent(s, { type: "token", node: "write_report", task: 0, text: "# Bees" }, 4);
    applyEvent(s, { type: "token", node: "write_report", task: 0, text: " dance" }, 5);
    expect(s.stream).toBe("# Bees dance");
  });

  it("shows workers with their progress and sources as they are read", () => {
    const s = emptyLive(0, guide);
    applyEvent(s, started("search_worker", 0), 1);
    applyEvent(s, started("search_worker", 1), 1);
    applyEvent(s, custom("search_worker", { type: "searching", query: "waggle dance" }), 2);
    applyEvent(s, custom("search_worker", { type: "read", url: "https://example.org/a", facts: 3 }), 3);
    applyEvent(s, custom("search_worker", { type: "read", url: "https://example.org/a", facts: 3 }), 3);
    applyEvent(s, finished("search_worker", 0), 4);
    expect(s.workers.size).toBe(2);
    expect(s.workers.get(0)?.done).toBe(true);
    expect(s.workers.get(1)?.activity).toContain("waggle dance");
    expect(s.sources).toEqual([{ url: "https://example.org/a", facts: 3 }]);
  });

  it("credits each worker with its own sub-question and progress, and starts a new round afresh", () => {
    const s = emptyLive(0, guide);
    applyEvent(s, started("search_worker", 0), 1);
    applyEvent(s, started("search_worker", 1), 1);
    applyEvent(s, custom("search_worker", { type: "assigned", question: "How do bees dance?" }, 0), 2);
    applyEvent(s, custom("search_worker", { type: "assigned", question: "Who is the queen?" }, 1), 2);
    applyEvent(s, custom("search_worker", { type: "searching", query: "waggle dance" }, 0), 3);
    applyEvent(s, custom("search_worker", { type: "read", url: "https://example.org/q", facts: 2 }, 1), 3);
    expect(s.workers.get(0)?.question).toBe("How do bees dance?");
    expect(s.workers.get(0)?.searches).toBe(1);
    expect(s.workers.get(0)?.pagesRead).toBe(0);
    expect(s.workers.get(1)?.question).toBe("Who is the queen?");
    expect(s.workers.get(1)?.pagesRead).toBe(1);
    applyEvent(s, finished("search_worker", 0), 4);
    applyEvent(s, started("search_worker", 0), 5);
    expect(s.workers.get(0)?.done).toBe(false);
    expect(s.workers.get(0)?.question).toBe("");
  });

  it("adds up model calls, tokens and cost", () => {
    const s = emptyLive(0, guide);
    for (let i = 0; i < 3; i++) {
      applyEvent(s, custom("plan", { type: "llm_call", call: { prompt_tokens: 1000, completion_tokens: 200, cost_usd: 0.001 } }), i);
    }
    expect(s.calls).toBe(3);
    expect(s.tokens).toBe(3600);
    expect(formatUsage(s.calls, s.tokens, s.costUsd)).toBe("3 calls · 3.6k tokens · $0.0030");
    expect(formatUsage(1, 50, 0)).toBe("1 call · 50 tokens");
  });

  it("says what a silent run waits on, and only after a while", () => {
    const s = emptyLive(0, guide);
    applyEvent(s, started("search_and_extract"), 1000);
    applyEvent(s, custom("search_and_extract", { type: "reading", url: "https://slow.example.com/page" }), 2000);
    expect(stuckNotice(s, 10_000)).toBeNull();
    const notice = stuckNotice(s, 32_000);
    expect(notice).toContain("No progress for 30 s");
    expect(notice).toContain("slow.example.com");
    applyEvent(s, { type: "run_finished", steps: 9 } as Event, 40_000);
    expect(stuckNotice(s, 90_000)).toBeNull();
  });

  it("names the model each step waits on: the fast one for extraction, a step's own if set", () => {
    const routing = { model: "openai:gpt-4o", fast_model: "ollama:qwen2.5:3b", roles: { write: "anthropic:claude" } };
    expect(modelForNode(routing, "plan", guide)).toBe("openai:gpt-4o");
    expect(modelForNode(routing, "search_and_extract", guide)).toBe("ollama:qwen2.5:3b");
    expect(modelForNode(routing, "write_report", guide)).toBe("anthropic:claude");
    expect(modelForNode(null, "plan", guide)).toBe("the model");
    const s = emptyLive(0, guide);
    applyEvent(s, started("search_and_extract"), 1000, routing);
    expect(stuckNotice(s, 40_000)).toContain("waiting on ollama:qwen2.5:3b since");
  });

  it("reports retries as warnings naming the error", () => {
    const s = emptyLive(0, guide);
    applyEvent(s, { type: "node_retrying", node: "plan", attempt: 1, error: "429 Too Many Requests", delay_ms: 2000 }, 1);
    expect(s.warnings[0]).toContain("429 Too Many Requests");
    expect(s.waitingOn?.what).toContain("retrying");
  });
});
