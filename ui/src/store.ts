// The app's one state object: every view renders from it, every action writes to it.
import type { LiveState } from "./live";
import type { ScheduleView,
  CompareOutcome, AppInfo, DraftFinding, ForkPoint, KeyStatus, LibraryFolder, OutlineStep, PendingQuestion, PipelineInfo, Preferences, ProviderStatus,
  FormChoices, Recheck, RecommendedModel, RoleInfo, RunConfig, SessionDetail, SessionRecord, Settings, TextAnswer,
  RunCalls, CheckSource, DocumentCheck, LibraryMeaning, SentenceModelOffer, ApiError, BackupStatus, CitationStyleChoice, ExportFormat, ModelMeasurement, Salvage,
} from "./types";

export interface Store<S extends object> {
  get(): S;
  /** Replaces the given fields; listeners run at once. */
  set(patch: Partial<S>): void;
  /** `set` with a patch computed from the current state. */
  update(change: (state: S) => Partial<S>): void;
  /** Runs `listener` after every change; returns the unsubscribe function. */
  subscribe(listener: (state: S) => void): () => void;
  /**
   * Runs `listener` with `select(state)` now and whenever that value changes (compared with
   * `equal`, by default `Object.is`, or field by field for arrays and plain objects with `shallow`).
   */
  watch<T>(select: (state: S) => T, listener: (value: T, state: S) => void, equal?: (a: T, b: T) => boolean): () => void;
}

export function createStore<S extends object>(initial: S): Store<S> {
  let state = initial;
  const listeners = new Set<(state: S) => void>();
  const set = (patch: Partial<S>) => {
    state = { ...state, ...patch };
    // A listener may change the state again: the later ones then see the newest state.
    for (const l of [...listeners]) if (listeners.has(l)) l(state);
  };
  const subscribe = (listener: (state: S) => void) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  };
  return {
    get: () => state,
    set,
    update: (change) => set(change(state)),
    subscribe,
    watch(select, listener, equal = Object.is) {
      let last = select(state);
      listener(last, state);
      return subscribe((s) => {
        const next = select(s);
        if (equal(last, next)) return;
        last = next;
        listener(next, s);
      });
    },
  };
}

