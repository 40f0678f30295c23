//! Relations between the entities of one snippet: co-occurrence, and the
//! typed, directed relations a sentence states.
//!
//! # Co-occurrence
//!
//! Every pair of distinct entities in one snippet is related by
//! [`RelationType::CoOccursWith`] with strength
//! [`CO_OCCURRENCE_STRENGTH`] = 0.8 (design §3(a), step 4), directed from the
//! entity mentioned first to the one mentioned later. Only the first
//! [`MAX_CO_OCCURRING_ENTITIES`] entities take part: a snippet naming thirty
//! things (a pasted list) would otherwise add 435 edges that say nothing.
//! (The reference engine has no cap; write-back snippets are single
//! sentences of at most 500 characters and never reach it.)
//!
//! # Stated relations
//!
//! A relation is read from the words *between two consecutive mentions* in
//! one sentence, and only when those words are exactly a connector phrase
//! (an optional ", which is", "has been", an adverb such as "also", the
//! connector, an optional article). So "Phoenix is led by Ana Lima" relates
//! Phoenix and Ana Lima, while "Phoenix, which Ana Lima praised, uses Kafka"
//! relates Ana Lima to nothing. Each connector also checks the two entity
//! types, which settles direction and meaning ("Marko manages Ana" is Ana
//! reports-to Marko; "Marko manages Phoenix" is Phoenix led-by Marko; "Marko
//! runs Kubernetes" is neither). A mention joined to the second entity by
//! "and", "or" or a comma shares its relation: "the Ledger service depends
//! on Postgres and Redis" depends on both; "Marko leads the Platform team
//! and the Data team" leads both (not for `replaced-by`, where "from MySQL
//! to Postgres and Redis" is ambiguous).
//!
//! | relation | read from | strength | source |
//! |---|---|---:|---|
//! | `led-by` | "X is led / managed / headed / run by Y", "Y leads / manages / heads / runs X" (Y a person, X not) | 0.9 | reference |
//! | `reports-to` | "X reports to Y", "X works for / under Y", "X is managed by Y", "Y manages X" (both people) | 0.9 | reference |
//! | `depends-on` | "X depends on / relies on / requires / needs / runs on / is built on / is powered by Y" | 0.85 | reference |
//! | `maintained-by` | "X is maintained / built / created / written / owned by Y", "Y maintains / built / wrote / owns X" (Y a person or organisation) | 0.85 | reference |
//! | `affiliated-with` | "X works at / for Y", "X from / at Y", "X joined Y", "X, a designer at Y", "X is a member of Y" (X a person, Y an organisation) | 0.75 | reference |
//! | `part-of` | "X is part of / a module of / a component of / belongs to Y" | 0.85 | here |
//! | `uses` | "X uses / adopted / is built with / is written in / switched to Y" (Y a technology) | 0.8 | here |
//! | `works-on` | "X works on / contributes to / is building Y" (X a person or organisation) | 0.8 | here |
//! | `replaced-by` | "migrated / switched / moved … from X to Y", "replaced X with Y", "X was replaced by Y" (same type) | 0.85 | here |
//!
//! The design names `led_by`, `reports_to` and `depends_on` "…"; the
//! reference engine's extractor adds `maintained_by` and `affiliated_with`
//! with the strengths above. `part-of`, `uses`, `works-on` and `replaced-by`
//! are added here: phrases as explicit as "is part of" and "replaced … by"
//! get the reference's 0.85, verbs with more readings ("uses", "works on")
//! the co-occurrence strength 0.8. Relation names are kebab-case, like every
//! other name on the WIT boundary (the store's example is `depends-on`);
//! the reference spells them in snake case (`co_occurs_with`).

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::entities::{ExtractedEntity, Mention, accept_entity_name, scan_mentions};
use crate::entity::EntityType;

/// What a relation says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RelationType {
    /// Mentioned in the same snippet.
    CoOccursWith,
    /// The subject (a team, project or organisation) is led by the object
    /// (a person).
    LedBy,
    /// The subject (a person) reports to the object (a person).
    ReportsTo,
    /// The subject needs the object to work.
    DependsOn,
    /// The subject (a piece of work) is maintained, built or owned by the
    /// object (a person or organisation).
    MaintainedBy,
    /// The subject (a person) belongs to the object (an organisation).
    AffiliatedWith,
    /// The subject uses the object (a technology).
    Uses,
    /// The subject (a person or organisation) works on the object.
    WorksOn,
    /// The subject is a part of the object.
    PartOf,
    /// The subject was replaced by the object.
    ReplacedBy,
}

