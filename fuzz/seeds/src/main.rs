//! Writes seed inputs for the fuzz targets into `fuzz/corpus/<target>/`: valid RDB values of
//! both Bloom types, of cuckoo filters, of counting Bloom filters (and their headers), of
//! Count-Min Sketches, of Top-K sketches and of sliding-window filters, and
//! LOADCHUNK sessions of a few filters of each filter family. Run by `make fuzz`.

use std::fs;
use std::path::Path;

use rsbloom_core::bloom::codec::save_value;
use rsbloom_core::bloom::keyed::Secret;
use rsbloom_core::bloom::{Chain, Scheme};
use rsbloom_core::cms::{CellSize, CountMinSketch};
use rsbloom_core::counting::codec as counting_codec;
use rsbloom_core::counting::CountingFilter;
use rsbloom_core::cuckoo::codec::sharded;
use rsbloom_core::cuckoo::{CuckooFilter, Limits};
use rsbloom_core::fields::Writer;
use rsbloom_core::shard::ShardPlace;
use rsbloom_core::testkit::bloom::{encode_session, value_target, LIMIT};
use rsbloom_core::testkit::{cms, cuckoo, topk, valkey};
use rsbloom_core::topk::{Params, TopK};
use rsbloom_core::valkey::{load_blob, Shape, ValkeyBloom, FIXED_SEED};
use rsbloom_core::window::{harness as window, Window, WindowFilter};

fn main() -> std::io::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let chunk_dir = root.join("loadchunk_session");
    fs::create_dir_all(&chunk_dir)?;
    let shapes = [
        (0.01, 10, 0, 5),
        (0.01, 8, 2, 40),
        (0.2, 3, 3, 50),
        (0.001, 50, 1, 200),
    ];
    for scheme in [Scheme::Guava, Scheme::RedisBloom] {
        let target = value_target(scheme);
        let rdb_dir = root.join(target);
        fs::create_dir_all(&rdb_dir)?;
        for (i, &(error, capacity, expansion, items)) in shapes.iter().enumerate() {
            let mut chain =
                Chain::create(scheme, error, capacity, expansion, LIMIT).expect("small filter");
            for n in 0..items {
                let _ = chain.add(format!("seed:{n}").as_bytes(), LIMIT);
            }
            let mut value = Writer::default();
            save_value(&chain, &mut value);
            fs::write(rdb_dir.join(format!("seed{i}")), &value.0)?;
            let session = encode_session(&chain, |_| 64);
            fs::write(chunk_dir.join(format!("{target}-seed{i}")), &session)?;
        }
    }
    cuckoo_seeds(&root)?;
    cms_seeds(&root)?;
    counting_seeds(&root)?;
    window_seeds(&root)?;
    valkey_seeds(&root)?;
    topk_seeds(&root)
}

/// valkey-bloom filters of a few shapes (capacity, error rate, expansion), grown past their
/// first sub-filter, as RDB values (byte 0 = 0) and BF.LOAD blobs (byte 0 = 1).
fn valkey_seeds(root: &Path) -> std::io::Result<()> {
    let dir = root.join("valkey_value");
    fs::create_dir_all(&dir)?;
    for (i, &(capacity, fp_rate, expansion)) in
        [(5, 0.1, 2), (20, 0.01, 1), (8, 0.5, 0), (1, 0.001, 3)]
            .iter()
            .enumerate()
    {
        let shape = Shape {
            capacity,
            fp_rate,
            tightening: 0.5,
            expansion,
            seed: FIXED_SEED,
            seed_random: i % 2 == 1,
        };
        let mut bloom = ValkeyBloom::create(shape, None).expect("small filter");
        for n in 0..capacity * 4 {
            let _ = bloom.add(format!("seed:{n}").as_bytes(), None);
        }
        let mut rdb_input = vec![0u8];
        rdb_input.extend(valkey::encode_value(&bloom));
        fs::write(dir.join(format!("rdb{i}")), rdb_input)?;
        let mut blob_input = vec![1u8];
        blob_input.extend(load_blob::encode(&bloom));
        fs::write(dir.join(format!("blob{i}")), blob_input)?;
    }
    Ok(())
}

