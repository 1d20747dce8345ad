//! The eight settings RedisBloom 8 has too, under two names each: RedisBloom 8's
//! (`bf-error-rate`, `cf-bucket-size`, ...: unprefixed configs, which Redis 8 has, and load
//! arguments) and rsbloom's (`bf.error-rate`, `bf.cf-bucket-size`, ...). Both names are one
//! value, checked as RedisBloom 8 checks it: its ranges, its cap on the error rate, and its
//! coupling of the cuckoo bucket size and initial size (each bounds the other), with its texts.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Mutex;

use rsbloom_core::bloom::meta::{ERROR_RATE_CAP, MAX_EXPANSION};
use rsbloom_core::error::Error;

use super::{
    CF_BUCKET_SIZE, CF_EXPANSION, CF_INITIAL_SIZE, CF_MAX_BUCKET_SIZE, CF_MAX_EXPANSION,
    CF_MAX_EXPANSIONS, CF_MAX_EXPANSIONS_LIMIT, CF_MAX_INITIAL_SIZE, CF_MAX_ITERATIONS,
    CF_MAX_ITERATIONS_CONFIG, ERROR_RATE, EXPANSION, INITIAL_SIZE, MAX_INITIAL_SIZE,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    ErrorRate,
    InitialSize,
    ExpansionFactor,
    CfBucketSize,
    CfInitialSize,
    CfMaxIterations,
    CfExpansionFactor,
    CfMaxExpansions,
}

/// A value as read from its text: the error rate is a number, the others integers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    Rate(f64),
    Int(i64),
}

/// The error rate as last set from a text (`CONFIG GET` answers it as given, as RedisBloom's
/// does); `None` until a set, or after a load argument (then the value is formatted).
static RATE_TEXT: Mutex<Option<String>> = Mutex::new(None);

impl Setting {
    /// In RedisBloom 8's order, which is also the order the server applies a config file in.
    pub const ALL: [Setting; 8] = [
        Setting::ErrorRate,
        Setting::InitialSize,
        Setting::ExpansionFactor,
        Setting::CfBucketSize,
        Setting::CfInitialSize,
        Setting::CfMaxIterations,
        Setting::CfExpansionFactor,
        Setting::CfMaxExpansions,
    ];

