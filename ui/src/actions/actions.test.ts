// The actions over a fake api: what lands in the store when runs start, end, wait and are left.
import { beforeEach, describe, expect, it, vi } from "vitest";

type Handler = (args: Record<string, unknown>) => unknown;
const handlers = new Map<string, Handler>();
vi.mock("@tauri-apps/api/core", () => ({
  invoke: (cmd: string, args: Record<string, unknown> = {}) => {
    const h = handlers.get(cmd);
    return h ? Promise.resolve().then(() => h(args)) : Promise.reject(new Error(`no fake for ${cmd}`));
  },
  Channel: class {
    onmessage: (m: unknown) => void = () => {};
  },
}));

const { createActions } = await import("./index");
const { createStore, initialState } = await import("../store");
const { testChoices } = await import("../choices.fixture");

function later<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
const flush = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

const record = (id: string, status: string) => ({ id, title: `T ${id}`, question: `Q ${id}`, status, created_at_ms: 0, updated_at_ms: 0, config: { mode: "single" } });
const detail = (id: string, status: string, thread: string, report = "") => ({
  session: record(id, status), runs: [[thread, "Q"]], reports: report ? [{}] : [], sources: [], evidence: [], claims: [], report_html: report, method: null,
});
const outcome = (session: string, thread: string, status: string, question: unknown = null) =>
  ({ session_id: session, thread_id: thread, status, question, result: { report: status === "finished" ? "# R" : "" } });

function setup() {
  const store = createStore({ ...initialState(), choices: testChoices });
  const toasts: string[] = [];
  const actions = createActions(store, (t) => void toasts.push(t));
  return { store, toasts, actions };
}

beforeEach(() => {
  handlers.clear();
  handlers.set("list_sessions", () => []);
  handlers.set("save_preferences", () => null);
  handlers.set("graph_outline", () => ({ steps: [{ node: "plan", role: "plan", doing: "Planning" }] }));
  handlers.set("run_outline", () => ({ steps: [{ node: "plan", role: "plan", doing: "Planning" }] }));
});

