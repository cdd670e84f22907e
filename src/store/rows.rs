//! Turning database rows into domain values, for either database.

use sqlx::Row;

use super::sql::{kinds, Col, Get, SqlDb};
use super::{names, StoreError};
use super::{Attempt, DueEvent, EventSummary, LeasedEvent, PreviousSecret, TransactionRecord};
use crate::domain::{
    Address, Amounts, Carrier, Credential, Customer, CustomerId, Environment, EventState, Msisdn, OperatorCode, Tenant,
    Timestamp, Transaction,
};

/// Reads a column.
fn get<R: Row<Database: SqlDb>, T: Col>(row: &R, column: &str) -> Result<T, StoreError> {
    row.col(column).map_err(StoreError::from)
}

pub(super) fn environment(raw: &str) -> Result<Environment, StoreError> {
    raw.parse()
        .map_err(|e: crate::domain::environment::UnknownEnvironment| StoreError::Corrupt(e.to_string()))
}

/// The tenant a row belongs to (its `merchant_id` and `environment` columns).
pub(super) fn tenant<R: Row<Database: SqlDb>>(row: &R) -> Result<Tenant, StoreError> {
    Ok(Tenant {
        merchant_id: get(row, "merchant_id")?,
        environment: environment(&get::<R, String>(row, "environment")?)?,
    })
}

pub(super) fn credential<R: Row<Database: SqlDb>>(row: &R) -> Result<Credential, StoreError> {
    let secret_hash: String = get(row, "secret_hash")?;
    Ok(Credential {
        id: get(row, "id")?,
        merchant_id: get(row, "merchant_id")?,
        environment: environment(&get::<R, String>(row, "environment")?)?,
        api_key: get(row, "api_key")?,
        secret_hash: hex_decode(&secret_hash).ok_or_else(|| StoreError::Corrupt("secret_hash is not hex".into()))?,
        created_at: Timestamp(get(row, "created_at")?),
        revoked_at: get::<R, Option<i64>>(row, "revoked_at")?.map(Timestamp),
    })
}

pub(super) fn customer<R: Row<Database: SqlDb>>(row: &R) -> Result<Customer, StoreError> {
    let phone: String = get(row, "phone")?;
    Ok(Customer {
        id: get(row, "id")?,
        tenant: tenant(row)?,
        first_name: get(row, "first_name")?,
        last_name: get(row, "last_name")?,
        email: get(row, "email")?,
        phone: Msisdn::parse(&phone).map_err(|e| StoreError::Corrupt(e.to_string()))?,
        address: Address {
            country_code: get(row, "country_code")?,
            city: get(row, "city")?,
            street_address: get(row, "street_address")?,
        },
        created_at: Timestamp(get(row, "created_at")?),
    })
}

pub(super) fn transaction_record<R: Row<Database: SqlDb>>(row: &R) -> Result<TransactionRecord, StoreError> {
    let corrupt = |what: &str, value: &str| StoreError::Corrupt(format!("{what} {value:?}"));
    let tenant = tenant(row)?;
    let kind: String = get(row, "kind")?;
    let operator: String = get(row, "operator")?;
    let status: String = get(row, "status")?;
    let phone: String = get(row, "phone")?;
    let customer_phone: String = get(row, "c_phone")?;
    let customer_id: CustomerId = get(row, "customer_id")?;
    let purpose = kinds::purpose(row, kinds::parse_stored(&kind)?)?;
    let transaction = Transaction {
        id: get(row, "id")?,
        reference: get(row, "ref")?,
        tenant: tenant.clone(),
        transaction_id: get(row, "transaction_id")?,
        purpose,
        operator: OperatorCode::from_name(&operator).ok_or_else(|| corrupt("operator", &operator))?,
        operator_alias: get(row, "operator_alias")?,
        phone: Msisdn::parse(&phone).map_err(|_| corrupt("phone", "(hidden)"))?,
        phone_as_sent: get(row, "phone_as_sent")?,
        amounts: Amounts {
            amount: get(row, "amount")?,
            fees: get(row, "fees")?,
            amount_receive: get(row, "amount_receive")?,
            amount_total: get(row, "amount_total")?,
        },
        status: names::parse_status(&status)?,
        customer_id: customer_id.clone(),
        name: get(row, "name")?,
        email: get(row, "email")?,
        failure_code: get::<R, Option<String>>(row, "failure_code")?
            .map(|code| super::names::parse_failure_code(&code))
            .transpose()?,
        failure_reason: get(row, "failure_reason")?,
        created_at: Timestamp(get(row, "created_at")?),
        updated_at: get::<R, Option<i64>>(row, "updated_at")?.map(Timestamp),
        carrier: Carrier {
            connector: get(row, "connector")?,
            token: get(row, "operator_token")?,
        },
    };
    let customer = Customer {
        id: customer_id,
        tenant,
        first_name: get(row, "c_first_name")?,
        last_name: get(row, "c_last_name")?,
        email: get(row, "c_email")?,
        phone: Msisdn::parse(&customer_phone).map_err(|_| corrupt("customer phone", "(hidden)"))?,
        address: Address {
            country_code: get(row, "c_country_code")?,
            city: get(row, "c_city")?,
            street_address: get(row, "c_street_address")?,
        },
        created_at: Timestamp(get(row, "c_created_at")?),
    };
    Ok(TransactionRecord { transaction, customer })
}

