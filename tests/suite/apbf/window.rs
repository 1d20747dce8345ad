//! The windows end to end on a real server. COUNT: the last `capacity` items always answer 1,
//! older ones (past the slack of one generation) at about the error rate. TIME: items put at
//! chosen past times with APBF.INSERTAT (the server's clock being now), so nothing depends on
//! how fast the test runs: spans of an hour, margins of whole quanta (`span / l`).

use rsbloom_test_support as common;

use common::*;
use redis::Connection;

use super::{apbf_field, found, insert_at, multi, server_ms};

/// At most `bound` of `n` answers were positive.
fn assert_rate(what: &str, positives: usize, n: usize, rate: f64, times: f64) {
    let bound = (rate * times * n as f64).ceil() as usize;
    assert!(
        positives <= bound,
        "{what}: {positives} of {n} answered 1 (over {times} x {rate})"
    );
    eprintln!(
        "{what}: {positives} of {n} ({:.4} %, asked {:.4} %)",
        100.0 * positives as f64 / n as f64,
        100.0 * rate
    );
}

/// After each of 100 blocks of `capacity / 10` items (MADD), every item of the last
/// `capacity` answers 1 (MEXISTS). Older items fade: one that left the window (more than
/// `l + 1` generations ago) still has bits in the window's oldest slices, so a run from the
/// oldest generation needs only `j` bits not its own, `j` generations after it left; past
/// `k` generations it needs all `k`, and answers at about the error rate, as never-added
/// items do. Items in window is exactly the live generations' items.
#[test]
fn count_window_end_to_end() {
    let s = Server::start();
    let mut c = s.conn();
    let (cap, rate) = (2000usize, 0.01);
    expect_ok(
        &mut c,
        &["APBF.RESERVE", "w", "COUNT", "0.01", &cap.to_string()],
    );
    let k = apbf_field(&mut c, "w", "Number of hash functions") as usize;
    let l = apbf_field(&mut c, "w", "Generations") as usize;
    let g = apbf_field(&mut c, "w", "Generation size") as usize;
    assert!(l * g >= cap && l * g < cap + l, "l = {l}, g = {g}");
    let block = cap / 10;
    let items = gen_items("item:", 0..100 * block);
    let (mut far_found, mut far_asked, mut fade_found, mut fade_asked) = (0, 0, 0, 0);
    for b in 0..100 {
        let end = (b + 1) * block;
        let fresh = &items[b * block..end];
        let answers = multi(&mut c, "APBF.MADD", "w", fresh);
        // New items answer 1 but for the rare false positive.
        let present = answers.iter().filter(|&&a| a == 0).count();
        assert!(
            present <= block / 20,
            "block {b}: {present} of {block} already present"
        );
        let last = &items[end.saturating_sub(cap)..end];
        let answers = multi(&mut c, "APBF.MEXISTS", "w", last);
        if let Some(i) = answers.iter().position(|&a| a != 1) {
            panic!(
                "after block {b}: item {} of the last {cap} answered 0",
                end - last.len() + i
            );
        }
        // Left the window (more than (l + 1) g items after them), fading for k generations.
        let left = end.saturating_sub((l + 1) * g);
        let far = end.saturating_sub((l + 1 + k) * g);
        fade_found += found(&mut c, "w", &items[far..left]);
        fade_asked += left - far;
        // Past the fade, the most recent (the hardest), up to 2 capacities.
        let from = far.saturating_sub(2 * cap);
        far_found += found(&mut c, "w", &items[from..far]);
        far_asked += far - from;
        let expect_window = if end > (l + 1) * g {
            l * g + (end - 1) % g + 1
        } else {
            end
        };
        assert_eq!(
            apbf_field(&mut c, "w", "Items in window") as usize,
            expect_window,
            "after block {b}"
        );
    }
    assert!(far_asked > 100_000, "{far_asked}");
    assert_rate(
        "COUNT: items past the fade",
        far_found,
        far_asked,
        rate,
        2.0,
    );
    assert_rate("COUNT: items fading", fade_found, fade_asked, 0.1, 1.0);
    // The fade generation by generation, at the end (for the record; the first one well
    // under 1, the k-th at about the rate).
    let end = items.len();
    let per_generation: Vec<usize> = (1..=k + 2)
        .map(|j| {
            let hi = end - (l + j) * g;
            found(&mut c, "w", &items[hi - g..hi])
        })
        .collect();
    eprintln!(
        "COUNT: items answering 1 per generation past the window (of {g}): {per_generation:?}"
    );
    assert!(per_generation[0] < g, "{per_generation:?}");
    assert!(per_generation[k + 1] <= g / 10, "{per_generation:?}");
    let never = gen_items("never:", 0..50_000);
    let n = found(&mut c, "w", &never);
    assert_rate("COUNT: never-added items", n, never.len(), rate, 1.5);
    assert_eq!(
        apbf_field(&mut c, "w", "Number of items inserted"),
        (100 * block) as i64
    );
    assert_eq!(apbf_field(&mut c, "w", "Overflows"), 0);
    // The same with APBF.ADD one at a time over a small window: the last `cap` always in.
    expect_ok(&mut c, &["APBF.RESERVE", "one", "COUNT", "0.001", "50"]);
    let items = gen_items("one:", 0..400);
    for (i, item) in items.iter().enumerate() {
        raw(&mut c, &[&b"APBF.ADD"[..], b"one", item]);
        let last = &items[(i + 1).saturating_sub(50)..=i];
        assert_eq!(found(&mut c, "one", last), last.len(), "after {i}");
    }
}

