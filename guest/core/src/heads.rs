//! Learned heads over an embedder's vectors: small classifiers that read
//! the meaning the embedder already put in a memory's vector.
//!
//! The engine embeds every memory when it is written, so a question about
//! two memories ("does the newer one replace the older?") can be answered
//! from their two vectors at almost no cost. A **pair head** is a logistic
//! regression over features of two vectors ([`pair_features`]):
//!
//! | block | what it carries |
//! |---|---|
//! | `a ⊙ b` | the dimensions on which the two agree: the shared subject |
//! | `|a − b|` | the dimensions on which they differ: a new value |
//! | `b − a` | the direction of the change, older to newer ("now", "moved") |
//! | `a`, `b` | what kind of statement each is (a state, an event, a rule) |
//! | `cos(a, b)` | how close they are overall |
//!
//! A head is trained for one embedder (the model's name and dimension are
//! in its file): another embedder's vectors mean other things, so under it
//! [`PairHead::probability`] answers `None` and the caller falls back to
//! its rules. The weights ship compiled into the engine
//! (`models/change-judge/`, one JSON file per embedder, trained by
//! `hive-mind-lab train change-judge` from hand-written data), so every
//! host of the component judges with the same numbers.

use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

/// The version of [`pair_features`]' layout a head file must name.
pub const PAIR_FEATURES: &str = "pair-v1";

/// The number of features of a pair of `dimensions`-long vectors.
pub fn pair_feature_count(dimensions: usize) -> usize {
    5 * dimensions + 1
}

/// The features of the pair (`older`, `newer`), in the order of the module
/// docs' table; `None` when the vectors are empty or of different lengths.
pub fn pair_features(older: &[f32], newer: &[f32]) -> Option<Vec<f64>> {
    if older.is_empty() || older.len() != newer.len() {
        return None;
    }
    let a: Vec<f64> = older.iter().map(|x| f64::from(*x)).collect();
    let b: Vec<f64> = newer.iter().map(|x| f64::from(*x)).collect();
    let mut features = Vec::with_capacity(pair_feature_count(a.len()));
    features.extend(a.iter().zip(&b).map(|(x, y)| x * y));
    features.extend(a.iter().zip(&b).map(|(x, y)| (x - y).abs()));
    features.extend(a.iter().zip(&b).map(|(x, y)| y - x));
    features.extend(a.iter().copied());
    features.extend(b.iter().copied());
    features.push(crate::vectors::cosine(older, newer));
    Some(features)
}

/// The probabilities at which a head's answer is acted on, chosen by its
/// trainer on sources held out from training (see the file's `report`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct HeadThresholds {
    /// At or above: sure enough to act alone (about 1 % of held-out
    /// negatives reach it).
    pub sure: f64,
    /// At or above: sure enough to act with one more sign, e.g. a word of
    /// change (about 5 % of held-out negatives).
    pub likely: f64,
    /// At or above: worth showing, never acted on alone (about 20 %).
    pub possible: f64,
}

/// A logistic regression over [`pair_features`], as its file stores it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct PairHead {
    /// What it decides, e.g. `change-judge`.
    pub head: String,
    /// The embedder model it was trained for.
    pub embedder: String,
    /// The vector dimension of that embedder.
    pub dimensions: usize,
    /// The feature layout ([`PAIR_FEATURES`]).
    pub features: String,
    /// One weight per feature.
    pub weights: Vec<f64>,
    /// The intercept.
    pub bias: f64,
    /// When its answer is acted on.
    pub thresholds: HeadThresholds,
    /// How it was trained and validated, for people (not read by the engine).
    #[serde(default)]
    pub report: serde_json::Value,
}

impl PairHead {
    /// Whether the head was trained for vectors of this model and dimension
    /// and its file is whole (one weight per feature, the known layout).
    pub fn fits(&self, model: &str, dimensions: usize) -> bool {
        self.embedder == model
            && self.dimensions == dimensions
            && self.features == PAIR_FEATURES
            && self.weights.len() == pair_feature_count(dimensions)
    }

    /// The probability the head gives the pair; `None` when the vectors are
    /// not of its dimension.
    pub fn probability(&self, older: &[f32], newer: &[f32]) -> Option<f64> {
        if older.len() != self.dimensions {
            return None;
        }
        let features = pair_features(older, newer)?;
        if features.len() != self.weights.len() {
            return None;
        }
        let logit: f64 = self.bias
            + features
                .iter()
                .zip(&self.weights)
                .map(|(x, w)| x * w)
                .sum::<f64>();
        let p = 1.0 / (1.0 + (-logit).exp());
        p.is_finite().then_some(p)
    }
}

