//! Address ranges (`10.0.0.0/8`, `2001:db8::/32`, or one address): the IANA special-purpose
//! tables of the webhook guard and the trusted proxies of the HTTP layer are written with them.
//! And URLs as logs and stored records may show them (`redact.rs`), and the rule of a merchant's
//! return URL (`return_url.rs`).

mod redact;
mod return_url;

pub use redact::{redact_error, redact_url};
pub use return_url::{origins, return_url, ReturnUrlProblem, MAX_RETURN_URL_CHARS};

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// A CIDR block: an address and how many of its leading bits a member shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IpRange {
    first: IpAddr,
    prefix: u8,
}

impl IpRange {
    /// `a.b.c.d/prefix`, for constant tables.
    pub const fn v4(octets: [u8; 4], prefix: u8) -> IpRange {
        IpRange {
            first: IpAddr::V4(Ipv4Addr::new(octets[0], octets[1], octets[2], octets[3])),
            prefix,
        }
    }

    /// `segments/prefix`, for constant tables.
    pub const fn v6(s: [u16; 8], prefix: u8) -> IpRange {
        IpRange {
            first: IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7])),
            prefix,
        }
    }

    /// `10.0.0.0/8`, `fd00::/8`, or a lone address (`192.0.2.7`, `::1`) meaning only itself.
    /// Bits set past the prefix are refused: `10.0.0.1/8` is most likely a typing mistake.
    pub fn parse(text: &str) -> Option<IpRange> {
        let (address, prefix) = match text.trim().split_once('/') {
            Some((address, prefix)) => (address, Some(prefix)),
            None => (text.trim(), None),
        };
        let first: IpAddr = address.parse().ok()?;
        let bits = if first.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            Some(p) if p.bytes().all(|b| b.is_ascii_digit()) => p.parse::<u8>().ok().filter(|p| *p <= bits)?,
            Some(_) => return None,
            None => bits,
        };
        let range = IpRange { first, prefix };
        (range.network_bits(first) == Some(bits_of(first))).then_some(range)
    }

    /// Whether `ip` is in the range. An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) is
    /// compared as the IPv4 address it carries, as the kernel of a dual-stack listener shows
    /// IPv4 peers that way.
    pub fn contains(&self, ip: IpAddr) -> bool {
        self.network_bits(ip.to_canonical()) == self.network_bits(self.first)
    }

    /// The first `prefix` bits of `ip`, the others cleared; `None` for the other family.
    fn network_bits(&self, ip: IpAddr) -> Option<u128> {
        let (bits, width) = match (ip, self.first) {
            (IpAddr::V4(a), IpAddr::V4(_)) => (u32::from(a) as u128, 32),
            (IpAddr::V6(a), IpAddr::V6(_)) => (u128::from(a), 128),
            _ => return None,
        };
        let host_bits = width - u32::from(self.prefix);
        let mask = if host_bits >= width {
            0
        } else {
            (u128::MAX >> (128 - width)) >> host_bits << host_bits
        };
        Some(bits & mask)
    }
}

fn bits_of(ip: IpAddr) -> u128 {
    match ip {
        IpAddr::V4(a) => u32::from(a) as u128,
        IpAddr::V6(a) => u128::from(a),
    }
}

impl fmt::Display for IpRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.first, self.prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn a_range_holds_the_addresses_that_share_its_prefix() {
        let private = IpRange::parse("10.0.0.0/8").unwrap();
        assert!(private.contains(ip("10.255.1.2")));
        assert!(!private.contains(ip("11.0.0.0")));
        assert!(
            private.contains(ip("::ffff:10.1.2.3")),
            "an IPv4-mapped peer is its IPv4 address"
        );
        assert!(!private.contains(ip("::10.1.2.3")), "another family is not in it");
        let v6 = IpRange::parse("2001:db8::/32").unwrap();
        assert!(v6.contains(ip("2001:db8:ffff::1")));
        assert!(!v6.contains(ip("2001:db9::1")));
        let one = IpRange::parse(" 192.0.2.7 ").unwrap();
        assert!(one.contains(ip("192.0.2.7")) && !one.contains(ip("192.0.2.8")));
        assert_eq!(one.to_string(), "192.0.2.7/32");
        let all = IpRange::parse("0.0.0.0/0").unwrap();
        assert!(all.contains(ip("203.0.113.9")) && !all.contains(ip("::1")));
        assert!(IpRange::parse("::/0").unwrap().contains(ip("fe80::1")));
        assert_eq!(
            IpRange::v4([172, 16, 0, 0], 12),
            IpRange::parse("172.16.0.0/12").unwrap()
        );
    }

    #[test]
    fn malformed_ranges_are_refused() {
        for bad in [
            "",
            "10.0.0.0/33",
            "::/129",
            "10.0.0.1/8",
            "10.0.0.0/",
            "10.0.0.0/+8",
            "10.0.0/8",
            "example.com",
            "fe80::1%eth0",
        ] {
            assert_eq!(IpRange::parse(bad), None, "{bad}");
        }
    }
}
