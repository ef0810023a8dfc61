import { describe, expect, it } from "vitest";
import { meaningWords } from "./library";

describe("the library's meaning index in words", () => {
  it("says whether the model is there, and how much is indexed", () => {
    expect(meaningWords(null)).toBe("");
    expect(meaningWords({ installed: false, vectors: 0, passages: 40, due: false })).toContain("no sentence model is installed");
    expect(meaningWords({ installed: true, vectors: 0, passages: 40, due: true })).toContain("indexed by meaning");
    expect(meaningWords({ installed: true, vectors: 10, passages: 40, due: true })).toContain("10 of 40 passages");
    expect(meaningWords({ installed: true, vectors: 40, passages: 40, due: false })).toContain("all 40 passages");
  });
});
