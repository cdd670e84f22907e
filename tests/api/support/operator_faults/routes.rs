//! The four routes of the fault table, one operator each: what a payment on a route looks like
//! (operator, protocol, kind, amount, refusal code) and the emulator's endpoints it goes through.

use std::fmt;

use momo_gateway::config::Protocol;
use momo_gateway::domain::{FailureCode, Kind, OperatorCode};

/// A protocol and a direction, each served by its own operator so that breakers, tokens and
/// callback routes never mix between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// ALPHA, `momo-openapi` request-to-pay.
    MomoCollection,
    /// GAMMA, `momo-openapi` disbursement transfer.
    MomoTransfer,
    /// BETA, `wave-checkout` checkout session.
    WaveCollection,
    /// DELTA, `wave-checkout` payout.
    WaveTransfer,
}

pub use Route::{MomoCollection, MomoTransfer, WaveCollection, WaveTransfer};

pub const ALL_ROUTES: [Route; 4] = [MomoCollection, MomoTransfer, WaveCollection, WaveTransfer];

impl fmt::Display for Route {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (protocol, direction) = match self {
            MomoCollection => ("momo-openapi", "collection"),
            MomoTransfer => ("momo-openapi", "transfer"),
            WaveCollection => ("wave-checkout", "collection"),
            WaveTransfer => ("wave-checkout", "transfer"),
        };
        write!(f, "{protocol} {direction}")
    }
}

impl Route {
    pub fn operator(self) -> OperatorCode {
        match self {
            MomoCollection => OperatorCode::Alpha,
            MomoTransfer => OperatorCode::Gamma,
            WaveCollection => OperatorCode::Beta,
            WaveTransfer => OperatorCode::Delta,
        }
    }

    /// Another operator served by the same protocol (and so the same callback secret).
    pub fn sibling(self) -> OperatorCode {
        match self {
            MomoCollection => OperatorCode::Gamma,
            MomoTransfer => OperatorCode::Alpha,
            WaveCollection => OperatorCode::Delta,
            WaveTransfer => OperatorCode::Beta,
        }
    }

    pub fn protocol(self) -> Protocol {
        match self {
            MomoCollection | MomoTransfer => Protocol::MomoOpenApi,
            WaveCollection | WaveTransfer => Protocol::WaveCheckout,
        }
    }

    pub fn is_momo(self) -> bool {
        self.protocol() == Protocol::MomoOpenApi
    }

    pub fn kind(self) -> Kind {
        match self {
            MomoCollection | WaveCollection => Kind::Collection,
            MomoTransfer | WaveTransfer => Kind::Transfer,
        }
    }

    pub fn amount(self) -> &'static str {
        match self.kind() {
            Kind::Collection => "1500",
            Kind::Transfer => "1000",
            Kind::Refund => unreachable!("the fault routes are collections and transfers"),
        }
    }

    /// The failure code of an outright refusal.
    pub fn refusal_code(self) -> FailureCode {
        match self {
            MomoCollection => FailureCode::PayerDeclined,
            MomoTransfer | WaveCollection | WaveTransfer => FailureCode::OperatorRefused,
        }
    }

    /// The emulator's endpoint that initiates the payment.
    pub fn initiation(self) -> &'static str {
        match self {
            MomoCollection => "momo.requesttopay",
            MomoTransfer => "momo.transfer",
            WaveCollection => "wave.checkout.create",
            WaveTransfer => "wave.payout.create",
        }
    }

    /// The emulator's endpoint the connector asks for the status.
    pub fn status_lookup(self) -> &'static str {
        match self {
            MomoCollection => "momo.requesttopay.status",
            MomoTransfer => "momo.transfer.status",
            WaveCollection => "wave.checkout.search",
            WaveTransfer => "wave.payout.search",
        }
    }

    /// Whether the operator calls back when the payment settles (Wave sends no payout webhook).
    pub fn calls_back(self) -> bool {
        self != WaveTransfer
    }

    pub(super) fn tag(self) -> &'static str {
        match self {
            MomoCollection => "mc",
            MomoTransfer => "mt",
            WaveCollection => "wc",
            WaveTransfer => "wt",
        }
    }
}
