// Typed wrappers over the app's commands. Every type comes from the Rust side (types.ts).
import { Channel, invoke } from "@tauri-apps/api/core";
import type { ScheduleView,
  Answer, ApiError, AppInfo, BackupStatus, CitationStyleChoice, ModelMeasurement, Restored, Salvage, ExportFormat, Fix, Imported, CheckpointInfo, DraftFinding, ConnectionTest, DialogAnswer, DownloadedModel, DownloadProgress, ErrorCode, Event, GraphOutline, ImportReport, IndexReport,
  ForkedRun, ForkPoint, ForkRequest, KeyStatus, LibraryFolder, Mode, PendingQuestion, PipelineInfo, Preferences, ProviderStatus, ResearchOutcome, ResearchRequest,
  CheckRequest, ChosenDocument, DocumentCheck, EmbedProgress, LibraryMeaning, CompareOutcome, CompareRequest, FormChoices, Recheck, RecommendedModel, RoleInfo, SentenceModelOffer, RunCalls, RunConfig, RunEstimate, SessionDetail, SessionRecord, Settings, StartedRun, Turn, TurnKind, UsageTotals,
} from "./types";

export function isApiError(e: unknown): e is ApiError {
  return typeof e === "object" && e !== null && "code" in e && "message" in e;
}

const ADVICE: Partial<Record<ErrorCode, string>> = {
  provider_auth: "Check the key in Settings.",
  provider_unavailable: "Check the connection or the provider's URL in Settings; the run can be resumed.",
  run_failed: "Nothing is lost: resume the run when the cause is fixed.",
};

/** Where the app fixes what an error or a provider status names (the api's `Fix`, a place). */
export function fixWords(fix: Fix | null | undefined): string {
  if (!fix) return "";
  switch (fix.place) {
    case "api_keys": return `Set or check the ${fix.provider} key in Settings → API keys.`;
    case "model": return "Choose a model in New research, or a default model in Settings.";
    case "searxng_url": return "Set the SearXNG address in Settings.";
    case "library": return "Add a folder in the Library.";
    case "resume_run": return "Resume the run first.";
    case "ask_again": return "Ask the question again in this session.";
    case "restore_backup": return fix.backup
      ? `The app does not write to it. Restore the newest backup (${fix.backup}) with research restore, then start the app again.`
      : "The app does not write to it. Restore a backup with research restore, then start the app again.";
    case "allow_host": return `Add ${fix.host} to the allowed hosts in Settings to reach it.`;
    case "data_folder": return "Check that your home folder exists and can be written.";
    case "shared_database": return "Check the shared database's address in Settings, or switch back to this computer's file there.";
  }
}

/** One human sentence for any failure: never a debug string. */
export function humanError(e: unknown): string {
  if (isApiError(e)) {
    const message = e.message.charAt(0).toUpperCase() + e.message.slice(1);
    const end = /[.!?]$/.test(message) ? "" : ".";
    const advice = fixWords(e.fix) || ADVICE[e.code];
    return advice ? `${message}${end} ${advice}` : `${message}${end}`;
  }
  if (e instanceof Error) return e.message;
  return typeof e === "string" ? e : "Something went wrong.";
}

