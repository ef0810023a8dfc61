import type { Channel } from "@tauri-apps/api/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CANCELLED, CANCELLING, RunController, Runs, statusLine, WAITING_DISMISSED, type RunApi, type RunHooks } from "./run";
import type { RunView } from "./store";
import type { Answer, DialogAnswer, Event, PendingQuestion, ResearchOutcome } from "./types";

/** A promise settled from outside. */
function later<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const question = (deadline_ms: number | null = null): PendingQuestion => ({
  interrupt_id: "i1", asked_at_ms: 0, deadline_ms,
  question: { type: "clarify", question: "Which?", options: ["A", "B"], ambiguities: [] },
});

const outcome = (status: ResearchOutcome["status"], q: PendingQuestion | null = null): ResearchOutcome =>
  ({ session_id: "s1", thread_id: "t1", status, question: q, result: { report: status === "finished" ? "# R" : "" } } as unknown as ResearchOutcome);

/** A fake api whose runs and dialogs the test ends; and the hooks' record. */
function harness() {
  const legs: { answer: Answer | null; channel: { onmessage: (e: Event) => void }; end: ReturnType<typeof later<ResearchOutcome>> }[] = [];
  const dialogs: ReturnType<typeof later<DialogAnswer>>[] = [];
  const api: RunApi = {
    runResearch: (_t, answer, channel) => {
      const end = later<ResearchOutcome>();
      legs.push({ answer, channel: channel as unknown as { onmessage: (e: Event) => void }, end });
      return end.promise;
    },
    askNative: () => {
      const d = later<DialogAnswer>();
      dialogs.push(d);
      return d.promise;
    },
    cancelRun: vi.fn(async () => true),
    runHistory: async () => [],
    runUsage: async () => ({ calls: 0, prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 } as never),
  };
  const views: RunView[] = [];
  const record = { started: 0, ended: [] as (ResearchOutcome | null)[], toasts: [] as string[] };
  const hooks: RunHooks = {
    publish: (v) => views.push(v),
    started: () => void record.started++,
    ended: (_r, o) => void record.ended.push(o),
    toast: (t) => void record.toasts.push(t),
  };
  let now = 1_000;
  const runs = new Runs({ api, hooks, channel: () => ({ onmessage: () => {} }) as unknown as Channel<Event>, now: () => now });
  return { api, legs, dialogs, views, record, runs, last: () => views[views.length - 1], tick: (ms: number) => (now += ms) };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe("RunController", () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] }));
  afterEach(() => vi.useRealTimers());

  it("runs a leg: live events, then the finished outcome", async () => {
    const h = harness();
    const run = h.runs.of("t1");
    const done = run.drive(null);
    expect(h.last().phase).toBe("running");
    expect(h.runs.isRunning("t1")).toBe(true);
    expect(h.record.started).toBe(1);
    h.legs[0].channel.onmessage({ type: "node_started", step: 1, task: 0, node: "plan" });
    expect([...(h.last().live?.active ?? [])]).toEqual(["plan"]);
    expect(statusLine(h.last()).text).toBe("plan");
    h.legs[0].end.resolve(outcome("finished"));
    await done;
    expect(h.last().phase).toBe("done");
    expect(h.record.ended).toHaveLength(1);
    // Late events change nothing.
    const rev = h.last().rev;
    h.legs[0].channel.onmessage({ type: "token", node: "write_report", task: null, text: "late" });
    expect(h.last().rev).toBe(rev);
  });

  it("a failed leg says why, red, and can be resumed", async () => {
    const h = harness();
    const run = h.runs.of("t1");
    const done = run.drive(null);
    h.legs[0].end.reject({ code: "run_failed", message: "the model is gone", fix: null });
    await done;
    expect(h.last().phase).toBe("failed");
    expect(statusLine(h.last())).toEqual({ text: "The model is gone. Nothing is lost: resume the run when the cause is fixed.", error: true });
    expect(h.record.toasts).toHaveLength(1);
    expect(h.record.ended).toEqual([null]);
  });

  it("waits on its question, asks it once at a time, and an answer drives it on", async () => {
    const h = harness();
    const run = h.runs.of("t1");
    const done = run.drive(null);
    h.legs[0].end.resolve(outcome("waiting", question()));
    await done;
    expect(h.last().phase).toBe("waiting");
    expect(statusLine(h.last()).text).toBe("Waiting for your answer.");
    const asked = run.ask();
    void run.ask(); // a second ask while the dialog is up is ignored
    expect(h.dialogs).toHaveLength(1);
    h.dialogs[0].resolve({ type: "answer", answer: { type: "clarify", text: "A" } });
    await flush();
    expect(h.legs).toHaveLength(2);
    expect(h.legs[1].answer).toEqual({ type: "clarify", text: "A" });
    expect(h.last().question).toBeNull();
    h.legs[1].end.resolve(outcome("finished"));
    await asked;
    expect(h.last().phase).toBe("done");
  });

  it("a dialog that needs text opens the page's field; a dismissed one says how to come back", async () => {
    const h = harness();
    const run = h.runs.of("t1");
    run.waitOn(question());
    expect(statusLine(h.last()).text).toBe("This run waits for your answer.");
    const asked = run.ask();
    h.dialogs[0].resolve({ type: "needs_text", kind: "clarify" });
    await asked;
    expect(h.last().needsText).toBe("clarify");
    run.closeAnswer();
    expect(h.last().needsText).toBeNull();
    const again = run.ask();
    h.dialogs[1].resolve({ type: "dismissed" });
    await again;
    expect(h.last().note).toBe(WAITING_DISMISSED);
    expect(h.last().phase).toBe("waiting");
    // The field's answer drives the run on and closes the field.
    void run.answer({ type: "clarify", text: "mine" });
    expect(h.legs[0].answer).toEqual({ type: "clarify", text: "mine" });
    expect(h.last().needsText).toBeNull();
    expect(h.last().phase).toBe("running");
  });

  it("cancelling says so until the next event, and the outcome offers Resume", async () => {
    const h = harness();
    const run = h.runs.of("t1");
    const done = run.drive(null);
    h.legs[0].channel.onmessage({ type: "node_started", step: 1, task: 0, node: "plan" });
    await run.cancel();
    expect(h.api.cancelRun).toHaveBeenCalledWith("t1");
    expect(h.last().cancelling).toBe(true);
    expect(statusLine(h.last()).text).toBe(CANCELLING);
    h.legs[0].channel.onmessage({ type: "node_finished", step: 1, task: 0, node: "plan", update: null });
    expect(statusLine(h.last()).text).toBe("plan");
    h.legs[0].end.resolve(outcome("interrupted"));
    await done;
    expect(h.last().phase).toBe("paused");
    expect(statusLine(h.last()).text).toBe(CANCELLED);
    // Resume starts a fresh leg and live view.
    void run.drive(null);
    expect(h.last().phase).toBe("running");
    expect(h.last().cancelling).toBe(false);
    expect(h.last().live?.done.size).toBe(0);
  });

  it("the stall watch names what the run waits on after 20 s without events", async () => {
    const h = harness();
    const run = h.runs.of("t1");
    void run.drive(null);
    h.legs[0].channel.onmessage({ type: "node_started", step: 1, task: 0, node: "plan" });
    h.tick(10_000);
    vi.advanceTimersByTime(2000);
    expect(h.last().stuck).toBeNull();
    h.tick(15_000);
    vi.advanceTimersByTime(2000);
    expect(h.last().stuck).toMatch(/^No progress for 25 s: plan, waiting on the model/);
    h.legs[0].end.resolve(outcome("finished"));
    await flush();
    expect(h.last().stuck).toBeNull();
  });

  it("at a question's review timeout the run goes on by itself", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
    const h = harness();
    const run = h.runs.of("t1");
    run.waitOn(question(1_000 + 60_000));
    expect(statusLine(h.last()).text).toMatch(/^This run waits for your answer \(unanswered, it goes on by itself at /);
    run.watchDeadline();
    vi.advanceTimersByTime(60_000);
    expect(h.legs).toHaveLength(0);
    vi.advanceTimersByTime(1_000);
    expect(h.legs).toHaveLength(1);
    expect(h.legs[0].answer).toBeNull();
  });

  it("one controller per thread", () => {
    const h = harness();
    expect(h.runs.of("t1")).toBe(h.runs.of("t1"));
    expect(h.runs.get("t2")).toBeNull();
    expect(h.runs.of("t2")).toBeInstanceOf(RunController);
  });
});
