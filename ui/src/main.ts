import { Channel } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
import { api, fixWords, humanError } from "./api";
import { citationInfo, claimsBySource, findQuote, sourceLabel, verificationWords } from "./citations";
import { downloadPercent, downloadText, formatBytes } from "./download";
import { methodView } from "./method";
import { applyEvent, emptyLive, formatUsage, noGuide, stuckNotice, type LiveState, type RunGuide } from "./live";
import type {
  Answer, AppInfo, DialogAnswer, DownloadProgress, Event, IndexReport, Mode, PendingQuestion, ResearchOutcome, ResearchRequest,
  ModelRouting, Preferences, RecommendedModel, RoleInfo, RunConfig, SessionDetail, SessionRecord, Settings, TimeoutAction, TrustVariant,
} from "./types";

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const el = <K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}, ...children: (Node | string)[]) => {
  const node = document.createElement(tag);
  Object.assign(node, props);
  node.append(...children);
  return node;
};

// ---------- app state ----------
let info: AppInfo | null = null;
let settings: Settings | null = null;
let prefs: Preferences = { mode: null, depth: null, structure: null, language: null, search: null, review: null, onboarding_done: false };
let current: { sessionId: string; threadId: string | null; detail: SessionDetail | null } | null = null;
let live: LiveState | null = null;
/** Each running thread's live view, kept while another session is on screen. */
const lives = new Map<string, LiveState>();
/** The model routing of threads started in this window (others come from their session). */
const routings = new Map<string, ModelRouting>();
let pending: PendingQuestion | null = null;
let needsTextKind: string | null = null;
const runningThreads = new Set<string>();

// ---------- small UI helpers ----------
let toastTimer = 0;
function toast(text: string, kind: "error" | "info" = "error") {
  const t = $("toast");
  t.textContent = text;
  t.className = `toast ${kind}`;
  t.hidden = false;
  window.clearTimeout(toastTimer);
  toastTimer = window.setTimeout(() => (t.hidden = true), kind === "error" ? 9000 : 4000);
}

const VIEWS = ["view-onboarding", "view-new", "view-session", "view-library", "view-settings"];
function show(view: string) {
  for (const v of VIEWS) $(v).hidden = v !== view;
  closePopover();
}

function setBusy(button: HTMLButtonElement, busy: boolean) {
  button.disabled = busy;
  button.setAttribute("aria-busy", String(busy));
}

// ---------- sessions sidebar ----------
const STATUS_WORDS: Record<string, string> = {
  running: "unfinished", waiting: "needs your answer", interrupted: "paused", failed: "stopped",
  finished: "", cancelled: "cancelled", rejected: "rejected",
};

async function refreshSessions() {
  const text = $<HTMLInputElement>("session-search").value.trim();
  let list: SessionRecord[];
  try {
    list = await api.listSessions(text || null);
  } catch (e) {
    toast(humanError(e));
    return;
  }
  const ul = $("sessions");
  ul.replaceChildren();
  if (!list.length) {
    ul.append(el("li", { className: "empty" }, text ? "No session matches." : "No sessions yet."));
  }
  for (const s of list) {
    const running = current?.sessionId === s.id && current.threadId !== null && runningThreads.has(current.threadId);
    const status = running ? "running now" : STATUS_WORDS[s.status] ?? s.status;
    const button = el("button", { className: "session-link", title: s.question },
      el("span", { className: "session-title" }, s.title),
      el("span", { className: `badge ${status ? "on" : ""}` }, status));
    button.addEventListener("click", () => void openSession(s.id));
    const li = el("li", {}, button);
    li.dataset.session = s.id;
    li.dataset.status = s.status;
    if (current?.sessionId === s.id) li.classList.add("current");
    ul.append(li);
  }
}

// ---------- new research ----------
/** The model roles, in the order they run, with their words and routing rule (from the api). */
let roleInfos: RoleInfo[] = [];
/** The steps and roles of the pipeline last outlined, for the live view's words and models. */
let guide: RunGuide = noGuide;

/** The pipeline picker, from the api's registry: each with the sentence on when to use it. */
async function buildPipelinePicker() {
  const select = $<HTMLSelectElement>("pipeline");
  try {
    const pipelines = await api.pipelines();
    select.replaceChildren(...pipelines.map((p) => el("option", { value: p.name, title: p.summary }, p.title)));
    select.title = pipelines[0]?.summary ?? "";
  } catch (e) {
    toast(humanError(e));
  }
  select.addEventListener("change", () => {
    select.title = select.selectedOptions[0]?.title ?? "";
    scheduleEstimate();
  });
}

async function buildRoleInputs() {
  try {
    roleInfos = await api.roles();
  } catch (e) {
    toast(humanError(e));
  }
  const box = $("role-models");
  box.replaceChildren(...roleInfos.map(({ role, words, fast }) => {
    const input = el("input", { id: `role-${role}`, placeholder: fast ? "fast model" : "model" });
    input.addEventListener("input", scheduleEstimate);
    return el("label", {}, words, input);
  }));
}

/** A run's defaults as the api gives them (what the form leaves open is filled there from Settings). */
let defaults: RunConfig | null = null;

function readConfig(): RunConfig {
  const v = (id: string) => $<HTMLInputElement>(id).value.trim();
  const model = v("llm");
  const fast = v("fast-llm") || null;
  const cost = Number(v("budget-cost"));
  const whole = (id: string) => {
    const n = Math.floor(Number(v(id)));
    return v(id) && n > 0 ? n : null;
  };
  const roles: Record<string, string> = {};
  for (const { role } of roleInfos) {
    const spec = v(`role-${role}`);
    if (spec) roles[role] = spec;
  }
  // What the form does not offer comes from the api's defaults (or, unloaded, the api fills it).
  return {
    ...defaults,
    mode: v("mode") as Mode,
    depth: v("depth") as RunConfig["depth"],
    structure: v("structure") as RunConfig["structure"],
    style: v("style") as RunConfig["style"],
    target_words: whole("target-words"),
    trust: v("trust") as TrustVariant,
    ...(v("max-revisions") === "" ? {} : { max_revisions: Math.min(10, Math.max(0, Math.floor(Number(v("max-revisions"))))) }),
    models: { model, fast_model: fast, roles },
    search: v("search").split(",").map((s) => s.trim()).filter(Boolean),
    budget: { max_calls: whole("budget-calls"), max_tokens: whole("budget-tokens"), max_cost_usd: v("budget-cost") && cost > 0 ? cost : null },
    review: {
      clarify: $<HTMLInputElement>("review-clarify").checked,
      plan: $<HTMLInputElement>("review-plan").checked,
      report: $<HTMLInputElement>("review-report").checked,
    },
    no_input: false,
    language: v("language") || null,
    review_timeout: whole("review-timeout") ? { minutes: Math.min(10080, whole("review-timeout") as number), then: v("on-timeout") as TimeoutAction } : null,
  } as RunConfig;
}

