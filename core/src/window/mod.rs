//! The sliding-window family (`APBF.*`, type `RSbloomAP`): an Age-Partitioned Bloom Filter
//! (Shtul, Baquero, Almeida, arXiv 2001.03147) that remembers the last `capacity` items
//! (a COUNT window) or the items of the last `span` (a TIME window, after the Time-limited
//! Bloom Filter of Rodrigues et al., arXiv 2306.06742: generations close by count or by
//! time, so bursts and idle periods keep the error rate).
//!
//! - `S` slices in a ring; an item sets one bit in each of the `k` youngest; every
//!   `generation` items (or, in a TIME window, every `span / l`) the ring turns: the oldest
//!   slice is emptied and becomes the youngest. A lookup finds an item when `k` consecutive
//!   slices, starting at a generation still in the window, all hold its bit.
//! - Blocked: slice `s` of block `b` is one 64-bit word, and a block keeps its `S` words
//!   together, so an add writes `k` consecutive words (2-3 cache lines) and a lookup reads
//!   one block. A block also keeps the turn count it was last written at, so a turn costs
//!   nothing: words of slices emptied since read as zero and are cleared at the next write.
//! - Time comes from the caller, and never goes back: every time-dependent answer is a
//!   function of the stored state and the time asked at, so a replica, an AOF replay or a
//!   server loading an RDB answers as the primary did at the same moment.
//!
//! - [`shape`]: choosing `k`, the generations and the slice size for an error rate
//! - [`filter`]: the structure, adds and lookups, batches
//! - [`burst`]: the layers a TIME window grows while a span holds more than its capacity
//! - [`codec`]: its RDB value, SCANDUMP header and data chunks, all validated

pub mod burst;
pub mod codec;
pub mod filter;
#[cfg(any(test, feature = "testkit"))]
pub mod harness;
pub mod shape;

pub use filter::{WindowFilter, WindowMeta};
pub use shape::{Shape, Window};

#[cfg(test)]
mod burst_guarantees;
#[cfg(test)]
mod fastpath;
#[cfg(test)]
mod guarantees;
#[cfg(test)]
mod pinned;
#[cfg(test)]
mod proptests;
#[cfg(test)]
mod rates;
#[cfg(test)]
mod tests;
