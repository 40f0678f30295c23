//! Bearer tokens for `hive-mind serve`: who may call, what they may do and
//! which minds they may touch.
//!
//! `hive-mind token create` makes a token (`hm_` and 64 hex digits: 256
//! random bits), prints it once and stores only its SHA-256, with a name,
//! its [`Scope`]s and its minds, in `<data-dir>/server/tokens.json` (mode
//! 0600 on Unix). `hive-mind token revoke` marks it revoked; the server
//! reads the file again whenever it changes, so a revocation holds from the
//! next request without a restart. A request's token is hashed and compared
//! with every stored hash in constant time.
//!
//! A [`Grant`] is what a valid token allows: its scopes (`write` implies
//! `read`, `admin` implies both) and its minds (`personal`,
//! `workspace:<id>`, or `*` for every mind, present and future). Two agents
//! with tokens for different minds on one server see only their own.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// What a token may do. Each scope includes the ones before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// Search, list, read memories, the graph, sessions, stats.
    Read,
    /// Also save, correct, archive, merge, import, edit identity and
    /// awareness.
    Write,
    /// Also forget for real, export a whole mind, review flagged memories.
    Admin,
}

impl Scope {
    /// Every scope's name, for messages.
    pub const NAMES: [&'static str; 3] = ["read", "write", "admin"];

    /// A scope by name.
    pub fn from_name(name: &str) -> Result<Scope, String> {
        match name.trim() {
            "read" => Ok(Scope::Read),
            "write" => Ok(Scope::Write),
            "admin" => Ok(Scope::Admin),
            other => Err(format!(
                "unknown scope {other:?}; expected one of: {}",
                Scope::NAMES.join(", ")
            )),
        }
    }

    /// The scope's name.
    pub fn name(self) -> &'static str {
        match self {
            Scope::Read => "read",
            Scope::Write => "write",
            Scope::Admin => "admin",
        }
    }
}

/// The minds a token reaches: `*` (all) or a list of mind names.
pub const ALL_MINDS: &str = "*";

/// One stored token (its hash, never the token).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoredToken {
    /// The name its owner gave it (unique).
    pub name: String,
    /// SHA-256 of the token, hex.
    pub sha256: String,
    /// The most it may do.
    pub scope: Scope,
    /// The minds it reaches: `personal`, `workspace:<id>`, or `*`.
    pub minds: Vec<String>,
    /// When it was made (Unix seconds).
    pub created: u64,
    /// When it was revoked (Unix seconds), if it was.
    pub revoked: Option<u64>,
}

/// What a request's token allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// The token's name (for logs; `local` when authentication is off).
    pub name: String,
    /// The most it may do.
    pub scope: Scope,
    /// The minds it reaches (`*` for all).
    pub minds: Vec<String>,
}

impl Grant {
    /// Everything, for a loopback server its owner started without tokens.
    pub fn unrestricted() -> Grant {
        Grant {
            name: "local".to_string(),
            scope: Scope::Admin,
            minds: vec![ALL_MINDS.to_string()],
        }
    }

    /// Whether it reaches every mind.
    pub fn all_minds(&self) -> bool {
        self.minds.iter().any(|mind| mind == ALL_MINDS)
    }

    /// Whether it reaches the mind named `mind` (`personal`,
    /// `workspace:<id>`).
    pub fn reaches(&self, mind: &str) -> bool {
        self.all_minds() || self.minds.iter().any(|granted| granted == mind)
    }

    /// Refuse `needed` beyond the token's scope, or a mind it does not
    /// reach: the reason, for a 403.
    pub fn require(&self, needed: Scope, minds: &[String]) -> Result<(), String> {
        if needed > self.scope {
            return Err(format!(
                "the token {:?} has the {} scope; this needs {}",
                self.name,
                self.scope.name(),
                needed.name()
            ));
        }
        if let Some(mind) = minds.iter().find(|mind| !self.reaches(mind)) {
            return Err(format!(
                "the token {:?} is not granted the mind {mind:?}",
                self.name
            ));
        }
        Ok(())
    }
}

