//! # Guarded fetch: the host side of the `fetch` import
//!
//! Harvest can read URLs. The engine asks for one with `fetch.get(url)`
//! (`wit/fetch.wit`); the host fetches it here, under rules the engine
//! cannot loosen, and hands back the bytes for the engine to parse in its
//! sandbox. The rules, in the order they apply:
//!
//! 1. **A valid absolute URL** (else `InvalidUrl`), **`http` or `https`**
//!    (else `Refused`). A `#fragment` is dropped; it never goes on the wire.
//! 2. **No private addresses.** The host's `localhost` names are refused
//!    outright, and every address the host name resolves to is checked
//!    against the ranges of [`address`] (loopback, private, link-local,
//!    CGNAT, unique-local, multicast, … and the IPv4-in-IPv6 forms of
//!    those). One refused address refuses the fetch (`Refused`, naming the
//!    rule) — a name that resolves to both a public and a private address is
//!    exactly what a rebinding attack looks like. An address assigned to one
//!    of this machine's own interfaces (a public IP on `eth0` included) is
//!    refused the same way ([`address::own_addresses`], listed afresh at
//!    each lookup). [`FetchPolicy::allow_private`]
//!    turns this rule off; [`FetchPolicy::allow_hosts`] exempts given hosts.
//! 3. **A deadline** for the whole fetch, redirects and body included
//!    (`Timeout`).
//! 4. **Redirects followed by hand**, at most [`FetchPolicy::max_redirects`]
//!    (then `Failed`), each hop's URL going through rules 1–2 again: a public
//!    page that redirects to `http://192.168.1.1/` is refused like a direct
//!    link would be.
//! 5. **A size cap**, [`FetchPolicy::max_bytes`]: a `Content-Length` over it
//!    is refused before the body is read, and the body is read through a
//!    reader that stops one byte past the cap, so no more than the cap plus
//!    one byte is ever held (`TooLarge(cap)`).
//! 6. **A success status**: after redirects, anything but `2xx` is
//!    `Status(code)`.
//!
//! ## Checking the address that is connected to
//!
//! Checking a name's addresses and then letting the HTTP client resolve it
//! again would leave a window: a hostile DNS server can answer the check
//! with a public address and the connection with `127.0.0.1` (DNS
//! rebinding). Here there is no second lookup. The check runs *inside* the
//! resolver of the `ureq` agent ([`ureq::unversioned::resolver::Resolver`]),
//! and ureq's connector connects to exactly the addresses that resolver
//! returned. Proxies are never used by this agent (the environment's
//! `HTTP(S)_PROXY` are ignored for fetches), because through a proxy the
//! proxy resolves the name and the check would see nothing.
//!
//! What remains: ureq marks its resolver API "unversioned" (it may change in
//! a minor release; `Cargo.lock` pins the version, and the tests refuse a
//! loopback URL through the resolver, so a change that broke the check
//! would fail them), and an *allowed* host's own server can still redirect —
//! every hop is checked, so that only reaches another allowed address.
//!
//! ## Configuration: `[fetch]`
//!
//! | key | env | default | why |
//! |---|---|---|---|
//! | `allow_private` | `HIVE_MIND_FETCH_ALLOW_PRIVATE` | `false` | the safe default; `true` for a user harvesting an intranet |
//! | `allow_hosts` | | `[]` | hosts (`name`, `name:port`, `10.0.0.5`, `[fd00::1]:8080`) exempt from rule 2, for one trusted local server without opening the whole network |
//! | `timeout_secs` | | 20 | a page, not a download; a slow site should not stall a harvest |
//! | `max_bytes` | | 33554432 (32 MiB) | far above any article or README, far below what hurts memory |
//! | `max_redirects` | | 5 | what real sites use (http→https→www→canonical); at most 20 |

pub mod address;

use std::collections::HashSet;
use std::io::{self, Read};
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Deserialize;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{DefaultConnector, NextTimeout};

use crate::config::{ConfigError, lookup, parse_env_bool, parse_table, positive_secs};
pub use address::{is_localhost_name, is_own_address, own_addresses, refused_range};

/// The most redirects a configuration may allow.
pub const MAX_REDIRECTS_LIMIT: u32 = 20;

