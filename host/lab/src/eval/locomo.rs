//! # The LoCoMo data shape, read defensively
//!
//! LoCoMo (Maharana et al., 2024) is a list of *samples*; each sample is one
//! long conversation between two people, split into dated *sessions*, plus
//! questions about it whose *evidence* names the turns that answer them:
//!
//! ```json
//! [{
//!   "sample_id": "conv-26",
//!   "conversation": {
//!     "speaker_a": "Caroline", "speaker_b": "Melanie",
//!     "session_1_date_time": "1:56 pm on 8 May, 2023",
//!     "session_1": [{"speaker": "Caroline", "dia_id": "D1:1", "text": "Hey Mel!"},
//!                   {"speaker": "Melanie", "dia_id": "D1:2", "text": "…",
//!                    "blip_caption": "a photo of a dog"}]
//!   },
//!   "qa": [{"question": "…", "answer": "…", "evidence": ["D1:2"], "category": 4}]
//! }]
//! ```
//!
//! Any data set in this shape can be read: the reader only relies on the
//! keys above. Real data has warts (the published file has evidence ids
//! such as `"D8:6; D9:17"` or `"D"`, questions with no evidence, and more
//! `session_N_date_time` keys than `session_N` lists), so the reader never
//! gives up on a whole file for one bad item: a malformed sample, session,
//! turn or question is **reported** (in [`Dataset::problems`]) and left out,
//! and the rest is read. Only input that is not a JSON list at all is an
//! error.
//!
//! Two details decide how a sample is stored and scored:
//!
//! - Sessions are found by iterating the `session_N` *lists* (sorted by
//!   `N`), never the date keys; each needs its `session_N_date_time`, which
//!   [`parse_session_date`] turns into ISO-8601 (`"1:56 pm on 8 May, 2023"` →
//!   `2023-05-08T13:56:00Z`).
//! - Dialogue ids (`D<session>:<turn>`) are parsed into [`TurnId`]s, so
//!   `"D30:05"` and `"D30:5"` are the same turn. An evidence string is split
//!   on white space, `;` and `,` first (`"D9:1 D4:4"` is two ids).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;

use chrono::{NaiveDate, NaiveDateTime, NaiveTime};
use serde_json::Value as Json;

use super::EvalError;

/// A dialogue id, `D<session>:<turn>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TurnId {
    /// The session number (`N` of `session_N`).
    pub session: u32,
    /// The turn's number within the session, as the data set numbers it.
    pub turn: u32,
}

impl fmt::Display for TurnId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "D{}:{}", self.session, self.turn)
    }
}

/// Parse `D<session>:<turn>` (surrounding white space allowed, leading zeros
/// allowed); `None` for anything else.
pub fn parse_dia_id(text: &str) -> Option<TurnId> {
    let rest = text.trim().strip_prefix('D')?;
    let (session, turn) = rest.split_once(':')?;
    let number = |part: &str| -> Option<u32> {
        if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        part.parse().ok()
    };
    Some(TurnId {
        session: number(session)?,
        turn: number(turn)?,
    })
}

/// Split one evidence string into the ids it names (`"D9:1 D4:4"`,
/// `"D8:6; D9:17"` → two each). Empty pieces are dropped.
pub fn split_evidence(text: &str) -> Vec<&str> {
    text.split(|c: char| c.is_whitespace() || c == ';' || c == ',')
        .filter(|piece| !piece.is_empty())
        .collect()
}

/// The number (1 = January) of an English month name, full or its three
/// letters, in any case, a trailing dot allowed: chrono's reading of month
/// names, so the host keeps no month table of its own (the engine's is in
/// `guest/core/src/dates/month.rs`).
fn month_number(name: &str) -> Option<u32> {
    name.trim_end_matches('.')
        .parse::<chrono::Month>()
        .ok()
        .map(|month| month.number_from_month())
}

/// Parse LoCoMo's session time, `"1:56 pm on 8 May, 2023"` (12-hour clock,
/// `am`/`pm`, day, month name — full or three letters — comma optional).
pub fn parse_session_date(text: &str) -> Option<NaiveDateTime> {
    let lower = text.trim().to_ascii_lowercase();
    let (time, date) = lower.split_once(" on ")?;
    let time = time.trim();
    let (clock, meridiem) = match time.strip_suffix("am") {
        Some(clock) => (clock, false),
        None => (time.strip_suffix("pm")?, true),
    };
    let (hour, minute) = clock.trim().split_once(':')?;
    let hour: u32 = hour.trim().parse().ok()?;
    let minute: u32 = minute.trim().parse().ok()?;
    if !(1..=12).contains(&hour) {
        return None;
    }
    let hour = match (hour, meridiem) {
        (12, false) => 0,
        (12, true) => 12,
        (hour, false) => hour,
        (hour, true) => hour + 12,
    };
    let time = NaiveTime::from_hms_opt(hour, minute, 0)?;
    let words: Vec<&str> = date
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|word| !word.is_empty())
        .collect();
    let [day, month, year] = words.as_slice() else {
        return None;
    };
    let day: u32 = day.parse().ok()?;
    let year: i32 = year.parse().ok()?;
    let date = NaiveDate::from_ymd_opt(year, month_number(month)?, day)?;
    Some(date.and_time(time))
}

