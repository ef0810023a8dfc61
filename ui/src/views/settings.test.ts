import { describe, expect, it } from "vitest";
import { backupWords } from "./settings";

describe("backups in Settings", () => {
  const folder = "/home/me/.local/share/research-studio/backups";
  it("names the newest backup, its size and how many there are", () => {
    const words = backupWords({
      folder, count: 3, rotation: { daily: 7, weekly: 4 },
      newest: { path: `${folder}/research-auto-20261128-230000.sqlite3`, taken_at_ms: Date.UTC(2026, 10, 28, 23), bytes: 2_500_000 },
    });
    expect(words).toMatch(/^Last backup: /);
    expect(words).toContain("3 backups in /home/me/.local/share/research-studio/backups");
  });
  it("says when none was taken yet, and when none will be", () => {
    expect(backupWords({ folder, count: 0, rotation: { daily: 7, weekly: 4 }, newest: null })).toContain("the app takes one today");
    expect(backupWords({ folder, count: 0, rotation: { daily: 0, weekly: 0 }, newest: null })).toContain("takes none (backups kept: off)");
  });
});
