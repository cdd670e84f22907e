//! The client's address, for the per-address limit of `/v1/auth`. It is the connection's peer,
//! unless the peer is one of `MOMO_TRUSTED_PROXIES`: then the proxies' `X-Forwarded-For` (or,
//! without it, RFC 7239 `Forwarded`) is read from the right, each trusted proxy appending the
//! address it got the request from, and the first address that is not a trusted proxy is the
//! client. Entries further left were written by the client itself and prove nothing; reading
//! from the left would let anyone pick the bucket they are counted in.

use std::net::{IpAddr, SocketAddr};

use axum::http::HeaderMap;

use crate::net::IpRange;

/// The address to count `peer`'s request against.
pub fn client_address(peer: IpAddr, headers: &HeaderMap, trusted: &[IpRange]) -> IpAddr {
    let is_trusted = |ip: IpAddr| trusted.iter().any(|range| range.contains(ip));
    let mut client = peer.to_canonical();
    if !is_trusted(client) {
        return client;
    }
    for hop in forwarded_hops(headers).into_iter().rev() {
        match hop {
            Some(ip) if is_trusted(ip) => client = ip,
            Some(ip) => return ip,
            // `unknown`, an obfuscated name or garbage: the last trusted hop is all we know.
            None => return client,
        }
    }
    // Every hop is a trusted proxy (or there is no header): the last one we reached.
    client
}

/// The addresses a request passed through, client first: `X-Forwarded-For` when present, else
/// `Forwarded`; `None` for an entry that is not an address.
fn forwarded_hops(headers: &HeaderMap) -> Vec<Option<IpAddr>> {
    let joined = |name: &str| -> Option<String> {
        let values: Vec<&str> = headers
            .get_all(name)
            .iter()
            .map(|v| v.to_str().unwrap_or("\u{0}"))
            .collect();
        (!values.is_empty()).then(|| values.join(","))
    };
    if let Some(list) = joined("x-forwarded-for") {
        return list.split(',').map(hop).collect();
    }
    let Some(list) = joined("forwarded") else {
        return Vec::new();
    };
    list.split(',')
        .map(|element| {
            let value = element.split(';').find_map(|pair| {
                let (key, value) = pair.split_once('=')?;
                key.trim().eq_ignore_ascii_case("for").then_some(value)
            })?;
            hop(value.trim().trim_matches('"'))
        })
        .collect()
}

/// One entry: an address, with or without a port (`203.0.113.7:4711`, `[2001:db8::7]:4711`).
fn hop(entry: &str) -> Option<IpAddr> {
    let entry = entry.trim();
    let ip = entry
        .parse::<IpAddr>()
        .or_else(|_| entry.parse::<SocketAddr>().map(|s| s.ip()))
        .or_else(|_| entry.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>())
        .ok()?;
    Some(ip.to_canonical())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    fn proxies() -> Vec<IpRange> {
        ["10.0.0.0/8", "192.0.2.7"]
            .iter()
            .map(|r| IpRange::parse(r).unwrap())
            .collect()
    }

    fn from(peer: &str, headers: &[(&str, &str)]) -> IpAddr {
        let mut map = HeaderMap::new();
        for (name, value) in headers {
            let name = axum::http::HeaderName::from_bytes(name.as_bytes()).unwrap();
            map.append(name, value.parse().unwrap());
        }
        client_address(ip(peer), &map, &proxies())
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_says() {
        let xff = [("x-forwarded-for", "198.51.100.1")];
        assert_eq!(from("203.0.113.9", &xff), ip("203.0.113.9"));
        assert_eq!(
            client_address(ip("10.0.0.2"), &HeaderMap::new(), &[]),
            ip("10.0.0.2"),
            "no proxy is trusted by default"
        );
    }

    #[test]
    fn behind_trusted_proxies_the_rightmost_untrusted_address_is_the_client() {
        let through_two = [("x-forwarded-for", "198.51.100.1, 203.0.113.5, 10.1.1.1")];
        assert_eq!(
            from("10.0.0.2", &through_two),
            ip("203.0.113.5"),
            "a forged entry on the left is ignored"
        );
        let lines = [("x-forwarded-for", "203.0.113.5"), ("x-forwarded-for", "192.0.2.7")];
        assert_eq!(
            from("10.0.0.2", &lines),
            ip("203.0.113.5"),
            "several header lines are one list"
        );
        assert_eq!(
            from("::ffff:10.0.0.2", &[("x-forwarded-for", "203.0.113.5:4711")]),
            ip("203.0.113.5")
        );
        assert_eq!(
            from("10.0.0.2", &[("x-forwarded-for", "10.0.0.3, 10.0.0.4")]),
            ip("10.0.0.3")
        );
        assert_eq!(from("10.0.0.2", &[]), ip("10.0.0.2"), "no header: the proxy itself");
    }

    #[test]
    fn an_entry_that_is_not_an_address_stops_at_the_last_trusted_hop() {
        let garbled = [("x-forwarded-for", "203.0.113.5, nonsense, 10.0.0.3")];
        assert_eq!(from("10.0.0.2", &garbled), ip("10.0.0.3"));
        assert_eq!(from("10.0.0.2", &[("x-forwarded-for", "")]), ip("10.0.0.2"));
    }

    #[test]
    fn forwarded_is_read_when_x_forwarded_for_is_absent() {
        let standard = [(
            "forwarded",
            "for=198.51.100.1, for=\"[2001:db8:cafe::17]:4711\";proto=https, For=10.0.0.3;by=10.0.0.2",
        )];
        assert_eq!(from("10.0.0.2", &standard), ip("2001:db8:cafe::17"));
        assert_eq!(from("10.0.0.2", &[("forwarded", "for=unknown")]), ip("10.0.0.2"));
        assert_eq!(from("10.0.0.2", &[("forwarded", "proto=https")]), ip("10.0.0.2"));
        let both = [("forwarded", "for=198.51.100.1"), ("x-forwarded-for", "203.0.113.5")];
        assert_eq!(from("10.0.0.2", &both), ip("203.0.113.5"), "X-Forwarded-For first");
    }
}