let estimateTimer = 0;
function scheduleEstimate() {
  window.clearTimeout(estimateTimer);
  estimateTimer = window.setTimeout(async () => {
    const config = readConfig();
    const out = $("estimate");
    if (!config.models.model && !settings?.default_model) {
      out.textContent = "Choose a model (or set a default in Settings) to start.";
      return;
    }
    try {
      const e = await api.estimate($<HTMLSelectElement>("pipeline").value, config);
      const cost = e.cost_usd === null ? "cost unknown for this model" : e.cost_usd === 0 ? "no cost (local model)" : `about $${e.cost_usd.toFixed(e.cost_usd < 0.1 ? 3 : 2)}`;
      out.textContent = `Estimate: about ${e.calls} model calls, ${Math.round(e.tokens / 1000)}k tokens, ${cost}.`;
    } catch (err) {
      out.textContent = humanError(err);
    }
  }, 150);
}

function updateQuestionCount() {
  const q = $<HTMLTextAreaElement>("question").value;
  const n = [...q].length;
  $("question-count").textContent = n > 3500 ? `${n} / 4000 characters` : "";
}

async function startResearch() {
  const question = $<HTMLTextAreaElement>("question").value.trim();
  if (!question) {
    toast("Type a question first.");
    $("question").focus();
    return;
  }
  const config = readConfig();
  if (!config.models.model) {
    toast("No model is chosen: enter one, or set a default model in Settings.");
    $("llm").focus();
    return;
  }
  const request: ResearchRequest = { question, pipeline: $<HTMLSelectElement>("pipeline").value, review: config.review, config, allowed_hosts: [], searxng_url: null };
  const start = $<HTMLButtonElement>("start");
  setBusy(start, true);
  try {
    const started = await api.createResearch(request);
    $<HTMLTextAreaElement>("question").value = "";
    updateQuestionCount();
    current = { sessionId: started.session_id, threadId: started.thread_id, detail: null };
    routings.set(started.thread_id, config.models);
    void savePreferences({
      mode: config.mode, depth: config.depth, structure: config.structure, language: config.language,
      search: $<HTMLInputElement>("search").value.trim() || null, review: config.review,
    });
    await showSessionShell(started.session_id, question, config.mode);
    await refreshSessions();
    await drive(started.thread_id, null);
  } catch (e) {
    toast(humanError(e));
  } finally {
    setBusy(start, false);
  }
}

// ---------- a session ----------
const TABS = ["report", "sources", "method"] as const;
function selectTab(tab: (typeof TABS)[number]) {
  for (const t of TABS) {
    $(`tab-${t}`).setAttribute("aria-selected", String(t === tab));
    $(`tab-${t}`).tabIndex = t === tab ? 0 : -1;
    $(`panel-${t}`).hidden = t !== tab;
  }
}

async function showSessionShell(sessionId: string, title: string, mode: Mode) {
  show("view-session");
  $("session-title").textContent = title;
  $("report").replaceChildren();
  $("stream").textContent = "";
  $("stream").hidden = true;
  $("sources-body").replaceChildren();
  $("method").replaceChildren();
  $("answer-panel").hidden = true;
  selectTab("report");
  await drawGraph(mode);
  $("live").hidden = false;
  current = current?.sessionId === sessionId ? current : { sessionId, threadId: null, detail: null };
}

/** Draws the steps of `thread`'s pipeline, or (a run not yet registered) the chosen one's. */
async function drawGraph(mode: Mode, thread: string | null = null) {
  const ol = $("graph");
  ol.replaceChildren();
  try {
    const outline = thread ? await api.runOutline(thread) : await api.graphOutline($<HTMLSelectElement>("pipeline").value, mode);
    guide = { steps: outline.steps, roles: roleInfos };
    for (const step of outline.steps) {
      const li = el("li", { title: step.doing }, step.node.replace(/_/g, " "));
      li.dataset.node = step.node;
      ol.append(li);
    }
  } catch (e) {
    toast(humanError(e));
  }
}

function renderLive() {
  if (!live) return;
  for (const li of $("graph").querySelectorAll<HTMLLIElement>("li")) {
    const node = li.dataset.node ?? "";
    li.classList.toggle("active", live.active.has(node));
    li.classList.toggle("done", live.done.has(node) && !live.active.has(node));
    if (live.active.has(node)) li.setAttribute("aria-current", "step");
    else li.removeAttribute("aria-current");
  }
  $("run-status").textContent = live.activity + (live.coverage !== null ? ` · coverage ${Math.round(live.coverage * 100)}% after round ${live.iteration}` : "");
  $("usage").textContent = formatUsage(live.calls, live.tokens, live.costUsd);
  const workers = $("workers");
  workers.replaceChildren();
  for (const w of live.workers.values()) {
    const bar = el("progress", { max: 1, value: w.done ? 1 : Math.min(0.9, 0.15 + 0.25 * w.searches + 0.1 * w.pagesRead) });
    bar.setAttribute("aria-label", `Worker ${w.task + 1}`);
    workers.append(el("div", { className: `worker ${w.done ? "done" : ""}` },
      el("span", { className: "worker-name" }, `Worker ${w.task + 1}`), bar,
      el("span", { className: "worker-activity" }, w.activity),
      el("span", { className: "worker-question" }, w.question)));
  }
  // Retries and pages that could not be read: the run goes on, but the user should know.
  const problems = $("live-warnings");
  if (problems.childElementCount !== live.warnings.length) {
    problems.replaceChildren(...live.warnings.map((w) => el("li", {}, w)));
    $("live-warnings-count").textContent = String(live.warnings.length);
  }
  $("live-warnings-box").hidden = live.warnings.length === 0;
  const list = $("live-sources");
  if (list.childElementCount !== live.sources.length) {
    list.replaceChildren(...live.sources.map((s) => el("li", {}, `${displayUrl(s.url)} — ${s.facts} fact${s.facts === 1 ? "" : "s"}`)));
    $("live-sources-count").textContent = String(live.sources.length);
  }
  const stream = $("stream");
  if (live.stream) {
    stream.hidden = false;
    if (stream.textContent !== live.stream) {
      stream.textContent = live.stream;
    }
  }
}

function displayUrl(url: string): string {
  return url.startsWith("file://") ? decodeURIComponent(url.slice(7)) : url;
}

let stuckTimer = 0;
function setRunning(threadId: string, on: boolean) {
  if (on) runningThreads.add(threadId);
  else runningThreads.delete(threadId);
  const mine = current?.threadId === threadId;
  if (!mine) return;
  $<HTMLButtonElement>("cancel").hidden = !on;
  $<HTMLButtonElement>("cancel").disabled = false;
  $("resume").hidden = true;
  $("answer-now").hidden = true;
  window.clearInterval(stuckTimer);
  $("stuck").hidden = true;
  if (on) {
    stuckTimer = window.setInterval(() => {
      if (!live) return;
      const notice = stuckNotice(live, Date.now());
      $("stuck").hidden = notice === null;
      $("stuck").textContent = notice ?? "";
    }, 2000);
  }
}

/**
 * Runs a thread until it finishes, waits for an answer, is cancelled or fails. `onScreen` is
 * false for a thread whose session the user has left (an answer given after switching away).
 */
