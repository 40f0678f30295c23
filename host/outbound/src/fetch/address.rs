//! # Which addresses a fetch may not reach
//!
//! A fetch the agent drives must not become a way into the user's own
//! network: the router's admin page, a cloud metadata service at
//! `169.254.169.254`, a database listening on `localhost`. So, unless the
//! user allowed it, every address a URL's host resolves to is checked
//! against the ranges below, and one match refuses the fetch.
//!
//! | range | what it is |
//! |---|---|
//! | `0.0.0.0/8` | "this network"; `0.0.0.0` itself reaches this machine on Linux |
//! | `127.0.0.0/8`, `::1` | loopback |
//! | `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16` | private networks (RFC 1918) |
//! | `100.64.0.0/10` | shared address space: carrier-grade NAT, also Tailscale |
//! | `169.254.0.0/16`, `fe80::/10` | link-local, cloud metadata services |
//! | `168.63.129.16` | Azure's wire server (a VM's platform endpoint: DHCP, DNS, health, agent) |
//! | `192.0.0.0/24` | IETF protocol assignments |
//! | `198.18.0.0/15` | benchmarking networks |
//! | `224.0.0.0/4`, `ff00::/8` | multicast |
//! | `240.0.0.0/4`, `255.255.255.255` | reserved, broadcast |
//! | `::` | unspecified |
//! | `fc00::/7` | unique local (the IPv6 private networks) |
//! | `fec0::/10` | site-local (deprecated, still private) |
//! | `100::/64` | discard-only |
//! | `::/96` | IPv4-compatible (deprecated; never public) |
//! | `::ffff:0:0/96` | IPv4-mapped: judged by the IPv4 address inside |
//! | `64:ff9b::/96` | NAT64: judged by the IPv4 address inside |
//! | `64:ff9b:1::/48` | local-use NAT64 (RFC 8215): refused outright |
//! | `2002::/16` | 6to4: judged by the IPv4 address inside |
//! | `2001::/32` | Teredo: refused outright |
//!
//! The IPv4-in-IPv6 forms are unwrapped because they reach the IPv4 address
//! they carry: `::ffff:127.0.0.1` is loopback wherever dual-stack sockets
//! are on, and a NAT64 gateway turns `64:ff9b::a00:1` into `10.0.0.1`.
//! The well-known NAT64 prefix is judged rather than refused because on an
//! IPv6-only network with DNS64 every IPv4-only site resolves to it; the
//! ones that carry a refused IPv4 address are refused with it. The
//! local-use prefix has no fixed layout (an operator may embed the IPv4
//! address at any of RFC 6052's prefix lengths, or map it some other way),
//! so which IPv4 address it reaches cannot be read off it: refused. A
//! Teredo address is reached through a tunnel relay, and the client IPv4
//! address it carries (obfuscated) is whatever its sender wrote; Teredo is
//! obsolete, so nothing public is lost by refusing the whole prefix.
//!
//! Names are refused before any lookup when they are `localhost` or end in
//! `.localhost` (RFC 6761 reserves them for loopback), or are the
//! `ip6-localhost` / `ip6-loopback` names of Debian's `/etc/hosts`.
//!
//! ## This machine's own addresses
//!
//! The ranges above do not cover a public address the machine itself holds
//! (a server's public IPv4 on `eth0`, a global IPv6 address): a URL naming
//! it reaches the services listening on this machine, exactly as
//! `127.0.0.1` would for those bound to every interface. So every address
//! currently assigned to one of the machine's interfaces is refused too
//! ([`own_addresses`], read with `getifaddrs` at each lookup, since
//! interfaces come and go; [`is_own_address`] compares, an IPv4-mapped IPv6
//! address as the IPv4 address it carries). Where the interfaces cannot be
//! listed the fetch is refused rather than left unchecked; where there is
//! no `getifaddrs` (Windows) the set is empty and only the ranges apply.

use std::collections::HashSet;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// The refused range an address falls in, named for a message
/// (`"loopback (127.0.0.0/8)"`), or `None` when it may be fetched.
pub fn refused_range(ip: IpAddr) -> Option<String> {
    match ip {
        IpAddr::V4(v4) => refused_v4(v4).map(str::to_string),
        IpAddr::V6(v6) => refused_v6(v6),
    }
}

