//! Derived data: what the store keeps that is rebuilt from the memories, and
//! is dropped when they change under it. Today that is the wiki's
//! syntheses ([`super::wiki::Synthesis`]): an erasure drops them (one may
//! quote what was forgotten) and so does `reindex`; a page writes its own
//! again when it is read. A leaf, so the writers that drop it
//! ([`super::frames`], [`super::erasure`]) need nothing of the wiki's
//! reads.

use crate::sql::Connection;

use super::error::StoreResult;

/// Drop every stored synthesis.
pub(crate) fn clear_syntheses_in(conn: &Connection) -> StoreResult<()> {
    conn.execute("DELETE FROM wiki_syntheses", [])?;
    Ok(())
}
