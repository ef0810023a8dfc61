//! The conformance suite against the in-memory checkpointer.
use std::sync::Arc;

research_graph::checkpointer_conformance!(Arc::new(research_graph::MemoryCheckpointer::new()));