/// A time as the ISO-8601 the engine takes (`2023-05-08T13:56:00Z`).
pub fn iso(time: &NaiveDateTime) -> String {
    time.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// One turn of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    /// Its dialogue id, when it has a well-formed one.
    pub dia_id: Option<TurnId>,
    /// Who spoke.
    pub speaker: String,
    /// What was said, with ` [shared image: …]` appended when the turn
    /// shared an image that has a caption.
    pub text: String,
}

/// One dated session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// `N` of `session_N`.
    pub number: u32,
    /// When it took place.
    pub date: NaiveDateTime,
    /// Its turns, in order.
    pub turns: Vec<Turn>,
}

/// One question about a sample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    /// Its position in the sample's `qa` list (0-based).
    pub index: usize,
    /// The question.
    pub question: String,
    /// Its category (LoCoMo: 1 multi-hop, 2 temporal, 3 open-domain,
    /// 4 single-hop, 5 adversarial).
    pub category: u32,
    /// The evidence strings as given (see [`split_evidence`]).
    pub evidence: Vec<String>,
}

/// What a question's evidence resolves to in its sample.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Evidence {
    /// Well-formed ids of turns that exist.
    pub valid: BTreeSet<TurnId>,
    /// Pieces that are not `D<session>:<turn>`.
    pub malformed: Vec<String>,
    /// Well-formed ids naming turns the sample does not have.
    pub missing: Vec<TurnId>,
}

/// One conversation with its questions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    /// `sample_id`, or `#<position>` when it has none.
    pub id: String,
    /// Its sessions, by number.
    pub sessions: Vec<Session>,
    /// Its questions.
    pub questions: Vec<Question>,
}

impl Sample {
    /// Every dialogue id of the sample's turns.
    pub fn turn_ids(&self) -> BTreeSet<TurnId> {
        self.sessions
            .iter()
            .flat_map(|session| session.turns.iter().filter_map(|turn| turn.dia_id))
            .collect()
    }

    /// How many turns the sample has.
    pub fn turn_count(&self) -> usize {
        self.sessions
            .iter()
            .map(|session| session.turns.len())
            .sum()
    }

    /// How many of its questions fall in `categories`.
    pub fn questions_in(&self, categories: &BTreeSet<u32>) -> usize {
        self.questions
            .iter()
            .filter(|question| categories.contains(&question.category))
            .count()
    }

    /// Resolve a question's evidence against `turn_ids` (see
    /// [`Sample::turn_ids`]).
    pub fn evidence(question: &Question, turn_ids: &BTreeSet<TurnId>) -> Evidence {
        let mut evidence = Evidence::default();
        for text in &question.evidence {
            for piece in split_evidence(text) {
                match parse_dia_id(piece) {
                    Some(id) if turn_ids.contains(&id) => {
                        evidence.valid.insert(id);
                    }
                    Some(id) => evidence.missing.push(id),
                    None => evidence.malformed.push(piece.to_string()),
                }
            }
            if split_evidence(text).is_empty() {
                evidence.malformed.push(text.clone());
            }
        }
        evidence
    }

    /// The time just after the conversation: its last session's date plus
    /// one day (what "now" is when its questions are asked).
    pub fn asked_at(&self) -> Option<NaiveDateTime> {
        self.sessions
            .iter()
            .map(|session| session.date)
            .max()
            .map(|last| last + chrono::Duration::days(1))
    }
}

/// A data set: the samples that could be read, and what could not.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dataset {
    /// The samples, in file order.
    pub samples: Vec<Sample>,
    /// Each item left out (or suspicious), with where and why.
    pub problems: Vec<String>,
}

