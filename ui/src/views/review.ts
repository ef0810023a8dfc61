// The Review tab of a review-pipeline run: each draft's score per criterion (with the weights),
// its verdict, the reviewer's summary and itemised issues, what the next draft fixed, the words
// each revision changed, and how the loop ended (fallback, failure, escalations).
import { html, nothing, render } from "lit-html";
import { draftCards, escalationWords, FOUND_BY_WORDS, reviewHeadline, score, scoreRows, SEVERITY_WORDS, VERDICT_WORDS, type DraftCard } from "../review";
import type { DiffPart } from "../diff";
import { shallow } from "../store";
import type { Issue, ReviewView } from "../types";
import type { Ctx } from "./ctx";

const issueItem = (i: Issue) => html`<li class="issue sev-${i.severity}"><span class="severity">${SEVERITY_WORDS[i.severity]}</span>
  <span class="issue-text">${i.description}</span>
  <span class="muted issue-meta">— ${i.location || "general"} · found by ${FOUND_BY_WORDS[i.found_by]}${i.fix ? html` · fix: ${i.fix}` : nothing}</span></li>`;

/** A run of the diff: a change marked without the whitespace after its last word. */
function changed(p: DiffPart) {
  if (p.kind === "same") return p.text;
  const words = p.text.trimEnd();
  const space = p.text.slice(words.length);
  return html`${p.kind === "added" ? html`<ins>${words}</ins>` : html`<del>${words}</del>`}${space}`;
}

function draftView(card: DraftCard, next: number | null) {
  const c = card.critique;
  return html`<article class="draft-card" data-version=${card.version}>
    <h3>Draft ${card.version}${card.best ? html` <span class="best">the report</span>` : nothing}
      ${c ? html`<span class="overall">${score(c.overall)}/10</span> <span class="verdict verdict-${c.verdict}">${VERDICT_WORDS[c.verdict]}</span>` : html`<span class="muted">not reviewed</span>`}</h3>
    ${card.asked ? html`<details class="asked"><summary>What this revision was asked to change</summary><pre class="pre">${card.asked}</pre></details>` : nothing}
    ${c?.summary ? html`<p class="review-summary">${c.summary}</p>` : nothing}
    ${c ? html`<h4>Issues (${c.issues.length})</h4>${c.issues.length
      ? html`<ul class="issues">${c.issues.map(issueItem)}</ul>` : html`<p class="muted">None.</p>`}` : nothing}
    ${next !== null ? html`<h4>Fixed by draft ${next} (${card.fixed.length})</h4>${card.fixed.length
      ? html`<ul class="issues fixed">${card.fixed.map(issueItem)}</ul>` : html`<p class="muted">None of these issues went away.</p>`}` : nothing}
    ${card.diff ? html`<details class="draft-text" open><summary>Changes from draft ${card.version - 1}: ${card.diff.added} words added, ${card.diff.removed} removed</summary>
        <div class="diff">${card.diff.parts.map(changed)}</div></details>`
      : html`<details class="draft-text"><summary>Text of draft ${card.version}</summary><div class="diff">${card.body}</div></details>`}
  </article>`;
}

function reviewView(view: ReviewView) {
  const rows = scoreRows(view);
  const cards = draftCards(view);
  const { fallback, failure, escalations } = view.record;
  return html`<p class="lede review-headline">${reviewHeadline(view)}</p>
    ${fallback ? html`<p class="banner warn review-fallback"><strong>Why the report is not an approved draft:</strong> ${fallback}</p>` : nothing}
    ${failure ? html`<p class="banner warn review-failure"><strong>The review stopped on a failure:</strong> ${failure}</p>` : nothing}
    ${escalations.length ? html`<ul class="escalations">${escalations.map((e) => html`<li>${escalationWords(e)}</li>`)}</ul>` : nothing}
    <table class="scores">
      <caption>Scores out of 10, per criterion (weight in the overall score)</caption>
      <thead><tr><th scope="col">Criterion</th><th scope="col">Weight</th>${cards.map((c) => html`<th scope="col">Draft ${c.version}</th>`)}</tr></thead>
      <tbody>${rows.map((r) => html`<tr data-criterion=${r.criterion}><th scope="row">${r.label}</th><td class="muted">${r.weight}</td>${r.scores.map((s) => html`<td
        class=${s !== null && s < 6 ? "low" : nothing}>${score(s)}</td>`)}</tr>`)}</tbody>
      <tfoot><tr class="overall-row"><th scope="row">Overall</th><td></td>${cards.map((c) => html`<td>${score(c.critique?.overall ?? null)}</td>`)}</tr>
        <tr><th scope="row">Verdict</th><td></td>${cards.map((c) => html`<td>${c.critique ? VERDICT_WORDS[c.critique.verdict] : "—"}</td>`)}</tr></tfoot>
    </table>
    ${cards.map((card, i) => draftView(card, i + 1 < cards.length ? cards[i + 1].version : null))}`;
}

export function mountReview(root: HTMLElement, tab: HTMLElement, { store }: Ctx) {
  store.watch((s) => [s.session?.panels?.review ?? null, s.session?.draft ?? false] as const, ([review]) => {
    tab.hidden = !review;
    render(review ? reviewView(review) : html`<p class="placeholder">This run had no reviewer.</p>`, root);
  }, shallow);
}
