//! The size limit growth is held to (`bf.max-filter-bytes`, or none), asked for only when a
//! value grows.
//!
//! The server's answer (its context flags tell a client's request from the primary's stream
//! or a load) costs more than a steady add's own work, and most adds never grow anything:
//! so an add takes something that can find the limit, not the limit itself.

/// A number, or a function that finds it.
pub trait GrowthLimit {
    fn limit(&self) -> u64;
}

impl GrowthLimit for u64 {
    fn limit(&self) -> u64 {
        *self
    }
}

impl<F: Fn() -> u64> GrowthLimit for F {
    fn limit(&self) -> u64 {
        self()
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::GrowthLimit;

    #[test]
    fn a_function_is_asked_only_when_read() {
        let asked = Cell::new(0);
        let limit = || {
            asked.set(asked.get() + 1);
            42
        };
        let held: &dyn GrowthLimit = &limit;
        assert_eq!(asked.get(), 0);
        assert_eq!(held.limit(), 42);
        assert_eq!(asked.get(), 1);
        assert_eq!(7u64.limit(), 7);
    }
}
