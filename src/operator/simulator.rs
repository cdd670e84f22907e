//! The operator simulator: a deterministic stand-in for the four operators, driven by the last
//! two digits of the phone number (DECISIONS §6, and `docs/sandbox.md` for merchants).
//!
//! | ends with | collection                          | transfer                          |
//! |-----------|-------------------------------------|-----------------------------------|
//! | 01        | SUCCESSFUL at once                  | SUCCESSFUL at once                |
//! | 02        | PENDING, SUCCESSFUL after the delay | same                              |
//! | 03        | PENDING, FAILED after the delay     | same                              |
//! | 04        | FAILED at once                      | FAILED at once                    |
//! | 05        | PENDING, no callback; SUCCESSFUL when asked | same                      |
//! | 06        | PENDING forever (collections expire) | PENDING forever (needs review)   |
//! | other     | PENDING, SUCCESSFUL after the delay | SUCCESSFUL at once                |
//!
//! BETA collections wait for the payer on the launch page (04 fails at once; 03 declines on
//! its own after the delay). ALPHA refuses the one-time code `0000` at once.

use std::time::Duration;

use async_trait::async_trait;

use super::{AccountHolder, Operator, OperatorAnswer, OperatorError, OperatorRequest};
use crate::domain::{FailureCode, Kind, Msisdn, OperatorCode, Timestamp, Transaction};

/// The simulator, with the delay after which pending payments resolve.
#[derive(Debug, Clone)]
pub struct Simulator {
    pub delay: Duration,
}

/// What a phone number's ending asks of the simulator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Script {
    SucceedAtOnce,
    SucceedLater,
    FailLater,
    FailAtOnce,
    SucceedWhenAsked,
    NeverResolve,
    Default,
}

fn script(last_two: &str) -> Script {
    match last_two {
        "01" => Script::SucceedAtOnce,
        "02" => Script::SucceedLater,
        "03" => Script::FailLater,
        "04" => Script::FailAtOnce,
        "05" => Script::SucceedWhenAsked,
        "06" => Script::NeverResolve,
        // No account at this number: payments fail at once, the recipient check says so.
        NO_ACCOUNT => Script::FailAtOnce,
        _ => Script::Default,
    }
}

/// The ending of a number that holds no mobile-money account.
const NO_ACCOUNT: &str = "09";

/// The Sandbox's account holders, one per last digit, so a number always has the same name.
const HOLDERS: [&str; 10] = [
    "Awa Koné",
    "Koffi Yao",
    "Aya Traoré",
    "Moussa Diarra",
    "Adjoua Kouassi",
    "Ibrahim Ouattara",
    "Fatou Bamba",
    "Serge N'Guessan",
    "Mariam Coulibaly",
    "Jean-Marc Kouadio",
];

/// A refusal: the payer's when they were asked for money, the operator's when we paid out.
fn refused(kind: Kind) -> OperatorAnswer {
    if kind.pays_out() {
        OperatorAnswer::Failed {
            code: FailureCode::OperatorRefused,
            reason: format!("the operator refused the {}", kind.noun()),
        }
    } else {
        OperatorAnswer::Failed {
            code: FailureCode::PayerDeclined,
            reason: "the payer declined or could not pay".into(),
        }
    }
}

fn waits_for_payer(kind: Kind, operator: OperatorCode) -> bool {
    kind == Kind::Collection && operator == OperatorCode::Beta
}

/// A payment waiting on the launch page: only the payer settles it there (`docs/sandbox.md`),
/// so the operator refuses it at once or, `later`, as scripted, and otherwise it stays pending.
fn on_payer_page(script: Script, kind: Kind, later: bool) -> OperatorAnswer {
    match script {
        Script::FailAtOnce => refused(kind),
        Script::FailLater if later => refused(kind),
        Script::SucceedAtOnce
        | Script::SucceedLater
        | Script::FailLater
        | Script::SucceedWhenAsked
        | Script::NeverResolve
        | Script::Default => OperatorAnswer::Pending,
    }
}

impl Simulator {
    fn delay_passed(&self, transaction: &Transaction, now: Timestamp) -> bool {
        now.millis() - transaction.created_at.millis() >= self.delay.as_millis() as i64
    }
}

#[async_trait]
impl Operator for Simulator {
    async fn initiate(&self, r: &OperatorRequest<'_>) -> Result<OperatorAnswer, OperatorError> {
        if r.operator == OperatorCode::Alpha && r.purpose.otp_code() == Some("0000") {
            return Ok(OperatorAnswer::Failed {
                code: FailureCode::WrongOtp,
                reason: "the one-time code is wrong".into(),
            });
        }
        let script = script(r.phone.last_two_digits());
        if waits_for_payer(r.kind(), r.operator) {
            return Ok(on_payer_page(script, r.kind(), false));
        }
        // By default money paid out arrives at once, and a payer takes their time.
        Ok(match script {
            Script::SucceedAtOnce => OperatorAnswer::Succeeded,
            Script::Default if r.kind().pays_out() => OperatorAnswer::Succeeded,
            Script::FailAtOnce => refused(r.kind()),
            Script::SucceedLater
            | Script::FailLater
            | Script::SucceedWhenAsked
            | Script::NeverResolve
            | Script::Default => OperatorAnswer::Pending,
        })
    }

    fn hosts_payer_page(&self) -> bool {
        true
    }

    async fn account_holder(&self, _operator: OperatorCode, phone: &Msisdn) -> Result<AccountHolder, OperatorError> {
        let last_two = phone.last_two_digits();
        if last_two == NO_ACCOUNT {
            return Ok(AccountHolder::Inactive);
        }
        let digit = last_two
            .bytes()
            .last()
            .map_or(0, |b| usize::from(b.saturating_sub(b'0')) % 10);
        Ok(AccountHolder::Active {
            name: Some(HOLDERS[digit].to_owned()),
        })
    }

    async fn status(&self, t: &Transaction, now: Timestamp) -> Result<OperatorAnswer, OperatorError> {
        let script = script(t.phone.last_two_digits());
        let later = self.delay_passed(t, now);
        if waits_for_payer(t.kind(), t.operator) {
            return Ok(on_payer_page(script, t.kind(), later));
        }
        Ok(match script {
            Script::SucceedAtOnce | Script::SucceedWhenAsked => OperatorAnswer::Succeeded,
            Script::FailAtOnce => refused(t.kind()),
            Script::SucceedLater | Script::Default if later => OperatorAnswer::Succeeded,
            Script::FailLater if later => refused(t.kind()),
            Script::SucceedLater | Script::Default | Script::FailLater | Script::NeverResolve => {
                OperatorAnswer::Pending
            }
        })
    }

    fn callback(&self, t: &Transaction, now: Timestamp) -> Option<OperatorAnswer> {
        if !self.delay_passed(t, now) {
            return None;
        }
        let script = script(t.phone.last_two_digits());
        if waits_for_payer(t.kind(), t.operator) {
            return (script == Script::FailLater).then(|| refused(t.kind()));
        }
        match script {
            Script::SucceedLater | Script::Default => Some(OperatorAnswer::Succeeded),
            Script::FailLater => Some(refused(t.kind())),
            Script::SucceedAtOnce | Script::FailAtOnce | Script::SucceedWhenAsked | Script::NeverResolve => None,
        }
    }
}
