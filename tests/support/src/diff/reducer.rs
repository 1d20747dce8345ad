//! Reduces the history behind each new unlisted kind to a short sequence from an empty
//! server that still shows it: runs of steps (halving in length down to single steps) are
//! removed greedily while a replay on both servers, after FLUSHALL, still shows the kind;
//! then runs of arguments after each step's key, the same way.

use super::runner::{Args, Fuzzer, Steps};
use std::time::{Duration, Instant};

/// Reduces every unlisted kind that has no reduction yet, each within `budget`.
pub fn reduce_all(f: &mut Fuzzer, budget: Duration) {
    let kinds: Vec<String> = f.stats.unlisted.keys().cloned().collect();
    for kind in kinds {
        let u = &f.stats.unlisted[&kind];
        if u.reduced.is_some() {
            continue;
        }
        let (history, resp3) = (u.history.clone(), u.resp3);
        let reduced = reduce(f, &kind, history, resp3, budget);
        if let Some(u) = f.stats.unlisted.get_mut(&kind) {
            u.reduced = reduced;
        }
    }
}

/// The shortest sequence found that still shows `kind`, with each step's replies; `None`
/// when even the whole history does not show it again (a kind that depends on something
/// outside the history).
pub fn reduce(
    f: &mut Fuzzer,
    kind: &str,
    history: Vec<Args>,
    resp3: bool,
    budget: Duration,
) -> Option<Steps> {
    let state = kind.starts_with("STATE ");
    let deadline = Instant::now() + budget;
    let shows = |f: &mut Fuzzer, cmds: &[Args]| -> bool {
        match f.replay(cmds, resp3, state) {
            Some((_, kinds)) => kinds.iter().any(|k| k == kind),
            None => false,
        }
    };
    let mut cur = history;
    if !shows(f, &cur) {
        return None;
    }
    let mut chunk = cur.len().div_ceil(2);
    while chunk >= 1 && Instant::now() < deadline {
        let mut i = 0;
        while i < cur.len() && Instant::now() < deadline {
            let end = (i + chunk).min(cur.len());
            let mut candidate = cur[..i].to_vec();
            candidate.extend_from_slice(&cur[end..]);
            if !candidate.is_empty() && shows(f, &candidate) {
                cur = candidate;
            } else {
                i += chunk;
            }
        }
        if chunk == 1 {
            break;
        }
        chunk = chunk.div_ceil(2);
    }
    // Then the arguments after the key of each step, last step first, the same way.
    for j in (0..cur.len()).rev() {
        let mut chunk = cur[j].len().saturating_sub(2).div_ceil(2);
        while chunk >= 1 && Instant::now() < deadline {
            let mut i = 2;
            while i < cur[j].len() && Instant::now() < deadline {
                let end = (i + chunk).min(cur[j].len());
                let mut candidate = cur.clone();
                candidate[j].drain(i..end);
                if shows(f, &candidate) {
                    cur = candidate;
                } else {
                    i += chunk;
                }
            }
            if chunk == 1 {
                break;
            }
            chunk = chunk.div_ceil(2);
        }
    }
    f.replay(&cur, resp3, state).map(|(steps, _)| steps)
}