async function drive(threadId: string, answer: Answer | null, onScreen = true) {
  if (onScreen && !current) return;
  window.clearTimeout(deadlineTimers.get(threadId));
  deadlineTimers.delete(threadId);
  const mine = emptyLive(Date.now(), guide);
  lives.set(threadId, mine);
  const routing = routings.get(threadId)
    ?? (onScreen ? (current?.detail?.session.config as RunConfig | null)?.models : null) ?? null;
  if (onScreen && current) {
    current.threadId = threadId;
    live = mine;
    $("stream").textContent = "";
    $("answer-panel").hidden = true;
  }
  const channel = new Channel<Event>();
  let frame = 0;
  let over = false;
  channel.onmessage = (event) => {
    if (over) return;
    // Events of a run whose session is not on screen still count, for when it is reopened.
    applyEvent(mine, event, Date.now(), routing);
    // A resumed run catches up on what it did before: steps finished and calls made.
    if (event.type === "run_started" && event.resumed) {
      void markEarlierSteps(threadId);
      void countEarlierCalls(threadId, mine);
    }
    if (current?.threadId !== threadId) return;
    live = mine;
    if (!frame) frame = requestAnimationFrame(() => { frame = 0; renderLive(); });
  };
  setRunning(threadId, true);
  if (onScreen) {
    $("session-meta").textContent = `Running since ${new Date().toLocaleTimeString()}`;
    renderLive();
  }
  void refreshSessions();
  let outcome: ResearchOutcome;
  try {
    outcome = await api.runResearch(threadId, answer, channel);
  } catch (e) {
    over = true;
    lives.delete(threadId);
    cancelAnimationFrame(frame);
    setRunning(threadId, false);
    if (current?.threadId === threadId) {
      $("run-status").textContent = humanError(e);
      $("run-status").classList.add("error");
      $("resume").hidden = false;
    }
    toast(humanError(e));
    void refreshSessions();
    return;
  }
  // Late events must not redraw over the outcome's status line.
  over = true;
  lives.delete(threadId);
  cancelAnimationFrame(frame);
  setRunning(threadId, false);
  void refreshSessions();
  if (current?.threadId !== threadId) {
    if (outcome.status === "finished" && outcome.result.report) toast("A research you left running has finished: its report is in the sidebar.", "info");
    return;
  }
  $("run-status").classList.remove("error");
  renderLive();
  if (outcome.status === "waiting" && outcome.question) {
    pending = outcome.question;
    $("run-status").textContent = `Waiting for your answer${untilWords(pending)}.`;
    watchDeadline(threadId, pending);
    $("answer-now").hidden = false;
    // The draft stands behind the dialog that asks about it.
    if (outcome.question.question.type === "report_review" || outcome.question.question.type === "escalation") {
      await loadSession(outcome.session_id, outcome.result.report);
    }
    await askPending();
  } else if (outcome.status === "interrupted") {
    $("run-status").textContent = "Cancelled. Everything done so far is saved; Resume continues from there.";
    $("resume").hidden = false;
  } else {
    $("live").hidden = true;
    await loadSession(outcome.session_id);
    if (outcome.result.report) toast("The report is ready.", "info");
  }
}

/** Threads whose question is on screen in a native dialog: never ask twice at once. */
const asking = new Set<string>();

/** A resumed run shows the steps it finished before as done: every scheduled step but the last. */
async function markEarlierSteps(threadId: string) {
  const history = await api.runHistory(threadId).catch(() => []);
  const mine = lives.get(threadId);
  if (!mine || history.length < 2) return;
  for (const cp of history.slice(0, -1)) for (const node of cp.next) mine.done.add(node);
  if (current?.threadId === threadId) renderLive();
}

/** A resumed run's counters start from the calls it made before (the budget counts them too). */
async function countEarlierCalls(threadId: string, mine: LiveState) {
  const before = await api.runUsage(threadId).catch(() => null);
  if (!before?.calls) return;
  // The ledger holds every call so far, this leg's included; the fold may already have seen a
  // call made after the ledger was read, so the larger of the two is right.
  mine.calls = Math.max(mine.calls, before.calls);
  mine.tokens = Math.max(mine.tokens, before.prompt_tokens + before.completion_tokens);
  mine.costUsd = Math.max(mine.costUsd, before.cost_usd);
  if (current?.threadId === threadId) renderLive();
}

/** The review-timeout timers of waiting threads, by thread. */
const deadlineTimers = new Map<string, number>();

/** " (…goes on by itself at 14:05)" for a question with a review timeout. */
function untilWords(q: PendingQuestion): string {
  if (q.deadline_ms == null) return "";
  return ` (unanswered, it goes on by itself at ${new Date(q.deadline_ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })})`;
}

/** At a question's review timeout the run is resumed without an answer: the api takes the action the run chose. */
function watchDeadline(threadId: string, q: PendingQuestion) {
  window.clearTimeout(deadlineTimers.get(threadId));
  if (q.deadline_ms == null) return;
  const wait = Math.max(0, q.deadline_ms - Date.now()) + 1000;
  deadlineTimers.set(threadId, window.setTimeout(() => {
    deadlineTimers.delete(threadId);
    if (runningThreads.has(threadId)) return;
    const onScreen = current?.threadId === threadId;
    if (onScreen) pending = null;
    void drive(threadId, null, onScreen);
  }, Math.min(wait, 2 ** 31 - 1)));
}

async function askPending() {
  if (!pending || !current?.threadId) return;
  const threadId = current.threadId;
  if (asking.has(threadId)) return;
  asking.add(threadId);
  let reply: DialogAnswer;
  try {
    reply = await api.askNative(pending);
  } catch (e) {
    toast(humanError(e));
    return;
  } finally {
    asking.delete(threadId);
  }
  if (current?.threadId !== threadId) {
    // The user moved to another session while the dialog was open: the answer still counts.
    if (reply.type === "answer") await drive(threadId, reply.answer, false);
    return;
  }
  if (reply.type === "answer") {
    pending = null;
    await drive(current.threadId, reply.answer);
  } else if (reply.type === "needs_text") {
    showAnswerPanel(reply.kind);
  } else {
    $("run-status").textContent = "Waiting for your answer: choose Answer… when you are ready.";
  }
}

function showAnswerPanel(kind: string) {
  if (!pending) return;
  needsTextKind = kind;
  const q = pending.question;
  const panel = $("answer-panel");
  const options = $("answer-options");
  options.replaceChildren();
  const free = $<HTMLTextAreaElement>("free-answer");
  free.value = "";
  free.rows = 5;
  if (q.type === "clarify") {
    $("answer-title").textContent = "Clarify the question";
    $("answer-text").textContent = q.question;
    $("free-answer-label").textContent = "Or describe what you mean";
    for (const o of q.options) {
      const b = el("button", { type: "button", className: "option" }, o);
      b.addEventListener("click", () => void submitAnswer({ type: "clarify", text: o }));
      options.append(b);
    }
  } else if (q.type === "plan_review") {
    $("answer-title").textContent = "Edit the plan";
    $("answer-text").textContent = "One research question per line; then a line with “---”; then one search per line.";
    $("free-answer-label").textContent = "Plan";
    free.value = `${q.plan.questions.join("\n")}\n---\n${q.plan.searches.join("\n")}`;
  } else if (kind === "edit_report" && q.type === "report_review") {
    $("answer-title").textContent = "Edit the report";
    $("answer-text").textContent = "Change the text as you like (Markdown; keep the [n] citations). Your edit is checked against the sources like the writer's and shown to you again.";
    $("free-answer-label").textContent = "Report text";
    free.value = q.draft;
    free.rows = 20;
  } else {
    const revise = kind === "revise_report";
    $("answer-title").textContent = revise ? "Request changes" : "Reject the report";
    $("answer-text").textContent = revise ? "What should the writer change? It revises the report from your feedback." : "Why? The reason is kept with the session.";
    $("free-answer-label").textContent = revise ? "Feedback" : "Reason";
    if (revise && q.type === "report_review" && q.draft) {
      const b = el("button", { type: "button", className: "option" }, "Edit the text myself instead");
      b.addEventListener("click", () => showAnswerPanel("edit_report"));
      options.append(b);
    }
  }
  panel.hidden = false;
  free.focus();
}

