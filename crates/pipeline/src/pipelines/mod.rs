//! The pipelines, one module each: its state, thin node adapters over the shared
//! [`steps`](crate::steps), its wiring, and its [`Flow`](crate::Flow) impl.

pub mod review;
pub mod standard;
pub mod trust;
