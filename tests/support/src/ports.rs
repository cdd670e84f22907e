//! Loopback ports for servers whose address must be known before they listen (a gateway
//! process that comes back where it was, a public URL written into an emulator's callbacks).
//!
//! A port taken with `bind(127.0.0.1:0)` and let go comes from the kernel's ephemeral range,
//! the same range every outgoing connection takes its local port from. Until the server binds
//! it, any test's connection can take it, and the server then fails to start (it happened once,
//! to an operator test). These ports come from below that range instead, where only a `bind`
//! to that very port can take them, and no process hands out the same one twice.

use std::hash::{BuildHasher, Hasher};
use std::net::TcpListener;
use std::ops::Range;
use std::sync::Mutex;

/// Where the kernel's ephemeral range starts when `/proc` does not say (Linux's default).
const EPHEMERAL_START: u16 = 32768;
/// The lowest port handed out: above the well-known and registered services a machine runs.
const LOWEST: u16 = 20000;

static HANDED_OUT: Mutex<Vec<u16>> = Mutex::new(Vec::new());

/// A free loopback port below the ephemeral range, never handed out before by this process.
pub fn free_port() -> u16 {
    let Range {
        start: lowest,
        end: top,
    } = handed_out_range();
    let mut handed_out = HANDED_OUT.lock().unwrap();
    // Random, not sequential, so that test processes running side by side rarely try the same
    // port; `bind` settles it when they do.
    let random = std::collections::hash_map::RandomState::new();
    for attempt in 0u64..1000 {
        let mut hasher = random.build_hasher();
        hasher.write_u64(attempt);
        let port = lowest + (hasher.finish() % u64::from(top - lowest)) as u16;
        if !handed_out.contains(&port) && TcpListener::bind(("127.0.0.1", port)).is_ok() {
            handed_out.push(port);
            return port;
        }
    }
    panic!("no free loopback port between {lowest} and {top}");
}

/// Where ports are handed out: from `LOWEST` to the ephemeral range, and at least a thousand
/// ports wide when that range starts lower (a machine set so is open to the race again).
fn handed_out_range() -> Range<u16> {
    LOWEST..ephemeral_start().max(LOWEST + 1000)
}

/// The first port of the kernel's ephemeral range (`/proc/sys/net/ipv4/ip_local_port_range`).
fn ephemeral_start() -> u16 {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| range.split_whitespace().next()?.parse().ok())
        .unwrap_or(EPHEMERAL_START)
}

#[test]
fn ports_are_below_the_ephemeral_range_and_never_repeat() {
    use std::collections::HashSet;

    let ports: Vec<u16> = (0..50).map(|_| free_port()).collect();
    let distinct: HashSet<u16> = ports.iter().copied().collect();
    assert_eq!(distinct.len(), ports.len(), "a port was handed out twice: {ports:?}");
    assert!(ports.iter().all(|p| handed_out_range().contains(p)), "{ports:?}");
}