/// What a fetch may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchPolicy {
    /// Allow loopback, private, link-local and the other refused ranges.
    pub allow_private: bool,
    /// Hosts exempt from the address rules: `name`, `name:port`, an IP
    /// address, `[v6]:port`. Without a port an entry matches every port.
    pub allow_hosts: Vec<String>,
    /// The whole fetch's deadline, redirects and body included.
    pub timeout: Duration,
    /// The largest body accepted, in bytes.
    pub max_bytes: u64,
    /// Redirects followed before giving up.
    pub max_redirects: u32,
}

impl Default for FetchPolicy {
    fn default() -> Self {
        FetchPolicy {
            allow_private: false,
            allow_hosts: Vec::new(),
            timeout: Duration::from_secs(20),
            max_bytes: 32 * 1024 * 1024,
            max_redirects: 5,
        }
    }
}

/// The `[fetch]` table as written.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct FetchTable {
    allow_private: Option<bool>,
    allow_hosts: Option<Vec<String>>,
    timeout_secs: Option<f64>,
    max_bytes: Option<u64>,
    max_redirects: Option<u32>,
}

impl FetchPolicy {
    /// The `[fetch]` policy from a file's text (if any) and an environment
    /// lookup (see the module docs for keys and defaults).
    pub fn from_sources(
        toml_text: Option<&str>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<FetchPolicy, ConfigError> {
        FetchPolicy::from_sources_at(toml_text, "config.toml", &env)
    }

    pub(crate) fn from_sources_at(
        toml_text: Option<&str>,
        origin: &str,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<FetchPolicy, ConfigError> {
        let table: FetchTable = parse_table(toml_text, "fetch", origin)?;
        let invalid = |key: &str, message: String| ConfigError::Invalid {
            origin: origin.to_string(),
            key: key.to_string(),
            message,
        };
        let mut policy = FetchPolicy::default();
        if let Some(allow) = table.allow_private {
            policy.allow_private = allow;
        }
        if let Some(value) = lookup(env, "HIVE_MIND_FETCH_ALLOW_PRIVATE") {
            policy.allow_private = parse_env_bool("HIVE_MIND_FETCH_ALLOW_PRIVATE", &value)?;
        }
        if let Some(hosts) = table.allow_hosts {
            for host in &hosts {
                if HostRule::parse(host).is_none() {
                    return Err(invalid(
                        "fetch.allow_hosts",
                        format!("has {host:?}, not a host, host:port or [ipv6]:port"),
                    ));
                }
            }
            policy.allow_hosts = hosts;
        }
        if let Some(secs) = table.timeout_secs {
            policy.timeout = positive_secs(secs, "fetch.timeout_secs", origin)?;
        }
        if let Some(max) = table.max_bytes {
            if max == 0 {
                return Err(invalid("fetch.max_bytes", "must be at least 1".into()));
            }
            policy.max_bytes = max;
        }
        if let Some(max) = table.max_redirects {
            if max > MAX_REDIRECTS_LIMIT {
                return Err(invalid(
                    "fetch.max_redirects",
                    format!("must be at most {MAX_REDIRECTS_LIMIT}, not {max}"),
                ));
            }
            policy.max_redirects = max;
        }
        Ok(policy)
    }
}

/// A fetched document (the WIT `response`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchResponse {
    /// The URL finally fetched (after redirects, without a fragment).
    pub url: String,
    /// The `Content-Type` header, if any, as sent.
    pub content_type: Option<String>,
    /// The body (at most the policy's `max_bytes`).
    pub body: Vec<u8>,
}

/// Why a fetch failed (the WIT `error`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// The host offers no outbound HTTP (never returned by [`Fetcher`]; for
    /// a host that has fetching turned off).
    #[error("fetching is unavailable: {0}")]
    Unavailable(String),
    /// The policy refused the URL; the message says which rule.
    #[error("fetch refused: {0}")]
    Refused(String),
    /// The URL is not a valid absolute URL.
    #[error("invalid URL: {0}")]
    InvalidUrl(String),
    /// The server did not answer in time.
    #[error("fetch timed out: {0}")]
    Timeout(String),
    /// The body was larger than the cap (the cap, in bytes).
    #[error("the body is larger than the cap of {0} bytes")]
    TooLarge(u64),
    /// The server answered with an HTTP error status.
    #[error("the server answered HTTP {0}")]
    Status(u16),
    /// Any other network failure.
    #[error("fetch failed: {0}")]
    Failed(String),
}

