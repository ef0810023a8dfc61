// The page's own answer field, for answers the native dialog cannot take (free text, edits).
import { html, render } from "lit-html";
import { inside } from "../dom";
import { answerForm, answerFromText } from "../format";
import { runOf } from "../store";
import type { Ctx } from "./ctx";

export function mountAnswer(root: HTMLElement, { store, actions, toast }: Ctx) {
  const $ = inside(root);
  const free = $<HTMLTextAreaElement>("free-answer");

  $("free-answer-submit").addEventListener("click", () => {
    const s = store.get();
    const run = runOf(s, s.session?.threadId);
    if (!run?.question) return;
    const answer = answerFromText(run.question.question, run.needsText, free.value);
    if ("error" in answer) toast(answer.error);
    else void actions.answer(answer);
  });
  $("reask").addEventListener("click", () => actions.reask());

  // The field is filled afresh only when another question or kind of answer comes up.
  store.watch((s) => {
    const run = runOf(s, s.session?.threadId);
    return run?.question && run.needsText !== null ? `${run.threadId}\n${run.question.interrupt_id}\n${run.needsText}` : null;
  }, (key, s) => {
    root.hidden = key === null;
    const run = runOf(s, s.session?.threadId);
    if (key === null || !run?.question || run.needsText === null) return;
    const q = run.question.question;
    const form = answerForm(q, run.needsText);
    $("answer-title").textContent = form.title;
    $("answer-text").textContent = form.text;
    $("free-answer-label").textContent = form.label;
    free.value = form.value;
    free.rows = form.rows;
    render(html`${form.options.map((o) => html`<button type="button" class="option" @click=${() => void actions.answer({ type: "clarify", text: o })}>${o}</button>`)}${form.editInstead
      ? html`<button type="button" class="option" @click=${() => actions.needText("edit_report")}>Edit the text myself instead</button>` : ""}`, $("answer-options"));
    free.focus();
  });
}
