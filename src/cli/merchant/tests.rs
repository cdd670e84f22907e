use super::*;
use crate::domain::merchant::EnvironmentSummary;
use crate::domain::Francs;
use crate::service::MerchantEnvironmentSecrets;

fn created() -> Done {
    let secrets = |environment, webhook_url: Option<&str>| MerchantEnvironmentSecrets {
        environment,
        api_key: format!("pk_{environment}"),
        api_secret: format!("sk_{environment}"),
        webhook_secret: format!("whsec_{environment}"),
        webhook_url: webhook_url.map(str::to_owned),
    };
    Done::Created(CreatedMerchant {
        id: MerchantId::from("m-1"),
        name: "Boutique Awa".into(),
        environments: vec![
            secrets(Environment::Production, None),
            secrets(Environment::Sandbox, Some("https://shop.example.ci/hooks")),
        ],
    })
}

fn listed() -> Done {
    Done::Listed(vec![MerchantSummary {
        id: MerchantId::from("m-1"),
        name: "Boutique Awa".into(),
        created_at: Timestamp(1_795_000_000_123),
        environments: vec![
            EnvironmentSummary {
                environment: Environment::Production,
                api_key: "pk_live_1".into(),
                webhook_url: None,
            },
            EnvironmentSummary {
                environment: Environment::Sandbox,
                api_key: "pk_sandbox_1".into(),
                webhook_url: Some("https://shop.example.ci/hooks".into()),
            },
        ],
    }])
}

fn printed(done: &Done, format: Format) -> String {
    crate::cli::printed(render(done, format))
}

#[test]
fn a_created_merchant_shows_every_secret_as_text_or_as_one_line_of_json() {
    assert_eq!(
        printed(&created(), Format::Text),
        "Merchant Boutique Awa created: m-1\n\
             Secrets are shown only this once; store them now.\n  \
             Production:\n    \
             API key:                pk_Production\n    \
             API secret:             sk_Production\n    \
             Webhook signing secret: whsec_Production\n  \
             Sandbox:\n    \
             API key:                pk_Sandbox\n    \
             API secret:             sk_Sandbox\n    \
             Webhook signing secret: whsec_Sandbox\n    \
             Webhook URL:            https://shop.example.ci/hooks\n"
    );
    assert_eq!(
            printed(&created(), Format::Json),
            r#"{"environments":{"Production":{"apiKey":"pk_Production","apiSecret":"sk_Production","webhookSecret":"whsec_Production","webhookUrl":null},"Sandbox":{"apiKey":"pk_Sandbox","apiSecret":"sk_Sandbox","webhookSecret":"whsec_Sandbox","webhookUrl":"https://shop.example.ci/hooks"}},"id":"m-1","name":"Boutique Awa"}"#
                .to_owned()
                + "\n"
        );
}

#[test]
fn the_merchant_list_shows_api_keys_and_webhook_urls_as_text_or_as_pretty_json() {
    assert_eq!(
        printed(&listed(), Format::Text),
        "m-1  Boutique Awa  (created 2026-11-18T11:06:40.123Z)\n    \
             Production pk_live_1  no webhook URL\n    \
             Sandbox    pk_sandbox_1  https://shop.example.ci/hooks\n"
    );
    assert_eq!(
        printed(&listed(), Format::Json),
        r#"[
  {
    "createdAt": "2026-11-18T11:06:40.123Z",
    "environments": [
      {
        "apiKey": "pk_live_1",
        "environment": "Production",
        "webhookUrl": null
      },
      {
        "apiKey": "pk_sandbox_1",
        "environment": "Sandbox",
        "webhookUrl": "https://shop.example.ci/hooks"
      }
    ],
    "id": "m-1",
    "name": "Boutique Awa"
  }
]
"#
    );
    assert_eq!(
        printed(&Done::Listed(vec![]), Format::Text),
        "no merchants yet: create one with `momo-gateway merchant create --name NAME`\n"
    );
    assert_eq!(printed(&Done::Listed(vec![]), Format::Json), "[]\n");
}

#[test]
fn webhook_top_up_and_rotation_each_print_what_changed() {
    let set = |url: Option<&str>| Done::WebhookSet {
        environment: Environment::Sandbox,
        url: url.map(str::to_owned),
    };
    assert_eq!(
        printed(&set(Some("https://x.ci")), Format::Text),
        "Sandbox webhook URL set to https://x.ci\n"
    );
    assert_eq!(printed(&set(None), Format::Text), "Sandbox webhook URL cleared\n");
    let topped_up = Done::ToppedUp {
        environment: Environment::Production,
        amount: Francs(1234),
        available: 51_234,
    };
    assert_eq!(
        printed(&topped_up, Format::Text),
        "Production credited with 1234 XOF; available balance 51234 XOF\n"
    );
    let rotated = Done::Rotated {
        environment: Environment::Sandbox,
        api_key: "pk_new".into(),
        api_secret: "sk_new".into(),
    };
    assert_eq!(
        printed(&rotated, Format::Text),
        "New Sandbox credentials (the old pair no longer works; the secret is shown only once):\n  \
             API key:    pk_new\n  \
             API secret: sk_new\n"
    );
    assert_eq!(
        printed(&rotated, Format::Json),
        "{\"apiKey\":\"pk_new\",\"apiSecret\":\"sk_new\",\"environment\":\"Sandbox\"}\n"
    );
}

#[test]
fn a_webhook_secret_rotation_prints_the_new_secret_and_the_end_of_the_overlap() {
    let rotated = Done::WebhookSecretRotated(RotatedWebhookSecret {
        environment: Environment::Production,
        webhook_secret: "whsec_new".into(),
        previous_valid_until: Timestamp(1_795_000_000_123),
    });
    assert_eq!(
        printed(&rotated, Format::Text),
        "New Production webhook signing secret (shown only once):\n  \
             Webhook signing secret: whsec_new\n\
             Deliveries carry the old secret's signature too until 2026-11-18T11:06:40.123Z.\n"
    );
    assert_eq!(
            printed(&rotated, Format::Json),
            "{\"environment\":\"Production\",\"previousSecretValidUntil\":\"2026-11-18T11:06:40.123Z\",\"webhookSecret\":\"whsec_new\"}\n"
        );
}

#[test]
fn switching_the_recipient_check_says_what_it_now_is() {
    let on = Done::RecipientCheckSet {
        environment: Environment::Production,
        allowed: true,
    };
    let off = Done::RecipientCheckSet {
        environment: Environment::Production,
        allowed: false,
    };
    assert!(printed(&on, Format::Text).starts_with("Production: the recipient check is on"));
    assert!(printed(&off, Format::Text).contains("refused with 403"));
}

#[test]
fn the_recipient_check_is_switched_with_on_or_off_but_not_both() {
    use clap::Parser;
    #[derive(Debug, clap::Parser)]
    struct Cli {
        #[command(subcommand)]
        command: MerchantCommand,
    }
    let parse = |args: &[&str]| Cli::try_parse_from(["merchant"].iter().chain(args));
    let base = ["recipient-check", "--merchant", "m-1", "--env", "Production"];
    let on = parse(&[&base[..], &["--on"]].concat()).unwrap();
    assert!(matches!(
        on.command,
        MerchantCommand::RecipientCheck {
            on: true,
            off: false,
            ..
        }
    ));
    assert!(parse(&[&base[..], &["--off"]].concat()).is_ok());
    assert!(
        parse(&[&base[..], &["--on", "--off"]].concat()).is_err(),
        "one or the other"
    );
    assert!(parse(&base).is_err(), "one of them is needed");
}
