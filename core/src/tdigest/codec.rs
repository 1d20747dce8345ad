//! RedisBloom's RDB value of a `TDIS-TYPE` t-digest, encoding version 0:
//!
//! ```text
//! double compression, double min, double max,
//! uint cap, uint merged_nodes, uint unmerged_nodes, uint total_compressions,
//! double merged_weight, double unmerged_weight,
//! double × merged_nodes  means, double × merged_nodes  weights
//! ```
//!
//! RedisBloom compresses before writing, so only merged nodes are stored, except when the
//! compression does not run: a total weight of at most 1. Its one-observation digest is
//! written as `unmerged_nodes = 1` (weight 1) with no node, losing the value. Here that digest
//! is written as one merged node of weight 1, which RedisBloom loads as a digest holding the
//! value; reading it back gives the one-observation digest again (RedisBloom never writes a
//! merged weight of 1, so the form is unambiguous). RedisBloom's own lossy form still loads
//! with its value: min and max are stored, and for one observation both are its value.
//!
//! What RedisBloom holds after loading its lossy form is not that digest: its node arrays
//! are zeroed, so it holds a node of mean 0 and weight 0 while the unmerged weight says 1,
//! and it goes on from there. Every state that reaches loads here as RedisBloom holds it:
//!
//! - nodes of weight 0, and a merged weight one over the nodes' sum (the ghost's 1 counted
//!   by every later compression): `RESTORE` of the lossy form, `TDIGEST.ADD k 8.5 9.5`, and
//!   RedisBloom writes three nodes, means 0, 8.5, 9.5, weights 0, 1, 1, merged weight 3;
//! - any number of unmerged nodes of total weight 0 or 1 (`TDIGEST.MERGE` copies the
//!   weight-0 node, and a total of at most 1 never compresses): loaded as RedisBloom does,
//!   that many nodes of mean 0 and weight 0, the unmerged weight as stored;
//! - means that are NaN (two weight-0 nodes merged: 0/0) or infinite (the merge of values
//!   near ±f64::MAX overflows), which t-digest-c's queries then compute with; a digest whose
//!   every added mean was NaN keeps the empty digest's min and max.
//!
//! RedisBloom believes every field (a NaN or negative compression, a capacity over the
//! allocated nodes or a million unmerged nodes crash it). Here the fields must be what
//! RedisBloom's own code can write: the capacity `6·compression + 10` within `limit`, node
//! counts within it, weights non-negative integers adding up to the merged weight or one
//! less, min and max ordered once anything was observed.

use super::{capacity, Centroid, TDigest};
use crate::error::{bad_data, Error, Result};
use crate::fields::{FieldSink, FieldSource};

/// RedisBloom's type name for t-digests (part of every RDB and DUMP payload).
pub const TYPE_NAME: &str = "TDIS-TYPE";
/// The only encoding version RedisBloom writes.
pub const ENCODING_VERSION: i32 = 0;

/// 2^53: weights below it add up exactly in doubles.
const EXACT: f64 = 9007199254740992.0;

/// Writes the RDB value of `digest` as RedisBloom would after its save-time compression
/// (which [`TDigest::compress`] before this does in place, as RedisBloom does); an
/// uncompressed digest is written compressed without being changed.
pub fn save(digest: &TDigest, out: &mut dyn FieldSink) {
    if let Some(value) = digest.single_value() {
        let node = Centroid {
            mean: value,
            weight: 1,
        };
        write(digest, &[node], 1, 0, 0, out);
    } else if digest.nodes.len() != digest.merged {
        let mut copy = digest.clone();
        copy.compress();
        write_state(&copy, out);
    } else {
        write_state(digest, out);
    }
}

/// The fields of `d` as RedisBloom writes its state: the merged nodes, and the unmerged
/// ones counted but not written (only a total weight of at most 1 leaves any after its
/// save-time compression).
fn write_state(d: &TDigest, out: &mut dyn FieldSink) {
    let unmerged = (d.nodes.len() - d.merged) as u64;
    let nodes = &d.nodes[..d.merged];
    write(d, nodes, d.merged_weight, unmerged, d.unmerged_weight, out);
}

fn write(
    d: &TDigest,
    nodes: &[Centroid],
    mw: i64,
    unmerged: u64,
    uw: i64,
    out: &mut dyn FieldSink,
) {
    out.put_f64(d.compression);
    out.put_f64(d.min);
    out.put_f64(d.max);
    out.put_u64(d.cap as u64);
    out.put_u64(nodes.len() as u64);
    out.put_u64(unmerged);
    out.put_u64(d.total_compressions as u64);
    out.put_f64(mw as f64);
    out.put_f64(uw as f64);
    for n in nodes {
        out.put_f64(n.mean);
    }
    for n in nodes {
        out.put_f64(n.weight as f64);
    }
}