/// Fetch `url` once under `policy` (builds a [`Fetcher`]; keep one instead
/// to reuse its connections).
pub fn fetch(url: &str, policy: &FetchPolicy) -> Result<FetchResponse, FetchError> {
    Fetcher::new(policy.clone()).get(url)
}

/// A fetching client bound to one policy. `Send + Sync`; share it.
#[derive(Debug, Clone)]
pub struct Fetcher {
    policy: FetchPolicy,
    guard: Arc<Guard>,
    agent: ureq::Agent,
}

/// The `Accept` header: documents harvest can turn into text.
const ACCEPT: &str = "text/html,application/xhtml+xml,text/plain;q=0.9,text/markdown;q=0.9,\
                      application/json;q=0.8,*/*;q=0.5";

impl Fetcher {
    /// A fetcher for `policy`.
    pub fn new(policy: FetchPolicy) -> Fetcher {
        let guard = Arc::new(Guard {
            allow_private: policy.allow_private,
            allow_hosts: policy
                .allow_hosts
                .iter()
                .filter_map(|host| HostRule::parse(host))
                .collect(),
        });
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .proxy(None)
            .timeout_global(Some(policy.timeout))
            .user_agent(crate::USER_AGENT)
            .build();
        let agent = ureq::Agent::with_parts(
            config,
            DefaultConnector::new(),
            GuardedResolver {
                guard: Arc::clone(&guard),
            },
        );
        Fetcher {
            policy,
            guard,
            agent,
        }
    }

    /// The policy.
    pub fn policy(&self) -> &FetchPolicy {
        &self.policy
    }

    /// GET `url` under the policy (see the module docs for the rules).
    pub fn get(&self, url: &str) -> Result<FetchResponse, FetchError> {
        let deadline = Instant::now() + self.policy.timeout;
        let mut current = parse_url(url)?;
        let mut redirects = 0u32;
        loop {
            self.guard.check_url(&current)?;
            let remaining = deadline.saturating_duration_since(Instant::now());
            if remaining.is_zero() {
                return Err(self.timeout_error());
            }
            let mut response = self
                .agent
                .get(current.as_str())
                .header("accept", ACCEPT)
                .config()
                .timeout_global(Some(remaining))
                .build()
                .call()
                .map_err(|e| self.request_error(e, &current))?;
            let status = response.status().as_u16();
            let header = |name: &str| {
                response
                    .headers()
                    .get(name)
                    .and_then(|value| value.to_str().ok())
                    .map(str::to_string)
            };
            if matches!(status, 301 | 302 | 303 | 307 | 308)
                && let Some(location) = header("location")
            {
                if redirects >= self.policy.max_redirects {
                    return Err(FetchError::Failed(format!(
                        "more than {} redirects (the last to {location})",
                        self.policy.max_redirects
                    )));
                }
                let mut next = current.join(location.trim()).map_err(|e| {
                    FetchError::InvalidUrl(format!(
                        "{current} redirects to {location:?}, which is not a URL: {e}"
                    ))
                })?;
                next.set_fragment(None);
                tracing::debug!(from = %current, to = %next, status, "following a redirect");
                current = next;
                redirects += 1;
                continue;
            }
            if !(200..300).contains(&status) {
                return Err(FetchError::Status(status));
            }
            let content_type = header("content-type");
            let cap = self.policy.max_bytes;
            if header("content-length")
                .and_then(|length| length.trim().parse::<u64>().ok())
                .is_some_and(|length| length > cap)
            {
                return Err(FetchError::TooLarge(cap));
            }
            let mut body = Vec::new();
            response
                .body_mut()
                .as_reader()
                .take(cap.saturating_add(1))
                .read_to_end(&mut body)
                .map_err(|e| self.body_error(&e, &current))?;
            if body.len() as u64 > cap {
                return Err(FetchError::TooLarge(cap));
            }
            return Ok(FetchResponse {
                url: current.to_string(),
                content_type,
                body,
            });
        }
    }

    fn timeout_error(&self) -> FetchError {
        FetchError::Timeout(format!(
            "no complete answer within {} s",
            self.policy.timeout.as_secs_f64()
        ))
    }

