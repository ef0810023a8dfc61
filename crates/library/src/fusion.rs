//! Reciprocal rank fusion: merges ranked lists by rank alone, so that BM25 scores and cosine
//! similarities, which share no scale, never have to be compared.

use std::collections::HashMap;
use std::hash::Hash;

/// The constant of reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009): an item's score
/// is the sum over the lists of `1 / (RRF_K + rank)`, rank counted from 1. Large enough that
/// being first in one list does not outweigh being near the top of both.
pub const RRF_K: f64 = 60.0;

/// Merges ranked lists (best first) into one, best first. Ties go to the item with the better
/// single rank, then to the earlier list, so the order is deterministic.
pub fn fuse_by_rank<T: Copy + Eq + Hash>(lists: &[&[T]]) -> Vec<T> {
    // item -> (score, best rank, first list, position in that list)
    let mut scores: HashMap<T, (f64, usize, usize, usize)> = HashMap::new();
    for (list_index, list) in lists.iter().enumerate() {
        for (position, item) in list.iter().enumerate() {
            let rank = position + 1;
            let entry = scores
                .entry(*item)
                .or_insert((0.0, usize::MAX, list_index, position));
            entry.0 += 1.0 / (RRF_K + rank as f64);
            entry.1 = entry.1.min(rank);
        }
    }
    let mut fused: Vec<(T, (f64, usize, usize, usize))> = scores.into_iter().collect();
    fused.sort_by(|(_, a), (_, b)| {
        b.0.total_cmp(&a.0)
            .then(a.1.cmp(&b.1))
            .then(a.2.cmp(&b.2))
            .then(a.3.cmp(&b.3))
    });
    fused.into_iter().map(|(item, _)| item).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_high_in_both_lists_beats_one_first_in_only_one() {
        let keywords = [1, 2, 3, 4];
        let vectors = [5, 2, 6, 1];
        let fused = fuse_by_rank(&[&keywords, &vectors]);
        assert_eq!(fused[0], 2, "{fused:?}");
        assert_eq!(fused[1], 1, "{fused:?}");
        assert_eq!(fused.len(), 6);
    }

    #[test]
    fn one_list_keeps_its_order_and_empty_lists_change_nothing() {
        let keywords = [3, 1, 2];
        assert_eq!(fuse_by_rank(&[&keywords, &[]]), vec![3, 1, 2]);
        assert_eq!(fuse_by_rank(&[&[], &keywords]), vec![3, 1, 2]);
        assert!(fuse_by_rank::<i64>(&[&[], &[]]).is_empty());
    }

    #[test]
    fn ties_go_to_the_better_rank_then_the_first_list() {
        // 7 and 8 are both first once: the keyword list's item comes first.
        assert_eq!(fuse_by_rank(&[&[7], &[8]]), vec![7, 8]);
        // Same score (2nd and 2nd): the same rank; the keyword list wins the tie again.
        assert_eq!(fuse_by_rank(&[&[1, 9], &[2, 10]]), vec![1, 2, 9, 10]);
    }

    #[test]
    fn scores_are_reciprocal_ranks() {
        // 1/(60+1) + 1/(60+3) = 0.032266 for `a` against 2/(60+2) = 0.032258 for `b`; `x`, first
        // in one list only, has 1/61 = 0.016393 and comes after both.
        let fused = fuse_by_rank(&[&['a', 'b', 'c'], &['x', 'b', 'a']]);
        assert_eq!(&fused[..3], &['a', 'b', 'x']);
    }
}