/// A TIME window's shape and clock as the test needs them.
struct Timed {
    span: u64,
    quantum: u64,
    now: u64,
}

fn timed(c: &mut Connection, key: &str, rate: &str, cap: usize, span_s: u64) -> Timed {
    expect_ok(
        c,
        &[
            "APBF.RESERVE",
            key,
            "TIME",
            rate,
            &cap.to_string(),
            &span_s.to_string(),
        ],
    );
    let l = apbf_field(c, key, "Generations") as u64;
    let span = span_s * 1000;
    Timed {
        span,
        quantum: span / l,
        now: server_ms(c),
    }
}

/// Items at now - span / 2 answer 1; items at now - span - 2 quanta, alone, answer 0 (no
/// generation is live, so no lookup can find anything); beside younger items, they fade
/// (see the COUNT test); items from long before, separated from the young ones by an idle
/// period, answer at about the rate. A time earlier than the filter's latest is taken as
/// the latest.
#[test]
fn time_window_remembers_the_span_and_forgets_older_items() {
    let s = Server::start();
    let mut c = s.conn();
    // 2000 items per span at most; from the filter's point of view (its clock being the
    // latest add's), the just-expired, edge and mid items are all in one span: 1800.
    let t = timed(&mut c, "t", "0.01", 2000, 3600);
    let ancient = gen_items("ancient:", 0..2000);
    insert_at(&mut c, "t", t.now - 3 * t.span, &ancient);
    let old = gen_items("old:", 0..1000);
    let old_at = t.now - t.span - 2 * t.quantum;
    assert_eq!(insert_at(&mut c, "t", old_at, &old).len(), 1000);
    assert_eq!(found(&mut c, "t", &old), 0, "items older than the window");
    assert_eq!(
        found(&mut c, "t", &ancient),
        0,
        "items older than the window"
    );
    assert_eq!(apbf_field(&mut c, "t", "Items in window"), 0);
    assert_eq!(apbf_field(&mut c, "t", "Number of items inserted"), 3000);
    // Just inside: an item at now - span + 2 quanta is still there.
    let edge = gen_items("edge:", 0..200);
    insert_at(&mut c, "t", t.now - t.span + 2 * t.quantum, &edge);
    assert_eq!(found(&mut c, "t", &edge), edge.len());
    let mid = gen_items("mid:", 0..600);
    insert_at(&mut c, "t", t.now - t.span / 2, &mid);
    assert_eq!(found(&mut c, "t", &mid), mid.len());
    assert_eq!(found(&mut c, "t", &edge), edge.len());
    let n = found(&mut c, "t", &old);
    assert_rate(
        "TIME: just-expired items beside young ones",
        n,
        old.len(),
        0.05,
        1.0,
    );
    let n = found(&mut c, "t", &ancient);
    assert_rate(
        "TIME: items from before an idle span",
        n,
        ancient.len(),
        0.01,
        2.0,
    );
    assert_eq!(apbf_field(&mut c, "t", "Items in window"), 800);
    // Earlier than the latest time seen: taken at the latest (now - span / 2), so remembered.
    let late = gen_items("late:", 0..100);
    insert_at(&mut c, "t", old_at - t.span, &late);
    assert_eq!(found(&mut c, "t", &late), late.len());
    // APBF.ADD takes the server's clock: remembered.
    expect_int(&mut c, &["APBF.ADD", "t", "now"], 1);
    expect_int(&mut c, &["APBF.EXISTS", "t", "now"], 1);
    assert_eq!(apbf_field(&mut c, "t", "Overflows"), 0);
    assert_eq!(apbf_field(&mut c, "t", "Items in window"), 901);
    // Lookups ask at the filter's latest time when it is ahead of the clock: an add two
    // spans ahead makes everything before it forgotten, now.
    let ahead = t.now + 2 * t.span + 2 * t.quantum;
    insert_at(&mut c, "t", ahead, &gen_items("ahead:", 0..10));
    assert_eq!(found(&mut c, "t", &mid), 0);
    assert_eq!(found(&mut c, "t", &late), 0);
    expect_int(&mut c, &["APBF.EXISTS", "t", "now"], 0);
    assert_eq!(found(&mut c, "t", &gen_items("ahead:", 0..10)), 10);
    // And an APBF.ADD now is taken at that time too.
    expect_int(&mut c, &["APBF.ADD", "t", "after"], 1);
    assert_eq!(apbf_field(&mut c, "t", "Items in window"), 11);
}