/// An event with where to send it: `endpoint` is its tenant's `merchant_environments` row.
pub(super) fn due_event<R: Row<Database: SqlDb>>(
    event: LeasedEvent,
    attempts: u32,
    endpoint: &R,
) -> Result<DueEvent, StoreError> {
    Ok(DueEvent {
        id: event.id,
        tenant: event.tenant,
        payload: event.payload,
        attempts,
        webhook_url: get(endpoint, "webhook_url")?,
        webhook_secret: get(endpoint, "webhook_secret")?,
        previous_webhook_secret: match (
            get::<R, Option<String>>(endpoint, "previous_webhook_secret")?,
            get::<R, Option<i64>>(endpoint, "previous_webhook_secret_until")?,
        ) {
            (Some(secret), Some(until)) => Some(PreviousSecret {
                secret,
                until: Timestamp(until),
            }),
            _ => None,
        },
        endpoint_disabled: get::<R, Option<i64>>(endpoint, "webhook_disabled_at")?.is_some(),
        lease_token: event.lease_token,
    })
}

/// A claimed event as the claim returned it, with its attempts so far.
pub(super) fn claimed_event<R: Row<Database: SqlDb>>(
    row: &R,
    lease_until: Timestamp,
) -> Result<(LeasedEvent, u32), StoreError> {
    let event = LeasedEvent {
        id: get(row, "id")?,
        tenant: tenant(row)?,
        payload: get(row, "payload")?,
        lease_token: get(row, "lease_token")?,
        lease_until,
    };
    Ok((event, get::<R, i64>(row, "attempts")?.max(0) as u32))
}

pub(super) fn event_summary<R: Row<Database: SqlDb>>(row: &R) -> Result<EventSummary, StoreError> {
    let state: String = get(row, "state")?;
    let event_state = names::parse_event_state(&state)?;
    let next_attempt_at: i64 = get(row, "next_attempt_at")?;
    Ok(EventSummary {
        id: get(row, "id")?,
        tenant: tenant(row)?,
        transaction_ref: get(row, "ref")?,
        transaction_id: get(row, "transaction_id")?,
        transaction_status: names::parse_status(&get::<R, String>(row, "to_status")?)?,
        state: event_state,
        attempts: get::<R, i64>(row, "attempts")?.max(0) as u32,
        next_attempt_at: (event_state == EventState::Pending).then_some(Timestamp(next_attempt_at)),
        last_error: get(row, "last_error")?,
        created_at: Timestamp(get(row, "created_at")?),
        delivered_at: get::<R, Option<i64>>(row, "delivered_at")?.map(Timestamp),
        payload: get(row, "payload")?,
    })
}

pub(super) fn attempt<R: Row<Database: SqlDb>>(row: &R) -> Result<Attempt, StoreError> {
    Ok(Attempt {
        attempt: get::<R, i64>(row, "attempt")?.max(0) as u32,
        at: Timestamp(get(row, "at")?),
        url: get(row, "url")?,
        status_code: get::<R, Option<i64>>(row, "status_code")?.map(|c| c as u16),
        latency_ms: get(row, "latency_ms")?,
        error: get(row, "error")?,
        response: get(row, "response")?,
    })
}

pub(super) fn hex_encode(bytes: &[u8]) -> String {
    hex::encode(bytes)
}

fn hex_decode(text: &str) -> Option<Vec<u8>> {
    hex::decode(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips() {
        let bytes = vec![0u8, 1, 0xab, 0xff];
        assert_eq!(hex_encode(&bytes), "0001abff");
        assert_eq!(hex_decode("0001abff"), Some(bytes));
        assert_eq!(hex_decode("0g"), None);
        assert_eq!(hex_decode("abc"), None);
    }
}
