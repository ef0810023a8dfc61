// The live view of a run, as a pure fold over the engine's events (tested without a DOM).
import type { Event, JsonValue, ModelRouting, OutlineStep, Progress, RoleInfo } from "./types";

/**
 * What the live view knows of the pipeline a run walks, both from the api: its steps (each with
 * its model role and what the run does there) and the roles (which the fast model answers).
 */
export interface RunGuide {
  steps: OutlineStep[];
  roles: RoleInfo[];
}

export const noGuide: RunGuide = { steps: [], roles: [] };

/** The model string a step's calls go to under `routing` (the engine's own rule, from its tables). */
export function modelForNode(routing: ModelRouting | null | undefined, node: string, guide: RunGuide): string {
  if (!routing?.model) return "the model";
  const role = guide.steps.find((s) => s.node === node)?.role;
  if (!role) return routing.model;
  const own = routing.roles?.[role];
  if (own) return own;
  const fast = guide.roles.find((r) => r.role === role)?.fast ?? false;
  if (routing.fast_model && fast) return routing.fast_model;
  return routing.model;
}

export interface Worker {
  task: number;
  /** Its sub-question, once it said. */
  question: string;
  activity: string;
  searches: number;
  pagesRead: number;
  done: boolean;
}

export interface LiveState {
  active: Set<string>;
  done: Set<string>;
  workers: Map<number, Worker>;
  sources: { url: string; facts: number }[];
  stream: string;
  calls: number;
  tokens: number;
  costUsd: number;
  /** What the run is doing right now, in words. */
  activity: string;
  /** Node and since when (ms) of the latest activity: for "no progress" notices. */
  waitingOn: { node: string; what: string; since: number } | null;
  lastEventAt: number;
  warnings: string[];
  coverage: number | null;
  iteration: number;
  /** The pipeline's steps and roles, for words and models. */
  guide: RunGuide;
}

export function emptyLive(now: number, guide: RunGuide = noGuide): LiveState {
  return {
    active: new Set(), done: new Set(), workers: new Map(), sources: [], stream: "", calls: 0, tokens: 0,
    costUsd: 0, activity: "Starting…", waitingOn: null, lastEventAt: now, warnings: [], coverage: null, iteration: 0,
    guide,
  };
}

/** What the run does at `node`, in words (the pipeline's own, from its outline). */
export function nodeWords(node: string, guide: RunGuide): string {
  return guide.steps.find((s) => s.node === node)?.doing ?? node.replace(/_/g, " ");
}