/// A non-negative integral double below 2^63 as an integer.
fn weight_field(v: f64, what: &str) -> Result<i64> {
    if !(0.0..9223372036854775808.0).contains(&v) || v.fract() != 0.0 || v.is_sign_negative() {
        return Err(bad_data(format!("t-digest {what} {v} is not a count")));
    }
    Ok(v as i64)
}

/// Reads an RDB value of encoding `version`, every count checked against the capacity, and
/// the capacity against `limit` bytes, before the nodes are allocated.
pub fn load(src: &mut dyn FieldSource, version: i32, limit: u64) -> Result<TDigest> {
    if version != ENCODING_VERSION {
        return Err(bad_data(format!(
            "t-digest encoding version {version} is not supported (only {ENCODING_VERSION})"
        )));
    }
    let compression = src.get_f64()?;
    if !(1.0..9223372036854775808.0).contains(&compression) || compression.fract() != 0.0 {
        return Err(bad_data(format!(
            "t-digest compression {compression} is not a positive integer"
        )));
    }
    let cap = match capacity(compression as i64, limit) {
        Err(Error::TdAllocFailed) => {
            return Err(bad_data(format!(
                "t-digest compression {compression} is too large"
            )))
        }
        other => other?,
    };
    let min = src.get_f64()?;
    let max = src.get_f64()?;
    let stored_cap = src.get_u64()?;
    if stored_cap != cap as u64 {
        return Err(bad_data(format!(
            "t-digest capacity {stored_cap} is not 6 * compression + 10 ({cap})"
        )));
    }
    let merged = src.get_u64()?;
    if merged > cap as u64 {
        return Err(bad_data(format!(
            "t-digest has {merged} merged nodes, over its capacity {cap}"
        )));
    }
    let merged = merged as usize;
    let unmerged = src.get_u64()?;
    let total_compressions = src.get_u64()?;
    if total_compressions > i64::MAX as u64 {
        return Err(bad_data("t-digest compression count is negative"));
    }
    let merged_weight = weight_field(src.get_f64()?, "merged weight")?;
    let unmerged_weight = weight_field(src.get_f64()?, "unmerged weight")?;
    if unmerged > cap as u64 - merged as u64 {
        return Err(bad_data(format!(
            "t-digest has {unmerged} unmerged nodes after {merged} merged ones, over its \
             capacity {cap}"
        )));
    }
    let unmerged = unmerged as usize;
    let mut d = TDigest::with_cap(compression, cap)?;
    d.total_compressions = total_compressions as i64;
    d.min = min;
    d.max = max;
    for _ in 0..merged {
        let mean = src.get_f64()?;
        d.nodes.push(Centroid { mean, weight: 0 });
    }
    let mut sum: i64 = 0;
    for node in d.nodes.iter_mut() {
        let w = weight_field(src.get_f64()?, "centroid weight")?;
        node.weight = w;
        sum = sum
            .checked_add(w)
            .ok_or_else(|| bad_data("t-digest weights overflow"))?;
    }
    // RedisBloom's ghost node of a lossy load counts 1 in the merged weight, 0 in the nodes.
    let consistent = if (sum as f64) < EXACT {
        merged_weight == sum || merged_weight == sum + 1
    } else {
        merged_weight as f64 >= EXACT
    };
    if !consistent {
        return Err(bad_data(format!(
            "t-digest merged weight {merged_weight} is not its centroids' {sum}"
        )));
    }
    d.merged = merged;
    d.merged_weight = merged_weight;
    let observed = merged > 0 || unmerged > 0;
    // Adds of NaN means (a merge copying NaN nodes) leave min and max as they were.
    let untouched = min == f64::MAX && max == -f64::MAX;
    if observed && !(min <= max || untouched) {
        return Err(bad_data(format!("t-digest min {min} / max {max}")));
    }
    if !observed && (min != f64::MAX || max != -f64::MAX) {
        return Err(bad_data("empty t-digest with a min or max"));
    }
    match (merged, unmerged, unmerged_weight) {
        (_, 0, 0) => {}
        // RedisBloom's one-observation form: the node is not stored, min = max is the value.
        (0, 1, 1) if min == max && merged_weight == 0 => d.nodes.push(Centroid {
            mean: min,
            weight: 1,
        }),
        // A total weight of at most 1 (weight-0 nodes): RedisBloom's zeroed nodes.
        (0, _, 0 | 1) if merged_weight == 0 => {
            d.nodes.resize(unmerged, Centroid::default());
        }
        _ => {
            return Err(bad_data(format!(
                "t-digest with {unmerged} unmerged nodes (weight {unmerged_weight}) after \
                 {merged} merged ones"
            )))
        }
    }
    d.unmerged_weight = unmerged_weight;
    // Ours: one observation written as a merged node of weight 1.
    if d.merged == 1 && d.merged_weight == 1 && d.nodes[0].weight == 1 && unmerged == 0 {
        d.merged = 0;
        d.merged_weight = 0;
        d.unmerged_weight = 1;
    }
    Ok(d)
}
