//! The counting Bloom filter family (`CBF.*`, type `RSbloomCB`): a Guava-sized Bloom filter
//! whose bits are small counters, so items can be deleted.
//!
//! - Probes and sizing are exactly those of the `RSbloom--` filters ([`crate::bloom::guava`]):
//!   the counters that are not zero are the bits of the Guava filter of the same capacity,
//!   error rate and items, and [`CountingFilter::guava_words`] gives that filter's words
//!   (`CBF.EXPORT key GUAVA`, through [`crate::bloom::codec::writeto`]).
//! - Counters are 4 or 8 bits, packed in 64-bit words, so a counter never straddles a
//!   cache line; the 64 counters of one Guava word sit in 32 (or 64) consecutive bytes.
//! - A counter at its maximum stays there: never incremented past it, never decremented
//!   (its true count is unknown), so overflow can only add false positives, never lose an
//!   item. Such counters are counted ([`CountingFilter::saturated`]).
//! - It does not scale: at `capacity` items (adds less deletes) an add of an item not
//!   present is refused with the full non-scaling Bloom filter's error.
//!
//! - [`filter`]: the structure, adds, deletes, lookups, batches
//! - [`merge`]: CBF.MERGE's sum of filters of one shape, refused on overflow
//! - [`codec`]: its RDB value, SCANDUMP header and data chunks, all validated

pub mod codec;
pub mod filter;
pub mod merge;

pub use filter::{CountingFilter, CountingMeta};

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