/// Steady state in time, step by step: `capacity` items per span in 50 steps, with an idle
/// gap of two spans in the middle. The steps are put ahead of the server's clock, so each
/// lookup asks at the filter's latest time, the step's: after every step, every item of the
/// last span answers 1; items older than the span and two quanta (the slack of one
/// generation, with a quantum of margin) answer at about the rate; right after the gap,
/// only the new step is in the window.
#[test]
fn time_window_step_by_step_with_an_idle_gap() {
    let s = Server::start();
    let mut c = s.conn();
    let cap = 5000usize;
    let t = timed(&mut c, "t", "0.01", cap, 3600);
    let (span, q) = (t.span, t.quantum);
    let (steps, per) = (150usize, cap / 50);
    let step_ms = span / 50;
    let start = t.now + span;
    // Step s is at start + s steps, but for the gap of 100 steps (two spans) after step 59.
    let step_at = |s: usize| start + (if s < 60 { s } else { s + 100 }) as u64 * step_ms;
    let at = |i: usize| step_at(i / per);
    let items = gen_items("s:", 0..steps * per);
    let (mut far_found, mut far_asked, mut fade_found, mut fade_asked) = (0, 0, 0, 0);
    let (mut gap_found, mut gap_asked) = (0, 0);
    let k = apbf_field(&mut c, "t", "Number of hash functions") as u64;
    for step in 0..steps {
        let now = step_at(step);
        let end = (step + 1) * per;
        let answers = insert_at(&mut c, "t", now, &items[step * per..end]);
        assert!(answers.iter().filter(|&&a| a == 0).count() <= per / 20);
        let inside: Vec<Vec<u8>> = (0..end)
            .filter(|&i| at(i) + span > now)
            .map(|i| items[i].clone())
            .collect();
        assert!(inside.len() >= per);
        let answers = multi(&mut c, "APBF.MEXISTS", "t", &inside);
        assert!(
            answers.iter().all(|&a| a == 1),
            "step {step}: {} of the last span's {} items answered 0",
            answers.iter().filter(|&&a| a == 0).count(),
            inside.len()
        );
        // Expired (a span and two quanta ago): fading for k quanta (a generation lasts at
        // most one), then at about the rate.
        let gone: Vec<usize> = (0..end).filter(|&i| at(i) + span + 2 * q <= now).collect();
        let (far, fade): (Vec<usize>, Vec<usize>) = gone
            .iter()
            .partition(|&&i| at(i) + span + (k + 3) * q <= now);
        // The most recent of those past the fade, up to two capacities.
        let far = &far[far.len().saturating_sub(2 * cap)..];
        let pick =
            |ix: &[usize]| -> Vec<Vec<u8>> { ix.iter().map(|&i| items[i].clone()).collect() };
        far_found += found(&mut c, "t", &pick(far));
        far_asked += far.len();
        fade_found += found(&mut c, "t", &pick(&fade));
        fade_asked += fade.len();
        if step >= 60 {
            // The last steps before the gap, expired a span before the gap ended: the
            // young generations after it must not find them.
            let before = pick(&(55 * per..60 * per).collect::<Vec<_>>());
            gap_found += found(&mut c, "t", &before);
            gap_asked += before.len();
        }
        if step == 60 {
            // Right after the gap: only this step's items are in the window.
            assert_eq!(apbf_field(&mut c, "t", "Items in window") as usize, per);
            assert_eq!(inside.len(), per);
        }
    }
    assert!(far_asked > 50 * cap, "{far_asked}");
    assert_rate(
        "TIME steps: items past the fade",
        far_found,
        far_asked,
        0.01,
        2.0,
    );
    assert_rate(
        "TIME steps: items fading",
        fade_found,
        fade_asked,
        0.05,
        1.0,
    );
    assert_rate(
        "TIME steps: items from before the gap",
        gap_found,
        gap_asked,
        0.01,
        2.0,
    );
    let never = gen_items("never:", 0..50_000);
    let n = found(&mut c, "t", &never);
    assert_rate("TIME steps: never-added items", n, never.len(), 0.01, 1.5);
    assert_eq!(apbf_field(&mut c, "t", "Overflows"), 0);
}