async function submitAnswer(answer?: Answer) {
  if (!pending || !current?.threadId) return;
  const text = $<HTMLTextAreaElement>("free-answer").value.trim();
  const q = pending.question;
  if (!answer) {
    if (!text) {
      toast("Type your answer first.");
      return;
    }
    if (q.type === "clarify") answer = { type: "clarify", text };
    else if (q.type === "plan_review") {
      const [qs, ss = ""] = text.split(/^---$/m);
      const lines = (s: string) => s.split("\n").map((l) => l.trim()).filter(Boolean);
      const questions = lines(qs);
      if (!questions.length) {
        toast("The plan needs at least one research question.");
        return;
      }
      answer = { type: "edit_plan", plan: { questions, aspects: q.plan.aspects, searches: lines(ss).length ? lines(ss) : q.plan.searches } };
    } else {
      answer =
        needsTextKind === "reject_report"
          ? { type: "reject_report", reason: text }
          : needsTextKind === "edit_report"
            ? { type: "edit_report", draft: text }
            : { type: "revise_report", feedback: text };
    }
  }
  pending = null;
  $("answer-panel").hidden = true;
  $("live").hidden = false;
  await drive(current.threadId, answer);
}

async function openSession(id: string) {
  current = { sessionId: id, threadId: null, detail: null };
  show("view-session");
  $("live").hidden = true;
  $("answer-panel").hidden = true;
  $("stream").hidden = true;
  await loadSession(id);
  await refreshSessions();
  const detail = current?.detail;
  if (!detail) return;
  const lastRun = detail.runs[detail.runs.length - 1]?.[0] ?? null;
  if (!lastRun) return;
  current.threadId = lastRun;
  const status = detail.session.status;
  if (runningThreads.has(lastRun)) {
    // Back to a run still going: its own live view, Cancel and the stall watch again.
    live = lives.get(lastRun) ?? live;
    await drawGraph(modeOf(detail), lastRun);
    $("live").hidden = false;
    setRunning(lastRun, true);
    renderLive();
    return;
  }
  if (status === "waiting") {
    const q = await api.pendingQuestion(lastRun).catch(() => null);
    if (q) {
      pending = q;
      await drawGraph(modeOf(detail), lastRun);
      $("live").hidden = false;
      $<HTMLButtonElement>("cancel").hidden = true;
      $("run-status").textContent = `This run waits for your answer${untilWords(q)}.`;
      watchDeadline(lastRun, q);
      $("answer-now").hidden = false;
      await askPending();
    }
  } else if (["running", "interrupted", "failed"].includes(status)) {
    await drawGraph(modeOf(detail), lastRun);
    $("live").hidden = false;
    $<HTMLButtonElement>("cancel").hidden = true;
    $("run-status").textContent = status === "failed" ? "This run stopped on an error. Resume continues from the last saved step." : "This run did not finish. Resume continues from the last saved step.";
    $("resume").hidden = false;
  }
}

function modeOf(detail: SessionDetail): Mode {
  const config = detail.session.config as { mode?: Mode } | null;
  return config?.mode === "multi" ? "multi" : "single";
}

async function loadSession(id: string, draft?: string) {
  let detail: SessionDetail;
  try {
    detail = await api.session(id);
  } catch (e) {
    toast(humanError(e));
    return;
  }
  if (current?.sessionId !== id) return;
  current.detail = detail;
  $("session-title").textContent = detail.session.title;
  const supported = detail.claims.filter((c) => c.supported).length;
  const when = new Date(detail.session.updated_at_ms).toLocaleString();
  const status = STATUS_WORDS[detail.session.status] || detail.session.status;
  $("session-meta").textContent = detail.reports.length
    ? `${status === "finished" ? "Finished" : status} ${when} · ${detail.sources.length} sources · ${supported} of ${detail.claims.length} claims supported by their quotes`
    : `${status || detail.session.status} · ${when}`;
  const report = $("report");
  if (detail.report_html) {
    report.innerHTML = detail.report_html; // comrak's output with raw HTML disabled
    decorateReport(report);
    $("stream").hidden = true;
  } else if (draft) {
    $("stream").textContent = draft;
    $("stream").hidden = false;
  } else {
    report.replaceChildren(el("p", { className: "placeholder" }, "No report yet."));
  }
  renderSources(detail);
  renderMethod(detail);
  const hasReport = detail.reports.length > 0;
  $<HTMLButtonElement>("export-md").disabled = !hasReport;
  $<HTMLButtonElement>("export-pdf").disabled = !hasReport;
}

function decorateReport(root: HTMLElement) {
  for (const a of root.querySelectorAll<HTMLAnchorElement>("a")) {
    const href = a.getAttribute("href") ?? "";
    const m = /^#cite-(\d+)$/.exec(href);
    if (m) {
      a.classList.add("cite");
      a.dataset.source = m[1];
      a.setAttribute("role", "button");
      a.setAttribute("aria-haspopup", "dialog");
      a.addEventListener("click", (e) => {
        e.preventDefault();
        // A click or Enter moves focus into the popover, so its buttons are reachable by keyboard.
        openPopover(a, Number(m[1]), true);
      });
      a.addEventListener("mouseenter", () => openPopover(a, Number(m[1])));
    } else if (/^(https?|mailto|file):/i.test(href)) {
      a.classList.add("external");
      a.addEventListener("click", (e) => {
        e.preventDefault();
        api.openExternal(href).catch((err) => toast(humanError(err)));
      });
    } else {
      a.addEventListener("click", (e) => e.preventDefault());
    }
  }
}

