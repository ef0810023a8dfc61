// The Method tab's timeline: the stages a run can be re-run from, with what each holds, and the
// small form that forks it there (an edited plan or reading, another model, depth, rounds or pipeline).
import { html, nothing, render } from "lit-html";
import { forkDraft, forkRequest, stageWords, type ForkFields } from "../conversation";
import { configOf } from "../format";
import { shallow } from "../store";
import type { ForkPoint, SessionDetail } from "../types";
import type { Ctx } from "./ctx";

const capital = (text: string) => text.replace(/^the /, "").replace(/^./, (c) => c.toUpperCase());

export function mountTimeline(root: HTMLElement, { store, actions }: Ctx) {
  const selected = (s = store.get()) => {
    const session = s.session;
    const runs = session?.detail?.runs ?? [];
    return session?.timeline.threadId ?? runs[runs.length - 1]?.[0] ?? null;
  };

  function form(detail: SessionDetail, thread: string, point: ForkPoint, busy: boolean) {
    const draft = forkDraft(point);
    const model = configOf(detail)?.models.model ?? "";
    const pipelines = store.get().pipelines ?? [];
    const submit = (e: SubmitEvent) => {
      e.preventDefault();
      const f = e.target as HTMLFormElement;
      const v = (name: string) => (f.elements.namedItem(name) as HTMLInputElement | null)?.value ?? "";
      const fields: ForkFields = {
        questions: v("questions"), aspects: v("aspects"), searches: v("searches"), reading: v("reading"),
        model: v("model"), depth: v("depth"), rounds: v("rounds"), pipeline: v("pipeline"),
      };
      void actions.forkRun(thread, forkRequest(point.stage, fields, draft));
    };
    return html`<form class="fork-form" id="fork-form" @submit=${submit} aria-label=${`Re-run from ${stageWords(point.stage)}`}>
      ${point.stage === "plan" ? html`
        ${point.plan ? nothing : html`<p class="hint">This stage holds no plan to edit: type the questions and searches to run instead,
          or leave them empty to keep the run's plan.</p>`}
        <label class="block">Research questions, one a line<textarea id="fork-questions" name="questions" rows="4" .value=${draft.questions}></textarea></label>
        <label class="block">What the report covers, one aspect a line<textarea id="fork-aspects" name="aspects" rows="3" .value=${draft.aspects}></textarea></label>
        <label class="block">Searches, one a line<textarea id="fork-searches" name="searches" rows="4" .value=${draft.searches}></textarea></label>` : nothing}
      ${point.stage === "reading" ? html`
        <label class="block">How the question is to be read<textarea id="fork-reading" name="reading" rows="3" .value=${draft.reading}></textarea></label>` : nothing}
      <div class="fork-choices">
        <label>Model<input id="fork-model" name="model" placeholder=${model || "as before"} /></label>
        <label>Depth<select id="fork-depth" name="depth"><option value="">as before</option>${(store.get().choices?.depths ?? []).map((o) =>
          html`<option value=${o.value}>${o.label}</option>`)}</select></label>
        <label>Research rounds<input id="fork-rounds" name="rounds" type="number" min="1" step="1" placeholder="as before" /></label>
        <label>Pipeline<select id="fork-pipeline" name="pipeline"><option value="">as before</option>${pipelines.map((p) =>
          html`<option value=${p.name} title=${p.summary}>${p.title}</option>`)}</select></label>
      </div>
      <p class="hint">A new run in this session starts here with your changes; this run and its report stay as they are.</p>
      <div class="actions">
        <button id="fork-submit" class="primary" type="submit" ?disabled=${busy} aria-busy=${String(busy)}>Start the re-run</button>
        <button type="button" @click=${() => actions.openForkForm(null)}>Close</button>
      </div>
    </form>`;
  }

  store.watch((s) => [s.tab, s.session?.sessionId ?? null, s.session?.detail ?? null, s.session?.timeline ?? null, s.pipelines] as const,
    ([tab, , detail, timeline]) => {
      if (!detail || !timeline || !detail.runs.length) {
        render(nothing, root);
        return;
      }
      const thread = selected();
      if (tab === "method" && thread && timeline.threadId === null) {
        queueMicrotask(() => void actions.loadForkPoints(thread));
      }
      const points = timeline.threadId === thread ? timeline.points : null;
      render(html`<h2 id="timeline-title">Timeline</h2>
        <p class="muted">Each stage a run passed through, with what it held. <em>Re-run from here</em> starts a new run in this session from that stage.</p>
        ${detail.runs.length > 1 ? html`<label>Run <select id="timeline-run" @change=${(e: Event) => void actions.loadForkPoints((e.target as HTMLSelectElement).value)}>
          ${detail.runs.map(([t, q], i) => html`<option value=${t} ?selected=${t === thread}>Run ${i + 1}: ${q}</option>`)}</select></label>` : nothing}
        ${points === null ? html`<p class="muted">Reading the run's stages…</p>` : points.length === 0 && !timeline.error
          ? html`<p class="muted">This run has no stage to re-run from yet.</p>`
          : html`<ol class="fork-points">${points.map((p) => html`<li data-stage=${p.stage}>
            <div class="fork-point"><strong>${capital(stageWords(p.stage))}</strong><span class="holds">${p.holds}</span>
              <button class="rerun" data-stage=${p.stage} aria-expanded=${String(timeline.form === p.stage)}
                @click=${() => actions.openForkForm(timeline.form === p.stage ? null : p.stage)}>Re-run from here</button></div>
            ${timeline.form === p.stage ? form(detail, thread ?? "", p, timeline.busy) : nothing}</li>`)}</ol>`}
        ${timeline.error ? html`<p class="error" role="alert">${timeline.error}</p>` : nothing}`, root);
    }, shallow);
}
