//! Plans: research questions that are questions, searches that are keyword queries, and the plan
//! built from the question itself when the model's is unusable.

#[allow(unused_imports)]
use super::*;

// ---------------------------------------------------------------------------------------------
// Plans
// ---------------------------------------------------------------------------------------------

pub(super) fn is_list_number(token: &str) -> bool {
    let digits = token.bytes().take_while(u8::is_ascii_digit).count();
    (1..=3).contains(&digits) && matches!(&token[digits..], "." | ")" | "" | ",")
}

/// Whether `text` has a run of list numbers ("1. 1. 2. 3.") or ends in one ("… 19.").
pub(super) fn has_list_run(text: &str) -> bool {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let marker = |t: &str| is_list_number(t) && !t.bytes().all(|b| b.is_ascii_digit());
    let bare = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    let run = tokens
        .windows(2)
        .any(|w| (marker(w[0]) && is_list_number(w[1])) || (is_list_number(w[0]) && marker(w[1])));
    let bare_run = tokens.windows(3).any(|w| w.iter().all(|t| bare(t)));
    let trailing = tokens.len() > 1 && tokens.last().is_some_and(|t| marker(t));
    run || bare_run || trailing
}

/// Whether `q` is more than one question, or filler: a numbered item after a sentence ends
/// ("…? 3. No, no, no! 4. …", a tiny model's list run on), an exclamation (a research question
/// asks, it does not exclaim), or a word said three times in a row ("no, no, no"). Headings a
/// reader sees are made of research questions, so none of these may become one.
pub(super) fn not_one_question(q: &str) -> bool {
    let tokens: Vec<&str> = q.split_whitespace().collect();
    let ends_sentence = |t: &str| t.ends_with(['?', '!', '.', '？', '！', '。']);
    let numbered_after_an_end = tokens
        .windows(2)
        .any(|w| ends_sentence(w[0]) && is_list_number(w[1]));
    let exclaims = q.contains(['!', '！']);
    let words: Vec<String> = q.unicode_words().map(str::to_lowercase).collect();
    let stutter = words.windows(3).any(|w| w[0] == w[1] && w[1] == w[2]);
    numbered_after_an_end || exclaims || stutter
}

/// Whether digits are more than [`MAX_DIGIT_SHARE`] of the letters and digits of `text`.
pub(super) fn mostly_digits(text: &str) -> bool {
    let (mut digits, mut alnum) = (0usize, 0usize);
    for c in text.chars().filter(|c| c.is_alphanumeric()) {
        alnum += 1;
        digits += usize::from(c.is_numeric());
    }
    alnum == 0 || digits as f64 > MAX_DIGIT_SHARE * alnum as f64
}

/// The last word of `text` (any script), lower-cased.
pub(super) fn last_word(text: &str) -> Option<String> {
    text.unicode_words().next_back().map(str::to_lowercase)
}

/// Whether `text` ends on something that can end a question or a query rather than mid-phrase:
/// not on a dangling function word or particle, and not on a consonant run no English word
/// ends with ("infrastr").
pub(super) fn ends_on_word(text: &str) -> bool {
    let Some(last) = last_word(text) else {
        return false;
    };
    if last.chars().all(is_hiragana) {
        let text = text.trim_end();
        return !JA_DANGLING.split_whitespace().any(|p| text.ends_with(p));
    }
    if listed(DANGLING, &last) {
        return false;
    }
    if last.len() >= 4 && last.bytes().all(|b| b.is_ascii_lowercase()) {
        let consonants = last
            .bytes()
            .rev()
            .take_while(|b| !b"aeiouy".contains(b))
            .count();
        let tail = &last[last.len() - consonants..];
        if consonants >= 3 && !listed(ENGLISH_FINAL_CLUSTERS, tail) {
            return false;
        }
        if matches!(last.as_bytes()[last.len() - 1], b'j' | b'q') {
            return false;
        }
    }
    true
}

