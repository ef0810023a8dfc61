// The trust pipeline's record over the report: its hallucination score and the marks' legend
// above it, and the ✓✓ / ✓ / ⚠ marks in its text made indicators whose hover and focus show
// the claim's check, sources and quotes.
import { html, nothing, render } from "lit-html";
import type { Popover } from "../popover";
import { shallow } from "../store";
import { claimBefore, findMarks, hallucinationWords, markCounts, markInfo } from "../trust";
import type { SessionDetail, TrustMark } from "../types";
import type { Ctx } from "./ctx";

/** The blocks a sentence cannot run across. */
const BLOCK = "p, li, td, th, h1, h2, h3, h4, h5, h6, blockquote, dd, dt";

/** Makes each mark in `report` (the latest report's HTML) an indicator of its claim. */
export function decorateMarks(report: HTMLElement, detail: SessionDetail, popover: Popover) {
  const trust = detail.trust;
  if (!trust) return;
  const found: { node: Text; at: number; length: number; mark: TrustMark; claim: number | null }[] = [];
  const walker = document.createTreeWalker(report, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
    const marks = findMarks(node.data, trust.legend);
    if (!marks.length) continue;
    const block = node.parentElement?.closest(BLOCK) ?? report;
    for (const m of marks) {
      const range = document.createRange();
      range.setStart(block, 0);
      range.setEnd(node, m.at);
      found.push({ node, ...m, claim: claimBefore(range.toString(), m.mark, trust.claims, trust.legend) });
    }
  }
  // From the last to the first, so that the offsets still to split at stay where they were.
  for (const f of found.reverse()) {
    const rest = f.node.splitText(f.at);
    rest.data = rest.data.slice(f.length);
    const info = markInfo(trust.legend, f.mark);
    const claim = f.claim === null ? null : trust.claims[f.claim];
    const span = document.createElement("span");
    span.className = `trust-mark mark-${f.mark}${claim ? "" : " unmatched"}`;
    span.textContent = info.symbol;
    span.tabIndex = 0;
    span.setAttribute("role", "button");
    span.setAttribute("aria-haspopup", "dialog");
    span.setAttribute("aria-label", `${info.label}: ${info.meaning}`);
    if (f.claim !== null) span.dataset.claim = String(f.claim);
    const open = (focus: boolean) => popover.openClaim(span, f.mark, claim, detail, focus);
    span.addEventListener("mouseenter", () => open(false));
    span.addEventListener("focus", () => open(false));
    span.addEventListener("click", () => open(true));
    span.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        open(true);
      }
    });
    f.node.parentNode?.insertBefore(span, rest);
    // The sentence itself shows its mark's colour while the mark is hovered or focused.
    span.closest(BLOCK)?.classList.add("has-mark");
  }
}

/** The bar above the report: the hallucination score and what each mark means, with counts. */
export function mountTrustBar(root: HTMLElement, { store }: Ctx) {
  store.watch((s) => [s.session?.panels ?? null, s.session?.draft ?? false] as const, ([detail, draft]) => {
    const trust = detail?.trust;
    root.hidden = !trust || draft;
    if (!trust || draft) {
      render(nothing, root);
      return;
    }
    const counts = markCounts(trust);
    const excluded = trust.credibility.filter((c) => c.excluded).length;
    render(html`<p id="hallucination" class="hallucination ${trust.hallucination > 0.2 ? "high" : ""}">${hallucinationWords(trust)}</p>
      <ul class="trust-legend" aria-label="What the marks in the report mean">${trust.legend.map((m) => html`<li data-mark=${m.mark}><span
        class="trust-mark mark-${m.mark}" aria-hidden="true">${m.symbol}</span> <strong>${m.label}</strong> — ${m.meaning}
        <span class="muted">(${counts[m.mark]})</span></li>`)}</ul>
      <p class="muted trust-note">Hover or focus a mark to see how its sentence was checked.${excluded
        ? ` ${excluded} source${excluded === 1 ? " was" : "s were"} left out for low credibility (see Sources).` : nothing}</p>`, root);
  }, shallow);
}