/// The change judge's files, compiled in: one per embedder it was trained
/// for.
const CHANGE_JUDGE_FILES: [&str; 2] = [
    include_str!("../../../models/change-judge/bge-small-en-v1.5.json"),
    include_str!("../../../models/change-judge/all-MiniLM-L6-v2.json"),
];

static CHANGE_JUDGES: LazyLock<Vec<PairHead>> = LazyLock::new(|| {
    CHANGE_JUDGE_FILES
        .iter()
        .filter_map(|text| serde_json::from_str::<PairHead>(text).ok())
        .collect()
});

/// The shipped change judge (does the newer statement replace the older?)
/// for an embedder, or `None` when none was trained for it.
pub fn change_judge(model: &str, dimensions: usize) -> Option<&'static PairHead> {
    CHANGE_JUDGES
        .iter()
        .find(|head| head.fits(model, dimensions))
}

/// A head for tests that reads only the pair's cosine:
/// `p = σ(weight·cos + bias)`, with the cuts `thresholds`.
#[cfg(test)]
pub(crate) fn cosine_only_head(
    dimensions: usize,
    weight: f64,
    bias: f64,
    thresholds: HeadThresholds,
) -> &'static PairHead {
    let mut weights = vec![0.0; pair_feature_count(dimensions)];
    if let Some(last) = weights.last_mut() {
        *last = weight;
    }
    Box::leak(Box::new(PairHead {
        head: "change-judge".into(),
        embedder: "m".into(),
        dimensions,
        features: PAIR_FEATURES.into(),
        weights,
        bias,
        thresholds,
        report: serde_json::Value::Null,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(weights: Vec<f64>, bias: f64) -> PairHead {
        PairHead {
            head: "test".into(),
            embedder: "m".into(),
            dimensions: 2,
            features: PAIR_FEATURES.into(),
            weights,
            bias,
            thresholds: HeadThresholds {
                sure: 0.9,
                likely: 0.7,
                possible: 0.5,
            },
            report: serde_json::Value::Null,
        }
    }

    #[test]
    fn features_follow_the_documented_layout() {
        let f = pair_features(&[1.0, 0.0], &[0.0, 2.0]).unwrap();
        assert_eq!(f.len(), pair_feature_count(2));
        assert_eq!(&f[0..2], &[0.0, 0.0]); // product
        assert_eq!(&f[2..4], &[1.0, 2.0]); // distance
        assert_eq!(&f[4..6], &[-1.0, 2.0]); // direction
        assert_eq!(&f[6..8], &[1.0, 0.0]); // older
        assert_eq!(&f[8..10], &[0.0, 2.0]); // newer
        assert_eq!(f[10], 0.0); // orthogonal
        assert!(pair_features(&[1.0], &[1.0, 2.0]).is_none());
        assert!(pair_features(&[], &[]).is_none());
    }

    #[test]
    fn the_probability_is_the_logistic_of_the_weighted_features() {
        // Only the direction of the second dimension counts.
        let mut weights = vec![0.0; pair_feature_count(2)];
        weights[5] = 2.0;
        let h = head(weights, -1.0);
        let up = h.probability(&[0.0, 0.0], &[0.0, 1.0]).unwrap();
        assert!((up - 1.0 / (1.0 + (-1.0f64).exp())).abs() < 1e-12);
        let down = h.probability(&[0.0, 1.0], &[0.0, 0.0]).unwrap();
        assert!(down < 0.05);
        assert!(h.probability(&[0.0, 1.0, 2.0], &[0.0, 1.0, 2.0]).is_none());
    }

    #[test]
    fn a_head_fits_only_its_own_embedder_and_a_whole_file() {
        let h = head(vec![0.0; pair_feature_count(2)], 0.0);
        assert!(h.fits("m", 2));
        assert!(!h.fits("other", 2));
        assert!(!h.fits("m", 3));
        let short = head(vec![0.0; 3], 0.0);
        assert!(!short.fits("m", 2));
    }

    #[test]
    fn every_shipped_change_judge_loads_and_fits_its_embedder() {
        assert_eq!(CHANGE_JUDGES.len(), CHANGE_JUDGE_FILES.len());
        for head in CHANGE_JUDGES.iter() {
            assert_eq!(head.head, "change-judge");
            assert!(
                head.fits(&head.embedder, head.dimensions),
                "{}",
                head.embedder
            );
            let t = head.thresholds;
            assert!(t.possible <= t.likely && t.likely <= t.sure && t.sure < 1.0);
        }
        assert!(change_judge("bge-small-en-v1.5", 384).is_some());
        assert!(change_judge("all-MiniLM-L6-v2", 384).is_some());
        assert!(change_judge("bge-small-en-v1.5", 768).is_none());
        assert!(change_judge("nomic-embed-text", 768).is_none());
    }
}
