//! A TIME window under bursts, through APBF.INSERTAT at moments pinned a day ahead of the
//! server's clock (lookups are answered at the window's latest moment, so nothing depends
//! on how fast the test runs): bursts of 2, 4, 10 and 30 times the capacity within one span,
//! then quiet spans. Every item of the span answers 1, never-added items at no more than
//! twice the rate, APBF.INFO and MEMORY USAGE show the burst layers' memory, and the window
//! is its reserved size again a span after the burst; past `bf.max-filter-bytes` an add is
//! refused with an error and changes nothing, and the refusals are counted.

use rsbloom_test_support as common;

use common::*;
use redis::{Connection, Value};

use super::{apbf_field, found, insert_at, server_ms};

const CAP: usize = 1000;
const RATE: f64 = 0.01;
const SPAN: u64 = 60_000;
const DAY: u64 = 86_400_000;

/// Never-added items answering 1, at most twice the rate.
fn check_rate(c: &mut Connection, key: &str, salt: &str) -> f64 {
    let never = gen_items(&format!("never:{salt}:"), 0..20_000);
    let hits = found(c, key, &never);
    let share = hits as f64 / never.len() as f64;
    assert!(
        share <= 2.0 * RATE,
        "{key} {salt}: never-added items found at {share}"
    );
    share
}

fn bf_apbf(c: &mut Connection, field: &str) -> i64 {
    info_field(c, "bf_apbf", &format!("bf_apbf_{field}"))
        .unwrap_or_else(|| panic!("no bf_apbf_{field}"))
        .parse()
        .expect("an integer")
}

/// The moment from which no span holds more than the capacity, given every add command's
/// moment and item count in order: where a span ending at a command held more, the moment
/// enough of the older commands left it.
fn calm_from(adds: &[(u64, usize)]) -> u64 {
    let mut calm = 0;
    for (j, &(t, _)) in adds.iter().enumerate() {
        let from = adds.partition_point(|&(x, _)| x + SPAN <= t);
        let mut held: usize = adds[from..=j].iter().map(|a| a.1).sum();
        for &(x, n) in &adds[from..=j] {
            if held <= CAP {
                break;
            }
            held -= n;
            calm = calm.max(x + SPAN);
        }
    }
    calm
}

/// One burst of `multiple` capacities after a span at half the pace, then three quiet spans.
fn burst(c: &mut Connection, multiple: usize, t0: u64) -> String {
    let key = format!("b{multiple}");
    expect_ok(
        c,
        &[
            "APBF.RESERVE",
            &key,
            "TIME",
            &RATE.to_string(),
            &CAP.to_string(),
            &(SPAN / 1000).to_string(),
        ],
    );
    let reserved = apbf_field(c, &key, "Size");
    let mut adds: Vec<(u64, usize)> = Vec::new();
    let half = gen_items(&format!("{key}:before:"), 0..CAP / 2);
    for (i, chunk) in half.chunks(CAP / 20).enumerate() {
        let at = t0 + i as u64 * SPAN / 20;
        insert_at(c, &key, at, chunk);
        adds.push((at, chunk.len()));
    }
    // The burst: in ten commands over a tenth of a span.
    let start = t0 + SPAN;
    let items = gen_items(&format!("{key}:burst:"), 0..multiple * CAP);
    for (i, chunk) in items.chunks(items.len() / 10).enumerate() {
        let at = start + i as u64 * SPAN / 100;
        let answers = insert_at(c, &key, at, chunk);
        assert!(answers.iter().all(|&a| a == 1 || a == 0));
        adds.push((at, chunk.len()));
    }
    assert_eq!(
        found(c, &key, &items),
        items.len(),
        "{key}: after the burst"
    );
    let share = check_rate(c, &key, "burst");
    let size = apbf_field(c, &key, "Size");
    let layers = apbf_field(c, &key, "Burst layers");
    let burst_size = apbf_field(c, &key, "Burst size");
    assert!(
        layers >= 1 && burst_size == size - reserved,
        "{key}: {layers} {burst_size}"
    );
    let usage = memory_usage(c, &key);
    assert!(
        usage >= size && usage <= size + 256,
        "{key}: {usage} {size}"
    );
    assert!(apbf_field(c, &key, "Overflows") > 0);
    // Quiet: a twentieth of the capacity every tenth of a span, for three spans.
    let end = start + SPAN / 10;
    let mut recent: Vec<(u64, Vec<Vec<u8>>)> = Vec::new();
    let mut back = None;
    for step in 0..30u64 {
        let at = end + step * SPAN / 10;
        let quiet = gen_items(&format!("{key}:quiet{step}:"), 0..CAP / 20);
        insert_at(c, &key, at, &quiet);
        adds.push((at, quiet.len()));
        recent.push((at, quiet));
        recent.retain(|(t, _)| t + SPAN > at);
        for (t, chunk) in &recent {
            assert_eq!(
                found(c, &key, chunk),
                chunk.len(),
                "{key}: quiet items of {t}"
            );
        }
        if at < start + SPAN {
            assert_eq!(
                found(c, &key, &items),
                items.len(),
                "{key}: the burst at {at}"
            );
        }
        check_rate(c, &key, &format!("quiet{step}"));
        if back.is_none() && apbf_field(c, &key, "Burst layers") == 0 {
            back = Some(at);
        }
    }
    // Within one span of the moment no span holds more than the capacity (at the first add
    // from then: they come every tenth of a span).
    let back = back.expect("the burst layers never went");
    let calm = calm_from(&adds);
    assert!(
        back <= calm + SPAN + SPAN / 10,
        "{key}: reserved size again {} ms after the calm moment",
        back - calm
    );
    assert_eq!(apbf_field(c, &key, "Size"), reserved);
    assert_eq!(apbf_field(c, &key, "Burst size"), 0);
    format!(
        "{multiple}x: {:.2} % false positives, {size} B ({:.1}x the reserved {reserved}) in \
         {layers} layers; reserved size again {:.2} spans after the burst's last command, \
         {:.2} after the calm moment",
        share * 100.0,
        size as f64 / reserved as f64,
        (back - start - 9 * SPAN / 100) as f64 / SPAN as f64,
        back.saturating_sub(calm) as f64 / SPAN as f64,
    )
}

