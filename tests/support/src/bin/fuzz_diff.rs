//! `make fuzz-diff`: a long differential run against the live RedisBloom. STEPS and SEED
//! from the environment (`DIFF_STEPS`, `DIFF_SEED`; `DIFF_FAMILIES=sketches` for the
//! Count-Min Sketch, Top-K and t-digest commands), the rb side from `DIFF_RB_SERVER` /
//! `DIFF_RB_MODULE`; the report goes to stdout and target/fuzz-diff/report.txt. Exits 1 when
//! it found unlisted divergences.

use rsbloom_test_support::diff::{self, Config, Families};

fn var(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) if !v.is_empty() => v
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v} is not a number")),
        _ => default,
    }
}

fn main() {
    let mut config = Config::new(var("DIFF_SEED", 1), var("DIFF_STEPS", 100_000));
    config.reduce_budget = std::time::Duration::from_secs(var("DIFF_REDUCE_SECONDS", 30));
    config.families = match std::env::var("DIFF_FAMILIES").as_deref() {
        Ok("sketches") => Families::Sketches,
        Ok("filters" | "") | Err(_) => Families::Filters,
        Ok(other) => panic!("DIFF_FAMILIES={other}: filters or sketches"),
    };
    let (fuzzer, report) = diff::run(&config);
    print!("{report}");
    let dir = rsbloom_test_support::workspace_root().join("target/fuzz-diff");
    std::fs::create_dir_all(&dir).expect("create target/fuzz-diff");
    std::fs::write(dir.join("report.txt"), &report).expect("write the report");
    eprintln!("report: {}", dir.join("report.txt").display());
    let s = &fuzzer.stats;
    let failed = s.unlisted_replies() + s.unlisted_states() > 0;
    // Stops both servers: `exit` runs no destructors.
    drop(fuzzer);
    if failed {
        std::process::exit(1);
    }
}
