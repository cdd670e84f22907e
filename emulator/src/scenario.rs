//! The Sandbox number table (`docs/sandbox.md`), read from the last two digits of the phone
//! number, turned into what the emulator does with each kind of payment:
//!
//! | ends with | MoMo collection | MoMo transfer (and refund) | Wave checkout | Wave payout |
//! |---|---|---|---|---|
//! | 01 | SUCCESSFUL at once, callback | same | complete at once, webhook | `succeeded` in the answer |
//! | 02 | SUCCESSFUL after the delay, callback | same | complete after the delay | `processing`, `succeeded` after the delay |
//! | 03 | FAILED `APPROVAL_REJECTED` after the delay | FAILED `NOT_ENOUGH_FUNDS` after the delay | payment fails after the delay (session stays open) | `processing`, `failed` after the delay |
//! | 04 | FAILED `PAYER_NOT_FOUND` at once | FAILED `PAYEE_NOT_FOUND` at once | payment fails at once | refused: 422 `recipient-account-blocked` |
//! | 05 | SUCCESSFUL after the delay, no callback | same | complete after the delay, no webhook | as 02 |
//! | 06 | PENDING forever | same | open until it expires | `processing` forever |
//! | 09 | no account (`momo/holder.rs`): FAILED at once, as 04 | same | as 04 | as 04 |
//! | other | SUCCESSFUL after the delay | SUCCESSFUL at once | complete after the delay | `succeeded` in the answer |
//!
//! A checkout without `restrict_payer_mobile` has no number: it waits for the payer on the
//! launch page. `approve_after` (a fault) replaces the row: success that long after arrival.

use std::time::Duration;

use super::state::{Flow, Outcome};

/// What a phone number's ending asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    SucceedAtOnce,
    SucceedLater,
    FailLater,
    FailAtOnce,
    SucceedSilently,
    NeverResolve,
    Other,
}

/// The row of a phone number (any format: only its last two digits count).
pub fn row(phone: &str) -> Row {
    let digits: Vec<char> = phone.chars().filter(char::is_ascii_digit).collect();
    let last_two: String = digits[digits.len().saturating_sub(2)..].iter().collect();
    match last_two.as_str() {
        "01" => Row::SucceedAtOnce,
        "02" => Row::SucceedLater,
        "03" => Row::FailLater,
        "04" => Row::FailAtOnce,
        "05" => Row::SucceedSilently,
        "06" => Row::NeverResolve,
        // No account at this number (`momo/holder.rs`): payments to or from it fail at once.
        "09" => Row::FailAtOnce,
        _ => Row::Other,
    }
}

/// How a payment will resolve: its outcome, how long after arrival (`None`: never on its own),
/// and whether the operator calls back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub outcome: Outcome,
    pub after: Option<Duration>,
    pub notify: bool,
}

/// A refusal of `flow` (`at_once`: row 04, otherwise row 03), with the protocol's code.
pub fn refusal(flow: Flow, at_once: bool) -> Outcome {
    let (code, message) = match (flow, at_once) {
        (Flow::Collection, false) => ("APPROVAL_REJECTED", "The payer rejected the request to pay"),
        (Flow::Collection, true) => ("PAYER_NOT_FOUND", "The payer does not exist"),
        (Flow::Transfer, false) => ("NOT_ENOUGH_FUNDS", "The payer account has not enough funds"),
        (Flow::Transfer, true) => ("PAYEE_NOT_FOUND", "The payee does not exist"),
        (Flow::Refund, false) => ("NOT_ENOUGH_FUNDS", "The account has not enough funds for the refund"),
        (Flow::Refund, true) => ("PAYEE_NOT_FOUND", "The payee does not exist"),
        (Flow::CheckoutRefund, _) => ("checkout-refund-failed", "The checkout session could not be refunded"),
        (Flow::Checkout, _) => ("insufficient-funds", "The payer does not have enough funds"),
        (Flow::Payout, false) => ("recipient-limit-exceeded", "The recipient's monthly limit is reached"),
        (Flow::Payout, true) => ("recipient-account-blocked", "The recipient's account is blocked"),
        (Flow::Invoice, false) => ("insufficient_funds", "Le solde du client est insuffisant"),
        (Flow::Invoice, true) => ("account_not_found", "Le numéro du client n'a pas de compte"),
        (Flow::Disburse, false) => ("limit_exceeded", "Le plafond du bénéficiaire est atteint"),
        (Flow::Disburse, true) => ("account_not_found", "Le bénéficiaire n'a pas de compte"),
    };
    Outcome::Failed {
        code: code.to_string(),
        message: message.to_string(),
    }
}