describe("actions", () => {
  it("loads the api's form choices at start-up, before the form is filled", async () => {
    const store = createStore(initialState());
    const actions = createActions(store, () => {});
    handlers.set("app_info", () => ({ first_run: false, keychain: { available: true } }));
    handlers.set("default_config", () => ({ max_revisions: 3 }));
    handlers.set("form_choices", () => testChoices);
    handlers.set("get_settings", () => ({ allowed_hosts: [] }));
    handlers.set("preferences", () => ({ onboarding_done: true }));
    let choicesWhenFilled: unknown = undefined;
    store.watch((s) => s.prefsLoaded, (loaded) => {
      if (loaded) choicesWhenFilled = store.get().choices;
    });
    await actions.start();
    expect(store.get().choices).toEqual(testChoices);
    expect(choicesWhenFilled).toEqual(testChoices);
  });

  it("keeps the view the person opened while the app was still starting", async () => {
    const { store, actions } = setup();
    handlers.set("app_info", () => ({ first_run: true, keychain: { available: true } }));
    handlers.set("default_config", () => ({ max_revisions: 3 }));
    handlers.set("form_choices", () => testChoices);
    handlers.set("get_settings", () => ({ allowed_hosts: [] }));
    const prefs = later<unknown>();
    handlers.set("preferences", () => prefs.promise);
    const started = actions.start();
    await flush();
    actions.show("library");
    prefs.resolve({ onboarding_done: false });
    await started;
    expect(store.get().view).toBe("library");
  });

  it("exports in the citation style chosen, which is remembered through the settings", async () => {
    const { store, actions } = setup();
    let chosen = "numbered";
    const styles = () => ["numbered", "apa"].map((id) => ({ id, name: id, author_date: id === "apa", chosen: id === chosen }));
    handlers.set("citation_styles", styles);
    const saved: unknown[] = [];
    handlers.set("set_setting", (a) => {
      saved.push(a);
      chosen = String(a.value);
      return { allowed_hosts: [] };
    });
    const exported: unknown[] = [];
    handlers.set("export_report", (a) => {
      exported.push(a);
      return "/tmp/r.docx";
    });
    await actions.loadCitationStyles();
    expect(store.get().citationStyles?.find((c) => c.chosen)?.id).toBe("numbered");
    await actions.chooseCitationStyle("apa");
    expect(saved).toEqual([{ key: "citation_style", value: "apa" }]);
    expect(store.get().citationStyles?.find((c) => c.chosen)?.id).toBe("apa");
    store.set({ session: { sessionId: "s1", detail: { reports: [{}] } } as never });
    await actions.exportReport("docx");
    expect(exported).toEqual([{ sessionId: "s1", format: "docx", style: "apa" }]);
  });

  it("a new research shows its shell, runs, and ends on its report", async () => {
    const { store, toasts, actions } = setup();
    const run = later<unknown>();
    handlers.set("create_research", () => ({ session_id: "s1", thread_id: "t1" }));
    handlers.set("run_research", () => run.promise);
    handlers.set("session", () => detail("s1", "finished", "t1", "<p>R</p>"));
    let cleared = false;
    const request = { question: "Why?", pipeline: "standard", review: null, config: { mode: "single", models: { model: "m", fast_model: null, roles: {} }, review: null }, allowed_hosts: [], searxng_url: null };
    const started = actions.startResearch(request as never, null, () => (cleared = true));
    await flush();
    expect(cleared).toBe(true);
    expect(store.get().view).toBe("session");
    expect(store.get().session).toMatchObject({ sessionId: "s1", threadId: "t1", title: "Why?", live: true });
    expect(store.get().session?.steps.map((s) => s.node)).toEqual(["plan"]);
    expect(store.get().runs.t1.phase).toBe("running");
    expect(store.get().session?.meta).toMatch(/^Running since /);
    run.resolve(outcome("s1", "t1", "finished"));
    await started;
    await flush();
    expect(store.get().runs.t1.phase).toBe("done");
    expect(store.get().session).toMatchObject({ live: false, title: "T s1", stream: null });
    expect(store.get().session?.panels?.report_html).toBe("<p>R</p>");
    expect(toasts).toContain("The report is ready.");
  });

  it("a run left for another session ends without touching the screen", async () => {
    const { store, toasts, actions } = setup();
    const run = later<unknown>();
    handlers.set("create_research", () => ({ session_id: "s1", thread_id: "t1" }));
    handlers.set("run_research", () => run.promise);
    handlers.set("session", ({ id }) => (id === "s2" ? detail("s2", "finished", "t2", "<p>Other</p>") : detail("s1", "finished", "t1")));
    const request = { question: "Why?", pipeline: "", review: null, config: { mode: "single", models: { model: "m", fast_model: null, roles: {} }, review: null }, allowed_hosts: [], searxng_url: null };
    const started = actions.startResearch(request as never, null, () => undefined);
    await flush();
    await actions.openSession("s2");
    expect(store.get().session).toMatchObject({ sessionId: "s2", threadId: "t2", live: false });
    run.resolve(outcome("s1", "t1", "finished"));
    await started;
    await flush();
    expect(store.get().session?.sessionId).toBe("s2");
    expect(store.get().session?.panels?.report_html).toBe("<p>Other</p>");
    expect(toasts).toContain("A research you left running has finished: its report is in the sidebar.");
  });

  it("opening a waiting session asks its question once, however often it is opened", async () => {
    const { store, actions } = setup();
    const question = { interrupt_id: "i", asked_at_ms: 0, deadline_ms: null, question: { type: "clarify", question: "Which?", options: ["A"], ambiguities: [] } };
    const dialog = later<unknown>();
    let asked = 0;
    handlers.set("session", () => detail("s1", "waiting", "t1"));
    handlers.set("pending_question", () => question);
    handlers.set("ask_native", () => {
      asked += 1;
      return dialog.promise;
    });
    void actions.openSession("s1");
    await flush();
    void actions.openSession("s1");
    await flush();
    expect(asked).toBe(1);
    expect(store.get().session).toMatchObject({ threadId: "t1", live: true });
    expect(store.get().runs.t1).toMatchObject({ phase: "waiting", note: "This run waits for your answer." });
    dialog.resolve({ type: "needs_text", kind: "clarify" });
    await flush();
    expect(store.get().runs.t1.needsText).toBe("clarify");
  });

  it("an escalation left waiting is asked again in its native dialog and answered there", async () => {
    const { store, actions } = setup();
    const question = { interrupt_id: "i", asked_at_ms: 0, deadline_ms: null, question: { type: "escalation", reason: "1 critical issue is still open", issues: [], score: 6.5, by: "review" } };
    const asked: unknown[] = [];
    const answers: unknown[] = [];
    handlers.set("session", () => detail("s1", "waiting", "t1"));
    handlers.set("pending_question", () => question);
    handlers.set("ask_native", (args) => {
      asked.push(args.pending);
      return { type: "answer", answer: { type: "accept_with_caveats" } };
    });
    handlers.set("run_research", (args) => {
      answers.push(args.answer);
      return outcome("s1", "t1", "finished");
    });
    await actions.openSession("s1");
    await flush();
    expect(asked).toEqual([question]);
    expect(answers).toEqual([{ type: "accept_with_caveats" }]);
    expect(store.get().runs.t1.phase).toBe("done");
  });

  it("an edited draft is checked first: sent at once when clean, else its findings wait for a fix or a send anyway", async () => {
    const { store, actions } = setup();
    const question = { interrupt_id: "i", asked_at_ms: 0, deadline_ms: null, question: { type: "report_review", report: "# R", draft: "D [1]." } };
    const finding = { number: 2, sentence: "Radio [7].", problem: "unknown_source", unknown: [7], message: "Sentence 2 cites [7], which no source has." };
    const sent: unknown[] = [];
    let findings: unknown[] = [finding];
    handlers.set("session", () => detail("s1", "waiting", "t1"));
    handlers.set("pending_question", () => question);
    handlers.set("ask_native", () => ({ type: "needs_text", kind: "edit_report" }));
    handlers.set("check_draft", (args) => (args.threadId === "t1" ? findings : []));
    handlers.set("run_research", (args) => {
      sent.push(args.answer);
      return outcome("s1", "t1", "waiting", question);
    });
    await actions.openSession("s1");
    await flush();
    await actions.checkEdit("D [1]. Radio [7].");
    expect(sent).toEqual([]);
    expect(store.get().session?.draftCheck).toMatchObject({ draft: "D [1]. Radio [7].", findings: [finding], busy: false });
    actions.clearDraftCheck();
    expect(store.get().session?.draftCheck.findings).toBeNull();
    await actions.checkEdit("D [1]. Radio [7].");
    actions.sendEditAnyway();
    await flush();
    expect(sent).toEqual([{ type: "edit_report", draft: "D [1]. Radio [7]." }]);
    findings = [];
    await actions.checkEdit("D [1].");
    await flush();
    expect(sent[1]).toEqual({ type: "edit_report", draft: "D [1]." });
  });

  it("a stopped run offers Resume; a follow-up waits while the session's run goes on", async () => {
    const { store, toasts, actions } = setup();
    const run = later<unknown>();
    handlers.set("session", () => detail("s1", "interrupted", "t1"));
    handlers.set("run_research", () => run.promise);
    await actions.openSession("s1");
    expect(store.get().runs.t1).toMatchObject({ phase: "paused", note: "This run did not finish. Resume continues from the last saved step." });
    actions.resumeRun();
    await flush();
    expect(store.get().runs.t1.phase).toBe("running");
    expect(await actions.askFollowUp("And then?")).toBe(false);
    expect(toasts.at(-1)).toMatch(/still running/);
    run.resolve(outcome("s1", "t1", "interrupted"));
    await flush();
    expect(store.get().runs.t1.phase).toBe("paused");
  });

  it("a question in a session: a cancel is answered without a run, a follow-up starts one", async () => {
    const { store, actions } = setup();
    let turns: unknown[] = [];
    const asked: unknown[] = [];
    const run = later<unknown>();
    handlers.set("session", () => ({ ...detail("s1", "finished", "t1", "<p>R</p>"), turns }));
    handlers.set("run_research", () => run.promise);
    handlers.set("ask_in_session", (args) => {
      asked.push(args);
      const cancel = args.question === "nevermind";
      turns = [...turns, { question: args.question, classification: null, thread_id: cancel ? null : "t2", reply: cancel ? "All right." : "", focus: [], created_at_ms: 0 }];
      return { session_id: "s1", thread_id: cancel ? null : "t2", reply: cancel ? "All right." : null, classification: { kind: cancel ? "cancel" : "follow_up", by: "rules", why: "" }, focus: [], carried_sources: 0, dropped_sources: [] };
    });
    await actions.openSession("s1");
    expect(await actions.askFollowUp("nevermind")).toBe(true);
    await flush();
    expect(store.get().session).toMatchObject({ threadId: "t1", asking: false });
    expect(store.get().session?.detail?.turns).toHaveLength(1);
    expect(store.get().runs.t2).toBeUndefined();
    expect(await actions.askFollowUp("What about water?", "topic_change")).toBe(true);
    await flush();
    expect(asked.at(-1)).toEqual({ sessionId: "s1", question: "What about water?", kind: "topic_change" });
    expect(store.get().session).toMatchObject({ threadId: "t2", live: true });
    expect(store.get().session?.detail?.turns).toHaveLength(2);
    expect(store.get().runs.t2.phase).toBe("running");
    run.resolve(outcome("s1", "t2", "finished"));
    await flush();
  });

  it("forks a run from a stage: its points load, the fork runs and the session says where it came from", async () => {
    const { store, actions } = setup();
    const run = later<unknown>();
    const requests: unknown[] = [];
    handlers.set("session", () => ({ ...detail("s1", "finished", "t1", "<p>R</p>"), turns: [], forks: requests.length ? { t9: { from: "t1", stage: "plan" } } : {} }));
    handlers.set("fork_points", ({ threadId }) => [{ stage: "plan", checkpoint: 3, holds: `a plan of ${String(threadId)}` }]);
    handlers.set("fork_research", (args) => {
      requests.push(args);
      return { session_id: "s1", thread_id: "t9", from: "t1", point: { stage: "plan", checkpoint: 3, holds: "" } };
    });
    handlers.set("run_research", () => run.promise);
    await actions.openSession("s1");
    await actions.loadForkPoints("t1");
    expect(store.get().session?.timeline).toMatchObject({ threadId: "t1", points: [{ stage: "plan" }], error: "" });
    actions.openForkForm("plan");
    expect(store.get().session?.timeline.form).toBe("plan");
    const request = { at: "plan", reading: null, plan: { questions: ["Q"], aspects: [], searches: ["s"] }, models: null, pipeline: null, depth: null, max_iterations: null, search: null };
    expect(await actions.forkRun("t1", request)).toBe(true);
    await flush();
    expect(requests).toEqual([{ threadId: "t1", request }]);
    expect(store.get().session?.detail?.forks).toEqual({ t9: { from: "t1", stage: "plan" } });
    expect(store.get().session).toMatchObject({ threadId: "t9", live: true, timeline: { form: null, busy: false } });
    expect(store.get().runs.t9.phase).toBe("running");
    run.resolve(outcome("s1", "t9", "finished"));
    await flush();
  });

  it("reads the session's model calls for the Method tab, and says why when it cannot", async () => {
    const { store, actions } = setup();
    handlers.set("session", () => ({ ...detail("s1", "finished", "t1", "<p>R</p>"), turns: [] }));
    const kept = { node: "plan", purpose: "plan", model: "scripted:x", prompt_tokens: 9, completion_tokens: 3, latency_ms: 1, cost_usd: 0, failed: false,
      exchange: { messages: [{ role: "user", content: "key [redacted]" }], answer: "{}" } };
    handlers.set("model_calls", ({ sessionId }) => [{ thread: "t1", question: `Q of ${String(sessionId)}`, calls: [kept] }]);
    await actions.openSession("s1");
    expect(store.get().session?.calls).toEqual({ runs: null, error: "" });
    await actions.loadModelCalls();
    expect(store.get().session?.calls).toEqual({ runs: [{ thread: "t1", question: "Q of s1", calls: [kept] }], error: "" });
    handlers.set("model_calls", () => Promise.reject({ code: "not_found", message: "there is no session with id s1" }));
    await actions.loadModelCalls();
    expect(store.get().session?.calls).toMatchObject({ runs: [], error: "There is no session with id s1." });
  });

  it("a fork the api refuses says why in the timeline", async () => {
    const { store, actions } = setup();
    handlers.set("session", () => ({ ...detail("s1", "finished", "t1", "<p>R</p>"), turns: [] }));
    handlers.set("fork_research", () => Promise.reject({ code: "invalid_input", message: "the edited plan has no searches; give at least one" }));
    await actions.openSession("s1");
    expect(await actions.forkRun("t1", { at: "plan" } as never)).toBe(false);
    expect(store.get().session?.timeline).toMatchObject({ busy: false, error: "The edited plan has no searches; give at least one." });
  });

  it("checks a report's sources again: busy while it reads, then its findings and the new version", async () => {
    const { store, toasts, actions } = setup();
    const check = later<unknown>();
    let loads = 0;
    handlers.set("session", () => {
      loads++;
      return detail("s1", "finished", "t1", loads > 1 ? "<p>R2</p>" : "<p>R</p>");
    });
    handlers.set("recheck_sources", ({ sessionId }) => (sessionId === "s1" ? check.promise : null));
    await actions.openSession("s1");
    const going = actions.recheckSources();
    await flush();
    expect(store.get().session?.recheck).toEqual({ busy: true, result: null, error: "" });
    const found = { session_id: "s1", thread_id: "t1", checked_at_ms: 1, lost: [{ sentence: "Bees dance [1].", sources: [1], why: "its quote is gone" }],
      sources: [{ source_id: 1, url: "file:///a", state: { state: "gone", why: "the file no longer exists" } }], version: 2 };
    check.resolve(found);
    await going;
    expect(store.get().session?.recheck).toEqual({ busy: false, result: found, error: "" });
    expect(store.get().session?.detail?.report_html).toBe("<p>R2</p>");
    expect(toasts).toContain("The report is now version 2.");
    actions.closeRecheck();
    expect(store.get().session?.recheck.result).toBeNull();
  });

  it("a recheck that fails says why where its findings would be", async () => {
    const { store, actions } = setup();
    handlers.set("session", () => detail("s1", "finished", "t1", "<p>R</p>"));
    handlers.set("recheck_sources", () => Promise.reject({ code: "not_found", message: "this session has no report" }));
    await actions.openSession("s1");
    await actions.recheckSources();
    expect(store.get().session?.recheck).toEqual({ busy: false, result: null, error: "This session has no report." });
  });

  it("keeps a session current: its schedule is shown with the session, set, paused and removed", async () => {
    const { store, toasts, actions } = setup();
    let schedule: unknown = null;
    const view = (paused: boolean) => ({ session_id: "s1", title: "T", every: "1d", research_again: true, paused, next_due_ms: 2, last_run_ms: null, last_outcome: null });
    handlers.set("session", () => detail("s1", "finished", "t1", "<p>R</p>"));
    handlers.set("session_schedule", ({ sessionId }) => (sessionId === "s1" ? schedule : null));
    handlers.set("watch_session", ({ sessionId, every, researchAgain }) => {
      expect([sessionId, every, researchAgain]).toEqual(["s1", "1d", true]);
      schedule = view(false);
      return schedule;
    });
    handlers.set("pause_schedule", ({ paused }) => {
      schedule = view(paused as boolean);
      return null;
    });
    handlers.set("unwatch_session", () => {
      schedule = null;
      return null;
    });
    await actions.openSession("s1");
    expect(store.get().session?.schedule.view).toBeNull();
    actions.openSchedule(true);
    expect(store.get().session?.schedule.open).toBe(true);
    await actions.watchSession("1d", true);
    expect(store.get().session?.schedule).toMatchObject({ view: view(false), open: false, busy: false });
    expect(toasts).toContain("This session is kept current: its sources are checked again on schedule.");
    await actions.pauseSchedule(true);
    expect(store.get().session?.schedule.view?.paused).toBe(true);
    await actions.unwatchSession();
    expect(store.get().session?.schedule.view).toBeNull();
    // A mistake the api refuses stays in the box, with why.
    handlers.set("watch_session", () => Promise.reject({ code: "invalid_input", message: "`30m` is too often" }));
    actions.openSchedule(true);
    await actions.watchSession("30m", false);
    expect(store.get().session?.schedule).toMatchObject({ open: true, busy: false, error: "`30m` is too often." });
  });

  it("compares two configurations: each side's events move its own live view, then the table", async () => {
    const { store, actions } = setup();
    const done = later<unknown>();
    let sent: unknown = null;
    handlers.set("compare_research", (args) => {
      sent = args.request;
      const a = args.onEventA as { onmessage: (e: unknown) => void };
      const b = args.onEventB as { onmessage: (e: unknown) => void };
      a.onmessage({ type: "custom", payload: { type: "read", url: "file:///a", facts: 2 } });
      b.onmessage({ type: "node_started", node: "plan", task: null });
      return done.promise;
    });
    const request = (pipeline: string) => ({ question: "Bees?", pipeline, review: null, allowed_hosts: [], searxng_url: null,
      config: { mode: "single", depth: "quick", models: { model: "m", fast_model: null, roles: {} } } });
    const going = actions.startCompare("Bees?", request("standard") as never, request("trust") as never);
    await flush();
    expect(store.get().view).toBe("compare");
    expect(sent).toMatchObject({ question: "Bees?", a: { label: "A", request: { pipeline: "standard" } }, b: { label: "B", request: { pipeline: "trust" } } });
    const [a, b] = store.get().compare?.sides ?? [];
    expect(a.live.sources).toEqual([{ url: "file:///a", facts: 2 }]);
    expect(b.live.sources).toEqual([]);
    expect(b.live.active.has("plan")).toBe(true);
    expect(store.get().compare?.busy).toBe(true);
    const outcome = { session_id: "s9", concurrent: true, columns: [], shared_sources: [] };
    done.resolve(outcome);
    await going;
    expect(store.get().compare).toMatchObject({ busy: false, outcome, error: "" });
  });
});
