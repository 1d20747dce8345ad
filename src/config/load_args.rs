//! `loadmodule` arguments: applied before the configs are registered, so they become the
//! configs' defaults and a config file's line for the same setting wins over them (as in
//! RedisBloom 8).

use std::sync::atomic::Ordering;

use super::settings::{read_rust, Setting};
use super::{
    parse_counter_bits, parse_error_rate, FormatName, APBF_CAPACITY, APBF_ERROR_RATE,
    APBF_MAX_CAPACITY, BLOCKED_DEFAULT, CBF_COUNTER_BITS, CBF_ERROR_RATE, CBF_INITIAL_SIZE,
    CBF_MAX_INITIAL_SIZE, CHUNK_BYTES, KEYED_DEFAULT, MAX_CHUNK_BYTES, MAX_FILTER_BYTES,
    MAX_FILTER_BYTES_LIMIT, MIN_BYTES, NEW_FILTER_FORMAT,
};

fn parse_int(name: &str, text: &str, min: i64, max: i64) -> Result<i64, String> {
    match text.trim().parse::<i64>() {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(format!(
            "{name} must be an integer in [{min}, {max}], got '{text}'"
        )),
    }
}

/// `yes` or `no` (any case), as the server spells a boolean config.
fn parse_yes_no(name: &str, text: &str) -> Result<bool, String> {
    match text.to_ascii_lowercase().as_str() {
        "yes" => Ok(true),
        "no" => Ok(false),
        _ => Err(format!("{name} must be yes or no, got '{text}'")),
    }
}

/// Applies `loadmodule` arguments: pairs of a setting's name and a value. The names: the
/// eight settings RedisBloom 8 has too under either name ([`Setting::from_load_arg`]:
/// `bf-error-rate` or `error-rate`, `cf-max-expansions`, RedisBloom's legacy `ERROR_RATE`,
/// ...), and rsbloom's `max-filter-bytes`, `chunk-bytes`, `new-filter-format`,
/// `cbf-error-rate`, `cbf-initial-size`, `cbf-counter-bits`, `apbf-error-rate`,
/// `apbf-capacity`, `keyed-default`, `blocked-default`; any case, `_` for `-`. Any bad pair
/// fails the whole load.
pub fn apply_load_args(args: &[&str]) -> Result<(), String> {
    if !args.len().is_multiple_of(2) {
        return Err(format!(
            "load arguments must be name/value pairs, got {args:?}"
        ));
    }
    for pair in args.chunks(2) {
        let (name, value) = (pair[0], pair[1]);
        if let Some(setting) = Setting::from_load_arg(name) {
            setting
                .set(name, read_rust(setting, value), None)
                .map_err(|e| e.to_string())?;
            continue;
        }
        match name.to_ascii_lowercase().replace('_', "-").as_str() {
            "max-filter-bytes" => {
                let v = parse_int(name, value, MIN_BYTES, MAX_FILTER_BYTES_LIMIT)?;
                MAX_FILTER_BYTES.store(v, Ordering::Relaxed);
            }
            "chunk-bytes" => {
                let v = parse_int(name, value, MIN_BYTES, MAX_CHUNK_BYTES)?;
                CHUNK_BYTES.store(v, Ordering::Relaxed);
            }
            "new-filter-format" => {
                let format = FormatName::parse(value).ok_or_else(|| {
                    format!("new-filter-format must be guava, redisbloom or valkey, got '{value}'")
                })?;
                NEW_FILTER_FORMAT.store(format);
            }
            "cbf-error-rate" => CBF_ERROR_RATE.store(parse_error_rate(value)?),
            "cbf-initial-size" => {
                let v = parse_int(name, value, 1, CBF_MAX_INITIAL_SIZE)?;
                CBF_INITIAL_SIZE.store(v, Ordering::Relaxed);
            }
            "cbf-counter-bits" => {
                let v = parse_counter_bits(parse_int(name, value, 4, 8)?)?;
                CBF_COUNTER_BITS.0.store(v, Ordering::Relaxed);
            }
            "apbf-error-rate" => APBF_ERROR_RATE.store(parse_error_rate(value)?),
            "apbf-capacity" => {
                let v = parse_int(name, value, 1, APBF_MAX_CAPACITY)?;
                APBF_CAPACITY.store(v, Ordering::Relaxed);
            }
            "keyed-default" => KEYED_DEFAULT.store(parse_yes_no(name, value)?, Ordering::Relaxed),
            "blocked-default" => {
                BLOCKED_DEFAULT.store(parse_yes_no(name, value)?, Ordering::Relaxed)
            }
            _ if super::valkey::apply_load_arg(name, value)? => {}
            _ => return Err(format!("unknown load argument '{name}'")),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_load_arguments_are_refused() {
        for args in [
            &["error-rate"][..],
            &["error-rate", "1"],
            &["ERROR_RATE", "nan"],
            &["bf-error-rate", "0"],
            &["initial-size", "0"],
            &["bf-initial-size", "1073741825"],
            &["expansion-factor", "32769"],
            &["bf_expansion_factor", "-1"],
            &["max-filter-bytes", "63"],
            &["chunk-bytes", "1e3"],
            &["new-filter-format", "bloomier"],
            &["colour", "blue"],
            &["bf.error-rate", "0.1"],
            &["CF_MAX_EXPANSIONS", "0"],
            &["cf-max-expansions", "65537"],
            &["cf-bucket-size", "256"],
            &["cf-max-iterations", "0"],
            &["cf-expansion-factor", "32769"],
            &["cbf-counter-bits", "5"],
            &["cbf-error-rate", "0"],
            &["cbf-initial-size", "0"],
            &["keyed-default", "1"],
            &["blocked-default", "maybe"],
        ] {
            assert!(apply_load_args(args).is_err(), "{args:?} accepted");
        }
    }

    #[test]
    fn refusals_name_the_argument_as_given() {
        assert_eq!(
            apply_load_args(&["BF-ERROR-RATE", "2"]),
            Err("Value for `BF-ERROR-RATE` must be in the range (0.000000, 1.000000)".into())
        );
        assert_eq!(
            apply_load_args(&["cf-max-iterations", "x"]),
            Err("Invalid value for `cf-max-iterations`".into())
        );
    }
}