    fn request_error(&self, error: ureq::Error, url: &url::Url) -> FetchError {
        if let Some(reason) = refusal_in(&error) {
            return FetchError::Refused(reason);
        }
        if crate::is_timeout(&error) {
            return self.timeout_error();
        }
        let host = url.host_str().unwrap_or_default();
        match error {
            ureq::Error::HostNotFound => FetchError::Failed(format!("cannot resolve {host}")),
            ureq::Error::BadUri(message) => FetchError::InvalidUrl(format!("{url}: {message}")),
            ureq::Error::Io(io) if io.kind() == io::ErrorKind::ConnectionRefused => {
                FetchError::Failed(format!("{host} refused the connection"))
            }
            other => FetchError::Failed(format!("{url}: {other}")),
        }
    }

    fn body_error(&self, error: &io::Error, url: &url::Url) -> FetchError {
        if crate::is_io_timeout(error) {
            self.timeout_error()
        } else {
            FetchError::Failed(format!("reading the body of {url}: {error}"))
        }
    }
}

/// Parse an absolute URL (fragment dropped).
fn parse_url(text: &str) -> Result<url::Url, FetchError> {
    let mut url = url::Url::parse(text.trim())
        .map_err(|e| FetchError::InvalidUrl(format!("{text:?}: {e}")))?;
    url.set_fragment(None);
    Ok(url)
}

/// The address rules, shared by the pre-check and the resolver.
#[derive(Debug)]
struct Guard {
    allow_private: bool,
    allow_hosts: Vec<HostRule>,
}

impl Guard {
    /// Rules that need no lookup: the scheme, a host, no `localhost` name.
    fn check_url(&self, url: &url::Url) -> Result<(), FetchError> {
        let scheme = url.scheme();
        if scheme != "http" && scheme != "https" {
            return Err(FetchError::Refused(format!(
                "scheme `{scheme}:` is not allowed (only http and https): {url}"
            )));
        }
        let host = url
            .host_str()
            .filter(|host| !host.is_empty())
            .ok_or_else(|| FetchError::InvalidUrl(format!("{url} has no host")))?;
        let port = url.port_or_known_default().unwrap_or(80);
        let host = host.trim_start_matches('[').trim_end_matches(']');
        if !self.exempt(host, port) && is_localhost_name(host) {
            return Err(FetchError::Refused(format!(
                "`{host}` names this machine (loopback); set allow_private or allow_hosts to fetch it"
            )));
        }
        Ok(())
    }

    fn exempt(&self, host: &str, port: u16) -> bool {
        self.allow_private || self.allow_hosts.iter().any(|rule| rule.matches(host, port))
    }

    /// The resolver's check: every resolved address must be allowed, in
    /// no refused range and not one of `own` (this machine's addresses).
    fn check_addresses(
        &self,
        host: &str,
        addrs: impl IntoIterator<Item = IpAddr>,
        own: &HashSet<IpAddr>,
    ) -> Result<(), String> {
        for ip in addrs {
            let rule = match refused_range(ip) {
                Some(rule) => rule,
                None if is_own_address(ip, own) => {
                    "an address of this machine (one of its network interfaces)".to_string()
                }
                None => continue,
            };
            let what = if host.parse::<IpAddr>().is_ok() {
                format!("{ip} is")
            } else {
                format!("`{host}` resolves to {ip}, which is")
            };
            return Err(format!(
                "{what} {rule}; set allow_private or allow_hosts to fetch it"
            ));
        }
        Ok(())
    }
}

/// One `allow_hosts` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
struct HostRule {
    host: String,
    port: Option<u16>,
}

impl HostRule {
    fn parse(entry: &str) -> Option<HostRule> {
        let entry = entry.trim();
        let (host, port) = if let Some(rest) = entry.strip_prefix('[') {
            let (host, after) = rest.split_once(']')?;
            let port = match after.strip_prefix(':') {
                Some(port) => Some(port.parse().ok()?),
                None if after.is_empty() => None,
                None => return None,
            };
            (host, port)
        } else if entry.matches(':').count() > 1 {
            (entry, None) // a bare IPv6 address
        } else if let Some((host, port)) = entry.split_once(':') {
            (host, Some(port.parse().ok()?))
        } else {
            (entry, None)
        };
        let host = normalize_host(host);
        let valid = !host.is_empty()
            && (host.parse::<IpAddr>().is_ok()
                || host
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.' || c == '_'));
        valid.then_some(HostRule { host, port })
    }

    fn matches(&self, host: &str, port: u16) -> bool {
        self.port.is_none_or(|p| p == port) && self.host == normalize_host(host)
    }
}

/// A host as compared: lowercase, no brackets or trailing dot, an IP
/// address in its canonical form.
fn normalize_host(host: &str) -> String {
    let host = host
        .trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase();
    match host.parse::<IpAddr>() {
        Ok(ip) => ip.to_string(),
        Err(_) => host,
    }
}

/// The refusal a resolver error carries.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Refusal(String);

fn refusal_in(error: &ureq::Error) -> Option<String> {
    match error {
        ureq::Error::Io(io) => io
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<Refusal>())
            .map(|refusal| refusal.0.clone()),
        _ => None,
    }
}

