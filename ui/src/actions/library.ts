// The library's folders and their indexing.
import { Channel } from "@tauri-apps/api/core";
import { api, humanError } from "../api";
import { progressText } from "../format";
import type { AppState, Progress } from "../store";
import type { IndexReport } from "../types";
import type { Base } from "./base";

export function libraryActions({ store, fail, show }: Base) {
  const setLibrary = (change: Partial<AppState["library"]>) => store.update((s) => ({ library: { ...s.library, ...change } }));
  const setLibraryProgress = (progress: Partial<Progress>) => store.update((s) => ({ library: { ...s.library, progress: { ...s.library.progress, ...progress } } }));

  async function refreshLibrary() {
    try {
      setLibrary({ folders: await api.libraryFolders() });
    } catch (e) {
      fail(e);
    }
  }

  return {
    async openLibrary() {
      show("library");
      await refreshLibrary();
    },
    refreshLibrary,
    async removeFolder(path: string) {
      try {
        if (await api.libraryRemove(path)) await refreshLibrary();
      } catch (e) {
        fail(e);
      }
    },
    async indexLibrary(which: "add" | "reindex") {
      const channel = new Channel<IndexReport>();
      // A channel's last messages can arrive after the command has returned: they must not write
      // "Indexing…" over the result.
      let finished = false;
      channel.onmessage = (r) => {
        if (finished) return;
        setLibraryProgress({ status: `Indexing… ${progressText(r)}`, percent: r.total ? (100 * r.scanned) / r.total : null, shown: r.total ? undefined : 3 });
      };
      setLibrary({ busy: which });
      setLibraryProgress({ percent: 0, shown: 3 });
      try {
        const report = which === "add" ? await api.libraryAdd(channel) : await api.libraryReindex(channel);
        finished = true;
        setLibraryProgress({ percent: report ? 100 : 0, shown: undefined, status: report ? `Done. ${progressText(report)}` : "" });
        await refreshLibrary();
      } catch (e) {
        finished = true;
        setLibraryProgress({ status: humanError(e), percent: 0, shown: undefined });
      } finally {
        setLibrary({ busy: null });
      }
    },

  };
}
