import { describe, expect, it } from "vitest";
import { restoredWords, salvageWords } from "../format";
import { backupWords, measuredOrigin, measuredWork } from "./settings";
import type { ModelMeasurement } from "../types";

describe("backups in Settings", () => {
  const folder = "/home/me/.local/share/research-studio/backups";
  it("names the newest backup, its size and how many there are", () => {
    const words = backupWords({
      folder, count: 3, rotation: { daily: 7, weekly: 4 },
      newest: { path: `${folder}/research-auto-20261128-230000.sqlite3`, taken_at_ms: Date.UTC(2026, 10, 28, 23), bytes: 2_500_000 },
      pending: null,
    });
    expect(words).toMatch(/^Last backup: /);
    expect(words).toContain("3 backups in /home/me/.local/share/research-studio/backups");
  });
  it("says when none was taken yet, and when none will be", () => {
    expect(backupWords({ folder, count: 0, rotation: { daily: 7, weekly: 4 }, newest: null, pending: null })).toContain("the app takes one today");
    expect(backupWords({ folder, count: 0, rotation: { daily: 0, weekly: 0 }, newest: null, pending: null })).toContain("takes none (backups kept: off)");
  });
});

describe("what the models did, in Settings", () => {
  const m = (change: Partial<ModelMeasurement>): ModelMeasurement => ({
    model: "qwen2.5-0.5b-instruct-q4_k_m.gguf", builtin: false, your_runs: 6, tokens_per_second: 12.5, decisions: [],
    measured: { model: "qwen2.5-0.5b-instruct-q4_k_m.gguf", runs: 6, work: { facts: 40, own_words: 39, drafts: 6, refused: 6, verdicts_asked: 0, verdicts_given: 0 } },
    ...change,
  });
  it("says where a measurement comes from", () => {
    expect(measuredOrigin(m({}))).toBe("6 of your runs");
    expect(measuredOrigin(m({ builtin: true, your_runs: 0 }))).toBe("built-in measurement");
    expect(measuredOrigin(m({ builtin: true, your_runs: 1 }))).toBe("built-in measurement and 1 of your runs");
  });
  it("says what it did, and nothing it was not asked for", () => {
    expect(measuredWork(m({}))).toBe("39 of 40 facts were its quotes' words; the checks refused 6 of 6 drafts");
    expect(measuredWork(m({ measured: { model: "x", runs: 0, work: { facts: 0, own_words: 0, drafts: 0, refused: 0, verdicts_asked: 0, verdicts_given: 0 } } }))).toBe("nothing measured yet");
  });
});

describe("a restore asked for in Settings", () => {
  it("says what was restored and where the database as it was is kept, or why not", () => {
    expect(restoredWords({ from: "/b/research-20261128.sqlite3", kept: "/d/research.sqlite3.replaced-20261129", problem: null }))
      .toBe("Restored the backup /b/research-20261128.sqlite3. The database as it was is kept at /d/research.sqlite3.replaced-20261129.");
    expect(restoredWords({ from: "/b/x.sqlite3", kept: null, problem: "there is no backup at /b/x.sqlite3" }))
      .toBe("The backup was not restored: there is no backup at /b/x.sqlite3. The database is as it was.");
  });
});

describe("a damaged database's sessions, saved", () => {
  it("says how many were saved where, and which were not", () => {
    expect(salvageWords({
      saved: [{ id: "a", title: "Bees", file: "/home/me/saved/bees-0192.research-session" }],
      lost: [{ id: "b", title: "Wasps", problem: "database disk image is malformed" }],
    })).toBe("Saved 1 session to /home/me/saved; Import session brings it back. Not saved: “Wasps” (database disk image is malformed).");
    expect(salvageWords({ saved: [], lost: [] })).toBe("No session could be read whole.");
  });
});