// ---------- citation popover and source viewer ----------
let popoverFor: HTMLElement | null = null;
function openPopover(anchor: HTMLElement, n: number, focus = false) {
  const detail = current?.detail;
  if (!detail) return;
  const c = citationInfo(n, detail.sources, detail.evidence, detail.claims);
  const pop = $("cite-popover");
  pop.replaceChildren();
  const title = c.source ? sourceLabel(c.source) : `Source ${n}`;
  pop.append(el("div", { className: "source-title" }, `[${n}] ${title}`));
  if (c.source) pop.append(el("div", { className: "source-url" }, displayUrl(c.source.url)));
  pop.append(el("div", { className: `verify-state ${c.state}` }, verificationWords(c.state)));
  for (const q of c.quotes.slice(0, 3)) {
    const b = el("blockquote", { className: "quote" }, `“${q.quote}”`);
    if (c.source) {
      // Each quote opens the source at that quote.
      const src = c.source;
      b.tabIndex = 0;
      b.title = "Show this passage in the source";
      const show = () => void openSource(src.sha256, sourceLabel(src), src.url, q.quote);
      b.addEventListener("click", show);
      b.addEventListener("keydown", (e) => {
        if (e.key === "Enter") show();
      });
    }
    pop.append(b);
  }
  if (c.quotes.length > 3) pop.append(el("div", { className: "more" }, `and ${c.quotes.length - 3} more quotes`));
  if (c.source) {
    const src = c.source;
    const open = el("button", { className: "open-source" }, "Show in source");
    open.addEventListener("click", () => void openSource(src.sha256, sourceLabel(src), src.url, c.quotes[0]?.quote ?? ""));
    const ext = el("button", { className: "open-link" }, src.url.startsWith("file://") ? "Show file" : "Open page");
    ext.addEventListener("click", () => api.openExternal(src.url).catch((err) => toast(humanError(err))));
    pop.append(el("div", { className: "actions" }, open, ext));
  }
  const r = anchor.getBoundingClientRect();
  pop.hidden = false;
  const width = Math.min(420, window.innerWidth - 24);
  pop.style.width = `${width}px`;
  pop.style.left = `${Math.max(12, Math.min(r.left, window.innerWidth - width - 12))}px`;
  const below = r.bottom + 8;
  pop.style.top = `${below + pop.offsetHeight > window.innerHeight ? Math.max(8, r.top - pop.offsetHeight - 8) : below}px`;
  popoverFor = anchor;
  if (focus) (pop.querySelector<HTMLElement>("button") ?? pop).focus();
}

function closePopover() {
  const pop = $("cite-popover");
  const hadFocus = pop.contains(document.activeElement);
  const anchor = popoverFor;
  pop.hidden = true;
  popoverFor = null;
  if (hadFocus) anchor?.focus();
}

/** Where focus was before the source viewer opened, to go back there when it closes. */
let viewerReturn: HTMLElement | null = null;
function closeViewer() {
  $("source-viewer").hidden = true;
  viewerReturn?.focus();
  viewerReturn = null;
}

let viewerUrl = "";
async function openSource(sha256: string, title: string, url: string, quote: string) {
  viewerReturn = popoverFor ?? (document.activeElement as HTMLElement | null);
  closePopover();
  let text: string;
  try {
    text = await api.sourceText(sha256);
  } catch (e) {
    toast(humanError(e));
    return;
  }
  viewerUrl = url;
  $("source-viewer-title").textContent = title;
  const box = $("source-text");
  const at = quote ? findQuote(text, quote) : null;
  if (at) {
    const mark = el("mark", {}, text.slice(at[0], at[1]));
    box.replaceChildren(text.slice(0, at[0]), mark, text.slice(at[1]));
  } else {
    box.replaceChildren(text);
  }
  $("source-viewer").hidden = false;
  $("source-viewer-close").focus();
  box.querySelector("mark")?.scrollIntoView({ block: "center" });
}

// ---------- sources and method ----------
function renderSources(detail: SessionDetail) {
  const body = $("sources-body");
  body.replaceChildren();
  const byClaims = claimsBySource(detail.evidence, detail.claims);
  for (const s of detail.sources) {
    const quotes = detail.evidence.filter((e) => e.source_id === s.source_id).length;
    const claims = byClaims.get(s.source_id) ?? [];
    const link = el("button", { className: "link" }, sourceLabel(s));
    link.addEventListener("click", () => void openSource(s.sha256, sourceLabel(s), s.url, detail.evidence.find((e) => e.source_id === s.source_id)?.quote ?? ""));
    const claimList = el("ul", { className: "claims" }, ...claims.slice(0, 4).map((c) => el("li", { className: c.supported ? "ok" : "no" }, c.text)));
    body.append(el("tr", {}, el("td", {}, String(s.source_id)),
      el("td", {}, link, el("div", { className: "source-url" }, displayUrl(s.url))),
      el("td", {}, s.kind), el("td", {}, `read · ${quotes} quote${quotes === 1 ? "" : "s"}`), el("td", {}, claims.length ? claimList : "—")));
  }
  // Pages the searches found but the run could not read: listed so nothing is silently dropped.
  for (const u of detail.method?.unread ?? []) {
    const link = el("button", { className: "link" }, displayUrl(u.url));
    link.addEventListener("click", () => api.openExternal(u.url).catch((e) => toast(humanError(e))));
    body.append(el("tr", { className: "unread" }, el("td", {}, "—"), el("td", {}, link), el("td", {}, "—"),
      el("td", {}, `not read: ${u.reason}`), el("td", {}, "—")));
  }
  if (!detail.sources.length && !detail.method?.unread.length) body.append(el("tr", {}, el("td", { colSpan: 5 }, "No sources yet.")));
}

function renderMethod(detail: SessionDetail) {
  const box = $("method");
  box.replaceChildren();
  const view = methodView(detail);
  const dl = el("dl", { className: "method-list" });
  for (const [k, v] of view.rows) dl.append(el("dt", {}, k), el("dd", {}, v));
  box.append(dl);
  if (view.plan.length) {
    const items = view.plan.map((p) => {
      const li = el("li", {}, p.question);
      if (p.coverage) li.append(" ", el("span", { className: `coverage ${p.coverage.replace(/ /g, "-")}` }, p.coverage));
      return li;
    });
    box.append(el("h3", {}, "Plan"), el("ol", { className: "method-plan" }, ...items));
  }
  if (view.searches.length) box.append(el("h3", {}, "Searches run"), el("ol", {}, ...view.searches.map((q) => el("li", {}, q))));
  if (view.skipped.length) box.append(el("h3", {}, "Skipped as near-duplicates"), el("ul", {}, ...view.skipped.map((q) => el("li", {}, q))));
  if (view.gaps.length) box.append(el("h3", {}, "Still missing"), el("ul", {}, ...view.gaps.map((g) => el("li", {}, g))));
  if (view.turns.length) box.append(el("h3", {}, "Questions asked"), el("ol", {}, ...view.turns.map((q) => el("li", {}, q))));
}

// ---------- export, rename, delete, follow-up ----------
async function exportReport(format: "md" | "pdf") {
  if (!current?.detail?.reports.length) {
    // The menu and its shortcut reach here even where the buttons are disabled.
    toast(current ? "This session has no report to export yet." : "Open a session with a report to export it.", "info");
    return;
  }
  const button = $<HTMLButtonElement>(`export-${format}`);
  setBusy(button, true);
  try {
    const path = await api.exportReport(current.sessionId, format);
    if (path) toast(`Saved ${path}`, "info");
  } catch (e) {
    toast(humanError(e));
  } finally {
    setBusy(button, false);
  }
}

function renameSession() {
  if (!current) return;
  const h = $("session-title");
  const input = el("input", { value: h.textContent ?? "", className: "rename" });
  input.setAttribute("aria-label", "Session title");
  h.replaceChildren(input);
  input.focus();
  input.select();
  // Enter, Escape and the blur that follows them all end the edit: only the first one counts.
  let finished = false;
  const done = async (save: boolean) => {
    if (finished) return;
    finished = true;
    const title = input.value.trim();
    if (save && title && current) {
      try {
        await api.renameSession(current.sessionId, title);
      } catch (e) {
        toast(humanError(e));
      }
    }
    if (current) await loadSession(current.sessionId);
    await refreshSessions();
  };
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") void done(true);
    if (e.key === "Escape") void done(false);
  });
  input.addEventListener("blur", () => void done(true), { once: true });
}

