//! Typed state and per-field reducers.
//!
//! A graph's state is an ordinary Rust struct. Nodes never mutate it: they return an *update*, a
//! twin struct whose fields are all optional, and the engine folds the updates of one superstep
//! into the state field by field with that field's [`Reducer`]. The [`state!`](crate::state)
//! macro writes the twin struct and the folding code from one declaration.

use std::collections::BTreeMap;
use std::ops::AddAssign;

use serde::{de::DeserializeOwned, Serialize};

/// A two-writer conflict or another reducer failure, found while applying one superstep's writes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReduceError {
    /// Two tasks of the same superstep wrote a field whose reducer keeps only one value.
    #[error(
        "field `{field}` was written by more than one task in the same step; \
         give it an accumulating reducer (Append, Sum, MergeByKey) or write it from one node"
    )]
    ConflictingWrites {
        /// The state field both tasks wrote.
        field: &'static str,
    },
}

/// The state of a graph: a value plus the rule that folds a superstep's updates into it.
///
/// Implement it with [`state!`](crate::state) rather than by hand.
pub trait State: Clone + Send + Sync + Serialize + DeserializeOwned + 'static {
    /// A partial write to the state, as returned by one node.
    type Update: Clone + Default + Send + Sync + Serialize + DeserializeOwned + 'static;

    /// Folds the updates of one superstep into `self`, in the order given (the engine passes them
    /// in task order, never in finishing order).
    fn apply(&mut self, updates: Vec<Self::Update>) -> Result<(), ReduceError>;
}

/// How a field combines the writes it receives.
///
/// `writes_before` is the number of writes this field already took in the current superstep, so
/// that a reducer can refuse a second one.
pub trait Reducer<T> {
    /// Folds `update` into `current`.
    fn reduce(
        current: &mut T,
        update: T,
        writes_before: usize,
        field: &'static str,
    ) -> Result<(), ReduceError>;
}

/// Keeps the last value; a second write in one superstep is an error, never a silent overwrite.
#[derive(Debug, Clone, Copy)]
pub struct Replace;

impl<T> Reducer<T> for Replace {
    fn reduce(
        current: &mut T,
        update: T,
        writes_before: usize,
        field: &'static str,
    ) -> Result<(), ReduceError> {
        if writes_before > 0 {
            return Err(ReduceError::ConflictingWrites { field });
        }
        *current = update;
        Ok(())
    }
}

/// Appends the written items to a `Vec` (LangGraph's `Annotated[list, operator.add]`).
#[derive(Debug, Clone, Copy)]
pub struct Append;

impl<T> Reducer<Vec<T>> for Append {
    fn reduce(
        current: &mut Vec<T>,
        update: Vec<T>,
        _: usize,
        _: &'static str,
    ) -> Result<(), ReduceError> {
        current.extend(update);
        Ok(())
    }
}

/// Adds the written value to the current one (counters, token totals).
#[derive(Debug, Clone, Copy)]
pub struct Sum;

impl<T: AddAssign> Reducer<T> for Sum {
    fn reduce(current: &mut T, update: T, _: usize, _: &'static str) -> Result<(), ReduceError> {
        *current += update;
        Ok(())
    }
}

/// Merges maps key by key; when two writes carry the same key, the later task in task order wins.
#[derive(Debug, Clone, Copy)]
pub struct MergeByKey;

impl<K: Ord, V> Reducer<BTreeMap<K, V>> for MergeByKey {
    fn reduce(
        current: &mut BTreeMap<K, V>,
        update: BTreeMap<K, V>,
        _: usize,
        _: &'static str,
    ) -> Result<(), ReduceError> {
        current.extend(update);
        Ok(())
    }
}

/// Declares a state struct, its update struct and the per-field reducers in one place.
///
/// ```
/// use std::collections::BTreeMap;
/// research_graph::state! {
///     /// What the demo graph carries.
///     pub struct Demo / DemoUpdate {
///         /// Set once by the planner.
///         pub topic: String => Replace,
///         /// Every worker adds its line.
///         pub lines: Vec<String> => Append,
///         /// Summed over all writers.
///         pub tokens: u64 => Sum,
///         /// Keyed results.
///         pub by_id: BTreeMap<String, u32> => MergeByKey,
///     }
/// }
/// let update = DemoUpdate { lines: Some(vec!["a".into()]), ..Default::default() };
/// # let _ = update;
/// ```
///
/// Every field of the update struct is an `Option` of the field's type; `None` means "not written".
#[macro_export]
macro_rules! state {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident / $update:ident {
            $(
                $(#[$fmeta:meta])*
                $fvis:vis $field:ident : $ty:ty => $reducer:ident
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Default, PartialEq, $crate::__serde::Serialize, $crate::__serde::Deserialize)]
        #[serde(crate = "research_graph::__serde", default)]
        $vis struct $name {
            $( $(#[$fmeta])* $fvis $field: $ty, )*
        }

        #[doc = concat!("A partial write to [`", stringify!($name), "`]; `None` fields are not written.")]
        #[derive(Clone, Debug, Default, PartialEq, $crate::__serde::Serialize, $crate::__serde::Deserialize)]
        #[serde(crate = "research_graph::__serde", default)]
        $vis struct $update {
            $(
                #[doc = concat!("New value for `", stringify!($field), "`, folded with `", stringify!($reducer), "`.")]
                #[serde(skip_serializing_if = "Option::is_none")]
                $fvis $field: Option<$ty>,
            )*
        }

        impl $crate::State for $name {
            type Update = $update;

            #[allow(unused_variables, unused_mut)]
            fn apply(&mut self, updates: Vec<$update>) -> Result<(), $crate::ReduceError> {
                $( let mut $field: usize = 0; )*
                for update in updates {
                    $(
                        if let Some(value) = update.$field {
                            <$crate::$reducer as $crate::Reducer<$ty>>::reduce(
                                &mut self.$field, value, $field, stringify!($field),
                            )?;
                            $field += 1;
                        }
                    )*
                }
                Ok(())
            }
        }
    };
}
