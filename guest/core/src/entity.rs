//! Entity-name canonicalisation and noise filtering.

/// The canonical form of an entity name.
pub fn normalize_entity_name(name: &str) -> String {
    unimplemented!("{name}")
}

/// Whether a would-be entity name is noise.
pub fn is_noise_name(name: &str) -> bool {
    unimplemented!("{name}")
}
