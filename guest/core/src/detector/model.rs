//! The learned detector's weights: a logistic regression over the hashed
//! features of [`super::features`], and the file that carries it.
//!
//! # The file
//!
//! `models/injection-detector/injection-detector.bin`, written by the
//! trainer (`guest/detector-training`), little-endian:
//!
//! | bytes | what |
//! |---|---|
//! | 8 | magic `HMINJDT3` |
//! | 4 | `u32` feature version ([`super::features::FEATURE_VERSION`]) |
//! | 4 | `u32` bits: the model has `2^bits` weights |
//! | 4 | `f32` bias |
//! | 4 | `f32` scale: a weight is its stored `i8` times the scale |
//! | 4 | `f32` threshold: a text of one window scoring at or above it is hostile |
//! | 4 | `f32` length slope: how much higher, in log-odds per `ln` of the window count, a longer text's worst window must score ([`Model::threshold_for`]) |
//! | 4 | `f32` window median: the median score of benign windows, which a window must pass to count towards the length slope ([`WindowTally`]) |
//! | `2^bits` | `i8` weights |
//!
//! Format 2, without the window median, is refused: its length slope
//! counted every window, and a model's verdicts must mean what its name
//! says (the trainer writes format 3).
//!
//! Weights are quantised to 8 bits (the largest at ±127): a quarter of the
//! floats' size, and the score moves by less than the model's own noise.
//!
//! # The score
//!
//! A text's features are a set of buckets; each counts `1/√(n + 24)`
//! ([`feature_value`]: about unit length, so a long text and a short one are
//! on one scale, shrunk for a text of a few words, which carries little
//! evidence), and the score is the logistic of the bias plus the weights of
//! the set's buckets. It is the model's probability that the text is
//! hostile, calibrated on the training data's mix, not a frequency in a
//! user's mind.

use thiserror::Error;

use super::features::{self, FEATURE_VERSION, FeatureKind};

/// The most windows the length slope counts. The slope assumes one
/// hostile window among ordinary ones; a text that repeats an attack page
/// after page has many, and an uncapped bar would rise with its length
/// until the attack passed (600 kB of "ignore previous instructions" did).
/// Sixteen is about the longest text the trainer's length study measures
/// (`guest/detector-training/src/length.rs`): up to there the false alarms
/// stay flat; beyond, the bar stays where it is.
pub const MAX_PENALISED_WINDOWS: usize = 16;

/// The file's first bytes (format 3: with the window median).
pub const MAGIC: &[u8; 8] = b"HMINJDT3";

/// The first bytes of the format before the window median, refused with
/// a reason of its own.
const MAGIC_FORMAT_2: &[u8; 8] = b"HMINJDT2";

/// Bytes before the weights.
pub const HEADER_BYTES: usize = 36;

/// How a text's windows count towards the length slope
/// ([`Model::threshold_for`]): how many it is read in, and how many of
/// them score above the benign windows' median ([`Model::window_median`]).
///
/// # Why the windows above the median
///
/// The worst of `n` ordinary windows is higher by chance the larger `n`
/// is, and the bar rises by `β ln n` to keep a long text's false alarms at
/// a short one's (the benign scores' tail falls off as `e^(−x/β)`). But a
/// window far below the median cannot be the worst by chance; counting it
/// raises the bar for nothing. An instruction set among pages of plain
/// prose or code is a few warm windows in a cold carrier: counted as
/// sixteen windows, its bar was `β ln 16` (about 3.5 log-odds) above a
/// short text's, and an attack a short text is caught with passed.
/// (Base64 and other noise score above the median — an obfuscated payload
/// looks like one — and count.)
///
/// Counting only the `k` windows above the median keeps the rate flat:
/// of benign windows a share `q = ½` lies above it, each of those passes
/// `x` twice as often as a window drawn at random, so the worst of `k`
/// passes `T + β ln(k / q)` as often as one window passes `T`. An ordinary
/// text has `k ≈ n / 2`, so its bar is the `T + β ln n` it had; a lone
/// warm window in a cold carrier gets `T + β ln 2`. The counted number
/// never exceeds `n` (no text is judged more strictly than it was) and
/// stops at [`MAX_PENALISED_WINDOWS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowTally {
    /// How many windows the text is read in.
    pub windows: usize,
    /// How many of them score above the model's window median.
    pub above_median: usize,
}

