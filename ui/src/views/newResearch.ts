// The New research form: the question, the run's choices, the estimate, Start.
import { html, render } from "lit-html";
import { inside, optionsOf, setBusy } from "../dom";
import { questionCount } from "../format";
import { shallow, type AppState } from "../store";
import type { Mode, Preferences, ResearchRequest, RunConfig, Settings, TimeoutAction, TrustVariant } from "../types";
import type { Ctx } from "./ctx";

/** The form's run configuration: what it does not offer comes from the api's defaults. */
export function readConfig(v: (id: string) => string, checked: (id: string) => boolean, state: Pick<AppState, "roles" | "defaults">): RunConfig {
  const model = v("llm");
  const fast = v("fast-llm") || null;
  const cost = Number(v("budget-cost"));
  const whole = (id: string) => {
    const n = Math.floor(Number(v(id)));
    return v(id) && n > 0 ? n : null;
  };
  const roles: Record<string, string> = {};
  for (const { role } of state.roles) {
    const spec = v(`role-${role}`);
    if (spec) roles[role] = spec;
  }
  // TODO(issue 19): the bounds of max_revisions (0–10) and review_timeout (10080 minutes) are the api's.
  return {
    ...state.defaults,
    mode: v("mode") as Mode,
    depth: v("depth") as RunConfig["depth"],
    structure: v("structure") as RunConfig["structure"],
    style: v("style") as RunConfig["style"],
    target_words: whole("target-words"),
    trust: v("trust") as TrustVariant,
    ...(v("max-revisions") === "" ? {} : { max_revisions: Math.min(10, Math.max(0, Math.floor(Number(v("max-revisions"))))) }),
    models: { model, fast_model: fast, roles },
    search: v("search").split(",").map((s) => s.trim()).filter(Boolean),
    budget: { max_calls: whole("budget-calls"), max_tokens: whole("budget-tokens"), max_cost_usd: v("budget-cost") && cost > 0 ? cost : null },
    review: { clarify: checked("review-clarify"), plan: checked("review-plan"), report: checked("review-report") },
    no_input: false,
    language: v("language") || null,
    review_timeout: whole("review-timeout") ? { minutes: Math.min(10080, whole("review-timeout") as number), then: v("on-timeout") as TimeoutAction } : null,
  } as RunConfig;
}

