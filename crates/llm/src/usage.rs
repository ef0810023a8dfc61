//! Usage accounting, prices, budgets and per-role model routing.
//!
//! A run asks many models many times; the user wants to know what it cost and to cap it. Every
//! call made through a [`Metered`] client is recorded in the run's [`Meter`] with the node that
//! made it, its token counts, latency and an estimated cost from the [`PriceTable`]. Before a
//! call, the meter checks the run's [`Budget`]; a spent budget is an
//! [`LlmError::BudgetExhausted`], which stops the run at its last checkpoint, resumable with a
//! larger budget.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::{ChatRequest, ChatResponse, LlmClient, LlmError, TokenSink};

/// Limits of one run; `None` is no limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct Budget {
    /// Model calls.
    pub max_calls: Option<u64>,
    /// Prompt and completion tokens together.
    pub max_tokens: Option<u64>,
    /// Estimated cost in US dollars.
    pub max_cost_usd: Option<f64>,
}

impl Budget {
    /// The largest share of a set limit that `spent` has used, with what it is in words
    /// ("32 of 40 model calls"); `None` without limits.
    pub fn most_spent(&self, spent: &UsageTotals) -> Option<(f64, String)> {
        let mut shares: Vec<(f64, String)> = Vec::new();
        if let Some(max) = self.max_calls.filter(|m| *m > 0) {
            shares.push((
                spent.calls as f64 / max as f64,
                format!("{} of {max} model calls", spent.calls),
            ));
        }
        if let Some(max) = self.max_tokens.filter(|m| *m > 0) {
            shares.push((
                spent.tokens() as f64 / max as f64,
                format!("{} of {max} tokens", spent.tokens()),
            ));
        }
        if let Some(max) = self.max_cost_usd.filter(|m| *m > 0.0) {
            shares.push((
                spent.cost_usd / max,
                format!("${:.3} of ${max:.2}", spent.cost_usd),
            ));
        }
        shares.into_iter().max_by(|a, b| a.0.total_cmp(&b.0))
    }
}

/// Prices of one model in US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Price {
    /// Per million prompt tokens.
    pub input: f64,
    /// Per million completion tokens.
    pub output: f64,
}

/// Model prices, kept in one data file (`prices.json`) so they are updated in one place.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct PriceTable {
    /// Model string prefix (`openai:gpt-4o-mini`) → price. The longest matching prefix wins.
    pub models: BTreeMap<String, Price>,
    /// Providers whose calls cost nothing (local models).
    pub free_providers: Vec<String>,
}

impl PriceTable {
    /// The table shipped with the application.
    pub fn builtin() -> Self {
        serde_json::from_str(include_str!("../prices.json"))
            .expect("prices.json is checked by a test")
    }

    /// The estimated cost of a call, or `None` when the model's price is unknown.
    pub fn cost(&self, spec: &str, prompt_tokens: u64, completion_tokens: u64) -> Option<f64> {
        let provider = spec.split(':').next().unwrap_or_default();
        if self.free_providers.iter().any(|p| p == provider) {
            return Some(0.0);
        }
        let price = self
            .models
            .iter()
            .filter(|(prefix, _)| spec.starts_with(prefix.as_str()))
            .max_by_key(|(prefix, _)| prefix.len())
            .map(|(_, price)| *price)?;
        Some((prompt_tokens as f64 * price.input + completion_tokens as f64 * price.output) / 1e6)
    }
}

/// One recorded model call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct CallRecord {
    /// The graph node that made the call.
    pub node: String,
    /// The request's purpose (`plan`, `extract`, …).
    pub purpose: String,
    /// The model string.
    pub model: String,
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Wall time in milliseconds.
    pub latency_ms: u64,
    /// When it started, ms since the epoch (absent in calls recorded before it was kept): with
    /// the latency, which calls overlapped and how much of a run's wall time waited on a model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub started_at_ms: Option<i64>,
    /// Estimated cost, when the price is known.
    pub cost_usd: Option<f64>,
    /// Whether the call failed.
    pub failed: bool,
    /// What was sent and answered, redacted: kept only when the run asked for it
    /// ([`Meter::keeping_exchanges`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub exchange: Option<crate::Exchange>,
}

/// Sums over a set of calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct UsageTotals {
    /// Calls made.
    pub calls: u64,
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Estimated cost of the calls whose price is known.
    pub cost_usd: f64,
    /// Calls whose price is unknown (so `cost_usd` is a lower bound).
    pub unpriced_calls: u64,
}

