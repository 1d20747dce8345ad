//! Writes seed inputs for the fuzz targets (valid RDB values of both types and LOADCHUNK
//! sessions of a few filters) into `fuzz/corpus/<target>/`. Run by `make fuzz`.

use std::fs;
use std::path::Path;

use rsbloom::codec::harness::LIMIT;
use rsbloom::codec::wire::Writer;
use rsbloom::codec::{chunks, rdb, redisbloom};
use rsbloom::filter::{Chain, Scheme};

fn main() -> std::io::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    let chunk_dir = root.join("loadchunk_session");
    fs::create_dir_all(&chunk_dir)?;
    let shapes = [
        (0.01, 10, 0, 5),
        (0.01, 8, 2, 40),
        (0.2, 3, 3, 50),
        (0.001, 50, 1, 200),
    ];
    for scheme in [Scheme::Guava, Scheme::RedisBloom] {
        let (target, save): (_, fn(&Chain, &mut Writer)) = match scheme {
            Scheme::Guava => ("rdb_value", |c, w| rdb::save(c, w)),
            Scheme::RedisBloom => ("redisbloom_value", |c, w| redisbloom::save(c, w)),
        };
        let rdb_dir = root.join(target);
        fs::create_dir_all(&rdb_dir)?;
        for (i, &(error, capacity, expansion, items)) in shapes.iter().enumerate() {
            let mut chain =
                Chain::create(scheme, error, capacity, expansion, LIMIT).expect("small filter");
            for n in 0..items {
                let _ = chain.add(format!("seed:{n}").as_bytes(), LIMIT);
            }
            let mut value = Writer::default();
            save(&chain, &mut value);
            fs::write(rdb_dir.join(format!("seed{i}")), &value.0)?;

            let head = chunks::header_of(&chain);
            let mut session = (head.len() as u16).to_le_bytes().to_vec();
            session.extend_from_slice(&head);
            let mut offset = 0u64;
            while let Some(data) = chain.read_chunk(offset, 64) {
                offset += data.len() as u64;
                session.extend_from_slice(&(offset as i64 + 1).to_le_bytes());
                session.extend_from_slice(&(data.len() as u16).to_le_bytes());
                session.extend_from_slice(&data);
            }
            fs::write(chunk_dir.join(format!("{target}-seed{i}")), &session)?;
        }
    }
    Ok(())
}
