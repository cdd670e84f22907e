//! momo-gateway: a mobile-money payment gateway for Côte d'Ivoire.

pub mod api;
pub mod app;
pub mod cli;
pub mod config;
pub mod domain;
pub mod http;
pub mod i18n;
pub mod net;
pub mod operator;
pub mod reconcile;
pub mod service;
pub mod store;
pub mod telemetry;
pub mod web;
pub mod webhook;