impl RelationType {
    /// Every relation type.
    pub const ALL: [RelationType; 10] = [
        RelationType::CoOccursWith,
        RelationType::LedBy,
        RelationType::ReportsTo,
        RelationType::DependsOn,
        RelationType::MaintainedBy,
        RelationType::AffiliatedWith,
        RelationType::Uses,
        RelationType::WorksOn,
        RelationType::PartOf,
        RelationType::ReplacedBy,
    ];

    /// The relation's name in the graph and in JSON (`co-occurs-with`,
    /// `led-by`, …): the string to pass as the store's `relation`.
    pub fn as_str(self) -> &'static str {
        match self {
            RelationType::CoOccursWith => "co-occurs-with",
            RelationType::LedBy => "led-by",
            RelationType::ReportsTo => "reports-to",
            RelationType::DependsOn => "depends-on",
            RelationType::MaintainedBy => "maintained-by",
            RelationType::AffiliatedWith => "affiliated-with",
            RelationType::Uses => "uses",
            RelationType::WorksOn => "works-on",
            RelationType::PartOf => "part-of",
            RelationType::ReplacedBy => "replaced-by",
        }
    }

    /// The strength an extracted relation of this type is written with (see
    /// the module documentation for the sources).
    pub fn strength(self) -> f64 {
        match self {
            RelationType::CoOccursWith => CO_OCCURRENCE_STRENGTH,
            RelationType::LedBy | RelationType::ReportsTo => 0.9,
            RelationType::DependsOn
            | RelationType::MaintainedBy
            | RelationType::PartOf
            | RelationType::ReplacedBy => 0.85,
            RelationType::Uses | RelationType::WorksOn => 0.8,
            RelationType::AffiliatedWith => 0.75,
        }
    }
}

/// The strength of a co-occurrence relation (design §3(a), step 4).
pub const CO_OCCURRENCE_STRENGTH: f64 = 0.8;

/// At most this many entities of one snippet (the first mentioned) are
/// paired by co-occurrence.
pub const MAX_CO_OCCURRING_ENTITIES: usize = 20;

/// An entity named by its graph key: canonical name and type.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct EntityRef {
    /// The canonical name.
    pub name: String,
    /// The type.
    pub entity_type: EntityType,
}

impl From<&ExtractedEntity> for EntityRef {
    fn from(e: &ExtractedEntity) -> Self {
        EntityRef {
            name: e.name.clone(),
            entity_type: e.entity_type,
        }
    }
}

/// A directed, typed relation between two entities of a snippet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct ExtractedRelation {
    /// Where the edge starts.
    pub subject: EntityRef,
    /// What it says.
    pub relation: RelationType,
    /// Where the edge ends.
    pub object: EntityRef,
    /// How sure the extraction is, 0 to 1.
    pub strength: f64,
}

