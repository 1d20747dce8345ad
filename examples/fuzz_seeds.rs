//! Writes seed inputs for the fuzz targets (valid RDB values and LOADCHUNK sessions of a few
//! filters) into `fuzz/corpus/<target>/`. Run by `make fuzz`.

use std::fs;
use std::path::Path;

use rsbloom::codec::harness::LIMIT;
use rsbloom::codec::wire::Writer;
use rsbloom::codec::{header, rdb};
use rsbloom::filter::Chain;

fn main() -> std::io::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    let (rdb_dir, chunk_dir) = (root.join("rdb_value"), root.join("loadchunk_session"));
    fs::create_dir_all(&rdb_dir)?;
    fs::create_dir_all(&chunk_dir)?;
    let shapes = [
        (0.01, 10, 0, 5),
        (0.01, 8, 2, 40),
        (0.2, 3, 3, 50),
        (0.001, 50, 1, 200),
    ];
    for (i, &(error, capacity, expansion, items)) in shapes.iter().enumerate() {
        let mut chain = Chain::new(error, capacity, expansion, LIMIT).expect("small filter");
        for n in 0..items {
            let _ = chain.add(format!("seed:{n}").as_bytes(), LIMIT);
        }
        let mut value = Writer::default();
        rdb::save(&chain, &mut value);
        fs::write(rdb_dir.join(format!("seed{i}")), &value.0)?;

        let head = header::encode(&chain);
        let mut session = (head.len() as u16).to_le_bytes().to_vec();
        session.extend_from_slice(&head);
        let mut offset = 0u64;
        while let Some(data) = chain.read_chunk(offset, 64) {
            offset += data.len() as u64;
            session.extend_from_slice(&(offset as i64 + 1).to_le_bytes());
            session.extend_from_slice(&(data.len() as u16).to_le_bytes());
            session.extend_from_slice(&data);
        }
        fs::write(chunk_dir.join(format!("seed{i}")), &session)?;
    }
    Ok(())
}
