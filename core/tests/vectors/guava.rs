//! The pure core against ground truth from the real Guava 31.1 (tests/vectors/guava): sizing,
//! MurmurHash3 and whole filters, bit for bit. No server involved.

use rsbloom_core::testkit::files;

use files::{unhex, GUAVA_CONFIGS};
use rsbloom_core::bloom::guava::{self, Sizing};
use rsbloom_core::bloom::Layer;

fn read(name: &str) -> String {
    files::read("guava", name)
}

fn read_bytes(name: &str) -> Vec<u8> {
    files::read_bytes("guava", name)
}

/// Data lines of a TSV file, split on tabs (headers start with '#').
fn tsv(name: &str) -> Vec<Vec<String>> {
    read(name)
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

#[test]
fn sizing_matches_every_row_of_guava() {
    let rows = tsv("sizing.tsv");
    assert_eq!(rows.len(), 1178);
    for row in rows {
        let n: u64 = row[0].parse().unwrap();
        let p: f64 = row[1].parse().unwrap();
        let m: u64 = row[2].parse().unwrap();
        let longs: i64 = row[3].parse().unwrap();
        let k: u32 = row[5].parse().unwrap();
        let s = Sizing::guava(n, p);
        assert_eq!((s.m, s.k), (m, k), "n={n} p={p}");
        // Guava throws where m == 0 (num_longs -1); we keep one word instead.
        assert_eq!(s.words as i64, longs.max(1), "n={n} p={p}");
    }
}

#[test]
fn murmur3_matches_every_guava_hash() {
    let rows = tsv("murmur3_128.tsv");
    assert!(rows.len() > 50);
    for row in rows {
        let h = guava::hash(&unhex(&row[0]));
        let h1: i64 = row[2].parse().unwrap();
        let h2: i64 = row[3].parse().unwrap();
        assert_eq!((h.h1 as i64, h.h2 as i64), (h1, h2), "item {}", row[0]);
        // Guava's HashCode bytes are h1 then h2, each little-endian.
        let mut bytes = h.h1.to_le_bytes().to_vec();
        bytes.extend_from_slice(&h.h2.to_le_bytes());
        assert_eq!(bytes, unhex(&row[1]));
    }
}

/// A configuration's items: the lines of `NAME.items.hex` (an empty line is the empty item),
/// or `u:{i}` for i < n where the vector stores no list.
fn items(name: &str, n: u64) -> Vec<Vec<u8>> {
    match std::fs::read_to_string(files::dir("guava").join(format!("{name}.items.hex"))) {
        Ok(text) => {
            let body = text.strip_suffix('\n').expect("items end with a newline");
            body.split('\n').map(unhex).collect()
        }
        Err(_) => (0..n).map(|i| format!("u:{i}").into_bytes()).collect(),
    }
}

#[test]
fn every_guava_filter_is_rebuilt_bit_for_bit_with_identical_answers() {
    let index = read("index.json");
    let names: Vec<&str> = index
        .split('"')
        .filter(|s| s.starts_with('n') && s.contains("_p"))
        .collect();
    assert_eq!(names.len(), 7, "{index}");
    for name in names {
        let (n, p) = name[1..].split_once("_p").unwrap();
        let (n, p): (u64, f64) = (n.parse().unwrap(), p.parse().unwrap());
        let bin = read_bytes(&format!("{name}.filter.bin"));
        assert_eq!(bin[0], 1, "{name}: strategy MURMUR128_MITZ_64");
        let k = bin[1] as u32;
        let longs = i32::from_be_bytes(bin[2..6].try_into().unwrap()) as u64;
        let want: Vec<u64> = bin[6..]
            .chunks_exact(8)
            .map(|w| u64::from_be_bytes(w.try_into().unwrap()))
            .collect();
        assert_eq!(want.len() as u64, longs);

        let s = Sizing::guava(n, p);
        assert_eq!((s.k, s.words), (k, longs), "{name}: sizing");
        let mut layer = Layer::new(n, p, s.k, s.words).unwrap();
        let items = items(name, n);
        for item in &items {
            layer.insert(guava::hash(item));
        }
        assert_eq!(layer.words(), &want[..], "{name}: bits differ from Guava's");
        assert!(items.iter().all(|i| layer.contains(guava::hash(i))));

        let queries = tsv(&format!("{name}.queries.tsv"));
        assert_eq!(queries.len(), 10_000);
        for q in queries {
            let answer = layer.contains(guava::hash(&unhex(&q[0])));
            assert_eq!(answer, q[1] == "1", "{name}: query {}", q[0]);
        }
    }
}

/// Every Guava filter imports with the derived parameters, answers as Guava did, and exports
/// back to the very same bytes; broken inputs are refused.
#[test]
fn guava_files_import_and_export_byte_for_byte() {
    use rsbloom_core::bloom::codec::writeto;
    let limit = 1 << 30;
    for name in GUAVA_CONFIGS {
        let bin = read_bytes(&format!("{name}.filter.bin"));
        let chain = writeto::import(&bin, None, None, limit).unwrap();
        assert_eq!(writeto::export(&chain).unwrap(), bin, "{name}");
        let layer = &chain.layers()[0];
        assert_eq!(layer.k() as u8, bin[1]);
        // Derived figures: a capacity never below the n Guava was created with, p = 0.5^k,
        // count = Guava's own approximateElementCount.
        let n = files::guava::meta_u64(name, "n");
        assert!(
            layer.capacity() >= n,
            "{name}: capacity {}",
            layer.capacity()
        );
        assert_eq!(layer.error(), 0.5f64.powi(layer.k() as i32));
        assert_eq!(
            layer.count(),
            files::guava::meta_u64(name, "approximate_element_count"),
            "{name}"
        );
        assert!(layer.count() <= layer.capacity());
        for q in tsv(&format!("{name}.queries.tsv")) {
            assert_eq!(
                chain.contains(&unhex(&q[0])),
                q[1] == "1",
                "{name}: {}",
                q[0]
            );
        }
        let given = writeto::import(&bin, Some(5_000_000), Some(0.02), limit).unwrap();
        assert_eq!(given.layers()[0].capacity(), 5_000_000);
        assert_eq!(given.layers()[0].error(), 0.02);
    }
    // The approximate count of n100_p0.01 is Guava's own approximateElementCount (102),
    // within the derived capacity (102) and within a larger given one.
    let bin = read_bytes("n100_p0.01.filter.bin");
    assert_eq!(
        writeto::import(&bin, Some(1000), None, limit)
            .unwrap()
            .count(),
        102
    );

    let mut bad: Vec<(Vec<u8>, &str)> = vec![
        (bin[..5].to_vec(), "truncated header"),
        (bin[..bin.len() - 1].to_vec(), "truncated words"),
        ([&bin[..], &[0]].concat(), "trailing byte"),
    ];
    for (at, value, what) in [
        (0, 0u8, "strategy 0"),
        (0, 2, "strategy 2"),
        (1, 0, "k = 0"),
        (2, 0x80, "negative length"),
    ] {
        let mut b = bin.clone();
        b[at] = value;
        bad.push((b, what));
    }
    let mut empty = bin[..6].to_vec();
    empty[2..6].copy_from_slice(&0i32.to_be_bytes());
    bad.push((empty, "no words"));
    for (bytes, what) in bad {
        assert!(
            writeto::import(&bytes, None, None, limit).is_err(),
            "{what} accepted"
        );
    }
    // The size limit applies before anything is allocated.
    let mut huge = bin[..6].to_vec();
    huge[2..6].copy_from_slice(&i32::MAX.to_be_bytes());
    assert!(writeto::import(&huge, None, None, limit).is_err());
    assert!(writeto::import(&bin, None, None, 64).is_err());
}