/// The plan for a payment of `flow` to or from `phone` (`None`: a checkout anyone may pay).
pub fn plan(flow: Flow, phone: Option<&str>, delay: Duration, approve_after: Option<Duration>) -> Plan {
    let at_once = Some(Duration::ZERO);
    if let Some(after) = approve_after {
        return Plan {
            outcome: Outcome::Succeeded,
            after: Some(after),
            notify: true,
        };
    }
    let Some(phone) = phone else {
        return Plan {
            outcome: Outcome::Pending,
            after: None,
            notify: true,
        };
    };
    let (outcome, after, notify) = match row(phone) {
        Row::SucceedAtOnce => (Outcome::Succeeded, at_once, true),
        Row::SucceedLater => (Outcome::Succeeded, Some(delay), true),
        Row::FailLater => (refusal(flow, false), Some(delay), true),
        Row::FailAtOnce => (refusal(flow, true), at_once, true),
        Row::SucceedSilently => (Outcome::Succeeded, Some(delay), false),
        Row::NeverResolve => (Outcome::Pending, None, true),
        Row::Other => match flow {
            Flow::Transfer | Flow::Refund | Flow::Payout | Flow::CheckoutRefund | Flow::Disburse => {
                (Outcome::Succeeded, at_once, true)
            }
            Flow::Collection | Flow::Checkout | Flow::Invoice => (Outcome::Succeeded, Some(delay), true),
        },
    };
    Plan { outcome, after, notify }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DELAY: Duration = Duration::from_millis(40);

    fn outcome_code(plan: &Plan) -> &str {
        match &plan.outcome {
            Outcome::Failed { code, .. } => code,
            Outcome::Succeeded => "ok",
            Outcome::Pending => "pending",
        }
    }

    #[test]
    fn the_last_two_digits_choose_the_row_whatever_the_format() {
        assert_eq!(row("+225 07 00 00 00 01"), Row::SucceedAtOnce);
        assert_eq!(row("2250700000004"), Row::FailAtOnce);
        assert_eq!(row("0700000099"), Row::Other);
        assert_eq!(row("6"), Row::Other);
    }

    #[test]
    fn each_row_gives_the_documented_plan() {
        let p = |flow, phone| plan(flow, Some(phone), DELAY, None);
        assert_eq!(p(Flow::Collection, "2250700000001").after, Some(Duration::ZERO));
        assert_eq!(p(Flow::Collection, "2250700000002").after, Some(DELAY));
        assert_eq!(outcome_code(&p(Flow::Collection, "2250700000003")), "APPROVAL_REJECTED");
        assert_eq!(outcome_code(&p(Flow::Transfer, "2250700000004")), "PAYEE_NOT_FOUND");
        assert!(!p(Flow::Transfer, "2250700000005").notify);
        assert_eq!(p(Flow::Collection, "2250700000006").after, None);
        assert_eq!(p(Flow::Collection, "2250700000077").after, Some(DELAY));
        assert_eq!(p(Flow::Transfer, "2250700000077").after, Some(Duration::ZERO));
        assert_eq!(p(Flow::Payout, "+2250700000077").after, Some(Duration::ZERO));
        assert_eq!(
            outcome_code(&p(Flow::Payout, "+2250700000004")),
            "recipient-account-blocked"
        );
    }

    #[test]
    fn a_late_approval_and_an_open_checkout_override_the_table() {
        let late = plan(
            Flow::Collection,
            Some("2250700000003"),
            DELAY,
            Some(Duration::from_secs(3)),
        );
        assert_eq!((outcome_code(&late), late.after), ("ok", Some(Duration::from_secs(3))));
        let open = plan(Flow::Checkout, None, DELAY, None);
        assert_eq!((outcome_code(&open), open.after), ("pending", None));
    }
}