/// The minds a recall reaches, by name, for a grant to check: with no
/// workspace (`workspace` is its mind's name) or `scope` personal, the
/// personal mind; with `scope` current, the workspace alone; else both.
pub fn recall_minds(workspace: Option<String>, scope: Option<&str>) -> Vec<String> {
    match (workspace, scope) {
        (None, _) | (_, Some("personal")) => vec!["personal".to_string()],
        (Some(mind), Some("current")) => vec![mind],
        (Some(mind), _) => vec![mind, "personal".to_string()],
    }
}

/// A token file's failure.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    /// Reading or writing the file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a token list.
    #[error("{path} is not a token list: {why}")]
    Malformed {
        /// The file.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// A bad argument (name, scope, mind).
    #[error("{0}")]
    Argument(String),
    /// No random bytes.
    #[error("no random bytes for a token: {0}")]
    Random(String),
}

/// The token file of a data directory.
pub fn tokens_path(data_dir: &Path) -> PathBuf {
    data_dir.join("server").join("tokens.json")
}

/// SHA-256 of a token, hex.
pub fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// Equal, in time that does not depend on where they differ.
fn same_hash(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |diff, (x, y)| diff | (x ^ y))
            == 0
}

fn now_seconds() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_secs())
        .unwrap_or(0)
}

