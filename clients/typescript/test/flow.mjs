// A whole merchant flow against a running gateway, through the library's methods only.
//
//   MOMO_BASE_URL      the gateway, e.g. http://127.0.0.1:8080
//   MOMO_API_KEY       a Sandbox API key
//   MOMO_API_SECRET    its secret
//   MOMO_WEBHOOK_PORT  the port of 127.0.0.1 where the merchant's Sandbox webhook URL points
//                      (http://127.0.0.1:$MOMO_WEBHOOK_PORT/webhooks), set before this starts
//
// Prints one JSON line per check ({"check": …, "ok": true, …}), stops at the first failure with
// {"check": …, "ok": false, "error": …} and exit code 1, and ends with {"done": true, "checks": N}.
// Build the package first (scripts/typescript-client.sh, or npm run build).
//
// The checks live in flow/, by area: flow/harness.mjs (the check runner and shared helpers),
// flow/payments.mjs, flow/links-batches.mjs, flow/customers-reports.mjs and flow/webhooks.mjs
// (the webhook receiver too). This file runs them in order.

import { MomoClient } from "../dist/esm/index.js";

import { customersAndReports } from "./flow/customers-reports.mjs";
import { env, passed, print, stop } from "./flow/harness.mjs";
import { linksAndBatches } from "./flow/links-batches.mjs";
import { payments, token } from "./flow/payments.mjs";
import { rotateSecret, startReceiver, webhooks } from "./flow/webhooks.mjs";

const started = new Date();

const baseUrl = env("MOMO_BASE_URL");
const apiKey = env("MOMO_API_KEY");
const apiSecret = env("MOMO_API_SECRET");
const webhookPort = Number(env("MOMO_WEBHOOK_PORT"));

await startReceiver(webhookPort);

const client = new MomoClient({ baseUrl, apiKey, apiSecret, environment: "Sandbox" });

// Transaction ids are unique per merchant environment, and v2's are at most 20 characters.
const run = (Date.now().toString(36) + Math.random().toString(36).slice(2, 5)).slice(-10);
const id = (prefix) => `${prefix}-${run}`;

const payer = { firstName: "Awa", lastName: "Koné", phone: "0701020301", address: { countryCode: "CI" } };
const today = new Date().toISOString().slice(0, 10);

// What every area reads; each area adds what the later ones need (the collections, the secrets).
const flow = { client, run, id, payer, today, started };

await token(flow);
await rotateSecret(flow);
await payments(flow);
await linksAndBatches(flow);
await customersAndReports(flow);
await webhooks(flow);

await stop();
print({ done: true, checks: passed() });
