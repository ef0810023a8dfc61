// *Check a document*: the document and its sources as the person gives them, and the checker's
// findings. The rules (what a status means, what is refused) are the api's.
import { api, humanError } from "../api";
import { noCheck, type CheckScreen } from "../store";
import type { Base } from "./base";

/** The number the next source added by hand gets: one past the highest so far. */
export function nextSourceId(sources: readonly { id: number }[]): number {
  return sources.reduce((n, s) => Math.max(n, s.id), 0) + 1;
}

export function checkActions({ store, fail, show }: Base) {
  const setCheck = (change: Partial<CheckScreen>) => store.update((s) => ({ check: { ...s.check, ...change } }));
  // A finding is about the document and sources it was made from: any change clears it.
  const edit = (change: Partial<CheckScreen>) => setCheck({ ...change, result: null, error: "" });

  async function refreshSessionsForCheck() {
    if (store.get().sessions) return;
    try {
      store.set({ sessions: { list: await api.listSessions(null), filter: "" } });
    } catch (e) {
      fail(e);
    }
  }

  return {
    async openCheck() {
      show("check");
      await refreshSessionsForCheck();
    },
    async chooseCheckDocument() {
      try {
        const chosen = await api.chooseCheckDocument();
        if (chosen) edit({ text: chosen.text, path: chosen.path });
      } catch (e) {
        setCheck({ error: humanError(e) });
      }
    },
    setCheckText(text: string) {
      if (text !== store.get().check.text) edit({ text, path: "" });
    },
    setCheckSession(session: string | null) {
      edit({ session });
    },
    async addCheckSourceFile() {
      try {
        const path = await api.chooseCheckSource();
        if (path) edit({ sources: [...store.get().check.sources, { id: nextSourceId(store.get().check.sources), location: path }] });
      } catch (e) {
        setCheck({ error: humanError(e) });
      }
    },
    /** Adds `url` as the next source; `false` (and a message) when it is not a web address. */
    addCheckSourceUrl(url: string): boolean {
      const trimmed = url.trim();
      if (!/^https?:\/\/\S+$/i.test(trimmed)) {
        setCheck({ error: "A source's address starts with http:// or https://." });
        return false;
      }
      edit({ sources: [...store.get().check.sources, { id: nextSourceId(store.get().check.sources), location: trimmed }] });
      return true;
    },
    removeCheckSource(id: number) {
      edit({ sources: store.get().check.sources.filter((s) => s.id !== id) });
    },
    clearCheck() {
      store.set({ check: noCheck });
    },
    async runCheck() {
      const c = store.get().check;
      if (!c.text.trim()) {
        setCheck({ error: "Open a Markdown file or paste the text to check first." });
        return;
      }
      setCheck({ busy: true, error: "", result: null });
      try {
        const result = await api.checkDocument({ document: c.text, sources: c.session ? [] : c.sources, session: c.session ?? undefined });
        // The document or its sources changed while it was checked: that finding is stale.
        const now = store.get().check;
        if (now.text === c.text && now.sources === c.sources && now.session === c.session) setCheck({ result });
      } catch (e) {
        setCheck({ error: humanError(e) });
      } finally {
        setCheck({ busy: false });
      }
    },
  };
}
