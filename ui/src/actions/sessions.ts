// Sessions and their runs: starting, opening, answering, following up, exporting, renaming.
import { Channel } from "@tauri-apps/api/core";
import { api, humanError } from "../api";
import { configOf, estimateText, modeOf, resumeNote, runningSince, sessionMeta } from "../format";
import { Runs, type RunController } from "../run";
import { noCalls, noDraftCheck, noRecheck, noSchedule, noTimeline, updateSession, type SessionScreen, type Tab, type Timeline } from "../store";
import type { Answer, Event, ExportFormat, ForkPoint, ForkRequest, Mode, ModelRouting, Preferences, ResearchOutcome, ResearchRequest, RunConfig, TextAnswer, TurnKind } from "../types";
import type { Base } from "./base";

function screen(sessionId: string, threadId: string | null, title = ""): SessionScreen {
  return { sessionId, threadId, detail: null, panels: null, title, meta: "", steps: [], stream: null, draft: false, renaming: false, live: false, timeline: noTimeline, asking: false, recheck: noRecheck, schedule: noSchedule, draftCheck: noDraftCheck, calls: noCalls };
}

export function sessionActions({ store, toast, fail, show }: Base, savePreferences: (change: Partial<Preferences>) => Promise<void>) {
  const runs = new Runs({
    api,
    channel: () => new Channel<Event>(),
    hooks: {
      publish: (view) => store.update((s) => ({ runs: { ...s.runs, [view.threadId]: view } })),
      started: (run) => runStarted(run),
      ended: (run, outcome) => void runEnded(run, outcome),
      toast: (text) => toast(text),
    },
  });

  async function refreshSessions() {
    const filter = store.get().sessionFilter.trim();
    try {
      const list = await api.listSessions(filter || null);
      store.set({ sessions: { list, filter } });
    } catch (e) {
      fail(e);
    }
  }

  /** The session on screen, if it is `sessionId`. */
  const onScreen = (sessionId: string) => (store.get().session?.sessionId === sessionId ? store.get().session : null);

  async function loadSession(id: string, draft?: string) {
    let detail;
    try {
      detail = await api.session(id);
    } catch (e) {
      fail(e);
      return;
    }
    let schedule = null;
    try {
      schedule = await api.sessionSchedule(id);
    } catch {
      // The schedule is a side panel: the session still shows without it.
    }
    const s = onScreen(id);
    if (!s) return;
    const withDraft = !detail.report_html && !!draft;
    updateSession(store, {
      detail, panels: detail, title: detail.session.title, meta: sessionMeta(detail), renaming: false,
      timeline: s.timeline.form ? s.timeline : noTimeline, calls: noCalls,
      schedule: { ...s.schedule, view: schedule },
      stream: detail.report_html ? null : withDraft ? draft ?? null : s.stream, draft: withDraft,
    }, id);
  }

  /** Draws the steps of `thread`'s pipeline, or (a run not yet registered) those of `pipeline`. */
  async function drawGraph(sessionId: string, mode: Mode, thread: string | null, pipeline = store.get().form.pipeline) {
    updateSession(store, { steps: [] }, sessionId);
    try {
      const outline = thread ? await api.runOutline(thread) : await api.graphOutline(pipeline, mode);
      updateSession(store, { steps: outline.steps }, sessionId);
      const threadId = onScreen(sessionId)?.threadId;
      if (threadId) runs.of(threadId).guide = { steps: outline.steps, roles: store.get().roles };
    } catch (e) {
      fail(e);
    }
  }

  async function showSessionShell(sessionId: string, threadId: string, title: string, mode: Mode, pipeline?: string) {
    const s = store.get().session;
    const keep = s?.sessionId === sessionId ? s : null;
    store.set({
      session: { ...screen(sessionId, threadId, title), detail: keep?.detail ?? null, live: true },
      tab: "report",
    });
    show("session");
    await drawGraph(sessionId, mode, null, pipeline);
  }

  function runStarted(run: RunController) {
    const s = store.get().session;
    if (s?.threadId === run.threadId) {
      updateSession(store, { meta: runningSince(new Date()), stream: s.stream === null ? null : "", live: true }, s.sessionId);
    }
    void refreshSessions();
  }

  async function runEnded(run: RunController, outcome: ResearchOutcome | null) {
    void refreshSessions();
    const s = store.get().session;
    if (s?.threadId !== run.threadId) {
      if (outcome?.status === "finished" && outcome.result.report) toast("A research you left running has finished: its report is in the sidebar.", "info");
      return;
    }
    if (!outcome) return;
    // What streamed last stays up until the outcome's own text replaces it.
    const streamed = run.view().live?.stream;
    if (streamed) updateSession(store, { stream: streamed }, s.sessionId);
    const question = run.view().question;
    if (question) {
      run.watchDeadline();
      // The draft stands behind the dialog that asks about it.
      if (question.question.type === "report_review" || question.question.type === "escalation") {
        await loadSession(outcome.session_id, outcome.result.report);
      }
      await run.ask();
    } else if (outcome.status !== "interrupted") {
      updateSession(store, { live: false }, s.sessionId);
      await loadSession(outcome.session_id);
      if (outcome.result.report) toast("The report is ready.", "info");
    }
  }

  async function openSession(id: string) {
    const old = runs.get(store.get().session?.threadId);
    // The Review tab belongs to review runs: another session opens on its report.
    store.update((s) => ({ session: screen(id, null), tab: s.tab === "review" ? "report" : s.tab }));
    old?.closeAnswer();
    show("session");
    await loadSession(id);
    await refreshSessions();
    const detail = onScreen(id)?.detail;
    if (!detail) return;
    const lastRun = detail.runs[detail.runs.length - 1]?.[0] ?? null;
    if (!lastRun) return;
    updateSession(store, { threadId: lastRun }, id);
    const run = runs.of(lastRun);
    run.routing ??= configOf(detail)?.models ?? null;
    run.closeAnswer();
    if (run.running) {
      // Back to a run still going: its own live view, Cancel and the stall watch again.
      updateSession(store, { live: true }, id);
      await drawGraph(id, modeOf(detail), lastRun);
      return;
    }
    const status = detail.session.status;
    if (status === "waiting") {
      const q = await api.pendingQuestion(lastRun).catch(() => null);
      if (!q) return;
      // A draft under review stands behind its dialog, as it did before the restart.
      if (q.question.type === "report_review") await loadSession(id, q.question.report);
      run.waitOn(q);
      await drawGraph(id, modeOf(detail), lastRun);
      updateSession(store, { live: true }, id);
      run.watchDeadline();
      if (onScreen(id)?.threadId === lastRun) await run.ask();
      return;
    }
    const note = resumeNote(status, store.get().choices?.resumable ?? []);
    if (note) {
      await drawGraph(id, modeOf(detail), lastRun);
      updateSession(store, { live: true }, id);
      run.pause(note);
    }
  }

  const screenRun = () => runs.get(store.get().session?.threadId);

  async function startResearch(request: ResearchRequest, search: string | null, started: () => void) {
    const { config } = request;
    const created = await api.createResearch(request).catch((e) => {
      fail(e);
      return null;
    });
    if (!created) return;
    started();
    store.set({ session: screen(created.session_id, created.thread_id) });
    const run = runs.of(created.thread_id);
    run.routing = config.models;
    void savePreferences({
      mode: config.mode, depth: config.depth, structure: config.structure, language: config.language, search, review: config.review,
    });
    await showSessionShell(created.session_id, created.thread_id, request.question, config.mode, request.pipeline);
    await refreshSessions();
    await run.drive(null);
  }

  /** Whether a run of the session on screen is going (said in a toast when it is). */
  function sessionBusy(what: string): boolean {
    const s = store.get().session;
    const threads = (s?.detail?.runs ?? []).map(([thread]) => thread);
    if (threads.some((t) => runs.isRunning(t)) || runs.isRunning(s?.threadId)) {
      toast(`This session's research is still running: wait for it or cancel it, then ${what}.`, "info");
      return true;
    }
    return false;
  }

  /** The session as the api has it now, for its conversation: the panels stay as they are. */
  async function refreshDetail(id: string) {
    const detail = await api.session(id).catch(() => null);
    if (detail) updateSession(store, { detail }, id);
  }

  /** Shows a new run of the session on screen and drives it. */
  async function startInSession(sessionId: string, threadId: string, question: string, routing: ModelRouting | null) {
    const s = store.get().session;
    const run = runs.of(threadId);
    const config = configOf(s?.detail);
    run.routing = routing ?? config?.models ?? null;
    await showSessionShell(sessionId, threadId, question, s?.detail ? modeOf(s.detail) : "single");
    await refreshDetail(sessionId);
    await run.drive(null);
  }

  /**
   * Asks `question` in the session on screen: the api takes it as a follow-up, a topic change
   * or a cancel (or as `kind` when the person chose); a cancel is answered at once, else its run starts.
   */
  async function askFollowUp(question: string, kind: TurnKind | null = null): Promise<boolean> {
    const s = store.get().session;
    if (!s || !question || s.asking) return false;
    if (sessionBusy("ask your question")) return false;
    updateSession(store, { asking: true }, s.sessionId);
    let turn;
    try {
      turn = await api.askInSession(s.sessionId, question, kind);
    } catch (e) {
      fail(e);
      return false;
    } finally {
      updateSession(store, { asking: false }, s.sessionId);
    }
    const thread = turn.thread_id;
    if (!thread) {
      await refreshDetail(turn.session_id);
      return true;
    }
    void startInSession(turn.session_id, thread, question, null);
    return true;
  }

  // ---------- forks (the Method tab's timeline) ----------
  const setTimeline = (change: Partial<Timeline>, sessionId: string) =>
    store.update((s) => (s.session?.sessionId === sessionId ? { session: { ...s.session, timeline: { ...s.session.timeline, ...change } } } : {}));

  async function loadForkPoints(threadId: string) {
    const s = store.get().session;
    if (!s) return;
    setTimeline({ threadId, points: null, error: "", form: null, busy: false }, s.sessionId);
    let points: ForkPoint[] = [];
    let error = "";
    try {
      points = await api.forkPoints(threadId);
    } catch (e) {
      error = humanError(e);
    }
    if (store.get().session?.timeline.threadId === threadId) setTimeline({ points, error }, s.sessionId);
  }

  /** Reads the session's model calls for the Method tab. */
  async function loadModelCalls() {
    const s = store.get().session;
    if (!s) return;
    const sessionId = s.sessionId;
    let calls = noCalls;
    try {
      calls = { runs: await api.modelCalls(sessionId), error: "" };
    } catch (e) {
      calls = { runs: [], error: humanError(e) };
    }
    if (store.get().session?.sessionId === sessionId) updateSession(store, { calls });
  }

  async function forkRun(threadId: string, request: ForkRequest): Promise<boolean> {
    const s = store.get().session;
    if (!s || s.timeline.busy || sessionBusy("re-run from a stage")) return false;
    setTimeline({ busy: true, error: "" }, s.sessionId);
    let forked;
    try {
      forked = await api.forkResearch(threadId, request);
    } catch (e) {
      setTimeline({ busy: false, error: humanError(e) }, s.sessionId);
      return false;
    }
    const question = s.detail?.runs.find(([t]) => t === threadId)?.[1] ?? s.title;
    void startInSession(forked.session_id, forked.thread_id, question, request.models);
    return true;
  }

  /** Reads every cited source of the latest report again; what changed becomes a new report version. */
  async function recheckSources() {
    const s = store.get().session;
    if (!s?.detail?.reports.length || s.recheck.busy || sessionBusy("check its sources again")) return;
    const id = s.sessionId;
    updateSession(store, { recheck: { busy: true, result: null, error: "" } }, id);
    try {
      const result = await api.recheckSources(id);
      updateSession(store, { recheck: { busy: false, result, error: "" } }, id);
      if (result.version !== null) toast(`The report is now version ${result.version}.`, "info");
    } catch (e) {
      updateSession(store, { recheck: { busy: false, result: null, error: humanError(e) } }, id);
    }
    await loadSession(id);
    await refreshSessions();
  }

  /** Changes the session's schedule with `change`, then shows it as it now is. */
  async function scheduleChange(change: (id: string) => Promise<unknown>, done: string) {
    const s = store.get().session;
    if (!s || s.schedule.busy) return;
    const id = s.sessionId;
    updateSession(store, { schedule: { ...s.schedule, busy: true, error: "" } }, id);
    try {
      await change(id);
      const view = await api.sessionSchedule(id);
      updateSession(store, { schedule: { view, open: false, busy: false, error: "" } }, id);
      toast(done, "info");
    } catch (e) {
      const now = onScreen(id);
      if (now) updateSession(store, { schedule: { ...now.schedule, busy: false, error: humanError(e) } }, id);
    }
  }

  async function exportReport(format: ExportFormat) {
    const s = store.get().session;
    if (!s?.detail?.reports.length) {
      // The menu and its shortcut reach here even where the buttons are disabled.
      toast(s ? "This session has no report to export yet." : "Open a session with a report to export it.", "info");
      return;
    }
    store.set({ exporting: format });
    try {
      const style = store.get().citationStyles?.find((c) => c.chosen)?.id ?? null;
      const path = await api.exportReport(s.sessionId, format, style);
      if (path) toast(`Saved ${path}`, "info");
    } catch (e) {
      fail(e);
    } finally {
      store.set({ exporting: null });
    }
  }

  async function loadCitationStyles() {
    try {
      store.set({ citationStyles: await api.citationStyles() });
    } catch (e) {
      fail(e);
    }
  }

  /** The style the next exports use; remembered in the settings at once. */
  async function chooseCitationStyle(id: string) {
    try {
      await api.setSetting("citation_style", id);
      await loadCitationStyles();
    } catch (e) {
      fail(e);
    }
  }

  async function finishRename(title: string | null) {
    const s = store.get().session;
    // Enter, Escape and the blur that follows them all end the edit: only the first one counts.
    if (!s?.renaming) return;
    // The title stays as typed (or, given up, as it was) until the session is read again.
    updateSession(store, { renaming: false, title: title?.trim() || s.title }, s.sessionId);
    if (title && title.trim()) {
      try {
        await api.renameSession(s.sessionId, title.trim());
      } catch (e) {
        fail(e);
      }
    }
    const now = store.get().session;
    if (now) await loadSession(now.sessionId);
    await refreshSessions();
  }

  async function exportSession() {
    const s = store.get().session;
    if (!s) return;
    try {
      const path = await api.exportSession(s.sessionId);
      if (path) toast(`Saved ${path}: import it on another computer to carry on there.`, "info");
    } catch (e) {
      fail(e);
    }
  }

  async function importSession() {
    try {
      const imported = await api.importSession();
      if (!imported) return;
      toast(
        imported.already_here
          ? `“${imported.title}” is here already; nothing was imported.`
          : `Imported “${imported.title}”: ${imported.runs} run(s), ${imported.reports} report version(s).`,
        "info",
      );
      await refreshSessions();
      await openSession(imported.session_id);
    } catch (e) {
      fail(e);
    }
  }

  async function deleteSession() {
    const s = store.get().session;
    if (!s) return;
    try {
      if (await api.deleteSession(s.sessionId)) {
        store.set({ session: null });
        show("new");
        await refreshSessions();
      }
    } catch (e) {
      fail(e);
    }
  }

  return {
    refreshSessions,
    setSessionFilter: (text: string) => store.set({ sessionFilter: text }),
    openSession,
    loadSession,
    selectTab: (tab: Tab) => store.set({ tab }),
    startResearch,
    askFollowUp,
    loadForkPoints,
    loadModelCalls,
    forkRun,
    openForkForm: (stage: string | null) => {
      const s = store.get().session;
      if (s) setTimeline({ form: stage, error: "" }, s.sessionId);
    },
    exportReport,
    loadCitationStyles,
    chooseCitationStyle,
    recheckSources,
    closeRecheck: () => {
      if (store.get().session) updateSession(store, { recheck: noRecheck });
    },
    openSchedule: (open: boolean) => {
      const s = store.get().session;
      if (s) updateSession(store, { schedule: { ...s.schedule, open, error: "" } });
    },
    watchSession: (every: string, researchAgain: boolean) =>
      scheduleChange((id) => api.watchSession(id, every, researchAgain), "This session is kept current: its sources are checked again on schedule."),
    pauseSchedule: (paused: boolean) =>
      scheduleChange((id) => api.pauseSchedule(id, paused), paused ? "The schedule is paused." : "The schedule runs again."),
    unwatchSession: () => scheduleChange((id) => api.unwatchSession(id), "This session is no longer kept current."),
    /** Due schedules ran (the app runs them while open): the session on screen shows what they did. */
    async schedulesRan(sessionIds: string[]) {
      const s = store.get().session;
      if (s && sessionIds.includes(s.sessionId)) await loadSession(s.sessionId);
      await refreshSessions();
    },
    startRename: () => {
      if (store.get().session) updateSession(store, { renaming: true });
    },
    finishRename,
    exportSession,
    importSession,
    deleteSession,

    setFormPipeline: (pipeline: string) => store.update((s) => ({ form: { ...s.form, pipeline } })),
    async estimate(pipeline: string, config: RunConfig) {
      if (!config.models.model && !store.get().settings?.default_model) {
        store.set({ estimate: "Choose a model (or set a default in Settings) to start." });
        return;
      }
      try {
        store.set({ estimate: estimateText(await api.estimate(pipeline, config)) });
      } catch (e) {
        store.set({ estimate: humanError(e) });
      }
    },
    async loadRoles() {
      try {
        store.set({ roles: await api.roles() });
      } catch (e) {
        fail(e);
      }
    },
    async loadPipelines() {
      try {
        const pipelines = await api.pipelines();
        store.update((s) => ({ pipelines, form: { ...s.form, pipeline: s.form.pipeline || (pipelines[0]?.name ?? "") } }));
      } catch (e) {
        fail(e);
        store.set({ pipelines: [] });
      }
    },

    // The run on screen.
    cancelRun: () => void screenRun()?.cancel(),
    resumeRun: () => void screenRun()?.drive(null),
    ask: () => void screenRun()?.ask(),
    reask() {
      const run = screenRun();
      run?.closeAnswer();
      void run?.ask();
    },
    needText: (kind: TextAnswer) => screenRun()?.needText(kind),
    async answer(answer: Answer) {
      const s = store.get().session;
      if (!s) return;
      updateSession(store, { live: true, draftCheck: noDraftCheck }, s.sessionId);
      await screenRun()?.answer(answer);
    },

    openExternal: (url: string) => void api.openExternal(url).catch(fail),
    /** A stored source's text, or `null` (said in a toast) when it cannot be read. */
    sourceText: (sha256: string) => api.sourceText(sha256).catch((e) => {
      fail(e);
      return null;
    }),
  };
}
