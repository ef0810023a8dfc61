import { describe, expect, it } from "vitest";
import { createStore, initialState, isRunning, noCalls, noDraftCheck, noRecheck, noSchedule, noTimeline, runOf, shallow, updateSession, type RunView } from "./store";

describe("store", () => {
  it("gets, sets and updates one state object", () => {
    const store = createStore({ a: 1, b: "x" });
    store.set({ a: 2 });
    expect(store.get()).toEqual({ a: 2, b: "x" });
    store.update((s) => ({ b: s.b + s.a }));
    expect(store.get()).toEqual({ a: 2, b: "x2" });
  });

  it("tells subscribers of every change until they unsubscribe", () => {
    const store = createStore({ n: 0 });
    const seen: number[] = [];
    const stop = store.subscribe((s) => seen.push(s.n));
    store.set({ n: 1 });
    store.set({ n: 2 });
    stop();
    store.set({ n: 3 });
    expect(seen).toEqual([1, 2]);
  });

  it("watches a selected value: now, and only when it changes", () => {
    const store = createStore({ view: "new", n: 0 });
    const views: string[] = [];
    store.watch((s) => s.view, (v) => views.push(v));
    store.set({ n: 1 });
    store.set({ view: "session" });
    store.set({ view: "session", n: 2 });
    expect(views).toEqual(["new", "session"]);
  });

  it("compares tuples field by field with shallow", () => {
    const store = createStore({ a: 1, b: 2, c: 3 });
    let calls = 0;
    store.watch((s) => [s.a, s.b] as const, () => calls++, shallow);
    store.set({ c: 4 });
    expect(calls).toBe(1);
    store.set({ b: 5 });
    expect(calls).toBe(2);
    expect(shallow({ x: 1 }, { x: 1 })).toBe(true);
    expect(shallow({ x: 1 }, { x: 1, y: 2 })).toBe(false);
    expect(shallow([1], { 0: 1 })).toBe(false);
  });

  it("lets a listener change the state again: later listeners see the newest", () => {
    const store = createStore({ n: 0, doubled: 0 });
    store.subscribe((s) => {
      if (s.doubled !== s.n * 2) store.set({ doubled: s.n * 2 });
    });
    const last: number[] = [];
    store.subscribe(() => last.push(store.get().doubled));
    store.set({ n: 4 });
    expect(store.get().doubled).toBe(8);
    expect(last.at(-1)).toBe(8);
  });

  it("knows which thread runs and changes only the session it names", () => {
    const store = createStore(initialState());
    const run = { threadId: "t1", phase: "running" } as RunView;
    store.set({ runs: { t1: run } });
    expect(runOf(store.get(), "t1")).toBe(run);
    expect(isRunning(store.get(), "t1")).toBe(true);
    expect(isRunning(store.get(), "t2")).toBe(false);
    expect(isRunning(store.get(), null)).toBe(false);

    updateSession(store, { title: "lost" });
    expect(store.get().session).toBeNull();
    store.set({ session: { sessionId: "s1", threadId: null, detail: null, panels: null, title: "", meta: "", steps: [], stream: null, draft: false, renaming: false, live: false, timeline: noTimeline, asking: false, recheck: noRecheck, schedule: noSchedule, draftCheck: noDraftCheck, calls: noCalls } });
    updateSession(store, { title: "other" }, "s2");
    expect(store.get().session?.title).toBe("");
    updateSession(store, { title: "mine" }, "s1");
    expect(store.get().session?.title).toBe("mine");
  });
});