/** Equal when both are the same, or arrays / plain objects whose items are the same (`Object.is`). */
export function shallow<T>(a: T, b: T): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.is((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

// ---------- the app's state ----------

export type ViewName = "onboarding" | "new" | "session" | "library" | "settings" | "compare" | "check" | "damaged";
export const TABS = ["report", "sources", "method", "review"] as const;
export type Tab = (typeof TABS)[number];

/** Where a run stands, as this window knows it. */
export type RunPhase = "running" | "waiting" | "paused" | "failed" | "done";

/** What the views see of one thread's `RunController` (a fresh object on every change). */
export interface RunView {
  threadId: string;
  phase: RunPhase;
  /** The live view of its latest leg in this window (mutated in place: `rev` counts changes). */
  live: LiveState | null;
  rev: number;
  /** The question it waits on. */
  question: PendingQuestion | null;
  /** The kind of free-text answer the page's own field takes (the dialog said "needs text"). */
  needsText: TextAnswer | null;
  /** What the status line says instead of the live activity (outcomes, "Cancelling…"). */
  note: string | null;
  cancelling: boolean;
  /** The "no progress" notice of the stall watch. */
  stuck: string | null;
}

/** One side of the comparison on screen, as its channel tells it. */
export interface CompareSideView {
  label: string;
  /** What it runs, in words. */
  words: string;
  steps: OutlineStep[];
  /** Its live state (mutated in place: `rev` counts changes). */
  live: LiveState;
  rev: number;
}

/** The comparison on screen: its two sides while they run, then the api's table. */
export interface CompareScreen {
  question: string;
  sides: CompareSideView[];
  busy: boolean;
  outcome: CompareOutcome | null;
  error: string;
}

/** The session on screen. */
export interface SessionScreen {
  sessionId: string;
  /** Its thread shown in the live view (the last run, or the one just started). */
  threadId: string | null;
  /** The session as last loaded. */
  detail: SessionDetail | null;
  /** What the report, sources and method panels show: `null` while a new run's shell is up. */
  panels: SessionDetail | null;
  title: string;
  meta: string;
  /** The pipeline's steps for the graph. */
  steps: OutlineStep[];
  /** The streamed text or draft shown above the report; `null` hides it. */
  stream: string | null;
  /** A draft under review stands in for the report. */
  draft: boolean;
  renaming: boolean;
  /** The live view (graph, status, workers) is shown. */
  live: boolean;
  /** The Method tab's timeline: the run chosen, its fork points and the open fork form. */
  timeline: Timeline;
  /** A question is being asked in the session (the composer waits). */
  asking: boolean;
  /** *Check sources again*: going, or what it found. */
  recheck: RecheckState;
  /** The session's schedule (*Keep current*): what it is, and the box that changes it. */
  schedule: ScheduleState;
  /** The audit's findings on the person's edit of the report draft, before it is sent. */
  draftCheck: DraftCheck;
  /** The Method tab's record of model calls, read when the tab opens. */
  calls: CallsState;
}

export interface CallsState {
  /** Each run's calls (`null`: not read yet). */
  runs: RunCalls[] | null;
  error: string;
}

export const noCalls: CallsState = { runs: null, error: "" };

export interface DraftCheck {
  /** The edited text the findings are about. */
  draft: string;
  /** The findings (`null`: not checked yet). */
  findings: DraftFinding[] | null;
  busy: boolean;
  error: string;
}

export const noDraftCheck: DraftCheck = { draft: "", findings: null, busy: false, error: "" };

/** *Check a document*: the document, its sources, and what the checker found. */
export interface CheckScreen {
  /** The text to check. */
  text: string;
  /** The file it was opened from (`""`: typed or pasted). */
  path: string;
  /** The sources added by hand, numbered as their markers. */
  sources: CheckSource[];
  /** Check against this session's sources instead. */
  session: string | null;
  busy: boolean;
  /** What the checker found (`null`: not checked, or the document changed since). */
  result: DocumentCheck | null;
  error: string;
}

export const noCheck: CheckScreen = { text: "", path: "", sources: [], session: null, busy: false, result: null, error: "" };

export interface RecheckState {
  busy: boolean;
  result: Recheck | null;
  error: string;
}

export const noRecheck: RecheckState = { busy: false, result: null, error: "" };

export interface ScheduleState {
  /** The schedule, when the session has one. */
  view: ScheduleView | null;
  /** Whether the box is open. */
  open: boolean;
  busy: boolean;
  error: string;
}

export const noSchedule: ScheduleState = { view: null, open: false, busy: false, error: "" };

export interface Timeline {
  /** The run whose fork points are listed (`null`: the session's last run). */
  threadId: string | null;
  points: ForkPoint[] | null;
  error: string;
  /** The stage whose *Re-run from here* form is open. */
  form: string | null;
  busy: boolean;
}

export const noTimeline: Timeline = { threadId: null, points: null, error: "", form: null, busy: false };

export type Providers = { state: "checking" } | { state: "ready"; list: ProviderStatus[] } | { state: "error"; message: string };

export interface Progress {
  status: string;
  error: boolean;
  /** Done so far, or `null` when unknown; `shown` is the width drawn then. */
  percent: number | null;
  shown?: number;
  busy: boolean;
}

/** A request to move focus to a place in a view; `n` tells one request from the next. */
export type FocusTarget = "question" | "llm" | "download";

export interface AppState {
  view: ViewName;
  /** Why the database could not be opened at start (a damaged file, a newer build's): the window
   * then shows only that, and the way back. */
  databaseProblem: ApiError | null;
  info: AppInfo | null;
  settings: Settings | null;
  prefs: Preferences;
  /** The stored preferences have been read (the New research form is filled once from them). */
  prefsLoaded: boolean;
  /** A run's defaults as the api gives them. */
  defaults: RunConfig | null;
  /** What the forms offer, as the api decides it (option lists, limits, rules). */
  choices: FormChoices | null;
  roles: RoleInfo[];
  pipelines: PipelineInfo[] | null;
  /** The New research form's fields that other places read or fill. */
  form: { model: string; pipeline: string };
  estimate: string;
  sessionFilter: string;
  sessions: { list: SessionRecord[]; filter: string } | null;
  session: SessionScreen | null;
  compare: CompareScreen | null;
  check: CheckScreen;
  tab: Tab;
  runs: Readonly<Record<string, RunView>>;
  exporting: ExportFormat | null;
  /** The citation styles reports can be exported in, the one in use marked (the api's list). */
  citationStyles: CitationStyleChoice[] | null;
  library: { folders: LibraryFolder[] | null; progress: Progress; busy: "add" | "import" | "reindex" | "embed" | "model" | null; meaning: LibraryMeaning | null; offer: SentenceModelOffer | null };
  keys: KeyStatus[] | null;
  /** The backups beside the database, as Settings shows them. */
  backups: BackupStatus | null;
  /** What the damaged database's sessions saved to files came to, once saved. */
  salvage: Salvage | null;
  /** What each model did in your runs and what that decides, as Settings shows it. */
  measurements: ModelMeasurement[] | null;
  providers: Providers | null;
  providerTests: Readonly<Record<string, { text: string; ok: boolean | null }>>;
  models: RecommendedModel[] | null;
  download: Progress & { shownBox: boolean };
  testModel: { text: string; ok: boolean | null };
  focus: { target: FocusTarget; n: number } | null;
}

export const noPreferences: Preferences = {
  mode: null, depth: null, structure: null, language: null, search: null, review: null, onboarding_done: false,
};

export function initialState(): AppState {
  return {
    view: "new",
    databaseProblem: null,
    info: null,
    settings: null,
    prefs: noPreferences,
    prefsLoaded: false,
    defaults: null,
    choices: null,
    roles: [],
    pipelines: null,
    form: { model: "", pipeline: "" },
    estimate: "",
    sessionFilter: "",
    sessions: null,
    session: null,
    compare: null,
    check: noCheck,
    tab: "report",
    runs: {},
    exporting: null,
    citationStyles: null,
    library: { folders: null, progress: { status: "", error: false, percent: null, shown: 0, busy: false }, busy: null, meaning: null, offer: null },
    keys: null,
    backups: null,
    measurements: null,
    salvage: null,
    providers: null,
    providerTests: {},
    models: null,
    download: { status: "", error: false, percent: 0, busy: false, shownBox: false },
    testModel: { text: "", ok: null },
    focus: null,
  };
}

export type AppStore = Store<AppState>;

/** The thread's run as last published, if this window has one. */
export function runOf(state: AppState, threadId: string | null | undefined): RunView | null {
  return threadId ? state.runs[threadId] ?? null : null;
}

export function isRunning(state: AppState, threadId: string | null | undefined): boolean {
  return runOf(state, threadId)?.phase === "running";
}

/** `change` applied to the session on screen, if it is still `sessionId` (when given). */
export function updateSession(store: AppStore, change: Partial<SessionScreen>, sessionId?: string) {
  store.update((s) => (s.session && (sessionId === undefined || s.session.sessionId === sessionId) ? { session: { ...s.session, ...change } } : {}));
}
