// The New research form: the question, the run's choices, the estimate, Start.
import { html, render } from "lit-html";
import { inside, setBusy } from "../dom";
import { questionCount } from "../format";
import { modelOptions, searchPicks, toggleProvider } from "../pickers";
import { shallow, type AppState } from "../store";
import type { Choice, FormChoices, Mode, Preferences, ResearchRequest, ReviewPoints, RunConfig, Settings, TimeoutAction, TrustVariant } from "../types";
import type { Ctx } from "./ctx";

/** `n` kept within `min`…`max` (no upper bound while the api's limits are not known). */
const within = (n: number, min: number, max: number | undefined) => Math.max(min, max === undefined ? n : Math.min(max, n));

/** The review points ticked in the form (`review-<point>`), the points being the api's. */
export function readReview(checked: (id: string) => boolean, choices: FormChoices | null, defaults: ReviewPoints | null | undefined): ReviewPoints {
  const ticked = Object.fromEntries((choices?.review_points ?? []).map((p) => [p.value, checked(`review-${p.value}`)]));
  return { ...defaults, ...ticked } as ReviewPoints;
}

/** The review points a list of point names (the settings' `review`) turns on, the points being the api's. */
export function reviewOf(names: readonly string[], choices: FormChoices | null): ReviewPoints {
  const on = names.flatMap((n) => n.split(",")).map((n) => n.trim());
  return Object.fromEntries((choices?.review_points ?? []).map((p) => [p.value, on.includes(p.value)])) as unknown as ReviewPoints;
}

/** The options of a select, the api's default selected (`selected`: the value to keep instead). */
export const optionList = (list: readonly Choice[], selected?: string) =>
  list.map((c) => html`<option value=${c.value} ?selected=${selected ? c.value === selected : c.default}>${c.label}</option>`);

