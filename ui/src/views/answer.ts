// The page's own answer field, for answers the native dialog cannot take (free text, edits).
// An edit of the report draft is a Markdown editor whose text the audit checks before it is
// sent: its findings are shown here, to fix the text or send it anyway.
import { html, nothing, render } from "lit-html";
import { inside } from "../dom";
import { answerForm, answerFromText } from "../format";
import { runOf, shallow, type DraftCheck } from "../store";
import type { DraftFinding } from "../types";
import type { Ctx } from "./ctx";

export function mountAnswer(root: HTMLElement, { store, actions, toast }: Ctx) {
  const $ = inside(root);
  const free = $<HTMLTextAreaElement>("free-answer");
  const submit = $<HTMLButtonElement>("free-answer-submit");
  const editing = () => runOf(store.get(), store.get().session?.threadId)?.needsText === "edit_report";

  submit.addEventListener("click", () => {
    const s = store.get();
    const run = runOf(s, s.session?.threadId);
    if (!run?.question) return;
    const answer = answerFromText(run.question.question, run.needsText, free.value);
    if ("error" in answer) toast(answer.error);
    else if (answer.type === "edit_report") void actions.checkEdit(answer.draft);
    else void actions.answer(answer);
  });
  $("reask").addEventListener("click", () => actions.reask());
  // Findings are about the text as checked: a change makes them stale.
  free.addEventListener("input", () => {
    if (editing()) actions.clearDraftCheck();
  });

  /** Selects the sentence of `f` in the editor, to fix it. */
  const show = (f: DraftFinding) => {
    const at = free.value.indexOf(f.sentence);
    free.focus();
    if (at >= 0) free.setSelectionRange(at, at + f.sentence.length);
  };

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
    free.classList.toggle("editor", form.editor);
    render(html`${form.options.map((o) => html`<button type="button" class="option" @click=${() => void actions.answer({ type: "clarify", text: o })}>${o}</button>`)}${form.editInstead
      ? html`<button type="button" class="option" @click=${() => actions.needText("edit_report")}>Edit the text myself instead</button>` : ""}`, $("answer-options"));
    free.focus();
    if (form.editor) free.setSelectionRange(0, 0);
  });

  store.watch((s) => [s.session?.draftCheck ?? null, runOf(s, s.session?.threadId)?.needsText ?? null] as const, ([check, kind]) => {
    const box = $("draft-findings");
    const edit = kind === "edit_report";
    submit.textContent = edit ? "Check and send" : "Continue";
    submit.disabled = edit && (check?.busy ?? false);
    box.hidden = !edit || !check || (!check.findings && !check.error);
    render(edit && check ? findingsView(check) : nothing, box);
  }, shallow);

  function findingsView(check: DraftCheck) {
    if (check.error) return html`<p class="error">The edit could not be checked: ${check.error}</p>`;
    const findings = check.findings ?? [];
    return html`<h3>The audit found ${findings.length} problem${findings.length === 1 ? "" : "s"} in your edit</h3>
      <p class="muted">Sent as it is, the run's audit takes out or rewrites these sentences.</p>
      <ol class="findings">${findings.map((f) => html`<li data-problem=${f.problem} data-sentence=${f.number}><button type="button" class="link"
        @click=${() => show(f)}>${f.message}</button><span class="finding-sentence">“${f.sentence}”</span></li>`)}</ol>
      <div class="actions"><button type="button" class="primary" id="fix-draft" @click=${() => (findings[0] ? show(findings[0]) : free.focus())}>Fix the text</button>
        <button type="button" id="send-anyway" @click=${() => actions.sendEditAnyway()}>Send anyway</button></div>`;
  }
}
