// Settings: models (a GGUF file, a download, a test), search and trust lists, API keys, providers.
import { html, nothing, render } from "lit-html";
import { fixWords } from "../api";
import { formatBytes } from "../download";
import { inside, setBar, setBusy } from "../dom";
import { shallow } from "../store";
import type { BackupStatus, ModelMeasurement, SettingKey, Settings } from "../types";
import type { Ctx } from "./ctx";

const OTHER_MODEL = "other";

/** A setting as its field shows it (`setting`: the api's word on its key). */
/** What Settings says of the backups: the newest, how many, and where. */
export function backupWords(b: BackupStatus): string {
  const count = `${b.count} backup${b.count === 1 ? "" : "s"} in ${b.folder}`;
  if (!b.newest) {
    return b.rotation.daily > 0
      ? `No backup yet: the app takes one today while it is open. Backups go to ${b.folder}.`
      : `No backup yet, and the app takes none (backups kept: off). Backups go to ${b.folder}.`;
  }
  const when = new Date(b.newest.taken_at_ms).toLocaleString();
  const pending = b.pending ? ` A restore of ${b.pending.from} is waiting for the app to start again.` : "";
  return `Last backup: ${when} (${formatBytes(b.newest.bytes)}) — ${count}.${pending}`;
}


/** Where a model's measurement comes from, in words. */
export function measuredOrigin(m: ModelMeasurement): string {
  const yours = `${m.your_runs} of your runs`;
  if (!m.builtin) return yours;
  return m.your_runs ? `built-in measurement and ${yours}` : "built-in measurement";
}

/** What a model did, in words: facts, drafts, verdicts (what it was asked for). */
export function measuredWork(m: ModelMeasurement): string {
  const w = m.measured.work;
  const parts: string[] = [];
  if (w.facts) parts.push(`${w.own_words} of ${w.facts} facts were its quotes' words`);
  if (w.drafts) parts.push(`the checks refused ${w.refused} of ${w.drafts} drafts`);
  if (w.verdicts_asked) parts.push(`a verdict on ${w.verdicts_given} of ${w.verdicts_asked} claims`);
  return parts.length ? parts.join("; ") : "nothing measured yet";
}

/** The measured models' rows. */
export const measuredRows = (ms: ModelMeasurement[]) => ms.length
  ? ms.map((m) => html`<tr>
      <td><strong>${m.model}</strong><br /><span class="muted">${measuredOrigin(m)}</span></td>
      <td>${measuredWork(m)}</td>
      <td>${m.tokens_per_second === null ? "—" : `${m.tokens_per_second.toFixed(1)} tokens/s`}</td>
      <td>${m.decisions.length ? html`<ul class="decisions">${m.decisions.map((d) => html`<li>${d}</li>`)}</ul>` : "everything"}</td>
    </tr>`)
  : html`<tr><td colspan="4" class="muted">No model has been measured yet.</td></tr>`;

export function settingText(s: Settings, setting: SettingKey): string {
  const v = (s as Record<string, unknown>)[setting.key];
  // An empty list is a choice ("none"); an absent one is the built-in list (the placeholder).
  if (Array.isArray(v)) return v.length || !setting.builtin_default ? v.join(", ") : "none";
  return typeof v === "string" ? v : "";
}

const KEY_SOURCE_WORDS = { keychain: "keychain", session: "until you quit", environment: "environment", missing: "" } as const;