/// Consonant runs of three or more that end English words (a truncated word ends elsewhere).
pub(super) const ENGLISH_FINAL_CLUSTERS: &str =
    "chs cks cts dth dths ffs fth fts ghs ght ghts hts lch lds lfs lks lls lms lph lps lsh lth \
    lths lts mbs mph mps mpt mpts nch nct ncts nds ngs ngst ngth ngths nks nth nths nts phs pts \
    rbs rch rcs rds rgs rks rld rlds rls rms rns rph rps rsh rst rth rths rts sch shs sks sms \
    sps sts tch ths tts wls wns wth xth xts";

/// Whether `q` can stand as a research question: built from words (at least
/// [`QUESTION_MIN_WORDS`] content words, or [`QUESTION_MIN_CJK`] CJK characters), not mostly
/// digits, without runs of list numbers ("… 1. 1. 2. 3."), and not cut off: a question that
/// opens like one ("What", "How", "Does" …) ends with a question mark, and any other ends on a
/// complete word, not on "the" or a particle.
pub fn usable_question(q: &str) -> bool {
    let q = q.trim();
    if q.is_empty()
        || degenerate(q).is_some()
        || has_list_run(q)
        || mostly_digits(q)
        || not_one_question(q)
    {
        return false;
    }
    let words = tokens(q).iter().filter(|t| t.kind != Kind::Number).count();
    if words < QUESTION_MIN_WORDS && cjk_chars(q) < QUESTION_MIN_CJK {
        return false;
    }
    let end = q
        .trim_end_matches(['"', '\'', '”', '’', ')', '」', '』', '*'])
        .chars()
        .last()
        .unwrap_or(' ');
    if matches!(end, '?' | '？' | '!' | '！' | '。') {
        return true;
    }
    let first = q
        .unicode_words()
        .next()
        .map(str::to_lowercase)
        .unwrap_or_default();
    if listed(INTERROGATIVE, &first) {
        return false; // a question that never reached its question mark was cut off
    }
    // Japanese questions end with か or a noun; a trailing particle means it was cut.
    end == '.' || ends_on_word(q)
}

/// Whether `note` can stand as a planner's note to a person (its approach, a concern about the
/// scope): a sentence of words — at least [`QUESTION_MIN_WORDS`] content words or
/// [`QUESTION_MIN_CJK`] CJK characters — that does not loop, run into list numbers, stutter
/// ("no, no, no") or exclaim, and is not mostly digits. A tiny model's filler is dropped, not
/// shown to the person as the planner's view.
pub fn usable_note(note: &str) -> bool {
    let note = note.trim();
    if note.is_empty()
        || degenerate(note).is_some()
        || has_list_run(note)
        || mostly_digits(note)
        || not_one_question(note)
    {
        return false;
    }
    let words = tokens(note)
        .iter()
        .filter(|t| t.kind != Kind::Number)
        .count();
    words >= QUESTION_MIN_WORDS || cjk_chars(note) >= QUESTION_MIN_CJK
}

/// Whether `q` can be sent as a web search: a keyword query of at most [`SEARCH_MAX_WORDS`]
/// words with at least one content word of [`SEARCH_MIN_LETTERS`] letters (or a CJK word), not
/// mostly digits ("1. 1. 2. 3.", "10,") or punctuation ("**name\[\]**"), and not ending on a
/// dangling "the" or particle.
pub fn usable_search(q: &str) -> bool {
    let q = q.trim();
    if q.is_empty() || has_list_run(q) || word_count(q) > SEARCH_MAX_WORDS {
        return false;
    }
    let has_word = tokens(q).iter().any(|t| match t.kind {
        Kind::Word => t.text.chars().filter(|c| c.is_alphabetic()).count() >= SEARCH_MIN_LETTERS,
        Kind::Han | Kind::Katakana => true,
        Kind::Number => false,
    });
    if !has_word {
        return false;
    }
    let all: Vec<&str> = q.unicode_words().collect();
    let numeric = all
        .iter()
        .filter(|w| w.chars().next().is_some_and(is_digit))
        .count();
    if numeric as f64 > MAX_DIGIT_SHARE * all.len() as f64 {
        return false;
    }
    let (mut punct, mut visible) = (0usize, 0usize);
    for c in q.chars().filter(|c| !c.is_whitespace()) {
        visible += 1;
        punct += usize::from(!c.is_alphanumeric());
    }
    if punct as f64 > SEARCH_MAX_PUNCT_SHARE * visible as f64 {
        return false;
    }
    ends_on_word(q)
}