export const api = {
  appInfo: () => invoke<AppInfo>("app_info"),
  databaseProblem: () => invoke<ApiError | null>("database_problem"),
  restoreNewestBackup: () => invoke<boolean>("restore_newest_backup"),
  salvageSessions: () => invoke<Salvage | null>("salvage_sessions"),
  backupStatus: () => invoke<BackupStatus>("backup_status"),
  modelMeasurements: () => invoke<ModelMeasurement[]>("model_measurements"),
  backUpNow: () => invoke<BackupStatus>("back_up_now"),
  restoreBackup: () => invoke<boolean>("restore_backup"),
  checkDatabase: () => invoke<string[]>("check_database"),
  restored: () => invoke<Restored | null>("restored"),
  preferences: () => invoke<Preferences>("preferences"),
  savePreferences: (preferences: Preferences) => invoke<null>("save_preferences", { preferences }),
  graphOutline: (pipeline: string, mode: Mode) => invoke<GraphOutline>("graph_outline", { pipeline, mode }),
  runOutline: (threadId: string) => invoke<GraphOutline>("run_outline", { threadId }),
  estimate: (pipeline: string, config: RunConfig) => invoke<RunEstimate>("estimate_run", { pipeline, config }),
  roles: () => invoke<RoleInfo[]>("roles"),
  defaultConfig: () => invoke<RunConfig>("default_config"),
  formChoices: () => invoke<FormChoices>("form_choices"),
  pipelines: () => invoke<PipelineInfo[]>("pipelines"),
  createResearch: (request: ResearchRequest) => invoke<StartedRun>("create_research", { request }),
  followUp: (sessionId: string, question: string) => invoke<StartedRun>("follow_up", { sessionId, question }),
  askInSession: (sessionId: string, question: string, kind: TurnKind | null) =>
    invoke<Turn>("ask_in_session", { sessionId, question, kind }),
  forkPoints: (threadId: string) => invoke<ForkPoint[]>("fork_points", { threadId }),
  modelCalls: (sessionId: string) => invoke<RunCalls[]>("model_calls", { sessionId }),
  forkResearch: (threadId: string, request: ForkRequest) => invoke<ForkedRun>("fork_research", { threadId, request }),
  recheckSources: (sessionId: string) => invoke<Recheck>("recheck_sources", { sessionId }),
  sessionSchedule: (sessionId: string) => invoke<ScheduleView | null>("session_schedule", { sessionId }),
  watchSession: (sessionId: string, every: string, researchAgain: boolean) =>
    invoke<ScheduleView>("watch_session", { sessionId, every, researchAgain }),
  pauseSchedule: (sessionId: string, paused: boolean) => invoke<void>("pause_schedule", { sessionId, paused }),
  unwatchSession: (sessionId: string) => invoke<void>("unwatch_session", { sessionId }),
  compareResearch: (request: CompareRequest, onEventA: Channel<Event>, onEventB: Channel<Event>) =>
    invoke<CompareOutcome>("compare_research", { request, onEventA, onEventB }),
  runResearch: (threadId: string, answer: Answer | null, onEvent: Channel<Event>) =>
    invoke<ResearchOutcome>("run_research", { threadId, answer, onEvent }),
  cancelRun: (threadId: string) => invoke<boolean>("cancel_run", { threadId }),
  running: () => invoke<string[]>("running"),
  pendingQuestion: (threadId: string) => invoke<PendingQuestion | null>("pending_question", { threadId }),
  runHistory: (threadId: string) => invoke<CheckpointInfo[]>("run_history", { threadId }),
  runUsage: (threadId: string) => invoke<UsageTotals>("run_usage", { threadId }),
  askNative: (pending: PendingQuestion) => invoke<DialogAnswer>("ask_native", { pending }),
  listSessions: (text: string | null) => invoke<SessionRecord[]>("list_sessions", { text }),
  session: (id: string) => invoke<SessionDetail>("session", { id }),
  renameSession: (id: string, title: string) => invoke<null>("rename_session", { id, title }),
  deleteSession: (id: string) => invoke<boolean>("delete_session", { id }),
  exportSession: (id: string) => invoke<string | null>("export_session", { id }),
  importSession: () => invoke<Imported | null>("import_session"),
  sourceText: (sha256: string) => invoke<string>("source_text", { sha256 }),
  checkDraft: (threadId: string, draft: string) => invoke<DraftFinding[]>("check_draft", { threadId, draft }),
  exportReport: (sessionId: string, format: ExportFormat, style: string | null) => invoke<string | null>("export_report", { sessionId, format, style }),
  citationStyles: () => invoke<CitationStyleChoice[]>("citation_styles"),
  openExternal: (url: string) => invoke<null>("open_external", { url }),
  getSettings: () => invoke<Settings>("get_settings"),
  setSetting: (key: string, value: string) => invoke<Settings>("set_setting", { key, value }),
  listKeys: () => invoke<KeyStatus[]>("list_keys"),
  setKey: (provider: string, key: string) => invoke<KeyStatus[]>("set_key", { provider, key }),
  confirmDeleteKey: (provider: string) => invoke<boolean>("confirm_delete_key", { provider }),
  deleteKey: (provider: string) => invoke<KeyStatus[]>("delete_key", { provider }),
  providerStatus: () => invoke<ProviderStatus[]>("provider_status"),
  testConnection: (target: string) => invoke<ConnectionTest>("test_connection", { target }),
  libraryFolders: () => invoke<LibraryFolder[]>("library_folders"),
  libraryAdd: (onProgress: Channel<IndexReport>) => invoke<IndexReport | null>("library_add", { onProgress }),
  libraryImport: (onProgress: Channel<IndexReport>) => invoke<ImportReport | null>("library_import", { onProgress }),
  libraryRemove: (path: string) => invoke<boolean>("library_remove", { path }),
  libraryReindex: (onProgress: Channel<IndexReport>) => invoke<IndexReport>("library_reindex", { onProgress }),
  libraryMeaning: () => invoke<LibraryMeaning>("library_meaning"),
  libraryEmbed: (onProgress: Channel<EmbedProgress>) => invoke<number>("library_embed", { onProgress }),
  libraryEmbedStop: () => invoke<void>("library_embed_stop"),
  chooseModelFile: () => invoke<string | null>("choose_model_file"),
  chooseCheckDocument: () => invoke<ChosenDocument | null>("choose_check_document"),
  chooseCheckSource: () => invoke<string | null>("choose_check_source"),
  checkDocument: (request: CheckRequest) => invoke<DocumentCheck>("check_document", { request }),
  recommendedModels: () => invoke<RecommendedModel[]>("recommended_models"),
  downloadModel: (url: string, onProgress: Channel<DownloadProgress>) =>
    invoke<DownloadedModel>("download_model", { url, onProgress }),
  cancelDownload: () => invoke<boolean>("cancel_download"),
  sentenceModelOffer: () => invoke<SentenceModelOffer>("sentence_model_offer"),
  downloadSentenceModel: (onProgress: Channel<DownloadProgress>) => invoke<string>("download_sentence_model", { onProgress }),
};