/// The relations between `entities` (as [`extract_entities`] found them in
/// `text`; entities the caller dropped are left out, and so is any entity
/// [`accept_entity_name`] rejects): co-occurrence between every pair, in
/// order of mention, then the relations the text states, in text order.
/// Never relates an entity to itself; each `(subject, relation, object)` at
/// most once.
///
/// [`extract_entities`]: super::extract_entities
///
/// ```
/// use hive_mind_core::cognify::{RelationType, extract_entities, extract_relations};
/// let text = "The Phoenix project is led by Ana Lima and depends on Kafka.";
/// let entities = extract_entities(text);
/// let stated: Vec<(String, RelationType, String)> = extract_relations(text, &entities)
///     .into_iter()
///     .filter(|r| r.relation != RelationType::CoOccursWith)
///     .map(|r| (r.subject.name, r.relation, r.object.name))
///     .collect();
/// assert_eq!(
///     stated,
///     [("phoenix".into(), RelationType::LedBy, "ana lima".into())]
/// );
/// ```
pub fn extract_relations(text: &str, entities: &[ExtractedEntity]) -> Vec<ExtractedRelation> {
    let mut keys: Vec<EntityRef> = Vec::new();
    for e in entities {
        let key = EntityRef::from(e);
        if accept_entity_name(&e.name) && !keys.contains(&key) {
            keys.push(key);
        }
    }
    let mut out: Vec<ExtractedRelation> = Vec::new();
    let mut paired = keys.get(..MAX_CO_OCCURRING_ENTITIES).unwrap_or(&keys);
    while let Some((subject, later)) = paired.split_first() {
        for object in later {
            push(&mut out, subject, RelationType::CoOccursWith, object);
        }
        paired = later;
    }
    let mentions: Vec<Mention> = scan_mentions(text)
        .into_iter()
        .filter(|m| {
            keys.iter()
                .any(|k| k.name == m.name && k.entity_type == m.entity_type)
        })
        .collect();
    // The last stated relation as (X, Y, relation, forward), read off the
    // mentions X and Y; a mention coordinated with Y ("… depends on Postgres
    // and Redis") takes Y's place in it.
    let mut last: Option<(EntityRef, EntityRef, RelationType, bool)> = None;
    for pair in mentions.windows(2) {
        let [a, b] = pair else {
            continue;
        };
        if let Some(stated) = stated_relation(text, a, b) {
            let (subject, relation, object, forward) = stated;
            push(&mut out, &subject, relation, &object);
            let (x, y) = if forward {
                (subject, object)
            } else {
                (object, subject)
            };
            last = Some((x, y, relation, forward));
            continue;
        }
        last = match last.take() {
            Some((x, y, relation, forward))
                if relation != RelationType::ReplacedBy
                    && y == key_of(a)
                    && b.entity_type == a.entity_type
                    && is_coordination(text, a, b) =>
            {
                let next = key_of(b);
                if forward {
                    push(&mut out, &x, relation, &next);
                } else {
                    push(&mut out, &next, relation, &x);
                }
                Some((x, next, relation, forward))
            }
            _ => None,
        };
    }
    out
}

fn key_of(m: &Mention) -> EntityRef {
    EntityRef {
        name: m.name.clone(),
        entity_type: m.entity_type,
    }
}

/// Whether two mentions are joined only by "and", "or" or a comma (and an
/// article: "and the Data team").
fn is_coordination(text: &str, a: &Mention, b: &Mention) -> bool {
    text.get(a.end..b.start).is_some_and(|between| {
        let between = normalise(between);
        let joiner = ["the", "a", "an", "our", "their", "its"]
            .iter()
            .find_map(|article| between.strip_suffix(article))
            .map_or(between.as_str(), str::trim_end);
        matches!(
            joiner,
            "and" | "or" | "," | ", and" | ", or" | "as well as" | "and also"
        )
    })
}

/// Add a relation unless it relates an entity to itself or is already there.
fn push(
    out: &mut Vec<ExtractedRelation>,
    subject: &EntityRef,
    relation: RelationType,
    object: &EntityRef,
) {
    if subject == object
        || out
            .iter()
            .any(|r| r.subject == *subject && r.relation == relation && r.object == *object)
    {
        return;
    }
    out.push(ExtractedRelation {
        subject: subject.clone(),
        relation,
        object: object.clone(),
        strength: relation.strength(),
    });
}

// ---------------------------------------------------------------------------
// Connectors
// ---------------------------------------------------------------------------

/// What the words between two mentions may say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Connector {
    /// "X is led by Y".
    LedByPassive,
    /// "X leads Y".
    LeadsActive,
    /// "X reports to Y".
    ReportsTo,
    /// "X works for Y".
    WorksFor,
    /// "X works at Y", "X from Y".
    WorksAt,
    /// "X is part of Y".
    PartOf,
    /// "X depends on Y".
    DependsOn,
    /// "X is maintained by Y".
    MaintainedByPassive,
    /// "X maintains Y".
    MaintainsActive,
    /// "X uses Y".
    Uses,
    /// "X works on Y".
    WorksOn,
    /// "X was replaced by Y".
    ReplacedByPassive,
    /// "from X to Y", "replace X with Y": needs the words before X.
    ReplacedFromTo,
}

