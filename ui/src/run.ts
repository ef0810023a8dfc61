// One `RunController` per thread this window runs or asks about: it owns the thread's channel,
// its live state, its stall watch, its review-timeout timer and the asking and answering of its
// questions. The controllers publish what they know as `RunView`s; they never touch the page.
import type { Channel } from "@tauri-apps/api/core";
import { humanError } from "./api";
import { applyEvent, emptyLive, noGuide, stuckNotice, type LiveState, type RunGuide } from "./live";
import type { RunView } from "./store";
import type {
  Answer, CheckpointInfo, DialogAnswer, Event, ModelRouting, PendingQuestion, ResearchOutcome, TextAnswer, UsageTotals,
} from "./types";

/** The commands a run needs (the api's, or a test's fakes). */
export interface RunApi {
  runResearch(threadId: string, answer: Answer | null, onEvent: Channel<Event>): Promise<ResearchOutcome>;
  askNative(pending: PendingQuestion): Promise<DialogAnswer>;
  cancelRun(threadId: string): Promise<boolean>;
  runHistory(threadId: string): Promise<CheckpointInfo[]>;
  runUsage(threadId: string): Promise<UsageTotals>;
}

export interface RunHooks {
  /** A controller's view changed. */
  publish(view: RunView): void;
  /** A leg of the run started. */
  started(run: RunController): void;
  /** A leg ended: its outcome, or `null` when the command failed. */
  ended(run: RunController, outcome: ResearchOutcome | null): void;
  /** A failure the user should read. */
  toast(text: string): void;
}

export interface RunDeps {
  api: RunApi;
  /** A new event channel (Tauri's `Channel`; tests pass a plain object). */
  channel(): Channel<Event>;
  hooks: RunHooks;
  now?: () => number;
}

/** How often the stall watch looks, and how long without an event is a stall. */
export const STALL_CHECK_MS = 2000;

/** " (unanswered, it goes on by itself at 14:05)" for a question with a review timeout. */
export function untilWords(q: PendingQuestion): string {
  if (q.deadline_ms == null) return "";
  return ` (unanswered, it goes on by itself at ${new Date(q.deadline_ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })})`;
}

export const WAITING_DISMISSED = "Waiting for your answer: choose Answer… when you are ready.";
export const CANCELLING = "Cancelling after the current step…";
export const CANCELLED = "Cancelled. Everything done so far is saved; Resume continues from there.";

/** The status line of a run: its note, or while it runs what it does and its coverage. */
export function statusLine(run: RunView): { text: string; error: boolean } {
  if (run.phase === "running" && run.note === null && run.live) {
    const l = run.live;
    return { text: l.activity + (l.coverage !== null ? ` · coverage ${Math.round(l.coverage * 100)}% after round ${l.iteration}` : ""), error: false };
  }
  return { text: run.note ?? "", error: run.phase === "failed" };
}

export class RunController {
  readonly threadId: string;
  /** Which model each step's calls go to (for the live view's words). */
  routing: ModelRouting | null = null;
  /** The pipeline's steps and roles, for the next leg's live view. */
  guide: RunGuide = noGuide;
  private s: Omit<RunView, "threadId" | "rev"> = {
    phase: "done", live: null, question: null, needsText: null, note: null, cancelling: false, stuck: null,
  };
  private rev = 0;
  /** Its question is on screen in a native dialog: never ask twice at once. */
  private asking = false;
  private deadline: ReturnType<typeof setTimeout> | undefined;
  private stall: ReturnType<typeof setInterval> | undefined;
  private readonly deps: RunDeps;

