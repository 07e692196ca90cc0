//! The SSRF guard: kerai follows URLs it finds in documents (links, redirects, sitemaps,
//! references, open copies) and calls configured endpoints, so a page or a setting could make
//! it send requests into the network it runs in. Connections to loopback, private, link-local,
//! cloud-metadata and other non-public addresses are refused unless a name or a network is
//! allowed explicitly.
//!
//! The decision is made on the address a connection is about to use (after DNS, at connect
//! time), so a name that resolves to a public address once and a private one later
//! (DNS rebinding) gains nothing. Allowed entries, from the `allowed_private_hosts` setting
//! and a site target's own base URL and seeds:
//!
//! | entry | allows |
//! |---|---|
//! | `wiki.corp` | that name (or IP literal), any port |
//! | `*.corp` | every name under `corp`, any port |
//! | `wiki.corp:8443`, `127.0.0.1:8080`, `[::1]:8080` | that name and port only |
//! | `10.20.0.0/16`, `fd00::/8` | any name resolving into that network, any port |
//! | `*` | everything: the guard is off |

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// What kind of address a connection would go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressClass {
    Public,
    Loopback,
    /// RFC 1918, unique-local IPv6 and carrier-grade NAT (100.64.0.0/10).
    Private,
    LinkLocal,
    /// Cloud instance metadata services (169.254.169.254, 100.100.100.200, fd00:ec2::254).
    Metadata,
    /// 0.0.0.0/8 and `::`, which reach the local host.
    Unspecified,
    Multicast,
    /// Reserved and broadcast ranges (240.0.0.0/4, 255.255.255.255).
    Reserved,
}

impl AddressClass {
    pub fn describe(self) -> &'static str {
        match self {
            AddressClass::Public => "a public address",
            AddressClass::Loopback => "a loopback address",
            AddressClass::Private => "a private address",
            AddressClass::LinkLocal => "a link-local address",
            AddressClass::Metadata => "a cloud metadata address",
            AddressClass::Unspecified => "an unspecified address (this host)",
            AddressClass::Multicast => "a multicast address",
            AddressClass::Reserved => "a reserved address",
        }
    }
}

/// The class of `ip`; IPv4 addresses embedded in IPv6 (mapped, NAT64, 6to4) count as the
/// IPv4 address they reach.
pub fn classify(ip: IpAddr) -> AddressClass {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => classify_v6(v6),
    }
}

fn classify_v4(ip: Ipv4Addr) -> AddressClass {
    let [a, b, c, d] = ip.octets();
    match (a, b, c, d) {
        (169, 254, 169, 254) | (100, 100, 100, 200) => AddressClass::Metadata,
        (0, ..) => AddressClass::Unspecified,
        (127, ..) => AddressClass::Loopback,
        (10, ..) | (192, 168, ..) => AddressClass::Private,
        (172, 16..=31, ..) => AddressClass::Private,
        (100, 64..=127, ..) => AddressClass::Private,
        (169, 254, ..) => AddressClass::LinkLocal,
        (224..=239, ..) => AddressClass::Multicast,
        (240..=255, ..) => AddressClass::Reserved,
        _ => AddressClass::Public,
    }
}

fn classify_v6(ip: Ipv6Addr) -> AddressClass {
    if let Some(v4) = embedded_v4(ip) {
        return classify_v4(v4);
    }
    let s = ip.segments();
    if ip == Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254) {
        AddressClass::Metadata
    } else if ip.is_unspecified() {
        AddressClass::Unspecified
    } else if ip.is_loopback() {
        AddressClass::Loopback
    } else if s[0] & 0xfe00 == 0xfc00 {
        AddressClass::Private
    } else if s[0] & 0xffc0 == 0xfe80 {
        AddressClass::LinkLocal
    } else if s[0] & 0xff00 == 0xff00 {
        AddressClass::Multicast
    } else {
        AddressClass::Public
    }
}

