//! The routes of the fault table: what a payment on a route looks like (operator, protocol,
//! kind, amount, refusal code) and the emulator's endpoints it goes through. The MoMo and Wave
//! routes run on one gateway, one operator each; the PayDunya routes on another
//! ([`PAYDUNYA_ROUTES`]), where ALPHA and DELTA are routed to PayDunya.

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
    /// ALPHA, `paydunya` invoice paid by SOFTPAY `orange-money-ci`, with the payer's code.
    PaydunyaCollection,
    /// DELTA, `paydunya` invoice paid by SOFTPAY `moov-ci` (sharing DELTA's breaker with the
    /// transfers: the PayDunya rows run one route after the other).
    PaydunyaDeltaCollection,
    /// DELTA, `paydunya` disbursement (`moov-ci`).
    PaydunyaTransfer,
}

pub use Route::{
    MomoCollection, MomoTransfer, PaydunyaCollection, PaydunyaDeltaCollection, PaydunyaTransfer, WaveCollection,
    WaveTransfer,
};

/// The routes of the MoMo and Wave gateway.
pub const ALL_ROUTES: [Route; 4] = [MomoCollection, MomoTransfer, WaveCollection, WaveTransfer];
/// The routes of the PayDunya gateway.
pub const PAYDUNYA_ROUTES: [Route; 3] = [PaydunyaCollection, PaydunyaDeltaCollection, PaydunyaTransfer];
/// Every route, both gateways'.
pub const EVERY_ROUTE: [Route; 7] = [
    MomoCollection,
    MomoTransfer,
    WaveCollection,
    WaveTransfer,
    PaydunyaCollection,
    PaydunyaDeltaCollection,
    PaydunyaTransfer,
];

impl fmt::Display for Route {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (protocol, direction) = match self {
            MomoCollection => ("momo-openapi", "collection"),
            MomoTransfer => ("momo-openapi", "transfer"),
            WaveCollection => ("wave-checkout", "collection"),
            WaveTransfer => ("wave-checkout", "transfer"),
            PaydunyaCollection => ("paydunya", "ALPHA collection"),
            PaydunyaDeltaCollection => ("paydunya", "DELTA collection"),
            PaydunyaTransfer => ("paydunya", "transfer"),
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
            WaveTransfer | PaydunyaTransfer | PaydunyaDeltaCollection => OperatorCode::Delta,
            PaydunyaCollection => OperatorCode::Alpha,
        }
    }

    /// Another operator served by the same protocol (and so the same callback secret).
    pub fn sibling(self) -> OperatorCode {
        match self {
            MomoCollection => OperatorCode::Gamma,
            MomoTransfer => OperatorCode::Alpha,
            WaveCollection => OperatorCode::Delta,
            WaveTransfer => OperatorCode::Beta,
            PaydunyaCollection => OperatorCode::Delta,
            PaydunyaTransfer | PaydunyaDeltaCollection => OperatorCode::Alpha,
        }
    }

    pub fn protocol(self) -> Protocol {
        match self {
            MomoCollection | MomoTransfer => Protocol::MomoOpenApi,
            WaveCollection | WaveTransfer => Protocol::WaveCheckout,
            PaydunyaCollection | PaydunyaDeltaCollection | PaydunyaTransfer => Protocol::Paydunya,
        }
    }

    pub fn is_momo(self) -> bool {
        self.protocol() == Protocol::MomoOpenApi
    }

    pub fn is_paydunya(self) -> bool {
        self.protocol() == Protocol::Paydunya
    }

    /// Whether a callback sent again is taken like the first (MoMo and PayDunya sign nothing
    /// that could tell them apart); Wave's is refused as a replay.
    pub fn replays_accepted(self) -> bool {
        !matches!(self, WaveCollection | WaveTransfer)
    }

    /// The payer's one-time code a collection on this route must carry (ALPHA over PayDunya).
    pub fn code(self) -> Option<&'static str> {
        (self == PaydunyaCollection).then_some("1234")
    }

    pub fn kind(self) -> Kind {
        match self {
            MomoCollection | WaveCollection | PaydunyaCollection | PaydunyaDeltaCollection => Kind::Collection,
            MomoTransfer | WaveTransfer | PaydunyaTransfer => Kind::Transfer,
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
            MomoTransfer
            | WaveCollection
            | WaveTransfer
            | PaydunyaCollection
            | PaydunyaDeltaCollection
            | PaydunyaTransfer => FailureCode::OperatorRefused,
        }
    }

    /// The emulator's endpoint that initiates the payment.
    pub fn initiation(self) -> &'static str {
        match self {
            MomoCollection => "momo.requesttopay",
            MomoTransfer => "momo.transfer",
            WaveCollection => "wave.checkout.create",
            WaveTransfer => "wave.payout.create",
            PaydunyaCollection | PaydunyaDeltaCollection => "paydunya.softpay",
            PaydunyaTransfer => "paydunya.disburse.submit",
        }
    }

    /// The emulator's endpoint the connector asks for the status.
    pub fn status_lookup(self) -> &'static str {
        match self {
            MomoCollection => "momo.requesttopay.status",
            MomoTransfer => "momo.transfer.status",
            WaveCollection => "wave.checkout.search",
            WaveTransfer => "wave.payout.search",
            PaydunyaCollection | PaydunyaDeltaCollection => "paydunya.invoice.confirm",
            PaydunyaTransfer => "paydunya.disburse.status",
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
            PaydunyaCollection => "pc",
            PaydunyaDeltaCollection => "pd",
            PaydunyaTransfer => "pt",
        }
    }
}
