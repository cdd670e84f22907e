//! The simulator's table (DECISIONS §6), restated for the model: what the operator answers
//! about a payment at its creation, to a status check, and in a callback, by the last two
//! digits of the number.

use momo_gateway::domain::{FailureCode, Kind, OperatorCode, Status, Timestamp};

use super::state::Payment;

/// What the last two digits of the number ask of the simulator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Script {
    SucceedAtOnce,
    SucceedLater,
    FailLater,
    FailAtOnce,
    SucceedWhenAsked,
    NeverResolve,
    Other,
}

impl Script {
    pub fn digits(self) -> &'static str {
        match self {
            Script::SucceedAtOnce => "01",
            Script::SucceedLater => "02",
            Script::FailLater => "03",
            Script::FailAtOnce => "04",
            Script::SucceedWhenAsked => "05",
            Script::NeverResolve => "06",
            Script::Other => "07",
        }
    }
}

/// A final state with its failure code.
pub type Final = (Status, Option<FailureCode>);

impl Payment {
    /// BETA collections wait for the payer (on the gateway's page in the Sandbox).
    fn waits_for_payer(&self) -> bool {
        self.kind == Kind::Collection && self.operator == OperatorCode::Beta
    }

    fn refused(&self) -> Final {
        let code = match self.kind {
            Kind::Collection => FailureCode::PayerDeclined,
            Kind::Transfer | Kind::Refund => FailureCode::OperatorRefused,
        };
        (Status::Failed, Some(code))
    }

    fn delay_passed(&self, now: Timestamp, delay: i64) -> bool {
        now.millis() - self.created_at.millis() >= delay
    }

    /// The operator's answer to the initiation: `None` is pending.
    pub fn initiation(&self) -> Option<Final> {
        match (self.script, self.waits_for_payer(), self.kind) {
            (Script::FailAtOnce, _, _) => Some(self.refused()),
            (_, true, _) => None,
            (Script::SucceedAtOnce, _, _) | (Script::Other, _, Kind::Transfer) => Some((Status::Successful, None)),
            _ => None,
        }
    }

    /// The operator's answer to a status check at `now`: `None` is pending.
    pub fn status_at(&self, now: Timestamp, delay: i64) -> Option<Final> {
        let later = self.delay_passed(now, delay);
        match (self.script, self.waits_for_payer()) {
            (Script::FailAtOnce, _) => Some(self.refused()),
            (Script::FailLater, _) if later => Some(self.refused()),
            (_, true) => None,
            (Script::SucceedAtOnce | Script::SucceedWhenAsked, false) => Some((Status::Successful, None)),
            (Script::SucceedLater | Script::Other, false) if later => Some((Status::Successful, None)),
            _ => None,
        }
    }

    /// The callback the operator has made by `now`, if any.
    pub fn callback_at(&self, now: Timestamp, delay: i64) -> Option<Final> {
        if !self.delay_passed(now, delay) {
            return None;
        }
        match (self.script, self.waits_for_payer()) {
            (Script::FailLater, _) => Some(self.refused()),
            (Script::SucceedLater | Script::Other, false) => Some((Status::Successful, None)),
            _ => None,
        }
    }
}