impl UsageTotals {
    fn add(&mut self, call: &CallRecord) {
        self.calls += 1;
        self.prompt_tokens += call.prompt_tokens;
        self.completion_tokens += call.completion_tokens;
        match call.cost_usd {
            Some(cost) => self.cost_usd += cost,
            None => self.unpriced_calls += 1,
        }
    }

    /// Prompt and completion tokens together.
    pub fn tokens(&self) -> u64 {
        self.prompt_tokens + self.completion_tokens
    }
}

/// Called with every recorded call.
type CallListener = Box<dyn Fn(&CallRecord) + Send + Sync>;

/// The usage ledger of one run, shared by all its clients.
#[derive(Default)]
pub struct Meter {
    budget: Budget,
    prices: PriceTable,
    calls: Mutex<Vec<CallRecord>>,
    listener: Option<CallListener>,
    /// Set when each call's prompt and answer are kept, redacted by it.
    exchanges: Option<crate::Redactor>,
}

impl std::fmt::Debug for Meter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Meter")
            .field("budget", &self.budget)
            .field("totals", &self.totals())
            .finish()
    }
}

impl Meter {
    /// A meter with this budget and price table.
    pub fn new(budget: Budget, prices: PriceTable) -> Self {
        Self {
            budget,
            prices,
            ..Default::default()
        }
    }

    /// Starts from calls made earlier in the run (when it is resumed), so the budget spans both.
    pub fn with_history(self, calls: Vec<CallRecord>) -> Self {
        *self.calls.lock().expect("meter lock") = calls;
        self
    }

    /// Calls `listener` with every call as it is recorded (e.g. to save it).
    pub fn on_call(mut self, listener: impl Fn(&CallRecord) + Send + Sync + 'static) -> Self {
        self.listener = Some(Box::new(listener));
        self
    }

    /// Keeps each call's prompt and answer in its record, redacted by `redactor` (opt-in: they
    /// are large and may quote what the person typed).
    pub fn keeping_exchanges(mut self, redactor: crate::Redactor) -> Self {
        self.exchanges = Some(redactor);
        self
    }

    /// Every call so far.
    pub fn calls(&self) -> Vec<CallRecord> {
        self.calls.lock().map(|c| c.clone()).unwrap_or_default()
    }

    /// Totals over all calls.
    pub fn totals(&self) -> UsageTotals {
        let mut totals = UsageTotals::default();
        for call in self.calls.lock().expect("meter lock").iter() {
            totals.add(call);
        }
        totals
    }

    /// Totals per node.
    pub fn by_node(&self) -> BTreeMap<String, UsageTotals> {
        let mut map = BTreeMap::<String, UsageTotals>::new();
        for call in self.calls.lock().expect("meter lock").iter() {
            map.entry(call.node.clone()).or_default().add(call);
        }
        map
    }

    /// Fails when the budget leaves no room for another call.
    pub fn check(&self) -> Result<(), LlmError> {
        let t = self.totals();
        let spent = |what: String| Err(LlmError::BudgetExhausted { spent: what });
        if let Some(max) = self.budget.max_calls {
            if t.calls >= max {
                return spent(format!("{} of {max} model calls", t.calls));
            }
        }
        if let Some(max) = self.budget.max_tokens {
            if t.tokens() >= max {
                return spent(format!("{} of {max} tokens", t.tokens()));
            }
        }
        if let Some(max) = self.budget.max_cost_usd {
            if t.cost_usd >= max {
                return spent(format!("${:.4} of ${max:.4}", t.cost_usd));
            }
        }
        Ok(())
    }

    fn record(&self, call: CallRecord) {
        if let Some(listener) = &self.listener {
            listener(&call);
        }
        self.calls.lock().expect("meter lock").push(call);
    }
}

/// A client whose calls are checked against the budget and recorded in a [`Meter`].
pub struct Metered {
    inner: Arc<dyn LlmClient>,
    meter: Arc<Meter>,
    node: String,
}

impl Metered {
    /// Meters `inner`'s calls as made by `node`.
    pub fn new(inner: Arc<dyn LlmClient>, meter: Arc<Meter>, node: impl Into<String>) -> Self {
        Self {
            inner,
            meter,
            node: node.into(),
        }
    }
}

#[async_trait]
impl LlmClient for Metered {
    fn spec(&self) -> &str {
        self.inner.spec()
    }

    fn context_tokens(&self) -> Option<usize> {
        self.inner.context_tokens()
    }

