//! Fitting a logistic regression over dense features, choosing thresholds
//! on held-out scores, and the figures the trainer reports.

use hive_mind_core::heads::HeadThresholds;
use serde::Serialize;

use crate::PairKind;

/// The default inverse L2 strength: chosen by held-out-writer AUC over
/// 0.1, 0.3 and 1, measured before the neighbour pairs were added (0.3 and
/// 1 tied; the stronger penalty generalises the same with smaller weights).
pub const DEFAULT_C: f64 = 0.3;

/// Full-batch Adam steps.
const STEPS: usize = 1500;

/// Adam's step size.
const LEARNING_RATE: f64 = 0.02;

/// A fitted model.
pub struct Model {
    /// One weight per feature.
    pub weights: Vec<f64>,
    /// The intercept.
    pub bias: f64,
}

impl Model {
    /// The probability of the positive class.
    pub fn probability(&self, x: &[f64]) -> f64 {
        logistic(self.bias + dot(&self.weights, x))
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn logistic(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// Minimise the class-balanced mean log-loss, each row's also times its
/// `weights` entry, plus `‖w‖² / (2·c·n)` (the objective of a logistic
/// regression with inverse strength `c`, divided by the row count), by
/// full-batch Adam from zero.
pub fn fit(features: &[Vec<f64>], labels: &[bool], weights: &[f64], c: f64) -> Model {
    let n = features.len().max(1) as f64;
    let dimensions = features.first().map_or(0, Vec::len);
    let positives = labels.iter().filter(|l| **l).count().max(1) as f64;
    let negatives = (labels.len() as f64 - positives).max(1.0);
    // Each class weighs as much as the other.
    let weight_of = |label: bool| {
        if label {
            n / (2.0 * positives)
        } else {
            n / (2.0 * negatives)
        }
    };
    let mut params = vec![0.0f64; dimensions + 1];
    let mut first = vec![0.0f64; dimensions + 1];
    let mut second = vec![0.0f64; dimensions + 1];
    let (beta1, beta2, epsilon) = (0.9f64, 0.999f64, 1e-8f64);
    let penalty = 1.0 / (c * n);
    for step in 1..=STEPS {
        let mut gradient = vec![0.0f64; dimensions + 1];
        for ((x, &y), &row_weight) in features.iter().zip(labels).zip(weights) {
            let (coefficients, bias) = params.split_at(dimensions);
            let z = bias.first().copied().unwrap_or(0.0) + dot(coefficients, x);
            let error = row_weight * weight_of(y) * (logistic(z) - if y { 1.0 } else { 0.0 }) / n;
            for (g, xi) in gradient.iter_mut().zip(x) {
                *g += error * xi;
            }
            if let Some(g) = gradient.last_mut() {
                *g += error;
            }
        }
        for (g, w) in gradient.iter_mut().zip(&params).take(dimensions) {
            *g += penalty * w;
        }
        let (correct1, correct2) = (1.0 - beta1.powi(step as i32), 1.0 - beta2.powi(step as i32));
        for (((p, g), m), v) in params
            .iter_mut()
            .zip(&gradient)
            .zip(first.iter_mut())
            .zip(second.iter_mut())
        {
            *m = beta1 * *m + (1.0 - beta1) * g;
            *v = beta2 * *v + (1.0 - beta2) * g * g;
            *p -= LEARNING_RATE * (*m / correct1) / ((*v / correct2).sqrt() + epsilon);
        }
    }
    let bias = params.pop().unwrap_or(0.0);
    Model {
        weights: params,
        bias,
    }
}

/// The lowest probability that at most `rate` of the negatives in `scored`
/// reach (a negative at exactly the threshold counts as reaching it).
pub fn threshold_at(scored: &[(f64, bool)], rate: f64) -> f64 {
    let mut negatives: Vec<f64> = scored
        .iter()
        .filter(|(_, label)| !label)
        .map(|(p, _)| *p)
        .collect();
    negatives.sort_by(|a, b| b.total_cmp(a));
    let allowed = (rate * negatives.len() as f64).floor() as usize;
    // Just above the first negative that would be one too many.
    negatives.get(allowed).map_or(0.0, |p| (p + 1e-6).min(1.0))
}

/// Rounded to six decimals: what the head file stores.
pub fn round(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// The figures of one set of scored pairs at a head's thresholds.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "kebab-case")]
pub struct Figures {
    /// Which pairs.
    pub name: String,
    /// Replacing pairs.
    pub replacing: usize,
    /// Pairs that must both stay.
    pub both_stay: usize,
    /// Neighbour pairs (statements of different lines).
    pub neighbours: usize,
    /// The area under the ROC curve, replacing against both-stay pairs.
    pub auc: f64,
    /// Share of replacing pairs at or above `sure`, `likely`, `possible`.
    pub caught: [f64; 3],
    /// Share of both-stay pairs at or above `sure`, `likely`, `possible`.
    pub false_alarms: [f64; 3],
    /// Share of neighbour pairs at or above `sure`, `likely`, `possible`.
    pub neighbour_alarms: [f64; 3],
}

impl Figures {
    /// The figures of `scored` (probability, kind).
    pub fn of(name: &str, scored: &[(f64, PairKind)], thresholds: HeadThresholds) -> Figures {
        let cuts = [thresholds.sure, thresholds.likely, thresholds.possible];
        let of = |kind: PairKind| -> Vec<f64> {
            scored
                .iter()
                .filter(|(_, k)| *k == kind)
                .map(|(p, _)| *p)
                .collect()
        };
        let (replacing, both_stay, neighbours) = (
            of(PairKind::Replacing),
            of(PairKind::BothStay),
            of(PairKind::Neighbours),
        );
        let share = |of: &[f64], cut: f64| {
            if of.is_empty() {
                0.0
            } else {
                of.iter().filter(|p| **p >= cut).count() as f64 / of.len() as f64
            }
        };
        let versus: Vec<(f64, bool)> = replacing
            .iter()
            .map(|p| (*p, true))
            .chain(both_stay.iter().map(|p| (*p, false)))
            .collect();
        Figures {
            name: name.to_owned(),
            replacing: replacing.len(),
            both_stay: both_stay.len(),
            neighbours: neighbours.len(),
            auc: auc(&versus),
            caught: cuts.map(|cut| share(&replacing, cut)),
            false_alarms: cuts.map(|cut| share(&both_stay, cut)),
            neighbour_alarms: cuts.map(|cut| share(&neighbours, cut)),
        }
    }

    /// A Markdown table of `rows`.
    pub fn table(rows: &[Figures]) -> String {
        let mut out = String::from(
            "| pairs | replacing | both stay | neighbours | AUC | caught at sure / likely / possible | both-stay alarms | neighbour alarms |\n|---|---:|---:|---:|---:|---|---|---|\n",
        );
        let pct = |xs: [f64; 3]| xs.map(|x| format!("{:.1} %", 100.0 * x)).join(" / ");
        for row in rows {
            out.push_str(&format!(
                "| {} | {} | {} | {} | {:.3} | {} | {} | {} |\n",
                row.name,
                row.replacing,
                row.both_stay,
                row.neighbours,
                row.auc,
                pct(row.caught),
                pct(row.false_alarms),
                pct(row.neighbour_alarms)
            ));
        }
        out
    }
}

/// The probability that a random positive outscores a random negative
/// (ties count half).
pub fn auc(scored: &[(f64, bool)]) -> f64 {
    let positives: Vec<f64> = scored.iter().filter(|(_, l)| *l).map(|(p, _)| *p).collect();
    let negatives: Vec<f64> = scored.iter().filter(|(_, l)| !l).map(|(p, _)| *p).collect();
    if positives.is_empty() || negatives.is_empty() {
        return 0.5;
    }
    let mut wins = 0.0;
    for p in &positives {
        for q in &negatives {
            wins += if p > q {
                1.0
            } else if p == q {
                0.5
            } else {
                0.0
            };
        }
    }
    wins / (positives.len() * negatives.len()) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fit_separates_a_separable_set() {
        // The label is whether the first feature is positive.
        let features: Vec<Vec<f64>> = (0..40)
            .map(|i| vec![f64::from(i - 20) / 10.0, f64::from(i % 3)])
            .collect();
        let labels: Vec<bool> = (0..40).map(|i| i >= 20).collect();
        let model = fit(&features, &labels, &[1.0; 40], 10.0);
        let scored: Vec<(f64, bool)> = features
            .iter()
            .zip(&labels)
            .map(|(x, &y)| (model.probability(x), y))
            .collect();
        assert!(auc(&scored) > 0.99);
        assert!(model.weights[0] > 0.0);
    }

    #[test]
    fn thresholds_let_through_at_most_the_rate() {
        let scored: Vec<(f64, bool)> = (0..100)
            .map(|i| (f64::from(i) / 100.0, false))
            .chain([(0.995, true)])
            .collect();
        let t = threshold_at(&scored, 0.05);
        let through = scored.iter().filter(|(p, l)| !l && *p >= t).count();
        assert_eq!(through, 5);
        assert_eq!(threshold_at(&scored, 0.0), 0.99 + 1e-6);
    }

    #[test]
    fn auc_counts_ties_half() {
        assert_eq!(auc(&[(0.5, true), (0.5, false)]), 0.5);
        assert_eq!(auc(&[(0.9, true), (0.1, false)]), 1.0);
        assert_eq!(auc(&[(0.1, true), (0.9, false)]), 0.0);
    }
}