/// The IPv4 address an IPv6 address stands for: IPv4-mapped (::ffff:a.b.c.d), the deprecated
/// IPv4-compatible form (::a.b.c.d), NAT64 (64:ff9b::/96) and 6to4 (2002::/16).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let low =
        |hi: u16, lo: u16| Ipv4Addr::new((hi >> 8) as u8, hi as u8, (lo >> 8) as u8, lo as u8);
    match s {
        [0, 0, 0, 0, 0, 0xffff, hi, lo] => Some(low(hi, lo)),
        [0, 0, 0, 0, 0, 0, hi, lo] if hi != 0 => Some(low(hi, lo)),
        [0x64, 0xff9b, 0, 0, 0, 0, hi, lo] => Some(low(hi, lo)),
        [0x2002, hi, lo, ..] => Some(low(hi, lo)),
        _ => None,
    }
}

/// A connection the guard refused: which name, which address, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub host: String,
    pub port: u16,
    pub addr: IpAddr,
    pub class: AddressClass,
}

impl Refusal {
    /// The entry that would allow this host and port, as a user would add it.
    pub fn entry(&self) -> String {
        host_port(&self.host, self.port)
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let entry = self.entry();
        let at = if self.host == self.addr.to_string() {
            format!("{} is {}", self.host, self.class.describe())
        } else {
            format!(
                "{} resolves to {}, {}",
                self.host,
                self.addr,
                self.class.describe()
            )
        };
        write!(
            f,
            "{at}; kerai does not connect to non-public addresses found in documents or \
             settings unless allowed: add \"{entry}\" to the allowed_private_hosts setting, \
             e.g. SELECT kerai.set_setting('allowed_private_hosts', '[\"{entry}\"]')"
        )
    }
}

impl std::error::Error for Refusal {}

fn host_port(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// Which non-public destinations are allowed; the default allows none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AddressGuard {
    all: bool,
    /// Lower-case names or IP literals (without brackets), with a port or any port; a name
    /// starting with `.` matches every name under it.
    hosts: Vec<(String, Option<u16>)>,
    nets: Vec<(IpAddr, u8)>,
}

impl AddressGuard {
    /// A guard that allows everything (`*`).
    pub fn off() -> AddressGuard {
        AddressGuard {
            all: true,
            ..AddressGuard::default()
        }
    }

    /// The guard the entries describe (see the module docs); an error names the bad entry.
    pub fn parse<S: AsRef<str>>(entries: &[S]) -> Result<AddressGuard, String> {
        let mut g = AddressGuard::default();
        for e in entries {
            g.add(e.as_ref())?;
        }
        Ok(g)
    }