/// Read the token list (empty when the file does not exist).
pub fn read_tokens(path: &Path) -> Result<Vec<StoredToken>, TokenError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(TokenError::Io {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    serde_json::from_str(&text).map_err(|error| TokenError::Malformed {
        path: path.to_path_buf(),
        why: error.to_string(),
    })
}

/// Write the token list ([`write_private`]).
fn write_tokens(path: &Path, tokens: &[StoredToken]) -> Result<(), TokenError> {
    let text = serde_json::to_string_pretty(tokens).map_err(|error| TokenError::Malformed {
        path: path.to_path_buf(),
        why: error.to_string(),
    })?;
    write_private(path, text.as_bytes()).map_err(|source| TokenError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Write a file readable by its owner only, atomically (a temporary
/// file, synced, renamed over `path`): the token list, the hooks' token,
/// the server's announcement.
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    if let Some(dir) = path.parent() {
        // Owner-only like the rest of the data directory (`server/`).
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            builder.mode(0o700);
        }
        builder.create(dir)?;
    }
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".tmp");
    let temporary = PathBuf::from(temporary);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(&temporary)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    std::fs::rename(&temporary, path)
}

/// A mind name as a token grants it: `personal`, `workspace:<id>` or `*`.
pub fn mind_grant(name: &str) -> Result<String, TokenError> {
    let name = name.trim();
    if name == ALL_MINDS || name == "personal" {
        return Ok(name.to_string());
    }
    match name.strip_prefix("workspace:") {
        Some(id) => hive_mind_runtime::engine::convert::workspace(id)
            .map(|_| name.to_string())
            .map_err(TokenError::Argument),
        None => Err(TokenError::Argument(format!(
            "unknown mind {name:?}; expected personal, workspace:<id> or * (every mind)"
        ))),
    }
}

/// Make a token: stored hashed under `name`; the token itself is returned
/// once and kept nowhere.
pub fn create_token(
    path: &Path,
    name: &str,
    scope: Scope,
    minds: &[String],
) -> Result<String, TokenError> {
    let name = name.trim();
    if name.is_empty() || name.len() > 64 || name.chars().any(char::is_control) {
        return Err(TokenError::Argument(
            "a token's name is 1 to 64 printable characters".to_string(),
        ));
    }
    if minds.is_empty() {
        return Err(TokenError::Argument(
            "name the minds the token may touch (--mind personal, --mind workspace:<id>, or --mind '*')"
                .to_string(),
        ));
    }
    let minds = minds
        .iter()
        .map(|mind| mind_grant(mind))
        .collect::<Result<Vec<_>, _>>()?;
    let mut tokens = read_tokens(path)?;
    if tokens
        .iter()
        .any(|token| token.name == name && token.revoked.is_none())
    {
        return Err(TokenError::Argument(format!(
            "a token named {name:?} exists; revoke it first or choose another name"
        )));
    }
    let mut random = [0u8; 32];
    getrandom::fill(&mut random).map_err(|error| TokenError::Random(error.to_string()))?;
    let token = format!("hm_{}", hex::encode(random));
    tokens.push(StoredToken {
        name: name.to_string(),
        sha256: token_hash(&token),
        scope,
        minds,
        created: now_seconds(),
        revoked: None,
    });
    write_tokens(path, &tokens)?;
    Ok(token)
}

/// Revoke the live token named `name`.
pub fn revoke_token(path: &Path, name: &str) -> Result<StoredToken, TokenError> {
    let mut tokens = read_tokens(path)?;
    let Some(token) = tokens
        .iter_mut()
        .find(|token| token.name == name && token.revoked.is_none())
    else {
        return Err(TokenError::Argument(format!(
            "no live token named {name:?}"
        )));
    };
    token.revoked = Some(now_seconds());
    let revoked = token.clone();
    write_tokens(path, &tokens)?;
    Ok(revoked)
}

/// The token list a server checks requests against, read again whenever
/// the file's modification time or length changes.
#[derive(Debug)]
pub struct TokenBook {
    path: PathBuf,
    cached: Mutex<Option<(FileStamp, Vec<StoredToken>)>>,
}

/// A file's modification time and length (none when it does not exist).
type FileStamp = Option<(SystemTime, u64)>;

impl TokenBook {
    /// The book of `<data-dir>/server/tokens.json`.
    pub fn new(data_dir: &Path) -> TokenBook {
        TokenBook {
            path: tokens_path(data_dir),
            cached: Mutex::new(None),
        }
    }

    fn stamp(&self) -> FileStamp {
        let metadata = std::fs::metadata(&self.path).ok()?;
        Some((metadata.modified().ok()?, metadata.len()))
    }

    /// The grant of a presented token, or `None` when it is unknown or
    /// revoked.
    pub fn grant(&self, token: &str) -> Result<Option<Grant>, TokenError> {
        let stamp = self.stamp();
        let mut cached = self
            .cached
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let fresh = matches!(cached.as_ref(), Some((seen, _)) if *seen == stamp);
        if !fresh {
            *cached = Some((stamp, read_tokens(&self.path)?));
        }
        let hash = token_hash(token);
        let found = cached
            .as_ref()
            .map(|(_, tokens)| tokens.as_slice())
            .unwrap_or_default()
            .iter()
            .filter(|stored| stored.revoked.is_none())
            .fold(None, |found, stored| {
                // Compare with every token, so the time taken does not say
                // which one matched.
                if same_hash(&stored.sha256, &hash) {
                    Some(stored)
                } else {
                    found
                }
            });
        Ok(found.map(|stored| Grant {
            name: stored.name.clone(),
            scope: stored.scope,
            minds: stored.minds.clone(),
        }))
    }
}

/// `hive-mind token`'s subcommands.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum TokenCommand {
    /// Make a token; it is printed once and stored only hashed.
    Create {
        /// A name for it (unique among the live tokens).
        name: String,
        /// read, write or admin (each includes the ones before).
        #[arg(long, default_value = "read")]
        scope: String,
        /// A mind it may touch: `personal`, `workspace:<id>`, or `*` for every
        /// mind (repeat for several).
        #[arg(long = "mind", required = true)]
        minds: Vec<String>,
    },
    /// The tokens: name, scope, minds, when made, whether revoked.
    List,
    /// Revoke a token by name; it is refused from the next request on.
    Revoke {
        /// Its name.
        name: String,
    },
}

/// The UTC day (`YYYY-MM-DD`) of Unix seconds, for the token listing.
fn unix_day(seconds: u64) -> String {
    let millis = i64::try_from(seconds)
        .unwrap_or(i64::MAX)
        .saturating_mul(1000);
    let mut day = hive_mind_runtime::engine::convert::timestamp_name(millis);
    day.truncate(10);
    day
}

