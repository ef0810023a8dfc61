// Form choices as a test's fake api gives them: the limits differ from today's api on purpose, so a
// test passes only when the UI reads them rather than knowing them.
import type { FormChoices } from "./types";

const choice = (value: string, label: string, isDefault = false) => ({ value, label, default: isDefault });

export const testChoices: FormChoices = {
  modes: [choice("single", "Single agent", true), choice("multi", "Multi-agent")],
  depths: [choice("quick", "Quick"), choice("standard", "Standard", true), choice("comprehensive", "Comprehensive")],
  structures: [choice("detailed", "Detailed", true), choice("concise", "Concise")],
  styles: [choice("academic", "Academic", true), choice("technical", "Technical")],
  trust_variants: [choice("batched", "Batched", true), choice("full", "Full")],
  timeout_actions: [choice("approve", "go on", true), choice("stop", "stop the run")],
  review_points: [choice("clarify", "when ambiguous", true), choice("plan", "the plan"), choice("report", "the report")],
  question_max_chars: 100,
  background_max_chars: 50,
  max_revisions: 7,
  review_timeout_max_minutes: 60,
  resumable: ["running", "interrupted", "failed"],
  probe_models: [{ provider: "openai", model: "openai:tiny" }],
  settings: [
    { key: "default_model", help: "model string", builtin_default: false },
    { key: "allowed_hosts", help: "hosts", builtin_default: false },
    { key: "banned_words", help: "words", builtin_default: true },
    { key: "trusted_domains", help: "domains", builtin_default: true },
  ],
  schedule_intervals: [choice("12h", "every 12 hours"), choice("1d", "every day", true), choice("1w", "every week")],
};
