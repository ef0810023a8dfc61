// A session's frame: its title and actions, the live view of its run, the tabs, the follow-up.
import { html, nothing, render } from "lit-html";
import { displayUrl, inside } from "../dom";
import { emptyLive, formatUsage } from "../live";
import { statusLine } from "../run";
import { runOf, shallow, TABS, type AppState, type RunPhase, type RunView, type SessionScreen } from "../store";
import type { ExportFormat } from "../types";
import type { Ctx } from "./ctx";

export function mountSession(root: HTMLElement, { store, actions }: Ctx) {
  const $ = inside(root);
  const title = $("session-title");

  // ---------- header ----------
  $("rename-session").addEventListener("click", () => actions.startRename());
  $("export-md").addEventListener("click", () => void actions.exportReport("md"));
  $("export-pdf").addEventListener("click", () => void actions.exportReport("pdf"));
  $("export-docx").addEventListener("click", () => void actions.exportReport("docx"));
  const exportAs = $<HTMLSelectElement>("export-as");
  exportAs.addEventListener("change", () => {
    const format = exportAs.value as ExportFormat;
    // A menu of actions, not a setting: it shows its prompt again once chosen.
    exportAs.value = "";
    if (format) void actions.exportReport(format);
  });
  $("export-session").addEventListener("click", () => void actions.exportSession());
  const styleSelect = $<HTMLSelectElement>("export-style");
  styleSelect.addEventListener("change", () => void actions.chooseCitationStyle(styleSelect.value));
  store.watch((s) => s.citationStyles, (styles) => {
    render(html`${(styles ?? []).map((c) => html`<option value=${c.id} ?selected=${c.chosen}>${c.name}</option>`)}`, styleSelect);
    const chosen = styles?.find((c) => c.chosen);
    if (chosen) styleSelect.value = chosen.id;
    styleSelect.hidden = !styles?.length;
  });
  $("delete-session").addEventListener("click", () => void actions.deleteSession());

  store.watch((s) => [s.session?.title ?? "", s.session?.renaming ?? false] as const, ([text, renaming]) => {
    if (!renaming) {
      render(text, title);
      return;
    }
    render(html`<input class="rename" aria-label="Session title" .value=${text}
      @keydown=${(e: KeyboardEvent) => {
        if (e.key === "Enter") void actions.finishRename((e.target as HTMLInputElement).value);
        if (e.key === "Escape") void actions.finishRename(null);
      }}
      @blur=${(e: FocusEvent) => void actions.finishRename((e.target as HTMLInputElement).value)} />`, title);
    const input = title.querySelector("input");
    input?.focus();
    input?.select();
  }, shallow);
  store.watch((s) => s.session?.meta ?? "", (meta) => ($("session-meta").textContent = meta));
  store.watch((s) => [Boolean(s.session?.detail?.reports.length), s.exporting] as const, ([hasReport, exporting]) => {
    for (const format of ["md", "pdf", "docx"] as const) {
      const button = $<HTMLButtonElement>(`export-${format}`);
      button.disabled = !hasReport || exporting === format;
      button.setAttribute("aria-busy", String(exporting === format));
    }
    exportAs.disabled = !hasReport || exporting !== null;
  }, shallow);

  // ---------- the live view ----------
  $("cancel").addEventListener("click", () => actions.cancelRun());
  $("resume").addEventListener("click", () => actions.resumeRun());
  $("answer-now").addEventListener("click", () => actions.ask());

  let frame = 0;
  let drawn: readonly [SessionScreen | null, RunPhase | null] = [null, null];
  const liveOf = (s: AppState) => [s.session, runOf(s, s.session?.threadId)] as const;
  const draw = () => {
    cancelAnimationFrame(frame);
    frame = 0;
    const [session, run] = liveOf(store.get());
    drawn = [session, run?.phase ?? null];
    drawLive(session, run);
  };
  // Events come fast: their changes are drawn at most once a frame; a new screen or phase at once.
  store.watch(liveOf, ([session, run]) => {
    if (session !== drawn[0] || (run?.phase ?? null) !== drawn[1]) draw();
    else if (!frame) frame = requestAnimationFrame(draw);
  }, shallow);

  function drawLive(session: SessionScreen | null, run: RunView | null) {
    $("live").hidden = !session?.live;
    if (!session) return;
    render(session.steps.map((step) => {
      const active = run?.live?.active.has(step.node) ?? false;
      const done = (run?.live?.done.has(step.node) ?? false) && !active;
      return html`<li title=${step.doing} data-node=${step.node} class=${[active ? "active" : "", done ? "done" : ""].filter(Boolean).join(" ") || nothing}
        aria-current=${active ? "step" : nothing}>${step.node.replace(/_/g, " ")}</li>`;
    }), $("graph"));
    // A run not started yet (the shell of a new one) says what the page says at first.
    const line = run ? statusLine(run) : { text: "Starting…", error: false };
    const status = $("run-status");
    status.textContent = line.text;
    status.classList.toggle("error", line.error);
    const cancel = $<HTMLButtonElement>("cancel");
    cancel.hidden = run?.phase !== "running";
    cancel.disabled = run?.cancelling ?? false;
    $("resume").hidden = !(run && ["paused", "failed"].includes(run.phase));
    $("answer-now").hidden = run?.phase !== "waiting";
    $("stuck").hidden = !(run?.phase === "running" && run.stuck);
    $("stuck").textContent = run?.stuck ?? "";
    const live = run?.live ?? emptyLive(0);
    $("usage").textContent = run?.live ? formatUsage(live.calls, live.tokens, live.costUsd) : "";
    render([...live.workers.values()].map((w) => html`<div class="worker ${w.done ? "done" : ""}"><span class="worker-name">Worker ${w.task + 1}</span><progress
      max="1" .value=${w.done ? 1 : Math.min(0.9, 0.15 + 0.25 * w.searches + 0.1 * w.pagesRead)} aria-label=${`Worker ${w.task + 1}`}></progress><span
      class="worker-activity">${w.activity}</span><span class="worker-question">${w.question}</span></div>`), $("workers"));
    // Retries and pages that could not be read: the run goes on, but the user should know.
    render(live.warnings.map((w) => html`<li>${w}</li>`), $("live-warnings"));
    $("live-warnings-count").textContent = String(live.warnings.length);
    $("live-warnings-box").hidden = live.warnings.length === 0;
    render(live.sources.map((s) => html`<li>${displayUrl(s.url)} — ${s.facts} fact${s.facts === 1 ? "" : "s"}</li>`), $("live-sources"));
    $("live-sources-count").textContent = String(live.sources.length);
  }

  // ---------- tabs ----------
  store.watch((s) => s.tab, (tab) => {
    for (const t of TABS) {
      $(`tab-${t}`).setAttribute("aria-selected", String(t === tab));
      $(`tab-${t}`).tabIndex = t === tab ? 0 : -1;
      $(`panel-${t}`).hidden = t !== tab;
    }
  });
  for (const t of TABS) {
    $(`tab-${t}`).addEventListener("click", () => actions.selectTab(t));
    // Tabs follow the ARIA pattern: arrow keys move between them.
    $(`tab-${t}`).addEventListener("keydown", (e) => {
      const step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
      if (!step) return;
      e.preventDefault();
      // Hidden tabs (Review, for runs without a reviewer) are skipped.
      const shown = TABS.filter((x) => !$(`tab-${x}`).hidden);
      const next = shown[(shown.indexOf(t) + step + shown.length) % shown.length];
      actions.selectTab(next);
      $(`tab-${next}`).focus();
    });
  }

  // ---------- follow-up ----------
  const followUp = $<HTMLInputElement>("follow-up");
  store.watch((s) => s.choices, (choices) => {
    if (choices) followUp.maxLength = choices.question_max_chars;
  });
  $("follow-up-form").addEventListener("submit", (e) => {
    e.preventDefault();
    void actions.askFollowUp(followUp.value.trim()).then((asked) => {
      if (asked) followUp.value = "";
    });
  });
}
