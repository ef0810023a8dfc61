// A session as a conversation, in words: its turns with what each was taken to be, its forks as
// branches, and the fork form's request. Pure: the views render what these return.
import type { Classification, Decider, Depth, ForkPoint, ForkRequest, ReportRow, SessionDetail, TurnKind } from "./types";

const KIND_WORDS: Record<TurnKind, string> = {
  first: "first question",
  follow_up: "follow-up",
  topic_change: "topic change",
  cancel: "cancelled",
};

const BY_WORDS: Record<Decider, string> = {
  rules: "by its words",
  model: "by the model",
  person: "by you",
};

export const kindWords = (kind: TurnKind) => KIND_WORDS[kind];

/** The chip's hover and focus text: "follow-up · by its words: it opens with "what about"". */
export function whyWords(c: Classification): string {
  const why = c.why.trim();
  return `${KIND_WORDS[c.kind]} · ${BY_WORDS[c.by]}${why ? `: ${why}` : ""}`;
}

/** The kind a person may re-ask a turn as instead (none for a first question). */
export function otherKind(kind: TurnKind): TurnKind | null {
  switch (kind) {
    case "follow_up": return "topic_change";
    case "topic_change": return "follow_up";
    case "cancel": return "follow_up";
    case "first": return null;
  }
}

/** One entry of the session's thread: a turn, or a run without one (a fork). */
export interface Entry {
  key: string;
  question: string;
  classification: Classification | null;
  /** The run it started, and its number in the session (1, 2, …). */
  threadId: string | null;
  run: number | null;
  /** A cancelled turn's reply. */
  reply: string;
  /** "forked from the plan of run 1" for a fork, else empty. */
  branch: string;
  /** The run's latest report version. */
  report: ReportRow | null;
  /** Its report is the one the Report tab shows. */
  latest: boolean;
}

/** A fork stage in words: "the plan", "round 2", "the draft", "the reading". */
export function stageWords(stage: string): string {
  const round = /^round-(\d+)$/.exec(stage);
  if (round) return `round ${round[1]}`;
  return stage === "reading" ? "the reading" : stage === "plan" ? "the plan" : stage === "draft" ? "the draft" : stage;
}

/** The session's thread of entries, oldest first. */
export function conversationEntries(detail: SessionDetail): Entry[] {
  const runIndex = new Map(detail.runs.map(([thread], i) => [thread, i + 1]));
  const latestThread = detail.reports[detail.reports.length - 1]?.thread_id ?? null;
  const reportOf = (thread: string | null) => {
    if (!thread) return null;
    let best: ReportRow | null = null;
    for (const r of detail.reports) if (r.thread_id === thread && (!best || r.version >= best.version)) best = r;
    return best;
  };
  const entry = (key: string, question: string, thread: string | null, rest: Partial<Entry> = {}): Entry => ({
    key, question, classification: null, threadId: thread, run: thread ? runIndex.get(thread) ?? null : null, reply: "", branch: "",
    report: reportOf(thread), latest: thread !== null && thread === latestThread, ...rest,
  });
  const entries: Entry[] = detail.turns.map((t, i) =>
    entry(`turn-${i}`, t.question, t.thread_id, { classification: t.classification, reply: t.reply }));
  const covered = new Set(detail.turns.map((t) => t.thread_id).filter(Boolean));
  for (const [i, [thread, question]] of detail.runs.entries()) {
    if (covered.has(thread)) continue;
    const run = i + 1;
    const origin = detail.forks[thread];
    // Only a recorded fork is called one: a run without a turn may also be a comparison's side.
    const fromRun = origin ? runIndex.get(origin.from) : undefined;
    const branch = origin && fromRun ? `forked from ${stageWords(origin.stage)} of run ${fromRun}` : "";
    // After the last entry of an earlier run, and after the turns that ended without a run there.
    let at = 0;
    for (const [j, e] of entries.entries()) if (e.run !== null && e.run < run) at = j + 1;
    while (at < entries.length && entries[at].run === null) at++;
    entries.splice(at, 0, entry(`run-${thread}`, question, thread, { branch }));
  }
  return entries;
}

/** One block of a report's Markdown, drawn as text (earlier reports have no HTML in the session). */
export interface Block {
  tag: "h" | "p" | "li";
  text: string;
}

/** Markdown as headings, paragraphs and list items of plain text (no markup is interpreted). */
export function markdownBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  let para: string[] = [];
  const flush = () => {
    if (para.length) blocks.push({ tag: "p", text: para.join(" ") });
    para = [];
  };
  for (const raw of markdown.split("\n")) {
    const line = raw.trim();
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    const item = /^(?:[-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (!line) flush();
    else if (heading) {
      flush();
      blocks.push({ tag: "h", text: heading[1] });
    } else if (item) {
      flush();
      blocks.push({ tag: "li", text: item[1] });
    } else para.push(line);
  }
  flush();
  return blocks.map((b) => ({ ...b, text: b.text.replace(/\*\*|__|`/g, "") }));
}

/** What the fork form starts with: the plan or the reading the run held at the fork point. */
export interface ForkDraft {
  questions: string;
  aspects: string;
  searches: string;
  reading: string;
}

export function forkDraft(point: ForkPoint): ForkDraft {
  return {
    questions: (point.plan?.questions ?? []).join("\n"),
    aspects: (point.plan?.aspects ?? []).join("\n"),
    searches: (point.plan?.searches ?? []).join("\n"),
    reading: point.reading ?? "",
  };
}

/** The fork form's fields as typed. */
export interface ForkFields extends ForkDraft {
  model: string;
  depth: string;
  rounds: string;
  pipeline: string;
}

const lines = (text: string) => text.split("\n").map((l) => l.trim()).filter(Boolean);

/** The request for a fork at `stage`: only what the person changed from `draft` is sent. */
export function forkRequest(stage: string, fields: ForkFields, draft: ForkDraft): ForkRequest {
  const rounds = Math.floor(Number(fields.rounds));
  const planChanged = (["questions", "aspects", "searches"] as const).some((k) => fields[k].trim() !== draft[k].trim());
  const readingChanged = fields.reading.trim() !== draft.reading.trim();
  return {
    at: stage,
    reading: stage === "reading" && readingChanged && fields.reading.trim() ? fields.reading.trim() : null,
    plan: stage === "plan" && planChanged ? { questions: lines(fields.questions), aspects: lines(fields.aspects), searches: lines(fields.searches) } : null,
    models: fields.model.trim() ? { model: fields.model.trim(), fast_model: null, roles: {} } : null,
    pipeline: fields.pipeline || null,
    depth: (fields.depth || null) as Depth | null,
    max_iterations: fields.rounds.trim() && rounds > 0 ? rounds : null,
    search: null,
  };
}