/// Optional glue before a connector: the type noun that follows a name
/// ("the Phoenix *project* is led by …"), a comma, a relative pronoun, an
/// auxiliary, an adverb.
const PRE: &str = r"^(?:(?:project|initiative|programme|program|repo|repository|codebase|monorepo|service|microservice|app|workspace|crate|library|package|module|plugin|extension|framework|sdk|tool|team)\s*)?(?:,\s*)?(?:(?:which|who|that)\s+)?(?:(?:is|are|was|were|has\s+been|have\s+been|had\s+been|will\s+be|gets|got|being)\s+)?(?:(?:also|now|still|currently|directly|actually|mostly|heavily|only|already|officially|primarily|mainly|originally)\s+)?";

/// Optional determiner after a connector, and the word that precedes a
/// project's name ("part of *Project* Phoenix").
const POST: &str = r"(?:\s+(?:the|a|an|our|their|its|his|her|this|that|my|your))?(?:\s+(?:project|initiative|codename|operation))?$";

/// The connector table, in the order tried.
const CONNECTORS: &[(Connector, &str)] = &[
    (
        Connector::LedByPassive,
        r"(?:led|managed|headed|run|supervised|directed)\s+by",
    ),
    (
        Connector::LeadsActive,
        r"(?:leads|led|manages|managed|heads|headed|runs|ran|supervises|supervised|directs|directed|(?:the\s+)?(?:lead|head|manager|owner|director)\s+(?:of|for))",
    ),
    (
        Connector::ReportsTo,
        r"(?:reports|reported|reporting|report)\s+(?:directly\s+)?to",
    ),
    (
        Connector::WorksFor,
        r"(?:works|worked|working|work)\s+(?:for|under)",
    ),
    (
        Connector::WorksAt,
        r"(?:(?:works|worked|working|work)\s+at|from|at|with|joined|joins|(?:employed|hired)\s+(?:at|by)|(?:an?|the)\s+[\w-]+(?:\s+[\w-]+)?\s+(?:at|of)|(?:a\s+)?member\s+of)",
    ),
    (
        Connector::PartOf,
        r"(?:(?:a\s+)?part\s+of|(?:a|an|the)\s+(?:module|component|subsidiary|division|piece|subproject|submodule|unit|crate|package|service|library|plugin)\s+(?:of|in)|belongs\s+to|belong\s+to)",
    ),
    (
        Connector::DependsOn,
        r"(?:(?:depends|depend|depended|depending)\s+on|(?:relies|rely|relied|relying)\s+on|requires|require|required|needs|need|needed|(?:built|runs|run|ran|running|sits)\s+on(?:\s+top\s+of)?|(?:powered|backed)\s+by)",
    ),
    (
        Connector::MaintainedByPassive,
        r"(?:maintained|built|created|developed|written|owned|authored|designed|made)\s+by",
    ),
    (
        Connector::MaintainsActive,
        r"(?:maintains|maintained|builds|built|creates|created|writes|wrote|develops|developed|owns|owned|authored|designed)",
    ),
    (
        Connector::Uses,
        r"(?:uses|used|use|using|adopted|adopts|(?:built|written|implemented|developed)\s+(?:with|in|using)|(?:switched|moved|migrated)\s+to|standardi[sz]ed\s+on)",
    ),
    (
        Connector::WorksOn,
        r"(?:(?:works|work|worked|working)\s+on|(?:contributes|contribute|contributed|contributing)\s+to|building|developing|shipping)",
    ),
    (
        Connector::ReplacedByPassive,
        r"(?:replaced|superseded|succeeded)\s+by",
    ),
    (Connector::ReplacedFromTo, r"(?:to|with|by)"),
];

/// The words before the first mention of a "from X to Y" or "replace X with
/// Y" statement.
const REPLACED_BEFORE: &str = r"(?i)(?:\b(?:migrat|switch|mov|port|upgrad|transition|convert|chang)\w*\b.*\bfrom|\breplac\w*)\s+(?:the\s+|our\s+)?$";

struct Compiled {
    connectors: Vec<(Connector, Regex)>,
    replaced_before: Regex,
}

