//! The standard `process_*` metrics (CPU time, memory, open files, start time), read from
//! `/proc` at each scrape. `prometheus-client` has no process collector, and the crates that
//! do pull a whole `/proc` parser for six numbers; these are the ones every Prometheus client
//! exports, under the names dashboards expect. Elsewhere than Linux nothing is shown.

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;

/// `/proc` reports CPU time in `USER_HZ`, 100 on every Linux architecture we run on.
const TICKS_PER_SECOND: f64 = 100.0;

#[derive(Debug)]
pub struct ProcessCollector;

/// What `/proc` says of this process.
#[derive(Debug, Default, PartialEq)]
struct Process {
    cpu_seconds: f64,
    start_time_seconds: Option<f64>,
    resident_bytes: Option<f64>,
    virtual_bytes: Option<f64>,
    open_fds: Option<f64>,
    max_fds: Option<f64>,
}

impl Process {
    fn read() -> Option<Process> {
        let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let boot = std::fs::read_to_string("/proc/stat").unwrap_or_default();
        let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
        let open_fds = std::fs::read_dir("/proc/self/fd").ok().map(|d| d.count() as f64);
        let mut process = parse(&stat, &status, &boot, &limits)?;
        process.open_fds = open_fds;
        Some(process)
    }
}

/// The figures of `/proc/self/stat`, `/proc/self/status`, `/proc/stat` and `/proc/self/limits`.
fn parse(stat: &str, status: &str, boot: &str, limits: &str) -> Option<Process> {
    // The command name, in parentheses, may hold spaces: the fields start after its last `)`.
    let fields: Vec<&str> = stat.get(stat.rfind(')')? + 1..)?.split_whitespace().collect();
    // Fields 14, 15 and 22 of proc(5), counted from the state (field 3) at index 0.
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok());
    let cpu_seconds = (ticks(11)? + ticks(12)?) / TICKS_PER_SECOND;
    let boot_time = boot
        .lines()
        .find_map(|l| l.strip_prefix("btime "))
        .and_then(|v| v.trim().parse::<f64>().ok());
    let kib = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse::<f64>().ok())
            .map(|v| v * 1024.0)
    };
    let max_fds = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .and_then(|l| l.split_whitespace().nth(3))
        .and_then(|v| v.parse::<f64>().ok());
    Some(Process {
        cpu_seconds,
        start_time_seconds: boot_time.zip(ticks(19)).map(|(b, t)| b + t / TICKS_PER_SECOND),
        resident_bytes: kib("VmRSS:"),
        virtual_bytes: kib("VmSize:"),
        open_fds: None,
        max_fds,
    })
}

impl Collector for ProcessCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let Some(p) = Process::read() else {
            return Ok(());
        };
        let cpu = ConstCounter::new(p.cpu_seconds);
        cpu.encode(encoder.encode_descriptor(
            "process_cpu_seconds",
            "User and system CPU time spent, in seconds",
            None,
            cpu.metric_type(),
        )?)?;
        let gauges = [
            (
                "process_start_time_seconds",
                "Start time of the process since the Unix epoch, in seconds",
                p.start_time_seconds,
            ),
            (
                "process_resident_memory_bytes",
                "Resident memory size, in bytes",
                p.resident_bytes,
            ),
            (
                "process_virtual_memory_bytes",
                "Virtual memory size, in bytes",
                p.virtual_bytes,
            ),
            ("process_open_fds", "Open file descriptors", p.open_fds),
            (
                "process_max_fds",
                "The most file descriptors the process may open",
                p.max_fds,
            ),
        ];
        for (name, help, value) in gauges {
            if let Some(value) = value {
                let gauge = ConstGauge::new(value);
                gauge.encode(encoder.encode_descriptor(name, help, None, gauge.metric_type())?)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_files_are_read_even_with_spaces_in_the_command_name() {
        let stat = "4242 (momo gate) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 8 0 12345 \
                    1000000 3000 18446744073709551615";
        let status = "Name:\tmomo\nVmSize:\t  20480 kB\nVmRSS:\t   8192 kB\n";
        let boot = "cpu  1 2 3\nbtime 1700000000\n";
        let limits = "Limit                     Soft Limit           Hard Limit           Units\n\
                      Max open files            1024                 524288               files\n";
        let p = parse(stat, status, boot, limits).unwrap();
        assert_eq!(p.cpu_seconds, 3.0);
        assert_eq!(p.start_time_seconds, Some(1_700_000_123.45));
        assert_eq!(p.resident_bytes, Some(8192.0 * 1024.0));
        assert_eq!(p.virtual_bytes, Some(20480.0 * 1024.0));
        assert_eq!(p.max_fds, Some(1024.0));
        assert_eq!(parse("garbage", "", "", ""), None);
    }

    #[test]
    fn this_process_is_read_on_linux() {
        if cfg!(target_os = "linux") {
            let p = Process::read().expect("/proc is there on Linux");
            assert!(p.resident_bytes.is_some_and(|b| b > 0.0));
            assert!(p.open_fds.is_some_and(|n| n >= 1.0));
        }
    }
}
