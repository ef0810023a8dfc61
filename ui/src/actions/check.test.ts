import { describe, expect, it, vi } from "vitest";

vi.mock("@tauri-apps/api/core", () => ({ invoke: vi.fn(), Channel: class {} }));

import { invoke } from "@tauri-apps/api/core";
import { createStore, initialState } from "../store";
import { createBase } from "./base";
import { checkActions, nextSourceId } from "./check";
import type { DocumentCheck } from "../types";

const found: DocumentCheck = {
  audit: [{ sentence: "The tower is 330 metres tall [1].", sources: [1], status: "verified", source: 1, passage: "The tower is 330 metres tall.", check: "verified", score: 0.9, signals: {} }],
  sources: { 1: "/tmp/eiffel.md" },
  legend: [{ status: "verified", symbol: "✓", meaning: "a cited source states it" }],
};

function setup() {
  const store = createStore(initialState());
  const toast = vi.fn();
  return { store, actions: checkActions(createBase(store, toast)) };
}

describe("check a document", () => {
  it("numbers sources one past the highest, and refuses an address that is not a web address", () => {
    expect(nextSourceId([])).toBe(1);
    expect(nextSourceId([{ id: 1 }, { id: 4 }])).toBe(5);
    const { store, actions } = setup();
    expect(actions.addCheckSourceUrl("ftp://example.org")).toBe(false);
    expect(store.get().check.error).toContain("http");
    expect(actions.addCheckSourceUrl(" https://example.org/a ")).toBe(true);
    actions.removeCheckSource(1);
    expect(actions.addCheckSourceUrl("https://example.org/b")).toBe(true);
    expect(store.get().check.sources).toEqual([{ id: 1, location: "https://example.org/b" }]);
  });

  it("asks for text first, sends the document and its sources, and an edit clears the finding", async () => {
    const { store, actions } = setup();
    await actions.runCheck();
    expect(store.get().check.error).toMatch(/paste the text/);
    vi.mocked(invoke).mockResolvedValueOnce(found);
    actions.setCheckText("The tower is 330 metres tall [1].");
    actions.addCheckSourceUrl("https://example.org/eiffel");
    await actions.runCheck();
    expect(invoke).toHaveBeenLastCalledWith("check_document", {
      request: { document: "The tower is 330 metres tall [1].", sources: [{ id: 1, location: "https://example.org/eiffel" }], session: undefined },
    });
    expect(store.get().check.result).toEqual(found);
    expect(store.get().check.busy).toBe(false);
    actions.setCheckText("The tower is 300 metres tall [1].");
    expect(store.get().check.result).toBeNull();
  });

  it("says the api's error in words and keeps what was given", async () => {
    const { store, actions } = setup();
    actions.setCheckText("A claim [2].");
    vi.mocked(invoke).mockRejectedValueOnce({ code: "invalid_input", message: "the document cites [2] but no such source was given" });
    await actions.runCheck();
    expect(store.get().check.error).toBe("The document cites [2] but no such source was given.");
    expect(store.get().check.text).toBe("A claim [2].");
  });
});
