//! The fitted combination of the signals: a logistic regression and the two thresholds that
//! turn its probability into a status, read from a small text file.
//!
//! The committed file (`weights.txt`, next to this crate's `Cargo.toml`) says how it was
//! fitted; `research check --weights FILE` reads another one of the same format, so anyone can
//! calibrate the checker on their own judgements (`scripts/attribution-bench.py` does, fold by
//! fold).

use std::sync::LazyLock;

use crate::signals::{Signals, NAMES};

/// The committed weights for words alone, fitted on AttributionBench's dev split.
const COMMITTED: &str = include_str!("../weights.txt");

/// The committed weights for words and meaning (the sentence model's signals), fitted on the
/// same rows with the model installed.
const COMMITTED_MEANING: &str = include_str!("../weights-meaning.txt");

/// A weights file that cannot be read.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum WeightsError {
    /// A line is not `name value`.
    #[error("line {line}: expected `name value`, found {found:?}")]
    Syntax {
        /// The line's number, from 1.
        line: usize,
        /// The line as written.
        found: String,
    },
    /// A name that is not a signal, `bias`, `verified_above`, `unsupported_below` or
    /// `verified_precision`.
    #[error("line {line}: unknown name {name:?} (the names are bias, verified_above, unsupported_below, verified_precision and the signals: {})", NAMES.join(", "))]
    Unknown {
        /// The line's number, from 1.
        line: usize,
        /// The name.
        name: String,
    },
    /// A required name is not in the file.
    #[error("the weights file has no {0:?}")]
    Missing(&'static str),
    /// The thresholds are not probabilities with `unsupported_below` ≤ `verified_above`, or the
    /// measured precision is not a share.
    #[error("the thresholds must satisfy 0 <= unsupported_below <= verified_above <= 1, and verified_precision be between 0 and 1")]
    Thresholds,
}

/// A logistic regression over [`Signals`] and the thresholds of the statuses.
#[derive(Debug, Clone, PartialEq)]
pub struct Weights {
    /// The intercept.
    pub bias: f64,
    /// One weight per signal, in the order of [`NAMES`] (a signal not in the file weighs 0).
    pub signals: [f64; NAMES.len()],
    /// A probability at or above this is `verified`: chosen where verified was measured to be
    /// right at least nine times in ten.
    pub verified_above: f64,
    /// A probability below this is `unsupported`.
    pub unsupported_below: f64,
    /// How often `verified` was right on judgements these weights were not fitted on (the
    /// held-out folds of the fitting script), 0 to 1; `None` when the file does not say. The
    /// legend of the ✓ states it, so the mark says what it is worth.
    pub verified_precision: Option<f64>,
}

impl Weights {
    /// The committed weights for words alone (no sentence model).
    pub fn committed() -> &'static Weights {
        static W: LazyLock<Weights> = LazyLock::new(|| {
            Weights::parse(COMMITTED).expect("the committed weights file parses (tested)")
        });
        &W
    }

    /// The committed weights for words and meaning: what a check reads with when the sentence
    /// model is installed.
    pub fn committed_meaning() -> &'static Weights {
        static W: LazyLock<Weights> = LazyLock::new(|| {
            Weights::parse(COMMITTED_MEANING).expect("the committed weights file parses (tested)")
        });
        &W
    }

    /// The committed weights for how this program reads: with meaning when a sentence model is
    /// installed ([`crate::meaning::installed`]), else words alone. One rule, so that a ✓'s
    /// legend states the precision of the weights that gave it.
    pub fn active() -> &'static Weights {
        if crate::meaning::installed().is_some() {
            Self::committed_meaning()
        } else {
            Self::committed()
        }
    }

    /// Reads a weights file: one `name value` per line, `#` comments and blank lines ignored.
    pub fn parse(text: &str) -> Result<Weights, WeightsError> {
        let mut w = Weights {
            bias: 0.0,
            signals: [0.0; NAMES.len()],
            verified_above: f64::NAN,
            unsupported_below: f64::NAN,
            verified_precision: None,
        };
        let mut bias = false;
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let syntax = || WeightsError::Syntax {
                line: i + 1,
                found: raw.to_string(),
            };
            let mut parts = line.split_whitespace();
            let (Some(name), Some(value), None) = (parts.next(), parts.next(), parts.next()) else {
                return Err(syntax());
            };
            let value: f64 = value.parse().map_err(|_| syntax())?;
            if !value.is_finite() {
                return Err(syntax());
            }
            match name {
                "bias" => {
                    w.bias = value;
                    bias = true;
                }
                "verified_above" => w.verified_above = value,
                "unsupported_below" => w.unsupported_below = value,
                "verified_precision" if (0.0..=1.0).contains(&value) => {
                    w.verified_precision = Some(value)
                }
                "verified_precision" => return Err(WeightsError::Thresholds),
                _ => match NAMES.iter().position(|n| *n == name) {
                    Some(k) => w.signals[k] = value,
                    None => {
                        return Err(WeightsError::Unknown {
                            line: i + 1,
                            name: name.to_string(),
                        })
                    }
                },
            }
        }
        if !bias {
            return Err(WeightsError::Missing("bias"));
        }
        if w.verified_above.is_nan() {
            return Err(WeightsError::Missing("verified_above"));
        }
        if w.unsupported_below.is_nan() {
            return Err(WeightsError::Missing("unsupported_below"));
        }
        if !(0.0 <= w.unsupported_below
            && w.unsupported_below <= w.verified_above
            && w.verified_above <= 1.0)
        {
            return Err(WeightsError::Thresholds);
        }
        Ok(w)
    }

    /// The probability that a person calls a sentence with these signals attributable.
    pub fn probability(&self, s: &Signals) -> f64 {
        let z: f64 = self.bias
            + self
                .signals
                .iter()
                .zip(s.values())
                .map(|(w, x)| w * x)
                .sum::<f64>();
        1.0 / (1.0 + (-z).exp())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_weights_parse() {
        for file in [COMMITTED, COMMITTED_MEANING] {
            let w = Weights::parse(file).unwrap();
            assert!(w.verified_above > w.unsupported_below);
            // The committed file says how often its ✓ was right on held-out judgements.
            assert!(w.verified_precision.is_some_and(|p| p >= 0.9), "{w:?}");
        }
        // Words alone give the meaning signals no weight: they are 0 without the model.
        let words = Weights::committed();
        for name in [
            "meaning",
            "token_recall",
            "token_weakest",
            "token_precision",
        ] {
            let i = NAMES.iter().position(|n| *n == name).unwrap();
            assert_eq!(words.signals[i], 0.0, "{name}");
        }
    }

    #[test]
    fn a_wrong_file_is_a_clear_error() {
        assert_eq!(
            Weights::parse("bias 1\nverified_above 0.9\nunsupported_below 0.2\nsize 3"),
            Err(WeightsError::Unknown {
                line: 4,
                name: "size".into()
            })
        );
        assert!(matches!(
            Weights::parse("bias one"),
            Err(WeightsError::Syntax { line: 1, .. })
        ));
        assert_eq!(
            Weights::parse("bias 1\nunsupported_below 0.2"),
            Err(WeightsError::Missing("verified_above"))
        );
        assert_eq!(
            Weights::parse("bias 1\nverified_above 0.2\nunsupported_below 0.5"),
            Err(WeightsError::Thresholds)
        );
        assert_eq!(
            Weights::parse(
                "bias 1\nverified_above 0.9\nunsupported_below 0.2\nverified_precision 96"
            ),
            Err(WeightsError::Thresholds)
        );
    }
}
