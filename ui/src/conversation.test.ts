import { describe, expect, it } from "vitest";
import { conversationEntries, forkDraft, forkRequest, markdownBlocks, otherKind, stageWords, whyWords } from "./conversation";
import type { SessionDetail } from "./types";

const turn = (question: string, kind: string | null, thread: string | null, reply = "") => ({
  question, classification: kind ? { kind, by: "rules", why: `because ${kind}` } : null, thread_id: thread, reply, focus: [], created_at_ms: 0,
});
const report = (thread: string, version: number, markdown = "# R") => ({ thread_id: thread, version, markdown, provenance: {}, created_at_ms: 0 });

function detail(over: Partial<SessionDetail> = {}): SessionDetail {
  return {
    session: { id: "s", title: "T", question: "Bees?", config: {}, status: "finished", created_at_ms: 0, updated_at_ms: 0 },
    runs: [["t1", "Bees?"], ["t2", "What about water?"], ["t3", "Now tell me about crop pollination"]],
    reports: [report("t1", 1), report("t2", 1), report("t2", 2), report("t3", 1)],
    sources: [], evidence: [], claims: [], report_html: "<p>R</p>", method: null,
    turns: [turn("Bees?", "first", "t1"), turn("What about water?", "follow_up", "t2"),
      turn("Now tell me about crop pollination", "topic_change", "t3"), turn("nevermind", "cancel", null, "All right.")],
    summary: { text: "", turns: 0 }, reports_html: [], forks: {}, trust: null,
    ...over,
  } as SessionDetail;
}

describe("conversation", () => {
  it("says what a turn was taken to be, by whom and why", () => {
    expect(whyWords({ kind: "follow_up", by: "rules", why: "it opens with \"what about\"" })).toBe("follow-up · by its words: it opens with \"what about\"");
    expect(whyWords({ kind: "topic_change", by: "model", why: "" })).toBe("topic change · by the model");
    expect(whyWords({ kind: "cancel", by: "person", why: "you chose" })).toBe("cancelled · by you: you chose");
    expect(otherKind("follow_up")).toBe("topic_change");
    expect(otherKind("topic_change")).toBe("follow_up");
    expect(otherKind("first")).toBeNull();
  });

  it("lists turns with their runs, latest reports and replies", () => {
    const entries = conversationEntries(detail());
    expect(entries.map((e) => [e.question, e.run, e.report?.version ?? null, e.latest, e.reply])).toEqual([
      ["Bees?", 1, 1, false, ""],
      ["What about water?", 2, 2, false, ""],
      ["Now tell me about crop pollination", 3, 1, true, ""],
      ["nevermind", null, null, false, "All right."],
    ]);
  });

  it("shows a fork as a branch after the turns before it, with its origin when known", () => {
    const d = detail({ runs: [...detail().runs, ["t4", "Bees?"]] });
    let entries = conversationEntries(d);
    expect(entries[4]).toMatchObject({ threadId: "t4", run: 4, branch: "" });
    entries = conversationEntries({ ...d, forks: { t4: { from: "t1", stage: "plan" } } });
    expect(entries[4].branch).toBe("forked from the plan of run 1");
    expect(stageWords("round-2")).toBe("round 2");
  });

  it("keeps sessions from before turns were recorded readable", () => {
    const entries = conversationEntries(detail({ turns: [] }));
    expect(entries.map((e) => [e.run, e.branch, e.classification])).toEqual([[1, "", null], [2, "", null], [3, "", null]]);
  });

  it("draws Markdown as plain blocks", () => {
    expect(markdownBlocks("# Title\n\nSome **bold**\ntext.\n\n- one\n2. two\n")).toEqual([
      { tag: "h", text: "Title" }, { tag: "p", text: "Some bold text." }, { tag: "li", text: "one" }, { tag: "li", text: "two" },
    ]);
  });

  it("prefills a fork from the plan or reading its stage holds, and sends only what changed", () => {
    const plan = { stage: "plan", checkpoint: 3, holds: "", reading: null, plan: { questions: ["Q1", "Q2"], aspects: ["a1"], searches: ["s1"] } };
    const reading = { stage: "reading", checkpoint: 1, holds: "", plan: null, reading: "Bees talk" };
    expect(forkDraft(plan)).toEqual({ questions: "Q1\nQ2", aspects: "a1", searches: "s1", reading: "" });
    expect(forkDraft(reading)).toEqual({ questions: "", aspects: "", searches: "", reading: "Bees talk" });
    const same = { ...forkDraft(plan), model: "", depth: "", rounds: "", pipeline: "" };
    expect(forkRequest("plan", same, forkDraft(plan))).toEqual({
      at: "plan", reading: null, plan: null, models: null, pipeline: null, depth: null, max_iterations: null, search: null,
    });
    const edited = { ...same, questions: "Q1\n\n Q3 ", searches: "a\nb", model: "scripted:x", depth: "quick", rounds: "2", pipeline: "review" };
    expect(forkRequest("plan", edited, forkDraft(plan))).toEqual({
      at: "plan", reading: null, plan: { questions: ["Q1", "Q3"], aspects: ["a1"], searches: ["a", "b"] },
      models: { model: "scripted:x", fast_model: null, roles: {} }, pipeline: "review", depth: "quick", max_iterations: 2, search: null,
    });
    // The aspects alone changed: the plan goes with them.
    expect(forkRequest("plan", { ...same, aspects: "a1\na2" }, forkDraft(plan)).plan).toEqual({ questions: ["Q1", "Q2"], aspects: ["a1", "a2"], searches: ["s1"] });
    const read = { ...forkDraft(reading), model: "", depth: "", rounds: "0", pipeline: "" };
    expect(forkRequest("reading", { ...read, reading: "Another reading" }, forkDraft(reading))).toMatchObject({
      at: "reading", reading: "Another reading", plan: null, max_iterations: null,
    });
  });
});
