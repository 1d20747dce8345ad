//! `APBF.RESERVE ... KEYED`: a window hashing under a secret of its own (docs/safety.md).
//! Its grammar and errors, `APBF.INFO`'s `Keyed` (never the secret), its answers, and that its
//! secret is its own: two keyed windows fed alike differ in header and words, and a plain
//! window's header has no secret. Persistence, replication and migration of keyed windows
//! are in `persistence`, `server::window_time`, `server::slot_migration` and
//! `variants::secret`.

use rsbloom_test_support as common;

use common::*;
use redis::Value;

use super::{apbf_field, apbf_info, multi, scandump, stream};

/// The SCANDUMP header's flags word and, when keyed, the secret's two words after it.
fn header_flags_and_secret(header: &[u8]) -> (u64, Option<[u64; 2]>) {
    assert!(header.starts_with(b"RSAP\x02"), "{header:?}");
    let word = |i: usize| u64::from_le_bytes(header[5 + 8 * i..13 + 8 * i].try_into().unwrap());
    let flags = word(0);
    (flags, (flags == 1).then(|| [word(1), word(2)]))
}

#[test]
fn keyed_windows_hash_under_secrets_of_their_own() {
    let s = Server::start();
    let mut c = s.conn();
    let items = gen_items("k:", 0..2000);
    let never = gen_items("never:", 0..5000);
    for (key, args) in [
        ("plain", &["COUNT", "0.01", "1000"][..]),
        ("keyed", &["COUNT", "0.01", "1000", "KEYED"]),
        ("keyed2", &["COUNT", "0.01", "1000", "keyed"]),
        ("time", &["TIME", "0.01", "1000", "3600", "KeYeD"]),
    ] {
        let mut cmd = vec!["APBF.RESERVE", key];
        cmd.extend(args);
        expect_ok(&mut c, &cmd);
        multi(&mut c, "APBF.MADD", key, &items[1000..]);
    }
    // Each holds its last 1000 items, and never-added ones answer at about the rate.
    for key in ["plain", "keyed", "keyed2", "time"] {
        let found = multi(&mut c, "APBF.MEXISTS", key, &items[1000..]);
        assert!(found.iter().all(|&a| a == 1), "{key}");
        let fp: i64 = multi(&mut c, "APBF.MEXISTS", key, &never).iter().sum();
        assert!(fp < 150, "{key}: {fp} of 5000 never-added items found");
    }
    // INFO: the plain window's fields, then Keyed 1; a plain window has no Keyed field.
    let plain = apbf_info(&mut c, "plain");
    let keyed = apbf_info(&mut c, "keyed");
    assert!(plain.iter().all(|(n, _)| n != "Keyed"), "{plain:?}");
    assert_eq!(keyed.len(), plain.len() + 1);
    assert_eq!(keyed.last(), Some(&("Keyed".to_string(), Value::Int(1))));
    for (a, b) in plain.iter().zip(&keyed) {
        assert_eq!(a.0, b.0);
    }
    assert_eq!(apbf_field(&mut c, "time", "Keyed"), 1);
    assert_eq!(
        apbf_field(&mut c, "keyed", "Size"),
        apbf_field(&mut c, "plain", "Size")
    );

    // The header: flags 0 and no secret for the plain window; flag 1 and a secret of its
    // own for each keyed one, which neither INFO nor the words show.
    let streams: Vec<(Vec<u8>, Vec<u8>)> = ["plain", "keyed", "keyed2", "time"]
        .iter()
        .map(|k| stream(&scandump(&mut c, k)))
        .collect();
    assert_eq!(header_flags_and_secret(&streams[0].0), (0, None));
    let secrets: Vec<[u64; 2]> = streams[1..]
        .iter()
        .map(|(h, _)| {
            let (flags, secret) = header_flags_and_secret(h);
            assert_eq!(flags, 1);
            secret.expect("a secret")
        })
        .collect();
    assert!(secrets.iter().all(|s| *s != [0, 0]));
    assert_ne!(secrets[0], secrets[1]);
    assert_ne!(secrets[0], secrets[2]);
    // The same items set other bits under each secret (and Guava's hash).
    assert_ne!(streams[0].1, streams[1].1);
    assert_ne!(streams[1].1, streams[2].1);
    // The rest of the header is the plain window's.
    assert_eq!(streams[1].0[29..], streams[0].0[13..]);
    for key in ["keyed", "time"] {
        let info = format!("{:?}", raw(&mut c, &["APBF.INFO", key]));
        let i = if key == "keyed" { 0 } else { 2 };
        for word in secrets[i] {
            assert!(!info.contains(&word.to_string()), "{key}: {info}");
        }
    }
}

#[test]
fn keyed_argument_errors() {
    let s = Server::start();
    let mut c = s.conn();
    let span = "ERR span must be a number of seconds from 0.001 to 1099511627";
    for (args, want) in [
        // KEYED after the window's arguments only: in the span's place it is a bad span.
        (
            &["APBF.RESERVE", "k", "TIME", "0.01", "100", "KEYED"][..],
            span,
        ),
        (
            &[
                "APBF.RESERVE",
                "k",
                "COUNT",
                "0.01",
                "100",
                "KEYED",
                "extra",
            ],
            "ERR unknown option 'extra'",
        ),
        (
            &["APBF.RESERVE", "k", "COUNT", "0.01", "100", "KEYE"],
            "ERR unknown option 'KEYE'",
        ),
        (
            &[
                "APBF.RESERVE",
                "k",
                "TIME",
                "0.01",
                "100",
                "1",
                "KEYED",
                "1",
            ],
            "ERR unknown option '1'",
        ),
        // BF.RESERVE's checks come first.
        (
            &["APBF.RESERVE", "k", "COUNT", "0", "100", "KEYED"],
            "ERR error rate must be in the range (0.000000, 1.000000)",
        ),
    ] {
        expect_err(&mut c, args, want);
    }
    assert_eq!(raw(&mut c, &["EXISTS", "k"]), Value::Int(0));
    // An existing key, keyed or not, is not replaced.
    expect_ok(&mut c, &["APBF.RESERVE", "k", "COUNT", "0.01", "100"]);
    expect_err(
        &mut c,
        &["APBF.RESERVE", "k", "COUNT", "0.01", "100", "KEYED"],
        "ERR item exists",
    );
    assert!(apbf_info(&mut c, "k").iter().all(|(n, _)| n != "Keyed"));
    // APBF.ADD on a missing key makes a plain window (the bf.apbf-* defaults).
    expect_int(&mut c, &["APBF.ADD", "auto", "a"], 1);
    assert!(apbf_info(&mut c, "auto").iter().all(|(n, _)| n != "Keyed"));
}
