// *Keep current* on a session: its schedule (how often its cited sources are checked again, and
// whether a change sends the question to research again), when it runs next and what it last
// found; pause, resume or stop it, or set one up. The app runs due schedules while it is open;
// `research watch --run-due` runs them from cron when it is not.
import { html, nothing, render } from "lit-html";
import { inside } from "../dom";
import { shortDate } from "../format";
import { shallow } from "../store";
import type { Choice, ScheduleView } from "../types";
import type { Ctx } from "./ctx";

/** A schedule in words: "Checked again every day, and researched again when a source changes." */
export function scheduleWords(v: ScheduleView, intervals: readonly Choice[]): string {
  const every = intervals.find((i) => i.value === v.every)?.label ?? `every ${v.every}`;
  return `Checked again ${every}${v.research_again ? ", and researched again when a cited source changes or is gone" : ""}.`;
}

export function mountSchedule(root: HTMLElement, { store, actions }: Ctx) {
  const $ = inside(root);
  const button = $<HTMLButtonElement>("keep-current");
  const box = $("schedule-box");
  button.addEventListener("click", () => actions.openSchedule(!store.get().session?.schedule.open));

  store.watch((s) => [s.session?.schedule ?? null, s.session?.detail ?? null] as const, ([schedule, detail]) => {
    const hasReport = !!detail?.reports.length;
    button.disabled = !hasReport;
    button.textContent = schedule?.view ? (schedule.view.paused ? "Kept current (paused)" : "Kept current") : "Keep current";
    button.setAttribute("aria-expanded", String(schedule?.open ?? false));
    box.hidden = !schedule?.open;
    if (!schedule?.open) {
      render(nothing, box);
      return;
    }
    const v = schedule.view;
    // The intervals the api offers, with their words and its default.
    const offered = store.get().choices?.schedule_intervals ?? [];
    // An interval set elsewhere (`research watch --every 3d`) stays chosen, not silently changed.
    const intervals = v && !offered.some((i) => i.value === v.every)
      ? [...offered, { value: v.every, label: `every ${v.every}`, default: false }]
      : offered;
    const chosen = v?.every ?? intervals.find((i) => i.default)?.value;
    const save = (e: Event) => {
      e.preventDefault();
      const form = e.target as HTMLFormElement;
      const every = (form.elements.namedItem("every") as HTMLSelectElement).value;
      const again = (form.elements.namedItem("again") as HTMLInputElement).checked;
      void actions.watchSession(every, again);
    };
    render(html`<h2 id="schedule-title">Keep this session current</h2>
      ${v ? html`<p id="schedule-summary" role="status">${scheduleWords(v, intervals)}
          ${v.paused ? html`<strong>Paused.</strong>` : html`Next: ${shortDate(v.next_due_ms)}.`}</p>
        ${v.last_outcome ? html`<p class="muted">Last time (${v.last_run_ms ? shortDate(v.last_run_ms) : ""}): ${v.last_outcome}</p>` : nothing}` : html`<p class="muted">The sources this report cites are read again on a schedule; a sentence a changed source no longer supports is marked in a new report version. The app does it while it is open, and <code>research watch --run-due</code> from cron or a systemd timer when it is not.</p>`}
      <form id="schedule-form" @submit=${save}>
        <label>How often <select name="every">${intervals.map((i) => html`<option value=${i.value} ?selected=${chosen === i.value}>${i.label}</option>`)}</select></label>
        <label class="inline"><input type="checkbox" name="again" ?checked=${v?.research_again ?? false}> Research the question again when a cited source changes</label>
        ${schedule.error ? html`<p class="error" role="alert">${schedule.error}</p>` : nothing}
        <div class="actions">
          <button type="submit" class="primary" ?disabled=${schedule.busy}>${v ? "Save" : "Keep current"}</button>
          ${v ? html`<button type="button" id="schedule-pause" ?disabled=${schedule.busy} @click=${() => void actions.pauseSchedule(!v.paused)}>${v.paused ? "Resume" : "Pause"}</button>
            <button type="button" id="schedule-remove" class="danger" ?disabled=${schedule.busy} @click=${() => void actions.unwatchSession()}>Stop keeping current</button>` : nothing}
          <button type="button" @click=${() => actions.openSchedule(false)}>Close</button>
        </div>
      </form>`, box);
  }, shallow);
}