/// Bursts (a capacity of items in one millisecond) and idle gaps (longer than a span): the
/// items of the last span all answer 1, forgotten and never-added ones at about the rate.
#[test]
fn time_window_with_bursts_and_idle_gaps() {
    let s = Server::start();
    let mut c = s.conn();
    let cap = 4000usize;
    let t = timed(&mut c, "t", "0.01", cap, 3600);
    let (n, span, q) = (t.now, t.span, t.quantum);
    // (time, items): burst A, idle, a trickle B, idle, burst C, a trickle D.
    let a = gen_items("A:", 0..cap);
    let b = gen_items("B:", 0..cap / 2);
    let c_items = gen_items("C:", 0..cap / 2);
    let d = gen_items("D:", 0..cap / 2);
    insert_at(&mut c, "t", n - 4 * span, &a);
    for (i, chunk) in b.chunks(cap / 20).enumerate() {
        insert_at(&mut c, "t", n - 2 * span + i as u64 * (span / 14), chunk);
    }
    insert_at(&mut c, "t", n - span * 8 / 10, &c_items);
    for (i, chunk) in d.chunks(cap / 20).enumerate() {
        insert_at(
            &mut c,
            "t",
            n - span * 6 / 10 + i as u64 * (span / 20),
            chunk,
        );
    }
    // Bursts and trickles never found the window over its capacity.
    assert_eq!(apbf_field(&mut c, "t", "Overflows"), 0);
    // The last span: C and D, all there.
    assert_eq!(found(&mut c, "t", &c_items), c_items.len());
    assert_eq!(found(&mut c, "t", &d), d.len());
    // A and B ended more than a span and two quanta ago (B's last chunk at
    // n - 2 span + 9 span / 14).
    assert!(n - 2 * span + 9 * (span / 14) + span + 2 * q < n);
    let mut forgotten = a.clone();
    forgotten.extend(b.iter().cloned());
    let f = found(&mut c, "t", &forgotten);
    assert_rate(
        "TIME bursts: forgotten items",
        f,
        forgotten.len(),
        0.01,
        2.0,
    );
    let never = gen_items("never:", 0..50_000);
    let m = found(&mut c, "t", &never);
    assert_rate("TIME bursts: never-added items", m, never.len(), 0.01, 1.5);
    assert_eq!(
        apbf_field(&mut c, "t", "Items in window") as usize,
        c_items.len() + d.len()
    );

    // A burst of a whole capacity in one millisecond into an empty window: all of it is
    // remembered, and never-added items answer at about the rate.
    let u = timed(&mut c, "u", "0.001", cap, 3600);
    let bursts: Vec<Vec<Vec<u8>>> = (0..3)
        .map(|i| gen_items(&format!("burst{i}:"), 0..cap))
        .collect();
    insert_at(&mut c, "u", u.now - u.span / 3, &bursts[0]);
    assert_eq!(found(&mut c, "u", &bursts[0]), cap);
    let never = gen_items("nope:", 0..50_000);
    let m = found(&mut c, "u", &never);
    assert_rate(
        "TIME one burst: never-added items",
        m,
        never.len(),
        0.001,
        1.5,
    );
    assert_eq!(apbf_field(&mut c, "u", "Overflows"), 0);
    // Two more: three capacities in one span, which the window was not made for. Nothing is
    // lost, burst layers take the excess (counted as overflows), and never-added items
    // still answer at no more than twice the rate.
    insert_at(&mut c, "u", u.now - u.span / 6, &bursts[1]);
    insert_at(&mut c, "u", u.now - 1, &bursts[2]);
    for (i, burst) in bursts.iter().enumerate() {
        assert_eq!(found(&mut c, "u", burst), cap, "burst {i}");
    }
    assert!(apbf_field(&mut c, "u", "Overflows") > 0);
    assert!(apbf_field(&mut c, "u", "Burst layers") > 0);
    assert_eq!(apbf_field(&mut c, "u", "Items in window") as usize, 3 * cap);
    let m = found(&mut c, "u", &never);
    assert_rate(
        "TIME three bursts: never-added items",
        m,
        never.len(),
        0.001,
        2.0,
    );
}
