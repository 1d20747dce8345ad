//! The core against the ground truth in `tests/vectors/` (see the README of each set), with
//! no server: one test binary (one link step) for the three sets. Reading and parsing the
//! files is the test kit's (`rsbloom_core::testkit::files`, `testkit::rdb`), which the
//! integration tests' support crate shares. Run alone with `cargo test -p rsbloom-core`.

mod vectors {
    mod cms;
    mod cuckoo;
    mod guava;
    mod redisbloom;
    mod sharding;
    mod tdigest;
    mod topk;
}
