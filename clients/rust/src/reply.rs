//! Reading replies of both protocols: RESP2 integers and flat arrays, RESP3 booleans and
//! maps, error replies anywhere (a `Value::ServerError`, also inside an array).

use redis::Value;

use crate::error::Error;

/// An error reply's text as the server sent it (`ERR not found`, `MOVED 3999 host:port`).
pub(crate) fn error_text(value: &Value) -> Option<String> {
    match value {
        Value::ServerError(e) => Some(match e.details() {
            Some(d) => format!("{} {d}", e.code()),
            None => e.code().to_string(),
        }),
        _ => None,
    }
}

/// The error a shard's refusal is: full shards (their own words) are [`Error::Full`].
pub(crate) fn refusal(text: String) -> Error {
    if text.contains("full") {
        Error::Full(text)
    } else {
        Error::Server(text)
    }
}

pub(crate) fn integer(value: &Value) -> Option<i64> {
    match value {
        Value::Int(n) => Some(*n),
        Value::Boolean(b) => Some(*b as i64),
        Value::BulkString(b) => std::str::from_utf8(b).ok()?.parse().ok(),
        Value::SimpleString(s) => s.parse().ok(),
        Value::Double(d) if d.fract() == 0.0 => Some(*d as i64),
        _ => None,
    }
}

pub(crate) fn text(value: &Value) -> Option<String> {
    match value {
        Value::BulkString(b) => Some(String::from_utf8_lossy(b).into_owned()),
        Value::SimpleString(s) => Some(s.clone()),
        Value::VerbatimString { text, .. } => Some(text.clone()),
        Value::Int(n) => Some(n.to_string()),
        Value::Okay => Some("OK".into()),
        _ => None,
    }
}

pub(crate) fn bytes(value: &Value) -> Option<Vec<u8>> {
    match value {
        Value::BulkString(b) => Some(b.clone()),
        other => text(other).map(String::into_bytes),
    }
}

/// An INFO-style reply (RESP2 flat array, RESP3 map) or HGETALL's, as name/value pairs.
pub(crate) fn pairs(value: &Value) -> Option<Vec<(String, Value)>> {
    match value {
        Value::Map(map) => map
            .iter()
            .map(|(n, v)| Some((text(n)?, v.clone())))
            .collect(),
        Value::Array(items) if items.len() % 2 == 0 => items
            .chunks(2)
            .map(|p| Some((text(&p[0])?, p[1].clone())))
            .collect(),
        Value::Nil => Some(Vec::new()),
        _ => None,
    }
}

/// The entries of an array reply.
pub(crate) fn array(value: &Value) -> Option<&[Value]> {
    match value {
        Value::Array(items) | Value::Set(items) => Some(items),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_protocols_decode_alike() {
        assert_eq!(integer(&Value::Boolean(true)), Some(1));
        assert_eq!(integer(&Value::Int(-1)), Some(-1));
        assert_eq!(integer(&Value::BulkString(b"12".to_vec())), Some(12));
        let resp2 = Value::Array(vec![Value::SimpleString("Size".into()), Value::Int(7)]);
        let resp3 = Value::Map(vec![(Value::SimpleString("Size".into()), Value::Int(7))]);
        assert_eq!(pairs(&resp2), pairs(&resp3));
        assert_eq!(pairs(&resp2).unwrap()[0].0, "Size");
    }
}
