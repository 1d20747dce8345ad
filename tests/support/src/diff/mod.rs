//! A differential fuzzer: the same random command sequences sent to RedisBloom and to
//! rsbloom (creating RedisBloom's formats) on the same server binary, every raw reply and
//! every key's state compared, each divergence either listed in `docs/differences.txt` or
//! reported with a reduced sequence that shows it.
//!
//! - `rng`: SplitMix64; `generator`: the steps (`sketches`: those of the sketch run);
//!   `servers`: the two servers;
//! - `resp`: replies as text, the connection; `rules`: the list of differences and the
//!   classifier (also for other tests: [`rules::Rules::classify`]);
//! - `runner`: sending, comparing, state checks, resyncs, RedisBloom restarts;
//! - `reducer`: shortest sequences for unlisted kinds; `report`: the text report.

pub mod generator;
pub mod reducer;
pub mod report;
pub mod resp;
pub mod rng;
pub mod rules;
pub mod runner;
pub mod servers;
pub mod sketches;

pub use generator::Families;
pub use rules::{Kind, Rule, Rules};
pub use runner::{Config, Fuzzer, Stats};
pub use servers::Sides;

/// A run from start to report: the servers `Sides::from_env` names, the rules of
/// `docs/differences.txt`. Returns the fuzzer (its stats) and the report.
pub fn run(config: &Config) -> (Fuzzer, String) {
    let mut fuzzer = Fuzzer::start(Sides::from_env(), Rules::load());
    fuzzer.run(config);
    let text = report::report(&fuzzer, config);
    (fuzzer, text)
}
