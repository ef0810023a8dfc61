// Settings, preferences, API keys, providers and the model download.
import { Channel } from "@tauri-apps/api/core";
import { api, fixWords, humanError } from "../api";
import { downloadPercent, downloadText, formatBytes } from "../download";
import type { AppState, FocusTarget } from "../store";
import type { DownloadProgress, Preferences, ProviderStatus, Settings } from "../types";
import type { Base } from "./base";

/** The small model the api tests a cloud provider's key with before any model of it is chosen. */
export function probeModel(state: Pick<AppState, "choices">, provider: string): string | null {
  return state.choices?.probe_models.find((p) => p.provider === provider)?.model ?? null;
}

export function settingsActions({ store, toast, fail, show }: Base) {
  /** New settings: the form's model starts from the default model when it has none. */
  function fillSettings(settings: Settings) {
    const form = store.get().form;
    store.set({ settings, ...(!form.model && settings.default_model ? { form: { ...form, model: settings.default_model } } : {}) });
  }

  function setFormModel(model: string) {
    store.update((s) => ({ form: { ...s.form, model } }));
  }

  async function saveSetting(key: string, value: string) {
    try {
      fillSettings(await api.setSetting(key, value));
      toast("Saved.", "info");
    } catch (e) {
      fail(e);
      // The fields show the settings as they are again.
      const settings = store.get().settings;
      if (settings) store.set({ settings: { ...settings } });
    }
  }

  /** Makes `spec` the default model and the form's model. */
  async function useModel(spec: string) {
    await saveSetting("default_model", spec);
    setFormModel(spec);
  }

  async function savePreferences(change: Partial<Preferences>) {
    const prefs = { ...store.get().prefs, ...change };
    store.set({ prefs });
    // Remembering is a convenience: a failure is logged, never in the user's way.
    await api.savePreferences(prefs).catch((e) => console.warn(humanError(e)));
  }

  async function refreshKeys() {
    try {
      store.set({ keys: await api.listKeys() });
    } catch (e) {
      fail(e);
    }
  }

  async function refreshProviders() {
    store.set({ providers: { state: "checking" }, providerTests: {} });
    try {
      store.set({ providers: { state: "ready", list: await api.providerStatus() } });
    } catch (e) {
      store.set({ providers: { state: "error", message: humanError(e) } });
    }
  }

  /** The model of `provider` the settings or the form name, if any. */
  function modelFor(provider: string): string | null {
    const { settings, form } = store.get();
    const candidates = [settings?.default_model, settings?.fast_model, form.model];
    return candidates.find((m) => m && m.split(":")[0] === provider) ?? null;
  }

  async function openSettings(focusOn?: FocusTarget) {
    show("settings", focusOn);
    try {
      fillSettings(await api.getSettings());
    } catch (e) {
      fail(e);
    }
    await refreshKeys();
    void fillModelChoice();
    void refreshProviders();
    void refreshBackups();
    void refreshMeasurements();
  }

  async function refreshMeasurements() {
    try {
      store.set({ measurements: await api.modelMeasurements() });
    } catch (e) {
      fail(e);
    }
  }

  async function refreshBackups() {
    try {
      store.set({ backups: await api.backupStatus() });
    } catch (e) {
      fail(e);
    }
  }

  async function fillModelChoice() {
    if (store.get().models) return;
    try {
      store.set({ models: await api.recommendedModels() });
    } catch (e) {
      fail(e);
      store.set({ models: [] });
    }
  }

  async function chooseGguf(): Promise<boolean> {
    try {
      const spec = await api.chooseModelFile();
      if (!spec) return false;
      await useModel(spec);
      return true;
    } catch (e) {
      fail(e);
      return false;
    }
  }

  const setDownload = (change: Partial<AppState["download"]>) => store.update((s) => ({ download: { ...s.download, ...change } }));

  return {
    setFormModel,
    openSettings,
    fillSettings,
    /** Checks the whole database (SQLite's integrity check) and says what it found. */
    async checkDatabase() {
      try {
        const problems = await api.checkDatabase();
        if (problems.length) toast(`SQLite's full check found the database damaged (${problems.join("; ")}). Export the sessions you need, then Restore a backup… here.`);
        else toast("Checked the whole database: sound.", "info");
      } catch (e) {
        fail(e);
      }
    },
    /** Restores a backup the person picks: the app confirms natively and restarts to put it in place. */
    async restoreBackup() {
      try {
        await api.restoreBackup();
      } catch (e) {
        fail(e);
      }
    },
    /** Backs up now, then shows the backups as they are. */
    async backUpNow() {
      try {
        store.set({ backups: await api.backUpNow() });
        toast("Backed up.", "info");
      } catch (e) {
        fail(e);
      }
    },
    saveSetting,
    savePreferences,
    chooseGguf,
    useModel,
    async saveKey(provider: string, key: string, saved: () => void) {
      try {
        await api.setKey(provider, key);
        saved();
        // A first cloud key with no model chosen yet: start from that provider's small model.
        const probe = probeModel(store.get(), provider);
        const chosen = probe && !store.get().settings?.default_model ? probe : null;
        if (chosen) await useModel(chosen);
        const where = store.get().info?.keychain.available === false
          ? `The key for ${provider} is kept until you quit (no system keychain).`
          : `The key for ${provider} is saved in the system keychain.`;
        toast(chosen ? `${where} The default model is now ${chosen}; change it above.` : where, "info");
        await refreshKeys();
        await refreshProviders();
      } catch (e) {
        fail(e);
      }
    },
    async deleteKey(provider: string) {
      try {
        if (!(await api.confirmDeleteKey(provider))) return;
        await api.deleteKey(provider);
        await refreshKeys();
        await refreshProviders();
      } catch (e) {
        fail(e);
      }
    },
    async testProvider(p: ProviderStatus) {
      const result = (text: string, ok: boolean | null) => store.update((s) => ({ providerTests: { ...s.providerTests, [p.name]: { text, ok } } }));
      const target = p.kind === "model" ? modelFor(p.name) ?? probeModel(store.get(), p.name) : p.name;
      if (!target) {
        result(p.name === "ollama"
          ? "Choose an Ollama model you have pulled (e.g. ollama:qwen2.5:7b) as the default model, then test it."
          : "Set a model of this provider as the default model first, then test it.", store.get().providerTests[p.name]?.ok ?? null);
        return;
      }
      try {
        const r = await api.testConnection(target);
        result(`${r.ok ? "✓" : "✗"} ${r.detail} (${r.latency_ms} ms)${r.fix ? ` ${fixWords(r.fix)}` : ""}`, r.ok);
      } catch (e) {
        result(humanError(e), store.get().providerTests[p.name]?.ok ?? null);
      }
    },
    async testDefaultModel() {
      const model = store.get().settings?.default_model;
      if (!model) {
        store.update((s) => ({ testModel: { ...s.testModel, text: "Set a default model first." } }));
        return;
      }
      store.update((s) => ({ testModel: { ...s.testModel, text: "Testing…" } }));
      const r = await api.testConnection(model).catch((e) => ({ ok: false, detail: humanError(e), latency_ms: 0 }));
      store.set({ testModel: { text: `${r.ok ? "✓" : "✗"} ${r.detail}`, ok: r.ok } });
    },
    async downloadModel(url: string) {
      if (!url) {
        toast("Paste the link to a .gguf file first.");
        return;
      }
      const channel = new Channel<DownloadProgress>();
      // Late progress messages must not write over the outcome.
      let finished = false;
      channel.onmessage = (p) => {
        if (finished) return;
        setDownload({ status: downloadText(p), percent: downloadPercent(p), shown: undefined });
      };
      setDownload({ busy: true, shownBox: true, status: "Connecting…", error: false, percent: 0, shown: undefined });
      try {
        const done = await api.downloadModel(url, channel);
        finished = true;
        setDownload({ percent: 100 });
        await useModel(done.spec);
        setDownload({ status: `Downloaded ${formatBytes(done.bytes)}${done.hash_checked ? ", checksum verified" : ""}; it is now the default model.` });
      } catch (e) {
        finished = true;
        setDownload({ status: humanError(e), error: true });
      } finally {
        setDownload({ busy: false });
      }
    },
    cancelDownload: () => void api.cancelDownload(),
    refreshKeys,
    refreshProviders,
  };
}
