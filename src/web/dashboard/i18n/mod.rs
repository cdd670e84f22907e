//! The dashboard's words, in French (the default, `fr.rs`) and English (`?lang=en`, remembered
//! in the `momo_lang` cookie; `en.rs`). One struct per language, so a string missing in one
//! language does not compile.

mod en;
mod fr;

pub use en::EN;
pub use fr::FR;

/// A language of the dashboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    Fr,
    En,
}

impl Lang {
    pub fn parse(raw: &str) -> Option<Lang> {
        match raw {
            "fr" => Some(Lang::Fr),
            "en" => Some(Lang::En),
            _ => None,
        }
    }

    pub fn code(self) -> &'static str {
        match self {
            Lang::Fr => "fr",
            Lang::En => "en",
        }
    }

    /// The other language, for the switch in the header.
    pub fn other(self) -> Lang {
        match self {
            Lang::Fr => Lang::En,
            Lang::En => Lang::Fr,
        }
    }

    pub fn text(self) -> &'static Text {
        match self {
            Lang::Fr => &FR,
            Lang::En => &EN,
        }
    }
}

/// Every text the dashboard shows.
pub struct Text {
    pub title: &'static str,
    pub language_name: &'static str,
    pub skip_to_content: &'static str,
    pub nav_label: &'static str,
    pub nav_overview: &'static str,
    pub nav_transactions: &'static str,
    pub nav_customers: &'static str,
    pub nav_links: &'static str,
    pub nav_webhooks: &'static str,
    pub nav_api_keys: &'static str,
    pub environment: &'static str,
    /// Before a value: French puts a (narrow) space before the colon.
    pub colon: &'static str,
    /// The decimal separator.
    pub decimal: char,
    pub switch_to: &'static str,
    pub sign_out: &'static str,
    // Sign-in
    pub sign_in: &'static str,
    pub sign_in_intro: &'static str,
    pub sign_in_environment_hint: &'static str,
    pub api_key: &'static str,
    pub api_secret: &'static str,
    pub wrong_credentials: &'static str,
    pub too_many_attempts: &'static str,
    // Overview
    pub balance_available: &'static str,
    pub balance_reserved: &'static str,
    pub volume_today: &'static str,
    pub volume_7d: &'static str,
    pub transactions_count: &'static str,
    /// The same word for a count of one.
    pub transaction_count_one: &'static str,
    pub success_by_operator: &'static str,
    pub operator: &'static str,
    pub successful: &'static str,
    pub finished: &'static str,
    pub success_rate: &'static str,
    pub chart_7d: &'static str,
    pub no_data: &'static str,
    // Transactions
    pub filters: &'static str,
    pub status: &'static str,
    pub kind: &'static str,
    pub any: &'static str,
    pub collection: &'static str,
    pub transfer: &'static str,
    pub refund: &'static str,
    pub phone: &'static str,
    pub from: &'static str,
    pub to: &'static str,
    pub search: &'static str,
    pub search_hint: &'static str,
    pub apply: &'static str,
    pub export_csv: &'static str,
    pub next_page: &'static str,
    pub transaction_id: &'static str,
    pub reference: &'static str,
    pub created_at: &'static str,
    pub amount: &'static str,
    pub fees: &'static str,
    pub amount_receive: &'static str,
    pub amount_total: &'static str,
    pub customer: &'static str,
    pub no_transactions: &'static str,
    // One transaction
    pub transaction: &'static str,
    pub timeline: &'static str,
    pub failure: &'static str,
    pub webhook_attempts: &'static str,
    pub event: &'static str,
    pub attempt: &'static str,
    pub at: &'static str,
    pub status_code: &'static str,
    pub latency: &'static str,
    pub error: &'static str,
    pub no_attempts: &'static str,
    pub resend_webhook: &'static str,
    pub webhook_resent: &'static str,
    pub no_webhook_yet: &'static str,
    // Refunds
    pub amount_refunded: &'static str,
    pub refund_of: &'static str,
    pub refund_reason: &'static str,
    pub refunds: &'static str,
    pub no_refunds: &'static str,
    pub refunds_latest: &'static str,
    pub refund_heading: &'static str,
    pub refund_left: &'static str,
    pub fully_refunded: &'static str,
    pub refund_amount: &'static str,
    pub refund_amount_hint: &'static str,
    pub refund_reason_hint: &'static str,
    pub refund_confirm: &'static str,
    pub refund_submit: &'static str,
    pub refund_recorded: &'static str,
    pub refund_confirm_missing: &'static str,
    pub refund_amount_invalid: &'static str,
    pub refund_reason_invalid: &'static str,
    pub refund_not_possible: &'static str,
    pub refund_balance_short: &'static str,
    pub refund_already_recorded: &'static str,
    pub refund_failed: &'static str,
    pub refund_not_offered: &'static str,
    // Payment links
    pub payment_link: &'static str,
    pub links_intro: &'static str,
    pub new_link: &'static str,
    pub no_links: &'static str,
    pub description: &'static str,
    pub link_state: &'static str,
    pub link_active: &'static str,
    pub link_deactivated: &'static str,
    pub link_expired: &'static str,
    pub link_exhausted: &'static str,
    pub link_payments_count: &'static str,
    pub payments_successful: &'static str,
    pub payments_pending: &'static str,
    pub collected: &'static str,
    pub links_latest: &'static str,
    pub link_created_at: &'static str,
    pub link_amount_fixed: &'static str,
    pub link_amount_hint: &'static str,
    pub link_min: &'static str,
    pub link_max: &'static str,
    pub link_bounds_hint: &'static str,
    pub link_description_hint: &'static str,
    pub link_usage: &'static str,
    pub link_once: &'static str,
    pub link_reusable: &'static str,
    pub link_max_payments: &'static str,
    pub link_max_payments_hint: &'static str,
    pub link_expires: &'static str,
    pub link_expires_hint: &'static str,
    pub link_never: &'static str,
    pub link_operators: &'static str,
    pub link_success_url: &'static str,
    pub link_error_url: &'static str,
    pub link_urls_hint: &'static str,
    pub link_create: &'static str,
    pub link_created: &'static str,
    pub link_amount_invalid: &'static str,
    pub link_amount_and_bounds: &'static str,
    pub link_bounds_reversed: &'static str,
    pub link_description_invalid: &'static str,
    pub link_max_payments_invalid: &'static str,
    pub link_expires_invalid: &'static str,
    pub link_no_operator: &'static str,
    pub link_url_invalid: &'static str,
    pub link_url: &'static str,
    pub link_url_hint: &'static str,
    pub link_open: &'static str,
    pub qr_code: &'static str,
    pub qr_hint: &'static str,
    pub link_payments: &'static str,
    pub deactivate_heading: &'static str,
    pub deactivate_hint: &'static str,
    pub deactivate_confirm: &'static str,
    pub deactivate_submit: &'static str,
    pub link_deactivated_done: &'static str,
    pub deactivate_confirm_missing: &'static str,
    pub deactivated_on: &'static str,
    // Customers
    pub customers: &'static str,
    pub name: &'static str,
    pub email: &'static str,
    pub address: &'static str,
    pub no_customers: &'static str,
    pub customer_transactions: &'static str,
    // Webhooks
    pub webhooks: &'static str,
    pub webhook_url: &'static str,
    pub webhook_url_hint: &'static str,
    pub save: &'static str,
    pub webhook_url_saved: &'static str,
    pub webhook_url_cleared: &'static str,
    pub webhook_disabled: &'static str,
    pub send_test_event: &'static str,
    pub test_event_hint: &'static str,
    pub test_event_sent: &'static str,
    pub recent_attempts: &'static str,
    pub test_delivery: &'static str,
    pub signing_secret: &'static str,
    pub signing_secret_hint: &'static str,
    pub rotate_webhook_secret: &'static str,
    pub webhook_secret_rotated: &'static str,
    pub new_secret_once: &'static str,
    // API keys
    pub api_keys: &'static str,
    pub current_api_key: &'static str,
    pub api_keys_hint: &'static str,
    pub rotate_api_key: &'static str,
    pub api_key_rotated: &'static str,
    pub new_api_key: &'static str,
    pub sign_in_again: &'static str,
    // Errors
    pub not_found: &'static str,
    pub not_found_text: &'static str,
    pub forbidden_text: &'static str,
    pub bad_request: &'static str,
    pub unavailable_text: &'static str,
    pub back_to_overview: &'static str,
}