/// ureq's resolver, checking what it resolved before the connector sees it.
#[derive(Debug)]
struct GuardedResolver {
    guard: Arc<Guard>,
}

impl Resolver for GuardedResolver {
    fn resolve(
        &self,
        uri: &ureq::http::Uri,
        config: &ureq::config::Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let host = uri
            .host()
            .unwrap_or_default()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string();
        let port = uri
            .port_u16()
            .unwrap_or(if uri.scheme_str() == Some("https") {
                443
            } else {
                80
            });
        let refuse = |reason: String| {
            ureq::Error::Io(io::Error::new(
                io::ErrorKind::PermissionDenied,
                Refusal(reason),
            ))
        };
        let exempt = self.guard.exempt(&host, port);
        if !exempt && is_localhost_name(&host) {
            return Err(refuse(format!("`{host}` names this machine (loopback)")));
        }
        let addrs = DefaultResolver::default().resolve(uri, config, timeout)?;
        if !exempt {
            let own = own_addresses().map_err(|error| {
                refuse(format!(
                    "this machine's own addresses could not be listed ({error}), so `{host}` cannot be checked against them; set allow_private or allow_hosts to fetch it"
                ))
            })?;
            self.guard
                .check_addresses(&host, addrs.iter().map(|addr| addr.ip()), &own)
                .map_err(refuse)?;
        }
        Ok(addrs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{Ipv4Addr, Ipv6Addr};

    fn guard() -> Guard {
        Guard {
            allow_private: false,
            allow_hosts: Vec::new(),
        }
    }

    /// A public address (TEST-NET-3 and the IPv6 documentation prefix are
    /// in no refused range) that this machine holds is refused, by name
    /// or as a literal, in its IPv4-mapped spelling too; one it does not
    /// hold passes.
    #[test]
    fn this_machines_own_public_address_is_refused() {
        let v4 = IpAddr::V4(Ipv4Addr::new(203, 0, 113, 7));
        let v6: IpAddr = "2001:db8::7".parse().unwrap();
        assert_eq!(refused_range(v4), None);
        assert_eq!(refused_range(v6), None);
        let own: HashSet<IpAddr> = [v4, v6].into();
        let guard = guard();
        let message = guard
            .check_addresses("203.0.113.7", [v4], &own)
            .unwrap_err();
        assert!(
            message.contains("203.0.113.7 is an address of this machine"),
            "{message}"
        );
        let message = guard
            .check_addresses("example.org", [v6], &own)
            .unwrap_err();
        assert!(
            message.contains("`example.org` resolves to 2001:db8::7"),
            "{message}"
        );
        assert!(
            message.contains("allow_private or allow_hosts"),
            "{message}"
        );
        let mapped = IpAddr::V6(Ipv4Addr::new(203, 0, 113, 7).to_ipv6_mapped());
        assert!(is_own_address(mapped, &own));
        assert!(guard.check_addresses("x", [mapped], &own).is_err());
        let other = IpAddr::V4(Ipv4Addr::new(203, 0, 113, 8));
        assert!(!is_own_address(other, &own));
        assert!(guard.check_addresses("x", [other], &own).is_ok());
        assert!(!is_own_address(IpAddr::V6(Ipv6Addr::LOCALHOST), &own));
    }

    /// The machine's real interface addresses are listed, and each of them
    /// is refused (by its range, or as this machine's).
    #[test]
    fn every_address_of_this_machine_is_refused() {
        let own = own_addresses().unwrap();
        assert!(
            own.iter().any(IpAddr::is_loopback),
            "getifaddrs lists the loopback interface: {own:?}"
        );
        let guard = guard();
        for ip in &own {
            assert!(is_own_address(*ip, &own), "{ip}");
            let message = guard.check_addresses("host", [*ip], &own).unwrap_err();
            assert!(message.contains(&ip.to_string()), "{message}");
        }
    }
}
