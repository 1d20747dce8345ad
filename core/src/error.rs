//! Every error a user can see, and its exact reply text: the one error table.
//!
//! The core and the command layer both return [`Error`]; the Redis layer turns it into a reply
//! in one place, so no error text is written anywhere else. Variants are grouped by who
//! raises them: any command, then each filter family (texts as RedisBloom words them).

use std::fmt;

/// An error reply. `Display` gives the exact text sent to the client, error code included.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    // Any command.
    /// Wrong number of arguments; carries the command name in lower case.
    WrongArity(&'static str),
    WrongType,
    NotFound,
    ItemExists,
    /// A word that is not an option here (kept as bytes: it is echoed escaped).
    UnknownOption(Vec<u8>),
    /// A create or a growth would take the filter over its size limit.
    TooLarge {
        needed: u64,
        limit: u64,
    },
    /// The allocator refused memory a value needs (within any size limit: a load of the
    /// server's own data has none).
    AllocFailed {
        bytes: u64,
    },
    /// Persistence or import data that does not fit the format or the filter; the text says
    /// where (LOADCHUNK replies RedisBloom's [`Error::ReceivedBadData`] and logs this).
    BadData(String),
    /// A valid request this filter cannot serve (for example exporting to a format that
    /// cannot hold it); the text says why.
    Unsupported(String),
    /// A bug caught at the module boundary (a panic); the server keeps running.
    Internal,
    /// The kernel gave no random bytes for a new filter's secret (KEYED) or seed (valkey-bloom's).
    NoRandomness,

    // Bloom filters (BF.*), RedisBloom 8's texts.
    /// BF.RESERVE's error rate is not a number.
    BadErrorRate,
    ErrorRateRange,
    BadCapacity,
    CapacityRange,
    BadExpansion,
    /// BF.RESERVE's EXPANSION is its last word.
    NoExpansion,
    ExpansionRange,
    NonScalingCannotExpand,
    /// BF.INSERT's ERROR is not a number or out of range.
    InsertBadErrorRate,
    /// BF.INSERT's EXPANSION is not a number or out of range.
    InsertBadExpansion,
    /// BF.INSERT's CAPACITY (also CF.RESERVE's and CF.INSERT's capacity) is not an integer,
    /// or for BF.INSERT out of range.
    InsertBadCapacity,
    /// A BF.INSERT / CF.INSERT option no letter test fits.
    UnknownArgument,
    /// A non-scaling filter at its capacity.
    Full,
    /// A full scaling RedisBloom filter whose recorded growth is 0 (RedisBloom 2.8 keeps
    /// `EXPANSION 4294967296` as 0): its next layer would hold nothing.
    ProblemInserting,
    InvalidInfoField,
    /// BF.SCANDUMP's iterator is not an integer.
    ScanDumpNotNumeric,
    /// BF.LOADCHUNK's iterator is not an integer.
    LoadChunkNotNumeric,
    /// A BF.LOADCHUNK header or chunk refused (the reason goes to the server log).
    ReceivedBadData,
    /// A BF.LOADCHUNK chunk that starts outside the filter.
    InvalidOffset,
    /// A BF.LOADCHUNK chunk that runs past the end of its layer.
    ChunkTooBig,
    /// BF.MERGE / CBF.MERGE (rsbloom's own): two filters of different shapes; says which
    /// parameter differs (never bits, nor anything secret).
    MergeMismatch(String),
    /// CBF.MERGE: a counter's sum would pass the largest value of its `bits`.
    MergeOverflow {
        bits: u32,
    },

    // Cuckoo filters (CF.*).
    /// CF.RESERVE's capacity below twice the bucket size or above 2^30.
    CfCapacityRange,
    /// CF.INSERT's CAPACITY below twice the configured bucket size or above 2^30.
    CfInsertCapacityRange,
    /// A filter CF.INSERT / CF.ADD would create with the configured bucket size does not fit
    /// its capacity.
    CfCannotCreateFilter,
    CfBadBucketSize,
    /// BUCKETSIZE above `max`: 255, or half the configured cuckoo initial size when that is
    /// less (RedisBloom 8 bounds it by its `cf-bucket-size` config's range).
    CfBucketSizeRange {
        max: u64,
    },
    CfBadMaxIterations,
    CfMaxIterationsRange,
    CfBadExpansion,
    CfExpansionRange,
    /// A new filter would have more than 2^56 - 1 buckets.
    CfTooManyBuckets,
    /// The filter has as many sub-filters as it may have.
    CfMaxExpansions,
    /// No room and the filter does not grow (expansion 0).
    CfFull,
    /// Growth refused by RedisBloom's own bounds (bucket count or sub-filter count).
    CfGrowthRefused,
    /// CF.DEL on a missing key or another type.
    CfDelNotFound,
    /// CF.COMPACT on a missing key or another type.
    CfCompactNotFound,
    /// SCANDUMP iterator below 0 or not an integer; LOADCHUNK iterator 0 or not an integer.
    CfInvalidPosition,
    /// A LOADCHUNK header that is not 38 bytes long.
    CfInvalidHeader,
    /// A LOADCHUNK header whose parameters are refused.
    CfCannotCreate,
    /// A LOADCHUNK data chunk that does not fit the filter.
    CfCannotLoadChunk,

    // Shards of a logical filter (rsbloom's own, docs/sharding.md).
    /// An item whose slot is outside the shard's slots: nothing was read or written.
    WrongShard {
        slot: u16,
        owner: u32,
        index: u32,
        count: u32,
    },
    /// A shard created under a key whose own slot is outside the shard's slots.
    ShardKeySlot {
        slot: u16,
        index: u32,
        first: u16,
        last: u16,
    },
    /// SHARD's count not an integer in [1, 16384].
    ShardCountRange,
    /// SHARD's index not an integer below its count.
    ShardIndexRange,
    /// SHARD's name empty or longer than the most a shard records.
    ShardNameLength,
    /// SHARDID's value empty or longer than the most a shard records.
    ShardIdLength,
    /// SHARDSECRET's value not 32 hexadecimal digits.
    ShardSecret,
    /// SHARDID or SHARDSECRET without SHARD.
    ShardOptionAlone(&'static str),
    /// A shard option on a command or a filter format that cannot carry it.
    ShardUnsupported(&'static str),
    /// SHARD given to an existing filter whose place is another (or which has none).
    ShardMismatch,
    /// KEYED or BLOCKED for a filter in RedisBloom's format, which cannot record either.
    VariantUnsupported,
    /// A word and its opposite (KEYED and UNKEYED, BLOCKED and UNBLOCKED) in one creation.
    VariantConflict,
    /// A keyed or blocked filter asked for in a format that cannot hold it (the text says
    /// which).
    VariantNotExportable(&'static str),

    // Count-Min Sketch (CMS.*), RedisBloom 8's texts (8.12's for cell sizes and
    // decrements), none with an error code.
    /// CMS.INITBYDIM / CMS.INITBYPROB on a key that exists, of any type.
    CmsKeyExists,
    /// A CMS command other than the two creates on a missing key (a MERGE source too).
    CmsKeyNotFound,
    /// CMS.INITBYDIM's width not an integer or below 1.
    CmsInvalidWidth,
    /// CMS.INITBYDIM's depth not an integer or below 1.
    CmsInvalidDepth,
    /// Dimensions whose product is over 2^63 - 1 (or, from INITBYPROB, not representable).
    CmsInvalidInit,
    /// Dimensions whose counters cannot be addressed (RedisBloom's failed allocation).
    CmsInsufficientMemory,
    /// CMS.INITBYPROB's error not a number strictly between 0 and 1.
    CmsInvalidOverestimation,
    /// CMS.INITBYPROB's probability not a number strictly between 0 and 1.
    CmsInvalidProb,
    /// CMS.INITBYDIM / CMS.INITBYPROB with a fifth argument other than `CELL_SIZE`.
    CmsUnknownArgument,
    /// `CELL_SIZE` not followed by 1, 2, 4 or 8.
    CmsInvalidCellSize,
    /// CMS.INCRBY's increment not an integer.
    CmsCannotParseNumber,
    /// CMS.INCRBY's increment -2^63, whose magnitude no count holds.
    CmsInvalidIncrement,
    /// An element of CMS.INCRBY's reply: the increment would take one of the item's
    /// counters past its cell's maximum, or the total past 2^63 - 1; nothing changed.
    CmsIncrByOverflow,
    /// An element of CMS.INCRBY's reply: the decrement is more than one of the item's
    /// counters (or the total) holds; nothing changed.
    CmsIncrByUnderflow,
    /// CMS.MERGE's numkeys not an integer.
    CmsInvalidNumkeys,
    /// CMS.MERGE's numkeys 0 or below.
    CmsNumkeysNotPositive,
    /// CMS.MERGE without WEIGHTS: not exactly numkeys sources.
    CmsWrongNumberOfKeys,
    /// CMS.MERGE with WEIGHTS: not numkeys sources then numkeys weights.
    CmsWrongNumberOfKeysWeights,
    /// A CMS.MERGE weight that is not an integer.
    CmsInvalidWeight,
    /// A CMS.MERGE source of other dimensions than the destination.
    CmsDimensionMismatch,
    /// A CMS.MERGE source of another cell size than the destination.
    CmsCellSizeMismatch,
    /// A CMS.MERGE whose weighted sums leave a counter's or the total's range.
    CmsMergeOverflow,
    // Top-K (TOPK.*), RedisBloom 8's texts.
    /// TOPK.RESERVE on a key that holds anything.
    TopkKeyExists,
    /// Any other TOPK command on a missing key.
    TopkNotFound,
    /// k not an integer in [1, 2^32-1].
    TopkBadK,
    /// width not an integer in [1, 2^32-1].
    TopkBadWidth,
    /// depth not an integer in [1, 2^32-1].
    TopkBadDepth,
    /// decay not a number in (0, 1].
    TopkBadDecay,
    /// A TOPK.INCRBY increment not an integer in [0, 100000].
    TopkBadIncrement,
    /// TOPK.LIST's optional word is not WITHCOUNT.
    TopkWithcountExpected,
    // t-digest (TDIGEST.*), RedisBloom 8's texts (all `ERR T-Digest: ...`).
    /// TDIGEST.CREATE on an existing t-digest.
    TdKeyExists,
    /// A t-digest command on a missing key (a source of TDIGEST.MERGE included).
    TdKeyMissing,
    /// CREATE's third word is not COMPRESSION; MERGE's extra words hold no option.
    TdWrongKeyword,
    TdBadCompression,
    TdCompressionRange,
    /// A compression whose node arrays overflow the address space or RedisBloom's `int`
    /// capacity (RedisBloom 8 fails the allocation; 2.8 aborts).
    TdAllocFailed,
    /// The same for TDIGEST.MERGE's destination.
    TdMergeAllocFailed,
    TdBadValue,
    TdValueNotFinite,
    TdBadNumkeys,
    TdNumkeysRange,
    TdBadQuantile,
    TdQuantileRange,
    TdBadCdf,
    /// RANK / REVRANK value not a number.
    TdBadRankValue,
    TdBadRank,
    TdRankRange,
    TdBadLowCut,
    TdBadHighCut,
    TdCutRange,
    TdCutOrder,
    /// Weights over 2^63 - 1, or no room left in the node buffer.
    TdOverflow,
    // Counting Bloom filters (CBF.*); the BF texts serve where they apply.
    /// CBF.RESERVE's COUNTERBITS is its last word.
    CbfNoCounterBits,
    /// CBF.RESERVE's COUNTERBITS is not 4 or 8.
    CbfCounterBits,

    // Sliding-window filters (APBF.*); the BF texts serve where they apply.
    /// APBF.RESERVE's window is neither COUNT nor TIME.
    ApbfWindow,
    /// APBF.RESERVE TIME's span is not a number of seconds in range.
    ApbfSpanRange,
    /// No shape of at most 64 slices reaches the error rate asked for.
    ApbfRateTooSmall,
    /// APBF.INSERTAT's time is not a whole number of milliseconds from 0.
    ApbfBadTime,
    /// A TIME window's span holds more than its capacity and the burst layer it needs would
    /// take it over `bf.max-filter-bytes` (the add is refused, nothing changes).
    ApbfFull {
        needed: u64,
        limit: u64,
    },
    /// A TIME window's burst needs more layers than a window may have.
    ApbfMaxLayers,

    /// valkey-bloom's filters (the `bloomfltr` type): its own texts, kept apart.
    Valkey(ValkeyError),

    // Configs RedisBloom 8 has too (CONFIG SET, config file, load arguments): its texts, which
    // the server puts after `ERR CONFIG SET failed (possibly related to argument '...') - `.
    /// Not a number (a config's name).
    ConfigInvalid(String),
    /// An error rate outside (0, 1).
    ConfigRateRange(String),
    /// An integer outside `[min, max]`.
    ConfigIntRange {
        name: String,
        min: i64,
        max: i64,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::WrongArity(cmd) => {
                write!(f, "ERR wrong number of arguments for '{cmd}' command")
            }
            Error::WrongType => {
                f.write_str("WRONGTYPE Operation against a key holding the wrong kind of value")
            }
            Error::NotFound => f.write_str("ERR not found"),
            Error::ItemExists => f.write_str("ERR item exists"),
            Error::UnknownOption(word) => write!(f, "ERR unknown option '{}'", escaped(word)),
            Error::TooLarge { needed, limit } => write!(
                f,
                "ERR filter would need {needed} bytes, over bf.max-filter-bytes ({limit})"
            ),
            Error::AllocFailed { bytes } => {
                write!(f, "ERR out of memory: allocating {bytes} bytes failed")
            }
            Error::BadData(what) => write!(f, "ERR received bad data: {what}"),
            Error::Unsupported(why) => write!(f, "ERR {why}"),
            Error::Internal => {
                f.write_str("ERR internal error in the bf module (see the server log)")
            }
            Error::NoRandomness => {
                f.write_str("ERR no random bytes from the kernel for a new filter's secret or seed")
            }
            // Bloom filters: RedisBloom 8's texts, some without an error code.
            Error::BadErrorRate => f.write_str("ERR bad error rate"),
            Error::ErrorRateRange => {
                f.write_str("ERR error rate must be in the range (0.000000, 1.000000)")
            }
            Error::BadCapacity => f.write_str("ERR bad capacity"),
            Error::CapacityRange => {
                f.write_str("ERR capacity must be in the range [1, 1073741824]")
            }
            Error::BadExpansion => f.write_str("ERR bad expansion"),
            Error::NoExpansion => f.write_str("ERR no expansion"),
            Error::ExpansionRange => f.write_str("ERR expansion must be in the range [0, 32768]"),
            Error::NonScalingCannotExpand => f.write_str("Nonscaling filters cannot expand"),
            Error::InsertBadErrorRate => f.write_str("Bad error rate"),
            Error::InsertBadExpansion => f.write_str("Bad expansion"),
            Error::InsertBadCapacity => f.write_str("Bad capacity"),
            Error::UnknownArgument => f.write_str("Unknown argument received"),
            Error::Full => f.write_str("ERR non scaling filter is full"),
            Error::ProblemInserting => f.write_str("ERR problem inserting into filter"),
            Error::InvalidInfoField => f.write_str("Invalid information value"),
            Error::ScanDumpNotNumeric => f.write_str("Second argument must be numeric"),
            Error::LoadChunkNotNumeric => f.write_str("ERR Second argument must be numeric"),
            Error::ReceivedBadData => f.write_str("ERR received bad data"),
            Error::InvalidOffset => f.write_str("ERR invalid offset - no link found"),
            Error::ChunkTooBig => f.write_str("ERR invalid chunk - Too big for current filter"),
            // Merges: rsbloom's own, in the BF family's style.
            Error::MergeMismatch(what) => {
                write!(f, "ERR cannot merge filters that differ in {what}")
            }
            Error::MergeOverflow { bits } => write!(
                f,
                "ERR cannot merge: a counter's sum would not fit in {bits} bits"
            ),
            // Cuckoo filters: RedisBloom 8's texts, most of them without an error code.
            Error::CfCapacityRange => {
                f.write_str("Capacity must be in the range [2 * BUCKETSIZE, 1073741824]")
            }
            Error::CfInsertCapacityRange => {
                f.write_str("Capacity must be in the range [cf-bucket-size * 2, 1073741824]")
            }
            Error::CfCannotCreateFilter => f.write_str("ERR Could not create filter"),
            Error::CfBadBucketSize => f.write_str("Couldn't parse BUCKETSIZE"),
            Error::CfBucketSizeRange { max } => {
                write!(f, "BUCKETSIZE: value must be in the range [1, {max}]")
            }
            Error::CfBadMaxIterations => f.write_str("Couldn't parse MAXITERATIONS"),
            Error::CfMaxIterationsRange => {
                f.write_str("MAXITERATIONS: value must be in the range [1, 65535]")
            }
            Error::CfBadExpansion => f.write_str("Couldn't parse EXPANSION"),
            Error::CfExpansionRange => {
                f.write_str("EXPANSION: value must be in the range [0, 32768]")
            }
            Error::CfTooManyBuckets => f.write_str("ERR Insufficient memory to create filter"),
            Error::CfMaxExpansions => f.write_str("Maximum expansions reached"),
            Error::CfFull => f.write_str("Filter is full"),
            Error::CfGrowthRefused => f.write_str("ERR Insufficient memory"),
            Error::CfDelNotFound => f.write_str("Not found"),
            Error::CfCompactNotFound => f.write_str("Cuckoo filter was not found"),
            Error::CfInvalidPosition => f.write_str("Invalid position"),
            Error::CfInvalidHeader => f.write_str("Invalid header"),
            Error::CfCannotCreate => f.write_str("Couldn't create filter!"),
            Error::CfCannotLoadChunk => f.write_str("Couldn't load chunk!"),
            // Shards: rsbloom's own texts.
            Error::WrongShard {
                slot,
                owner,
                index,
                count,
            } => write!(
                f,
                "ERR wrong shard: the item's slot {slot} belongs to shard {owner} of {count}, \
                 not shard {index}"
            ),
            Error::ShardKeySlot {
                slot,
                index,
                first,
                last,
            } => write!(
                f,
                "ERR the key's slot {slot} is outside shard {index}'s slots {first}-{last}"
            ),
            Error::ShardCountRange => {
                f.write_str("ERR SHARD count must be in the range [1, 16384]")
            }
            Error::ShardIndexRange => {
                f.write_str("ERR SHARD index must be in the range [0, count - 1]")
            }
            Error::ShardNameLength => f.write_str("ERR SHARD name must be 1 to 65536 bytes long"),
            Error::ShardIdLength => f.write_str("ERR SHARDID must be 1 to 128 bytes long"),
            Error::ShardSecret => f.write_str("ERR SHARDSECRET must be 32 hexadecimal digits"),
            Error::ShardOptionAlone(option) => write!(f, "ERR {option} needs SHARD"),
            Error::ShardUnsupported(what) => write!(f, "ERR {what}"),
            Error::ShardMismatch => {
                f.write_str("ERR SHARD does not match the existing filter's shard place")
            }
            Error::VariantConflict => f.write_str(
                "ERR KEYED and UNKEYED, or BLOCKED and UNBLOCKED, cannot be given together",
            ),
            Error::VariantUnsupported => f.write_str(concat!(
                "ERR KEYED and BLOCKED filters are in rsbloom's own format, ",
                "not RedisBloom's (bf.new-filter-format redisbloom)"
            )),
            Error::VariantNotExportable(format) => write!(
                f,
                "ERR a keyed or blocked filter cannot be converted to {format}'s format (it hashes or lays out its bits differently)"
            ),
            // Count-Min Sketch: RedisBloom 8's texts, without an error code.
            Error::CmsKeyExists => f.write_str("CMS: key already exists"),
            Error::CmsKeyNotFound => f.write_str("CMS: key does not exist"),
            Error::CmsInvalidWidth => f.write_str("CMS: invalid width"),
            Error::CmsInvalidDepth => f.write_str("CMS: invalid depth"),
            Error::CmsInvalidInit => f.write_str("CMS: invalid init arguments"),
            Error::CmsInsufficientMemory => {
                f.write_str("CMS: Insufficient memory to create the key")
            }
            Error::CmsInvalidOverestimation => f.write_str("CMS: invalid overestimation value"),
            Error::CmsInvalidProb => f.write_str("CMS: invalid prob value"),
            Error::CmsUnknownArgument => f.write_str("CMS: unknown argument"),
            Error::CmsInvalidCellSize => f.write_str("CMS: CELL_SIZE must be 1, 2, 4 or 8"),
            Error::CmsCannotParseNumber => f.write_str("CMS: Cannot parse number"),
            Error::CmsInvalidIncrement => f.write_str("CMS: invalid increment"),
            Error::CmsIncrByOverflow => f.write_str("CMS: INCRBY overflow"),
            Error::CmsIncrByUnderflow => f.write_str("CMS: INCRBY underflow"),
            Error::CmsInvalidNumkeys => f.write_str("CMS: invalid numkeys"),
            Error::CmsNumkeysNotPositive => f.write_str("CMS: Number of keys must be positive"),
            Error::CmsWrongNumberOfKeys => f.write_str("CMS: wrong number of keys"),
            Error::CmsWrongNumberOfKeysWeights => f.write_str("CMS: wrong number of keys/weights"),
            Error::CmsInvalidWeight => f.write_str("CMS: invalid weight value"),
            Error::CmsDimensionMismatch => f.write_str("CMS: width/depth is not equal"),
            // As RedisBloom PR 1063 describes 8.12's refusal; not read from a running 8.12.
            Error::CmsCellSizeMismatch => f.write_str("CMS: cell size is not equal"),
            Error::CmsMergeOverflow => f.write_str("CMS: MERGE overflow"),
            // Top-K: RedisBloom 8's texts, without an error code. The increment's text has
            // 28 spaces inside (a line continuation in RedisBloom's C literal), kept.
            Error::TopkKeyExists => f.write_str("TopK: key already exists"),
            Error::TopkNotFound => f.write_str("TopK: key does not exist"),
            Error::TopkBadK => f.write_str("TopK: invalid k"),
            Error::TopkBadWidth => f.write_str("TopK: invalid width"),
            Error::TopkBadDepth => f.write_str("TopK: invalid depth"),
            Error::TopkBadDecay => f.write_str("TopK: invalid decay value. must be '<= 1' & '> 0'"),
            Error::TopkBadIncrement => f.write_str(concat!(
                "TopK: increment must be an integer greater or equal to 0",
                "                            ",
                "and smaller or equal to 100,000"
            )),
            Error::TopkWithcountExpected => f.write_str("WITHCOUNT keyword expected"),
            // t-digest: RedisBloom 8's texts.
            Error::TdKeyExists => f.write_str("ERR T-Digest: key already exists"),
            Error::TdKeyMissing => f.write_str("ERR T-Digest: key does not exist"),
            Error::TdWrongKeyword => f.write_str("ERR T-Digest: wrong keyword"),
            Error::TdBadCompression => {
                f.write_str("ERR T-Digest: error parsing compression parameter")
            }
            Error::TdCompressionRange => {
                f.write_str("ERR T-Digest: compression parameter needs to be a positive integer")
            }
            Error::TdAllocFailed => f.write_str("ERR T-Digest: allocation failed"),
            Error::TdMergeAllocFailed => {
                f.write_str("ERR T-Digest: allocation of destination digest failed")
            }
            Error::TdBadValue => f.write_str("ERR T-Digest: error parsing val parameter"),
            Error::TdValueNotFinite => {
                f.write_str("ERR T-Digest: val parameter needs to be a finite number")
            }
            Error::TdBadNumkeys => f.write_str("ERR T-Digest: error parsing numkeys"),
            Error::TdNumkeysRange => {
                f.write_str("ERR T-Digest: numkeys needs to be a positive integer")
            }
            Error::TdBadQuantile => f.write_str("ERR T-Digest: error parsing quantile"),
            Error::TdQuantileRange => f.write_str("ERR T-Digest: quantile should be in [0,1]"),
            Error::TdBadCdf => f.write_str("ERR T-Digest: error parsing cdf"),
            Error::TdBadRankValue => f.write_str("ERR T-Digest: error parsing value"),
            Error::TdBadRank => f.write_str("ERR T-Digest: error parsing rank"),
            Error::TdRankRange => f.write_str("ERR T-Digest: rank needs to be non negative"),
            Error::TdBadLowCut => f.write_str("ERR T-Digest: error parsing low_cut_percentile"),
            Error::TdBadHighCut => f.write_str("ERR T-Digest: error parsing high_cut_percentile"),
            Error::TdCutRange => f.write_str(
                "ERR T-Digest: low_cut_percentile and high_cut_percentile should be in [0,1]",
            ),
            Error::TdCutOrder => f.write_str(
                "ERR T-Digest: low_cut_percentile should be lower than high_cut_percentile",
            ),
            Error::TdOverflow => f.write_str("ERR T-Digest: overflow detected"),
            // Counting Bloom filters: rsbloom's own, in the BF family's style.
            Error::CbfNoCounterBits => f.write_str("ERR no counter bits"),
            Error::CbfCounterBits => f.write_str("ERR counter bits must be 4 or 8"),
            // Sliding-window filters: rsbloom's own, in the BF family's style.
            Error::ApbfWindow => f.write_str("ERR window must be COUNT or TIME"),
            Error::ApbfSpanRange => {
                f.write_str("ERR span must be a number of seconds from 0.001 to 1099511627")
            }
            Error::ApbfBadTime => {
                f.write_str("ERR time must be milliseconds since the epoch (an integer from 0)")
            }
            Error::ConfigInvalid(name) => write!(f, "Invalid value for `{name}`"),
            Error::ConfigRateRange(name) => write!(
                f,
                "Value for `{name}` must be in the range (0.000000, 1.000000)"
            ),
            Error::ConfigIntRange { name, min, max } => {
                write!(f, "Value for `{name}` must be in the range [{min}, {max}]")
            }
            Error::ApbfRateTooSmall => {
                f.write_str("ERR error rate too small for a sliding window (at least 1e-9)")
            }
            Error::ApbfFull { needed, limit } => write!(
                f,
                "ERR sliding window is full: its burst would need {needed} bytes, over \
                 bf.max-filter-bytes ({limit})"
            ),
            Error::ApbfMaxLayers => f.write_str(
                "ERR sliding window is full: its burst needs more layers than it may have",
            ),
            Error::Valkey(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {}

/// The errors of valkey-bloom's dialect (BF.* on a `bloomfltr` key, BF.LOAD), in valkey-bloom
/// 1.0's words (its `bloom/utils.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValkeyError {
    /// A create refused by the option parser (BF.RESERVE's fourth word).
    Generic,
    NonScalingFull,
    NotFound,
    ItemExists,
    InvalidInfoValue,
    /// SEED not 32 bytes.
    InvalidSeed,
    BadExpansion,
    BadCapacity,
    BadErrorRate,
    ErrorRateRange,
    BadTighteningRatio,
    TighteningRatioRange,
    CapacityNotPositive,
    /// The next sub-filter's error rate would be at most f64::MIN_POSITIVE.
    FpDegradesToZero,
    UnknownArgument,
    /// A create, a scale-out, a RESTORE or a BF.LOAD over `bf.bloom-memory-usage-limit`.
    ExceedsMemoryLimit,
    ScaleToExceedsMemoryLimit,
    MaxFilters,
    ScaleToFpDegrades,
    /// BF.LOAD onto a key that holds a filter.
    KeyExists,
    DecodeFailed,
    DecodeUnsupportedVersion,
    NonScalingWithScaleTo,
}

impl fmt::Display for ValkeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ValkeyError::Generic => "ERROR",
            ValkeyError::NonScalingFull => "ERR non scaling filter is full",
            ValkeyError::NotFound => "ERR not found",
            ValkeyError::ItemExists => "ERR item exists",
            ValkeyError::InvalidInfoValue => "ERR invalid information value",
            ValkeyError::InvalidSeed => "ERR invalid seed",
            ValkeyError::BadExpansion => "ERR bad expansion",
            ValkeyError::BadCapacity => "ERR bad capacity",
            ValkeyError::BadErrorRate => "ERR bad error rate",
            ValkeyError::ErrorRateRange => "ERR (0 < error rate range < 1)",
            ValkeyError::BadTighteningRatio => "ERR bad tightening ratio",
            ValkeyError::TighteningRatioRange => "ERR (0 < tightening ratio range < 1)",
            ValkeyError::CapacityNotPositive => "ERR (capacity should be larger than 0)",
            ValkeyError::FpDegradesToZero => "ERR false positive degrades to 0 on scale out",
            ValkeyError::UnknownArgument => "ERR unknown argument received",
            ValkeyError::ExceedsMemoryLimit => "ERR operation exceeds bloom object memory limit",
            ValkeyError::ScaleToExceedsMemoryLimit => {
                "ERR provided VALIDATESCALETO causes bloom object to exceed memory limit"
            }
            ValkeyError::MaxFilters => "ERR bloom object reached max number of filters",
            ValkeyError::ScaleToFpDegrades => {
                "ERR provided VALIDATESCALETO causes false positive to degrade to 0"
            }
            ValkeyError::KeyExists => "BUSYKEY Target key name already exists.",
            ValkeyError::DecodeFailed => "ERR bloom object decoding failed",
            ValkeyError::DecodeUnsupportedVersion => {
                "ERR bloom object decoding failed. Unsupported version"
            }
            ValkeyError::NonScalingWithScaleTo => {
                "ERR cannot use NONSCALING and VALIDATESCALETO options together"
            }
        })
    }
}

impl From<ValkeyError> for Error {
    fn from(e: ValkeyError) -> Error {
        Error::Valkey(e)
    }
}

/// Shorthand for results of the core and the command layer.
pub type Result<T> = std::result::Result<T, Error>;

/// `TooLarge` if `needed` bytes are over `limit` (`bf.max-filter-bytes`): both families'
/// size checks, made before anything is allocated.
pub fn check_limit(needed: u64, limit: u64) -> Result<()> {
    if needed > limit {
        return Err(Error::TooLarge { needed, limit });
    }
    Ok(())
}

/// A word as printable ASCII: other bytes, the quote and the backslash as `\xNN` (an error
/// reply is one line of text, and C strings end at a NUL). For every text that echoes a word.
pub fn escaped(word: &[u8]) -> String {
    let mut out = String::with_capacity(word.len());
    for &b in word {
        match b {
            b'\\' | b'\'' => out.push_str(&format!("\\x{b:02x}")),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out
}

/// Builds a [`Error::BadData`] from anything printable.
pub fn bad_data(what: impl Into<String>) -> Error {
    Error::BadData(what.into())
}
