//! The run's report: the counts, the listed differences per rule, each unlisted kind with its
//! first occurrence and reduced sequence, and RedisBloom's crashes.

use super::resp::{clip, show_args};
use super::runner::{Config, Crash, Fuzzer};
use std::collections::BTreeMap;

/// The longest argument list or reply the report shows.
const WIDTH: usize = 400;
use std::fmt::Write;

pub fn report(f: &Fuzzer, config: &Config) -> String {
    let s = &f.stats;
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(w, "== differential fuzz: rsbloom vs RedisBloom");
    let _ = writeln!(w, "rb: {}", f.sides.describe());
    let _ = writeln!(
        w,
        "seed {} | steps {} in {} sequences ({} RESP3) | {:.1} s, {:.0} steps/s",
        config.seed,
        s.steps,
        s.sequences,
        s.resp3_sequences,
        s.seconds,
        s.steps as f64 / s.seconds.max(1e-9)
    );
    let listed: u64 = s.listed.values().sum();
    let _ = writeln!(
        w,
        "replies {} | identical {} | listed {} | unlisted {} ({} kinds) | resyncs {}",
        s.replies,
        s.identical,
        listed,
        s.unlisted_replies(),
        s.unlisted
            .keys()
            .filter(|k| !k.starts_with("STATE "))
            .count(),
        s.resyncs
    );
    let _ = writeln!(
        w,
        "state checks {} ({} keys compared) | state listed {} | state unlisted {} ({} kinds)",
        s.state_checks,
        s.keys_compared,
        s.state_listed.values().sum::<u64>(),
        s.unlisted_states(),
        s.unlisted
            .keys()
            .filter(|k| k.starts_with("STATE "))
            .count()
    );
    let _ = writeln!(w, "RedisBloom crashes {}", s.rb_crashes.len());
    let mut time: Vec<_> = s.time.iter().collect();
    time.sort_by(|a, b| b.1 .1.total_cmp(&a.1 .1));
    let shown: Vec<String> = time
        .iter()
        .take(6)
        .map(|(what, (n, secs))| format!("{what} {secs:.1} s/{n}"))
        .collect();
    let _ = writeln!(w, "time: {}", shown.join(", "));
    let mut slow = s.slow.clone();
    slow.sort_by(|a, b| b.0.total_cmp(&a.0));
    if !slow.is_empty() {
        let _ = writeln!(w, "slow commands: {}, the slowest:", slow.len());
    }
    for (secs, args) in slow.iter().take(5) {
        let _ = writeln!(w, "  {secs:.2} s  {args}");
    }
    if !s.listed.is_empty() || !s.state_listed.is_empty() {
        let _ = writeln!(w, "\n-- listed, per rule");
        for (id, n) in &s.listed {
            let _ = writeln!(w, "{n:>8}  {id}");
        }
        for (id, n) in &s.state_listed {
            let _ = writeln!(w, "{n:>8}  {id} (state)");
        }
    }
    if !s.unlisted.is_empty() {
        let _ = writeln!(w, "\n-- unlisted kinds, most frequent first");
        let mut kinds: Vec<_> = s.unlisted.iter().collect();
        kinds.sort_by(|a, b| b.1.count.cmp(&a.1.count).then(a.0.cmp(b.0)));
        for (n, (kind, u)) in kinds.iter().enumerate() {
            let _ = writeln!(w, "\n[{}] {}x  {kind}", n + 1, u.count);
            let _ = writeln!(w, "  first: {}", clip(&u.args, WIDTH));
            let _ = writeln!(w, "    rb: {}", clip(&u.rb, WIDTH));
            let _ = writeln!(w, "    rs: {}", clip(&u.rs, WIDTH));
            let proto = if u.resp3 { "RESP3" } else { "RESP2" };
            match &u.reduced {
                Some(steps) => {
                    let _ = writeln!(
                        w,
                        "  reduced ({proto}, {} steps, from FLUSHALL):",
                        steps.len()
                    );
                    for (i, (args, rb, rs)) in steps.iter().enumerate() {
                        if args.starts_with('(') && rb.is_empty() {
                            if i + 1 == steps.len() {
                                continue;
                            }
                            let _ = writeln!(w, "    {args}  (the runner's resync)");
                            continue;
                        }
                        let _ = writeln!(w, "    > {}", clip(args, WIDTH));
                        if rb == rs {
                            let _ = writeln!(w, "      both: {}", clip(rb, WIDTH));
                        } else {
                            let _ = writeln!(w, "      rb:   {}", clip(rb, WIDTH));
                            let _ = writeln!(w, "      rs:   {}", clip(rs, WIDTH));
                        }
                    }
                }
                None => {
                    let _ = writeln!(
                        w,
                        "  not reduced ({proto}); the commands since the last FLUSHALL:"
                    );
                    let from = u.history.len().saturating_sub(30);
                    if from > 0 {
                        let _ = writeln!(w, "    ... {from} earlier commands");
                    }
                    for args in &u.history[from..] {
                        let _ = writeln!(w, "    > {}", clip(&show_args(args), WIDTH));
                    }
                }
            }
        }
    }
    if !s.rb_crashes.is_empty() {
        // Grouped by the crashing command and rsbloom's answer to it; one example each.
        let mut groups: BTreeMap<String, Vec<&Crash>> = BTreeMap::new();
        for c in &s.rb_crashes {
            let last = c.history.len().saturating_sub(2);
            let command = c.history[last].split(' ').next().unwrap_or("?");
            let key = format!(
                "{command} | rsbloom {}",
                c.rs_reply.chars().take(60).collect::<String>()
            );
            groups.entry(key).or_default().push(c);
        }
        let _ = writeln!(
            w,
            "\n-- RedisBloom crashes, by command and rsbloom's answer"
        );
        for (n, (key, crashes)) in groups.iter().enumerate() {
            let c = crashes[0];
            let proto = if c.resp3 { "RESP3" } else { "RESP2" };
            let rule = c.rule.as_deref().unwrap_or("no rule");
            let _ = writeln!(
                w,
                "\n[crash {}] {}x  {key} ({rule}); first, {proto}:",
                n + 1,
                crashes.len()
            );
            let from = c.history.len().saturating_sub(6);
            if from > 0 {
                let _ = writeln!(w, "    ... {from} earlier commands");
            }
            for line in &c.history[from..] {
                let _ = writeln!(w, "    > {}", clip(line, WIDTH));
            }
        }
    }
    out
}
