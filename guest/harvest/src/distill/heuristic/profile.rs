//! Profile statements: what the user says about themselves.
//!
//! A profile statement is a user sentence that describes the person: their
//! name, job, workplace, home, health, family and pets, age, studies and
//! languages. Each rule below is a first-person phrase ("I live in", "I'm
//! allergic to", "my daughter") read case-insensitively, on a sentence that
//! *states* something (not a question, a conditional, or a request to the
//! assistant such as "Write a poem for my wife": see the guards in the
//! parent module). Negations and wishes do not match because the rules need
//! the verb right after the pronoun: "I don't work at Acme" and "I want to
//! live in Paris" say nothing about where the user works or lives.
//!
//! | kind | cues | importance | confidence |
//! |---|---|---|---:|
//! | name | "my name is", "call me", "I go by", "everyone calls me" + a capitalised name | important | 0.9 |
//! | occupation | "I'm a/an … nurse/engineer/…" (an occupation noun within three words), "I work as", "my job is" | important | 0.8 |
//! | workplace | "I work at/for/in", "I'm working at", "I joined", "I started at" | important | 0.8 |
//! | home | "I live in", "I'm based in", "I moved to", "I'm from", "I grew up in" | important | 0.8 |
//! | allergy / diet | "I'm allergic to", "I have a … allergy", "I'm vegan/lactose intolerant", "I can't eat" | **critical** | 0.8 |
//! | health | "I have/was diagnosed with/suffer from" + a listed condition | important | 0.8 |
//! | family and pets | "my wife/son/daughter/dog …", "I have two cats", "I'm married" | important | 0.7 |
//! | age | "I'm 34 (years old)", "I turned 40" | important | 0.8 |
//! | studies and languages | "I study", "I graduated from", "I have a degree", "I speak", "I'm learning X" | important | 0.8 |
//!
//! Why these numbers: a profile statement shapes every later answer the way
//! a preference does, so it is `important` like the write-back
//! preferences; an allergy or a diet restriction is the one thing about a
//! person an assistant must never get wrong (a recipe with peanuts), so it
//! is `critical`. A name after "my name is" is as explicit as language gets
//! (0.9); the other rules read a fixed first-person phrase but can still
//! catch reported speech or irony (0.8); "my daughter …" is only a mention,
//! often incidental to the request around it (0.7).

use std::sync::LazyLock;

use hive_mind_core::entity::COMMON_TITLE_WORDS;
use hive_mind_core::types::Importance;
use regex::Regex;

/// What a profile statement is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProfileKind {
    Name,
    Occupation,
    Workplace,
    Home,
    Allergy,
    Health,
    Family,
    Age,
    Studies,
}

impl ProfileKind {
    /// The importance of a statement of this kind (see the module docs).
    pub(crate) fn importance(self) -> Importance {
        match self {
            ProfileKind::Allergy => Importance::Critical,
            _ => Importance::Important,
        }
    }

    /// The confidence of a statement of this kind (see the module docs).
    pub(crate) fn confidence(self) -> f32 {
        match self {
            ProfileKind::Name => 0.9,
            ProfileKind::Family => 0.7,
            _ => 0.8,
        }
    }
}

/// Occupation nouns: "I'm a …" is an occupation only with one of these
/// (plurals are not needed: "I'm a" takes the singular).
const OCCUPATIONS: &str = "nurse|doctor|physician|surgeon|dentist|pharmacist|therapist|psychologist|psychiatrist|paramedic|midwife|caregiver|carer|veterinarian|vet|teacher|professor|lecturer|tutor|student|undergrad|postdoc|researcher|scientist|engineer|developer|programmer|coder|designer|architect|analyst|consultant|manager|director|founder|co-founder|ceo|cto|cfo|executive|entrepreneur|freelancer|contractor|intern|administrator|admin|technician|lawyer|attorney|paralegal|judge|accountant|bookkeeper|economist|banker|trader|investor|realtor|writer|author|journalist|editor|translator|interpreter|artist|illustrator|animator|musician|composer|photographer|filmmaker|actor|actress|chef|cook|baker|barista|waiter|waitress|bartender|cashier|clerk|secretary|receptionist|farmer|gardener|electrician|plumber|mechanic|carpenter|builder|welder|pilot|driver|firefighter|officer|soldier|police\\s+officer|librarian|marketer|recruiter|salesperson|coach|trainer|nanny|pastor|priest|mom|mum|dad|parent|homemaker|retiree";

