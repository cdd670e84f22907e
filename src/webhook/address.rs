//! Which addresses a webhook may be sent to: the public Internet only. Every block of the IANA
//! IPv4 and IPv6 Special-Purpose Address Registries is refused, reachable or not (no merchant
//! hosts a webhook on an anycast relay, and a table is easier to check than exceptions), and so
//! are multicast and, in IPv6, everything outside global unicast (`2000::/3`). IPv6 forms that
//! carry an IPv4 address (mapped, compatible, NAT64, 6to4) are judged by that address, since
//! that is where a packet to them ends up.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::net::IpRange;

/// The IPv4 special-purpose registry (RFC 6890 and later), with multicast.
const SPECIAL_V4: &[(IpRange, &str)] = &[
    (IpRange::v4([0, 0, 0, 0], 8), "this network"),
    (IpRange::v4([10, 0, 0, 0], 8), "private use"),
    (
        IpRange::v4([100, 64, 0, 0], 10),
        "shared address space (carrier-grade NAT)",
    ),
    (IpRange::v4([127, 0, 0, 0], 8), "loopback"),
    (IpRange::v4([169, 254, 0, 0], 16), "link local"),
    (IpRange::v4([172, 16, 0, 0], 12), "private use"),
    (IpRange::v4([192, 0, 0, 0], 24), "IETF protocol assignments"),
    (IpRange::v4([192, 0, 2, 0], 24), "documentation (TEST-NET-1)"),
    (IpRange::v4([192, 31, 196, 0], 24), "AS112"),
    (IpRange::v4([192, 52, 193, 0], 24), "AMT"),
    (IpRange::v4([192, 88, 99, 0], 24), "6to4 relay anycast"),
    (IpRange::v4([192, 168, 0, 0], 16), "private use"),
    (IpRange::v4([192, 175, 48, 0], 24), "AS112 direct delegation"),
    (IpRange::v4([198, 18, 0, 0], 15), "benchmarking"),
    (IpRange::v4([198, 51, 100, 0], 24), "documentation (TEST-NET-2)"),
    (IpRange::v4([203, 0, 113, 0], 24), "documentation (TEST-NET-3)"),
    (IpRange::v4([224, 0, 0, 0], 4), "multicast"),
    (
        IpRange::v4([240, 0, 0, 0], 4),
        "reserved, and the limited broadcast address",
    ),
];

/// The IPv6 special-purpose registry, with site-local and multicast. The blocks that carry an
/// IPv4 address are not here: [`embedded_v4`] reads them.
const SPECIAL_V6: &[(IpRange, &str)] = &[
    (IpRange::v6([0, 0, 0, 0, 0, 0, 0, 1], 128), "loopback"),
    (IpRange::v6([0, 0, 0, 0, 0, 0, 0, 0], 128), "unspecified"),
    (
        IpRange::v6([0x64, 0xff9b, 1, 0, 0, 0, 0, 0], 48),
        "local-use IPv4/IPv6 translation",
    ),
    (IpRange::v6([0x100, 0, 0, 0, 0, 0, 0, 0], 64), "discard only"),
    (IpRange::v6([0x100, 0, 0, 1, 0, 0, 0, 0], 64), "dummy prefix"),
    (
        IpRange::v6([0x2001, 0, 0, 0, 0, 0, 0, 0], 23),
        "IETF protocol assignments (Teredo included)",
    ),
    (IpRange::v6([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0], 32), "documentation"),
    (
        IpRange::v6([0x2620, 0x4f, 0x8000, 0, 0, 0, 0, 0], 48),
        "AS112 direct delegation",
    ),
    (IpRange::v6([0x3fff, 0, 0, 0, 0, 0, 0, 0], 20), "documentation"),
    (
        IpRange::v6([0x5f00, 0, 0, 0, 0, 0, 0, 0], 16),
        "segment routing (SRv6) SIDs",
    ),
    (IpRange::v6([0xfc00, 0, 0, 0, 0, 0, 0, 0], 7), "unique local"),
    (IpRange::v6([0xfe80, 0, 0, 0, 0, 0, 0, 0], 10), "link local"),
    (
        IpRange::v6([0xfec0, 0, 0, 0, 0, 0, 0, 0], 10),
        "site local (deprecated)",
    ),
    (IpRange::v6([0xff00, 0, 0, 0, 0, 0, 0, 0], 8), "multicast"),
];

/// IPv6 global unicast: the only IPv6 space routed on the Internet today.
const GLOBAL_UNICAST_V6: IpRange = IpRange::v6([0x2000, 0, 0, 0, 0, 0, 0, 0], 3);

/// Whether a webhook may be sent to `ip`.
pub fn is_public(ip: IpAddr) -> bool {
    special_purpose(ip).is_none()
}