/// Whether search `q` is about the research: it shares a content word with the question, a
/// research question or an aspect. A small model's plan can hold a lone word from its own
/// prompt ("assistant", "json") that is a fine query about nothing the user asked.
pub fn on_topic(q: &str, context: &[&str]) -> bool {
    let words: std::collections::BTreeSet<String> =
        context.iter().flat_map(|c| content_words(c)).collect();
    content_words(q).iter().any(|w| words.contains(w))
}

/// Whether `aspect` can be a section of the report: a heading — at most [`ASPECT_MAX_WORDS`]
/// words, not ending like a sentence, not degenerate. A small model's outline can be sentences
/// from its own prompt ("Question outlines are created by the user, which can be used"); an
/// aspect may name what the question does not (a report on Rust's memory has "Borrowing").
pub fn usable_aspect(aspect: &str) -> bool {
    let aspect = aspect.trim();
    let words = aspect.split_whitespace().count();
    words > 0
        && words <= ASPECT_MAX_WORDS
        && !aspect.ends_with(['.', '!', '?', ';', ':', ',', '。'])
        && degenerate(aspect).is_none()
}

/// The content words of `question` as search phrases: words that touch in the text (Japanese
/// kanji and katakana runs) are joined without a space, numbers stay only next to words.
pub(super) fn phrases(question: &str) -> Vec<String> {
    let clean = without_citations(question);
    // A word written in capitals is a name, not filler ("EXPLAIN ANALYZE") — unless the whole
    // question is ("HOW DO I MAKE SURE …").
    let toks = question_tokens(question);
    let shouted = shouts(question);
    let mut out: Vec<String> = Vec::new();
    let mut prev_end: Option<usize> = None;
    for t in toks {
        if QUESTION_FILLER.contains(&t.text.as_str())
            && (shouted || !in_capitals(&clean[t.start..t.end]))
        {
            prev_end = None;
            continue;
        }
        let touching = prev_end == Some(t.start)
            && matches!(t.kind, Kind::Han | Kind::Katakana)
            && clean[..t.start].chars().last().is_some_and(is_cjk);
        match out.last_mut() {
            Some(last) if touching => last.push_str(&t.text),
            _ => {
                if !out.contains(&t.text) {
                    out.push(t.text)
                }
            }
        }
        prev_end = Some(t.end);
    }
    out
}

/// Words of a question's phrasing, not of its subject ("how does SQLite *make sure* …", "what
/// *happens* when …"): searched, they find pages about making and happening. Seen in a
/// fallback plan for SQLite's documentation, where "make sure" and "sqlite make" read pages about
/// building SQLite instead of the one about atomic commit. Japanese verb stems say the same
/// (使 "use" in 使いますか, 違 "differ" in 違いは): a lone 使 searched read GIMP's pages on
/// the canvas filter and on layer size for a question on the cage tool.
const QUESTION_FILLER: &[&str] = &[
    "使",
    "違",
    "make",
    "makes",
    "made",
    "sure",
    "ensure",
    "ensures",
    "happen",
    "happens",
    "happened",
    "work",
    "works",
    "way",
    "ways",
    "thing",
    "things",
    "kind",
    "kinds",
    "exactly",
    "really",
    "actually",
    "possible",
    "able",
    "get",
    "gets",
    "tell",
    "explain",
    "know",
    "difference",
    "differences",
    "different",
    "mean",
    "means",
    "use",
    "used",
    "using",
];