static COMPILED: LazyLock<Option<Compiled>> = LazyLock::new(|| {
    let connectors = CONNECTORS
        .iter()
        .map(|&(c, core)| Some((c, Regex::new(&format!("{PRE}{core}{POST}")).ok()?)))
        .collect::<Option<Vec<_>>>()?;
    Some(Compiled {
        connectors,
        replaced_before: Regex::new(REPLACED_BEFORE).ok()?,
    })
});

/// The longest stretch of text between two mentions that can be a
/// connector phrase.
const MAX_CONNECTOR_CHARS: usize = 60;

/// How far back the words before a "from X to Y" statement are read.
const MAX_BEFORE_CHARS: usize = 120;

/// The relation stated between two consecutive mentions, if any, as
/// (subject, relation, object, whether the subject is the first mention).
fn stated_relation(
    text: &str,
    a: &Mention,
    b: &Mention,
) -> Option<(EntityRef, RelationType, EntityRef, bool)> {
    let compiled = COMPILED.as_ref()?;
    let between = text.get(a.end..b.start)?;
    if between.len() > MAX_CONNECTOR_CHARS || between.contains(['.', '!', '?', ';', '\n', '(', ')'])
    {
        return None;
    }
    let between = normalise(between);
    let before = sentence_before(text, a.start);
    let x = key_of(a);
    let y = key_of(b);
    if x == y {
        return None;
    }
    for (connector, regex) in &compiled.connectors {
        if !regex.is_match(&between) {
            continue;
        }
        if *connector == Connector::ReplacedFromTo && !compiled.replaced_before.is_match(before) {
            continue;
        }
        if let Some((relation, forward)) = type_relation(*connector, a.entity_type, b.entity_type) {
            return Some(if forward {
                (x, relation, y, true)
            } else {
                (y, relation, x, false)
            });
        }
    }
    None
}

/// The relation a connector states between an X and a Y of these types, and
/// whether it runs X → Y (`true`) or Y → X.
fn type_relation(
    connector: Connector,
    x: EntityType,
    y: EntityType,
) -> Option<(RelationType, bool)> {
    use EntityType::{Concept, File, Organization, Person, Project, Technology};
    let work = |t: EntityType| matches!(t, Project | Technology | File | Concept);
    let led = |t: EntityType| matches!(t, Organization | Project | Concept);
    match connector {
        Connector::LedByPassive => match (x, y) {
            (Person, Person) => Some((RelationType::ReportsTo, true)),
            (t, Person) if led(t) => Some((RelationType::LedBy, true)),
            _ => None,
        },
        Connector::LeadsActive => match (x, y) {
            (Person, Person) => Some((RelationType::ReportsTo, false)),
            (Person, t) if led(t) => Some((RelationType::LedBy, false)),
            _ => None,
        },
        Connector::ReportsTo => {
            (x == Person && y == Person).then_some((RelationType::ReportsTo, true))
        }
        Connector::WorksFor => match (x, y) {
            (Person, Person) => Some((RelationType::ReportsTo, true)),
            (Person, Organization) => Some((RelationType::AffiliatedWith, true)),
            _ => None,
        },
        Connector::WorksAt => {
            (x == Person && y == Organization).then_some((RelationType::AffiliatedWith, true))
        }
        Connector::PartOf => match (x, y) {
            (Person, Organization) => Some((RelationType::AffiliatedWith, true)),
            (a, b) if (work(a) || a == Organization) && (work(b) || b == Organization) => {
                Some((RelationType::PartOf, true))
            }
            _ => None,
        },
        Connector::DependsOn => (work(x) && work(y)).then_some((RelationType::DependsOn, true)),
        Connector::MaintainedByPassive => (work(x) && matches!(y, Person | Organization))
            .then_some((RelationType::MaintainedBy, true)),
        Connector::MaintainsActive => (matches!(x, Person | Organization) && work(y))
            .then_some((RelationType::MaintainedBy, false)),
        Connector::Uses => {
            (x != EntityType::Place && y == Technology).then_some((RelationType::Uses, true))
        }
        Connector::WorksOn => (matches!(x, Person | Organization)
            && matches!(y, Project | Technology | Concept))
        .then_some((RelationType::WorksOn, true)),
        Connector::ReplacedByPassive | Connector::ReplacedFromTo => {
            (x == y && work(x)).then_some((RelationType::ReplacedBy, true))
        }
    }
}