export function mountSettings(root: HTMLElement, { store, actions }: Ctx) {
  const $ = inside(root);

  // The api's setting keys that this page has a field for (`set-<key>`).
  const fields = (): { setting: SettingKey; input: HTMLInputElement }[] =>
    (store.get().choices?.settings ?? []).flatMap((setting) => {
      const input = root.querySelector<HTMLInputElement>(`#${CSS.escape(`set-${setting.key}`)}`);
      return input ? [{ setting, input }] : [];
    });
  // Bound once, when the keys are known.
  const stopBinding = store.watch((s) => s.choices, (choices) => {
    if (!choices) return;
    for (const { setting, input } of fields()) input.addEventListener("change", () => void actions.saveSetting(setting.key, input.value));
    queueMicrotask(() => stopBinding());
  });
  store.watch((s) => [s.settings, s.choices] as const, ([s]) => {
    if (s) for (const { setting, input } of fields()) input.value = settingText(s, setting);
  }, shallow);
  store.watch((s) => s.info, (info) => {
    if (!info) return;
    if (!info.keychain.available) $("keys-help").textContent = "No system keychain: keys entered here last until you quit.";
    $("log-dir").textContent = `Logs: ${info.log_dir} · Sessions and runs: ${info.storage || info.db_path} · Version ${info.version}`;
  });

  // ---------- backups ----------
  $("back-up-now").addEventListener("click", () => void actions.backUpNow());
  $("restore-backup").addEventListener("click", () => void actions.restoreBackup());
  $("check-database").addEventListener("click", () => void actions.checkDatabase());
  store.watch((s) => s.backups, (b) => {
    if (!b) return;
    $("backup-status").textContent = backupWords(b);
  });

  // ---------- what the models did ----------
  store.watch((s) => s.measurements, (ms) => {
    if (ms) render(measuredRows(ms), $("measured-body"));
  });

  // ---------- the default model ----------
  $("choose-gguf").addEventListener("click", () => void actions.chooseGguf());
  $("test-model").addEventListener("click", () => void actions.testDefaultModel());
  store.watch((s) => s.testModel, (t) => {
    const out = $("test-model-result");
    out.textContent = t.text;
    if (t.ok !== null) out.className = `result ${t.ok ? "ok" : "error"}`;
  });

  // ---------- model download ----------
  const choice = $<HTMLSelectElement>("model-choice");
  const describe = () => {
    const id = choice.value;
    const m = store.get().models?.find((x) => x.id === id);
    $("model-url").hidden = id !== OTHER_MODEL;
    $("model-note").textContent = m ? `${m.note} Licence: ${m.license}.` : "Paste a direct link to a GGUF file, e.g. from a Hugging Face “resolve” URL.";
  };
  choice.addEventListener("change", describe);
  store.watch((s) => s.models, (models) => {
    if (!models) return;
    render(html`${models.map((m) => html`<option value=${m.id}>${m.name} — about ${formatBytes(m.approx_bytes)}</option>`)}<option
      value=${OTHER_MODEL}>Another model (a direct link to a .gguf file)</option>`, choice);
    describe();
  });
  $("download-model").addEventListener("click", () => {
    const id = choice.value;
    const url = id === OTHER_MODEL ? $<HTMLInputElement>("model-url").value.trim() : store.get().models?.find((m) => m.id === id)?.url ?? "";
    void actions.downloadModel(url);
  });
  $("cancel-download").addEventListener("click", () => actions.cancelDownload());
  store.watch((s) => s.download, (d) => {
    $<HTMLButtonElement>("download-model").disabled = d.busy;
    $("cancel-download").hidden = !d.busy;
    $("download-progress").hidden = !d.shownBox;
    const status = $("download-status");
    status.textContent = d.status;
    status.classList.toggle("error", d.error);
    setBar($("download-bar"), d.percent, d.shown);
  });
  store.watch((s) => s.focus, (focus) => {
    if (focus?.target !== "download") return;
    $("download-title").scrollIntoView();
    choice.focus();
  });

  // ---------- API keys ----------
  store.watch((s) => s.keys, (keys) => {
    if (!keys) return;
    render(keys.map((k) => html`<tr><td>${k.provider}</td><td class="masked">${k.masked ? `${k.masked} (${KEY_SOURCE_WORDS[k.source]})` : "not set"}</td>
      <td><input type="password" autocomplete="off" placeholder="paste a new key" aria-label=${`New key for ${k.provider}`} /></td>
      <td><button aria-label=${`Save the key for ${k.provider}`} @click=${(e: MouseEvent) => {
        const input = (e.currentTarget as HTMLElement).closest("tr")?.querySelector("input");
        const key = input?.value.trim();
        if (input && key) void actions.saveKey(k.provider, key, () => (input.value = ""));
      }}>Save</button><button class="danger" aria-label=${`Delete the key for ${k.provider}`} ?disabled=${k.source !== "keychain" && k.source !== "session"}
        @click=${() => void actions.deleteKey(k.provider)}>Delete</button></td></tr>`), $("keys-body"));
  });

  // ---------- providers ----------
  store.watch((s) => [s.providers, s.providerTests] as const, ([providers, tests]) => {
    const ul = $("providers");
    if (!providers) return;
    if (providers.state !== "ready") {
      render(html`<li>${providers.state === "checking" ? "Checking…" : providers.message}</li>`, ul);
      return;
    }
    render(providers.list.map((p) => {
      const test = tests[p.name];
      return html`<li class=${p.ready ? "ready" : nothing}><span class="name">${p.name} (${p.kind})</span><span
        class="detail">${p.fix ? `${p.detail}. ${fixWords(p.fix)}` : p.detail}</span><button aria-label=${`Test ${p.name}`} @click=${async (e: MouseEvent) => {
          const button = e.currentTarget as HTMLButtonElement;
          setBusy(button, true);
          try {
            await actions.testProvider(p);
          } finally {
            setBusy(button, false);
          }
        }}>Test connection</button><span class="result ${test?.ok == null ? "" : test.ok ? "ok" : "error"}">${test?.text ?? ""}</span></li>`;
    }), ul);
 }, shallow);
}
