//! The reliability suite: the gateway binary as a process against a real database, killed with
//! SIGKILL under load, cut off from its database and from its webhook receiver, and raced. Each
//! scenario is bounded in time and prints one line of figures (`cargo test --test reliability
//! -- --nocapture` shows them); docs/reliability.md has the commands, the full counts and the
//! latest figures.

mod audit;
mod harness;
mod load;
mod operator;
mod outage;
mod pg_proxy;

mod concurrency;
mod database_loss;
mod disk_full;
mod kill_loop;
mod webhooks_down;
mod webhooks_killed;
