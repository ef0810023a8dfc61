// The Method panel: how a run went, in words, from a session's details.
import type { Coverage, SessionDetail } from "./types";

/** What the Method panel shows. */
export interface MethodView {
  /** Label and value pairs, in order. */
  rows: [string, string][];
  /** The plan's research questions with how well each was answered. */
  plan: { question: string; coverage: string }[];
  /** The planner's approach and confidence, in its words; null when it gave neither. */
  planner: string | null;
  /** The planner's concerns about the question's scope. */
  concerns: string[];
  /** Searches run, in order. */
  searches: string[];
  /** Searches skipped as near-duplicates of earlier ones. */
  skipped: string[];
  /** What the last round found still missing. */
  gaps: string[];
  /** Every question asked in the session, when there was a follow-up. */
  turns: string[];
}

const percent = (x: number) => `${Math.round(x * 100)} %`;

/** Coverage of one research question in words. */
const COVERAGE_WORDS: Record<Coverage, string> = {
  well_covered: "answered",
  partial: "partly answered",
  missing: "nothing found",
};

export function coverageWords(level: Coverage | undefined): string {
  return level === undefined ? "" : COVERAGE_WORDS[level];
}

/** A duration in seconds or minutes. */
export function durationWords(ms: number): string {
  if (ms < 1000) return "under 1 s";
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${String(s % 60).padStart(2, "0")} s`;
}

/** The panel's contents for `detail`. */
export function methodView(detail: SessionDetail): MethodView {
  const latest = detail.reports[detail.reports.length - 1];
  const prov = (latest?.provenance ?? {}) as Record<string, unknown>;
  const config = (detail.session.config ?? {}) as Record<string, unknown>;
  const method = detail.method;
  const meta = method?.metadata;
  const supported = detail.claims.filter((c) => c.supported).length;
  // The question of the run that wrote this report: a follow-up's, not the session's first.
  const question = detail.runs.find(([thread]) => thread === latest?.thread_id)?.[1] ?? detail.session.question;
  const rows: [string, string][] = [["Question", question]];
  if (method?.interpretation && method.interpretation !== question) {
    rows.push(["Understood as", method.interpretation]);
  }
  rows.push(["Mode and depth", `${String(meta?.mode ?? config.mode ?? "single")} · ${String(config.depth ?? "standard")}`]);
  if (meta) {
    const workers = method.workers ? ` · ${method.workers} worker${method.workers === 1 ? "" : "s"}` : "";
    rows.push(["Rounds of searching", `${meta.iterations}${workers}`]);
    const history = meta.coverage_history.length > 1 ? ` (by round: ${meta.coverage_history.map(percent).join(" → ")})` : "";
    rows.push(["Coverage", `${percent(meta.coverage)}${history}`]);
    const skipped = meta.queries_skipped.length ? ` (${meta.queries_skipped.length} near-duplicate${meta.queries_skipped.length === 1 ? "" : "s"} skipped)` : "";
    rows.push(["Searches run", `${meta.queries.length}${skipped}`]);
  }
  rows.push(["Sources read", String(detail.sources.length)]);
  rows.push(["Quoted evidence", String(detail.evidence.length)]);
  rows.push(["Claims supported", `${supported} of ${detail.claims.length}`]);
  if (prov.llm_calls !== undefined) {
    const tokens = Number(prov.prompt_tokens ?? 0) + Number(prov.completion_tokens ?? 0);
    rows.push(["Model calls", `${String(prov.llm_calls)} (${tokens} tokens)`]);
  }
  if (prov.models && typeof prov.models === "object") {
    rows.push(["Models", [...new Set(Object.values(prov.models as Record<string, string>))].join(", ")]);
  }
  if (Array.isArray(prov.search)) rows.push(["Search providers", (prov.search as string[]).join(", ")]);
  if (meta && meta.wall_ms > 0) rows.push(["Time taken", durationWords(meta.wall_ms)]);
  rows.push(["Runs in this session", String(detail.runs.length)]);
  return {
    rows,
    plan: (method?.research_questions ?? []).map((question, i) => ({
      question,
      coverage: coverageWords(method?.question_coverage[i]),
    })),
    planner: method?.planner ?? null,
    concerns: method?.concerns ?? [],
    searches: meta?.queries ?? [],
    skipped: meta?.queries_skipped ?? [],
    gaps: method?.gaps ?? [],
    turns: detail.runs.length > 1 ? detail.runs.map(([, q]) => q) : [],
  };
}
