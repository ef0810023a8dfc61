// The trust pipeline's record in words: what each mark means, which claim a mark in the report
// belongs to, the hallucination score and each source's credibility. Pure (tested without a DOM).
import type { ClaimTrust, Credibility, MarkMeaning, SourceCheck, TrustMark, TrustRecord } from "./types";

/** A mark of the record's legend (the pipeline's words, with the measured precision of a ✓). */
export function markInfo(legend: readonly MarkMeaning[], mark: TrustMark): MarkMeaning {
  return legend.find((m) => m.mark === mark) ?? { mark, symbol: "", label: mark, meaning: "" };
}

/** The marks in `text`, in order: where each starts, how long it is and which it is. */
export function findMarks(text: string, legend: readonly MarkMeaning[]): { at: number; length: number; mark: TrustMark }[] {
  const out: { at: number; length: number; mark: TrustMark }[] = [];
  // The longest symbol first, so that ✓✓ is one mark and not two ✓.
  const marks = legend.filter((m) => m.symbol).sort((a, b) => b.symbol.length - a.symbol.length);
  for (let at = 0; at < text.length; ) {
    const m = marks.find((m) => text.startsWith(m.symbol, at));
    if (m) {
      out.push({ at, length: m.symbol.length, mark: m.mark });
      at += m.symbol.length;
    } else {
      at += 1;
    }
  }
  return out;
}

/**
 * A sentence reduced to what survives Markdown and HTML alike: no citations, marks, emphasis,
 * punctuation or spaces; letters and digits, lowered.
 */
export function sentenceKey(text: string): string {
  return text
    .replace(/\[\d+\]/g, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, "");
}

/** A claim's key: its sentence up to its mark (what stands before the mark in the report). */
export function claimKey(claim: ClaimTrust, legend: readonly MarkMeaning[]): string {
  const symbol = markInfo(legend, claim.mark).symbol;
  const at = symbol ? claim.sentence.indexOf(symbol) : -1;
  return sentenceKey(at >= 0 ? claim.sentence.slice(0, at) : claim.sentence);
}

/**
 * The claim a mark belongs to, given the text of its paragraph before the mark: the claim whose
 * key that text ends with (the longest, the same mark first), or `null` when none does.
 */
export function claimBefore(
  before: string,
  mark: TrustMark,
  claims: readonly ClaimTrust[],
  legend: readonly MarkMeaning[],
): number | null {
  const key = sentenceKey(before);
  let best: number | null = null;
  let bestScore = -1;
  for (const [i, c] of claims.entries()) {
    const k = claimKey(c, legend);
    if (k.length < 4 || !key.endsWith(k)) continue;
    const score = k.length * 2 + (c.mark === mark ? 1 : 0);
    if (score > bestScore) {
      best = i;
      bestScore = score;
    }
  }
  return best;
}

const pct = (n: number) => `${Math.round(n * 100)}%`;

/** The report header's line: "Hallucination score 0.25: 1 of the 4 claims the writer made …". */
export function hallucinationWords(t: TrustRecord): string {
  const score = t.hallucination.toFixed(2);
  if (!t.writer_claims) return `Hallucination score ${score}: the writer made no cited claims.`;
  return `Hallucination score ${score}: ${t.unsupported} of the ${t.writer_claims} claims the writer made ${t.unsupported === 1 ? "was" : "were"} not supported by their sources as written.`;
}

/** How many claims carry each mark. */
export function markCounts(t: TrustRecord): Record<TrustMark, number> {
  const counts: Record<TrustMark, number> = { corroborated: 0, verified: 0, weak: 0 };
  for (const c of t.claims) counts[c.mark]++;
  return counts;
}

/** A source's credibility, by source id. */
export function credibilityOf(t: TrustRecord | null, sourceId: number): Credibility | null {
  return t?.credibility.find((c) => c.source_id === sourceId) ?? null;
}

export function credibilityWords(c: Credibility): string {
  return `credibility ${c.score.toFixed(2)}${c.excluded ? " — left out of the report" : ""}`;
}

/** What the popover says of the claim's confidence: "confidence 82%". */
export const confidenceWords = (c: ClaimTrust) => `confidence ${pct(c.confidence)}`;

/** The same-origin note of a source ("speaks with the voice of [2]: the same site"). */
export function sameOriginWords(t: TrustRecord | null, sourceId: number): string {
  const s = t?.same_origin.find((o) => o.source_id === sourceId);
  return s ? `counts as one with [${s.of}]: ${s.why}` : "";
}

// ---------- a recheck's findings ----------

/** A rechecked source's state in words. */
export function sourceCheckWords(c: SourceCheck): string {
  const s = c.state;
  switch (s.state) {
    case "unchanged": return "unchanged";
    case "changed": return `changed: ${s.kept} quote${s.kept === 1 ? "" : "s"} still there, ${s.lost} gone`;
    case "gone": return `gone: ${s.why}`;
    case "unchecked": return `not checked: ${s.why}`;
  }
}

/** A report sentence as read aloud: no list marker, no citation brackets (said beside it). */
export function plainSentence(sentence: string): string {
  const plain = sentence.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, "").replace(/\s*\[\d+\]/g, "").trim();
  // A quoted finding is shown in the page's own quotation marks.
  return /^"[^"]+"\.?$/.test(plain) ? plain.replace(/^"|"\.?$/g, "") : plain;
}

/** The summary of a recheck: "2 of 3 cited sources unchanged; 1 changed; …". */
export function recheckSummary(sources: readonly SourceCheck[], lost: number, version: number | null): string {
  const count = (state: SourceCheck["state"]["state"]) => sources.filter((s) => s.state.state === state).length;
  const parts = [`${count("unchanged")} of ${sources.length} cited source${sources.length === 1 ? "" : "s"} unchanged`];
  if (count("changed")) parts.push(`${count("changed")} changed`);
  if (count("gone")) parts.push(`${count("gone")} gone`);
  if (count("unchecked")) parts.push(`${count("unchecked")} could not be read now`);
  const sentences = lost ? `${lost} sentence${lost === 1 ? "" : "s"} lost ${lost === 1 ? "its" : "their"} support` : "every sentence keeps its support";
  const after = version === null ? "the report stays as it was." : `the report is now version ${version}.`;
  return `${parts.join(", ")}; ${sentences}; ${after}`;
}

/** "checked 24 Nov 2026" for the session list. */
export function checkedWords(ms: number | null | undefined): string {
  return ms ? `checked ${new Date(ms).toLocaleDateString(undefined, { day: "numeric", month: "short", year: "numeric" })}` : "";
}