async function deleteSession() {
  if (!current) return;
  try {
    if (await api.deleteSession(current.sessionId)) {
      current = null;
      show("view-new");
      await refreshSessions();
    }
  } catch (e) {
    toast(humanError(e));
  }
}

async function askFollowUp() {
  if (!current) return;
  const input = $<HTMLInputElement>("follow-up");
  const question = input.value.trim();
  if (!question) return;
  const runs = current.detail?.runs ?? [];
  if (runs.some(([thread]) => runningThreads.has(thread)) || (current.threadId && runningThreads.has(current.threadId))) {
    toast("This session's research is still running: wait for it or cancel it, then ask your follow-up.", "info");
    return;
  }
  try {
    const started = await api.followUp(current.sessionId, question);
    input.value = "";
    current.threadId = started.thread_id;
    const mode = current.detail ? modeOf(current.detail) : "single";
    const config = current.detail?.session.config as RunConfig | null;
    if (config?.models) routings.set(started.thread_id, config.models);
    await showSessionShell(started.session_id, question, mode);
    await drive(started.thread_id, null);
  } catch (e) {
    toast(humanError(e));
  }
}

// ---------- library ----------
function progressText(r: IndexReport): string {
  const failed = r.failed.length ? `, ${r.failed.length} could not be read` : "";
  const of = r.total ? ` of ${r.total}` : "";
  return `${r.scanned}${of} files looked at: ${r.indexed} indexed, ${r.unchanged} unchanged${failed}.`;
}

async function refreshLibrary() {
  try {
    const folders = await api.libraryFolders();
    const ul = $("library-folders");
    ul.replaceChildren();
    if (!folders.length) ul.append(el("li", { className: "empty" }, "No folders yet."));
    for (const f of folders) {
      const remove = el("button", { className: "danger" }, "Remove");
      remove.setAttribute("aria-label", `Remove ${f.path}`);
      remove.addEventListener("click", async () => {
        try {
          if (await api.libraryRemove(f.path)) await refreshLibrary();
        } catch (e) {
          toast(humanError(e));
        }
      });
      ul.append(el("li", {}, el("span", { className: "path" }, f.path),
        el("span", { className: "count" }, `${f.files} document${f.files === 1 ? "" : "s"}${f.failed ? `, ${f.failed} unreadable` : ""}`), remove));
    }
  } catch (e) {
    toast(humanError(e));
  }
}

/** Fills a bar to `percent` (or leaves its value unknown to assistive tech when `null`). */
function setBar(bar: HTMLElement, percent: number | null, shown = percent ?? 50) {
  bar.style.width = `${shown}%`;
  const box = bar.parentElement;
  if (!box) return;
  if (percent === null) box.removeAttribute("aria-valuenow");
  else box.setAttribute("aria-valuenow", String(Math.round(percent)));
}

async function indexWith(run: (c: Channel<IndexReport>) => Promise<IndexReport | null>, button: HTMLButtonElement) {
  const bar = $("library-bar");
  const status = $("library-status");
  const channel = new Channel<IndexReport>();
  // A channel's last messages can arrive after the command has returned: they must not write
  // "Indexing…" over the result.
  let finished = false;
  channel.onmessage = (r) => {
    if (finished) return;
    status.textContent = `Indexing… ${progressText(r)}`;
    setBar(bar, r.total ? (100 * r.scanned) / r.total : null, r.total ? undefined : 3);
  };
  setBusy(button, true);
  setBar(bar, 0, 3);
  try {
    const report = await run(channel);
    finished = true;
    setBar(bar, report ? 100 : 0);
    status.textContent = report ? `Done. ${progressText(report)}` : "";
    await refreshLibrary();
  } catch (e) {
    finished = true;
    status.textContent = humanError(e);
    setBar(bar, 0);
  } finally {
    setBusy(button, false);
  }
}

// ---------- settings ----------
const SETTING_FIELDS = ["default_model", "fast_model", "ollama_url", "search", "searxng_url", "allowed_hosts", "banned_words", "trusted_domains", "low_trust_domains"] as const;
/** Lists whose absence means the built-in one and whose emptiness is a choice ("none"). */
const DEFAULTED_LISTS: readonly string[] = ["banned_words", "trusted_domains", "low_trust_domains"];

function fillSettings(s: Settings) {
  settings = s;
  const value = (k: (typeof SETTING_FIELDS)[number]): string => {
    const v = s[k];
    // An empty list is a choice ("none"); an absent one is the built-in list (the placeholder).
    return Array.isArray(v) ? (v.length || !DEFAULTED_LISTS.includes(k) ? v.join(", ") : "none") : v ?? "";
  };
  for (const k of SETTING_FIELDS) $<HTMLInputElement>(`set-${k}`).value = value(k);
  const llm = $<HTMLInputElement>("llm");
  if (!llm.value && s.default_model) llm.value = s.default_model;
}

/**
 * Fills the New research form once at start: the last research's choices (the store), else the
 * shared defaults (settings). Later visits to Settings never overwrite what the user typed.
 */
function fillForm(p: Preferences, s: Settings | null) {
  const set = (id: string, v: string | null | undefined) => {
    if (v) $<HTMLInputElement>(id).value = v;
  };
  set("mode", p.mode);
  set("depth", p.depth);
  set("structure", p.structure);
  set("language", p.language);
  set("search", p.search ?? (s?.search?.length ? s.search.join(", ") : null));
  const review = p.review ?? (s?.review ? { clarify: s.review.includes("clarify"), plan: s.review.includes("plan"), report: s.review.includes("report") } : null);
  if (review) {
    $<HTMLInputElement>("review-clarify").checked = review.clarify;
    $<HTMLInputElement>("review-plan").checked = review.plan;
    $<HTMLInputElement>("review-report").checked = review.report;
  }
}

async function savePreferences(change: Partial<Preferences>) {
  prefs = { ...prefs, ...change };
  // Remembering is a convenience: a failure is logged, never in the user's way.
  await api.savePreferences(prefs).catch((e) => console.warn(humanError(e)));
}

async function saveSetting(key: string, value: string) {
  try {
    fillSettings(await api.setSetting(key, value));
    toast("Saved.", "info");
  } catch (e) {
    toast(humanError(e));
    if (settings) fillSettings(settings);
  }
}

