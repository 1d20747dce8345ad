//! The node order t-digest-c's compression sees.
//!
//! t-digest-c sorts the node buffer with its own quicksort (middle pivot, Lomuto partition on
//! `<`), which is not stable: nodes with equal means can come out in any order, and the
//! order of equal-mean nodes of different weights (or of `0.0` and `-0.0`) changes the bits
//! of the merged centroids. To stay bit for bit, [`sort`] gives exactly that quicksort's
//! order. When no two equal-mean nodes can be told apart (the usual case: distinct values,
//! or repeated values of weight 1), any correct sort gives the same bytes, so the fast
//! library sort is used and the quicksort replica only runs when it has to.

use super::Centroid;

/// Sorts `nodes` by mean into the order t-digest-c's quicksort leaves them in.
pub fn sort(nodes: &mut [Centroid]) {
    if nodes.len() < 2 {
        return;
    }
    let budget = work_budget(nodes.len());
    // A NaN mean (t-digest-c's merge of two weight-0 nodes computes 0/0; such nodes come
    // from RedisBloom's one-observation saves) compares false with everything: only the
    // quicksort replica puts it where t-digest-c does. Past the budget, an order of
    // all bits (the same on every server).
    if nodes.iter().any(|n| n.mean.is_nan()) {
        if !quicksort_budget(nodes, budget) {
            nodes.sort_unstable_by(|a, b| a.mean.total_cmp(&b.mean).then(a.weight.cmp(&b.weight)));
        }
        return;
    }
    let mut sorted = nodes.to_vec();
    // No mean is NaN, so this is a total order.
    sorted.sort_unstable_by(|a, b| {
        a.mean
            .partial_cmp(&b.mean)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.mean.to_bits().cmp(&b.mean.to_bits()))
            .then(a.weight.cmp(&b.weight))
    });
    let ambiguous = sorted.windows(2).any(|w| {
        w[0].mean == w[1].mean
            && (w[0].mean.to_bits() != w[1].mean.to_bits() || w[0].weight != w[1].weight)
    });
    if !ambiguous || !quicksort_budget(nodes, budget) {
        nodes.copy_from_slice(&sorted);
    }
}

/// The most node visits the quicksort replica may make before [`sort`] gives up on
/// t-digest-c's order: 20 n log2 n, over ten times what the quicksort needs on any but
/// crafted inputs. Middle-pivot quicksort is quadratic on some orders (all `0.0` with one
/// `-0.0` and one larger value: 200,000 nodes, a compression of 33,334, took 34 s), which a
/// client could send; past the budget the nodes take the library sort's order (by mean, then
/// bits, then weight), the same on every server, so no command can stall the server.
fn work_budget(n: usize) -> u64 {
    let n = n as u64;
    20 * n * (u64::BITS - n.leading_zeros()) as u64
}

/// t-digest-c's quicksort, with an explicit stack instead of recursion (the two halves are
/// disjoint, so the order they are sorted in does not change the result; a recursion depth
/// of the node count would overflow the stack).
///
/// Equal means are its slow case: a range of equal means loses one node per partition, each
/// after a scan of the whole range, so n equal values take n²/2 comparisons (a capacity of
/// 30,010 at compression 5000: 450 million). Once a scan finds every node of a range equal
/// to its pivot, the rest of that range is known to be equal too, and each later partition
/// of it is just its two swaps (the pivot to the end, then to the front): the same order in
/// linear time.
pub fn quicksort(nodes: &mut [Centroid]) {
    quicksort_budget(nodes, u64::MAX);
}

/// [`quicksort`], stopping (false, `nodes` then in some order of the same nodes) before its
/// partition scans would visit more than `budget` nodes.
fn quicksort_budget(nodes: &mut [Centroid], mut budget: u64) -> bool {
    if nodes.len() < 2 {
        return true;
    }
    // (start, end inclusive, every mean in the range is equal)
    let mut stack: Vec<(usize, usize, bool)> = vec![(0, nodes.len() - 1, false)];
    while let Some((mut start, end, equal)) = stack.pop() {
        if equal {
            // What the partitions of an all-equal range do, without their scans.
            while end > start + 1 {
                nodes.swap((start + end) / 2, end);
                nodes.swap(start, end);
                start += 1;
            }
            continue; // Two equal nodes stay as they are (`>` is false).
        }
        if start >= end {
            continue;
        }
        if end - start == 1 {
            if nodes[start].mean > nodes[end].mean {
                nodes.swap(start, end);
            }
            continue;
        }
        let scanned = (end - start + 1) as u64;
        if scanned > budget {
            return false;
        }
        budget -= scanned;
        let (p, all_equal) = partition(nodes, start, end, (start + end) / 2);
        if p > start {
            stack.push((start, p - 1, false));
        }
        stack.push((p + 1, end, all_equal));
    }
    true
}

