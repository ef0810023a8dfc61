// Compare: two configurations run on one question side by side, each side's live progress from
// its own channel, then the api's table of what each found and spent.
import { Channel } from "@tauri-apps/api/core";
import { api, humanError } from "../api";
import { sideWords } from "../compare";
import { applyEvent, emptyLive } from "../live";
import type { CompareScreen } from "../store";
import type { Event, ResearchRequest } from "../types";
import type { Base } from "./base";

export function compareActions({ store, show }: Base, refreshSessions: () => Promise<void>) {
  const setCompare = (change: (c: CompareScreen) => Partial<CompareScreen>, screen: CompareScreen) =>
    store.update((s) => (s.compare?.question === screen.question && s.compare.sides[0]?.live === screen.sides[0]?.live
      ? { compare: { ...s.compare, ...change(s.compare) } } : {}));

  /** Runs `a` and `b` on `question` side by side (the api approves their review points itself). */
  async function startCompare(question: string, a: ResearchRequest, b: ResearchRequest) {
    if (store.get().compare?.busy) {
      show("compare");
      return;
    }
    const title = (name: string) => store.get().pipelines?.find((p) => p.name === name)?.title ?? name;
    const requests = [a, b];
    const now = Date.now();
    const screen: CompareScreen = {
      question, busy: true, outcome: null, error: "",
      sides: requests.map((r, i) => ({ label: i ? "B" : "A", words: sideWords(r, title), steps: [], live: emptyLive(now), rev: 0 })),
    };
    store.set({ compare: screen });
    show("compare");
    const channels = requests.map((r, i) => {
      const channel = new Channel<Event>();
      let first = true;
      channel.onmessage = (event) => setCompare((c) => {
        // The comparison's session is in the list from its first event on.
        if (first) void refreshSessions();
        first = false;
        const sides = [...c.sides];
        const side = sides[i];
        applyEvent(side.live, event, Date.now(), r.config.models);
        sides[i] = { ...side, rev: side.rev + 1 };
        return { sides };
      }, screen);
      return channel;
    });
    // Each side's steps, for its graph.
    requests.forEach((r, i) => void api.graphOutline(r.pipeline, r.config.mode).then((outline) => setCompare((c) => {
      const sides = [...c.sides];
      sides[i].live.guide = { steps: outline.steps, roles: store.get().roles };
      sides[i] = { ...sides[i], steps: outline.steps };
      return { sides };
    }, screen)).catch(() => undefined));
    try {
      const outcome = await api.compareResearch({ question, a: { label: "A", request: a }, b: { label: "B", request: b } }, channels[0], channels[1]);
      setCompare(() => ({ busy: false, outcome }), screen);
    } catch (e) {
      setCompare(() => ({ busy: false, error: humanError(e) }), screen);
    }
    await refreshSessions();
  }

  return { startCompare };
}
