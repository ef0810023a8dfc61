//! Every vector scanned: exact, nothing to keep in step, a few milliseconds for tens of
//! thousands of passages.

use std::collections::HashMap;
use std::sync::RwLock;

use crate::{best_first, check_dimensions, Nearest, NearestError, Neighbour};

/// Vectors in one matrix, searched by a scan.
#[derive(Debug)]
pub struct Exact {
    dimensions: usize,
    held: RwLock<Held>,
}

#[derive(Debug, Default)]
struct Held {
    ids: Vec<i64>,
    rows: HashMap<i64, usize>,
    data: Vec<f32>,
}

impl Exact {
    /// An empty index of vectors of `dimensions`.
    pub fn new(dimensions: usize) -> Self {
        Self {
            dimensions,
            held: RwLock::new(Held::default()),
        }
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Held> {
        self.held.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Held> {
        self.held.write().unwrap_or_else(|p| p.into_inner())
    }
}

impl Nearest for Exact {
    fn dimensions(&self) -> usize {
        self.dimensions
    }

    fn add(&self, vectors: &[(i64, Vec<f32>)]) -> Result<(), NearestError> {
        for (_, v) in vectors {
            check_dimensions(self.dimensions, v)?;
        }
        let d = self.dimensions;
        let mut held = self.write();
        for (id, v) in vectors {
            match held.rows.get(id).copied() {
                Some(row) => held.data[row * d..(row + 1) * d].copy_from_slice(v),
                None => {
                    let row = held.ids.len();
                    held.ids.push(*id);
                    held.rows.insert(*id, row);
                    held.data.extend_from_slice(v);
                }
            }
        }
        Ok(())
    }

    fn remove(&self, ids: &[i64]) -> Result<(), NearestError> {
        let d = self.dimensions;
        let mut held = self.write();
        for id in ids {
            let Some(row) = held.rows.remove(id) else {
                continue;
            };
            // The last row moves into the hole.
            let last = held.ids.len() - 1;
            if row != last {
                let moved = held.ids[last];
                held.data.copy_within(last * d..(last + 1) * d, row * d);
                held.ids[row] = moved;
                held.rows.insert(moved, row);
            }
            held.ids.pop();
            held.data.truncate(last * d);
        }
        Ok(())
    }

    fn nearest(&self, query: &[f32], depth: usize) -> Result<Vec<Neighbour>, NearestError> {
        check_dimensions(self.dimensions, query)?;
        let held = self.read();
        let mut found: Vec<Neighbour> = held
            .data
            .chunks_exact(self.dimensions)
            .zip(&held.ids)
            .map(|(v, id)| Neighbour {
                id: *id,
                similarity: v.iter().zip(query).map(|(a, b)| a * b).sum(),
            })
            .collect();
        if found.len() > depth && depth > 0 {
            found.select_nth_unstable_by(depth - 1, |a, b| {
                b.similarity.total_cmp(&a.similarity).then(a.id.cmp(&b.id))
            });
        }
        found.truncate(depth);
        best_first(&mut found);
        Ok(found)
    }

    fn ids(&self) -> Vec<i64> {
        let mut ids = self.read().ids.clone();
        ids.sort_unstable();
        ids
    }

    fn len(&self) -> usize {
        self.read().ids.len()
    }
}