/// Sliding-window filters of a few shapes (window, error rate, capacity), COUNT and TIME,
/// fed past their window with times that advance, jump and go back; one grown by a burst.
fn window_seeds(root: &Path) -> std::io::Result<()> {
    let dir = root.join("window_value");
    fs::create_dir_all(&dir)?;
    let shapes = [
        (Window::Count, 0.01, 20),
        (Window::Count, 0.2, 3),
        (Window::Time { span_ms: 1_000 }, 0.01, 30),
        (Window::Time { span_ms: 5 }, 0.001, 8),
    ];
    for (i, &(w, error, capacity)) in shapes.iter().enumerate() {
        let mut filter =
            WindowFilter::new(w, error, capacity, window::LIMIT).expect("small window filter");
        let mut now = 1_700_000_000_000u64;
        for n in 0..capacity * 3 {
            now = match n % 11 {
                0 => now + 700,
                5 => now - 3,
                _ => now + 1,
            };
            let _ = filter.add(format!("seed:{n}").as_bytes(), now, window::LIMIT);
        }
        fs::write(dir.join(format!("seed{i}")), window::encode_value(&filter))?;
    }
    // A TIME window grown by a burst of six capacities at one moment: burst layers.
    let mut grown = WindowFilter::new(Window::Time { span_ms: 60_000 }, 0.05, 12, window::LIMIT)
        .expect("small window filter");
    for n in 0..72 {
        let _ = grown.add(
            format!("burst:{n}").as_bytes(),
            1_700_000_000_000,
            window::LIMIT,
        );
    }
    assert!(!grown.layers().is_empty(), "the burst grew no layer");
    fs::write(dir.join("seed-burst"), window::encode_value(&grown))?;
    // Keyed windows (APBF.RESERVE ... KEYED): a COUNT window turned, a TIME window grown.
    let secret = Secret::from_words([0x005E_C7E7, 0x0DDF_00D0]);
    let mut keyed = WindowFilter::new(Window::Count, 0.01, 20, window::LIMIT)
        .expect("small window filter")
        .with_secret(secret);
    for n in 0..60 {
        let _ = keyed.add(format!("keyed:{n}").as_bytes(), 0, window::LIMIT);
    }
    fs::write(dir.join("seed-keyed"), window::encode_value(&keyed))?;
    let mut keyed = WindowFilter::new(Window::Time { span_ms: 60_000 }, 0.05, 12, window::LIMIT)
        .expect("small window filter")
        .with_secret(secret);
    for n in 0..72 {
        let _ = keyed.add(
            format!("burst:{n}").as_bytes(),
            1_700_000_000_000,
            window::LIMIT,
        );
    }
    assert!(!keyed.layers().is_empty(), "the keyed burst grew no layer");
    fs::write(dir.join("seed-keyed-burst"), window::encode_value(&keyed))?;
    Ok(())
}

/// Counting Bloom filters of a few shapes (error rate, capacity, counter bits), some items
/// deleted, some counters saturated, plain and keyed: their RDB values and SCANDUMP headers.
fn counting_seeds(root: &Path) -> std::io::Result<()> {
    let value_dir = root.join("counting_value");
    let header_dir = root.join("counting_header");
    fs::create_dir_all(&value_dir)?;
    fs::create_dir_all(&header_dir)?;
    let shapes = [(0.01, 10, 4), (0.1, 50, 8), (0.001, 30, 4)];
    // Each shape plain (`seed<i>`) and keyed (`keyed<i>`, a fixed secret).
    for (name, keyed) in [("seed", false), ("keyed", true)] {
        for (i, &(error, capacity, bits)) in shapes.iter().enumerate() {
            let mut filter =
                CountingFilter::new(error, capacity, bits, LIMIT).expect("small counting filter");
            if keyed {
                filter = filter.with_secret(Secret::from_words([0x5EED, i as u64]));
            }
            for n in 0..capacity * 2 {
                let _ = filter.add(format!("seed:{}", n % 7).as_bytes());
            }
            filter.delete(b"seed:3");
            let mut value = Writer::default();
            counting_codec::save(&filter, &mut value);
            fs::write(value_dir.join(format!("{name}{i}")), &value.0)?;
            let header = counting_codec::encode_header(&filter.meta());
            fs::write(header_dir.join(format!("{name}{i}")), header)?;
        }
    }
    Ok(())
}