/// Lomuto partition around the node at `pivot`, moved to `end` first; returns where the
/// pivot ends up, and whether every other node's mean equals the pivot's. Only nodes
/// strictly below the pivot's mean move left.
fn partition(nodes: &mut [Centroid], start: usize, end: usize, pivot: usize) -> (usize, bool) {
    let pivot_mean = nodes[pivot].mean;
    nodes.swap(pivot, end);
    // `next` is one past the last node known to be below the pivot.
    let mut next = start;
    let mut all_equal = true;
    for j in start..end {
        let m = nodes[j].mean;
        if m < pivot_mean {
            nodes.swap(next, j);
            next += 1;
        }
        all_equal &= m == pivot_mean;
    }
    nodes.swap(next, end);
    (next, all_equal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::Rng;

    fn c(mean: f64, weight: i64) -> Centroid {
        Centroid { mean, weight }
    }

    #[test]
    fn orders_that_make_the_quicksort_quadratic_are_sorted_in_time() {
        // All 0.0 but one -0.0 and a larger value last: each partition of the replica
        // peels one node after a scan of the whole range (34 s for 200,000 nodes).
        let n = 200_000;
        let mut nodes: Vec<Centroid> = (0..n).map(|_| c(0.0, 1)).collect();
        nodes[n / 3] = c(-0.0, 1);
        nodes[n - 1] = c(1.0, 1);
        assert!(!quicksort_budget(&mut nodes.clone(), work_budget(n)));
        sort(&mut nodes);
        assert!(nodes.windows(2).all(|w| w[0].mean <= w[1].mean));
        let negative_zeros = nodes
            .iter()
            .filter(|c| c.mean.to_bits() == (-0.0f64).to_bits());
        assert_eq!(negative_zeros.count(), 1);
        assert_eq!(nodes[n - 1].mean, 1.0);
    }

    #[test]
    fn fast_path_matches_the_quicksort_when_unambiguous() {
        let mut rng = Rng::new(7);
        for len in [2usize, 3, 10, 100, 700] {
            for _ in 0..20 {
                let mut nodes: Vec<Centroid> = (0..len)
                    .map(|_| c((rng.below(50) as f64) - 25.0, 1))
                    .collect();
                let mut replica = nodes.clone();
                sort(&mut nodes);
                quicksort(&mut replica);
                assert_eq!(nodes, replica);
            }
        }
    }

    #[test]
    fn ambiguous_orders_follow_the_quicksort() {
        let mut rng = Rng::new(9);
        for len in [2usize, 3, 5, 17, 300] {
            for _ in 0..20 {
                let mut nodes: Vec<Centroid> = (0..len)
                    .map(|_| {
                        let m = if rng.below(2) == 0 { 0.0 } else { -0.0 };
                        c(m + (rng.below(4) as f64), 1 + rng.below(3) as i64)
                    })
                    .collect();
                let mut replica = nodes.clone();
                sort(&mut nodes);
                quicksort(&mut replica);
                assert_eq!(
                    nodes
                        .iter()
                        .map(|n| (n.mean.to_bits(), n.weight))
                        .collect::<Vec<_>>(),
                    replica
                        .iter()
                        .map(|n| (n.mean.to_bits(), n.weight))
                        .collect::<Vec<_>>()
                );
                assert!(nodes.windows(2).all(|w| w[0].mean <= w[1].mean));
            }
        }
    }

    /// t-digest-c's quicksort as written: recursive, every partition scanned.
    fn reference(nodes: &mut [Centroid], start: usize, end: usize) {
        if start >= end {
            return;
        }
        if end - start == 1 {
            if nodes[start].mean > nodes[end].mean {
                nodes.swap(start, end);
            }
            return;
        }
        let pivot_mean = nodes[(start + end) / 2].mean;
        nodes.swap((start + end) / 2, end);
        let mut next = start;
        for j in start..end {
            if nodes[j].mean < pivot_mean {
                nodes.swap(next, j);
                next += 1;
            }
        }
        nodes.swap(next, end);
        if next > start {
            reference(nodes, start, next - 1);
        }
        reference(nodes, next + 1, end);
    }

    #[test]
    fn the_quicksort_gives_the_reference_order() {
        let mut rng = Rng::new(11);
        for len in [2usize, 3, 4, 5, 8, 33, 200, 1000] {
            for distinct in [1u64, 2, 3, 10, 1000] {
                for _ in 0..10 {
                    let mut nodes: Vec<Centroid> = (0..len)
                        .map(|i| c(rng.below(distinct) as f64, i as i64))
                        .collect();
                    let mut want = nodes.clone();
                    reference(&mut want, 0, len - 1);
                    quicksort(&mut nodes);
                    assert_eq!(nodes, want, "{len} nodes of {distinct} means");
                }
            }
        }
    }

    #[test]
    fn equal_means_sort_in_linear_time() {
        let mut nodes: Vec<Centroid> = (0..1_000_000).map(|i| c(5.0, i)).collect();
        let t = std::time::Instant::now();
        quicksort(&mut nodes);
        assert!(t.elapsed().as_secs() < 5, "{:?}", t.elapsed());
        let mut small: Vec<Centroid> = (0..2000).map(|i| c(5.0, i)).collect();
        let mut want = small.clone();
        reference(&mut want, 0, 1999);
        quicksort(&mut small);
        assert_eq!(small, want);
    }

    #[test]
    fn equal_means_keep_the_quicksort_order() {
        // Lomuto with a middle pivot on three equal means: the pivot (index 1) goes to the
        // front, then the rest keep their order with the old last node first.
        let mut nodes = vec![c(1.0, 1), c(1.0, 2), c(1.0, 3)];
        quicksort(&mut nodes);
        let weights: Vec<i64> = nodes.iter().map(|n| n.weight).collect();
        // partition(0, 2, pivot 1): swap(1, 2) -> [1, 3, 2]; nothing below; swap(0, 2) ->
        // [2, 3, 1]; then (1, 2) is a pair already in order (not >).
        assert_eq!(weights, vec![2, 3, 1]);
    }
}
