// Pure words and readings the views and actions share (tested without a DOM).
import type { Answer, ImportReport, IndexReport, Mode, PendingQuestion, Restored, RunConfig, Salvage, RunEstimate, SessionDetail, SessionStatus, TextAnswer } from "./types";

/** The sidebar's words for each session status (the statuses are the api's `SessionStatus`). */
export const STATUS_WORDS: Record<SessionStatus, string> = {
  running: "unfinished", waiting: "needs your answer", interrupted: "paused", failed: "stopped",
  finished: "", cancelled: "cancelled", rejected: "rejected",
};

/** The sidebar's badge for a session: "running now" when its run goes on in this window. */
export function statusBadge(status: SessionStatus, runningNow: boolean): string {
  return runningNow ? "running now" : STATUS_WORDS[status] ?? status;
}

/** The line under a loaded session's title. */
export function sessionMeta(detail: SessionDetail): string {
  const supported = detail.claims.filter((c) => c.supported).length;
  const when = new Date(detail.session.updated_at_ms).toLocaleString();
  const status = STATUS_WORDS[detail.session.status] || detail.session.status;
  return detail.reports.length
    ? `${status === "finished" ? "Finished" : status} ${when} · ${detail.sources.length} sources · ${supported} of ${detail.claims.length} claims supported by their quotes`
    : `${status || detail.session.status} · ${when}`;
}

/** A moment as a short local date and time ("27 Nov, 09:00"). */
export function shortDate(ms: number): string {
  return new Date(ms).toLocaleString([], { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
}

export function runningSince(at: Date): string {
  return `Running since ${at.toLocaleTimeString()}`;
}

/** The pipeline mode a session's runs use (the default mode when its configuration is unknown). */
export function modeOf(detail: SessionDetail): Mode {
  return detail.config?.mode ?? "single";
}

/** The run configuration a session was started with, as far as it is known. */
export function configOf(detail: SessionDetail | null | undefined): RunConfig | null {
  return detail?.config ?? null;
}

export function estimateText(e: RunEstimate): string {
  const cost = e.cost_usd === null ? "cost unknown for this model" : e.cost_usd === 0 ? "no cost (local model)" : `about $${e.cost_usd.toFixed(e.cost_usd < 0.1 ? 3 : 2)}`;
  return `Estimate: about ${e.calls} model calls, ${Math.round(e.tokens / 1000)}k tokens, ${cost}.`;
}

/** The question's length once it nears `max`, the api's limit (`FormChoices.question_max_chars`). */
export function questionCount(question: string, max: number): string {
  const n = [...question].length;
  return n > max * 0.875 ? `${n} / ${max} characters` : "";
}

export function progressText(r: IndexReport): string {
  const failed = r.failed.length ? `, ${r.failed.length} could not be read` : "";
  const of = r.total ? ` of ${r.total}` : "";
  return `${r.scanned}${of} files looked at: ${r.indexed} indexed, ${r.unchanged} unchanged${failed}.`;
}

/** What importing a reference manager's export did, in words: what is in the library now and what could not be added. */
export function importText(r: ImportReport): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const parts = [`${plural(r.references, "reference")}: ${plural(r.files, "attached file")} in the library with their records (${r.new} new, ${r.files - r.new} updated).`];
  if (r.missing.length) {
    const [key, path, why] = r.missing[0];
    parts.push(`${plural(r.missing.length, "attached file")} not added (${path} of ${key}: ${why}${r.missing.length > 1 ? "; …" : ""}).`);
  }
  if (r.without_files.length) parts.push(`${plural(r.without_files.length, "reference")} without a file, so not searchable by text.`);
  return parts.join(" ");
}

/**
 * What a session's status says about resuming its last run, or `null` when it has nothing to resume
 * (`resumable`: the api's `FormChoices.resumable`).
 */
export function resumeNote(status: SessionStatus, resumable: readonly SessionStatus[]): string | null {
  if (!resumable.includes(status)) return null;
  return status === "failed"
    ? "This run stopped on an error. Resume continues from the last saved step."
    : "This run did not finish. Resume continues from the last saved step.";
}

/** The answer typed in the page's own field to `q` (`kind` as the dialog named it), or why there is none. */
export function answerFromText(q: PendingQuestion["question"], kind: TextAnswer | null, typed: string): Answer | { error: string } {
  const text = typed.trim();
  if (!text) return { error: "Type your answer first." };
  if (q.type === "clarify") return { type: "clarify", text };
  if (q.type === "plan_review") {
    const [qs, ss = ""] = text.split(/^---$/m);
    const lines = (s: string) => s.split("\n").map((l) => l.trim()).filter(Boolean);
    const questions = lines(qs);
    if (!questions.length) return { error: "The plan needs at least one research question." };
    return { type: "edit_plan", plan: { ...q.plan, questions, searches: lines(ss).length ? lines(ss) : q.plan.searches } };
  }
  if (kind === "reject_report") return { type: "reject_report", reason: text };
  if (kind === "edit_report") return { type: "edit_report", draft: text };
  return { type: "revise_report", feedback: text };
}

/** The page's answer field for `q`: its heading, help, label, text to start from and size. */
export function answerForm(q: PendingQuestion["question"], kind: TextAnswer) {
  if (q.type === "clarify") {
    return { title: "Clarify the question", text: q.question, label: "Or describe what you mean", value: "", rows: 5, options: q.options, editInstead: false, editor: false };
  }
  if (q.type === "plan_review") {
    return {
      title: "Edit the plan", text: "One research question per line; then a line with “---”; then one search per line.", label: "Plan",
      value: `${q.plan.questions.join("\n")}\n---\n${q.plan.searches.join("\n")}`, rows: 5, options: [], editInstead: false, editor: false,
    };
  }
  if (kind === "edit_report" && q.type === "report_review") {
    return {
      title: "Edit the report",
      text: "Change the text as you like (Markdown; keep the [n] citations). Before it is sent, the audit checks your edit against the sources and shows what it finds; the run checks it again and shows you the result.",
      label: "Report text (Markdown)", value: q.draft, rows: 20, options: [], editInstead: false, editor: true,
    };
  }
  const revise = kind === "revise_report";
  return {
    title: revise ? "Request changes" : "Reject the report",
    text: revise ? "What should the writer change? It revises the report from your feedback." : "Why? The reason is kept with the session.",
    label: revise ? "Feedback" : "Reason", value: "", rows: 5, options: [],
    editInstead: revise && q.type === "report_review" && !!q.draft, editor: false,
  };
}

/** What the window says when the restore asked for was applied as the app started, or was not. */
export function restoredWords(r: Restored): string {
  if (r.problem) return `The backup was not restored: ${r.problem}. The database is as it was.`;
  const kept = r.kept ? ` The database as it was is kept at ${r.kept}.` : "";
  return `Restored the backup ${r.from}.${kept}`;
}

/** What saving a damaged database's sessions came to: how many, where, and which could not be read. */
export function salvageWords(s: Salvage): string {
  const folder = s.saved[0]?.file.replace(/\/[^/]*$/, "");
  const saved = s.saved.length
    ? `Saved ${s.saved.length} session${s.saved.length === 1 ? "" : "s"} to ${folder}; Import session brings ${s.saved.length === 1 ? "it" : "them"} back.`
    : "No session could be read whole.";
  const lost = s.lost.length ? ` Not saved: ${s.lost.map((l) => `“${l.title}” (${l.problem})`).join("; ")}.` : "";
  return saved + lost;
}