    /// Adds one entry (see the module docs).
    pub fn add(&mut self, entry: &str) -> Result<(), String> {
        let e = entry.trim().to_ascii_lowercase();
        let bad = |why: &str| {
            format!(
                "allowed_private_hosts: \"{entry}\" is not a host, host:port or network ({why}); \
                 use e.g. \"wiki.corp\", \"wiki.corp:8443\", \"[::1]:8080\" or \"10.0.0.0/8\""
            )
        };
        if e == "*" {
            self.all = true;
            return Ok(());
        }
        if e.is_empty() {
            return Err(bad("it is empty"));
        }
        if e.contains("://") {
            return Err(bad("give the host, not a URL"));
        }
        if let Some((net, bits)) = e.split_once('/') {
            let ip: IpAddr = net
                .parse()
                .map_err(|_| bad("the network is not an IP address"))?;
            let max = if ip.is_ipv4() { 32 } else { 128 };
            let bits: u8 = bits
                .parse()
                .ok()
                .filter(|b| *b <= max)
                .ok_or_else(|| bad("the prefix length is out of range"))?;
            self.nets.push((ip, bits));
            return Ok(());
        }
        if let Ok(ip) = e.parse::<IpAddr>() {
            self.hosts.push((ip.to_string(), None));
            return Ok(());
        }
        if let Ok(sa) = e.parse::<SocketAddr>() {
            self.hosts.push((sa.ip().to_string(), Some(sa.port())));
            return Ok(());
        }
        let (host, port) = match e.rsplit_once(':') {
            Some((h, p)) => (
                h,
                Some(
                    p.parse::<u16>()
                        .map_err(|_| bad("the port is not a number"))?,
                ),
            ),
            None => (e.as_str(), None),
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let (suffix, host) = match host.strip_prefix("*.") {
            Some(h) => (true, h),
            None => (false, host),
        };
        if host.is_empty()
            || !host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':'))
        {
            return Err(bad("the host name has characters a host name cannot have"));
        }
        let name = if suffix {
            format!(".{host}")
        } else {
            host.to_string()
        };
        self.hosts.push((name, port));
        Ok(())
    }

    /// True when `*` turned the guard off.
    pub fn is_off(&self) -> bool {
        self.all
    }

    /// The refusal of `host` on `port` at `addr`, as [`check`](Self::check) reports it.
    pub fn refusal(host: &str, port: u16, addr: IpAddr) -> Refusal {
        Refusal {
            host: host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_string(),
            port,
            addr,
            class: classify(addr),
        }
    }

    /// Whether `host` (a name or an IP literal, brackets allowed) on `port` is allowed by name,
    /// whatever it resolves to.
    pub fn allows_name(&self, host: &str, port: u16) -> bool {
        if self.all {
            return true;
        }
        let h = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .trim_end_matches('.')
            .to_ascii_lowercase();
        let h = h.parse::<IpAddr>().map(|ip| ip.to_string()).unwrap_or(h);
        self.hosts.iter().any(|(n, p)| {
            let named = if n.starts_with('.') {
                h.ends_with(n.as_str())
            } else {
                *n == h
            };
            named && p.is_none_or(|p| p == port)
        })
    }

    /// Whether a connection to `addr` is allowed: a public address, or one inside an allowed
    /// network.
    pub fn allows_addr(&self, addr: IpAddr) -> bool {
        self.all
            || classify(addr) == AddressClass::Public
            || self
                .nets
                .iter()
                .any(|(net, bits)| in_net(addr, *net, *bits))
    }

    /// Whether `host` on `port` may be reached at `addr`.
    pub fn check(&self, host: &str, port: u16, addr: IpAddr) -> Result<(), Refusal> {
        if self.allows_name(host, port) || self.allows_addr(addr) {
            return Ok(());
        }
        Err(AddressGuard::refusal(host, port, addr))
    }

    /// The addresses `host` resolved to that may be used, in order; the refusal of the first
    /// one when none may.
    pub fn filter(
        &self,
        host: &str,
        port: u16,
        addrs: impl IntoIterator<Item = SocketAddr>,
    ) -> Result<Vec<SocketAddr>, Refusal> {
        let mut kept = Vec::new();
        let mut first = None;
        for a in addrs {
            match self.check(host, port, a.ip()) {
                Ok(()) => kept.push(a),
                Err(r) => {
                    first.get_or_insert(r);
                }
            }
        }
        match (kept.is_empty(), first) {
            (true, Some(r)) => Err(r),
            _ => Ok(kept),
        }
    }
}

