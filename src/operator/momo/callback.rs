//! A MoMo callback: the status object the operator PUTs (or POSTs) to `X-Callback-Url`, once,
//! with no signature and no retry. The gateway authenticates it by a secret of its own in the
//! callback URL, reads our `ref` from `externalId`, and then asks the operator for the status
//! before settling anything: the body is a hint, the status lookup is the answer.

use super::wire::PaymentResult;

/// What a callback names.
#[derive(Debug)]
pub struct MomoCallback {
    /// Our `ref` (`externalId`).
    pub reference: String,
    pub status: String,
}

/// Reads a callback body; the error says what is wrong with it.
pub fn parse(body: &[u8]) -> Result<MomoCallback, String> {
    let result: PaymentResult = serde_json::from_slice(body).map_err(|e| format!("not a MoMo status object: {e}"))?;
    let reference = result
        .external_id
        .filter(|id| !id.is_empty())
        .ok_or_else(|| "no externalId".to_owned())?;
    Ok(MomoCallback {
        reference,
        status: result.status,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_callback_names_our_reference() {
        let c =
            parse(br#"{"amount":"1500","currency":"XOF","externalId":"ABCDEFGHIJ","status":"SUCCESSFUL"}"#).unwrap();
        assert_eq!((c.reference.as_str(), c.status.as_str()), ("ABCDEFGHIJ", "SUCCESSFUL"));
        assert!(parse(b"{}").is_err());
        assert!(parse(b"not json").is_err());
        assert!(parse(br#"{"status":"SUCCESSFUL","externalId":""}"#).is_err());
    }
}
