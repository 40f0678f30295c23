//! A period found in a text, and how the one that counts is chosen.
//!
//! Both date parsers ([`super::parse_date_window`] and
//! [`super::resolve_date_window`]) first collect every period the text names
//! as a [`Candidate`], then choose one:
//!
//! 1. **The longer phrase wins over a phrase inside it.** "between March and
//!    April 2026" contains "April 2026"; "earlier this year" contains "this
//!    year"; "the last week of May 2026" contains "last week". A candidate
//!    whose words lie wholly inside a longer candidate's words is dropped
//!    ([`without_nested`]).
//! 2. **Specific beats general**: the finest [`Granularity`] wins (a day over
//!    a week over a month over a season over a year).
//! 3. **Then the leftmost.**

use crate::types::DateWindow;

/// How fine a period is, coarsest first (so the derived order ranks the
/// finest highest).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Granularity {
    /// A year, "last year", "earlier this year", a range of years.
    Year,
    /// A season, a quarter, a half or a third of a year.
    Season,
    /// A month, "last month", a range of months.
    Month,
    /// A week or a part of a month ("early May", "last week").
    Week,
    /// A day (with its window's few days either side).
    Day,
}

/// A period a text names: its window and where its words are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Candidate {
    /// How fine the period is.
    pub(super) granularity: Granularity,
    /// Byte offset where the label's words start.
    pub(super) start: usize,
    /// Byte offset just past the label's words.
    pub(super) end: usize,
    /// The period.
    pub(super) window: DateWindow,
    /// Whether today decided the period ("last March", "in May" without a
    /// year); an absolute period ("between March and April 2026") is the
    /// same whenever it is asked.
    pub(super) anchored: bool,
}

impl Candidate {
    /// Whether this candidate's words lie inside `other`'s and are shorter.
    fn is_nested_in(&self, other: &Candidate) -> bool {
        other.start <= self.start
            && self.end <= other.end
            && self.end - self.start < other.end - other.start
    }
}

/// The candidates that are not inside a longer one (rule 1 above).
pub(super) fn without_nested(candidates: Vec<Candidate>) -> Vec<Candidate> {
    candidates
        .iter()
        .filter(|candidate| !candidates.iter().any(|other| candidate.is_nested_in(other)))
        .cloned()
        .collect()
}

/// The finest candidate, the leftmost among equals (rules 2 and 3 above).
pub(super) fn most_specific(candidates: impl IntoIterator<Item = Candidate>) -> Option<Candidate> {
    candidates
        .into_iter()
        .min_by_key(|found| (std::cmp::Reverse(found.granularity), found.start))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(granularity: Granularity, start: usize, end: usize) -> Candidate {
        Candidate {
            granularity,
            start,
            end,
            window: DateWindow {
                since: "2026-01-01".to_string(),
                until: "2026-01-31".to_string(),
                label: format!("{start}-{end}"),
            },
            anchored: false,
        }
    }

    #[test]
    fn nested_candidates_are_dropped() {
        let outer = candidate(Granularity::Month, 0, 20);
        let inner = candidate(Granularity::Day, 5, 10);
        let same_span = candidate(Granularity::Week, 0, 20);
        let overlapping = candidate(Granularity::Day, 15, 30);
        let kept = without_nested(vec![
            outer.clone(),
            inner,
            same_span.clone(),
            overlapping.clone(),
        ]);
        assert_eq!(kept, vec![outer, same_span, overlapping]);
    }

    #[test]
    fn finest_then_leftmost() {
        let chosen = most_specific(vec![
            candidate(Granularity::Year, 0, 4),
            candidate(Granularity::Month, 30, 40),
            candidate(Granularity::Month, 10, 20),
        ]);
        assert_eq!(chosen.map(|found| found.start), Some(10));
        assert_eq!(most_specific(Vec::new()), None);
    }
}
