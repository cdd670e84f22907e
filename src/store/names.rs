//! The names the database stores for the domain's enums. They are part of the schema: renaming
//! one needs a migration, so they live here rather than in the domain.

use super::StoreError;
use crate::domain::FailureCode;

pub(super) fn failure_code(code: FailureCode) -> &'static str {
    match code {
        FailureCode::PayerDeclined => "PAYER_DECLINED",
        FailureCode::OperatorRefused => "OPERATOR_REFUSED",
        FailureCode::WrongOtp => "WRONG_OTP",
        FailureCode::OperatorUnavailable => "OPERATOR_UNAVAILABLE",
        FailureCode::Expired => "EXPIRED",
        FailureCode::ResolvedByAdmin => "RESOLVED_BY_ADMIN",
        FailureCode::NotSent => "NOT_SENT",
    }
}

pub(super) fn parse_failure_code(stored: &str) -> Result<FailureCode, StoreError> {
    const ALL: [FailureCode; 7] = [
        FailureCode::PayerDeclined,
        FailureCode::OperatorRefused,
        FailureCode::WrongOtp,
        FailureCode::OperatorUnavailable,
        FailureCode::Expired,
        FailureCode::ResolvedByAdmin,
        FailureCode::NotSent,
    ];
    ALL.into_iter()
        .find(|code| failure_code(*code) == stored)
        .ok_or_else(|| StoreError::Corrupt(format!("unknown failure_code {stored:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_codes_round_trip() {
        for code in [
            FailureCode::PayerDeclined,
            FailureCode::OperatorRefused,
            FailureCode::WrongOtp,
            FailureCode::OperatorUnavailable,
            FailureCode::Expired,
            FailureCode::ResolvedByAdmin,
            FailureCode::NotSent,
        ] {
            assert_eq!(parse_failure_code(failure_code(code)).unwrap(), code);
        }
        assert!(parse_failure_code("NOPE").is_err());
    }
}
