//! Hash functions and the reduction of hashes to positions, shared by the filter families.

pub mod divisor;
pub mod murmur2;
pub mod murmur3;
pub mod murmur64a;
pub mod rows;
pub mod siphash;