/// Lower-case, typographic apostrophes unified, white space collapsed,
/// trimmed.
fn normalise(between: &str) -> String {
    between
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('’', "'")
        .to_lowercase()
}

/// The part of the sentence before byte `at`, at most [`MAX_BEFORE_CHARS`]
/// bytes back (on a character boundary).
fn sentence_before(text: &str, at: usize) -> &str {
    let head = text.get(..at).unwrap_or_default();
    let from = head.ceil_char_boundary(head.len().saturating_sub(MAX_BEFORE_CHARS));
    let window = head.get(from..).unwrap_or_default();
    let cut = window
        .rfind(['!', '?', ';', '\n'])
        .into_iter()
        .chain(window.rfind(". "))
        .max()
        .map_or(0, |i| i + 1);
    window.get(cut..).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cognify::extract_entities;

    fn stated(text: &str) -> Vec<(String, RelationType, String)> {
        let entities = extract_entities(text);
        extract_relations(text, &entities)
            .into_iter()
            .filter(|r| r.relation != RelationType::CoOccursWith)
            .map(|r| (r.subject.name, r.relation, r.object.name))
            .collect()
    }

    fn one(text: &str, subject: &str, relation: RelationType, object: &str) {
        assert_eq!(
            stated(text),
            vec![(subject.to_string(), relation, object.to_string())],
            "{text:?}"
        );
    }

    #[test]
    fn connectors_compile() {
        let compiled = COMPILED.as_ref().unwrap();
        assert_eq!(compiled.connectors.len(), CONNECTORS.len());
    }

    #[test]
    fn leadership() {
        one(
            "The Phoenix project is led by Ana Lima.",
            "phoenix",
            RelationType::LedBy,
            "ana lima",
        );
        one(
            "Marko Bauer leads the Platform team.",
            "platform team",
            RelationType::LedBy,
            "marko bauer",
        );
        one(
            "Ana Lima manages Marko Bauer.",
            "marko bauer",
            RelationType::ReportsTo,
            "ana lima",
        );
        one(
            "Marko Bauer reports to Ana Lima.",
            "marko bauer",
            RelationType::ReportsTo,
            "ana lima",
        );
        one(
            "Marko Bauer works for Ana Lima.",
            "marko bauer",
            RelationType::ReportsTo,
            "ana lima",
        );
    }

    #[test]
    fn affiliation_and_membership() {
        one(
            "Ana Lima works at Acme Corp.",
            "ana lima",
            RelationType::AffiliatedWith,
            "acme corp",
        );
        one(
            "Ana Lima from Globex Labs called.",
            "ana lima",
            RelationType::AffiliatedWith,
            "globex labs",
        );
        one(
            "Jelena Petrović, a designer at Acme Corp, joined the call.",
            "jelena petrović",
            RelationType::AffiliatedWith,
            "acme corp",
        );
        one(
            "The billing-api service is part of Project Phoenix.",
            "billing-api",
            RelationType::PartOf,
            "phoenix",
        );
    }

    #[test]
    fn dependencies_use_and_work() {
        one(
            "The Ledger service depends on Postgres.",
            "ledger",
            RelationType::DependsOn,
            "postgresql",
        );
        one(
            "Project Phoenix uses Kafka.",
            "phoenix",
            RelationType::Uses,
            "kafka",
        );
        one(
            "The importer is written in Rust and the Atlas service uses Redis.",
            "atlas",
            RelationType::Uses,
            "redis",
        );
        one(
            "Ana Lima works on Project Phoenix.",
            "ana lima",
            RelationType::WorksOn,
            "phoenix",
        );
        one(
            "The sqlite-vec extension is maintained by Alex Garcia.",
            "sqlite-vec",
            RelationType::MaintainedBy,
            "alex garcia",
        );
        one(
            "Marko Bauer wrote src/lib.rs.",
            "src/lib.rs",
            RelationType::MaintainedBy,
            "marko bauer",
        );
    }

    #[test]
    fn replacements() {
        one(
            "We migrated the ledger from MySQL to Postgres.",
            "mysql",
            RelationType::ReplacedBy,
            "postgresql",
        );
        one(
            "We replaced Jest with Vitest last sprint.",
            "jest",
            RelationType::ReplacedBy,
            "vitest",
        );
        one(
            "Webpack was replaced by Vite.",
            "webpack",
            RelationType::ReplacedBy,
            "vite",
        );
        // "from … to …" without a migration verb is not a replacement.
        assert!(stated("The flight from Berlin to London was late.").is_empty());
    }

    #[test]
    fn coordinated_entities_share_the_relation() {
        assert_eq!(
            stated("The Ledger service depends on Postgres, Redis and Kafka."),
            vec![
                (
                    "ledger".to_string(),
                    RelationType::DependsOn,
                    "postgresql".to_string()
                ),
                (
                    "ledger".to_string(),
                    RelationType::DependsOn,
                    "redis".to_string()
                ),
                (
                    "ledger".to_string(),
                    RelationType::DependsOn,
                    "kafka".to_string()
                ),
            ]
        );
        assert_eq!(
            stated("Marko Bauer leads the Platform team and the Data team."),
            vec![
                (
                    "platform team".to_string(),
                    RelationType::LedBy,
                    "marko bauer".to_string()
                ),
                (
                    "data team".to_string(),
                    RelationType::LedBy,
                    "marko bauer".to_string()
                ),
            ]
        );
        // A different type is not a coordinated object.
        assert_eq!(stated("Project Phoenix uses Kafka and Ana Lima.").len(), 1);
        // Nor is anything after a replacement.
        assert_eq!(
            stated("We migrated the ledger from MySQL to Postgres and Redis.").len(),
            1
        );
    }

    #[test]
    fn types_settle_meaning() {
        // A person does not depend on a technology, a technology does not lead.
        assert!(stated("Marko Bauer needs Docker.").is_empty());
        assert!(stated("Marko Bauer runs Kubernetes.").is_empty());
        assert!(stated("Kubernetes leads Docker.").is_empty());
    }

    #[test]
    fn only_consecutive_mentions_in_one_sentence() {
        assert!(stated("Ana Lima is led. By Marko Bauer.").is_empty());
        assert!(stated("Phoenix project, which Ana Lima praised, uses Kafka.").len() <= 1);
        assert!(stated("Ana Lima and Marko Bauer met at the Berlin office.").is_empty());
    }

    #[test]
    fn co_occurrence_pairs_every_entity_once_in_mention_order() {
        let text = "Ana Lima moved Project Phoenix from MySQL to Postgres.";
        let entities = extract_entities(text);
        assert_eq!(entities.len(), 4, "{entities:?}");
        let relations = extract_relations(text, &entities);
        let co: Vec<_> = relations
            .iter()
            .filter(|r| r.relation == RelationType::CoOccursWith)
            .collect();
        assert_eq!(co.len(), 6);
        assert!(co.iter().all(|r| r.strength == 0.8));
        assert_eq!(co[0].subject.name, "ana lima");
        assert_eq!(co[0].object.name, "phoenix");
    }

    #[test]
    fn co_occurrence_is_capped() {
        let names: Vec<String> = (0..30).map(|i| format!("file{i}.rs")).collect();
        let text = names.join(" ");
        let entities = extract_entities(&text);
        assert_eq!(entities.len(), 30);
        let n = MAX_CO_OCCURRING_ENTITIES;
        assert_eq!(extract_relations(&text, &entities).len(), n * (n - 1) / 2);
    }

    #[test]
    fn dropped_entities_take_no_part() {
        let text = "The Phoenix project is led by Ana Lima.";
        let entities: Vec<_> = extract_entities(text)
            .into_iter()
            .filter(|e| e.name != "ana lima")
            .collect();
        assert!(extract_relations(text, &entities).is_empty());
    }

    #[test]
    fn names_and_strengths() {
        for r in RelationType::ALL {
            assert_eq!(
                serde_json::to_value(r).unwrap(),
                serde_json::Value::String(r.as_str().to_string())
            );
            assert!((0.0..=1.0).contains(&r.strength()));
        }
        assert_eq!(RelationType::CoOccursWith.strength(), 0.8);
        assert_eq!(RelationType::LedBy.strength(), 0.9);
        assert_eq!(RelationType::DependsOn.strength(), 0.85);
    }
}