/// Words that may not sit between "a" and the occupation noun: "I'm a big
/// fan of developers" is not an occupation.
const OCCUPATION_FILLER_VETO: &[&str] = &[
    "of", "for", "with", "to", "like", "at", "in", "on", "about", "than", "who", "that", "fan",
    "bit", "lot", "friend", "kind", "sort",
];

/// Listed medical conditions after "I have", "I suffer from", …
const CONDITIONS: &str = r"(?:type\s+[12]\s+)?diabetes|asthma|adhd|add|autism|epilepsy|celiac(?:\s+disease)?|coeliac(?:\s+disease)?|crohn's(?:\s+disease)?|ibs|migraines?|arthritis|depression|anxiety|ptsd|ocd|bipolar(?:\s+disorder)?|hypertension|high\s+blood\s+pressure|a\s+heart\s+condition|dyslexia|tinnitus|insomnia|long\s+covid|cancer|lupus|multiple\s+sclerosis|ms\b|hypothyroidism|a\s+disability";

/// Family members and pets after "my".
const FAMILY: &str = "wife|husband|partner|spouse|fianc[eé]e?|girlfriend|boyfriend|sons?|daughters?|kids|children|child|baby|babies|toddler|mother|mom|mum|father|dad|parents|brothers?|sisters?|siblings|grandmother|grandma|grandfather|grandpa|grandparents|grandchildren|grandkids|aunt|uncle|cousin|niece|nephew|in-laws|dogs?|cats?|puppy|kitten|pets?|horse|rabbit|parrot";

/// The name a "my name is" statement gives: one to three capitalised
/// words, read case-sensitively after a case-insensitive cue.
static NAME: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?:(?i:\bmy\s+name(?:\s+is|'s|’s)|\bcall\s+me|\bi\s+go\s+by|\bi\s+prefer\s+to\s+be\s+called|\beveryone\s+calls\s+me|\bpeople\s+call\s+me))\s+(\p{Lu}[\p{L}'’\-]*(?:\s+\p{Lu}[\p{L}'’\-]*){0,2})",
    )
    .ok()
});

/// The occupation rule, with the filler words captured for the veto.
static OCCUPATION: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)\bi(?:'m|’m|\s+am)\s+(?:currently\s+|now\s+|also\s+|still\s+|actually\s+|just\s+)?(?:a|an)\s+((?:[\p{{L}}\-]+\s+){{0,3}}?)(?:{OCCUPATIONS})\b"
    ))
    .ok()
});

