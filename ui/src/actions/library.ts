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

  /**
   * Runs one of the library's long commands with its progress channel: `busy` while it runs, each
   * message drawn by `step`, the result by `done`, an error in words.
   */
  async function withProgress<P, R>(
    busy: NonNullable<AppState["library"]["busy"]>,
    starting: string,
    step: (p: P) => Partial<Progress>,
    run: (channel: Channel<P>) => Promise<R>,
    done: (result: R) => Partial<Progress>,
  ) {
    const channel = new Channel<P>();
    // A channel's last messages can arrive after the command has returned: they must not write
    // "Indexing…" over the result.
    let finished = false;
    channel.onmessage = (p) => {
      if (!finished) setLibraryProgress(step(p));
    };
    setLibrary({ busy });
    setLibraryProgress({ percent: 0, shown: 3, status: starting });
    try {
      const result = await run(channel);
      finished = true;
      setLibraryProgress({ shown: undefined, ...done(result) });
      await refreshLibrary();
    } catch (e) {
      finished = true;
      setLibraryProgress({ status: humanError(e), percent: 0, shown: undefined });
    } finally {
      setLibrary({ busy: null });
    }
  }

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
    embedLibrary: () =>
      withProgress<EmbedProgress, number>(
        "embed",
        "Indexing by meaning…",
        (p) => ({ status: `Indexing by meaning… ${p.done} of ${p.total} passages`, percent: p.total ? (100 * p.done) / p.total : null }),
        (channel) => api.libraryEmbed(channel),
        (done) => ({ percent: 100, status: `Done. ${done} passage${done === 1 ? "" : "s"} indexed by meaning.` }),
      ),
    indexLibrary: (which: "add" | "reindex") =>
      withProgress<IndexReport, IndexReport | null>(
        which,
        // Adding opens the folder picker first: nothing is indexed until a folder is chosen.
        which === "add" ? "" : "Indexing…",
        (r) => ({ status: `Indexing… ${progressText(r)}`, percent: r.total ? (100 * r.scanned) / r.total : null, shown: r.total ? undefined : 3 }),
        (channel) => (which === "add" ? api.libraryAdd(channel) : api.libraryReindex(channel)),
        (report) => ({ percent: report ? 100 : 0, status: report ? `Done. ${progressText(report)}` : "" }),
      ),
  };
}
