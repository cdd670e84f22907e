//! What a handler may take as its state besides the whole gateway: the use-case service it
//! needs (`State<Customers>`), taken from the gateway it was routed with. Here, at the top,
//! because it ties axum's extraction to the services, which know no HTTP.

use axum::extract::FromRef;

use crate::service::{
    Auth, Balances, Customers, Dashboard, Gateway, Links, Merchants, Payments, Payouts, Recipients, Reports, Webhooks,
};

macro_rules! service_state {
    ($($service:ident: $field:ident),* $(,)?) => {
        $(
            impl FromRef<Gateway> for $service {
                fn from_ref(gateway: &Gateway) -> $service {
                    gateway.$field.clone()
                }
            }
        )*
    };
}

service_state!(
    Payments: payments,
    Balances: balances,
    Customers: customers,
    Links: links,
    Payouts: payouts,
    Recipients: recipients,
    Webhooks: webhooks,
    Reports: reports,
    Merchants: merchants,
    Dashboard: dashboard,
    Auth: auth,
);