/// The other rules, by kind, case-insensitive.
static RULES: LazyLock<Vec<(ProfileKind, Regex)>> = LazyLock::new(|| {
    let rules: Vec<(ProfileKind, String)> = vec![
        (
            ProfileKind::Occupation,
            r"\bi\s+(?:currently\s+|now\s+|still\s+)?work(?:ed)?\s+as\s+(?:a|an)\b|\bmy\s+(?:job|profession|occupation|day\s+job)\s+is\b|\bi(?:'m|\s+am)\s+(?:self-employed|retired|unemployed|freelancing|a\s+freelance\s+\w+)".to_string(),
        ),
        (
            ProfileKind::Workplace,
            r"\bi\s+(?:currently\s+|now\s+|still\s+)?work\s+(?:at|for|in|on)\b|\bi(?:'m|\s+am)\s+(?:currently\s+|now\s+)?(?:working|employed)\s+(?:at|for|in|as)\b|\bi\s+(?:just\s+|recently\s+)?(?:joined|started\s+(?:at|working\s+at)|got\s+a\s+job\s+(?:at|with))\s+\p{L}".to_string(),
        ),
        (
            ProfileKind::Home,
            r"\bi\s+(?:currently\s+|now\s+|still\s+)?(?:live|reside)\s+(?:in|near|on|outside)\b|\bi(?:'m|\s+am)\s+(?:currently\s+|now\s+)?(?:based|living|located)\s+(?:in|near|outside)\b|\bi\s+(?:just\s+|recently\s+)?moved\s+to\b|\bi(?:'m|\s+am)\s+(?:originally\s+)?from\s+\p{L}|\bi\s+grew\s+up\s+in\b|\bmy\s+home\s*town\s+is\b".to_string(),
        ),
        (
            ProfileKind::Allergy,
            r"\bi(?:'m|\s+am)\s+(?:severely\s+|very\s+|mildly\s+|highly\s+|deathly\s+)?allergic\s+to\b|\bi\s+have\s+(?:an?\s+|severe\s+|a\s+severe\s+)?(?:[\p{L}\-]+\s+)?allerg(?:y|ies)\b|\bi(?:'m|\s+am)\s+(?:a\s+)?(?:vegan|vegetarian|pescatarian|lactose[\s-]intolerant|gluten[\s-]intolerant|gluten[\s-]free|celiac|coeliac|diabetic|kosher|halal)\b|\bi\s+(?:can't|cannot|can\s+not|don't|do\s+not)\s+(?:eat|drink|have)\s+(?:any\s+)?(?:nuts|peanuts|gluten|dairy|lactose|shellfish|fish|eggs|meat|pork|beef|alcohol|soy|wheat|sugar)\b".to_string(),
        ),
        (
            ProfileKind::Health,
            format!(
                r"\bi\s+(?:have|was\s+diagnosed\s+with|got\s+diagnosed\s+with|suffer\s+from|live\s+with|am\s+being\s+treated\s+for)\s+(?:{CONDITIONS})\b|\bi(?:'m|\s+am)\s+(?:pregnant|deaf|blind|hard\s+of\s+hearing|colou?r[\s-]blind|on\s+medication)\b"
            ),
        ),
        (
            ProfileKind::Family,
            format!(
                r"\bmy\s+(?:(?:little|older|younger|eldest|oldest|youngest|twin|baby|new|two|three|four|\d+|step|\d+-year-old|teenage)[\s-]+)?(?:{FAMILY})\b|\bi\s+have\s+(?:a|an|one|two|three|four|five|six|\d+)\s+(?:(?:little|young|small|teenage|grown|adult|older|younger)\s+)?(?:kids?|children|child|sons?|daughters?|dogs?|cats?|pets?|brothers?|sisters?|siblings|grandchildren|grandkids|twins)\b|\bi(?:'m|\s+am)\s+(?:happily\s+)?(?:married|divorced|engaged|widowed|a\s+(?:single\s+)?(?:mom|mum|dad|father|mother|parent|grandparent|grandmother|grandfather))\b"
            ),
        ),
        (
            ProfileKind::Age,
            r"\bi(?:'m|\s+am)\s+\d{1,2}\s*(?:years?\s+old|yo|y/o|(?:[,.!;]|$))|\bi\s+(?:just\s+)?turned\s+\d{1,2}\b".to_string(),
        ),
        (
            ProfileKind::Studies,
            r"\bi\s+(?:study|studied|majored\s+in|minored\s+in|graduated\s+(?:from|in)|have\s+an?\s+(?:degree|phd|ph\.d|master's|masters|bachelor's|bachelors|mba)|speak)\b|\bi(?:'m|\s+am)\s+(?:currently\s+)?(?:studying|majoring\s+in|doing\s+(?:a|my)\s+(?:phd|masters?|degree|bachelor's))\b|\bi(?:'m|\s+am)\s+(?:currently\s+)?learning\s+\p{L}".to_string(),
        ),
    ];
    rules
        .into_iter()
        .filter_map(|(kind, pattern)| {
            Regex::new(&format!("(?i){pattern}"))
                .ok()
                .map(|re| (kind, re))
        })
        .collect()
});

