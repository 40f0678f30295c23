//! # Retrieval metrics: pure functions over ranked results
//!
//! Everything here is arithmetic on lists, with no engine and no I/O, so each
//! definition is pinned by a unit test.
//!
//! - A recalled frame counts only when it is a conversation turn: its typed
//!   metadata names its origin (`memory-kind.raw-turn`: the conversation and
//!   the turn's position in the list that was imported, which the evaluation
//!   maps back to the data set's dialogue id).
//! - **Session-level recall@k** ([`session_hit_at_k`]): walk the ranked turns,
//!   keeping each session the first time one of its turns appears (so a
//!   session ranks by its best frame); the question scores 1 when a gold
//!   session is among the first `k` distinct sessions, else 0. This is the
//!   figure published systems report on LoCoMo.
//! - **Turn-level evidence recall@k** ([`turn_recall_at_k`]): the fraction of
//!   the question's evidence turns found among the first `k` turns.
//!
//! Latency summaries and the split of recall's time are shared with the
//! benchmarks, in [`crate::timing`].

use std::collections::BTreeSet;

use super::locomo::TurnId;

/// A recalled conversation turn, in rank order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetrievedTurn {
    /// The session it belongs to.
    pub session: u32,
    /// Its dialogue id, when the data set gave it one.
    pub id: Option<TurnId>,
}

/// The distinct sessions of `ranked`, each at the rank of its best (first)
/// turn.
pub fn session_ranking(ranked: &[RetrievedTurn]) -> Vec<u32> {
    let mut seen = BTreeSet::new();
    ranked
        .iter()
        .filter(|turn| seen.insert(turn.session))
        .map(|turn| turn.session)
        .collect()
}

/// 1.0 when one of `gold` is among the first `k` of `sessions` (a
/// [`session_ranking`]), else 0.0.
pub fn session_hit_at_k(sessions: &[u32], gold: &BTreeSet<u32>, k: usize) -> f64 {
    if sessions
        .iter()
        .take(k)
        .any(|session| gold.contains(session))
    {
        1.0
    } else {
        0.0
    }
}

/// The fraction of `evidence` found among the first `k` of `ranked`; 0.0
/// when `evidence` is empty (such questions are excluded before this).
pub fn turn_recall_at_k(ranked: &[RetrievedTurn], evidence: &BTreeSet<TurnId>, k: usize) -> f64 {
    if evidence.is_empty() {
        return 0.0;
    }
    let found: BTreeSet<TurnId> = ranked
        .iter()
        .take(k)
        .filter_map(|turn| turn.id)
        .filter(|id| evidence.contains(id))
        .collect();
    found.len() as f64 / evidence.len() as f64
}

/// The gold sessions of a question: the sessions of its evidence turns.
pub fn gold_sessions(evidence: &BTreeSet<TurnId>) -> BTreeSet<u32> {
    evidence.iter().map(|id| id.session).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(session: u32, turn: u32) -> RetrievedTurn {
        RetrievedTurn {
            session,
            id: Some(TurnId { session, turn }),
        }
    }

    fn id(session: u32, turn: u32) -> TurnId {
        TurnId { session, turn }
    }

    #[test]
    fn sessions_rank_by_their_best_turn() {
        let ranked = [turn(3, 1), turn(1, 4), turn(3, 2), turn(2, 9), turn(1, 1)];
        assert_eq!(session_ranking(&ranked), [3, 1, 2]);
        assert!(session_ranking(&[]).is_empty());
    }

    #[test]
    fn a_session_hit_needs_a_gold_session_in_the_top_k_distinct() {
        let sessions = [3, 1, 2];
        let gold = BTreeSet::from([2]);
        assert_eq!(session_hit_at_k(&sessions, &gold, 1), 0.0);
        assert_eq!(session_hit_at_k(&sessions, &gold, 2), 0.0);
        assert_eq!(session_hit_at_k(&sessions, &gold, 3), 1.0);
        assert_eq!(session_hit_at_k(&sessions, &gold, 10), 1.0);
        // Any one of several gold sessions is enough.
        assert_eq!(session_hit_at_k(&sessions, &BTreeSet::from([9, 3]), 1), 1.0);
        assert_eq!(session_hit_at_k(&[], &gold, 5), 0.0);
        // k counts distinct sessions, not frames: five frames of session 3
        // ahead of session 2 still leave session 2 second.
        let ranked = [turn(3, 1), turn(3, 2), turn(3, 3), turn(3, 4), turn(2, 1)];
        assert_eq!(session_hit_at_k(&session_ranking(&ranked), &gold, 2), 1.0);
    }

    #[test]
    fn turn_recall_is_the_fraction_of_evidence_in_the_top_k() {
        let ranked = [
            turn(1, 1),
            RetrievedTurn {
                session: 1,
                id: None,
            },
            turn(2, 5),
            turn(1, 1),
            turn(4, 2),
        ];
        let evidence = BTreeSet::from([id(2, 5), id(4, 2), id(7, 7), id(1, 1)]);
        assert_eq!(turn_recall_at_k(&ranked, &evidence, 1), 0.25);
        assert_eq!(turn_recall_at_k(&ranked, &evidence, 3), 0.5);
        // A turn retrieved twice counts once.
        assert_eq!(turn_recall_at_k(&ranked, &evidence, 4), 0.5);
        assert_eq!(turn_recall_at_k(&ranked, &evidence, 10), 0.75);
        assert_eq!(turn_recall_at_k(&ranked, &BTreeSet::new(), 10), 0.0);
        assert_eq!(turn_recall_at_k(&[], &evidence, 10), 0.0);
    }

    #[test]
    fn gold_sessions_are_the_evidence_sessions() {
        let evidence = BTreeSet::from([id(2, 5), id(2, 7), id(9, 1)]);
        assert_eq!(gold_sessions(&evidence), BTreeSet::from([2, 9]));
    }
}
