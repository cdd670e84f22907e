//! The payer's page in French (the default) and English (`?lang=en`).

use crate::domain::LinkClosed;

pub struct Words {
    pub lang: &'static str,
    /// `?lang=` of the other language, and its name in itself.
    pub other: (&'static str, &'static str),
    pub pay_to: &'static str,
    pub amount: &'static str,
    pub amount_hint: &'static str,
    pub operator: &'static str,
    pub phone: &'static str,
    pub phone_hint: &'static str,
    pub otp: &'static str,
    pub otp_hint: &'static str,
    pub pay: &'static str,
    pub reference: &'static str,
    pub pending_title: &'static str,
    pub pending: &'static str,
    pub go_on: &'static str,
    pub paid_title: &'static str,
    pub paid: &'static str,
    pub failed_title: &'static str,
    pub failed: &'static str,
    pub try_again: &'static str,
    pub unknown_title: &'static str,
    pub unknown: &'static str,
    pub closed_title: &'static str,
    pub deactivated: &'static str,
    pub expired: &'static str,
    pub exhausted: &'static str,
    pub bad_phone: &'static str,
    pub bad_amount: &'static str,
    pub bad_operator: &'static str,
    pub bad_otp: &'static str,
    pub expired_form: &'static str,
    pub too_many: &'static str,
    pub unavailable: &'static str,
}

impl Words {
    pub fn of(lang: Option<&str>) -> &'static Words {
        match lang {
            Some("en") => &EN,
            _ => &FR,
        }
    }

    pub fn closed(&self, why: LinkClosed) -> &'static str {
        match why {
            LinkClosed::Deactivated => self.deactivated,
            LinkClosed::Expired => self.expired,
            LinkClosed::Exhausted => self.exhausted,
        }
    }
}

pub static FR: Words = Words {
    lang: "fr",
    other: ("en", "English"),
    pay_to: "Paiement à",
    amount: "Montant (XOF)",
    amount_hint: "Entre {min} et {max} XOF, sans centimes.",
    operator: "Opérateur",
    phone: "Votre numéro mobile money",
    phone_hint: "10 chiffres, par exemple 07 01 02 03 04.",
    otp: "Code à usage unique (ALPHA seulement)",
    otp_hint: "Composez le code de paiement ALPHA sur votre téléphone pour l'obtenir.",
    pay: "Payer",
    reference: "Référence",
    pending_title: "Paiement en attente",
    pending: "Validez le paiement sur votre téléphone. Cette page se met à jour toute seule.",
    go_on: "Continuer vers la page de paiement",
    paid_title: "Paiement réussi",
    paid: "Merci : votre paiement est reçu. Vous pouvez fermer cette page.",
    failed_title: "Paiement échoué",
    failed: "Le paiement n'a pas abouti, aucun montant n'a été débité.",
    try_again: "Réessayer",
    unknown_title: "Lien introuvable",
    unknown: "Ce lien de paiement n'existe pas. Vérifiez l'adresse avec le marchand.",
    closed_title: "Lien fermé",
    deactivated: "Ce lien de paiement a été désactivé par le marchand.",
    expired: "Ce lien de paiement a expiré.",
    exhausted: "Ce lien de paiement a déjà été payé.",
    bad_phone: "Ce numéro n'est pas un numéro mobile ivoirien valide (10 chiffres, par exemple 07 01 02 03 04).",
    bad_amount: "Le montant doit être un nombre entier de francs dans les limites indiquées.",
    bad_operator: "Choisissez un des opérateurs proposés.",
    bad_otp: "Le code à usage unique est trop long ou contient des caractères invalides.",
    expired_form: "Le formulaire a expiré. Rechargez la page et recommencez.",
    too_many: "Trop de paiements en peu de temps. Réessayez dans une minute.",
    unavailable: "Le service est momentanément indisponible. Réessayez dans quelques instants.",
};

pub static EN: Words = Words {
    lang: "en",
    other: ("fr", "Français"),
    pay_to: "Payment to",
    amount: "Amount (XOF)",
    amount_hint: "Between {min} and {max} XOF, whole francs.",
    operator: "Operator",
    phone: "Your mobile money number",
    phone_hint: "10 digits, for example 07 01 02 03 04.",
    otp: "One-time code (ALPHA only)",
    otp_hint: "Dial ALPHA's payment code on your phone to get it.",
    pay: "Pay",
    reference: "Reference",
    pending_title: "Payment pending",
    pending: "Approve the payment on your phone. This page updates by itself.",
    go_on: "Go on to the payment page",
    paid_title: "Payment received",
    paid: "Thank you: your payment is received. You can close this page.",
    failed_title: "Payment failed",
    failed: "The payment did not go through; nothing was taken.",
    try_again: "Try again",
    unknown_title: "Link not found",
    unknown: "This payment link does not exist. Check the address with the merchant.",
    closed_title: "Link closed",
    deactivated: "The merchant has deactivated this payment link.",
    expired: "This payment link has expired.",
    exhausted: "This payment link has already been paid.",
    bad_phone: "This is not a valid Ivorian mobile number (10 digits, for example 07 01 02 03 04).",
    bad_amount: "The amount must be a whole number of francs within the limits shown.",
    bad_operator: "Choose one of the operators offered.",
    bad_otp: "The one-time code is too long or holds characters it cannot.",
    expired_form: "This form has expired. Reload the page and start again.",
    too_many: "Too many payments in a short time. Try again in a minute.",
    unavailable: "The service is unavailable for a moment. Try again shortly.",
};
