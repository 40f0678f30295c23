//! Entities and relations an agent names explicitly (`save-entity`,
//! `create-relation`), checked and spelled the way cognify writes its own,
//! so the graph holds one spelling of each relation type whoever wrote it.

use crate::types::LogicError;

use super::entities::{MAX_ENTITY_NAME_CHARS, accept_entity_name};

/// The strength of an explicitly created relation when the caller gives
/// none: the co-occurrence strength, the weakest an extracted relation has.
pub const DEFAULT_EXPLICIT_STRENGTH: f64 = super::CO_OCCURRENCE_STRENGTH;

/// The longest relation or entity type name.
pub const MAX_LABEL_CHARS: usize = 48;

/// An entity name as it will be saved (trimmed), or why it cannot be one:
/// the noise filter of the write seam ([`accept_entity_name`]).
pub fn explicit_entity_name(name: &str) -> Result<String, LogicError> {
    let trimmed = name.trim();
    if trimmed.is_empty() {
        return Err(LogicError::InvalidArgument(
            "an entity needs a name".to_string(),
        ));
    }
    if trimmed.chars().count() > MAX_ENTITY_NAME_CHARS {
        return Err(LogicError::InvalidArgument(format!(
            "an entity name has at most {MAX_ENTITY_NAME_CHARS} characters"
        )));
    }
    if !accept_entity_name(trimmed) {
        return Err(LogicError::InvalidArgument(format!(
            "{trimmed:?} is not a usable entity name (too generic, a date, a number or noise)"
        )));
    }
    Ok(trimmed.to_string())
}

/// A relation or entity type label in the graph's one spelling: trimmed,
/// lower-case, words joined by `-` (`depends_on`, `Depends On` →
/// `depends-on`, as cognify writes `depends-on`). Letters, digits and
/// separators only.
pub fn graph_label(label: &str, what: &str) -> Result<String, LogicError> {
    let mut out = String::new();
    for word in label
        .split(|c: char| c.is_whitespace() || c == '_' || c == '-')
        .filter(|word| !word.is_empty())
    {
        if let Some(bad) = word.chars().find(|c| !c.is_alphanumeric()) {
            return Err(LogicError::InvalidArgument(format!(
                "{what} {label:?} holds {bad:?}: use letters, digits, `-` or `_`"
            )));
        }
        if !out.is_empty() {
            out.push('-');
        }
        out.push_str(&word.to_lowercase());
    }
    if out.is_empty() {
        return Err(LogicError::InvalidArgument(format!("{what} is empty")));
    }
    if out.chars().count() > MAX_LABEL_CHARS {
        return Err(LogicError::InvalidArgument(format!(
            "{what} {label:?} is longer than {MAX_LABEL_CHARS} characters"
        )));
    }
    Ok(out)
}

/// A relation's strength: the default when none is given; within 0..=1.
pub fn explicit_strength(strength: Option<f64>) -> Result<f64, LogicError> {
    let strength = strength.unwrap_or(DEFAULT_EXPLICIT_STRENGTH);
    if (0.0..=1.0).contains(&strength) {
        Ok(strength)
    } else {
        Err(LogicError::InvalidArgument(format!(
            "strength {strength} is outside 0..1"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cognify::RelationType;

    #[test]
    fn relation_labels_get_cognify_s_spelling() {
        for (given, expected) in [
            ("depends_on", "depends-on"),
            ("Depends On", "depends-on"),
            ("  reports-to ", "reports-to"),
            ("uses", "uses"),
        ] {
            assert_eq!(graph_label(given, "relation").unwrap(), expected);
        }
        assert_eq!(
            graph_label("depends_on", "relation").unwrap(),
            RelationType::DependsOn.as_str()
        );
        for bad in ["", " _ ", "depends.on", "x;DROP", &"a".repeat(49)] {
            assert!(graph_label(bad, "relation").is_err(), "{bad:?}");
        }
    }

    #[test]
    fn explicit_names_pass_the_write_seam_noise_filter() {
        assert_eq!(explicit_entity_name("  PostgreSQL ").unwrap(), "PostgreSQL");
        for bad in ["", "   ", "Monday", "1234", "TODO"] {
            assert!(explicit_entity_name(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn strengths_default_and_stay_in_range() {
        assert_eq!(explicit_strength(None).unwrap(), DEFAULT_EXPLICIT_STRENGTH);
        assert_eq!(explicit_strength(Some(1.0)).unwrap(), 1.0);
        assert!(explicit_strength(Some(1.5)).is_err());
        assert!(explicit_strength(Some(f64::NAN)).is_err());
    }
}