/// What a question names as its subject: the words written as names — a capital inside a
/// sentence ("Cachegrind", "GDB"; not in Title Case), letters with digits ("SQLite3",
/// "HTTP2"), an option ("--track-origins"), or joined by `_` or a dot between words
/// ("cg_annotate", "node.js"; not "e.g.") — each kept as its
/// [`topic_terms`], with the question's other terms beside them. A page that names none of
/// them and shares fewer than two of the other terms is about something else: "What does
/// Cachegrind measure?" searched as "measure" read Massif's page ("It measures how much heap
/// memory your program uses"), while "How does Rust manage memory compared with garbage
/// collection?" is answered in part by a page on garbage collection that never says "Rust".
/// A question written in lower case, or in Japanese, names nothing and is not narrowed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Anchors {
    names: Vec<HashSet<String>>,
    /// Each name as the question writes it, in the question's order.
    shown: Vec<String>,
    others: HashSet<String>,
}

/// Terms besides its names that a text shares with a question to be about it without naming.
pub const ABOUT_WITHOUT_NAMES: usize = 2;

impl Anchors {
    /// The names in `question`.
    pub fn of(question: &str) -> Self {
        // Curly apostrophes as straight ones, so "Apple’s" is Apple's, and its "'s" goes.
        let question = question.replace(['\u{2019}', '\u{2018}'], "'");
        // Words as runs of letters, digits and joiners: "GIMPでレイヤー" gives "GIMP" (a
        // Japanese question has no spaces), and the kana and kanji are never a name.
        let cjk = question.chars().any(is_cjk);
        let runs: Vec<&str> = question
            .split(|c: char| c.is_whitespace() || is_cjk(c) || c == '、' || c == '？')
            .filter(|r| !r.is_empty())
            .collect();
        let cased = |w: &str| w.chars().next().is_some_and(char::is_uppercase);
        // Title Case ("How To Use Git Rebase?") capitalises every word: capitals say nothing.
        let title_case =
            runs.len() >= 3 && runs.iter().filter(|w| cased(w)).count() * 2 > runs.len();
        let mut names: Vec<HashSet<String>> = Vec::new();
        let mut shown = Vec::new();
        let mut sentence_start = true;
        for raw in runs {
            let starts = sentence_start && !cjk;
            sentence_start = raw.ends_with(['.', '?', '!', ':']);
            if raw.contains("://") || raw.starts_with("www.") {
                continue;
            }
            let word = raw.trim_matches(|c: char| !(c.is_alphanumeric() || c == '+' || c == '#'));
            let word = word.trim_start_matches(['+', '#']);
            let word = word.strip_suffix("'s").unwrap_or(word);
            if !word.chars().any(char::is_alphabetic) {
                continue;
            }
            // A dot inside a name has a word on each side ("node.js"), not "e.g".
            let dotted = word.split('.').filter(|p| p.chars().count() >= 2).count() >= 2;
            let capital = word.chars().any(char::is_uppercase) && !starts && !title_case;
            let named = capital
                || word.chars().skip(1).any(char::is_uppercase)
                || word.chars().any(|c| c.is_ascii_digit())
                || word.contains('_')
                || dotted
                || raw.trim_start().starts_with("--");
            if !named {
                continue;
            }
            // A name of numbers alone ("C++20" keeps "20") names nothing to look for; a stop
            // word written in capitals is a name ("EXPLAIN").
            let terms = name_terms(word);
            let wordless = terms.iter().all(|t| t.chars().all(|c| !c.is_alphabetic()));
            if !wordless && !names.contains(&terms) {
                names.push(terms);
                shown.push(word.to_string());
            }
        }
        let mut others = topic_term_set(&question);
        for name in &names {
            others.retain(|t| !name.contains(t));
        }
        Self {
            names,
            shown,
            others,
        }
    }

    /// The question's names as it wrote them, for a reader: "Massif", "Cachegrind, GDB".
    pub fn listed(&self) -> String {
        self.shown.join(", ")
    }

    /// How many names the question writes.
    pub fn count(&self) -> usize {
        self.names.len()
    }

