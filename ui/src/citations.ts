// What a citation shows, and where a quote sits in its source's stored text (pure, tested).
import type { ClaimRow, EvidenceRow, SourceRow } from "./types";

export type Verification = "verified" | "partly" | "unverified" | "no_evidence";

export interface CitationInfo {
  source: SourceRow | null;
  quotes: { evidenceId: number; fact: string; quote: string; supported: boolean | null }[];
  state: Verification;
}

/** Everything the popover of citation `[n]` shows. */
export function citationInfo(n: number, sources: SourceRow[], evidence: EvidenceRow[], claims: ClaimRow[]): CitationInfo {
  const source = sources.find((s) => s.source_id === n) ?? null;
  const quotes = evidence
    .filter((e) => e.source_id === n)
    .map((e) => {
      const checked = claims.filter((c) => c.evidence_id === e.evidence_id);
      return {
        evidenceId: e.evidence_id,
        fact: e.fact,
        quote: e.quote,
        supported: checked.length ? checked.some((c) => c.supported) : null,
      };
    });
  let state: Verification = "no_evidence";
  if (quotes.length) {
    const supported = quotes.filter((q) => q.supported === true).length;
    state = supported === quotes.length ? "verified" : supported > 0 ? "partly" : "unverified";
  }
  return { source, quotes, state };
}

export function verificationWords(state: Verification): string {
  switch (state) {
    case "verified": return "Verified: every quote was found in the source and supports its claim.";
    case "partly": return "Partly verified: some claims from this source were not supported by their quotes.";
    case "unverified": return "Not verified: the quotes were found, but the claims were not supported.";
    default: return "No quoted evidence is stored for this source.";
  }
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Where `quote` sits in `text`, ignoring differences in whitespace and quotation-mark style:
 * `[start, end)` in `text`, or null.
 */
export function findQuote(text: string, quote: string): [number, number] | null {
  const words = quote.trim().split(/\s+/).filter(Boolean);
  if (!words.length) return null;
  const quoteChars = "[\"'“”‘’«»]";
  const pattern = words
    .map((w) => escapeRegex(w).replace(/["'“”‘’«»]/g, quoteChars))
    .join("\\s+");
  const m = new RegExp(pattern, "u").exec(text);
  return m ? [m.index, m.index + m[0].length] : null;
}

/** The source's label: its title, else its file name or host. */
export function sourceLabel(s: SourceRow): string {
  if (s.title.trim()) return s.title;
  if (s.url.startsWith("file://")) return decodeURIComponent(s.url.split("/").pop() ?? s.url);
  try {
    return new URL(s.url).host;
  } catch {
    return s.url;
  }
}

/** For the Sources tab: which claims cite each source. */
export function claimsBySource(evidence: EvidenceRow[], claims: ClaimRow[]): Map<number, ClaimRow[]> {
  const out = new Map<number, ClaimRow[]>();
  for (const c of claims) {
    const e = evidence.find((x) => x.evidence_id === c.evidence_id);
    if (!e) continue;
    const list = out.get(e.source_id) ?? [];
    list.push(c);
    out.set(e.source_id, list);
  }
  return out;
}
