//! Fault plans as data: the `X-Emulator-Fault` header syntax, its parser, and the rules that
//! apply faults by default (from the settings or `POST /_emulator/faults`), optionally to one
//! endpoint and a limited number of times.
//!
//! Syntax: comma-separated items, each `key=value` or a bare flag.
//!
//! | item | effect |
//! |---|---|
//! | `latency=500ms` | wait before handling (`ms`, `s`, or a bare number of milliseconds) |
//! | `status=503` | answer that status (400–599) with the protocol's error body, executing nothing |
//! | `timeout=2s` | execute, then hold the answer that long (past the client's timeout) |
//! | `reset` / `reset=before` | drop the connection without answering, executing nothing |
//! | `reset=after` | execute, then drop the connection without answering |
//! | `not_found` | a status lookup answers 404, as for a reference never received |
//! | `callback=drop` | no callback / webhook at all |
//! | `callback=duplicate` | every callback / webhook sent twice |
//! | `callback=out_of_order` | the final callback, then an earlier state's (MoMo `PENDING`) |
//! | `callback=bad_signature` | Wave webhooks signed with the wrong secret |
//! | `callback_delay=1s` | callbacks sent that long after the payment settles |
//! | `approve_after=3s` | the payer approves late: the payment succeeds that long after it arrives |
//! | `answer=malformed` | a 200's body is cut short: not JSON |
//! | `answer=unknown_status` | a 200's statuses are ones the protocol does not define |
//! | `answer=other_amount` / `answer=other_currency` | a 200 speaks of ten times the amount / of EUR |
//!
//! Several `callback=` items add up; `callback=duplicate+bad_signature` is the same as two items.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// When a `reset` drops the connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResetWhen {
    /// Before executing anything.
    Before,
    /// After executing the request.
    After,
}

/// What happens to the callbacks of a payment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallbackFaults {
    pub drop: bool,
    pub duplicate: bool,
    pub out_of_order: bool,
    pub bad_signature: bool,
    pub delay: Option<Duration>,
}

/// A lie in an answer's body, for the client's checks of what an operator says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tamper {
    Malformed,
    UnknownStatus,
    OtherAmount,
    OtherCurrency,
}

/// The faults that apply to one request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Faults {
    pub latency: Option<Duration>,
    pub status: Option<u16>,
    pub timeout: Option<Duration>,
    pub reset: Option<ResetWhen>,
    pub not_found: bool,
    pub callback: CallbackFaults,
    pub approve_after: Option<Duration>,
    pub answer: Option<Tamper>,
}

/// Parses `500ms`, `2s`, `1m` or a bare number of milliseconds.
pub fn parse_duration(raw: &str) -> Result<Duration, String> {
    let raw = raw.trim();
    let (number, unit) = match raw.find(|c: char| !c.is_ascii_digit()) {
        Some(at) => raw.split_at(at),
        None => (raw, "ms"),
    };
    let n: u64 = number
        .parse()
        .map_err(|_| format!("{raw:?} is not a duration like 500ms or 2s"))?;
    match unit {
        "ms" => Ok(Duration::from_millis(n)),
        "s" => Ok(Duration::from_secs(n)),
        "m" => Ok(Duration::from_secs(n * 60)),
        _ => Err(format!("{raw:?}: the unit must be ms, s or m")),
    }
}

impl Faults {
    /// Parses the header syntax (see the module documentation).
    pub fn parse(raw: &str) -> Result<Faults, String> {
        let mut faults = Faults::default();
        for item in raw.split(',').map(str::trim).filter(|item| !item.is_empty()) {
            let (key, value) = match item.split_once('=') {
                Some((key, value)) => (key.trim(), Some(value.trim())),
                None => (item, None),
            };
            let need = || value.ok_or_else(|| format!("fault {key:?} needs a value"));
            match key {
                "latency" => faults.latency = Some(parse_duration(need()?)?),
                "status" => {
                    let status: u16 = need()?
                        .parse()
                        .map_err(|_| format!("status {value:?} is not a number"))?;
                    if !(400..=599).contains(&status) {
                        return Err(format!("status {status} is not between 400 and 599"));
                    }
                    faults.status = Some(status);
                }
                "timeout" => faults.timeout = Some(parse_duration(need()?)?),
                "reset" => {
                    faults.reset = Some(match value {
                        None | Some("before") => ResetWhen::Before,
                        Some("after") => ResetWhen::After,
                        Some(other) => return Err(format!("reset={other}: use reset, reset=before or reset=after")),
                    })
                }
                "not_found" => faults.not_found = true,
                "callback" => {
                    for mode in need()?.split('+') {
                        match mode.trim() {
                            "drop" => faults.callback.drop = true,
                            "duplicate" => faults.callback.duplicate = true,
                            "out_of_order" => faults.callback.out_of_order = true,
                            "bad_signature" => faults.callback.bad_signature = true,
                            other => {
                                return Err(format!(
                                    "callback={other}: use drop, duplicate, out_of_order or bad_signature"
                                ))
                            }
                        }
                    }
                }
                "callback_delay" => faults.callback.delay = Some(parse_duration(need()?)?),
                "approve_after" => faults.approve_after = Some(parse_duration(need()?)?),
                "answer" => {
                    faults.answer = Some(match need()? {
                        "malformed" => Tamper::Malformed,
                        "unknown_status" => Tamper::UnknownStatus,
                        "other_amount" => Tamper::OtherAmount,
                        "other_currency" => Tamper::OtherCurrency,
                        other => {
                            return Err(format!(
                                "answer={other}: use malformed, unknown_status, other_amount or other_currency"
                            ))
                        }
                    })
                }
                other => return Err(format!("unknown fault {other:?}")),
            }
        }
        Ok(faults)
    }

