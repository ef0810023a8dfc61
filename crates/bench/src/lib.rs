//! Benchmarks of the research-graph engine; see `benches/engine.rs` and BENCHMARKS.md.
#![deny(missing_docs)]