async function refreshKeys() {
  const body = $("keys-body");
  try {
    const keys = await api.listKeys();
    body.replaceChildren();
    for (const k of keys) {
      const input = el("input", { type: "password", autocomplete: "off", placeholder: "paste a new key" });
      input.setAttribute("aria-label", `New key for ${k.provider}`);
      const save = el("button", {}, "Save");
      save.setAttribute("aria-label", `Save the key for ${k.provider}`);
      save.addEventListener("click", async () => {
        if (!input.value.trim()) return;
        try {
          await api.setKey(k.provider, input.value.trim());
          input.value = "";
          // A first cloud key with no model chosen yet: start from that provider's small model.
          const probe = PROBE_MODELS[k.provider];
          const chosen = probe && !settings?.default_model ? probe : null;
          if (chosen) {
            await saveSetting("default_model", chosen);
            $<HTMLInputElement>("llm").value = chosen;
          }
          const where = info?.keychain.available === false ? `The key for ${k.provider} is kept until you quit (no system keychain).` : `The key for ${k.provider} is saved in the system keychain.`;
          toast(chosen ? `${where} The default model is now ${chosen}; change it above.` : where, "info");
          await refreshKeys();
          await refreshProviders();
        } catch (e) {
          toast(humanError(e));
        }
      });
      const del = el("button", { className: "danger", disabled: k.source !== "keychain" && k.source !== "session" }, "Delete");
      del.setAttribute("aria-label", `Delete the key for ${k.provider}`);
      del.addEventListener("click", async () => {
        try {
          if (!(await api.confirmDeleteKey(k.provider))) return;
          await api.deleteKey(k.provider);
          await refreshKeys();
          await refreshProviders();
        } catch (e) {
          toast(humanError(e));
        }
      });
      const where = { keychain: "keychain", session: "until you quit", environment: "environment", missing: "" }[k.source];
      const shown = k.masked ? `${k.masked} (${where})` : "not set";
      body.append(el("tr", {}, el("td", {}, k.provider), el("td", { className: "masked" }, shown), el("td", {}, input), el("td", {}, save, del)));
    }
  } catch (e) {
    toast(humanError(e));
  }
}

async function refreshProviders() {
  const ul = $("providers");
  ul.replaceChildren(el("li", {}, "Checking…"));
  try {
    const list = await api.providerStatus();
    ul.replaceChildren();
    for (const p of list) {
      const result = el("span", { className: "result" });
      const test = el("button", {}, "Test connection");
      test.setAttribute("aria-label", `Test ${p.name}`);
      test.addEventListener("click", async () => {
        setBusy(test, true);
        const target = p.kind === "model" ? modelFor(p.name) ?? PROBE_MODELS[p.name] ?? null : p.name;
        if (!target) {
          result.textContent = p.name === "ollama"
            ? "Choose an Ollama model you have pulled (e.g. ollama:qwen2.5:7b) as the default model, then test it."
            : "Set a model of this provider as the default model first, then test it.";
          setBusy(test, false);
          return;
        }
        try {
          const r = await api.testConnection(target);
          result.textContent = `${r.ok ? "✓" : "✗"} ${r.detail} (${r.latency_ms} ms)${r.fix ? ` ${fixWords(r.fix)}` : ""}`;
          result.className = `result ${r.ok ? "ok" : "error"}`;
        } catch (e) {
          result.textContent = humanError(e);
        } finally {
          setBusy(test, false);
        }
      });
      ul.append(el("li", { className: p.ready ? "ready" : "" }, el("span", { className: "name" }, `${p.name} (${p.kind})`),
        el("span", { className: "detail" }, p.fix ? `${p.detail}. ${fixWords(p.fix)}` : p.detail), test, result));
    }
  } catch (e) {
    ul.replaceChildren(el("li", {}, humanError(e)));
  }
}

/** Small models to test a cloud key with before any model of that provider is chosen. */
const PROBE_MODELS: Record<string, string> = {
  openai: "openai:gpt-4o-mini",
  anthropic: "anthropic:claude-3-5-haiku-latest",
  gemini: "gemini:gemini-2.0-flash",
};

function modelFor(provider: string): string | null {
  const candidates = [settings?.default_model, settings?.fast_model, $<HTMLInputElement>("llm").value];
  return candidates.find((m) => m && m.split(":")[0] === provider) ?? null;
}

async function openSettings() {
  show("view-settings");
  try {
    fillSettings(await api.getSettings());
  } catch (e) {
    toast(humanError(e));
  }
  await refreshKeys();
  void fillModelChoice();
  void refreshProviders();
}

async function chooseGguf(): Promise<boolean> {
  try {
    const spec = await api.chooseModelFile();
    if (!spec) return false;
    await saveSetting("default_model", spec);
    $<HTMLInputElement>("llm").value = spec;
    return true;
  } catch (e) {
    toast(humanError(e));
    return false;
  }
}

// ---------- model download ----------
const OTHER_MODEL = "other";
let models: RecommendedModel[] = [];

async function fillModelChoice() {
  const select = $<HTMLSelectElement>("model-choice");
  if (select.options.length) return;
  try {
    models = await api.recommendedModels();
  } catch (e) {
    toast(humanError(e));
  }
  for (const m of models) select.append(el("option", { value: m.id }, `${m.name} — about ${formatBytes(m.approx_bytes)}`));
  select.append(el("option", { value: OTHER_MODEL }, "Another model (a direct link to a .gguf file)"));
  describeModelChoice();
}

function describeModelChoice() {
  const id = $<HTMLSelectElement>("model-choice").value;
  const m = models.find((x) => x.id === id);
  $("model-url").hidden = id !== OTHER_MODEL;
  $("model-note").textContent = m ? `${m.note} Licence: ${m.license}.` : "Paste a direct link to a GGUF file, e.g. from a Hugging Face “resolve” URL.";
}

async function downloadModel() {
  const id = $<HTMLSelectElement>("model-choice").value;
  const url = id === OTHER_MODEL ? $<HTMLInputElement>("model-url").value.trim() : models.find((m) => m.id === id)?.url ?? "";
  if (!url) {
    toast("Paste the link to a .gguf file first.");
    return;
  }
  const bar = $("download-bar");
  const status = $("download-status");
  const start = $<HTMLButtonElement>("download-model");
  const stop = $<HTMLButtonElement>("cancel-download");
  const channel = new Channel<DownloadProgress>();
  // Late progress messages must not write over the outcome.
  let finished = false;
  channel.onmessage = (p) => {
    if (finished) return;
    status.textContent = downloadText(p);
    setBar(bar, downloadPercent(p));
  };
  start.disabled = true;
  stop.hidden = false;
  $("download-progress").hidden = false;
  status.textContent = "Connecting…";
  status.classList.remove("error");
  setBar(bar, 0);
  try {
    const done = await api.downloadModel(url, channel);
    finished = true;
    setBar(bar, 100);
    await saveSetting("default_model", done.spec);
    $<HTMLInputElement>("llm").value = done.spec;
    status.textContent = `Downloaded ${formatBytes(done.bytes)}${done.hash_checked ? ", checksum verified" : ""}; it is now the default model.`;
  } catch (e) {
    finished = true;
    status.textContent = humanError(e);
    status.classList.add("error");
  } finally {
    start.disabled = false;
    stop.hidden = true;
  }
}

