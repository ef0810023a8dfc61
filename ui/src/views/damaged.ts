// The window when the database could not be opened (a damaged file, or one a newer build wrote):
// what is wrong, that nothing was written, and the way back — the newest backup, restored after
// a native confirmation that says what it replaces.
import { html, render } from "lit-html";
import { fixWords } from "../api";
import { salvageWords } from "../format";
import { inside } from "../dom";
import type { Ctx } from "./ctx";

export function mountDamaged(root: HTMLElement, { store, actions }: Ctx) {
  const $ = inside(root);
  store.watch((s) => s.databaseProblem, (problem) => {
    if (!problem) return;
    const message = problem.message.charAt(0).toUpperCase() + problem.message.slice(1);
    $("damaged-message").textContent = /[.!?]$/.test(message) ? message : `${message}.`;
    const fix = problem.fix;
    const backup = fix?.place === "restore_backup" ? fix.backup : null;
    const salvage = html`<p>Save the sessions the file still holds first, each to a session file that Import session
        brings back (sessions made since the backup are not in it).</p>
      <button id="damaged-salvage" @click=${() => void actions.salvageSessions()}>Save the sessions it still holds…</button>
      <p id="damaged-salvaged" role="status"></p>`;
    render(backup
      ? html`<p>The newest backup is <code class="path">${backup}</code>. Restoring it puts it in place of the
          file, which is kept beside it under a new name.</p>
        ${salvage}
        <button id="damaged-restore" class="primary" @click=${() => void actions.restoreNewestBackup()}>Restore the newest backup…</button>`
      : fix?.place === "restore_backup"
        ? html`<p>No backup was found beside the database. Restore one you kept with <code>research restore FILE</code>,
            or move the file away to start afresh, then open the app again.</p>${salvage}`
        // Not the file itself (a folder that cannot be written, say): what the api says to do.
        : html`<p>${fixWords(fix) || "Put that right, then open the app again."}</p>`, $("damaged-actions"));
  });
  store.watch((s) => s.salvage, (salvage) => {
    const out = root.querySelector("#damaged-salvaged");
    if (salvage && out) out.textContent = salvageWords(salvage);
  });
}