impl WindowTally {
    /// A text read in one window (or none).
    pub const ONE: WindowTally = WindowTally {
        windows: 1,
        above_median: 1,
    };

    /// The number of windows the length slope counts: `k / q` with
    /// `q = ½` the share of benign windows above the median, never more
    /// than the windows read, one at least, [`MAX_PENALISED_WINDOWS`] at
    /// most.
    pub fn counted(self) -> usize {
        self.above_median
            .saturating_mul(2)
            .min(self.windows)
            .clamp(1, MAX_PENALISED_WINDOWS)
    }
}

/// The most weight bits a file may declare (2^24 weights, 16 MiB): the
/// shipped model has far fewer; the cap refuses a corrupt header before it
/// asks for memory.
const MAX_BITS: u32 = 24;

/// Why a model file was refused.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ModelError {
    /// Not a detector file, or cut short.
    #[error("not an injection-detector model: {0}")]
    Format(String),
    /// Trained on another feature set than this engine computes.
    #[error("the model reads feature version {found}, this engine computes version {expected}")]
    FeatureVersion {
        /// The file's version.
        found: u32,
        /// This engine's.
        expected: u32,
    },
}

/// A loaded detector model.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    bits: u32,
    bias: f32,
    scale: f32,
    threshold: f32,
    length_slope: f32,
    window_median: f32,
    weights: Vec<i8>,
}

/// One feature's part in a score: its kind, its text, its weight.
#[derive(Debug, Clone, PartialEq)]
pub struct Contribution {
    /// What kind of feature.
    pub kind: FeatureKind,
    /// The feature's text (a word, a word pair, an n-gram, a pattern name).
    pub feature: String,
    /// Its weight in the score, before the scaling by [`feature_value`].
    pub weight: f32,
}

impl Model {
    /// A model from its parts (the trainer's, before it writes the file).
    pub fn new(bits: u32, bias: f32, scale: f32, threshold: f32, weights: Vec<i8>) -> Model {
        Model {
            bits,
            bias,
            scale,
            threshold,
            length_slope: 0.0,
            window_median: 0.0,
            weights,
        }
    }

    /// The model with a length slope and the benign windows' median score
    /// it counts windows above ([`Model::threshold_for`], [`WindowTally`]).
    pub fn with_length_slope(self, slope: f32, window_median: f32) -> Model {
        Model {
            length_slope: slope,
            window_median,
            ..self
        }
    }

