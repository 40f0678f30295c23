//! # A synthetic but realistic memory corpus, and queries with answers
//!
//! The recall benchmark needs a mind of N memories that looks like one an
//! agent would build, and queries a user would ask of it. Both come from
//! here, deterministically: the same `(frames, seed)` always gives the same
//! corpus, byte for byte, so a corpus built once can be reused and its
//! queries regenerated.
//!
//! What makes it realistic rather than random text:
//!
//! - **Topics from templates** (a decision, an outage, a review, a
//!   preference, a deadline, a runbook, …), each with the question a user
//!   would ask about it, filled from **entity pools** (people, projects,
//!   tools, places). So queries have real answers in the corpus, and many
//!   frames share entities the way real memories do.
//! - **Varied lengths**: most memories are a sentence or a few; some are a
//!   paragraph; a few are several paragraphs, long enough to be chunked.
//! - **Event dates** spread over two years (June 2024 – May 2026), so date
//!   windows ("in May 2025") have something to find.
//! - **Importances** mostly normal, some important, critical or temporary.
//! - **Kinds**: mostly plain memories, plus a share of the kinds the
//!   standing lanes list (facts, events, profiles) and verbatim conversation
//!   turns, so every lane of the pipeline has work. A memory carries its
//!   kind as a [`CorpusKind`] (the WIT's `memory-kind`), and the engine
//!   writes the kind's marking when the benchmark saves it: the host never
//!   spells one.
//!
//! The random numbers come from [`Rng`], a hand-written xorshift64*: no
//! dependency, and stable across versions of anything.

use std::collections::HashSet;

use chrono::{Duration, NaiveDate, NaiveDateTime, NaiveTime};

/// Bump when the generator's output changes: a corpus built by another
/// version is rebuilt. Version 2 saves the same contents as version 1 with
/// their kind typed, so the engine also records a raw turn's origin and a
/// profile's name in the frames' metadata.
pub const GENERATOR_VERSION: u32 = 2;

/// The first day an event can fall on.
pub fn first_day() -> NaiveDate {
    NaiveDate::from_ymd_opt(2024, 6, 1).unwrap_or_default()
}

/// How many days the events spread over (two years).
pub const SPAN_DAYS: i64 = 730;

/// "Now" for the benchmark's queries: the day after the last possible event
/// (2026-06-01T09:00:00Z, in Unix milliseconds as the WIT's timestamps).
pub const NOW: i64 = 1_780_304_400_000;

/// A deterministic pseudo-random generator (xorshift64*).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (any value; 0 is remapped).
    pub fn new(seed: u64) -> Rng {
        // SplitMix64 scrambles the seed so nearby seeds diverge at once.
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        Rng(if z == 0 { 0x2545_f491_4f6c_dd1d } else { z })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        // The top bits are the best mixed; n is tiny next to 2^64, so the
        // modulo bias is negligible for a benchmark.
        let n = n as u64;
        usize::try_from((self.next_u64() >> 11) % n).unwrap_or(0)
    }

    /// A number in `low..=high`.
    pub fn between(&mut self, low: usize, high: usize) -> usize {
        low + self.below(high.saturating_sub(low) + 1)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < p
    }

    /// One element of a non-empty slice (the first when empty is impossible
    /// to pick from: returns `None`).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        items.get(self.below(items.len()))
    }
}

/// People.
pub const PEOPLE: [&str; 30] = [
    "Alice", "Bilal", "Chen", "Dana", "Emeka", "Fatima", "Gustavo", "Hana", "Igor", "Jonas",
    "Keiko", "Liam", "Maya", "Nils", "Olivia", "Priya", "Quentin", "Rosa", "Samir", "Tessa",
    "Umar", "Vera", "Wen", "Xavier", "Yara", "Zoe", "Aaron", "Bea", "Carlos", "Dina",
];

/// Project code names.
pub const PROJECTS: [&str; 24] = [
    "Atlas", "Beacon", "Cobalt", "Delta", "Ember", "Falcon", "Granite", "Harbor", "Indigo",
    "Juniper", "Kestrel", "Lumen", "Meridian", "Nimbus", "Orchid", "Pioneer", "Quartz", "Redwood",
    "Sierra", "Tundra", "Umbra", "Vertex", "Willow", "Zephyr",
];

