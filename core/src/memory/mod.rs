//! Hints to the CPU and the kernel about how filter memory will be used.

pub mod fallible;
pub mod limit;
pub mod pages;
pub mod prefetch;
pub mod relocate;