fn refused_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, d] = ip.octets();
    let rule = match (a, b, c, d) {
        _ if ip.is_unspecified() => "unspecified (0.0.0.0)",
        (0, ..) => "\"this network\" (0.0.0.0/8)",
        (127, ..) => "loopback (127.0.0.0/8)",
        (10, ..) => "private (10.0.0.0/8)",
        (172, 16..=31, ..) => "private (172.16.0.0/12)",
        (192, 168, ..) => "private (192.168.0.0/16)",
        (169, 254, ..) => "link-local (169.254.0.0/16)",
        (168, 63, 129, 16) => "Azure's wire server (168.63.129.16)",
        (100, 64..=127, ..) => "shared address space, carrier-grade NAT (100.64.0.0/10)",
        (192, 0, 0, _) => "IETF protocol assignments (192.0.0.0/24)",
        (198, 18..=19, ..) => "benchmarking (198.18.0.0/15)",
        (224..=239, ..) => "multicast (224.0.0.0/4)",
        _ if ip.is_broadcast() => "broadcast (255.255.255.255)",
        (240..=255, ..) => "reserved (240.0.0.0/4)",
        _ => return None,
    };
    Some(rule)
}

fn refused_v6(ip: Ipv6Addr) -> Option<String> {
    let s = ip.segments();
    let embedded = |form: &str, v4: Ipv4Addr| {
        refused_v4(v4).map(|rule| format!("{form} form of {v4}, which is {rule}"))
    };
    if ip.is_unspecified() {
        return Some("unspecified (::)".into());
    }
    if ip.is_loopback() {
        return Some("loopback (::1)".into());
    }
    if let Some(v4) = ip.to_ipv4_mapped() {
        return embedded("an IPv4-mapped (::ffff:0:0/96)", v4);
    }
    if s[..6] == [0; 6] {
        return Some("IPv4-compatible (::/96, deprecated)".into());
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return embedded("a NAT64 (64:ff9b::/96)", v4_from(s[6], s[7]));
    }
    if s[..3] == [0x64, 0xff9b, 0x0001] {
        return Some("local-use NAT64 (64:ff9b:1::/48)".into());
    }
    if s[0] == 0x2002 {
        return embedded("a 6to4 (2002::/16)", v4_from(s[1], s[2]));
    }
    if s[..2] == [0x2001, 0x0000] {
        return Some("Teredo (2001::/32)".into());
    }
    let rule = match s[0] {
        0xfe80..=0xfebf => "link-local (fe80::/10)",
        0xfec0..=0xfeff => "site-local (fec0::/10, deprecated)",
        0xfc00..=0xfdff => "unique local (fc00::/7)",
        0xff00..=0xffff => "multicast (ff00::/8)",
        0x0100 if s[1..4] == [0, 0, 0] => "discard-only (100::/64)",
        _ => return None,
    };
    Some(rule.into())
}

fn v4_from(high: u16, low: u16) -> Ipv4Addr {
    let [a, b] = high.to_be_bytes();
    let [c, d] = low.to_be_bytes();
    Ipv4Addr::new(a, b, c, d)
}

/// Whether a host name is one of the loopback names refused without a
/// lookup (any case, with or without a trailing dot).
pub fn is_localhost_name(host: &str) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    host == "localhost"
        || host.ends_with(".localhost")
        || host == "localhost.localdomain"
        || host == "ip6-localhost"
        || host == "ip6-loopback"
}

/// The addresses assigned to this machine's network interfaces now
/// (`getifaddrs`: every interface, up or down, IPv4 and IPv6).
#[cfg(unix)]
pub fn own_addresses() -> std::io::Result<HashSet<IpAddr>> {
    let interfaces = nix::ifaddrs::getifaddrs().map_err(std::io::Error::from)?;
    let mut own = HashSet::new();
    for interface in interfaces {
        let Some(address) = interface.address else {
            continue;
        };
        if let Some(v4) = address.as_sockaddr_in() {
            own.insert(IpAddr::V4(v4.ip()));
        } else if let Some(v6) = address.as_sockaddr_in6() {
            own.insert(IpAddr::V6(v6.ip()));
        }
    }
    Ok(own)
}

/// The addresses assigned to this machine's network interfaces: none known
/// without `getifaddrs`.
#[cfg(not(unix))]
pub fn own_addresses() -> std::io::Result<HashSet<IpAddr>> {
    Ok(HashSet::new())
}

/// Whether `ip` is one of `own` (this machine's addresses,
/// [`own_addresses`]); an IPv4-mapped IPv6 address is judged by the IPv4
/// address inside, either way round.
pub fn is_own_address(ip: IpAddr, own: &HashSet<IpAddr>) -> bool {
    let plain = |ip: IpAddr| match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        IpAddr::V4(_) => ip,
    };
    let ip = plain(ip);
    own.iter().any(|mine| plain(*mine) == ip)
}
