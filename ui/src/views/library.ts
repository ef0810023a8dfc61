// The library: the user's folders, adding and re-indexing them with progress, removing them.
import { html, nothing, render } from "lit-html";
import { inside, setBar, setBusy } from "../dom";
import { shallow } from "../store";
import type { LibraryMeaning } from "../types";
import { formatBytes } from "../download";
import type { Ctx } from "./ctx";

export function mountLibrary(root: HTMLElement, { store, actions }: Ctx) {
  const $ = inside(root);
  const add = $<HTMLButtonElement>("library-add");
  const reindex = $<HTMLButtonElement>("library-reindex");
  const importer = $<HTMLButtonElement>("library-import");
  const embed = $<HTMLButtonElement>("library-embed");
  const stop = $<HTMLButtonElement>("library-embed-stop");
  const model = $<HTMLButtonElement>("library-model");
  const modelStop = $<HTMLButtonElement>("library-model-stop");
  model.addEventListener("click", () => void actions.installSentenceModel());
  modelStop.addEventListener("click", () => void actions.stopDownload());
  embed.addEventListener("click", () => void actions.embedLibrary());
  stop.addEventListener("click", () => void actions.stopEmbedding());
  add.addEventListener("click", () => void actions.indexLibrary("add"));
  reindex.addEventListener("click", () => void actions.indexLibrary("reindex"));
  importer.addEventListener("click", () => void actions.indexLibrary("import"));

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
    setBusy(importer, busy === "import");
  });
  // One place decides the button: busy while it runs, off when there is nothing it can do.
  store.watch((s) => [s.library.busy, s.library.offer] as const, ([busy, offer]) => {
    model.hidden = !offer || offer.installed || busy === "model";
    modelStop.hidden = busy !== "model";
    if (offer) model.textContent = `Download the sentence model (${formatBytes(offer.bytes)})`;
  }, shallow);
  store.watch((s) => [s.library.busy, s.library.meaning] as const, ([busy, m]) => {
    setBusy(embed, busy === "embed");
    embed.disabled = busy === "embed" || !m?.due;
    embed.hidden = busy === "embed";
    stop.hidden = busy !== "embed";
    $("library-meaning").textContent = meaningWords(m);
  }, shallow);
}

/** How far the library is indexed by meaning, in words. */
export function meaningWords(m: LibraryMeaning | null): string {
  if (!m) return "";
  if (!m.installed) return "Searched by keywords: no sentence model is installed. Download it to search by meaning too.";
  if (!m.passages) return "";
  if (!m.vectors) return `Searched by keywords until the library is indexed by meaning, which finds passages that say the same in other words (${m.passages} passages; a few minutes per thousand on this computer, in the background).`;
  if (m.vectors >= m.passages) return `Searched by keywords and meaning: all ${m.passages} passages are indexed by meaning.`;
  return `Searched by keywords and meaning: ${m.vectors} of ${m.passages} passages are indexed by meaning; index the rest to include them.`;
}
