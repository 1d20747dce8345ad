//! Protocol `rsbloom-sharding/1` against its test vectors (tests/vectors/sharding, written
//! by tools/sharding-vectors.py from an independent Python implementation): items to slots
//! and shards (under the key slot and under keyed routing), shards to slot ranges, tags,
//! keys and key slots, shard capacities and the default shard counts.

use rsbloom_core::shard::layout::{
    bloom_bytes, cuckoo_bytes, default_shards, shard_capacity, shard_of_item, slot_range, tags,
};
use rsbloom_core::shard::slot::key_slot;
use rsbloom_core::shard::{layout, ShardPlace};
use rsbloom_core::testkit::files::{self, unhex};
use serde_json::Value;

fn vectors() -> Value {
    serde_json::from_str(&files::read("sharding", "vectors.json")).unwrap()
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap()
}

#[test]
fn items_route_as_the_vectors_say() {
    let v = vectors();
    assert_eq!(v["protocol"], "rsbloom-sharding/1");
    let items = v["items"].as_array().unwrap();
    assert!(items.len() > 50);
    for entry in items {
        let item = unhex(entry["hex"].as_str().unwrap());
        assert_eq!(u64::from(key_slot(&item)), u(&entry["slot"]), "{entry}");
        for (count, shard) in entry["shard"].as_object().unwrap() {
            let count: u32 = count.parse().unwrap();
            assert_eq!(u64::from(shard_of_item(&item, count)), u(shard), "{entry}");
            let place = ShardPlace::new(b"n", u(shard), u64::from(count)).unwrap();
            place.check_item(&item).unwrap();
        }
    }
}

#[test]
fn keyed_routing_routes_as_the_vectors_say() {
    let v = vectors();
    let entries = v["keyed_routing"].as_array().unwrap();
    assert!(entries.len() >= 60);
    for entry in entries {
        let item = unhex(entry["hex"].as_str().unwrap());
        let secret = entry["secret"].as_str().unwrap().as_bytes();
        for (count, shard) in entry["shard"].as_object().unwrap() {
            let count: u64 = count.parse().unwrap();
            let place = ShardPlace::new(b"n", u(shard), count)
                .unwrap()
                .with_secret_hex(secret)
                .unwrap();
            assert_eq!(
                u64::from(place.item_slot(&item)),
                u(&entry["slot"]),
                "{entry}"
            );
            place.check_item(&item).unwrap();
        }
    }
}

#[test]
fn shards_have_the_vectors_keys() {
    for entry in vectors()["layouts"].as_array().unwrap() {
        let name = unhex(entry["name_hex"].as_str().unwrap());
        let count = u(&entry["count"]) as u32;
        let tags = tags(count);
        for shard in entry["shards"].as_array().unwrap() {
            let i = u(&shard["index"]) as u32;
            let (first, last) = slot_range(i, count);
            assert_eq!(u64::from(first), u(&shard["first_slot"]));
            assert_eq!(u64::from(last), u(&shard["last_slot"]));
            assert_eq!(tags[i as usize].to_string(), shard["tag"].as_str().unwrap());
            let key = layout::shard_key(&name, i, count);
            assert_eq!(key, unhex(shard["key_hex"].as_str().unwrap()));
            assert_eq!(u64::from(key_slot(&key)), u(&shard["key_slot"]));
            ShardPlace::new(&name, u64::from(i), u64::from(count))
                .unwrap()
                .check_key(&key)
                .unwrap();
        }
    }
}

#[test]
fn sizes_are_the_vectors() {
    let v = vectors();
    for entry in v["shard_capacity"].as_array().unwrap() {
        let got = shard_capacity(u(&entry["capacity"]), u(&entry["count"]) as u32);
        assert_eq!(got, u(&entry["shard_capacity"]), "{entry}");
    }
    for entry in v["default_shards"].as_array().unwrap() {
        let capacity = u(&entry["capacity"]);
        let got = match entry["family"].as_str().unwrap() {
            "bloom" => {
                let p = entry["error_rate"].as_f64().unwrap();
                default_shards(capacity, 1 << 30, |c| bloom_bytes(c, p))
            }
            _ => {
                let b = u(&entry["bucket_size"]);
                default_shards(capacity, 1 << 30, |c| cuckoo_bytes(c, b))
            }
        };
        assert_eq!(got.map(u64::from), entry["shards"].as_u64(), "{entry}");
    }
}
