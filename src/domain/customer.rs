//! Customers: the people behind phone numbers, kept per merchant and environment.

use super::environment::Tenant;
use super::ids::CustomerId;
use super::msisdn::Msisdn;
use super::page::{Cursor, Paged};
use super::text::{checked_text, TextProblem, MAX_NAME_CHARS};
use super::time::Timestamp;

pub const MAX_EMAIL_CHARS: usize = 254;
pub const MAX_ADDRESS_LINE_CHARS: usize = 200;
/// The only country the service operates in.
pub const COUNTRY_CODE: &str = "CI";

/// A person's name: a first or last name, or a v2 full name before it is split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PersonName(String);

impl PersonName {
    pub fn parse(raw: &str) -> Result<PersonName, TextProblem> {
        checked_text(raw, MAX_NAME_CHARS).map(PersonName)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

/// Why an email address was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EmailProblem {
    #[error("{0}")]
    Text(TextProblem),
    #[error("must be an email address like name@example.com")]
    Malformed,
}

/// An email address of plausible form. Deliverability is not our business; obvious typos are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Email(String);

impl Email {
    pub fn parse(raw: &str) -> Result<Email, EmailProblem> {
        let text = checked_text(raw, MAX_EMAIL_CHARS).map_err(EmailProblem::Text)?;
        let (local, domain) = text.rsplit_once('@').ok_or(EmailProblem::Malformed)?;
        let domain_ok =
            domain.contains('.') && domain.split('.').all(|label| !label.is_empty()) && !domain.contains('@');
        if local.is_empty()
            || local.len() > 64
            || local.contains('@')
            || !domain_ok
            || text.contains(char::is_whitespace)
        {
            return Err(EmailProblem::Malformed);
        }
        Ok(Email(text))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Why an address was refused, and in which part.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AddressProblem {
    #[error("countryCode must be \"CI\"")]
    Country,
    #[error("city {0}")]
    City(TextProblem),
    #[error("streetAddress {0}")]
    Street(TextProblem),
}

/// A postal address in Côte d'Ivoire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Address {
    pub country_code: String,
    pub city: Option<String>,
    pub street_address: Option<String>,
}

impl Address {
    pub fn parse(
        country_code: &str,
        city: Option<&str>,
        street_address: Option<&str>,
    ) -> Result<Address, AddressProblem> {
        if country_code != COUNTRY_CODE {
            return Err(AddressProblem::Country);
        }
        let line = |raw: Option<&str>| raw.map(|s| checked_text(s, MAX_ADDRESS_LINE_CHARS)).transpose();
        Ok(Address {
            country_code: COUNTRY_CODE.to_owned(),
            city: line(city).map_err(AddressProblem::City)?,
            street_address: line(street_address).map_err(AddressProblem::Street)?,
        })
    }
}

/// A customer to record, already validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewCustomer {
    pub first_name: PersonName,
    pub last_name: PersonName,
    pub email: Option<Email>,
    pub phone: Msisdn,
    pub address: Address,
}

/// A stored customer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Customer {
    pub id: CustomerId,
    pub tenant: Tenant,
    pub first_name: String,
    pub last_name: String,
    pub email: Option<String>,
    pub phone: Msisdn,
    pub address: Address,
    pub created_at: Timestamp,
}

impl Paged for Customer {
    fn cursor(&self) -> Cursor {
        Cursor::at(self.created_at, &self.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plausible_emails_pass_and_obvious_typos_do_not() {
        assert!(Email::parse("awa.kone@example.ci").is_ok());
        assert!(Email::parse("a+tag@sub.example.com").is_ok());
        for bad in [
            "awa",
            "awa@",
            "@example.ci",
            "awa@example",
            "awa@example..ci",
            "a wa@example.ci",
            "a@b@c.ci",
        ] {
            assert_eq!(Email::parse(bad), Err(EmailProblem::Malformed), "{bad}");
        }
        let long = format!("{}@example.ci", "a".repeat(250));
        assert!(matches!(
            Email::parse(&long),
            Err(EmailProblem::Text(TextProblem::TooLong { .. }))
        ));
    }

    #[test]
    fn addresses_must_be_in_cote_d_ivoire() {
        assert!(Address::parse("CI", Some("Abidjan"), None).is_ok());
        assert_eq!(Address::parse("ci", None, None), Err(AddressProblem::Country));
        assert_eq!(Address::parse("FR", None, None), Err(AddressProblem::Country));
        assert!(matches!(
            Address::parse("CI", Some(""), None),
            Err(AddressProblem::City(_))
        ));
    }
}