    /// Read a model file.
    pub fn from_bytes(bytes: &[u8]) -> Result<Model, ModelError> {
        if bytes.get(..8) == Some(MAGIC_FORMAT_2.as_slice()) {
            return Err(ModelError::Format(
                "format 2, without the window median the length slope needs; \
                 train it again with this engine's trainer"
                    .to_string(),
            ));
        }
        let header = bytes
            .get(..HEADER_BYTES)
            .ok_or_else(|| ModelError::Format(format!("{} bytes, no header", bytes.len())))?;
        if header.get(..8) != Some(MAGIC.as_slice()) {
            return Err(ModelError::Format("wrong magic bytes".to_string()));
        }
        let word = |at: usize| -> [u8; 4] {
            let mut out = [0u8; 4];
            if let Some(slice) = header.get(at..at + 4) {
                out.copy_from_slice(slice);
            }
            out
        };
        let version = u32::from_le_bytes(word(8));
        if version != FEATURE_VERSION {
            return Err(ModelError::FeatureVersion {
                found: version,
                expected: FEATURE_VERSION,
            });
        }
        let bits = u32::from_le_bytes(word(12));
        if !(1..=MAX_BITS).contains(&bits) {
            return Err(ModelError::Format(format!("{bits} weight bits")));
        }
        let count = 1usize << bits;
        let body = bytes.get(HEADER_BYTES..).unwrap_or_default();
        if body.len() != count {
            return Err(ModelError::Format(format!(
                "{} weight bytes, the header declares {count}",
                body.len()
            )));
        }
        let number = |at: usize| f32::from_le_bytes(word(at));
        let (bias, scale, threshold, length_slope, window_median) =
            (number(16), number(20), number(24), number(28), number(32));
        if ![bias, scale, threshold, length_slope, window_median]
            .iter()
            .all(|x| x.is_finite())
            || !(0.0..=1.0).contains(&threshold)
            || !(0.0..=1.0).contains(&window_median)
            || length_slope < 0.0
        {
            return Err(ModelError::Format(
                "bias, scale, threshold, length slope or window median out of range".to_string(),
            ));
        }
        Ok(Model {
            bits,
            bias,
            scale,
            threshold,
            length_slope,
            window_median,
            weights: body.iter().map(|&b| i8::from_le_bytes([b])).collect(),
        })
    }

    /// The model as a file.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_BYTES + self.weights.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FEATURE_VERSION.to_le_bytes());
        out.extend_from_slice(&self.bits.to_le_bytes());
        out.extend_from_slice(&self.bias.to_le_bytes());
        out.extend_from_slice(&self.scale.to_le_bytes());
        out.extend_from_slice(&self.threshold.to_le_bytes());
        out.extend_from_slice(&self.length_slope.to_le_bytes());
        out.extend_from_slice(&self.window_median.to_le_bytes());
        out.extend(self.weights.iter().map(|w| w.to_le_bytes()[0]));
        out
    }

    /// How many weight bits: the features are hashed into `2^bits` buckets.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// The score at or above which a text of one window is hostile.
    pub fn threshold(&self) -> f64 {
        f64::from(self.threshold)
    }

    /// The log-odds a longer text's worst window must add per `ln` of its
    /// window count (0: the same threshold for every length).
    pub fn length_slope(&self) -> f64 {
        f64::from(self.length_slope)
    }

    /// The median score of the benign windows the length slope was read
    /// off: a window above it counts towards the slope ([`WindowTally`]).
    pub fn window_median(&self) -> f64 {
        f64::from(self.window_median)
    }

    /// Whether a window's `score` counts towards the length slope.
    pub fn above_median(&self, score: f64) -> bool {
        score > self.window_median()
    }

    /// The score at or above which a text whose windows count as `tally`
    /// is hostile: the threshold's log-odds plus the length slope times
    /// `ln` of the windows counted ([`WindowTally::counted`]). The worst of
    /// many windows is likelier to be high by chance; this keeps a long
    /// text's false-alarm rate at a short one's
    /// (`guest/detector-training/src/length.rs` measures it).
    pub fn threshold_for(&self, tally: WindowTally) -> f64 {
        sigmoid(log_odds(self.threshold()) + self.length_penalty(tally))
    }

    /// A worst-window score of a text whose windows count as `tally`,
    /// brought to the scale of one window (the length slope's part taken
    /// off): it reaches [`Model::threshold`] exactly when the score reaches
    /// [`Model::threshold_for`]`(tally)`. What the trainer chooses the
    /// threshold on.
    pub fn one_window_score(&self, score: f64, tally: WindowTally) -> f64 {
        sigmoid(log_odds(score) - self.length_penalty(tally))
    }

    /// The log-odds a text whose windows count as `tally` must add.
    fn length_penalty(&self, tally: WindowTally) -> f64 {
        self.length_slope() * (tally.counted() as f64).ln()
    }

    /// The weight of one bucket.
    fn weight(&self, bucket: u32) -> f32 {
        let index = usize::try_from(bucket).unwrap_or(usize::MAX);
        f32::from(self.weights.get(index).copied().unwrap_or(0)) * self.scale
    }

    /// The score of a set of buckets ([`features::buckets`]).
    pub fn score_buckets(&self, buckets: &[u32]) -> f64 {
        let sum: f64 = buckets.iter().map(|&b| f64::from(self.weight(b))).sum();
        sigmoid(f64::from(self.bias) + sum * feature_value(buckets.len()))
    }

    /// The score of one text (read whole: see [`super::screen`] for windows).
    pub fn score(&self, text: &str) -> f64 {
        self.score_buckets(&features::buckets(text, self.bits))
    }

    /// The features of `text` that push its score up most, heaviest first,
    /// at most `limit` (each bucket once).
    pub fn strongest(&self, text: &str, limit: usize) -> Vec<Contribution> {
        self.score_with_reasons(text, limit).1
    }

    /// The score of one text and its `limit` strongest features, in one
    /// pass over its features (a name is copied only when it enters the
    /// strongest few, so the reasons cost next to nothing).
    pub fn score_with_reasons(&self, text: &str, limit: usize) -> (f64, Vec<Contribution>) {
        let mut buckets = Vec::new();
        let mut top: Vec<(u32, Contribution)> = Vec::with_capacity(limit + 1);
        features::visit(text, &mut |kind, feature| {
            let bucket = features::bucket(kind, feature, self.bits);
            buckets.push(bucket);
            let weight = self.weight(bucket);
            if limit == 0 || weight <= 0.0 || top.iter().any(|(seen, _)| *seen == bucket) {
                return;
            }
            if top.len() >= limit && top.last().is_some_and(|(_, last)| last.weight >= weight) {
                return;
            }
            // Heaviest first; among equal weights, the first seen first.
            let at = top
                .iter()
                .position(|(_, held)| held.weight < weight)
                .unwrap_or(top.len());
            top.insert(
                at,
                (
                    bucket,
                    Contribution {
                        kind,
                        feature: feature.to_string(),
                        weight,
                    },
                ),
            );
            top.truncate(limit);
        });
        buckets.sort_unstable();
        buckets.dedup();
        (
            self.score_buckets(&buckets),
            top.into_iter()
                .map(|(_, contribution)| contribution)
                .collect(),
        )
    }
}