/// Why `ip` is not public (the registry's name of its block), or `None` when it is.
pub fn special_purpose(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => SPECIAL_V4
            .iter()
            .find(|(range, _)| range.contains(IpAddr::V4(v4)))
            .map(|(_, name)| *name),
        IpAddr::V6(v6) => {
            if let Some(v4) = embedded_v4(v6) {
                return special_purpose(IpAddr::V4(v4));
            }
            if let Some((_, name)) = SPECIAL_V6.iter().find(|(range, _)| range.contains(IpAddr::V6(v6))) {
                return Some(name);
            }
            (!GLOBAL_UNICAST_V6.contains(IpAddr::V6(v6))).then_some("outside IPv6 global unicast")
        }
    }
}

/// The IPv4 address an IPv6 address stands for: IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible
/// `::a.b.c.d` (`::` and `::1` included, which land in `0.0.0.0/8`), NAT64 `64:ff9b::a.b.c.d`
/// and 6to4 `2002:AABB:CCDD::/48`.
fn embedded_v4(v6: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = v6.segments();
    let last = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    match s {
        [0, 0, 0, 0, 0, 0xffff, _, _] | [0, 0, 0, 0, 0, 0, _, _] | [0x64, 0xff9b, 0, 0, 0, 0, _, _] => Some(last),
        [0x2002, hi, lo, ..] => Some(Ipv4Addr::new((hi >> 8) as u8, hi as u8, (lo >> 8) as u8, lo as u8)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn public(text: &str) -> bool {
        is_public(text.parse().unwrap())
    }

    /// One address inside each special-purpose block, and the block's edges where an
    /// off-by-one would show.
    #[test]
    fn every_ipv4_special_purpose_block_is_refused() {
        for ip in [
            "0.0.0.0",
            "0.255.255.255",
            "10.1.2.3",
            "100.64.0.1",
            "100.127.255.255",
            "127.0.0.1",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.0.0.1",
            "192.0.0.9",
            "192.0.0.170",
            "192.0.2.1",
            "192.31.196.1",
            "192.52.193.1",
            "192.88.99.1",
            "192.168.1.1",
            "192.175.48.1",
            "198.18.0.1",
            "198.19.255.255",
            "198.51.100.1",
            "203.0.113.1",
            "224.0.0.1",
            "239.255.255.250",
            "240.0.0.1",
            "255.255.255.255",
        ] {
            assert!(!public(ip), "{ip}");
        }
        for ip in [
            "8.8.8.8",
            "41.202.219.1",
            "100.63.255.255",
            "100.128.0.0",
            "172.15.255.255",
            "172.32.0.0",
            "192.0.1.1",
            "198.17.255.255",
            "198.20.0.0",
            "223.255.255.255",
        ] {
            assert!(public(ip), "{ip}");
        }
    }

    #[test]
    fn every_ipv6_special_purpose_block_is_refused() {
        for ip in [
            "::1",
            "::",
            "64:ff9b:1::1",
            "100::1",
            "100:0:0:1::1",
            "2001::1",
            "2001:1::1",
            "2001:1ff::1",
            "2001:db8::1",
            "2620:4f:8000::1",
            "3fff::1",
            "5f00::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "fec0::1",
            "ff02::1",
            "4000::1",
            "1::1",
        ] {
            assert!(!public(ip), "{ip}");
        }
        for ip in [
            "2001:4860:4860::8888",
            "2a00:1450:4007::1",
            "2001:200::1",
            "2c0f:f8f0::1",
        ] {
            assert!(public(ip), "{ip}");
        }
    }

    #[test]
    fn ipv6_forms_that_carry_an_ipv4_address_are_judged_by_it() {
        for (v6, verdict) in [
            ("::ffff:127.0.0.1", false),
            ("::ffff:10.0.0.1", false),
            ("::ffff:8.8.8.8", true),
            ("::127.0.0.1", false),
            ("::192.168.0.1", false),
            ("::8.8.8.8", true),
            ("64:ff9b::127.0.0.1", false),
            ("64:ff9b::a9fe:a9fe", false),
            ("64:ff9b::8.8.8.8", true),
            ("2002:7f00:1::", false),
            ("2002:c0a8:101::1", false),
            ("2002:808:808::1", true),
        ] {
            assert_eq!(public(v6), verdict, "{v6}");
        }
    }

    #[test]
    fn the_refusal_names_the_block() {
        assert_eq!(special_purpose("198.18.0.1".parse().unwrap()), Some("benchmarking"));
        assert_eq!(special_purpose("::ffff:127.0.0.1".parse().unwrap()), Some("loopback"));
        assert_eq!(special_purpose("8.8.8.8".parse().unwrap()), None);
    }
}
