//! What a page or the command line says of a refusal, in its reader's language. In English it
//! is the reason the API gives (the errors' `Display`); in French each refusal has its own
//! sentence, chosen by what was refused (a batch line's code and column, a file's problem, a
//! webhook URL's), never a translation of the English text at run time. A test renders every
//! refusal in French and finds no English sentence.

use super::Lang;
use crate::domain::payout_batch::{MAX_BATCH_ITEMS, MAX_LABEL_CHARS};
use crate::domain::FailureCode;
use crate::service::payouts::csv::{self, CsvProblem, HeaderProblem};
use crate::service::payouts::{BatchProblem, Refusal, RefusalCode};
use crate::service::ServiceError;
use crate::webhook::client::{UrlProblem, UrlProblemKind};

/// Why one line of a payout batch was refused, without its line number.
pub fn batch_line(lang: Lang, refusal: &Refusal) -> String {
    match lang {
        Lang::En => without_line(&refusal.reason).to_owned(),
        Lang::Fr => batch_line_fr(refusal).to_owned(),
    }
}

/// The API's reason without the `line N: ` it starts with for a CSV line.
fn without_line(reason: &str) -> &str {
    match reason.split_once(": ") {
        Some((line, rest)) if line.strip_prefix("line ").is_some_and(|n| n.parse::<u32>().is_ok()) => rest,
        _ => reason,
    }
}

fn batch_line_fr(refusal: &Refusal) -> &'static str {
    match refusal.code {
        RefusalCode::Invalid => field_fr(refusal.field()),
        RefusalCode::DuplicateInBatch => "une ligne précédente du fichier a le même identifiant de transaction",
        RefusalCode::InsufficientFunds => "le solde disponible ne couvre pas ce transfert et ses frais",
        RefusalCode::RecipientInactive => "ce numéro n’a pas de compte mobile money actif chez son opérateur",
        RefusalCode::RecipientUnchecked => "l’opérateur n’a pas pu confirmer le destinataire : rien n’a été envoyé",
        RefusalCode::OperatorUnavailable => "cet opérateur n’est pas proposé ici pour les transferts",
        RefusalCode::NotAttempted => "non enregistrée : une autre ligne a été refusée (tout ou rien)",
        RefusalCode::Unavailable => {
            "la base de données ne l’a pas enregistrée : rien n’est réservé, le lot peut être renvoyé"
        }
    }
}

/// What is wrong with a line's column, in French.
fn field_fr(field: Option<&str>) -> &'static str {
    match field {
        Some("transaction_id") => {
            "l’identifiant de transaction est vide, trop long (64 caractères au plus) ou contient des caractères de contrôle"
        }
        Some("operator") => {
            "opérateur inconnu : ALPHA_MONEY_CI, BETA_MONEY_CI, GAMMA_MONEY_CI, DELTA_MONEY_CI ou un alias que la passerelle accepte"
        }
        Some("phone") => "le numéro doit être un numéro mobile ivoirien à 10 chiffres, par exemple 0701020304",
        Some("amount") => "le montant doit être un nombre entier de francs, de 100 à 1 000 000",
        Some("last_name") => "le nom est vide, trop long ou contient des caractères de contrôle",
        Some("first_name") => "le prénom est vide, trop long ou contient des caractères de contrôle",
        Some("email") => "l’adresse e-mail n’est pas valide",
        Some("check_recipient") => "check_recipient vaut true, false ou reste vide",
        Some(csv::NOT_CSV) => "la ligne n’est pas lisible en CSV (un guillemet jamais fermé ?)",
        _ => "cette ligne n’est pas un transfert valide",
    }
}

/// Why a file is no payout batch at all.
pub fn csv_problem(lang: Lang, problem: &CsvProblem) -> String {
    match lang {
        Lang::En => problem.to_string(),
        Lang::Fr => match problem {
            CsvProblem::Unreadable(_) => "le fichier n’est pas lisible en CSV".to_owned(),
            CsvProblem::Empty => format!(
                "le fichier est vide : sa première ligne doit être l’en-tête {}",
                csv::header()
            ),
            CsvProblem::Header { why, .. } => {
                let what = match why {
                    HeaderProblem::Unknown(name) => format!("la colonne « {name} » est inconnue"),
                    HeaderProblem::Twice(name) => format!("la colonne « {name} » y figure deux fois"),
                    HeaderProblem::Missing(names) => format!("il y manque {}", names.join(", ")),
                };
                format!("l’en-tête doit être {} : {what}", csv::header())
            }
            CsvProblem::Count(n) => {
                format!("le fichier contient {n} transferts ; un lot en contient de 1 à {MAX_BATCH_ITEMS}")
            }
        },
    }
}

