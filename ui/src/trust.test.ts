import { describe, expect, it } from "vitest";
import { checkedWords, plainSentence, claimBefore, claimKey, findMarks, hallucinationWords, markCounts, recheckSummary, sentenceKey, sourceCheckWords } from "./trust";
import type { ClaimTrust, MarkMeaning, TrustRecord } from "./types";

/** A legend as a record carries it (the pipeline writes the words; the symbols are what matter here). */
const LEGEND: MarkMeaning[] = [
  { mark: "corroborated", symbol: "✓✓", label: "Corroborated", meaning: "two sources" },
  { mark: "verified", symbol: "✓", label: "Verified", meaning: "its source" },
  { mark: "weak", symbol: "⚠", label: "Weak", meaning: "partly" },
];

const claim = (sentence: string, mark: ClaimTrust["mark"]): ClaimTrust => ({
  sentence, mark, status: "verified", supported_by: [], origins: 1, contradicted_by: [], confidence: 0.8, check: "quote found",
});

const record = (claims: ClaimTrust[]): TrustRecord => ({
  variant: "batched", credibility: [], same_origin: [], claims, writer_claims: 4, unsupported: 1, hallucination: 0.25, legend: LEGEND,
});

describe("trust marks", () => {
  it("finds the double mark before the single one", () => {
    expect(findMarks("Bees dance [1][4] ✓✓. A colony ✓ and ⚠", LEGEND)).toEqual([
      { at: 18, length: 2, mark: "corroborated" }, { at: 31, length: 1, mark: "verified" }, { at: 37, length: 1, mark: "weak" },
    ]);
  });

  it("keys a sentence the same in Markdown and in the page's text", () => {
    expect(sentenceKey("Bees *dance* on the comb [1][4]")).toBe(sentenceKey("Bees dance on the comb [1] [4] "));
    expect(claimKey(claim("A colony has 50,000 bees [1] ⚠ *(contested by [3])*.", "weak"), LEGEND)).toBe("acolonyhas50000bees");
  });

  it("matches a mark to the claim its paragraph text ends with, and says when none does", () => {
    const claims = [
      claim("Foragers dance on the comb [1] ✓✓.", "corroborated"),
      claim("The dance encodes direction [1] ✓.", "verified"),
      claim("The dance encodes direction and distance [1] ✓.", "verified"),
    ];
    const para = "Foragers dance on the comb [1] ✓✓. The dance encodes direction and distance [1] ";
    expect(claimBefore("Foragers dance on the comb [1] ", "corroborated", claims, LEGEND)).toBe(0);
    expect(claimBefore(para, "verified", claims, LEGEND)).toBe(2);
    expect(claimBefore("Something the record never saw [2] ", "weak", claims, LEGEND)).toBeNull();
  });

  it("says the hallucination score and counts the marks", () => {
    const t = record([claim("a ✓", "verified"), claim("b ⚠", "weak"), claim("c ✓", "verified")]);
    expect(hallucinationWords(t)).toBe("Hallucination score 0.25: 1 of the 4 claims the writer made was not supported by their sources as written.");
    expect(markCounts(t)).toEqual({ corroborated: 0, verified: 2, weak: 1 });
  });
});

describe("recheck words", () => {
  it("says each source's state and sums them up", () => {
    const sources = [
      { source_id: 1, url: "file:///a", state: { state: "unchanged" as const } },
      { source_id: 2, url: "file:///b", state: { state: "changed" as const, kept: 1, lost: 2 } },
      { source_id: 3, url: "file:///c", state: { state: "gone" as const, why: "the file no longer exists" } },
    ];
    expect(sourceCheckWords(sources[1])).toBe("changed: 1 quote still there, 2 gone");
    expect(sourceCheckWords(sources[2])).toBe("gone: the file no longer exists");
    expect(recheckSummary(sources, 2, 3)).toBe("1 of 3 cited sources unchanged, 1 changed, 1 gone; 2 sentences lost their support; the report is now version 3.");
    expect(recheckSummary(sources.slice(0, 1), 0, null)).toBe("1 of 1 cited source unchanged; every sentence keeps its support; the report stays as it was.");
    expect(checkedWords(null)).toBe("");
    expect(plainSentence("- \"The queen lays eggs.\" [2][3].")).toBe("The queen lays eggs.");
    expect(plainSentence("Bees dance [1].")).toBe("Bees dance.");
    expect(checkedWords(Date.UTC(2026, 10, 24, 12))).toMatch(/^checked .*2026/);
  });
});