function hostOf(url: string): string {
  if (url.startsWith("file://")) return decodeURIComponent(url.slice(7).split("/").pop() ?? url);
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function asProgress(payload: JsonValue): Progress | null {
  if (payload && typeof payload === "object" && !Array.isArray(payload) && typeof payload.type === "string") {
    return payload as unknown as Progress;
  }
  return null;
}

function worker(state: LiveState, task: number): Worker {
  let w = state.workers.get(task);
  if (!w) {
    w = { task, question: "", activity: "starting", searches: 0, pagesRead: 0, done: false };
    state.workers.set(task, w);
  }
  return w;
}

/** Applies one event; returns the same (mutated) state for convenience. */
export function applyEvent(state: LiveState, event: Event, now: number, routing: ModelRouting | null = null): LiveState {
  const model = (node: string) => modelForNode(routing, node, state.guide);
  state.lastEventAt = now;
  switch (event.type) {
    case "run_started":
      state.activity = event.resumed ? "Resuming from the last saved step…" : "Starting…";
      break;
    case "node_started":
      state.active.add(event.node);
      state.activity = nodeWords(event.node, state.guide);
      state.waitingOn = { node: event.node, what: `waiting on ${model(event.node)}`, since: now };
      // A later round reuses task numbers: its worker starts afresh.
      if (event.node === "search_worker") {
        state.workers.delete(event.task);
        worker(state, event.task);
      }
      break;
    case "node_finished":
      state.active.delete(event.node);
      state.done.add(event.node);
      if (event.node === "search_worker") {
        const w = worker(state, event.task);
        w.done = true;
        w.activity = "finished";
      }
      break;
    case "node_retrying":
      state.warnings.push(`${nodeWords(event.node, state.guide)}: ${event.error} (trying again in ${Math.round(event.delay_ms / 1000)} s)`);
      state.waitingOn = { node: event.node, what: `retrying after: ${event.error}`, since: now };
      break;
    case "token":
      state.stream += event.text;
      break;
    case "custom": {
      const p = asProgress(event.payload);
      if (!p) break;
      if (p.type === "llm_call") {
        state.calls += 1;
        state.tokens += p.call.prompt_tokens + p.call.completion_tokens;
        state.costUsd += p.call.cost_usd ?? 0;
        break;
      }
      const w = event.node !== "search_worker" ? null : event.task != null ? worker(state, event.task) : latestBusyWorker(state);
      switch (p.type) {
        case "assigned":
          if (w) w.question = p.question;
          break;
        case "searching":
          state.activity = `Searching “${p.query}”`;
          state.waitingOn = { node: event.node, what: `waiting on the search providers for “${p.query}”`, since: now };
          if (w) { w.activity = `searching “${p.query}”`; w.searches += 1; }
          break;
        case "reading":
          state.activity = `Reading ${hostOf(p.url)}`;
          state.waitingOn = { node: event.node, what: `waiting on ${hostOf(p.url)}`, since: now };
          if (w) w.activity = `reading ${hostOf(p.url)}`;
          break;
        case "read":
          if (!state.sources.some((s) => s.url === p.url)) state.sources.push({ url: p.url, facts: p.facts });
          if (w) w.pagesRead += 1;
          break;
        case "skipped":
          break;
        case "warning":
          state.warnings.push(p.message);
          break;
        case "coverage":
          state.coverage = p.coverage;
          state.iteration = p.iteration;
          break;
        case "writing":
          state.activity = "Writing the report";
          state.stream = "";
          state.waitingOn = { node: event.node, what: `waiting on ${model(event.node)} to write`, since: now };
          break;
        default:
          break;
      }
      break;
    }
    case "interrupted":
      state.activity = "Waiting for your answer";
      state.waitingOn = null;
      state.active.clear();
      break;
    case "run_finished":
      state.active.clear();
      state.waitingOn = null;
      break;
    case "run_failed":
      state.active.clear();
      state.waitingOn = null;
      state.activity = event.error;
      break;
    default:
      break;
  }
  return state;
}

function latestBusyWorker(state: LiveState): Worker | null {
  // Events from before tasks were named: credit the newest busy worker.
  let found: Worker | null = null;
  for (const w of state.workers.values()) if (!w.done) found = w;
  return found;
}

/** A notice when nothing has happened for a while, naming what the run waits on. */
export function stuckNotice(state: LiveState, now: number, afterMs = 20_000): string | null {
  if (!state.waitingOn || now - state.lastEventAt < afterMs) return null;
  const seconds = Math.round((now - state.lastEventAt) / 1000);
  const since = new Date(state.waitingOn.since).toLocaleTimeString();
  return `No progress for ${seconds} s: ${nodeWords(state.waitingOn.node, state.guide).toLowerCase()}, ${state.waitingOn.what} since ${since}. You can keep waiting, or cancel and resume later.`;
}

export function formatUsage(calls: number, tokens: number, costUsd: number): string {
  const t = tokens >= 10_000 ? `${(tokens / 1000).toFixed(0)}k` : tokens >= 1000 ? `${(tokens / 1000).toFixed(1)}k` : `${tokens}`;
  const cost = costUsd > 0 ? ` · $${costUsd < 0.01 ? costUsd.toFixed(4) : costUsd.toFixed(2)}` : "";
  return `${calls} call${calls === 1 ? "" : "s"} · ${t} tokens${cost}`;
}