/// The user's name a sentence states ("My name is Sam Taylor" → "Sam
/// Taylor"), if it states one.
pub(crate) fn stated_name(sentence: &str) -> Option<String> {
    let captures = NAME.as_ref()?.captures(sentence)?;
    let words: Vec<&str> = captures
        .get(1)?
        .as_str()
        .split_whitespace()
        .take_while(|word| {
            let lower = word.trim_end_matches(['\'', '’', '-']).to_lowercase();
            !COMMON_TITLE_WORDS.contains(&lower.as_str()) && lower != "i"
        })
        .collect();
    if words.is_empty() {
        return None;
    }
    Some(words.join(" "))
}

/// The kind of profile statement a (statement) sentence is, if any. The
/// caller has already checked that the sentence states something.
pub(crate) fn profile_kind(sentence: &str) -> Option<ProfileKind> {
    if stated_name(sentence).is_some() {
        return Some(ProfileKind::Name);
    }
    let probe: String = sentence
        .chars()
        .map(|c| if c == '’' { '\'' } else { c })
        .collect();
    if let Some(captures) = OCCUPATION.as_ref().and_then(|re| re.captures(&probe)) {
        let filler = captures.get(1).map_or("", |m| m.as_str()).to_lowercase();
        if !filler
            .split_whitespace()
            .any(|word| OCCUPATION_FILLER_VETO.contains(&word))
        {
            return Some(ProfileKind::Occupation);
        }
    }
    RULES
        .iter()
        .find(|(_, re)| re.is_match(&probe))
        .map(|(kind, _)| *kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_compiles() {
        assert!(NAME.is_some());
        assert!(OCCUPATION.is_some());
        assert_eq!(RULES.len(), 8);
    }

    #[test]
    fn reads_names() {
        assert_eq!(
            stated_name("My name is Sam Taylor."),
            Some("Sam Taylor".into())
        );
        assert_eq!(stated_name("Please call me Jo, thanks"), Some("Jo".into()));
        assert_eq!(stated_name("my name is not important"), None);
        assert_eq!(stated_name("Call me tomorrow"), None);
        assert_eq!(stated_name("My name is Monday"), None);
    }

    #[test]
    fn kinds() {
        let cases = [
            ("I'm a nurse at St Mary's.", Some(ProfileKind::Occupation)),
            (
                "I am a senior backend engineer.",
                Some(ProfileKind::Occupation),
            ),
            ("I'm a big fan of developers.", None),
            ("I'm a bit tired.", None),
            ("I live in Lisbon.", Some(ProfileKind::Home)),
            ("I don't live in Lisbon any more.", None),
            ("I work at Acme Corp.", Some(ProfileKind::Workplace)),
            ("I’m allergic to peanuts.", Some(ProfileKind::Allergy)),
            ("I have two cats.", Some(ProfileKind::Family)),
            (
                "My daughter starts school in May.",
                Some(ProfileKind::Family),
            ),
            ("I'm 34 years old.", Some(ProfileKind::Age)),
            ("I'm 5 minutes away.", None),
            (
                "I was diagnosed with type 2 diabetes.",
                Some(ProfileKind::Health),
            ),
            (
                "I speak Portuguese and English.",
                Some(ProfileKind::Studies),
            ),
            ("I want to live in Paris.", None),
        ];
        for (sentence, expected) in cases {
            assert_eq!(profile_kind(sentence), expected, "{sentence}");
        }
    }
}
