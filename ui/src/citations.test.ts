import { describe, expect, it } from "vitest";
import { citationInfo, claimsBySource, findQuote, sourceLabel, verificationWords } from "./citations";
import type { ClaimRow, EvidenceRow, SourceRow } from "./types";

const sources: SourceRow[] = [
  { source_id: 1, url: "file:///docs/waggle-dance.md", title: "The waggle dance", kind: "local", sha256: "a", accessed_at_ms: 0 },
  { source_id: 2, url: "https://example.org/colony", title: "", kind: "web", sha256: "b", accessed_at_ms: 0 },
];
const evidence: EvidenceRow[] = [
  { evidence_id: 1, source_id: 1, fact: "Direction", quote: "The angle of the waggle run encodes the direction." },
  { evidence_id: 2, source_id: 1, fact: "Distance", quote: "The duration encodes the distance." },
  { evidence_id: 3, source_id: 2, fact: "Queen", quote: "The queen lays eggs." },
];

describe("citations", () => {
  it("shows the source, its quotes and whether they were verified", () => {
    const claims: ClaimRow[] = [
      { evidence_id: 1, text: "Bees encode direction.", supported: true },
      { evidence_id: 2, text: "Bees encode distance.", supported: true },
      { evidence_id: 3, text: "Queens sing.", supported: false },
    ];
    const one = citationInfo(1, sources, evidence, claims);
    expect(one.source?.title).toBe("The waggle dance");
    expect(one.quotes.map((q) => q.quote)).toHaveLength(2);
    expect(one.state).toBe("verified");
    expect(citationInfo(2, sources, evidence, claims).state).toBe("unverified");
    const mixed = citationInfo(1, sources, evidence, [claims[0], { evidence_id: 2, text: "x", supported: false }]);
    expect(mixed.state).toBe("partly");
    const missing = citationInfo(9, sources, evidence, claims);
    expect(missing.source).toBeNull();
    expect(missing.state).toBe("no_evidence");
    expect(verificationWords("verified")).toMatch(/^Verified/);
  });

  it("labels sources by title, else file name or host", () => {
    expect(sourceLabel(sources[0])).toBe("The waggle dance");
    expect(sourceLabel({ ...sources[0], title: " " })).toBe("waggle-dance.md");
    expect(sourceLabel(sources[1])).toBe("example.org");
  });

  it("finds a quote despite different whitespace and quotation marks", () => {
    const text = "Intro.\n\nThe angle of the  waggle run\nencodes the “direction” of food. End.";
    const at = findQuote(text, 'The angle of the waggle run encodes the "direction" of food.');
    expect(at).not.toBeNull();
    const [start, end] = at!;
    expect(text.slice(start, end)).toBe("The angle of the  waggle run\nencodes the “direction” of food.");
    expect(findQuote(text, "not in the text")).toBeNull();
    expect(findQuote(text, "   ")).toBeNull();
    expect(findQuote("a (b) [c] $d", "(b) [c] $d")).toEqual([2, 12]);
  });

  it("finds a quote as the page reads inside the stored Markdown", () => {
    const text = "Intro.\n\n**name\\[\\]** is an array, we have:\n\n1. Initialize the *client* first.\n";
    const at = findQuote(text, "name[] is an array, we have: Initialize the client first.");
    expect(at).not.toBeNull();
    const [start, end] = at!;
    expect(text.slice(start, end)).toBe("name\\[\\]** is an array, we have:\n\n1. Initialize the *client* first");
    expect(findQuote(text, "an array we have: 1. Initialize")).toBeNull();
  });

  it("lists the claims citing each source", () => {
    const claims: ClaimRow[] = [
      { evidence_id: 1, text: "A", supported: true },
      { evidence_id: 3, text: "B", supported: false },
      { evidence_id: 99, text: "orphan", supported: true },
    ];
    const by = claimsBySource(evidence, claims);
    expect(by.get(1)?.map((c) => c.text)).toEqual(["A"]);
    expect(by.get(2)?.map((c) => c.text)).toEqual(["B"]);
    expect(by.size).toBe(2);
  });
});
