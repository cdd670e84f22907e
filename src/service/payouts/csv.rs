//! A payout batch from a spreadsheet: the CSV the dashboard's upload and `momo-gateway payouts
//! batch --file` read. One header line, then one transfer per line:
//!
//! ```text
//! transaction_id,operator,phone,amount,last_name,first_name,email,check_recipient
//! pay-2026-11-001,GAMMA_MONEY_CI,0701020301,150000,Koné,Awa,awa@example.ci,true
//! ```
//!
//! `email` and `check_recipient` (`true`/`false`, empty for false) are optional columns; the
//! others are required, in any order. A header that is not this is refused whole, as is a file
//! with no line or more than a batch holds; a line that is no valid transfer is refused alone,
//! with the reason its own request would get, so a preview can show it. Amounts are whole francs
//! (`150000`, `150000.00`), parsed exactly as the API parses them.

use std::collections::HashMap;

use crate::domain::payout_batch::MAX_BATCH_ITEMS;
use crate::domain::text::checked_text;
use crate::domain::{Address, Amount, Email, Msisdn, OperatorAliases, PersonName, TextId, TransactionId};
use crate::service::payments::{Party, PaymentRequest};

use super::outcome::Refusal;
use crate::service::payments::{RecipientCheck, Requested};

/// The columns a file must have.
pub const REQUIRED: [&str; 6] = [
    "transaction_id",
    "operator",
    "phone",
    "amount",
    "last_name",
    "first_name",
];
/// The columns it may have.
pub const OPTIONAL: [&str; 2] = ["email", "check_recipient"];
/// What a line that is no CSV record is refused for (a quote never closed).
pub const NOT_CSV: &str = "csv";
/// The longest transaction id, as v1 takes them.
const MAX_TRANSACTION_ID: usize = 64;

/// Why a file is no batch at all.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CsvProblem {
    #[error("the file is not CSV: {0}")]
    Unreadable(String),
    #[error("the file is empty: its first line must be the header {}", header())]
    Empty,
    #[error("the header {found:?} is not {}: {why}", header())]
    Header { found: String, why: HeaderProblem },
    #[error("the file holds {0} transfers; a batch holds from 1 to {MAX_BATCH_ITEMS}")]
    Count(usize),
}

/// What is wrong with a header.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum HeaderProblem {
    #[error("unknown column {0:?}")]
    Unknown(String),
    #[error("column {0:?} twice")]
    Twice(&'static str),
    #[error("missing {}", .0.join(", "))]
    Missing(Vec<&'static str>),
}

/// The header a file should start with.
pub fn header() -> String {
    REQUIRED
        .iter()
        .chain(OPTIONAL.iter())
        .copied()
        .collect::<Vec<_>>()
        .join(",")
}

/// Each line of `bytes` after the header: a transfer, or why it is none.
pub fn read(bytes: &[u8], aliases: &OperatorAliases) -> Result<Vec<Result<PaymentRequest, Refusal>>, CsvProblem> {
    // A spreadsheet's UTF-8 export may start with a byte order mark.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut reader = ::csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .trim(::csv::Trim::All)
        .from_reader(bytes);
    let headers = reader
        .headers()
        .map_err(|e| CsvProblem::Unreadable(e.to_string()))?
        .clone();
    if headers.is_empty() || headers.iter().all(str::is_empty) {
        return Err(CsvProblem::Empty);
    }
    let columns = columns(&headers)?;
    let mut items = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let line = i + 2;
        let item = match record {
            Ok(record) => transfer(&record, &columns, aliases)
                .map_err(|(field, why)| Refusal::invalid(field, format!("line {line}: {why}"))),
            Err(e) => Err(Refusal::invalid(NOT_CSV, format!("line {line}: not CSV: {e}"))),
        };
        items.push(item);
        if items.len() > MAX_BATCH_ITEMS {
            return Err(CsvProblem::Count(items.len() + reader.records().count()));
        }
    }
    if items.is_empty() {
        return Err(CsvProblem::Count(0));
    }
    Ok(items)
}

/// Where each known column is.
fn columns(headers: &::csv::StringRecord) -> Result<HashMap<&'static str, usize>, CsvProblem> {
    let found = headers.iter().collect::<Vec<_>>().join(",");
    let problem = |why: HeaderProblem| CsvProblem::Header {
        found: found.clone(),
        why,
    };
    let mut at = HashMap::new();
    for (i, name) in headers.iter().enumerate() {
        let known = REQUIRED
            .iter()
            .chain(OPTIONAL.iter())
            .find(|k| k.eq_ignore_ascii_case(name))
            .ok_or_else(|| problem(HeaderProblem::Unknown(name.to_owned())))?;
        if at.insert(*known, i).is_some() {
            return Err(problem(HeaderProblem::Twice(known)));
        }
    }
    let missing: Vec<&str> = REQUIRED.iter().copied().filter(|c| !at.contains_key(c)).collect();
    if !missing.is_empty() {
        return Err(problem(HeaderProblem::Missing(missing)));
    }
    Ok(at)
}