    async fn complete(
        &self,
        request: &ChatRequest,
        on_token: Option<TokenSink<'_>>,
    ) -> Result<ChatResponse, LlmError> {
        self.meter.check()?;
        let started = std::time::Instant::now();
        let started_at_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()
            .map(|d| d.as_millis() as i64);
        let result = self.inner.complete(request, on_token).await;
        let (prompt, completion, failed) = match &result {
            Ok(r) => (r.usage.prompt_tokens, r.usage.completion_tokens, false),
            Err(_) => (0, 0, true),
        };
        // Servers that report no usage still cost something: estimate from the text.
        let prompt = if prompt == 0 && !failed {
            request
                .messages
                .iter()
                .map(|m| estimate_tokens(&m.content) as u64)
                .sum()
        } else {
            prompt
        };
        let completion = match &result {
            Ok(r) if completion == 0 => estimate_tokens(&r.text) as u64,
            _ => completion,
        };
        self.meter.record(CallRecord {
            node: self.node.clone(),
            purpose: request.purpose.clone().unwrap_or_default(),
            model: self.inner.spec().to_string(),
            prompt_tokens: prompt,
            completion_tokens: completion,
            latency_ms: started.elapsed().as_millis() as u64,
            started_at_ms,
            cost_usd: self
                .meter
                .prices
                .cost(self.inner.spec(), prompt, completion),
            failed,
            exchange: self.meter.exchanges.as_ref().map(|r| {
                r.exchange(
                    request,
                    result
                        .as_ref()
                        .map(|a| a.text.as_str())
                        .map_err(|e| e.to_string()),
                )
            }),
        });
        result
    }
}

/// A rough token count for budgets and context guards when the model's tokenizer is not at
/// hand: about four characters a token for Latin text, one for CJK.
pub fn estimate_tokens(text: &str) -> usize {
    let mut ascii = 0usize;
    let mut wide = 0usize;
    for c in text.chars() {
        if c.is_ascii() {
            ascii += 1;
        } else if c as u32 >= 0x2E80 {
            wide += 1;
        } else {
            ascii += 2;
        }
    }
    ascii.div_ceil(4) + wide
}

/// Which model answers which pipeline role: a strong model by default, a fast one where the
/// work is narrow (extraction, checking), and any role overridden by name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
pub struct ModelRouting {
    /// The default model string.
    pub model: String,
    /// The model for fast roles (defaults to `model`).
    pub fast_model: Option<String>,
    /// Role name → model string, overriding both.
    pub roles: BTreeMap<String, String>,
}

impl ModelRouting {
    /// One model for everything.
    pub fn single(model: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            ..Default::default()
        }
    }

    /// The model string for `role`: its own override, else the fast model for a role the
    /// caller calls `fast` (which roles those are is the pipeline's rule), else the default.
    pub fn model_for(&self, role: &str, fast: bool) -> &str {
        if let Some(model) = self.roles.get(role) {
            return model;
        }
        match &self.fast_model {
            Some(fast_model) if fast => fast_model,
            _ => &self.model,
        }
    }

    /// Every distinct model string used.
    pub fn models(&self) -> Vec<&str> {
        let mut all: Vec<&str> = std::iter::once(self.model.as_str())
            .chain(self.fast_model.as_deref())
            .chain(self.roles.values().map(String::as_str))
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    }
}

/// Connected clients for a [`ModelRouting`], one per distinct model string.
#[derive(Clone)]
pub struct RoleModels {
    routing: ModelRouting,
    clients: BTreeMap<String, Arc<dyn LlmClient>>,
    meter: Arc<Meter>,
}

impl RoleModels {
    /// Connects every model of `routing` with `connect`.
    pub fn connect(
        routing: ModelRouting,
        meter: Arc<Meter>,
        mut connect: impl FnMut(&str) -> Result<Arc<dyn LlmClient>, LlmError>,
    ) -> Result<Self, LlmError> {
        let mut clients = BTreeMap::new();
        for model in routing.models() {
            clients.insert(model.to_string(), connect(model)?);
        }
        Ok(Self {
            routing,
            clients,
            meter,
        })
    }

    /// The metered client for `role` (answered by the fast model when `fast`), recording calls
    /// as made by `node`.
    pub fn for_role(&self, role: &str, fast: bool, node: &str) -> Metered {
        let spec = self.routing.model_for(role, fast);
        let inner = self.clients[spec].clone();
        Metered::new(inner, self.meter.clone(), node)
    }

    /// The routing these clients serve.
    pub fn routing(&self) -> &ModelRouting {
        &self.routing
    }