    /// Whether the question names nothing (then nothing is narrowed by its names).
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Whether `text` names one of the question's names (every term of it), or the question
    /// names none.
    pub fn named_in(&self, text: &str) -> bool {
        self.names.is_empty() || self.named_in_terms(&terms_naming(text).into_iter().collect())
    }

    /// Whether `text` is [`Anchors::about`] the question, and how many of its names it names: a
    /// page naming both things a question compares ("EXPLAIN" and "ANALYZE") says more of it
    /// than one naming one. The text is read once for both.
    pub fn about_naming(&self, text: &str) -> (bool, usize) {
        if self.names.is_empty() {
            return (true, 0);
        }
        let terms: HashSet<String> = terms_naming(text).into_iter().collect();
        let named = self.names.iter().filter(|n| n.is_subset(&terms)).count();
        let about = named > 0 || self.others.intersection(&terms).count() >= ABOUT_WITHOUT_NAMES;
        (about, named)
    }

    fn named_in_terms(&self, terms: &HashSet<String>) -> bool {
        self.names.iter().any(|name| name.is_subset(terms))
    }

    /// Whether the question asks what its subject is or does: it names something and says at
    /// most one other thing ("What does Cachegrind measure?", "What is Helgrind?"), so the
    /// opening of the subject's own page answers it; "How does Memcheck detect uninitialised
    /// values?" asks for the section that says so.
    pub fn asks_what_it_is(&self) -> bool {
        !self.names.is_empty() && self.others.len() <= 1
    }

    /// Whether `text` opens with one of the question's names: it says what that is or does
    /// ("Cachegrind simulates …"), where a text that names it later speaks of something else
    /// by it ("Callgrind's cache simulation is based on that of Cachegrind").
    pub fn leads(&self, text: &str) -> bool {
        let terms = terms_naming(text);
        self.names.iter().any(|name| {
            let opening: HashSet<String> = terms.iter().take(name.len()).cloned().collect();
            opening == *name
        })
    }

    /// Whether `text` is about the question as far as its names tell: it names one, shares
    /// [`ABOUT_WITHOUT_NAMES`] of the question's other terms, or the question names nothing.
    pub fn about(&self, text: &str) -> bool {
        self.about_naming(text).0
    }
}

/// A plan built from the user's question alone, for when the model's plan is not usable: the
/// question itself as the one research question, and up to `max_searches` keyword queries from
/// its content words (all of them, then adjacent pairs, then the first word with each later
/// one, then single words), each usable and distinct from the ones before
/// (`query_similarity` below [`DUPLICATE_QUERY`]).
pub fn fallback_plan(question: &str, max_searches: usize) -> (Vec<String>, Vec<String>) {
    let q = question.trim();
    let questions = if q.is_empty() {
        Vec::new()
    } else {
        vec![q.to_string()]
    };
    let words = phrases(q);
    let mut candidates: Vec<String> = Vec::new();
    if !words.is_empty() {
        candidates.push(words[..words.len().min(FALLBACK_QUERY_WORDS)].join(" "));
    }
    candidates.extend(words.windows(2).map(|w| w.join(" ")));
    if let Some(first) = words.first() {
        candidates.extend(words.iter().skip(2).map(|w| format!("{first} {w}")));
    }
    // A single word searched alone finds pages about that word: when the question names its
    // subject, only the name is searched alone ("cachegrind", never "measure").
    let anchors = Anchors::of(q);
    candidates.extend(
        words
            .iter()
            .filter(|w| w.chars().count() >= 4 || w.chars().any(is_cjk))
            .filter(|w| anchors.is_empty() || anchors.named_in(w))
            .cloned(),
    );
    let mut searches: Vec<String> = Vec::new();
    for c in candidates {
        if searches.len() >= max_searches {
            break;
        }
        if usable_search(&c)
            && searches
                .iter()
                .all(|s| query_similarity(s, &c) < DUPLICATE_QUERY)
        {
            searches.push(c);
        }
    }
    if searches.is_empty() && max_searches > 0 && usable_search(q) {
        searches.push(q.to_string());
    }
    (questions, searches)
}