  constructor(threadId: string, deps: RunDeps) {
    this.threadId = threadId;
    this.deps = deps;
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  get running(): boolean {
    return this.s.phase === "running";
  }

  view(): RunView {
    return { threadId: this.threadId, rev: this.rev, ...this.s };
  }

  /** Applies `patch` and publishes the new view. */
  private change(patch: Partial<RunController["s"]> = {}) {
    this.s = { ...this.s, ...patch };
    this.rev += 1;
    this.deps.hooks.publish(this.view());
  }

  /** Runs the thread (with `answer` to its question) until it finishes, waits, is cancelled or fails. */
  async drive(answer: Answer | null): Promise<void> {
    clearTimeout(this.deadline);
    this.deadline = undefined;
    const live = emptyLive(this.now(), this.guide);
    this.s = { phase: "running", live, question: null, needsText: null, note: null, cancelling: false, stuck: null };
    const channel = this.deps.channel();
    let over = false;
    channel.onmessage = (event: Event) => {
      // Late events must not redraw over the outcome.
      if (over) return;
      applyEvent(live, event, this.now(), this.routing);
      // A resumed run catches up on what it did before: steps finished and calls made.
      if (event.type === "run_started" && event.resumed) {
        void this.markEarlierSteps(live);
        void this.countEarlierCalls(live);
      }
      this.change({ note: null });
    };
    this.watchStall(live);
    this.change();
    this.deps.hooks.started(this);
    let outcome: ResearchOutcome;
    try {
      outcome = await this.deps.api.runResearch(this.threadId, answer, channel);
    } catch (e) {
      over = true;
      this.stopStall();
      this.change({ phase: "failed", note: humanError(e) });
      this.deps.hooks.toast(humanError(e));
      this.deps.hooks.ended(this, null);
      return;
    }
    over = true;
    this.stopStall();
    if (outcome.status === "waiting" && outcome.question) {
      this.change({ phase: "waiting", question: outcome.question, note: `Waiting for your answer${untilWords(outcome.question)}.` });
    } else if (outcome.status === "interrupted") {
      this.change({ phase: "paused", note: CANCELLED });
    } else {
      this.change({ phase: "done", note: null });
    }
    this.deps.hooks.ended(this, outcome);
  }

  /** A question found waiting (e.g. after a restart): the run waits on it. */
  waitOn(question: PendingQuestion) {
    this.change({ phase: "waiting", question, needsText: null, note: `This run waits for your answer${untilWords(question)}.` });
  }

  /** A run that is not going in this window and can be resumed. */
  pause(note: string) {
    this.change({ phase: "paused", question: null, needsText: null, note });
  }

  /** Asks its question in a native dialog; an answer continues the run. */
  async ask(): Promise<void> {
    const question = this.s.question;
    if (!question || this.asking || this.running) return;
    this.asking = true;
    let reply: DialogAnswer;
    try {
      reply = await this.deps.api.askNative(question);
    } catch (e) {
      this.deps.hooks.toast(humanError(e));
      return;
    } finally {
      this.asking = false;
    }
    // Even when the user moved to another session meanwhile, the answer counts.
    if (reply.type === "answer") await this.drive(reply.answer);
    else if (reply.type === "needs_text") this.needText(reply.kind);
    else {
      this.change({ note: WAITING_DISMISSED });
    }
  }

  /** The page's own field takes the answer (`kind` as the dialog named it). */
  needText(kind: TextAnswer) {
    if (!this.s.question) return;
    this.change({ needsText: kind });
  }

  /** The page's answer field closes (the question still waits). */
  closeAnswer() {
    if (this.s.needsText === null) return;
    this.change({ needsText: null });
  }

  /** Continues the run with the user's answer to its question. */
  async answer(answer: Answer): Promise<void> {
    if (!this.s.question) return;
    await this.drive(answer);
  }

  async cancel(): Promise<void> {
    if (!this.running) return;
    this.change({ cancelling: true, note: CANCELLING });
    await this.deps.api.cancelRun(this.threadId).catch((e) => this.deps.hooks.toast(humanError(e)));
  }

  /** At its question's review timeout the run goes on without an answer: the api takes the action the run chose. */
  watchDeadline() {
    clearTimeout(this.deadline);
    this.deadline = undefined;
    const q = this.s.question;
    if (q?.deadline_ms == null) return;
    const wait = Math.max(0, q.deadline_ms - this.now()) + 1000;
    this.deadline = setTimeout(() => {
      this.deadline = undefined;
      if (this.running) return;
      void this.drive(null);
    }, Math.min(wait, 2 ** 31 - 1));
  }

  /** Stops its timers (the app is closing its view of it). */
  dispose() {
    clearTimeout(this.deadline);
    this.stopStall();
  }

  private watchStall(live: LiveState) {
    this.stopStall();
    this.stall = setInterval(() => {
      const notice = stuckNotice(live, this.now());
      if (notice !== this.s.stuck) this.change({ stuck: notice });
    }, STALL_CHECK_MS);
  }

  private stopStall() {
    clearInterval(this.stall);
    this.stall = undefined;
    if (this.s.stuck !== null) this.s = { ...this.s, stuck: null };
  }

  /** A resumed run shows the steps it finished before as done: every scheduled step but the last. */
  private async markEarlierSteps(live: LiveState) {
    const history = await this.deps.api.runHistory(this.threadId).catch(() => []);
    if (this.s.live !== live || !this.running || history.length < 2) return;
    for (const cp of history.slice(0, -1)) for (const node of cp.next) live.done.add(node);
    this.change();
  }

  /** A resumed run's counters start from the calls it made before (the budget counts them too). */
  private async countEarlierCalls(live: LiveState) {
    const before = await this.deps.api.runUsage(this.threadId).catch(() => null);
    if (!before?.calls || this.s.live !== live) return;
    // The ledger holds every call so far, this leg's included; the fold may already have seen a
    // call made after the ledger was read, so the larger of the two is right.
    live.calls = Math.max(live.calls, before.calls);
    live.tokens = Math.max(live.tokens, before.prompt_tokens + before.completion_tokens);
    live.costUsd = Math.max(live.costUsd, before.cost_usd);
    this.change();
  }
}

/** The controllers of this window's threads, one per thread. */
export class Runs {
  private readonly runs = new Map<string, RunController>();
  private readonly deps: RunDeps;

  constructor(deps: RunDeps) {
    this.deps = deps;
  }

  get(threadId: string | null | undefined): RunController | null {
    return threadId ? this.runs.get(threadId) ?? null : null;
  }

  /** The thread's controller, made on first use. */
  of(threadId: string): RunController {
    let run = this.runs.get(threadId);
    if (!run) {
      run = new RunController(threadId, this.deps);
      this.runs.set(threadId, run);
    }
    return run;
  }

  isRunning(threadId: string | null | undefined): boolean {
    return this.get(threadId)?.running ?? false;
  }
}
