//! Item and source identity across exports.
//!
//! An item's hash covers what would be written from it (its id, title,
//! messages and sections), so a conversation that grew in a newer export
//! hashes differently and is imported again (its unchanged turns dedup by
//! content hash), while an unchanged one is skipped. A source's set hash is
//! the SHA-256 of its items' hashes, sorted: the same export imported twice
//! has the same set hash, whatever order its items came in.

use sha2::{Digest, Sha256};

use crate::item::Item;

/// SHA-256 (hex) of everything an item would write.
pub fn item_hash(item: &Item) -> String {
    let mut hasher = Sha256::new();
    hasher.update(item.source.name().as_bytes());
    hasher.update([0]);
    hasher.update(item.id.as_bytes());
    hasher.update([0]);
    hasher.update(item.title.as_deref().unwrap_or("").as_bytes());
    hasher.update([0]);
    hasher.update(item.created_at.as_deref().unwrap_or("").as_bytes());
    for message in &item.messages {
        hasher.update([1]);
        hasher.update(message.role.name().as_bytes());
        hasher.update([0]);
        hasher.update(message.timestamp.as_deref().unwrap_or("").as_bytes());
        hasher.update([0]);
        hasher.update(message.text.as_bytes());
    }
    for section in &item.sections {
        hasher.update([2]);
        for heading in &section.headings {
            hasher.update(heading.as_bytes());
            hasher.update([0]);
        }
        hasher.update(section.text.as_bytes());
    }
    hex::encode(hasher.finalize())
}

/// SHA-256 (hex) over the sorted item hashes of a source.
pub fn set_hash<'a>(item_hashes: impl IntoIterator<Item = &'a str>) -> String {
    let mut hashes: Vec<&str> = item_hashes.into_iter().collect();
    hashes.sort_unstable();
    let mut hasher = Sha256::new();
    for hash in hashes {
        hasher.update(hash.as_bytes());
        hasher.update(b"\n");
    }
    hex::encode(hasher.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::item::{ItemKind, Message, Role, SourceFormat};

    fn conversation(id: &str, texts: &[&str]) -> Item {
        Item {
            id: id.to_string(),
            source: SourceFormat::Chatgpt,
            kind: ItemKind::Conversation,
            title: Some("t".into()),
            created_at: None,
            messages: texts
                .iter()
                .map(|text| Message {
                    role: Role::User,
                    text: text.to_string(),
                    timestamp: None,
                })
                .collect(),
            sections: Vec::new(),
            notes: Vec::new(),
        }
    }

    #[test]
    fn an_item_that_grew_hashes_differently() {
        let before = conversation("c1", &["hello"]);
        let after = conversation("c1", &["hello", "more"]);
        assert_ne!(item_hash(&before), item_hash(&after));
        assert_eq!(item_hash(&before), item_hash(&before.clone()));
    }

    #[test]
    fn the_set_hash_ignores_order() {
        assert_eq!(set_hash(["a", "b", "c"]), set_hash(["c", "a", "b"]));
        assert_ne!(set_hash(["a", "b"]), set_hash(["a", "b", "c"]));
    }
}