/// Why a whole payout batch was refused.
pub fn batch(lang: Lang, problem: &BatchProblem) -> String {
    match (lang, problem) {
        (Lang::En, problem) => problem.to_string(),
        (Lang::Fr, BatchProblem::Size { submitted }) => {
            format!("un lot contient de 1 à {MAX_BATCH_ITEMS} transferts ; celui-ci en contient {submitted}")
        }
        (Lang::Fr, BatchProblem::TooManyChecks { most, asked }) => format!(
            "un lot peut demander la vérification d’au plus {most} destinataires ; celui-ci en demande {asked} : \
             scindez-le, ou vérifiez-en moins"
        ),
        (Lang::Fr, BatchProblem::Label(_)) => {
            format!("le libellé est trop long ({MAX_LABEL_CHARS} caractères au plus) ou contient des caractères de contrôle")
        }
    }
}

/// Why a webhook URL was refused.
pub fn webhook_url(lang: Lang, problem: &UrlProblem) -> String {
    match lang {
        Lang::En => problem.to_string(),
        Lang::Fr => {
            let url = &problem.shown;
            match &problem.kind {
                UrlProblemKind::Unparsable(_) => format!("l’URL de webhook « {url} » n’est pas une URL valide"),
                UrlProblemKind::Scheme => format!("l’URL de webhook « {url} » doit commencer par http:// ou https://"),
                UrlProblemKind::NoHost => format!("l’URL de webhook « {url} » n’a pas d’hôte"),
                UrlProblemKind::Private(block) => format!(
                    "l’URL de webhook « {url} » désigne une adresse privée ou réservée ({block}) : utilisez une \
                     adresse publique, ou MOMO_WEBHOOK_ALLOW_PRIVATE=true pour des essais en local"
                ),
            }
        }
    }
}

/// A refusal the use case gave only as text (`ServiceError::Invalid`): in English its text; in
/// French a sentence that says the request was refused, for no page may show English.
pub fn invalid(lang: Lang, why: &str) -> String {
    match lang {
        Lang::En => why.to_owned(),
        Lang::Fr => "Cette demande n’est pas valide : vérifiez les valeurs saisies.".to_owned(),
    }
}

/// A use case's failure of its own kind (a database away, a fault of ours).
pub fn service(lang: Lang, e: &ServiceError) -> String {
    match (lang, e) {
        (Lang::En, e) => e.to_string(),
        (Lang::Fr, ServiceError::Invalid(why)) => invalid(lang, why),
        (Lang::Fr, ServiceError::Unauthorized(_)) => "accès refusé : identifiants ou jeton refusés".to_owned(),
        (Lang::Fr, ServiceError::NotFound(_)) => "introuvable pour ce marchand et cet environnement".to_owned(),
        (Lang::Fr, ServiceError::Unavailable(_)) => {
            "la base de données est indisponible : rien n’a été enregistré, réessayez".to_owned()
        }
        (Lang::Fr, ServiceError::Internal(_)) => "erreur interne de la passerelle : voir son journal".to_owned(),
    }
}

/// Why a payment failed, by its failure code (the operator's own words stay in English in the
/// API's `failureReason`).
pub fn failure(lang: Lang, code: Option<FailureCode>, reason: Option<&str>) -> String {
    match lang {
        Lang::En => reason.map_or_else(|| code.map_or_else(String::new, |c| c.to_string()), str::to_owned),
        Lang::Fr => match code {
            Some(FailureCode::PayerDeclined) => "le payeur a refusé ou n’a pas pu payer",
            Some(FailureCode::OperatorRefused) => "l’opérateur a refusé le paiement",
            Some(FailureCode::WrongOtp) => "le code à usage unique est faux",
            Some(FailureCode::OperatorUnavailable) => "l’opérateur était injoignable : rien n’a été envoyé",
            Some(FailureCode::Expired) => "le paiement a expiré sans être validé",
            Some(FailureCode::ResolvedByAdmin) => "réglé à la main après vérification auprès de l’opérateur",
            Some(FailureCode::NotSent) => "le paiement n’a jamais atteint l’opérateur",
            None => "le paiement a échoué",
        }
        .to_owned(),
    }
}

#[cfg(test)]
#[path = "refusals_tests.rs"]
mod tests;
