//! Where a keyed filter's secret goes (docs/safety.md): its creation reaches a replica as a
//! LOADCHUNK of its header, which holds the secret, and that command is kept out of the
//! replica's MONITOR and SLOWLOG (`no-monitor`, `no-slowlog`), while the replicated adds
//! around it show there as usual. DUMP and SCANDUMP carry it, so the ACL recipe the page
//! gives (a reader without them) is checked too.

use super::*;

use common::raw_resp::RawConn;

/// (creations on the primary, the LOADCHUNK that replicates them, an add after them that the
/// replica's MONITOR and SLOWLOG must show, a read of the filter).
type Family = (
    &'static [&'static [&'static str]],
    &'static str,
    &'static str,
    &'static str,
);

const FAMILIES: &[Family] = &[
    (
        &[
            &["BF.RESERVE", "bf:reserved", "0.01", "1000", "KEYED"],
            &[
                "BF.INSERT",
                "bf:inserted",
                "KEYED",
                "BLOCKED",
                "ITEMS",
                "a",
                "b",
            ],
        ],
        "bf.loadchunk",
        "bf.madd",
        "BF.MEXISTS",
    ),
    (
        &[&["CBF.RESERVE", "cbf:reserved", "0.01", "1000", "KEYED"]],
        "cbf.loadchunk",
        "cbf.madd",
        "CBF.MEXISTS",
    ),
    // A COUNT window: its adds travel as they came (a TIME window's as APBF.INSERTAT).
    (
        &[&[
            "APBF.RESERVE",
            "apbf:reserved",
            "COUNT",
            "0.01",
            "1000",
            "KEYED",
        ]],
        "apbf.loadchunk",
        "apbf.madd",
        "APBF.MEXISTS",
    ),
];

/// The commands a MONITOR connection shows until it shows `SET marker <n>`, lowercased.
fn monitored_until_marker(m: &mut RawConn, n: &str) -> Vec<String> {
    let mut lines = Vec::new();
    loop {
        let line = String::from_utf8_lossy(&m.read_reply()).to_lowercase();
        let done = line.contains("\"set\" \"marker\"") && line.contains(&format!("\"{n}\""));
        lines.push(line);
        if done {
            return lines;
        }
    }
}

/// The command names of the SLOWLOG entries, lowercased.
fn slowlog_commands(c: &mut Connection) -> Vec<String> {
    let redis::Value::Array(entries) = raw(c, &["SLOWLOG", "GET", "-1"]) else {
        panic!("SLOWLOG GET")
    };
    entries
        .iter()
        .map(|e| match e {
            redis::Value::Array(fields) => match &fields[3] {
                redis::Value::Array(argv) => as_text(&argv[0]).to_lowercase(),
                other => panic!("SLOWLOG argv {other:?}"),
            },
            other => panic!("SLOWLOG entry {other:?}"),
        })
        .collect()
}

#[test]
fn a_replica_s_monitor_and_slowlog_do_not_show_the_replicated_secret() {
    let primary = Server::start();
    let replica = primary.start_replica();
    let mut c = primary.conn();
    let mut r = replica.conn();
    expect_ok(&mut r, &["CONFIG", "SET", "slowlog-log-slower-than", "0"]);
    expect_ok(&mut r, &["CONFIG", "SET", "slowlog-max-len", "1000"]);
    expect_ok(&mut r, &["SLOWLOG", "RESET"]);
    let mut monitor = RawConn::connect(replica.port);
    assert_eq!(monitor.send(&["MONITOR"]), b"+OK\r\n");
    for (n, &(creations, loadchunk, add, read)) in FAMILIES.iter().enumerate() {
        for creation in creations {
            raw(&mut c, creation);
            let key = creation[1];
            raw(&mut c, &[add.to_uppercase().as_str(), key, "after"]);
        }
        let marker = n.to_string();
        expect_ok(&mut c, &["SET", "marker", &marker]);
        expect_int(&mut c, &["WAIT", "1", "5000"], 1);

        let shown = monitored_until_marker(&mut monitor, &marker);
        let names = |lines: &[String], name: &str| {
            lines
                .iter()
                .filter(|l| l.contains(&format!("\"{name}\"")))
                .count()
        };
        assert_eq!(
            names(&shown, loadchunk),
            0,
            "{loadchunk} in MONITOR: {shown:?}"
        );
        assert!(
            names(&shown, add) >= creations.len(),
            "the replicated adds are not in MONITOR: {shown:?}"
        );
        let logged = slowlog_commands(&mut r);
        assert!(
            !logged.iter().any(|l| l == loadchunk),
            "in SLOWLOG: {logged:?}"
        );
        assert!(
            logged.iter().any(|l| l == add),
            "no add in SLOWLOG: {logged:?}"
        );
        // The replica has the filters, secrets included: its answers and bytes are the
        // primary's.
        for creation in creations {
            let args = [read, creation[1], "a", "b", "after", "never"];
            assert_eq!(raw(&mut r, &args), raw(&mut c, &args), "{args:?}");
            let dump = ["DUMP", creation[1]];
            assert_eq!(raw(&mut r, &dump), raw(&mut c, &dump), "{dump:?}");
        }
    }
}

/// The page's recipe: a user without DUMP and the SCANDUMPs (any other command allowed) reads
/// a keyed filter's answers and cannot take its secret.
#[test]
fn a_reader_without_dump_and_scandump_cannot_take_the_secret() {
    let s = Server::start();
    let mut c = s.conn();
    expect_ok(&mut c, &["BF.RESERVE", "k", "0.01", "100", "KEYED"]);
    expect_int(&mut c, &["BF.ADD", "k", "a"], 1);
    let rule = "on >pw ~* +@all -dump -bf.scandump -cbf.scandump -apbf.scandump";
    let mut args = vec!["ACL", "SETUSER", "reader"];
    args.extend(rule.split(' '));
    expect_ok(&mut c, &args);
    let mut reader = s.conn();
    expect_ok(&mut reader, &["AUTH", "reader", "pw"]);
    expect_int(&mut reader, &["BF.EXISTS", "k", "a"], 1);
    expect_ok(&mut c, &["CBF.RESERVE", "c", "0.01", "100", "KEYED"]);
    expect_int(&mut reader, &["CBF.EXISTS", "c", "a"], 0);
    expect_ok(
        &mut c,
        &["APBF.RESERVE", "w", "COUNT", "0.01", "100", "KEYED"],
    );
    expect_int(&mut c, &["APBF.ADD", "w", "a"], 1);
    expect_int(&mut reader, &["APBF.EXISTS", "w", "a"], 1);
    for denied in [
        &["DUMP", "k"][..],
        &["BF.SCANDUMP", "k", "0"],
        &["CBF.SCANDUMP", "c", "0"],
        &["APBF.SCANDUMP", "w", "0"],
    ] {
        expect_err_prefix(&mut reader, denied, "NOPERM");
    }
}
