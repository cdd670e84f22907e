//! The protocols a connector speaks, and a route's connectors in the order they are tried.

use std::fmt;

/// A protocol a connector speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// The built-in simulator (`docs/sandbox.md`).
    Simulator,
    /// MTN's MoMo Open API: request-to-pay and transfer.
    MomoOpenApi,
    /// Wave: checkout sessions and payouts.
    WaveCheckout,
    /// PayDunya: invoices paid by SOFTPAY, and disbursements.
    Paydunya,
}

impl Protocol {
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Simulator => "simulator",
            Protocol::MomoOpenApi => "momo-openapi",
            Protocol::WaveCheckout => "wave-checkout",
            Protocol::Paydunya => "paydunya",
        }
    }

    /// The most operator calls one send makes, each up to the operator timeout: MoMo asks a
    /// token, sends, and after a 401 asks a fresh token and sends again; PayDunya names the
    /// payment (an invoice, a disbursement), then submits it; Wave and the simulator make one.
    pub fn calls_per_send(self) -> u32 {
        match self {
            Protocol::MomoOpenApi => 4,
            Protocol::Paydunya => 2,
            Protocol::WaveCheckout | Protocol::Simulator => 1,
        }
    }

    /// The most operator calls one status lookup makes: MoMo's token and lookup, twice after
    /// a 401; one elsewhere.
    pub fn calls_per_status(self) -> u32 {
        match self {
            Protocol::MomoOpenApi => 4,
            Protocol::Paydunya | Protocol::WaveCheckout | Protocol::Simulator => 1,
        }
    }

    pub const ALL: [Protocol; 4] = [
        Protocol::Simulator,
        Protocol::MomoOpenApi,
        Protocol::WaveCheckout,
        Protocol::Paydunya,
    ];

    pub fn parse(name: &str) -> Option<Protocol> {
        Protocol::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// The connectors a route names, in the order they are tried (`momo-openapi|paydunya`): the
/// next serves a payment only when the one before refused it before anything could be sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chain(pub(super) Vec<Protocol>);

impl Chain {
    /// `momo-openapi|paydunya`: at least one protocol, none twice.
    pub fn parse(value: &str) -> Option<Chain> {
        let protocols = value
            .split('|')
            .map(|name| Protocol::parse(name.trim()))
            .collect::<Option<Vec<_>>>()?;
        let distinct = protocols.iter().enumerate().all(|(i, p)| !protocols[..i].contains(p));
        (distinct && !protocols.is_empty()).then_some(Chain(protocols))
    }

    pub fn protocols(&self) -> &[Protocol] {
        &self.0
    }
}

impl From<Protocol> for Chain {
    fn from(protocol: Protocol) -> Chain {
        Chain(vec![protocol])
    }
}

impl fmt::Display for Chain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.0.iter().map(|p| p.name()).collect();
        f.write_str(&names.join("|"))
    }
}
