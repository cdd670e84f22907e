//! The recipient check: whether a number holds an active MoMo account
//! (`GET /disbursement/v1_0/accountholder/msisdn/{msisdn}/active`, the product money is sent
//! with), and its holder's name (`GET /collection/v1_0/accountholder/msisdn/{msisdn}/basicuserinfo`,
//! which the platform serves from the collection product). Nothing is sent by asking, so a
//! lookup that fails is `Transient`: the check could not be made, and no payment waits on it;
//! one the operator refuses (a 4xx, its rate limit's 429) is `Rejected`, an answer, which the
//! breaker does not count as the operator being down.
//! The name is a courtesy: when its lookup fails, the account is still active, unnamed.

use reqwest::StatusCode;

use super::wire::{ActiveAnswer, BasicUserInfo};
use super::{MomoConnector, Product};
use crate::domain::{FailureCode, Msisdn};
use crate::operator::{answer, AccountHolder, OperatorError};

impl MomoConnector {
    async fn holder_get(&self, product: Product, path: &str) -> Result<reqwest::Response, OperatorError> {
        self.send(product, |token| {
            self.http
                .get(self.url(path))
                .bearer_auth(token)
                .header("X-Target-Environment", &self.settings.target_environment)
                .header("Ocp-Apim-Subscription-Key", self.subscription_key(product))
        })
        .await
        .map_err(|e| match e {
            // Nothing was sent: whatever happened, the check was not made.
            OperatorError::Ambiguous(why) => OperatorError::Transient(why),
            other => other,
        })
    }

    pub(super) async fn holder(&self, phone: &Msisdn) -> Result<AccountHolder, OperatorError> {
        let msisdn = format!("225{}", phone.as_str());
        let active = self
            .holder_get(
                Product::Disbursement,
                &format!("/disbursement/v1_0/accountholder/msisdn/{msisdn}/active"),
            )
            .await?;
        let active = match active.status() {
            // The platform knows no account at this number.
            StatusCode::NOT_FOUND => false,
            status if status.is_success() => {
                let read: ActiveAnswer = answer::json(active, self.settings.max_answer_bytes)
                    .await?
                    .map_err(|e| OperatorError::Transient(format!("malformed account-holder answer: {e}")))?;
                read.result
            }
            // It answered, so it is up: a refusal of the lookup (its own quota, 429, or any
            // 4xx) must not count towards opening the breaker that every payment of the
            // operator goes through.
            status if status.is_client_error() => {
                return Err(OperatorError::Rejected {
                    code: FailureCode::OperatorRefused,
                    reason: format!("the account-holder check answered {status}"),
                })
            }
            status => {
                return Err(OperatorError::Transient(format!(
                    "the account-holder check answered {status}"
                )))
            }
        };
        if !active {
            return Ok(AccountHolder::Inactive);
        }
        let info = self
            .holder_get(
                Product::Collection,
                &format!("/collection/v1_0/accountholder/msisdn/{msisdn}/basicuserinfo"),
            )
            .await;
        let name = match info {
            Ok(info) if info.status().is_success() => {
                answer::json::<BasicUserInfo>(info, self.settings.max_answer_bytes)
                    .await
                    .ok()
                    .and_then(Result::ok)
                    .and_then(|info| info.full_name())
            }
            _ => None,
        };
        Ok(AccountHolder::Active { name })
    }
}
