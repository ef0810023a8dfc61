// The library: the user's folders, adding and re-indexing them with progress, removing them.
import { html, nothing, render } from "lit-html";
import { inside, setBar, setBusy } from "../dom";
import type { Ctx } from "./ctx";

export function mountLibrary(root: HTMLElement, { store, actions }: Ctx) {
  const $ = inside(root);
  const add = $<HTMLButtonElement>("library-add");
  const reindex = $<HTMLButtonElement>("library-reindex");
  add.addEventListener("click", () => void actions.indexLibrary("add"));
  reindex.addEventListener("click", () => void actions.indexLibrary("reindex"));

  store.watch((s) => s.library.folders, (folders) => {
    if (!folders) return;
    render(html`${folders.length ? nothing : html`<li class="empty">No folders yet.</li>`}${folders.map((f) => html`<li><span
      class="path">${f.path}</span><span class="count">${f.files} document${f.files === 1 ? "" : "s"}${f.failed ? `, ${f.failed} unreadable` : ""}</span><button
      class="danger" aria-label=${`Remove ${f.path}`} @click=${() => void actions.removeFolder(f.path)}>Remove</button></li>`)}`, $("library-folders"));
  });
  store.watch((s) => s.library.progress, (p) => {
    setBar($("library-bar"), p.percent, p.shown);
    $("library-status").textContent = p.status;
  });
  store.watch((s) => s.library.busy, (busy) => {
    setBusy(add, busy === "add");
    setBusy(reindex, busy === "reindex");
  });
}