#[test]
fn bursts_of_2_4_10_and_30_capacities_keep_every_item_and_the_rate() {
    let s = Server::start();
    let mut c = s.conn();
    let t0 = server_ms(&mut c) + DAY;
    let mut report = Vec::new();
    for (i, multiple) in [2, 4, 10, 30].into_iter().enumerate() {
        // Each window a day after the last: a window's clock never goes back.
        report.push(burst(&mut c, multiple, t0 + i as u64 * DAY));
    }
    eprintln!("{}", report.join("\n"));
    // INFO's memory is every window's Size, through the layers' growth and release.
    let sizes: i64 = ["b2", "b4", "b10", "b30"]
        .iter()
        .map(|k| apbf_field(&mut c, k, "Size"))
        .sum();
    assert_eq!(bf_apbf(&mut c, "memory_bytes"), sizes);
}

/// The items a MADD / INSERTAT reply says were added, and its refusal (the last element).
fn added_and_refusal(v: &Value) -> (usize, Option<String>) {
    let Value::Array(a) = v else {
        panic!("answered {v:?}")
    };
    match a.last().and_then(err_of) {
        Some(e) => (a.len() - 1, Some(e)),
        None => (a.len(), None),
    }
}

#[test]
fn growth_stops_at_bf_max_filter_bytes_with_an_error_that_changes_nothing() {
    let s = Server::start();
    let mut c = s.conn();
    let t = server_ms(&mut c) + DAY;
    let key = "full";
    expect_ok(&mut c, &["APBF.RESERVE", key, "TIME", "0.01", "1000", "60"]);
    let reserved = apbf_field(&mut c, key, "Size");
    let limit = (3 * reserved).to_string();
    expect_ok(&mut c, &["CONFIG", "SET", "bf.max-filter-bytes", &limit]);
    let (full_before, size_before) = (
        bf_apbf(&mut c, "full_refusals"),
        bf_apbf(&mut c, "size_limit_refusals"),
    );
    // Twenty capacities at one moment, a thousand per command: the window grows to the
    // limit, then each command is refused at its first item it cannot take.
    let items = gen_items("full:", 0..20_000);
    let mut taken = Vec::new();
    let mut refused = Vec::new();
    let mut commands_refused = 0;
    for chunk in items.chunks(1000) {
        let ms = t.to_string();
        let mut args: Vec<&[u8]> = vec![b"APBF.INSERTAT", key.as_bytes(), ms.as_bytes()];
        args.extend(chunk.iter().map(Vec::as_slice));
        let dump = raw(&mut c, &["DUMP", key]);
        let v = raw(&mut c, &args);
        let (n, refusal) = added_and_refusal(&v);
        taken.extend(chunk[..n].iter().cloned());
        refused.extend(chunk[n..].iter().cloned());
        if let Some(e) = refusal {
            assert!(e.starts_with("ERR sliding window is full"), "{e}");
            assert!(e.contains(&limit), "{e}");
            commands_refused += 1;
            if n == 0 {
                assert_eq!(
                    raw(&mut c, &["DUMP", key]),
                    dump,
                    "a refused add changed the key"
                );
            }
        }
    }
    assert!(commands_refused > 0 && !taken.is_empty());
    assert!(apbf_field(&mut c, key, "Size") <= 3 * reserved);
    // What was taken answers 1; what was refused was not added: it answers as never-added
    // items do, at no more than twice the rate (never a silent rise of the rate).
    assert_eq!(found(&mut c, key, &taken), taken.len());
    let share = found(&mut c, key, &refused) as f64 / refused.len() as f64;
    assert!(share <= 2.0 * RATE, "refused items found at {share}");
    check_rate(&mut c, key, "full");
    // APBF.ADD answers the refusal itself; every refused command is counted.
    expect_err_prefix(
        &mut c,
        &["APBF.ADD", key, "one more"],
        "ERR sliding window is full",
    );
    let counted = apbf_field(&mut c, key, "Refused adds");
    assert_eq!(counted, commands_refused + 1);
    assert_eq!(bf_apbf(&mut c, "full_refusals") - full_before, counted);
    assert_eq!(
        bf_apbf(&mut c, "size_limit_refusals") - size_before,
        counted
    );
    // A span later the burst has aged out: adds are taken, the layers go.
    let later = (t + 60_000).to_string();
    let v = raw(&mut c, &["APBF.INSERTAT", key, &later, "after"]);
    assert_eq!(as_ints(&v), vec![1]);
    assert_eq!(apbf_field(&mut c, key, "Burst layers"), 0);
    assert_eq!(apbf_field(&mut c, key, "Size"), reserved);
    eprintln!(
        "limit {limit}: {} of 20000 taken at one moment, {commands_refused} commands refused, \
         refused items found at {share}",
        taken.len()
    );
}
