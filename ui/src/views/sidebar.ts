// The sidebar: New research, the searchable list of sessions, Library and Settings.
import { html, nothing, render } from "lit-html";
import { inside } from "../dom";
import { statusBadge } from "../format";
import { isRunning, shallow } from "../store";
import { checkedWords } from "../trust";
import type { Ctx } from "./ctx";

export function mountSidebar(root: HTMLElement, { store, actions }: Ctx) {
  const $ = inside(root);
  const list = $("sessions");
  const search = $<HTMLInputElement>("session-search");
  let searchTimer = 0;

  $("new-research").addEventListener("click", () => actions.show("new", "question"));
  search.addEventListener("input", () => {
    actions.setSessionFilter(search.value);
    window.clearTimeout(searchTimer);
    searchTimer = window.setTimeout(() => void actions.refreshSessions(), 150);
  });
  $("open-library").addEventListener("click", () => void actions.openLibrary());
  $("open-settings").addEventListener("click", () => void actions.openSettings());
  $("open-check").addEventListener("click", () => void actions.openCheck());
  $("import-session").addEventListener("click", () => void actions.importSession());

  store.watch(
    (s) => [s.sessions, s.session?.sessionId ?? null, isRunning(s, s.session?.threadId)] as const,
    ([sessions, current, runningNow]) => {
      if (!sessions) return;
      render(html`
        ${sessions.list.length ? nothing : html`<li class="empty">${sessions.filter ? "No session matches." : "No sessions yet."}</li>`}
        ${sessions.list.map((s) => {
          const status = statusBadge(s.status, runningNow && current === s.id);
          return html`<li data-session=${s.id} data-status=${s.status} class=${current === s.id ? "current" : nothing}>
            <button class="session-link" title=${s.question} @click=${() => void actions.openSession(s.id)}><span
              class="session-title">${s.title}</span><span class="badge ${status ? "on" : ""}">${status}</span>${s.checked_at_ms
              ? html`<span class="checked" title=${new Date(s.checked_at_ms).toLocaleString()}>${checkedWords(s.checked_at_ms)}</span>` : nothing}</button></li>`;
        })}`, list);
    },
    shallow,
  );
}
