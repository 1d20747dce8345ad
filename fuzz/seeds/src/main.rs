//! Writes seed inputs for the fuzz targets into `fuzz/corpus/<target>/`: valid RDB values of
//! both Bloom types and LOADCHUNK sessions of a few filters. Run by `make fuzz`.

use std::fs;
use std::path::Path;

use rsbloom_core::bloom::codec::save_value;
use rsbloom_core::bloom::{Chain, Scheme};
use rsbloom_core::fields::Writer;
use rsbloom_core::testkit::bloom::{encode_session, value_target, LIMIT};

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
    Ok(())
}