/// Count-Min Sketches of a few shapes (width, depth, cell size), counted into, one at its
/// cells' maximum, each in both encoding versions (the harness's first byte).
fn cms_seeds(root: &Path) -> std::io::Result<()> {
    let dir = root.join("cms_value");
    fs::create_dir_all(&dir)?;
    let shapes = [(1, 1, 4), (16, 2, 4), (100, 4, 1), (7, 9, 2), (30, 3, 8)];
    for (i, &(width, depth, cell)) in shapes.iter().enumerate() {
        let cell = CellSize::from_bytes(cell).expect("a cell size");
        let mut sketch =
            CountMinSketch::with_cell_size(width, depth, cell, cms::LIMIT).expect("small sketch");
        for n in 0..50i64 {
            let _ = sketch.incr_by(format!("seed:{n}").as_bytes(), n % 9);
        }
        if i == 1 {
            let _ = sketch.incr_by(b"full", cell.max() as i64);
        }
        for version in [0, 1] {
            fs::write(
                dir.join(format!("seed{i}v{version}")),
                cms::encode_value(&sketch, version),
            )?;
        }
    }
    Ok(())
}

/// Cuckoo filters of a few shapes (capacity, bucket size, max iterations, expansion), filled
/// past their first sub-filter where they grow, some items deleted.
fn cuckoo_seeds(root: &Path) -> std::io::Result<()> {
    let value_dir = root.join("cuckoo_value");
    let chunk_dir = root.join("cuckoo_loadchunk_session");
    let shard_dir = root.join("cuckoo_shard_value");
    fs::create_dir_all(&value_dir)?;
    fs::create_dir_all(&chunk_dir)?;
    fs::create_dir_all(&shard_dir)?;
    let shapes = [
        (64, 2, 20, 1),
        (16, 1, 5, 2),
        (200, 4, 500, 0),
        (8, 4, 1, 4),
    ];
    let limits = Limits::new(cuckoo::LIMIT);
    for (i, &(capacity, bucket_size, iterations, expansion)) in shapes.iter().enumerate() {
        let mut filter =
            CuckooFilter::new(capacity, bucket_size, iterations, expansion, cuckoo::LIMIT)
                .expect("small filter");
        for n in 0..capacity * 2 {
            let _ = filter.add(format!("seed:{n}").as_bytes(), &limits);
        }
        for n in (0..capacity).step_by(7) {
            filter.delete(format!("seed:{n}").as_bytes());
        }
        fs::write(
            value_dir.join(format!("seed{i}")),
            cuckoo::encode_value(&filter),
        )?;
        let place = ShardPlace::new(b"seed", i as u64, shapes.len() as u64).expect("place");
        let mut shard = Writer::default();
        sharded::save(&filter.clone().with_shard(place), &mut shard);
        fs::write(shard_dir.join(format!("seed{i}")), shard.0)?;
        let session = cuckoo::encode_session(&filter, |_| 64);
        fs::write(chunk_dir.join(format!("seed{i}")), &session)?;
    }
    Ok(())
}

/// Top-K sketches of a few shapes (k, width, depth, decay) fed a skewed stream with
/// collisions, NUL bytes and the empty item.
fn topk_seeds(root: &Path) -> std::io::Result<()> {
    let dir = root.join("topk_value");
    fs::create_dir_all(&dir)?;
    let shapes = [
        (1, 1, 1, 0.9),
        (3, 8, 2, 0.9),
        (10, 64, 4, 0.5),
        (5, 4, 3, 1.0),
    ];
    for (i, &(k, width, depth, decay)) in shapes.iter().enumerate() {
        let params = Params {
            k,
            width,
            depth,
            decay,
        };
        let mut sketch = TopK::new(params, topk::LIMIT).expect("small sketch");
        for n in 0..200u32 {
            let item = match n % 9 {
                0 => Vec::new(),
                1 => format!("n\0{}", n % 5).into_bytes(),
                _ => format!("seed:{}", 50 / (n % 50 + 1)).into_bytes(),
            };
            sketch.add(&item, 1 + n % 3);
        }
        fs::write(dir.join(format!("seed{i}")), topk::encode_value(&sketch))?;
    }
    Ok(())
}