/// Tools and technologies.
pub const TOOLS: [&str; 24] = [
    "PostgreSQL",
    "Redis",
    "Kafka",
    "Kubernetes",
    "Terraform",
    "Grafana",
    "Prometheus",
    "Sentry",
    "GitHub Actions",
    "Jenkins",
    "Docker",
    "SQLite",
    "Elasticsearch",
    "RabbitMQ",
    "Vault",
    "Nginx",
    "Airflow",
    "dbt",
    "Snowflake",
    "BigQuery",
    "React",
    "Rust",
    "Go",
    "Python",
];

/// Places.
pub const PLACES: [&str; 12] = [
    "Lisbon",
    "Berlin",
    "Tokyo",
    "Nairobi",
    "Montreal",
    "Oslo",
    "Singapore",
    "São Paulo",
    "Austin",
    "Dublin",
    "Kraków",
    "Melbourne",
];

/// Kinds of work.
pub const ACTIVITIES: [&str; 8] = [
    "code review",
    "incident response",
    "load testing",
    "on-call handover",
    "sprint planning",
    "data migrations",
    "release notes",
    "dashboards",
];

/// A topic: what is remembered, and what a user would ask about it.
/// Placeholders: `{person}`, `{person2}`, `{project}`, `{tool}`, `{tool2}`,
/// `{place}`, `{activity}`, `{n}`, `{date}`.
pub const TOPICS: [(&str, &str); 16] = [
    (
        "{person} decided to move {project} from {tool} to {tool2} after load tests showed {n}% lower p99 latency.",
        "Why did {project} move from {tool} to {tool2}?",
    ),
    (
        "{project} went down for {n} minutes because {tool} ran out of connections; {person} raised the pool size and added an alert.",
        "What caused the {project} outage?",
    ),
    (
        "In the {project} design review, {person} and {person2} agreed to freeze the public API until the last {n} clients migrate.",
        "What did {person} and {person2} agree in the {project} design review?",
    ),
    (
        "{person} prefers {tool} for {activity} and asked to keep meetings about it under {n} minutes.",
        "What does {person} prefer for {activity}?",
    ),
    (
        "The {project} release is scheduled for {date}; {person} owns the release checklist.",
        "When is the {project} release scheduled?",
    ),
    (
        "The {project} deploy key is kept in {tool}, and {person} rotates it every {n} days.",
        "Where is the {project} deploy key kept?",
    ),
    (
        "The {project} nightly build takes {n} minutes on {tool}; {person} wants it under ten.",
        "How long does the {project} nightly build take?",
    ),
    (
        "{person} joined the {project} team from the {place} office and is ramping up on {tool}.",
        "Who joined the {project} team from {place}?",
    ),
    (
        "{person} will be in {place} for a conference for {n} days and handed the {project} on-call to {person2}.",
        "Who covers the {project} on-call while {person} is in {place}?",
    ),
    (
        "{person} found that {project} leaks memory when {tool} retries time out; the fix is to cap retries at {n}.",
        "Why does {project} leak memory?",
    ),
    (
        "The {project} budget for {tool} licences is {n} thousand euros this year, approved by {person}.",
        "What is the {project} budget for {tool}?",
    ),
    (
        "{person} wrote a runbook for restoring {project} from {tool} snapshots; a restore takes about {n} minutes.",
        "How do we restore {project} from a {tool} snapshot?",
    ),
    (
        "Customers of {project} reported slow exports; {person} traced it to a missing index in {tool} and the fix cut export time by {n}%.",
        "Why were {project} exports slow?",
    ),
    (
        "{person} proposed splitting {project} into {n} services, but {person2} wants to wait until the {tool} upgrade lands.",
        "Should {project} be split into smaller services?",
    ),
    (
        "{person} mentors {person2} on {activity} every week, mostly using {tool} on the {project} codebase.",
        "Who mentors {person2} on {activity}?",
    ),
    (
        "The security audit flagged {project} for writing tokens to {tool} logs; {person} must fix it within {n} days.",
        "What did the security audit flag in {project}?",
    ),
];

/// Sentences that pad a memory to a paragraph (same placeholders).
pub const DETAILS: [&str; 14] = [
    "The discussion also touched on {tool} costs, which grew {n}% last quarter.",
    "{person2} asked for a written summary before the next planning meeting.",
    "Nobody objected, although {person2} noted that the {place} team was not in the room.",
    "A follow-up ticket was opened to track the remaining work on {project}.",
    "The dashboards in {tool2} will be updated to show the new numbers.",
    "Testing happened on staging first, using a copy of last week's data.",
    "The change needs a short announcement in the engineering newsletter.",
    "If the numbers do not hold up after {n} days, the team will revisit the decision.",
    "{person2} volunteered to pair on the tricky parts of the {activity} work.",
    "The old configuration stays in the repository for one more release.",
    "The previous attempt, run from {place}, failed for similar reasons.",
    "The on-call rotation was adjusted so that nobody is paged twice in a row.",
    "Everyone agreed that {tool2} is not the bottleneck, at least not yet.",
    "The numbers will be reviewed again at the end of the month with {person2}.",
];