fn in_net(addr: IpAddr, net: IpAddr, bits: u8) -> bool {
    let (a, n, width) = match (addr, net) {
        (IpAddr::V4(a), IpAddr::V4(n)) => (u32::from(a) as u128, u32::from(n) as u128, 32),
        (IpAddr::V6(a), IpAddr::V6(n)) => (u128::from(a), u128::from(n), 128),
        (IpAddr::V6(a), IpAddr::V4(_)) => match embedded_v4(a) {
            Some(v4) => return in_net(IpAddr::V4(v4), net, bits),
            None => return false,
        },
        _ => return false,
    };
    if bits == 0 {
        return true;
    }
    let shift = width - bits as u32;
    (a >> shift) == (n >> shift)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn classes() {
        for (s, c) in [
            ("8.8.8.8", AddressClass::Public),
            ("127.0.0.1", AddressClass::Loopback),
            ("127.255.0.9", AddressClass::Loopback),
            ("10.1.2.3", AddressClass::Private),
            ("172.16.0.1", AddressClass::Private),
            ("172.32.0.1", AddressClass::Public),
            ("192.168.1.1", AddressClass::Private),
            ("100.64.0.1", AddressClass::Private),
            ("169.254.169.254", AddressClass::Metadata),
            ("169.254.1.1", AddressClass::LinkLocal),
            ("0.0.0.0", AddressClass::Unspecified),
            ("224.0.0.1", AddressClass::Multicast),
            ("255.255.255.255", AddressClass::Reserved),
            ("::1", AddressClass::Loopback),
            ("::", AddressClass::Unspecified),
            ("::ffff:127.0.0.1", AddressClass::Loopback),
            ("::ffff:10.0.0.1", AddressClass::Private),
            ("64:ff9b::a9fe:a9fe", AddressClass::Metadata),
            ("2002:7f00:1::", AddressClass::Loopback),
            ("fd12::1", AddressClass::Private),
            ("fe80::1", AddressClass::LinkLocal),
            ("fd00:ec2::254", AddressClass::Metadata),
            ("ff02::1", AddressClass::Multicast),
            ("2606:4700::1111", AddressClass::Public),
        ] {
            assert_eq!(classify(ip(s)), c, "{s}");
        }
    }

    #[test]
    fn nothing_private_is_allowed_by_default() {
        let g = AddressGuard::default();
        assert!(g.check("example.org", 80, ip("93.184.216.34")).is_ok());
        let r = g.check("evil.example", 80, ip("127.0.0.1")).unwrap_err();
        let msg = r.to_string();
        assert!(
            msg.contains("evil.example resolves to 127.0.0.1, a loopback address"),
            "{msg}"
        );
        assert!(msg.contains("\"evil.example:80\""), "{msg}");
        let r = g
            .check("169.254.169.254", 80, ip("169.254.169.254"))
            .unwrap_err();
        assert!(r
            .to_string()
            .starts_with("169.254.169.254 is a cloud metadata address"));
    }

    #[test]
    fn entries_allow_names_ports_and_networks() {
        let g = AddressGuard::parse(&["Wiki.Corp", "127.0.0.1:8080", "[::1]:9000", "10.20.0.0/16"])
            .unwrap();
        assert!(g.check("wiki.corp", 1234, ip("192.168.0.1")).is_ok());
        assert!(g.check("WIKI.CORP.", 1234, ip("192.168.0.1")).is_ok());
        assert!(g.check("127.0.0.1", 8080, ip("127.0.0.1")).is_ok());
        assert!(g.check("127.0.0.1", 8081, ip("127.0.0.1")).is_err());
        assert!(g.check("[::1]", 9000, ip("::1")).is_ok());
        assert!(g.check("::1", 9001, ip("::1")).is_err());
        assert!(g.check("files", 80, ip("10.20.3.4")).is_ok());
        assert!(g.check("files", 80, ip("::ffff:10.20.3.4")).is_ok());
        assert!(g.check("files", 80, ip("10.21.3.4")).is_err());
        let sub = AddressGuard::parse(&["*.corp.example"]).unwrap();
        assert!(sub.allows_name("wiki.corp.example", 80));
        assert!(!sub.allows_name("corp.example", 80));
        assert!(!sub.allows_name("evilcorp.example", 80));
        assert!(AddressGuard::parse(&["*"])
            .unwrap()
            .check("x", 1, ip("127.0.0.1"))
            .is_ok());
    }

    #[test]
    fn filter_keeps_public_addresses_and_refuses_when_none_is_left() {
        let g = AddressGuard::default();
        let a: SocketAddr = "127.0.0.1:80".parse().unwrap();
        let b: SocketAddr = "93.184.216.34:80".parse().unwrap();
        assert_eq!(g.filter("mixed", 80, [a, b]).unwrap(), vec![b]);
        assert_eq!(g.filter("local", 80, [a]).unwrap_err().addr, a.ip());
    }

    #[test]
    fn bad_entries_are_named() {
        for bad in ["http://wiki.corp/", "10.0.0.0/33", "wiki:port", "a b", ""] {
            let e = AddressGuard::parse(&[bad]).unwrap_err();
            assert!(e.contains(&format!("\"{bad}\"")), "{e}");
        }
    }
}
