// A comparison in words: what each side ran, and the table of what each found and spent.
// Pure (tested without a DOM).
import type { CompareColumn, CompareOutcome, ResearchRequest } from "./types";

/** What a side runs, in a few words: "Trust · multi · quick · scripted:x". */
export function sideWords(request: ResearchRequest, pipelineTitle: (name: string) => string): string {
  const c = request.config;
  return [pipelineTitle(request.pipeline), c.mode, c.depth, c.models.model].filter(Boolean).join(" · ");
}

const pct = (n: number) => `${Math.round(n * 100)}%`;
const seconds = (ms: number) => (ms >= 60_000 ? `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s` : `${(ms / 1000).toFixed(1)} s`);

/** The metrics table: one row per measure, one value per column. */
export function compareRows(columns: readonly CompareColumn[]): [string, ...string[]][] {
  const row = (name: string, value: (c: CompareColumn) => string): [string, ...string[]] => [name, ...columns.map(value)];
  return [
    row("Outcome", (c) => (c.error ? `failed: ${c.error}` : c.status ?? "—")),
    row("Pipeline", (c) => c.pipeline),
    row("Sources read", (c) => String(c.sources)),
    row("Evidence taken", (c) => String(c.evidence)),
    row("Research rounds", (c) => String(c.iterations)),
    row("Coverage of its questions", (c) => pct(c.coverage)),
    row("Cited sentences verified", (c) => `${c.verified_sentences} of ${c.audited_sentences}`),
    row("Confidence (claims supported)", (c) => pct(c.confidence)),
    row("Model calls", (c) => String(c.calls)),
    row("Tokens", (c) => c.tokens.toLocaleString("en")),
    row("Cost", (c) => (c.cost_usd > 0 ? `$${c.cost_usd.toFixed(c.cost_usd < 0.01 ? 4 : 2)}` : "none (local)")),
    row("Time", (c) => seconds(c.wall_ms)),
  ];
}

/** "3 sources both read; run concurrently." */
export function sharedWords(o: CompareOutcome): string {
  const n = o.shared_sources.length;
  return `${n} source${n === 1 ? "" : "s"} both sides read; the sides ran ${o.concurrent ? "at the same time" : "one after the other"}.`;
}
