//! The figures CF.INFO and CF.DEBUG report, as RedisBloom computes them.

use super::CuckooFilter;

/// A filter's reported figures. CF.INFO sends them as signed 64-bit integers (an item
/// count wrapped below 0 shows as -1), CF.DEBUG as unsigned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Info {
    /// `Size`: RedisBloom's structs plus one byte per slot (also what `MEMORY USAGE`
    /// starts from).
    pub size: u64,
    /// Buckets of sub-filter 0 only.
    pub buckets: u64,
    pub filters: u64,
    pub items: u64,
    pub deletes: u64,
    pub bucket_size: u64,
    pub expansion: u64,
    pub max_iterations: u64,
}

impl Info {
    /// CF.INFO's fields, names and values in RedisBloom's order.
    pub fn fields(&self) -> [(&'static str, i64); 8] {
        [
            ("Size", self.size as i64),
            ("Number of buckets", self.buckets as i64),
            ("Number of filters", self.filters as i64),
            ("Number of items inserted", self.items as i64),
            ("Number of items deleted", self.deletes as i64),
            ("Bucket size", self.bucket_size as i64),
            ("Expansion rate", self.expansion as i64),
            ("Max iterations", self.max_iterations as i64),
        ]
    }

    /// CF.DEBUG's reply.
    pub fn debug_line(&self) -> String {
        format!(
            "bktsize:{} buckets:{} items:{} deletes:{} filters:{} max_iterations:{} expansion:{}",
            self.bucket_size,
            self.buckets,
            self.items,
            self.deletes,
            self.filters,
            self.max_iterations,
            self.expansion
        )
    }
}

impl CuckooFilter {
    /// The figures CF.INFO and CF.DEBUG report.
    pub fn info(&self) -> Info {
        Info {
            size: self.memory_bytes(),
            buckets: self.num_buckets,
            filters: self.filters.len() as u64,
            items: self.items,
            deletes: self.deletes,
            bucket_size: self.bucket_size as u64,
            expansion: self.expansion as u64,
            max_iterations: self.max_iterations as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::cuckoo::CuckooFilter;

    #[test]
    fn a_new_filter_reports_like_redisbloom() {
        let f = CuckooFilter::new(1000, 2, 20, 1, u64::MAX).unwrap();
        let info = f.info();
        assert_eq!(info.fields()[0], ("Size", 1080));
        assert_eq!(info.fields()[1], ("Number of buckets", 512));
        assert_eq!(
            info.debug_line(),
            "bktsize:2 buckets:512 items:0 deletes:0 filters:1 max_iterations:20 expansion:1"
        );
    }
}
