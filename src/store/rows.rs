//! Turning database rows into domain values, for either database.

use sqlx::{ColumnIndex, Decode, Row, Type};

use super::StoreError;
use crate::domain::{Address, Credential, Customer, Environment, MerchantId, Msisdn, Tenant, Timestamp};

/// Reads a column, for any database whose rows decode text and 64-bit integers.
fn get<'r, R, T>(row: &'r R, column: &'static str) -> Result<T, StoreError>
where
    R: Row,
    &'static str: ColumnIndex<R>,
    T: Decode<'r, R::Database> + Type<R::Database>,
{
    row.try_get(column).map_err(StoreError::from)
}

pub(super) fn environment(raw: &str) -> Result<Environment, StoreError> {
    raw.parse()
        .map_err(|e: crate::domain::environment::UnknownEnvironment| StoreError::Corrupt(e.to_string()))
}

pub(super) fn credential<R>(row: &R) -> Result<Credential, StoreError>
where
    R: Row,
    &'static str: ColumnIndex<R>,
    for<'r> String: Decode<'r, R::Database> + Type<R::Database>,
    for<'r> i64: Decode<'r, R::Database> + Type<R::Database>,
{
    let secret_hash: String = get(row, "secret_hash")?;
    Ok(Credential {
        id: get(row, "id")?,
        merchant_id: MerchantId(get(row, "merchant_id")?),
        environment: environment(&get::<R, String>(row, "environment")?)?,
        api_key: get(row, "api_key")?,
        secret_hash: hex_decode(&secret_hash).ok_or_else(|| StoreError::Corrupt("secret_hash is not hex".into()))?,
        created_at: Timestamp(get(row, "created_at")?),
        revoked_at: get::<R, Option<i64>>(row, "revoked_at")?.map(Timestamp),
    })
}

pub(super) fn customer<R>(row: &R) -> Result<Customer, StoreError>
where
    R: Row,
    &'static str: ColumnIndex<R>,
    for<'r> String: Decode<'r, R::Database> + Type<R::Database>,
    for<'r> i64: Decode<'r, R::Database> + Type<R::Database>,
{
    let phone: String = get(row, "phone")?;
    Ok(Customer {
        id: get(row, "id")?,
        tenant: Tenant {
            merchant_id: MerchantId(get(row, "merchant_id")?),
            environment: environment(&get::<R, String>(row, "environment")?)?,
        },
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

pub(super) fn hex_encode(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn hex_decode(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
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