/// One line as a transfer.
fn transfer(
    record: &::csv::StringRecord,
    columns: &HashMap<&'static str, usize>,
    aliases: &OperatorAliases,
) -> Result<PaymentRequest, (&'static str, String)> {
    let field = |name: &str| columns.get(name).and_then(|&i| record.get(i)).unwrap_or("");
    let transaction_id = checked_text(field("transaction_id"), MAX_TRANSACTION_ID)
        .map(TransactionId::from_text)
        .map_err(|e| ("transaction_id", format!("transaction_id {e}")))?;
    let operator = aliases
        .resolve(field("operator"))
        .map_err(|e| ("operator", format!("operator: {e}")))?;
    let phone = Msisdn::parse(field("phone")).map_err(|e| ("phone", format!("phone {e}")))?;
    let amount = Amount::parse_text(field("amount")).map_err(|e| ("amount", format!("amount {e}")))?;
    let name = |column: &'static str| {
        PersonName::parse(field(column))
            .map(PersonName::into_string)
            .map_err(|e| (column, format!("{column} {e}")))
    };
    let email = match field("email") {
        "" => None,
        raw => Some(
            Email::parse(raw)
                .map_err(|e| ("email", format!("email {e}")))?
                .as_str()
                .to_owned(),
        ),
    };
    let recipient_check = match field("check_recipient").to_ascii_lowercase().as_str() {
        "" | "false" => RecipientCheck::Skip,
        "true" => RecipientCheck::First,
        other => {
            return Err((
                "check_recipient",
                format!("check_recipient must be true, false or empty, not {other:?}"),
            ))
        }
    };
    Ok(PaymentRequest {
        transaction_id,
        operator: operator.operator,
        operator_alias: operator.alias,
        phone_as_sent: field("phone").to_owned(),
        amount,
        party: Party {
            first_name: name("first_name")?,
            last_name: name("last_name")?,
            email,
            phone: phone.clone(),
            address: Address::parse("CI", None, None).map_err(|e| ("address", e.to_string()))?,
        },
        phone,
        purpose: Requested::Transfer {
            recipient_check,
            batch: None,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aliases() -> OperatorAliases {
        OperatorAliases::default()
    }

    #[test]
    fn a_file_is_read_line_by_line_and_a_bad_line_is_refused_alone() {
        let file = "\u{feff}transaction_id,operator,phone,amount,last_name,first_name\n\
                    p-1,GAMMA_MONEY_CI,0701020301,1500,Koné,Awa\n\
                    p-2,GAMMA_MONEY_CI,0701020301,15.5,Koné,Awa\n\
                    p-3,OMEGA,0701020301,1500,Koné,Awa\n\
                    p-4,ALPHA_MONEY_CI,12345,1500,Koné,Awa\n\
                    \"p-5\",BETA_CI, 0701020305 ,2000.00,\"Yao, Jr\",Koffi\n";
        let items = read(file.as_bytes(), &aliases()).unwrap();
        assert_eq!(items.len(), 5);
        let first = items[0].as_ref().unwrap();
        assert_eq!((first.transaction_id.as_str(), first.amount.francs()), ("p-1", 1500));
        let reason = |i: usize| items[i].as_ref().unwrap_err().reason.clone();
        assert!(reason(1).starts_with("line 3: amount"), "{}", reason(1));
        assert!(reason(2).starts_with("line 4: operator"), "{}", reason(2));
        assert!(reason(3).starts_with("line 5: phone"), "{}", reason(3));
        let last = items[4].as_ref().unwrap();
        assert_eq!((last.party.last_name.as_str(), last.amount.francs()), ("Yao, Jr", 2000));
    }

    #[test]
    fn a_wrong_header_or_count_refuses_the_file() {
        let wrong = read(
            b"id,operator,phone,amount\nx,GAMMA_MONEY_CI,0701020301,100\n",
            &aliases(),
        );
        assert!(matches!(wrong, Err(CsvProblem::Header { .. })), "{wrong:?}");
        assert_eq!(read(b"", &aliases()).unwrap_err(), CsvProblem::Empty);
        let header_only = format!("{}\n", header());
        assert_eq!(
            read(header_only.as_bytes(), &aliases()).unwrap_err(),
            CsvProblem::Count(0)
        );
        let mut big = format!("{}\n", header());
        for i in 0..=MAX_BATCH_ITEMS {
            big.push_str(&format!("p-{i},GAMMA_MONEY_CI,0701020301,100,K,A,,\n"));
        }
        assert_eq!(
            read(big.as_bytes(), &aliases()).unwrap_err(),
            CsvProblem::Count(MAX_BATCH_ITEMS + 1)
        );
    }
}