    /// RedisBloom 8's name: its unprefixed config and load argument.
    pub fn redisbloom_name(self) -> &'static str {
        match self {
            Setting::ErrorRate => "bf-error-rate",
            Setting::InitialSize => "bf-initial-size",
            Setting::ExpansionFactor => "bf-expansion-factor",
            Setting::CfBucketSize => "cf-bucket-size",
            Setting::CfInitialSize => "cf-initial-size",
            Setting::CfMaxIterations => "cf-max-iterations",
            Setting::CfExpansionFactor => "cf-expansion-factor",
            Setting::CfMaxExpansions => "cf-max-expansions",
        }
    }

    /// rsbloom's name without the module's `bf.` (config `bf.<name>`, load argument).
    pub fn own_name(self) -> &'static str {
        match self {
            Setting::ErrorRate => "error-rate",
            Setting::InitialSize => "initial-size",
            Setting::ExpansionFactor => "expansion-factor",
            Setting::CfBucketSize => "cf-bucket-size",
            Setting::CfInitialSize => "cf-initial-size",
            Setting::CfMaxIterations => "cf-max-iterations",
            Setting::CfExpansionFactor => "cf-expansion-factor",
            Setting::CfMaxExpansions => "cf-max-expansions",
        }
    }

    /// The setting a load argument names: either name, or RedisBloom's legacy `ERROR_RATE`,
    /// `INITIAL_SIZE`, `CF_MAX_EXPANSIONS`, in any case and with `_` for `-`.
    pub fn from_load_arg(name: &str) -> Option<Setting> {
        let name = name.to_ascii_lowercase().replace('_', "-");
        Setting::ALL
            .into_iter()
            .find(|s| name == s.redisbloom_name() || name == s.own_name())
    }

    /// The error rate is a number; the others are integers.
    pub fn is_rate(self) -> bool {
        self == Setting::ErrorRate
    }

    /// Where an integer setting lives (`None`: the error rate).
    fn int_storage(self) -> Option<&'static AtomicI64> {
        Some(match self {
            Setting::ErrorRate => return None,
            Setting::InitialSize => &INITIAL_SIZE,
            Setting::ExpansionFactor => &EXPANSION,
            Setting::CfBucketSize => &CF_BUCKET_SIZE,
            Setting::CfInitialSize => &CF_INITIAL_SIZE,
            Setting::CfMaxIterations => &CF_MAX_ITERATIONS_CONFIG,
            Setting::CfExpansionFactor => &CF_EXPANSION,
            Setting::CfMaxExpansions => &CF_MAX_EXPANSIONS,
        })
    }

    /// The range an integer may take now: RedisBloom 8's, where the bucket size is at most
    /// half the initial size (and 255) and the initial size at least twice the bucket size
    /// (so their order matters when both change).
    pub fn int_range(self) -> (i64, i64) {
        let load = |a: &AtomicI64| a.load(Ordering::Relaxed);
        match self {
            Setting::InitialSize => (1, MAX_INITIAL_SIZE),
            Setting::ExpansionFactor => (0, MAX_EXPANSION as i64),
            Setting::CfBucketSize => (1, (load(&CF_INITIAL_SIZE) / 2).min(CF_MAX_BUCKET_SIZE)),
            Setting::CfInitialSize => (load(&CF_BUCKET_SIZE) * 2, CF_MAX_INITIAL_SIZE),
            Setting::CfMaxIterations => (1, CF_MAX_ITERATIONS),
            Setting::CfExpansionFactor => (0, CF_MAX_EXPANSION),
            Setting::CfMaxExpansions => (1, CF_MAX_EXPANSIONS_LIMIT),
            Setting::ErrorRate => (0, 0),
        }
    }

    /// Checks a value read from a text and stores it; `shown` is the name the error texts
    /// give, `None` a text that is no number of the setting's kind. The error rate keeps
    /// `text`, when given, for `CONFIG GET`.
    pub fn set(self, shown: &str, value: Option<Value>, text: Option<&str>) -> Result<(), Error> {
        match (value, self.int_storage()) {
            (Some(Value::Rate(p)), None) => {
                if !(p > 0.0 && p < 1.0) {
                    return Err(Error::ConfigRateRange(shown.to_string()));
                }
                // RedisBloom 8 takes a rate above 0.25 as 0.25, and shows it so.
                let capped = p > ERROR_RATE_CAP;
                ERROR_RATE.store(p.min(ERROR_RATE_CAP));
                *lock_text() = text.filter(|_| !capped).map(str::to_string);
                Ok(())
            }
            (Some(Value::Int(v)), Some(storage)) => {
                let (min, max) = self.int_range();
                if !(min..=max).contains(&v) {
                    return Err(Error::ConfigIntRange {
                        name: shown.to_string(),
                        min,
                        max,
                    });
                }
                storage.store(v, Ordering::Relaxed);
                Ok(())
            }
            _ => Err(Error::ConfigInvalid(shown.to_string())),
        }
    }

    /// The value as `CONFIG GET` shows it; `format_rate` writes an error rate that was not
    /// set from a text (the server's formatting, as RedisBloom's).
    pub fn text(self, format_rate: &dyn Fn(f64) -> String) -> String {
        match self.int_storage() {
            Some(storage) => storage.load(Ordering::Relaxed).to_string(),
            None => match lock_text().as_ref() {
                Some(text) => text.clone(),
                None => format_rate(ERROR_RATE.get()),
            },
        }
    }
}

fn lock_text() -> std::sync::MutexGuard<'static, Option<String>> {
    RATE_TEXT.lock().unwrap_or_else(|e| e.into_inner())
}

/// Rust's reading of a load argument's value for `setting`.
pub fn read_rust(setting: Setting, text: &str) -> Option<Value> {
    let text = text.trim();
    if setting.is_rate() {
        text.parse::<f64>().ok().map(Value::Rate)
    } else {
        text.parse::<i64>().ok().map(Value::Int)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_argument_names() {
        assert_eq!(
            Setting::from_load_arg("BF-ERROR-RATE"),
            Some(Setting::ErrorRate)
        );
        assert_eq!(
            Setting::from_load_arg("ERROR_RATE"),
            Some(Setting::ErrorRate)
        );
        assert_eq!(
            Setting::from_load_arg("bf_initial_size"),
            Some(Setting::InitialSize)
        );
        assert_eq!(
            Setting::from_load_arg("CF_MAX_EXPANSIONS"),
            Some(Setting::CfMaxExpansions)
        );
        assert_eq!(
            Setting::from_load_arg("cf-expansion-factor"),
            Some(Setting::CfExpansionFactor)
        );
        assert_eq!(Setting::from_load_arg("bf.error-rate"), None);
        assert_eq!(Setting::from_load_arg("max-filter-bytes"), None);
    }

    #[test]
    fn names_are_distinct() {
        for s in Setting::ALL {
            assert_eq!(
                Setting::ALL
                    .iter()
                    .filter(|t| t.redisbloom_name() == s.redisbloom_name())
                    .count(),
                1
            );
        }
    }
}