/// Roles, for profile frames.
const ROLES: [&str; 6] = [
    "backend engineer",
    "site reliability engineer",
    "product manager",
    "data engineer",
    "designer",
    "engineering manager",
];

/// How much a memory matters (the WIT vocabulary, by name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weight {
    /// `critical`.
    Critical,
    /// `important`.
    Important,
    /// `normal`.
    Normal,
    /// `temporary`.
    Temporary,
}

/// What a generated memory is: the WIT `memory-kind` it is saved with
/// (the engine writes the kind's marking into the stored content).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CorpusKind {
    /// A plain memory (no kind).
    Plain,
    /// A standing fact.
    Fact,
    /// An event, on the day of its event time.
    Event,
    /// Who the named person is.
    Profile(&'static str),
    /// A verbatim conversation turn (the WIT `turn-origin`).
    RawTurn {
        /// The conversation's key.
        conversation: String,
        /// The turn's 1-based position.
        turn: u32,
        /// Who spoke.
        speaker: &'static str,
    },
}

/// One generated memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorpusFrame {
    /// What it says, without any marking: the content it is saved with.
    pub content: String,
    /// What it is.
    pub kind: CorpusKind,
    /// Its importance.
    pub weight: Weight,
    /// Its event day.
    pub day: NaiveDate,
    /// Its event time (UTC).
    pub created_at: NaiveDateTime,
    /// The question its topic answers.
    pub question: String,
    /// The project it is about.
    pub project: &'static str,
}

/// What a query asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryKind {
    /// A topic question with an answer in the corpus.
    Topic,
    /// A question naming a month ("in May 2025").
    Dated,
    /// A catch-up request ("catch me up on Atlas").
    CatchUp,
}

impl QueryKind {
    /// The kind's name in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            QueryKind::Topic => "topic",
            QueryKind::Dated => "dated",
            QueryKind::CatchUp => "catch-up",
        }
    }
}

/// One generated query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BenchQuery {
    /// The text.
    pub text: String,
    /// What it asks for.
    pub kind: QueryKind,
    /// For a topic query: the index of the frame it was made from (its
    /// answer).
    pub target: Option<usize>,
}

/// The entities one memory is filled with.
struct Fill {
    person: &'static str,
    person2: &'static str,
    project: &'static str,
    tool: &'static str,
    tool2: &'static str,
    place: &'static str,
    activity: &'static str,
    n: usize,
    date: String,
}

impl Fill {
    fn draw(rng: &mut Rng, day: NaiveDate) -> Fill {
        let person = pick(rng, &PEOPLE);
        let mut person2 = pick(rng, &PEOPLE);
        while person2 == person {
            person2 = pick(rng, &PEOPLE);
        }
        let tool = pick(rng, &TOOLS);
        let mut tool2 = pick(rng, &TOOLS);
        while tool2 == tool {
            tool2 = pick(rng, &TOOLS);
        }
        let release = day + Duration::days(i64::try_from(rng.between(7, 60)).unwrap_or(7));
        Fill {
            person,
            person2,
            project: pick(rng, &PROJECTS),
            tool,
            tool2,
            place: pick(rng, &PLACES),
            activity: pick(rng, &ACTIVITIES),
            n: rng.between(2, 95),
            date: release.format("%-d %B %Y").to_string(),
        }
    }

    fn apply(&self, template: &str) -> String {
        template
            .replace("{person2}", self.person2)
            .replace("{person}", self.person)
            .replace("{project}", self.project)
            .replace("{tool2}", self.tool2)
            .replace("{tool}", self.tool)
            .replace("{place}", self.place)
            .replace("{activity}", self.activity)
            .replace("{n}", &self.n.to_string())
            .replace("{date}", &self.date)
    }
}

