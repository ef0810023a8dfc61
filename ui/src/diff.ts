// A word-level diff of two texts (the longest common subsequence of their words), for the
// Review view's changes between consecutive drafts.

export type DiffKind = "same" | "added" | "removed";

/** A run of words with the whitespace after each, kept as the text had it. */
export interface DiffPart {
  kind: DiffKind;
  text: string;
}

/** Words longer than this many cells of the LCS table are compared as one removed and one added block. */
export const MAX_CELLS = 4_000_000;

/** Each word with the whitespace after it (leading whitespace joins the first word). */
export function words(text: string): string[] {
  const out = text.match(/\s*\S+\s*/g) ?? [];
  return out.length ? out : text ? [text] : [];
}

const key = (w: string) => w.trim();

function push(parts: DiffPart[], kind: DiffKind, text: string) {
  const last = parts[parts.length - 1];
  if (last?.kind === kind) last.text += text;
  else if (text) parts.push({ kind, text });
}

/** What changed from `before` to `after`, word by word; same, removed and added runs in order. */
export function wordDiff(before: string, after: string): DiffPart[] {
  const a = words(before);
  const b = words(after);
  const parts: DiffPart[] = [];
  // The common start and end need no table.
  let start = 0;
  while (start < a.length && start < b.length && key(a[start]) === key(b[start])) start += 1;
  let end = 0;
  while (end < a.length - start && end < b.length - start && key(a[a.length - 1 - end]) === key(b[b.length - 1 - end])) end += 1;
  for (const w of b.slice(0, start)) push(parts, "same", w);
  const x = a.slice(start, a.length - end);
  const y = b.slice(start, b.length - end);
  const n = x.length;
  const m = y.length;
  if ((n + 1) * (m + 1) > MAX_CELLS) {
    push(parts, "removed", x.join(""));
    push(parts, "added", y.join(""));
  } else {
    // lcs[i * (m + 1) + j]: the common words of x[i..] and y[j..].
    const lcs = new Uint32Array((n + 1) * (m + 1));
    for (let i = n - 1; i >= 0; i -= 1) {
      for (let j = m - 1; j >= 0; j -= 1) {
        lcs[i * (m + 1) + j] = key(x[i]) === key(y[j])
          ? lcs[(i + 1) * (m + 1) + j + 1] + 1
          : Math.max(lcs[(i + 1) * (m + 1) + j], lcs[i * (m + 1) + j + 1]);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (key(x[i]) === key(y[j])) {
        push(parts, "same", y[j]);
        i += 1;
        j += 1;
      } else if (lcs[(i + 1) * (m + 1) + j] >= lcs[i * (m + 1) + j + 1]) {
        push(parts, "removed", x[i]);
        i += 1;
      } else {
        push(parts, "added", y[j]);
        j += 1;
      }
    }
    for (; i < n; i += 1) push(parts, "removed", x[i]);
    for (; j < m; j += 1) push(parts, "added", y[j]);
  }
  for (const w of b.slice(b.length - end)) push(parts, "same", w);
  return parts;
}

/** How many words a diff adds and removes. */
export function diffCounts(parts: DiffPart[]): { added: number; removed: number } {
  const count = (kind: DiffKind) => parts.filter((p) => p.kind === kind).reduce((n, p) => n + words(p.text).length, 0);
  return { added: count("added"), removed: count("removed") };
}
