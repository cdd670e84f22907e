//! Mobile-money operators (ALPHA, BETA, GAMMA, DELTA), each reached through a connector behind
//! one interface, with a built-in simulator for the Sandbox. Filled in by the payments work
//! (issue 3); nothing here is used yet.