fn pick(rng: &mut Rng, items: &[&'static str]) -> &'static str {
    rng.pick(items).copied().unwrap_or("")
}

fn detail(rng: &mut Rng, fill: &Fill) -> String {
    fill.apply(pick(rng, &DETAILS))
}

/// `count` detail sentences after `lead`, as one paragraph.
fn paragraph(rng: &mut Rng, fill: &Fill, lead: String, count: usize) -> String {
    let mut sentences = vec![lead];
    sentences.extend((0..count).map(|_| detail(rng, fill)));
    sentences.join(" ")
}

/// The corpus: `frames` memories from `seed` (see the module docs).
pub fn generate_frames(frames: usize, seed: u64) -> Vec<CorpusFrame> {
    let mut rng = Rng::new(seed);
    let mut seen = HashSet::with_capacity(frames);
    let mut out = Vec::with_capacity(frames);
    let mut profiled = 0usize;
    let mut conversation = 0usize;
    let mut turn = 0usize;
    while out.len() < frames {
        let day =
            first_day() + Duration::days(i64::try_from(rng.below(SPAN_DAYS as usize)).unwrap_or(0));
        let (hour, minute) = (rng.between(7, 21), rng.below(60));
        let created_at = day.and_time(
            NaiveTime::from_hms_opt(
                u32::try_from(hour).unwrap_or(0),
                u32::try_from(minute).unwrap_or(0),
                0,
            )
            .unwrap_or(NaiveTime::MIN),
        );
        let fill = Fill::draw(&mut rng, day);
        let (template, question) = TOPICS[rng.below(TOPICS.len())];
        let lead = fill.apply(template);
        let question = fill.apply(question);
        let weight = match rng.below(100) {
            0..=2 => Weight::Critical,
            3..=14 => Weight::Important,
            15..=21 => Weight::Temporary,
            _ => Weight::Normal,
        };
        // The first memories include one profile per person.
        let (kind, content) = if profiled < PEOPLE.len() && out.len() % 7 == 0 {
            let person = PEOPLE[profiled];
            profiled += 1;
            let about = format!(
                "{person} is a {} on {}, based in {}, and prefers {} for {}.",
                pick(&mut rng, &ROLES),
                fill.project,
                fill.place,
                fill.tool,
                fill.activity
            );
            (CorpusKind::Profile(person), about)
        } else {
            let body = match rng.below(100) {
                0..=44 => lead,
                45..=74 => {
                    let count = rng.between(1, 3);
                    paragraph(&mut rng, &fill, lead, count)
                }
                75..=94 => {
                    let count = rng.between(4, 8);
                    paragraph(&mut rng, &fill, lead, count)
                }
                _ => {
                    let paragraphs = rng.between(3, 6);
                    let mut parts = Vec::new();
                    let count = rng.between(5, 8);
                    parts.push(paragraph(&mut rng, &fill, lead, count));
                    for _ in 1..paragraphs {
                        let next = detail(&mut rng, &fill);
                        let count = rng.between(5, 8);
                        parts.push(paragraph(&mut rng, &fill, next, count));
                    }
                    parts.join("\n\n")
                }
            };
            let kind = match rng.below(100) {
                0..=4 => CorpusKind::Fact,
                5..=9 => CorpusKind::Event,
                10..=15 => {
                    if turn == 0 || rng.chance(0.1) {
                        conversation += 1;
                        turn = 0;
                    }
                    turn += 1;
                    CorpusKind::RawTurn {
                        conversation: format!("bench-{conversation}"),
                        turn: u32::try_from(turn).unwrap_or(u32::MAX),
                        speaker: fill.person,
                    }
                }
                _ => CorpusKind::Plain,
            };
            (kind, body)
        };
        // A memory must be new to the store (it deduplicates by the stored
        // content, which is the kind's marking, an event's day and the
        // text): pad a repeat with detail until it is new.
        let mut content = content;
        let event_day = (kind == CorpusKind::Event).then_some(day);
        while !seen.insert((kind.clone(), event_day, content.clone())) {
            content.push(' ');
            content.push_str(&detail(&mut rng, &fill));
        }
        out.push(CorpusFrame {
            content,
            kind,
            weight,
            day,
            created_at,
            question,
            project: fill.project,
        });
    }
    out
}

/// `count` queries over `frames`, from `seed`: 70% topic questions with a
/// known answer, 20% naming a month, 10% catch-up requests.
pub fn generate_queries(frames: &[CorpusFrame], count: usize, seed: u64) -> Vec<BenchQuery> {
    const CATCH_UP: [&str; 4] = [
        "Catch me up on {project}.",
        "Where were we on {project}?",
        "What did we decide about {project}?",
        "Bring me up to speed on {project}.",
    ];
    const DATED: [&str; 3] = [
        "What happened with {project} in {month}?",
        "What did we do on {project} in {month}?",
        "Any {project} incidents in {month}?",
    ];
    let mut rng = Rng::new(seed ^ 0x5eed_0f0e_c0de_0001);
    let mut out = Vec::with_capacity(count);
    if frames.is_empty() {
        return out;
    }
    while out.len() < count {
        let target = rng.below(frames.len());
        let Some(frame) = frames.get(target) else {
            break;
        };
        let query = match rng.below(10) {
            0..=6 => BenchQuery {
                text: frame.question.clone(),
                kind: QueryKind::Topic,
                target: Some(target),
            },
            7 | 8 => BenchQuery {
                text: pick(&mut rng, &DATED)
                    .replace("{project}", frame.project)
                    .replace("{month}", &frame.day.format("%B %Y").to_string()),
                kind: QueryKind::Dated,
                target: None,
            },
            _ => BenchQuery {
                text: pick(&mut rng, &CATCH_UP).replace("{project}", frame.project),
                kind: QueryKind::CatchUp,
                target: None,
            },
        };
        out.push(query);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generator_is_deterministic_and_varied() {
        let a = generate_frames(600, 7);
        let b = generate_frames(600, 7);
        assert_eq!(a, b);
        assert_ne!(a, generate_frames(600, 8));
        assert_eq!(a.len(), 600);
        let unique: HashSet<(&CorpusKind, &str)> =
            a.iter().map(|f| (&f.kind, f.content.as_str())).collect();
        assert_eq!(unique.len(), 600, "memories must be unique");

        let lengths: Vec<usize> = a.iter().map(|f| f.content.len()).collect();
        assert!(
            lengths.iter().any(|&l| l < 200),
            "some one-sentence memories"
        );
        assert!(
            lengths.iter().any(|&l| l > 2500),
            "some long enough to chunk"
        );
        let of_kind =
            |wanted: fn(&CorpusKind) -> bool| a.iter().filter(|f| wanted(&f.kind)).count();
        assert!(of_kind(|k| *k == CorpusKind::Fact) > 0);
        assert!(of_kind(|k| *k == CorpusKind::Event) > 0);
        assert!(of_kind(|k| matches!(k, CorpusKind::RawTurn { .. })) > 0);
        assert!(of_kind(|k| matches!(k, CorpusKind::Profile(_))) > 0);
        assert!(
            of_kind(|k| *k == CorpusKind::Plain) > 600 / 2,
            "mostly plain"
        );
        for weight in [
            Weight::Critical,
            Weight::Important,
            Weight::Normal,
            Weight::Temporary,
        ] {
            assert!(a.iter().any(|f| f.weight == weight), "{weight:?}");
        }
        let normal = a.iter().filter(|f| f.weight == Weight::Normal).count();
        assert!(normal > 600 / 2, "mostly normal");
        let first = a.iter().map(|f| f.day).min().unwrap();
        let last = a.iter().map(|f| f.day).max().unwrap();
        assert!(first >= first_day() && (last - first).num_days() > 600);
        assert!(
            a.iter().all(|f| !f.content.contains('{')),
            "every placeholder filled"
        );
    }

    #[test]
    fn queries_have_answers_and_every_kind_appears() {
        let frames = generate_frames(300, 1);
        let queries = generate_queries(&frames, 200, 1);
        assert_eq!(queries, generate_queries(&frames, 200, 1));
        assert_eq!(queries.len(), 200);
        for kind in [QueryKind::Topic, QueryKind::Dated, QueryKind::CatchUp] {
            assert!(queries.iter().any(|q| q.kind == kind), "{kind:?}");
        }
        for query in &queries {
            assert!(!query.text.contains('{'), "{}", query.text);
            if let Some(target) = query.target {
                assert_eq!(query.text, frames[target].question);
            }
        }
        assert!(generate_queries(&[], 5, 1).is_empty());
    }

    #[test]
    fn the_rng_stays_in_range() {
        let mut rng = Rng::new(0);
        for _ in 0..1000 {
            assert!(rng.below(7) < 7);
            let x = rng.between(3, 5);
            assert!((3..=5).contains(&x));
        }
        assert_eq!(rng.below(0), 0);
        assert_eq!(rng.pick::<u8>(&[]), None);
    }
}