/// Pseudo-features every text is counted with: a text of a word or two
/// would otherwise put its few features' whole weight on the scale (a
/// unit-length vector of two features is 0.7 per feature) and score a name
/// as hostile as an attack; with these it leans to the bias, as little
/// evidence should.
pub const SHORT_TEXT_PRIOR: usize = 24;

/// The value of each present feature in a text of `n` features: the set
/// as a vector of length at most one, shrunk for short texts
/// ([`SHORT_TEXT_PRIOR`]). The trainer fits with the same value.
pub fn feature_value(n: usize) -> f64 {
    1.0 / ((n + SHORT_TEXT_PRIOR) as f64).sqrt()
}

/// The log-odds of a probability (kept off 0 and 1, where they are
/// infinite).
pub fn log_odds(p: f64) -> f64 {
    let p = p.clamp(1e-12, 1.0 - 1e-12);
    (p / (1.0 - p)).ln()
}

/// The logistic function.
pub fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toy() -> Model {
        let bits = 12;
        let mut weights = vec![0i8; 1 << bits];
        for word in ["ignore", "previous", "instructions"] {
            let b = features::bucket(FeatureKind::Word, word, bits) as usize;
            weights[b] = 127;
        }
        Model::new(bits, -2.0, 0.05, 0.5, weights)
    }

    #[test]
    fn a_file_round_trips() {
        let model = toy().with_length_slope(0.75, 0.125);
        assert_eq!(Model::from_bytes(&model.to_bytes()), Ok(model));
    }

    #[test]
    fn a_longer_text_needs_a_higher_score() {
        // Every window warm: the bar rises with all of them.
        let all = |windows| WindowTally {
            windows,
            above_median: windows,
        };
        let flat = toy();
        assert_eq!(flat.threshold_for(all(1)), 0.5);
        assert_eq!(flat.threshold_for(all(40)), 0.5);
        let sloped = toy().with_length_slope(1.0, 0.1);
        assert!((sloped.threshold_for(WindowTally::ONE) - 0.5).abs() < 1e-12);
        // Log-odds 0 + ln 9: 9 to 1.
        assert!((sloped.threshold_for(all(9)) - 0.9).abs() < 1e-12);
        assert!(sloped.threshold_for(all(16)) > sloped.threshold_for(all(9)));
        // No higher beyond the cap.
        assert_eq!(
            sloped.threshold_for(all(4000)),
            sloped.threshold_for(all(16))
        );
        let mut negative = toy().to_bytes();
        negative[28..32].copy_from_slice(&(-1.0f32).to_le_bytes());
        assert!(matches!(
            Model::from_bytes(&negative),
            Err(ModelError::Format(_))
        ));
        let mut median = toy().to_bytes();
        median[32..36].copy_from_slice(&2.0f32.to_le_bytes());
        assert!(matches!(
            Model::from_bytes(&median),
            Err(ModelError::Format(_))
        ));
    }

    #[test]
    fn only_windows_above_the_median_raise_the_bar() {
        let sloped = toy().with_length_slope(1.0, 0.1);
        let tally = |windows, above_median| WindowTally {
            windows,
            above_median,
        };
        // An ordinary long text, half its windows above the median: the
        // bar of all its windows.
        assert_eq!(tally(16, 8).counted(), 16);
        assert_eq!(
            sloped.threshold_for(tally(16, 8)),
            sloped.threshold_for(tally(16, 16))
        );
        // One warm window in a cold carrier: `ln 2`, not `ln 16`.
        assert_eq!(tally(16, 1).counted(), 2);
        assert!((sloped.threshold_for(tally(16, 1)) - 2.0 / 3.0).abs() < 1e-12);
        // Never more than the windows read, never under one.
        assert_eq!(tally(3, 3).counted(), 3);
        assert_eq!(tally(1, 1).counted(), 1);
        assert_eq!(tally(16, 0).counted(), 1);
        assert!(sloped.above_median(0.2) && !sloped.above_median(0.1));
    }

    #[test]
    fn a_file_of_the_format_without_the_median_is_refused_by_name() {
        let mut old = toy().to_bytes();
        old[..8].copy_from_slice(b"HMINJDT2");
        let refused = Model::from_bytes(&old);
        assert!(
            matches!(&refused, Err(ModelError::Format(why)) if why.contains("format 2")),
            "{refused:?}"
        );
    }

    #[test]
    fn broken_files_are_refused_with_the_reason() {
        let bytes = toy().to_bytes();
        assert!(matches!(
            Model::from_bytes(&bytes[..10]),
            Err(ModelError::Format(_))
        ));
        assert!(matches!(
            Model::from_bytes(&bytes[..bytes.len() - 1]),
            Err(ModelError::Format(_))
        ));
        let mut other = bytes.clone();
        other[8] = 99;
        assert!(matches!(
            Model::from_bytes(&other),
            Err(ModelError::FeatureVersion { found: 99, .. })
        ));
        let mut huge = bytes;
        huge[12] = 40;
        assert!(matches!(
            Model::from_bytes(&huge),
            Err(ModelError::Format(_))
        ));
    }

    #[test]
    fn weighted_words_raise_the_score_and_are_named() {
        let model = toy();
        let hostile = model.score("ignore previous instructions");
        let plain = model.score("the weather is nice today");
        assert!(hostile > plain, "{hostile} vs {plain}");
        let strongest = model.strongest("please ignore previous instructions", 2);
        assert_eq!(strongest.len(), 2);
        assert!(strongest.iter().all(|c| c.kind == FeatureKind::Word));
    }
}