    /// Adds `other` on top of these faults: its values win, its flags add up.
    pub fn merge(&mut self, other: &Faults) {
        self.latency = other.latency.or(self.latency);
        self.status = other.status.or(self.status);
        self.timeout = other.timeout.or(self.timeout);
        self.reset = other.reset.or(self.reset);
        self.not_found |= other.not_found;
        self.callback.drop |= other.callback.drop;
        self.callback.duplicate |= other.callback.duplicate;
        self.callback.out_of_order |= other.callback.out_of_order;
        self.callback.bad_signature |= other.callback.bad_signature;
        self.callback.delay = other.callback.delay.or(self.callback.delay);
        self.approve_after = other.approve_after.or(self.approve_after);
        self.answer = other.answer.or(self.answer);
    }
}

/// A default fault: applied to every request at `on` (`*`, an endpoint name such as
/// `momo.requesttopay`, or a prefix such as `wave.*`), `times` times or forever.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultRule {
    #[serde(default = "everywhere")]
    pub on: String,
    /// The faults, in the header syntax.
    pub fault: String,
    /// How many more requests it applies to; `None` for all of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<u32>,
}

fn everywhere() -> String {
    "*".to_string()
}

impl FaultRule {
    /// A rule for every request, checked now so that a typo fails at start-up.
    pub fn everywhere(fault: &str) -> Result<FaultRule, String> {
        let rule = FaultRule {
            on: everywhere(),
            fault: fault.to_string(),
            times: None,
        };
        rule.check()?;
        Ok(rule)
    }

    /// Whether the rule's faults parse.
    pub fn check(&self) -> Result<(), String> {
        Faults::parse(&self.fault).map(|_| ())
    }

    /// Whether it applies at the endpoint `point`.
    pub fn matches(&self, point: &str) -> bool {
        match self.on.strip_suffix('*') {
            Some(prefix) => point.starts_with(prefix),
            None => self.on == point,
        }
    }
}

/// The faults the rules give a request at `point`, using up one of each matching rule's times;
/// rules used up are removed.
pub fn take(rules: &mut Vec<FaultRule>, point: &str) -> Faults {
    let mut faults = Faults::default();
    for rule in rules
        .iter_mut()
        .filter(|rule| rule.matches(point) && rule.times != Some(0))
    {
        if let Ok(parsed) = Faults::parse(&rule.fault) {
            faults.merge(&parsed);
        }
        if let Some(times) = rule.times.as_mut() {
            *times -= 1;
        }
    }
    rules.retain(|rule| rule.times != Some(0));
    faults
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_syntax_parses_every_fault() {
        let faults = Faults::parse(
            "latency=250ms, status=503,timeout=2s,reset=after,not_found,callback=duplicate+bad_signature,\
             callback=out_of_order,callback_delay=1s,approve_after=3,answer=other_amount",
        )
        .unwrap();
        assert_eq!(faults.latency, Some(Duration::from_millis(250)));
        assert_eq!(faults.status, Some(503));
        assert_eq!(faults.timeout, Some(Duration::from_secs(2)));
        assert_eq!(faults.reset, Some(ResetWhen::After));
        assert!(faults.not_found);
        assert!(faults.callback.duplicate && faults.callback.bad_signature && faults.callback.out_of_order);
        assert!(!faults.callback.drop);
        assert_eq!(faults.callback.delay, Some(Duration::from_secs(1)));
        assert_eq!(faults.approve_after, Some(Duration::from_millis(3)));
        assert_eq!(faults.answer, Some(Tamper::OtherAmount));
        assert_eq!(Faults::parse("reset").unwrap().reset, Some(ResetWhen::Before));
    }

    #[test]
    fn mistakes_in_the_header_are_named() {
        assert!(Faults::parse("latency=fast").unwrap_err().contains("fast"));
        assert!(Faults::parse("status=200").unwrap_err().contains("200"));
        assert!(Faults::parse("callback=twice").unwrap_err().contains("twice"));
        assert!(Faults::parse("explode").unwrap_err().contains("explode"));
        assert!(Faults::parse("answer=late").unwrap_err().contains("late"));
        assert!(Faults::parse("status").unwrap_err().contains("needs a value"));
    }

    #[test]
    fn rules_apply_where_they_match_and_wear_out() {
        let mut rules = vec![
            FaultRule {
                on: "momo.requesttopay".into(),
                fault: "status=503".into(),
                times: Some(1),
            },
            FaultRule {
                on: "momo.*".into(),
                fault: "latency=10ms".into(),
                times: None,
            },
            FaultRule {
                on: "wave.payout.create".into(),
                fault: "reset".into(),
                times: None,
            },
        ];
        let first = take(&mut rules, "momo.requesttopay");
        assert_eq!(
            (first.status, first.latency),
            (Some(503), Some(Duration::from_millis(10)))
        );
        let second = take(&mut rules, "momo.requesttopay");
        assert_eq!((second.status, second.latency), (None, Some(Duration::from_millis(10))));
        assert_eq!(rules.len(), 2);
        assert_eq!(take(&mut rules, "wave.checkout.create"), Faults::default());
    }
}