export function mountNewResearch(root: HTMLElement, { store, actions, toast }: Ctx) {
  const $ = inside(root);
  const question = $<HTMLTextAreaElement>("question");
  const pipeline = $<HTMLSelectElement>("pipeline");
  const llm = $<HTMLInputElement>("llm");
  const start = $<HTMLButtonElement>("start");
  const value = (id: string) => $<HTMLInputElement>(id).value.trim();
  const checked = (id: string) => $<HTMLInputElement>(id).checked;
  const config = () => readConfig(value, checked, store.get());

  let estimateTimer = 0;
  const scheduleEstimate = () => {
    window.clearTimeout(estimateTimer);
    estimateTimer = window.setTimeout(() => void actions.estimate(pipeline.value, config()), 150);
  };
  const updateCount = () => ($("question-count").textContent = questionCount(question.value));

  question.addEventListener("input", updateCount);
  llm.addEventListener("input", () => actions.setFormModel(llm.value));
  pipeline.addEventListener("change", () => {
    pipeline.title = pipeline.selectedOptions[0]?.title ?? "";
    actions.setFormPipeline(pipeline.value);
    scheduleEstimate();
  });
  for (const id of ["mode", "depth", "structure", "llm", "fast-llm", "budget-cost", "budget-calls", "budget-tokens", "review-report"]) {
    $(id).addEventListener("input", scheduleEstimate);
    $(id).addEventListener("change", scheduleEstimate);
  }
  $("new-form").addEventListener("submit", (e) => {
    e.preventDefault();
    void submit();
  });

  async function submit() {
    const text = question.value.trim();
    if (!text) {
      toast("Type a question first.");
      question.focus();
      return;
    }
    const c = config();
    if (!c.models.model) {
      toast("No model is chosen: enter one, or set a default model in Settings.");
      llm.focus();
      return;
    }
    const request: ResearchRequest = { question: text, pipeline: pipeline.value, review: c.review, config: c, allowed_hosts: [], searxng_url: null };
    setBusy(start, true);
    try {
      await actions.startResearch(request, value("search") || null, () => {
        question.value = "";
        updateCount();
      });
    } finally {
      setBusy(start, false);
    }
  }

  /** Side B of a comparison: the form's own choices (A) with its pipeline, mode, depth and model. */
  async function compare() {
    const text = question.value.trim();
    if (!text) {
      toast("Type a question first.");
      question.focus();
      return;
    }
    const a = config();
    if (!a.models.model) {
      toast("No model is chosen: enter one, or set a default model in Settings.");
      llm.focus();
      return;
    }
    const model = value("b-llm");
    const b: RunConfig = {
      ...a, mode: value("b-mode") as Mode, depth: value("b-depth") as RunConfig["depth"],
      models: model ? { model, fast_model: null, roles: {} } : a.models,
    };
    const request = (pipelineName: string, c: RunConfig): ResearchRequest =>
      ({ question: text, pipeline: pipelineName, review: c.review, config: c, allowed_hosts: [], searxng_url: null });
    await actions.startCompare(text, request(pipeline.value, a), request(value("b-pipeline"), b));
  }
  $("compare-start").addEventListener("click", () => void compare());

  store.watch((s) => s.pipelines, (pipelines) => {
    if (!pipelines) return;
    // Side B's choices are the form's own lists (the pipelines the api gives, the form's modes and depths).
    const choices = (id: string) => optionsOf(id).map((o) => html`<option value=${o.value} ?selected=${o.value === $<HTMLSelectElement>(id).value}>${o.label}</option>`);
    render(html`<label>Pipeline (B)<select id="b-pipeline">${pipelines.map((p, i) => html`<option value=${p.name} title=${p.summary}
        ?selected=${i === Math.min(1, pipelines.length - 1)}>${p.title}</option>`)}</select></label>
      <label>Mode (B)<select id="b-mode">${choices("mode")}</select></label>
      <label>Depth (B)<select id="b-depth">${choices("depth")}</select></label>
      <label>Model (B)<input id="b-llm" placeholder="same as A" /></label>`, $("compare-b"));
    render(pipelines.map((p) => html`<option value=${p.name} title=${p.summary}>${p.title}</option>`), pipeline);
    pipeline.title = pipelines[0]?.summary ?? "";
  });
  store.watch((s) => s.roles, (roles) => {
    render(roles.map(({ role, words, fast }) => html`<label>${words}<input id=${`role-${role}`} placeholder=${fast ? "fast model" : "model"}
      @input=${scheduleEstimate} /></label>`), $("role-models"));
  });
  store.watch((s) => s.form.model, (model) => {
    if (llm.value !== model) llm.value = model;
  });
  store.watch((s) => s.defaults, (defaults) => {
    if (defaults) $<HTMLInputElement>("max-revisions").placeholder = String(defaults.max_revisions);
  });
  store.watch((s) => s.estimate, (text) => ($("estimate").textContent = text));
  // Filled once, when the stored choices are known; later settings never overwrite what the user typed.
  const stopFilling = store.watch((s) => s.prefsLoaded, (loaded) => {
    if (!loaded) return;
    fillForm(store.get().prefs, store.get().settings);
    queueMicrotask(() => stopFilling());
  });
  // Once what the estimate needs has loaded, it is made.
  store.watch((s) => [s.settings, s.defaults, s.prefsLoaded, s.pipelines] as const, ([, , loaded]) => {
    if (loaded) scheduleEstimate();
  }, shallow);
  store.watch((s) => s.focus, (focus) => {
    if (focus?.target === "question") question.focus();
    if (focus?.target === "llm") llm.focus();
  });

  /** The last research's choices (the store), else the shared defaults (settings). */
  function fillForm(p: Preferences, s: Settings | null) {
    const set = (id: string, v: string | null | undefined) => {
      if (v) $<HTMLInputElement>(id).value = v;
    };
    set("mode", p.mode);
    set("depth", p.depth);
    set("structure", p.structure);
    set("language", p.language);
    set("search", p.search ?? (s?.search?.length ? s.search.join(", ") : null));
    // TODO(issue 19): the review point names ("clarify", "plan", "report") restate the api's `ReviewPoints`.
    const review = p.review ?? (s?.review ? { clarify: s.review.includes("clarify"), plan: s.review.includes("plan"), report: s.review.includes("report") } : null);
    if (review) {
      $<HTMLInputElement>("review-clarify").checked = review.clarify;
      $<HTMLInputElement>("review-plan").checked = review.plan;
      $<HTMLInputElement>("review-report").checked = review.report;
    }
  }
}