/// Run a `hive-mind token` subcommand; what to print.
pub fn run(data_dir: &Path, command: &TokenCommand) -> Result<String, TokenError> {
    let path = tokens_path(data_dir);
    match command {
        TokenCommand::Create { name, scope, minds } => {
            let scope = Scope::from_name(scope).map_err(TokenError::Argument)?;
            let token = create_token(&path, name, scope, minds)?;
            Ok(format!(
                "{token}\n(shown once: the server keeps only its hash; send it as `Authorization: Bearer <token>`)\n"
            ))
        }
        TokenCommand::List => {
            let tokens = read_tokens(&path)?;
            if tokens.is_empty() {
                return Ok(
                    "no tokens yet: `hive-mind token create NAME --scope read --mind personal` makes one\n"
                        .to_string(),
                );
            }
            let mut out = String::from("name\tscope\tminds\tmade\tstate\n");
            for token in tokens {
                let state = match token.revoked {
                    Some(when) => format!("revoked {}", unix_day(when)),
                    None => "live".to_string(),
                };
                out.push_str(&format!(
                    "{}\t{}\t{}\t{}\t{state}\n",
                    token.name,
                    token.scope.name(),
                    token.minds.join(","),
                    unix_day(token.created),
                ));
            }
            Ok(out)
        }
        TokenCommand::Revoke { name } => {
            revoke_token(&path, name)?;
            Ok(format!("revoked {name}\n"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_listing_names_each_token_with_its_day_and_state_and_says_when_there_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let empty = run(dir.path(), &TokenCommand::List).unwrap();
        assert!(empty.starts_with("no tokens yet"), "{empty}");
        let path = tokens_path(dir.path());
        create_token(&path, "laptop", Scope::Read, &["personal".to_string()]).unwrap();
        create_token(&path, "ci", Scope::Write, &["workspace:a".to_string()]).unwrap();
        revoke_token(&path, "ci").unwrap();
        let listing = run(dir.path(), &TokenCommand::List).unwrap();
        let lines: Vec<Vec<&str>> = listing
            .lines()
            .map(|line| line.split('\t').collect())
            .collect();
        assert_eq!(lines[0], ["name", "scope", "minds", "made", "state"]);
        let today = &hive_mind_runtime::engine::convert::timestamp_name(
            i64::try_from(now_seconds()).unwrap() * 1000,
        )[..10];
        assert_eq!(lines[1], ["laptop", "read", "personal", today, "live"]);
        assert_eq!(lines[2][..4], ["ci", "write", "workspace:a", today]);
        assert_eq!(lines[2][4], format!("revoked {today}"));
    }

    #[test]
    fn a_token_is_stored_hashed_and_revocation_holds_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = tokens_path(dir.path());
        let token = create_token(&path, "laptop", Scope::Write, &["personal".to_string()]).unwrap();
        assert!(token.starts_with("hm_") && token.len() == 67);
        let stored = std::fs::read_to_string(&path).unwrap();
        assert!(!stored.contains(&token), "the token itself is never stored");
        assert!(stored.contains(&token_hash(&token)));
        let book = TokenBook::new(dir.path());
        let grant = book.grant(&token).unwrap().unwrap();
        assert_eq!(grant.scope, Scope::Write);
        assert!(grant.reaches("personal") && !grant.reaches("workspace:acme"));
        assert_eq!(book.grant("hm_wrong").unwrap(), None);
        revoke_token(&path, "laptop").unwrap();
        assert_eq!(book.grant(&token).unwrap(), None);
    }

    #[test]
    fn scopes_include_the_lesser_ones_and_minds_are_checked() {
        let grant = Grant {
            name: "agent".to_string(),
            scope: Scope::Write,
            minds: vec!["workspace:acme".to_string()],
        };
        assert!(
            grant
                .require(Scope::Read, &["workspace:acme".to_string()])
                .is_ok()
        );
        assert!(grant.require(Scope::Admin, &[]).is_err());
        let refused = grant
            .require(Scope::Read, &["personal".to_string()])
            .unwrap_err();
        assert!(refused.contains("personal"), "{refused}");
    }

    #[test]
    fn bad_names_scopes_and_minds_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = tokens_path(dir.path());
        assert!(
            Scope::from_name("owner")
                .unwrap_err()
                .contains("read, write, admin")
        );
        assert!(create_token(&path, "x", Scope::Read, &["team".to_string()]).is_err());
        assert!(create_token(&path, "", Scope::Read, &["personal".to_string()]).is_err());
        assert!(create_token(&path, "x", Scope::Read, &[]).is_err());
        create_token(&path, "x", Scope::Read, &["*".to_string()]).unwrap();
        assert!(create_token(&path, "x", Scope::Read, &["*".to_string()]).is_err());
    }
}