impl Dataset {
    /// Read a data set file.
    pub fn load(path: &Path) -> Result<Dataset, EvalError> {
        let text = std::fs::read_to_string(path).map_err(|source| EvalError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let json: Json = serde_json::from_str(&text).map_err(|source| EvalError::Json {
            path: path.to_path_buf(),
            source,
        })?;
        Dataset::from_json(&json).map_err(|why| EvalError::Shape {
            path: path.to_path_buf(),
            why,
        })
    }

    /// Read a data set from parsed JSON; `Err` only when the top level is
    /// not a list (everything below it is reported and skipped instead).
    pub fn from_json(json: &Json) -> Result<Dataset, String> {
        let Json::Array(items) = json else {
            return Err(format!(
                "expected a list of samples at the top level, found {}",
                kind(json)
            ));
        };
        let mut dataset = Dataset::default();
        for (position, item) in items.iter().enumerate() {
            if let Some(sample) = read_sample(position, item, &mut dataset.problems) {
                dataset.samples.push(sample);
            }
        }
        Ok(dataset)
    }
}

/// A JSON value's kind, for messages.
fn kind(json: &Json) -> &'static str {
    match json {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "a list",
        Json::Object(_) => "an object",
    }
}

/// `session_N` → `N` (only that exact shape).
fn session_number(key: &str) -> Option<u32> {
    let digits = key.strip_prefix("session_")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

fn read_sample(position: usize, item: &Json, problems: &mut Vec<String>) -> Option<Sample> {
    let Json::Object(object) = item else {
        problems.push(format!(
            "sample #{position}: expected an object, found {}; skipped",
            kind(item)
        ));
        return None;
    };
    let id = match object.get("sample_id") {
        Some(Json::String(id)) => id.clone(),
        Some(Json::Number(n)) => n.to_string(),
        _ => format!("#{position}"),
    };
    let Some(Json::Object(conversation)) = object.get("conversation") else {
        problems.push(format!("sample {id}: no `conversation` object; skipped"));
        return None;
    };
    let mut lists: BTreeMap<u32, &Vec<Json>> = BTreeMap::new();
    for (key, value) in conversation {
        let Some(number) = session_number(key) else {
            continue;
        };
        match value {
            Json::Array(turns) => {
                lists.insert(number, turns);
            }
            other => problems.push(format!(
                "sample {id}: `{key}` should be a list of turns, found {}; session skipped",
                kind(other)
            )),
        }
    }
    let mut sessions = Vec::new();
    for (number, turns) in lists {
        let date_key = format!("session_{number}_date_time");
        let date = match conversation.get(&date_key) {
            Some(Json::String(text)) => match parse_session_date(text) {
                Some(date) => date,
                None => {
                    problems.push(format!(
                        "sample {id}: `{date_key}` {text:?} is not a time like \"1:56 pm on 8 May, 2023\"; session skipped"
                    ));
                    continue;
                }
            },
            _ => {
                problems.push(format!(
                    "sample {id}: session {number} has no `{date_key}` string; session skipped"
                ));
                continue;
            }
        };
        let mut session = Session {
            number,
            date,
            turns: Vec::new(),
        };
        for (index, turn) in turns.iter().enumerate() {
            if let Some(turn) = read_turn(&id, number, index, turn, problems) {
                session.turns.push(turn);
            }
        }
        sessions.push(session);
    }
    if sessions.is_empty() {
        problems.push(format!("sample {id}: no usable `session_N` lists; skipped"));
        return None;
    }
    let questions = match object.get("qa") {
        Some(Json::Array(items)) => items
            .iter()
            .enumerate()
            .filter_map(|(index, item)| read_question(&id, index, item, problems))
            .collect(),
        None => {
            problems.push(format!("sample {id}: no `qa` list (no questions)"));
            Vec::new()
        }
        Some(other) => {
            problems.push(format!(
                "sample {id}: `qa` should be a list, found {}; no questions",
                kind(other)
            ));
            Vec::new()
        }
    };
    Some(Sample {
        id,
        sessions,
        questions,
    })
}

fn read_turn(
    sample: &str,
    session: u32,
    index: usize,
    item: &Json,
    problems: &mut Vec<String>,
) -> Option<Turn> {
    let place = format!("sample {sample}, session {session}, turn #{}", index + 1);
    let Json::Object(object) = item else {
        problems.push(format!(
            "{place}: expected an object, found {}; skipped",
            kind(item)
        ));
        return None;
    };
    let Some(Json::String(speaker)) = object.get("speaker") else {
        problems.push(format!("{place}: no `speaker` string; skipped"));
        return None;
    };
    let Some(Json::String(text)) = object.get("text") else {
        problems.push(format!("{place}: no `text` string; skipped"));
        return None;
    };
    let dia_id = match object.get("dia_id") {
        Some(Json::String(raw)) => {
            let parsed = parse_dia_id(raw);
            match parsed {
                None => problems.push(format!(
                    "{place}: dia_id {raw:?} is not D<session>:<turn>; the turn cannot be evidence"
                )),
                Some(id) if id.session != session => problems.push(format!(
                    "{place}: dia_id {raw:?} names session {} but the turn is in session {session}",
                    id.session
                )),
                Some(_) => {}
            }
            parsed
        }
        _ => {
            problems.push(format!(
                "{place}: no `dia_id` string; the turn cannot be evidence"
            ));
            None
        }
    };
    let mut text = text.clone();
    if let Some(Json::String(caption)) = object.get("blip_caption")
        && !caption.trim().is_empty()
    {
        text.push_str(&format!(" [shared image: {}]", caption.trim()));
    }
    Some(Turn {
        dia_id,
        speaker: speaker.clone(),
        text,
    })
}

fn read_question(
    sample: &str,
    index: usize,
    item: &Json,
    problems: &mut Vec<String>,
) -> Option<Question> {
    let place = format!("sample {sample}, question #{}", index + 1);
    let Json::Object(object) = item else {
        problems.push(format!(
            "{place}: expected an object, found {}; skipped",
            kind(item)
        ));
        return None;
    };
    let question = match object.get("question") {
        Some(Json::String(text)) if !text.trim().is_empty() => text.clone(),
        _ => {
            problems.push(format!("{place}: no `question` text; skipped"));
            return None;
        }
    };
    let category = match object.get("category").and_then(Json::as_u64) {
        Some(category) => match u32::try_from(category) {
            Ok(category) => category,
            Err(_) => {
                problems.push(format!(
                    "{place}: category {category} is out of range; skipped"
                ));
                return None;
            }
        },
        None => {
            problems.push(format!("{place}: no integer `category`; skipped"));
            return None;
        }
    };
    let evidence = match object.get("evidence") {
        None | Some(Json::Null) => Vec::new(),
        Some(Json::Array(items)) => items
            .iter()
            .filter_map(|item| match item {
                Json::String(text) => Some(text.clone()),
                other => {
                    problems.push(format!(
                        "{place}: an evidence item is {}, not a string; ignored",
                        kind(other)
                    ));
                    None
                }
            })
            .collect(),
        Some(Json::String(text)) => vec![text.clone()],
        Some(other) => {
            problems.push(format!(
                "{place}: `evidence` should be a list, found {}; no evidence",
                kind(other)
            ));
            Vec::new()
        }
    };
    Some(Question {
        index,
        question,
        category,
        evidence,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn id(session: u32, turn: u32) -> TurnId {
        TurnId { session, turn }
    }

    #[test]
    fn session_dates_become_iso() {
        let cases = [
            ("1:56 pm on 8 May, 2023", "2023-05-08T13:56:00Z"),
            ("10:37 am on 27 June, 2023", "2023-06-27T10:37:00Z"),
            ("12:00 am on 1 January, 2024", "2024-01-01T00:00:00Z"),
            ("12:30 pm on 29 February, 2024", "2024-02-29T12:30:00Z"),
            ("  9:05 PM on 3 Sep 2023 ", "2023-09-03T21:05:00Z"),
            ("7:00 am on 31 december, 2022", "2022-12-31T07:00:00Z"),
        ];
        for (text, expected) in cases {
            let parsed = parse_session_date(text);
            assert_eq!(parsed.map(|t| iso(&t)).as_deref(), Some(expected), "{text}");
        }
    }

    #[test]
    fn bad_session_dates_are_refused() {
        for text in [
            "",
            "8 May, 2023",
            "13:56 pm on 8 May, 2023",
            "0:10 am on 8 May, 2023",
            "1:61 pm on 8 May, 2023",
            "1:56 on 8 May, 2023",
            "1:56 pm on 31 April, 2023",
            "1:56 pm on 8 Mayo, 2023",
            "1:56 pm on May 8",
            "1:56 pm on 8 May, 2023, extra",
        ] {
            assert_eq!(parse_session_date(text), None, "{text:?}");
        }
    }

    #[test]
    fn dialogue_ids_parse_strictly() {
        assert_eq!(parse_dia_id("D1:3"), Some(id(1, 3)));
        assert_eq!(parse_dia_id(" D30:05 "), Some(id(30, 5)));
        for bad in [
            "D", "D:11:26", "1:3", "D1-3", "D1:", "D:3", "d1:3", "D1:3a", "D1:+3",
        ] {
            assert_eq!(parse_dia_id(bad), None, "{bad:?}");
        }
        assert_eq!(id(4, 7).to_string(), "D4:7");
    }

    #[test]
    fn evidence_strings_are_split() {
        assert_eq!(split_evidence("D8:6; D9:17"), ["D8:6", "D9:17"]);
        assert_eq!(split_evidence("D9:1 D4:4,D4:6"), ["D9:1", "D4:4", "D4:6"]);
        assert!(split_evidence(" ; ").is_empty());
    }

    /// A tiny data set in LoCoMo's shape, with one of each wart.
    fn fixture() -> Json {
        json!([
            {
                "sample_id": "tiny-1",
                "conversation": {
                    "speaker_a": "Ann", "speaker_b": "Bo",
                    "session_1_date_time": "1:56 pm on 8 May, 2023",
                    "session_1": [
                        {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a dog."},
                        {"speaker": "Bo", "dia_id": "D1:2", "text": "Nice!",
                         "img_url": ["http://x"], "blip_caption": "a photo of a puppy"},
                        {"speaker": "Bo", "text": 7}
                    ],
                    "session_2_date_time": "10:00 am on 20 May, 2023",
                    "session_2": [
                        {"speaker": "Bo", "dia_id": "D2:1", "text": "I start pottery classes."}
                    ],
                    // A date with no session list (the published file has these).
                    "session_3_date_time": "10:00 am on 1 June, 2023",
                    // A session list with no date.
                    "session_4": [{"speaker": "Ann", "dia_id": "D4:1", "text": "lost"}]
                },
                "qa": [
                    {"question": "What pet did Ann adopt?", "answer": "a dog",
                     "evidence": ["D1:1"], "category": 4},
                    {"question": "What do they do?", "answer": "x",
                     "evidence": ["D1:1; D2:01", "D", "D9:9"], "category": 1},
                    {"question": "No evidence?", "answer": "x", "category": 3},
                    {"question": "", "category": 2},
                    {"question": "No category", "evidence": []},
                    "not an object"
                ]
            },
            {"sample_id": "broken", "qa": []},
            42,
            {
                "conversation": {
                    "session_1_date_time": "soon",
                    "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]
                }
            }
        ])
    }

    #[test]
    fn the_fixture_is_read_with_its_warts_reported() {
        let dataset = Dataset::from_json(&fixture()).unwrap();
        assert_eq!(dataset.samples.len(), 1, "{:#?}", dataset.problems);
        let sample = &dataset.samples[0];
        assert_eq!(sample.id, "tiny-1");
        assert_eq!(
            sample.sessions.iter().map(|s| s.number).collect::<Vec<_>>(),
            [1, 2]
        );
        let first = &sample.sessions[0];
        assert_eq!(iso(&first.date), "2023-05-08T13:56:00Z");
        assert_eq!(first.turns.len(), 2);
        assert_eq!(first.turns[0].dia_id, Some(id(1, 1)));
        assert_eq!(
            first.turns[1].text,
            "Nice! [shared image: a photo of a puppy]"
        );
        assert_eq!(sample.turn_count(), 3);
        assert_eq!(
            sample.asked_at().map(|t| iso(&t)).as_deref(),
            Some("2023-05-21T10:00:00Z")
        );

        assert_eq!(
            sample
                .questions
                .iter()
                .map(|q| (q.index, q.category))
                .collect::<Vec<_>>(),
            [(0, 4), (1, 1), (2, 3)]
        );
        let ids = sample.turn_ids();
        let evidence = Sample::evidence(&sample.questions[1], &ids);
        assert_eq!(evidence.valid, BTreeSet::from([id(1, 1), id(2, 1)]));
        assert_eq!(evidence.malformed, ["D"]);
        assert_eq!(evidence.missing, [id(9, 9)]);
        assert!(
            Sample::evidence(&sample.questions[2], &ids)
                .valid
                .is_empty()
        );

        let problems = dataset.problems.join("\n");
        for expected in [
            "sample tiny-1, session 1, turn #3: no `text` string",
            "sample tiny-1: session 4 has no `session_4_date_time`",
            "sample tiny-1, question #4: no `question` text",
            "sample tiny-1, question #5: no integer `category`",
            "sample tiny-1, question #6: expected an object",
            "sample broken: no `conversation` object",
            "sample #2: expected an object, found a number",
            "sample #3: `session_1_date_time` \"soon\" is not a time",
            "sample #3: no usable `session_N` lists",
        ] {
            assert!(
                problems.contains(expected),
                "missing {expected:?} in\n{problems}"
            );
        }
    }

    #[test]
    fn a_top_level_that_is_not_a_list_is_an_error() {
        let error = Dataset::from_json(&json!({"samples": []})).unwrap_err();
        assert!(error.contains("expected a list of samples"), "{error}");
    }
}