    /// The run's meter.
    pub fn meter(&self) -> &Arc<Meter> {
        &self.meter
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Message, ScriptedAnswer, ScriptedLlm};

    #[test]
    fn builtin_prices_parse_and_price_by_longest_prefix() {
        let table = PriceTable::builtin();
        let mini = table.cost("openai:gpt-4o-mini", 1_000_000, 0).unwrap();
        let full = table.cost("openai:gpt-4o", 1_000_000, 0).unwrap();
        assert!(mini < full, "gpt-4o-mini must not be priced as gpt-4o");
        assert_eq!(table.cost("local:/m.gguf", 10, 10), Some(0.0));
        assert_eq!(table.cost("openai:unknown-model", 10, 10), None);
    }

    fn scripted() -> Arc<dyn LlmClient> {
        Arc::new(ScriptedLlm::new(vec![ScriptedAnswer {
            purpose: None,
            contains: None,
            text: Some("four words of answer".into()),
            json: None,
            delay_ms: None,
        }]))
    }

    #[tokio::test]
    async fn exchanges_are_kept_redacted_only_when_asked_for() {
        let request = ChatRequest::new(vec![Message::user("my key sk-test-0123456789abcdefgh")]);
        let plain = Arc::new(Meter::new(Budget::default(), PriceTable::default()));
        Metered::new(scripted(), plain.clone(), "plan")
            .complete(&request, None)
            .await
            .unwrap();
        assert_eq!(plain.calls()[0].exchange, None, "not kept unless asked");
        let keeping = Arc::new(
            Meter::new(Budget::default(), PriceTable::default())
                .keeping_exchanges(crate::Redactor::default()),
        );
        Metered::new(scripted(), keeping.clone(), "plan")
            .complete(&request, None)
            .await
            .unwrap();
        let exchange = keeping.calls()[0].exchange.clone().expect("kept");
        assert_eq!(exchange.messages[0].content, "my key [redacted]");
        assert_eq!(exchange.answer.as_deref(), Some("four words of answer"));
        // The record stays readable by an older reader and by a resumed run.
        let value = serde_json::to_value(&keeping.calls()[0]).unwrap();
        let back: CallRecord = serde_json::from_value(value).unwrap();
        assert_eq!(back.exchange, Some(exchange));
    }

    #[tokio::test]
    async fn calls_are_recorded_per_node_and_the_budget_stops_the_next_call() {
        let meter = Arc::new(Meter::new(
            Budget {
                max_calls: Some(2),
                ..Default::default()
            },
            PriceTable::builtin(),
        ));
        let plan = Metered::new(scripted(), meter.clone(), "plan");
        let write = Metered::new(scripted(), meter.clone(), "write");
        let request = ChatRequest::new(vec![Message::user("hello there")]).purpose("plan");
        plan.complete(&request, None).await.unwrap();
        write.complete(&request, None).await.unwrap();
        let err = write.complete(&request, None).await.unwrap_err();
        assert!(matches!(err, LlmError::BudgetExhausted { .. }), "{err}");
        assert!(err.to_string().contains("2 of 2 model calls"));
        let by_node = meter.by_node();
        assert_eq!(by_node["plan"].calls, 1);
        assert_eq!(by_node["write"].calls, 1);
        assert!(meter.totals().tokens() > 0, "estimated when not reported");
        // A resumed run starts from its history.
        let resumed = Meter::new(
            Budget {
                max_calls: Some(3),
                ..Default::default()
            },
            PriceTable::default(),
        )
        .with_history(meter.calls());
        assert!(resumed.check().is_ok());
    }

    #[test]
    fn routing_sends_fast_roles_to_the_fast_model_and_overrides_win() {
        let mut routing = ModelRouting::single("openai:gpt-4o");
        routing.fast_model = Some("openai:gpt-4o-mini".into());
        routing
            .roles
            .insert("write".into(), "anthropic:claude-sonnet-4-5".into());
        assert_eq!(routing.model_for("plan", false), "openai:gpt-4o");
        assert_eq!(routing.model_for("extract", true), "openai:gpt-4o-mini");
        assert_eq!(
            routing.model_for("write", false),
            "anthropic:claude-sonnet-4-5"
        );
        assert_eq!(routing.models().len(), 3);
    }

    #[test]
    fn token_estimates_count_cjk_per_character() {
        assert_eq!(estimate_tokens("abcdefgh"), 2);
        assert_eq!(estimate_tokens("日本語"), 3);
    }
}
