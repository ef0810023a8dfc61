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
  return m ? [m.index, m.index + m[0].length] : lettersMatch(text, quote);
}

/**
 * The stored text is Markdown while a quote is the words the page shows (no escapes, emphasis
 * marks or list numbers): match on letters and digits alone, ignoring everything between them,
 * and map the match back to `[start, end)` in `text`. The quote must not contain numbers the
 * text has only as list markers, which is how quotes are made.
 */
function lettersMatch(text: string, quote: string): [number, number] | null {
  const isWord = (c: string) => /[\p{L}\p{N}]/u.test(c);
  const wanted = [...quote].filter(isWord).join("").toLowerCase();
  if (wanted.length < 8) return null;
  // List numbers at line starts are the converter's, not the page's words: skip them.
  const marker = new Set<number>();
  for (const m of text.matchAll(/^[ \t>]*(\d{1,3})[.)][ \t]/gm)) {
    const digits = m.index + m[0].indexOf(m[1]);
    for (let k = 0; k < m[1].length; k++) marker.add(digits + k);
  }
  // Every letter of the text, lowered, with where it starts in `joined` and in `text`.
  let joined = "";
  const inJoined = new Map<number, number>();
  const endsInJoined = new Map<number, number>();
  let i = 0;
  for (const c of text) {
    if (isWord(c) && !marker.has(i)) {
      inJoined.set(joined.length, i);
      joined += c.toLowerCase();
      endsInJoined.set(joined.length, i + c.length);
    }
    i += c.length;
  }
  const found = joined.indexOf(wanted);
  if (found < 0) return null;
  const start = inJoined.get(found);
  const end = endsInJoined.get(found + wanted.length);
  return start === undefined || end === undefined ? null : [start, end];
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
