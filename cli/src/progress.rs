//! Progress: a bar (bytes, rate, ETA) on stderr when stderr is a terminal and the transfer
//! lasts more than a moment, and always a one-line summary at the end.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

/// The bar appears only after this long (short transfers print just the summary).
const SHOW_AFTER: Duration = Duration::from_millis(400);

pub struct Progress {
    verb: &'static str,
    key: String,
    total: u64,
    bytes: u64,
    chunks: u64,
    start: Instant,
    tty: bool,
    bar: Option<ProgressBar>,
}

impl Progress {
    /// `total` is the expected number of bytes (0 if unknown).
    pub fn new(verb: &'static str, key: &str, total: u64) -> Progress {
        Progress {
            verb,
            key: key.to_string(),
            total,
            bytes: 0,
            chunks: 0,
            start: Instant::now(),
            tty: std::io::stderr().is_terminal(),
            bar: None,
        }
    }

    /// Counts one chunk of `n` bytes.
    pub fn chunk(&mut self, n: u64) {
        self.bytes += n;
        self.chunks += 1;
        if self.bar.is_none() && self.tty && self.start.elapsed() >= SHOW_AFTER {
            let bar = ProgressBar::new(self.total.max(self.bytes));
            let style = ProgressStyle::with_template(
                "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} ETA {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
            bar.set_style(style);
            bar.set_message(format!("{} {}", self.verb, self.key));
            self.bar = Some(bar);
        }
        if let Some(bar) = &self.bar {
            if self.bytes > bar.length().unwrap_or(0) {
                bar.set_length(self.bytes);
            }
            bar.set_position(self.bytes);
        }
    }

    /// Clears the bar and prints `dumped KEY: N bytes in C chunks, T s, R MB/s`.
    pub fn finish(self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        let secs = self.start.elapsed().as_secs_f64();
        let rate = if secs > 0.0 {
            self.bytes as f64 / 1e6 / secs
        } else {
            0.0
        };
        eprintln!(
            "{} {}: {} bytes in {} chunks, {:.1} s, {:.1} MB/s",
            self.verb, self.key, self.bytes, self.chunks, secs, rate
        );
    }
}