/** The form's run configuration: what it does not offer comes from the api's defaults. */
export function readConfig(v: (id: string) => string, checked: (id: string) => boolean, state: Pick<AppState, "roles" | "defaults" | "choices">): RunConfig {
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
  const limits = state.choices;
  return {
    ...state.defaults,
    mode: v("mode") as Mode,
    depth: v("depth") as RunConfig["depth"],
    structure: v("structure") as RunConfig["structure"],
    style: v("style") as RunConfig["style"],
    target_words: whole("target-words"),
    trust: v("trust") as TrustVariant,
    ...(v("max-revisions") === "" ? {} : { max_revisions: within(Math.floor(Number(v("max-revisions"))), 0, limits?.max_revisions) }),
    models: { model, fast_model: fast, roles },
    search: v("search").split(",").map((s) => s.trim()).filter(Boolean),
    budget: { max_calls: whole("budget-calls"), max_tokens: whole("budget-tokens"), max_cost_usd: v("budget-cost") && cost > 0 ? cost : null },
    review: readReview(checked, state.choices, state.defaults?.review),
    no_input: false,
    record_calls: checked("record-calls"),
    background: {
      known: v("background-known"),
      domains: v("background-domains").split(",").map((d) => d.trim()).filter(Boolean),
      method: v("background-method"),
    },
    language: v("language") || null,
    review_timeout: whole("review-timeout") ? { minutes: within(whole("review-timeout") as number, 1, limits?.review_timeout_max_minutes), then: v("on-timeout") as TimeoutAction } : null,
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
  const updateCount = () => {
    const max = store.get().choices?.question_max_chars;
    $("question-count").textContent = max ? questionCount(question.value, max) : "";
  };

  question.addEventListener("input", updateCount);
  llm.addEventListener("input", () => actions.setFormModel(llm.value));
  pipeline.addEventListener("change", () => {
    pipeline.title = pipeline.selectedOptions[0]?.title ?? "";
    actions.setFormPipeline(pipeline.value);
    scheduleEstimate();
  });
  for (const id of ["mode", "depth", "structure", "llm", "fast-llm", "budget-cost", "budget-calls", "budget-tokens"]) {
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

  // The run's choices, their labels and bounds are the api's (loaded once at start-up).
  store.watch((s) => s.choices, (choices) => {
    if (!choices) return;
    const select = (id: string, list: readonly Choice[]) => render(optionList(list), $(id));
    select("mode", choices.modes);
    select("depth", choices.depths);
    select("structure", choices.structures);
    select("style", choices.styles);
    select("trust", choices.trust_variants);
    select("on-timeout", choices.timeout_actions);
    // Every point asks unless the last research or the settings said otherwise.
    render(choices.review_points.map((p) => html`<label><input id=${`review-${p.value}`} type="checkbox" checked
      @change=${scheduleEstimate} /> ${p.label}</label>`), $("review-points"));
    question.maxLength = choices.question_max_chars;
    for (const id of ["background-known", "background-method"]) $<HTMLTextAreaElement>(id).maxLength = choices.background_max_chars;
    $<HTMLInputElement>("max-revisions").max = String(choices.max_revisions);
    $<HTMLInputElement>("review-timeout").max = String(choices.review_timeout_max_minutes);
    updateCount();
  });
  store.watch((s) => [s.pipelines, s.choices] as const, ([pipelines, choices]) => {
    if (!pipelines || !choices) return;
    // Side B offers the form's own lists (the pipelines and choices the api gives), starting from A's.
    render(html`<label>Pipeline (B)<select id="b-pipeline">${pipelines.map((p, i) => html`<option value=${p.name} title=${p.summary}
        ?selected=${i === Math.min(1, pipelines.length - 1)}>${p.title}</option>`)}</select></label>
      <label>Mode (B)<select id="b-mode">${optionList(choices.modes, $<HTMLSelectElement>("mode").value)}</select></label>
      <label>Depth (B)<select id="b-depth">${optionList(choices.depths, $<HTMLSelectElement>("depth").value)}</select></label>
      <label>Model (B)<input id="b-llm" list="model-choices" placeholder="same as A" /></label>`, $("compare-b"));
    render(pipelines.map((p) => html`<option value=${p.name} title=${p.summary}>${p.title}</option>`), pipeline);
    pipeline.title = pipelines[0]?.summary ?? "";
  }, shallow);
  store.watch((s) => s.roles, (roles) => {
    render(roles.map(({ role, words, fast }) => html`<label>${words}<input id=${`role-${role}`} placeholder=${fast ? "fast model" : "model"}
      @input=${scheduleEstimate} /></label>`), $("role-models"));
  });
  store.watch((s) => s.form.model, (model) => {
    if (llm.value !== model) llm.value = model;
  });
  // The pickers: the search providers as checkboxes (a not-ready one says why), the models that
  // are ready as the model fields' suggestions; the typed fields stay what is read.
  const searchField = $<HTMLInputElement>("search");
  const drawSearchPicks = () => {
    const providers = store.get().providers;
    const list = providers?.state === "ready" ? providers.list : [];
    render(searchPicks(list, searchField.value).map((p) => html`<label class="pick" title=${p.detail}>
      <input type="checkbox" name="search-pick" value=${p.name} .checked=${p.checked} ?disabled=${!p.ready && !p.checked}
        @change=${(e: Event) => {
          searchField.value = toggleProvider(searchField.value, p.name, (e.target as HTMLInputElement).checked);
          drawSearchPicks();
          scheduleEstimate();
        }} />
      ${p.name}${p.ready ? "" : html` <span class="muted">(${p.detail})</span>`}</label>`), $("search-choices"));
  };
  searchField.addEventListener("input", drawSearchPicks);
  store.watch((s) => [s.providers, s.settings] as const, ([providers, settings]) => {
    drawSearchPicks();
    const list = providers?.state === "ready" ? providers.list : [];
    render(modelOptions(list, [settings?.default_model, settings?.fast_model]).map((m) => html`<option value=${m}></option>`), $("model-choices"));
  }, shallow);
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
    drawSearchPicks();
    const choices = store.get().choices;
    const review = p.review ?? (s?.review ? reviewOf(s.review, choices) : null);
    if (review) {
      for (const point of choices?.review_points ?? []) {
        $<HTMLInputElement>(`review-${point.value}`).checked = review[point.value as keyof ReviewPoints];
      }
    }
  }
}
