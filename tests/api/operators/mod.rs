//! The connectors against the operator emulator over HTTP, with its faults.

pub mod aliases;
pub mod callback_abuse;
pub mod crash;
pub mod errors;
pub mod fallback;
pub mod faults;
pub mod faults_answers;
pub mod faults_callbacks;
pub mod faults_initiation;
pub mod faults_paydunya;
pub mod live_sdk;
pub mod momo;
pub mod paydunya;
pub mod production;
pub mod races;
pub mod routing;
pub mod wave;
