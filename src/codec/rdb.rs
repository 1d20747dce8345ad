//! The native type's RDB value (encoding version [`ENCODING_VERSION`]): the parameter block,
//! then each layer's bit array as one byte string of little-endian words.

use super::{meta, FieldSink, FieldSource};
use crate::error::{bad_data, Result};
use crate::filter::Chain;

/// Written with every value; `rdb_load` refuses newer versions.
pub const ENCODING_VERSION: i32 = 1;

pub fn save(chain: &Chain, out: &mut dyn FieldSink) {
    meta::encode(&chain.meta(), out);
    for layer in chain.layers() {
        out.put_bytes(&layer.le_bytes());
    }
}

pub fn load(src: &mut dyn FieldSource, version: i32, limit: u64) -> Result<Chain> {
    if version != ENCODING_VERSION {
        return Err(bad_data(format!("unknown encoding version {version}")));
    }
    let meta = meta::decode(src, limit)?;
    let mut chain = Chain::from_meta(&meta, limit)?;
    for i in 0..meta.layers.len() {
        src.with_bytes(&mut |bytes| chain.set_layer_bytes(i, bytes))?;
    }
    Ok(chain)
}
