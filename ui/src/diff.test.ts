import { describe, expect, it } from "vitest";
import { diffCounts, MAX_CELLS, wordDiff, words } from "./diff";

const join = (parts: { kind: string; text: string }[], keep: string[]) => parts.filter((p) => keep.includes(p.kind)).map((p) => p.text).join("");

describe("wordDiff", () => {
  it("marks the words a revision removed and added, in order", () => {
    const parts = wordDiff("Bees dance to show food.", "Bees dance to show distant food.");
    expect(parts).toEqual([
      { kind: "same", text: "Bees dance to show " },
      { kind: "added", text: "distant " },
      { kind: "same", text: "food." },
    ]);
  });

  it("rebuilds both texts from its parts", () => {
    const before = "## Summary\nHoneybees dance [1]. They pollinate crops [3].\n\n## More\nQueens lay eggs [2].";
    const after = "## Summary\nHoneybees dance on the comb [1]. They pollinate many crops [3].\n\n## More\nWorkers forage [2].";
    const parts = wordDiff(before, after);
    expect(join(parts, ["same", "added"]).replace(/\s+/g, " ")).toBe(after.replace(/\s+/g, " "));
    expect(join(parts, ["same", "removed"]).replace(/\s+/g, " ")).toBe(before.replace(/\s+/g, " "));
    expect(diffCounts(parts)).toEqual({ added: 6, removed: 3 });
  });

  it("finds nothing changed in the same words, whatever the spacing", () => {
    expect(wordDiff("a b  c", "a b c").every((p) => p.kind === "same")).toBe(true);
    expect(wordDiff("", "")).toEqual([]);
    expect(wordDiff("", "new text")).toEqual([{ kind: "added", text: "new text" }]);
    expect(wordDiff("old", "")).toEqual([{ kind: "removed", text: "old" }]);
  });

  it("compares texts too long for the table as one block each", () => {
    const n = Math.ceil(Math.sqrt(MAX_CELLS)) + 1;
    const a = Array.from({ length: n }, (_, i) => `a${i}`).join(" ");
    const b = Array.from({ length: n }, (_, i) => `b${i}`).join(" ");
    expect(wordDiff(a, b).map((p) => p.kind)).toEqual(["removed", "added"]);
  });

  it("keeps each word's whitespace", () => {
    expect(words("one  two\nthree")).toEqual(["one  ", "two\n", "three"]);
  });
});
