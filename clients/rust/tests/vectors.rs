//! The shared test vectors' keyed routing (tests/vectors/sharding/vectors.json, written from
//! Python's hmac): every item's shard under every secret and count, as this client routes.

use rsbloom_client::{Description, Layout, Params, Routing};

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
        .collect()
}

#[test]
fn keyed_routing_matches_the_vectors() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/vectors/sharding/vectors.json"
    );
    let vectors: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("vectors")).expect("json");
    let cases = vectors["keyed_routing"]
        .as_array()
        .expect("keyed_routing vectors");
    assert!(cases.len() >= 60, "{} keyed vectors", cases.len());
    let mut checked = 0;
    for case in cases {
        let secret: [u8; 16] = unhex(case["secret"].as_str().unwrap()).try_into().unwrap();
        let item = unhex(case["hex"].as_str().unwrap());
        for (count, shard) in case["shard"].as_object().unwrap() {
            let layout = Layout::new(
                b"v",
                Description {
                    shards: count.parse().unwrap(),
                    capacity: 1,
                    shard_capacity: 1,
                    params: Params::Bloom {
                        error_rate: 0.01,
                        expansion: 2,
                    },
                    id: None,
                    routing: Routing::keyed(secret),
                },
            );
            assert_eq!(
                layout.shard_of(&item) as u64,
                shard.as_u64().unwrap(),
                "{case}"
            );
            assert_eq!(
                layout.description.routing.slot(&item) as u64,
                case["slot"].as_u64().unwrap()
            );
            checked += 1;
        }
    }
    assert!(checked >= 400, "{checked}");
}