// ---------- wiring ----------
function wire() {
  $("new-research").addEventListener("click", () => {
    show("view-new");
    $("question").focus();
  });
  $("new-form").addEventListener("submit", (e) => {
    e.preventDefault();
    void startResearch();
  });
  $("question").addEventListener("input", updateQuestionCount);
  void buildRoleInputs();
  void buildPipelinePicker();
  for (const id of ["mode", "depth", "structure", "llm", "fast-llm", "budget-cost", "budget-calls", "budget-tokens", "review-report"]) {
    $(id).addEventListener("input", scheduleEstimate);
    $(id).addEventListener("change", scheduleEstimate);
  }
  let searchTimer = 0;
  $("session-search").addEventListener("input", () => {
    window.clearTimeout(searchTimer);
    searchTimer = window.setTimeout(() => void refreshSessions(), 150);
  });
  $("open-library").addEventListener("click", () => {
    show("view-library");
    void refreshLibrary();
  });
  $("open-settings").addEventListener("click", () => void openSettings());
  $("cancel").addEventListener("click", async () => {
    if (!current?.threadId) return;
    $<HTMLButtonElement>("cancel").disabled = true;
    $("run-status").textContent = "Cancelling after the current step…";
    await api.cancelRun(current.threadId).catch((e) => toast(humanError(e)));
  });
  $("resume").addEventListener("click", () => {
    if (current?.threadId) {
      $("resume").hidden = true;
      void drive(current.threadId, null);
    }
  });
  $("answer-now").addEventListener("click", () => void askPending());
  $("reask").addEventListener("click", () => {
    $("answer-panel").hidden = true;
    void askPending();
  });
  $("free-answer-submit").addEventListener("click", () => void submitAnswer());
  for (const t of ["report", "sources", "method"] as const) $(`tab-${t}`).addEventListener("click", () => selectTab(t));
  $("export-md").addEventListener("click", () => void exportReport("md"));
  $("export-pdf").addEventListener("click", () => void exportReport("pdf"));
  $("rename-session").addEventListener("click", renameSession);
  $("delete-session").addEventListener("click", () => void deleteSession());
  $("follow-up-form").addEventListener("submit", (e) => {
    e.preventDefault();
    void askFollowUp();
  });
  $("library-add").addEventListener("click", () => void indexWith((c) => api.libraryAdd(c), $<HTMLButtonElement>("library-add")));
  $("library-reindex").addEventListener("click", () => void indexWith((c) => api.libraryReindex(c), $<HTMLButtonElement>("library-reindex")));
  for (const k of SETTING_FIELDS) {
    $(`set-${k}`).addEventListener("change", (e) => void saveSetting(k, (e.target as HTMLInputElement).value));
  }
  $("choose-gguf").addEventListener("click", () => void chooseGguf());
  $("model-choice").addEventListener("change", describeModelChoice);
  $("download-model").addEventListener("click", () => void downloadModel());
  $("cancel-download").addEventListener("click", () => void api.cancelDownload());
  $("onboard-download").addEventListener("click", () => {
    void openSettings();
    $("download-title").scrollIntoView();
    $("model-choice").focus();
  });
  $("test-model").addEventListener("click", async () => {
    const out = $("test-model-result");
    const model = settings?.default_model;
    if (!model) {
      out.textContent = "Set a default model first.";
      return;
    }
    out.textContent = "Testing…";
    const r = await api.testConnection(model).catch((e) => ({ ok: false, detail: humanError(e), latency_ms: 0 }));
    out.textContent = `${r.ok ? "✓" : "✗"} ${r.detail}`;
    out.className = `result ${r.ok ? "ok" : "error"}`;
  });
  $("source-viewer-close").addEventListener("click", closeViewer);
  // The viewer is modal: Tab cycles through its own controls.
  $("source-viewer").addEventListener("keydown", (e) => {
    if (e.key !== "Tab") return;
    const items = [...$("source-viewer").querySelectorAll<HTMLElement>("button, [href], [tabindex]:not([tabindex='-1'])")];
    if (!items.length) return;
    const first = items[0];
    const last = items[items.length - 1];
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  });
  // Tabs follow the ARIA pattern: arrow keys move between them.
  for (const [i, t] of TABS.entries()) {
    $(`tab-${t}`).addEventListener("keydown", (e) => {
      const step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
      if (!step) return;
      e.preventDefault();
      const next = TABS[(i + step + TABS.length) % TABS.length];
      selectTab(next);
      $(`tab-${next}`).focus();
    });
  }
  $("source-open-external").addEventListener("click", () => api.openExternal(viewerUrl).catch((e) => toast(humanError(e))));
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape") {
      if (!$("source-viewer").hidden) closeViewer();
      closePopover();
    }
  });
  document.addEventListener("click", (e) => {
    const pop = $("cite-popover");
    if (!pop.hidden && popoverFor && !pop.contains(e.target as Node) && !popoverFor.contains(e.target as Node)) closePopover();
  });
  // Onboarding
  $("onboard-gguf").addEventListener("click", async () => {
    if (await chooseGguf()) show("view-new");
  });
  $("onboard-ollama").addEventListener("click", async () => {
    const model = $<HTMLInputElement>("onboard-ollama-model").value.trim();
    if (!model) return;
    await saveSetting("default_model", `ollama:${model}`);
    $<HTMLInputElement>("llm").value = `ollama:${model}`;
    show("view-new");
  });
  $("onboard-cloud").addEventListener("click", () => void openSettings());
  $("onboard-library").addEventListener("click", () => {
    show("view-library");
    void refreshLibrary();
  });
  $("onboard-skip").addEventListener("click", () => show("view-new"));
  // Any choice made on the onboarding page, or skipping it, means it has done its job.
  for (const b of $("view-onboarding").querySelectorAll("button")) {
    b.addEventListener("click", () => void savePreferences({ onboarding_done: true }));
  }
}

async function onMenu(id: string) {
  switch (id) {
    case "new-research": show("view-new"); $("question").focus(); break;
    case "export-md": if (current?.detail?.reports.length) await exportReport("md"); break;
    case "export-pdf": if (current?.detail?.reports.length) await exportReport("pdf"); break;
    case "settings": await openSettings(); break;
    case "library": show("view-library"); await refreshLibrary(); break;
  }
}

async function start() {
  wire();
  try {
    info = await api.appInfo();
    defaults = await api.defaultConfig();
    $<HTMLInputElement>("max-revisions").placeholder = String(defaults.max_revisions);
    fillSettings(await api.getSettings());
  } catch (e) {
    toast(humanError(e));
  }
  prefs = await api.preferences().catch(() => prefs);
  fillForm(prefs, settings);
  if (info && !info.keychain.available) {
    const banner = $("keychain-banner");
    banner.textContent = "No system keychain was found, so API keys you enter are kept only until you quit. Keys in environment variables (e.g. OPENAI_API_KEY) still work.";
    banner.title = info.keychain.detail;
    banner.hidden = false;
    $("keys-help").textContent = "No system keychain: keys entered here last until you quit.";
  }
  if (info) $("log-dir").textContent = `Logs: ${info.log_dir} · Database: ${info.db_path} · Version ${info.version}`;
  show(info?.first_run && !prefs.onboarding_done ? "view-onboarding" : "view-new");
  await refreshSessions();
  scheduleEstimate();
  listen<string>("menu", (e) => void onMenu(e.payload)).catch(() => undefined);
  // A run left waiting for an answer (even before a restart) is asked again.
  const waiting = (await api.listSessions(null).catch(() => [])).find((s) => s.status === "waiting");
  if (waiting) await openSession(waiting.id);
}

void start();
