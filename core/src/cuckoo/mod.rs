//! The cuckoo filter family (RedisBloom's `MBbloomCF`): buckets of fingerprints, the kick
//! sequence, sub-filters and their formats. Not built yet; it goes here, beside
//! [`bloom`](crate::bloom), sharing [`hash`](crate::hash), [`memory`](crate::memory) and
//! [`fields`](crate::fields).
