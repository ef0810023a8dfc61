// The library's folders and their indexing.
import { Channel } from "@tauri-apps/api/core";
import { api, humanError } from "../api";
import { progressText } from "../format";
import type { AppState, Progress } from "../store";
import type { EmbedProgress, IndexReport } from "../types";
import type { Base } from "./base";

export function libraryActions({ store, fail, show }: Base) {
  const setLibrary = (change: Partial<AppState["library"]>) => store.update((s) => ({ library: { ...s.library, ...change } }));
  const setLibraryProgress = (progress: Partial<Progress>) => store.update((s) => ({ library: { ...s.library, progress: { ...s.library.progress, ...progress } } }));

  async function refreshLibrary() {
    try {
      setLibrary({ folders: await api.libraryFolders(), meaning: await api.libraryMeaning() });
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
    /** Indexes the library by meaning (the sentence model), with progress; stopping keeps what was done. */
    async embedLibrary() {
      const channel = new Channel<EmbedProgress>();
      let finished = false;
      channel.onmessage = (p) => {
        if (finished) return;
        setLibraryProgress({ status: `Indexing by meaning… ${p.done} of ${p.total} passages`, percent: p.total ? (100 * p.done) / p.total : null });
      };
      setLibrary({ busy: "embed" });
      setLibraryProgress({ percent: 0, shown: 3, status: "Indexing by meaning…" });
      try {
        const done = await api.libraryEmbed(channel);
        finished = true;
        setLibraryProgress({ percent: 100, shown: undefined, status: `Done. ${done} passage${done === 1 ? "" : "s"} indexed by meaning.` });
        await refreshLibrary();
      } catch (e) {
        finished = true;
        setLibraryProgress({ status: humanError(e), percent: 0, shown: undefined });
      } finally {
        setLibrary({ busy: null });
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
