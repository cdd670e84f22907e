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

import { createServer } from "node:http";
import { randomUUID } from "node:crypto";

import {
  MomoApiError,
  MomoClient,
  MomoNotFoundError,
  MomoForbiddenError,
  MomoUnprocessableError,
  MomoWebhookVerificationError,
  isPayoutBatchEvent,
  verifyWebhook,
} from "../dist/esm/index.js";

const WEBHOOK_WAIT_MS = 20_000;

// ------------------------------------------------------------------ harness

const started = new Date();
let checks = 0;
let server = null;

function print(line) {
  process.stdout.write(JSON.stringify(line) + "\n");
}

class FlowFailure extends Error {
  constructor(message, details) {
    super(message);
    this.details = details;
  }
}

function expect(condition, message, details) {
  if (!condition) throw new FlowFailure(message, details);
}

function describe(e) {
  if (e instanceof FlowFailure) return { message: e.message, ...(e.details === undefined ? {} : { details: e.details }) };
  if (e instanceof MomoApiError) {
    return {
      message: e.message,
      class: e.name,
      status: e.status,
      kind: e.kind,
      code: e.code,
      reason: e.reason,
      requestId: e.requestId,
    };
  }
  return { message: e instanceof Error ? e.message : String(e), class: e?.name, stack: e?.stack };
}

async function check(name, fn) {
  let details;
  try {
    details = (await fn()) ?? {};
  } catch (e) {
    print({ check: name, ok: false, error: describe(e) });
    await stop();
    process.exit(1);
  }
  checks++;
  print({ check: name, ok: true, ...details });
}

function env(name) {
  const value = process.env[name];
  if (!value) {
    print({ check: "environment", ok: false, error: { message: `${name} is not set` } });
    process.exit(1);
  }
  return value;
}

async function stop() {
  if (!server) return;
  const s = server;
  server = null;
  s.closeAllConnections?.();
  await new Promise((resolve) => s.close(() => resolve()));
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns a truthy value, or fails after `ms`. */
async function eventually(what, probe, ms = 15_000, every = 250) {
  const deadline = Date.now() + ms;
  let last;
  for (;;) {
    last = await probe();
    if (last) return last;
    if (Date.now() > deadline) throw new FlowFailure(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(every);
  }
}

// ------------------------------------------------------------------ webhook receiver

const deliveries = [];
const listeners = new Set();

function startReceiver(port) {
  return new Promise((resolve, reject) => {
    server = createServer((req, res) => {
      const chunks = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => {
        if (req.method !== "POST" || req.url !== "/webhooks") {
          res.writeHead(404).end();
          return;
        }
        const body = Buffer.concat(chunks);
        let json = null;
        try {
          json = JSON.parse(body.toString("utf8"));
        } catch {
          // kept: verification decides
        }
        const delivery = { headers: req.headers, body, json, receivedAt: Date.now() };
        deliveries.push(delivery);
        res.writeHead(204).end();
        for (const listener of listeners) listener();
      });
    });
    server.on("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
}

/** The first delivery (already received or to come) that `match` accepts, within `ms`. */
function waitForDelivery(what, match, ms = WEBHOOK_WAIT_MS) {
  return new Promise((resolve, reject) => {
    const look = () => deliveries.find(match);
    const found = look();
    if (found) return resolve(found);
    const listener = () => {
      const hit = look();
      if (hit) {
        clearTimeout(timer);
        listeners.delete(listener);
        resolve(hit);
      }
    };
    const timer = setTimeout(() => {
      listeners.delete(listener);
      reject(
        new FlowFailure(`no webhook delivery for ${what} within ${ms} ms`, {
          received: deliveries.map((d) => ({ id: d.headers["webhook-id"], transactionId: d.json?.transactionId })),
        }),
      );
    }, ms);
    listeners.add(listener);
  });
}

// ------------------------------------------------------------------ the flow

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
const ints = (s) => Number.parseInt(s, 10);

// Token ----------------------------------------------------------------

await check("token", async () => {
  const token = await client.getToken();
  expect(typeof token.token === "string" && token.token.split(".").length === 3, "a JWT bearer token", token);
  const left = (token.expiresAt.getTime() - Date.now()) / 1000;
  expect(left > 500 && left <= 610, `the token lasts about 600 s (${left.toFixed(0)} s left)`);
  const again = await client.getToken();
  expect(again.token === token.token, "the token is kept and reused while it is fresh");
  return { environment: token.environment, expiresInS: Math.round(left) };
});

// Webhook signing secret, rotated twice: the deliveries after carry the new and the previous
// secret's signatures. The second rotation is sent twice with one key: the same secret comes back.

let previousSecret;
let currentSecret;
let overlapUntil;
await check("webhook_secret_rotate", async () => {
  const first = await client.v1.webhooks.rotateSecret();
  expect(/^whsec_[A-Za-z0-9+/=]+$/.test(first.data.webhookSecret), "a whsec_ secret", first.data);
  expect(first.data.environment === "Sandbox", "rotated in the Sandbox", first.data);
  const key = randomUUID();
  const second = await client.v1.webhooks.rotateSecret({ idempotencyKey: key });
  const replay = await client.v1.webhooks.rotateSecret({ idempotencyKey: key });
  expect(second.data.webhookSecret !== first.data.webhookSecret, "a second rotation gives a new secret");
  expect(!second.replayed && replay.replayed, "the retry with the same key is a replay", {
    second: second.replayed,
    replay: replay.replayed,
  });
  expect(replay.data.webhookSecret === second.data.webhookSecret, "the replay gives the same secret, not a third");
  previousSecret = first.data.webhookSecret;
  currentSecret = second.data.webhookSecret;
  overlapUntil = Date.parse(second.data.previousSecretValidUntil);
  return { previousSecretValidUntil: second.data.previousSecretValidUntil, replayed: replay.replayed };
});

// Collections ------------------------------------------------------------

let collectionV1;
await check("collection_v1", async () => {
  const r = await client.v1.collect({
    transactionId: id("c1"),
    customer: payer,
    payer: "0701020301",
    amount: "1500",
    operator: "GAMMA_MONEY_CI",
  });
  collectionV1 = r.data;
  expect(r.status === 200 && r.data.status === "SUCCESSFUL", "a payer ending 01 pays at once (200 SUCCESSFUL)", r.envelope);
  expect(r.data.fees === "30" && r.data.amountReceive === "1470", "fees 200 bp come out of what is received", r.data);
  expect(typeof r.requestId === "string" && r.requestId.length > 0, "X-Request-Id is given back");
  return { ref: r.data.ref, transactionId: r.data.transactionId, status: r.data.status, requestId: r.requestId };
});

let collectionV2;
await check("collection_v2", async () => {
  const r = await client.v2.collect({
    transaction_id: id("c2"),
    customer_id: "0501020301",
    name_user: "Koffi Yao",
    amount: 2000,
    operator: "ALPHA_MONEY_CI",
    code_otp: "4321",
  });
  collectionV2 = r.data;
  expect(r.status === 200 && r.envelope.status === "SUCCESS", "200 in the v2 envelope", r.envelope);
  expect(["SUCCESSFUL", "SUCCESSFULL"].includes(r.data.status), "SUCCESSFUL(L) at once", r.data);
  expect(r.data.type_payment === "ALPHA_MONEY_CI" && r.data.amount_receive === "1960", "v2 fields", r.data);
  return { ref: r.data.ref, transaction_id: r.data.transaction_id, status: r.data.status, message: r.envelope.message };
});

await check("collection_v2_shape_b", async () => {
  const r = await client.v2.collect({
    transactionId: id("cb"),
    customer: { phone: "0101020301", name: "Aya Traoré", email: null },
    amount: "1000",
    operator: "DELTA_MONEY_CI",
  });
  expect(["SUCCESSFUL", "SUCCESSFULL"].includes(r.data.status), "shape B collects too", r.data);
  return { ref: r.data.ref, status: r.data.status };
});

// Status -----------------------------------------------------------------

await check("status", async () => {
  const v1 = await client.v1.status(collectionV1.transactionId);
  expect(v1.data.ref === collectionV1.ref && v1.data.status === "SUCCESSFUL", "v1 path, by transaction id", v1.data);
  expect(v1.envelope.code_status === 200, "a status lookup succeeds in the v2 envelope, even on /v1", v1.envelope);
  const v2 = await client.v2.status(collectionV2.ref);
  expect(v2.data.transaction_id === collectionV2.transaction_id, "v2 path, by ref", v2.data);
  const byPath = await client.v1.transactions.get(collectionV1.ref);
  expect(byPath.data.transaction_id === collectionV1.transactionId, "GET /v1/transaction/{ref}", byPath.data);
  return { v1: v1.data.status, v2: v2.data.status, v1Message: v1.envelope.message };
});

// Transfers --------------------------------------------------------------

await check("transfer_v1", async () => {
  const r = await client.v1.transfer({
    transactionId: id("t1"),
    customer: { firstName: "Koffi", lastName: "Yao", phone: "0701020401", address: { countryCode: "CI" } },
    recipient: "0701020401",
    amount: "10000",
    operator: "GAMMA_MONEY_CI",
    checkRecipient: true,
  });
  expect(r.status === 200 && r.data.status === "SUCCESSFUL", "a recipient ending 01 is paid at once", r.data);
  expect(r.data.amountTotal === "10100", "fees 100 bp are added to what is paid", r.data);
  return { ref: r.data.ref, status: r.data.status, amountTotal: r.data.amountTotal };
});

await check("transfer_v2", async () => {
  const r = await client.v2.transfer({
    transaction_id: id("t2"),
    customer_id: "0501020501",
    name: "Aya Traoré",
    amount: 5000,
    operator: "ALPHA_MONEY_CI",
  });
  expect(["SUCCESSFUL", "SUCCESSFULL"].includes(r.data.status), "paid at once", r.data);
  expect(r.data.type_transaction === "transfert", "v2 spells it transfert", r.data);
  return { ref: r.data.ref, status: r.data.status };
});

// Refunds ----------------------------------------------------------------

await check("refund_v1", async () => {
  const r = await client.v1.refund({
    transactionId: id("r1"),
    collection: collectionV1.ref,
    amount: "500",
    reason: "one item out of stock",
  });
  expect(r.data.typeTransaction === "refund" && r.data.refundOf === collectionV1.ref, "a refund of the collection", r.data);
  expect(r.data.status === "SUCCESSFUL", "the payer ending 01 is refunded at once", r.data);
  expect(r.data.reason === "one item out of stock", "the reason is kept", r.data);
  const after = await client.v1.status(collectionV1.ref);
  expect(after.data.amount_refunded === "500", "the collection shows what is given back", after.data);
  return { ref: r.data.ref, status: r.data.status, amountRefunded: after.data.amount_refunded };
});

await check("refund_v2", async () => {
  const r = await client.v2.refund({ transaction_id: id("r2"), collection_id: collectionV2.transaction_id });
  expect(r.data.type_transaction === "refund" && r.data.refund_of === collectionV2.ref, "a refund in v2", r.data);
  expect(r.data.amount === collectionV2.amount, "left out, the amount is all that remains", r.data);
  return { ref: r.data.ref, status: r.data.status, amount: r.data.amount };
});

// Idempotency ------------------------------------------------------------

await check("idempotency", async () => {
  const key = randomUUID();
  const body = {
    transactionId: id("ik"),
    customer: payer,
    payer: "0701020301",
    amount: 1200,
    operator: "GAMMA_MONEY_CI",
  };
  const first = await client.v1.collect(body, { idempotencyKey: key });
  const second = await client.v1.collect(body, { idempotencyKey: key });
  expect(!first.replayed, "the first answer is no replay");
  expect(second.replayed, "the same write with the same key is marked Idempotent-Replayed: true", second.headers);
  expect(JSON.stringify(second.envelope) === JSON.stringify(first.envelope), "the replay is the first answer", {
    first: first.envelope,
    second: second.envelope,
  });
  let reused;
  try {
    await client.v1.collect({ ...body, amount: 1300 }, { idempotencyKey: key });
  } catch (e) {
    reused = e;
  }
  expect(reused instanceof MomoUnprocessableError && reused.code === "IdempotencyKeyReusedError", "another body with the key: 422", describe(reused));
  return { ref: first.data.ref, replayed: second.replayed, reuse: reused.code };
});

// Typed errors -----------------------------------------------------------

await check("error_typed", async () => {
  let v1;
  try {
    await client.v1.status(id("nope"));
  } catch (e) {
    v1 = e;
  }
  expect(v1 instanceof MomoNotFoundError && v1 instanceof MomoApiError, "an unknown id throws MomoNotFoundError", describe(v1));
  expect(v1.status === 404 && v1.kind === "not_found" && v1.generation === "v1", "404 in the v1 envelope", describe(v1));
  expect(v1.code === "NotFoundError" && typeof v1.reason === "string", "the envelope's message and reason", v1.envelope);
  expect(typeof v1.requestId === "string" && v1.requestId.length > 0, "the X-Request-Id is carried", describe(v1));

  let v2;
  try {
    await client.v2.status(id("nope"));
  } catch (e) {
    v2 = e;
  }
  expect(v2 instanceof MomoNotFoundError && v2.generation === "v2", "v2: 404 in the v2 envelope", describe(v2));
  expect(v2.code === "TRANSACTION_NOT_FOUND" && v2.envelope.status === "ERROR", "v2 error envelope", v2.envelope);

  let range;
  try {
    await client.v2.collect({ transaction_id: id("low"), customer_id: "0701020301", amount: 50, operator: "GAMMA_MONEY_CI" });
  } catch (e) {
    range = e;
  }
  expect(range instanceof MomoForbiddenError && range.code === "AMOUNT_OUT_OF_RANGE", "an amount under 100: 403", describe(range));
  return { status: v1.status, code: v1.code, requestId: v1.requestId, v2Code: v2.code, forbidden: range.code };
});

// Payment links ----------------------------------------------------------

await check("payment_links_v1", async () => {
  const created = await client.v1.paymentLinks.create(
    { amount: "2500", description: `Order ${run}`, operators: ["GAMMA_MONEY_CI", "ALPHA_MONEY_CI"] },
    { idempotencyKey: randomUUID() },
  );
  const link = created.data;
  expect(/^lnk_[A-Za-z0-9]{22}$/.test(link.id) && link.active && link.amount === "2500", "a fixed, active link", link);
  const got = await client.v1.paymentLinks.get(link.id);
  expect(got.data.id === link.id && got.data.url === link.url, "get", got.data);
  const listed = await client.v1.paymentLinks.list({ limit: 50 });
  expect(listed.data.some((l) => l.id === link.id), "the new link is listed", listed.data.map((l) => l.id));
  const off = await client.v1.paymentLinks.deactivate(link.id);
  expect(off.data.active === false, "deactivated", off.data);
  return { id: link.id, url: link.url, listed: listed.data.length, nextCursor: listed.nextCursor, active: off.data.active };
});

await check("payment_links_v2", async () => {
  const created = await client.v2.paymentLinks.create({
    min_amount: 1000,
    max_amount: 50000,
    description: `Donations ${run}`,
    reusable: true,
    max_payments: 10,
  });
  const link = created.data;
  expect(created.envelope.message === "PAYMENT_LINK_CREATED" && link.reusable && link.max_payments === 10, "v2 link", created.envelope);
  const got = await client.v2.paymentLinks.get(link.id);
  expect(got.data.min_amount === "1000" && got.envelope.message === "PAYMENT_LINK_FOUND", "get", got.envelope);
  const listed = await client.v2.paymentLinks.list({ limit: 1 });
  expect(listed.data.length === 1 && listed.data[0].id === link.id, "newest first", listed.data);
  expect(typeof listed.nextCursor === "string", "a page of 1 of several has X-Next-Cursor", listed.nextCursor);
  const next = await client.v2.paymentLinks.list({ limit: 1, cursor: listed.nextCursor });
  expect(next.data.length === 1 && next.data[0].id !== link.id, "the next page goes on", next.data);
  const off = await client.v2.paymentLinks.deactivate(link.id);
  expect(off.data.active === false && off.envelope.message === "PAYMENT_LINK_DEACTIVATED", "deactivated", off.envelope);
  return { id: link.id, nextCursor: listed.nextCursor };
});

// Payout batches ---------------------------------------------------------

let jsonBatchId;
await check("payout_batch_json", async () => {
  const item = (n, operator, phone) => ({
    transactionId: id(`p${n}`),
    customer: { firstName: "Employee", lastName: `N${n}`, phone, address: { countryCode: "CI" } },
    recipient: phone,
    amount: String(1000 * n),
    operator,
  });
  const r = await client.v1.payoutBatches.create(
    {
      label: `Salaries ${run}`,
      items: [item(1, "GAMMA_MONEY_CI", "0701030101"), item(2, "ALPHA_MONEY_CI", "0701030201"), item(3, "DELTA_MONEY_CI", "0101030301")],
    },
    { idempotencyKey: randomUUID() },
  );
  const { batch, items } = r.data;
  expect(r.status === 202 && batch.submitted === 3 && batch.accepted.count === 3, "3 items accepted", r.data);
  expect(items.every((i) => i.outcome === "accepted" && i.transaction?.payoutBatchId === batch.id), "each item's outcome", items);
  jsonBatchId = batch.id;
  return { id: batch.id, status: batch.status, accepted: batch.accepted };
});

let csvBatchId;
await check("payout_batch_csv", async () => {
  const csv = [
    "transaction_id,operator,phone,amount,last_name,first_name,email,check_recipient",
    `${id("pc1")},GAMMA_MONEY_CI,0701040101,1500,Koné,Awa,awa@example.ci,true`,
    `${id("pc2")},ALPHA_MONEY_CI,0501040201,2500,"Yao, Jr",Koffi,,`,
  ].join("\r\n");
  const r = await client.v1.payoutBatches.createFromCsv(csv, { label: `CSV ${run}` });
  const { batch, items } = r.data;
  expect(batch.submitted === 2 && batch.accepted.count === 2 && batch.accepted.amount === "4000", "both lines accepted", r.data);
  expect(items[1].transaction?.customer.lastName === "Yao, Jr", "quoted CSV fields", items[1]);
  csvBatchId = batch.id;
  return { id: batch.id, accepted: batch.accepted };
});

await check("payout_batch_get", async () => {
  const done = await eventually("the JSON batch to complete", async () => {
    const r = await client.v1.payoutBatches.get(jsonBatchId);
    return r.data.status === "completed" ? r : null;
  });
  expect(done.data.successful.count === 3 && done.data.successful.amount === "6000", "every transfer paid", done.data);
  const csv = await client.v1.payoutBatches.get(csvBatchId);
  expect(csv.data.id === csvBatchId && csv.data.label === `CSV ${run}`, "the CSV batch", csv.data);
  const transfers = await client.v1.transactions.list({ payoutBatchId: jsonBatchId });
  expect(transfers.data.length === 3, "a batch's transfers are listed by payoutBatchId", transfers.data.length);
  return { id: jsonBatchId, status: done.data.status, successful: done.data.successful, csvStatus: csv.data.status };
});

await check("payout_batch_v2", async () => {
  const r = await client.v2.payoutBatches.create({
    label: `v2 ${run}`,
    items: [{ transaction_id: id("pv"), customer_id: "0701050101", name: "Aya Traoré", amount: 1000, operator: "GAMMA_MONEY_CI" }],
  });
  expect(r.envelope.message === "PAYOUT_BATCH_ACCEPTED" && r.data.batch.accepted.count === 1, "v2 batch", r.envelope);
  const got = await client.v2.payoutBatches.get(r.data.batch.id);
  expect(got.data.all_or_nothing === false && got.envelope.message === "PAYOUT_BATCH_FOUND", "v2 get", got.envelope);
  const csv = await client.v2.payoutBatches.createFromCsv(
    `transaction_id,operator,phone,amount,last_name,first_name\n${id("pw")},GAMMA_MONEY_CI,0701050201,1000,Traoré,Aya\n`,
  );
  expect(csv.data.batch.accepted.count === 1, "v2 batch from CSV", csv.data);
  return { id: r.data.batch.id, csvId: csv.data.batch.id };
});

// Recipient check --------------------------------------------------------

await check("recipient_check", async () => {
  const active = await client.v1.recipients.check("GAMMA_MONEY_CI", "0701020301");
  expect(active.data.status === "active" && active.data.name === "K. Ya***", "active, name masked", active.data);
  const named = await client.v1.recipients.check("GAMMA_MONEY_CI", "0701020301", { name: "Yao Koffi" });
  expect(named.data.nameMatch === true && named.data.name === null, "a name to confirm matches, no name back", named.data);
  const inactive = await client.v1.recipients.check("ALPHA_MONEY_CI", "0701020309");
  expect(inactive.data.status === "inactive", "…09 holds no account", inactive.data);
  const v2 = await client.v2.recipients.check("GAMMA_MONEY_CI", "0701020302", { name_user: "Someone Else" });
  expect(v2.envelope.message === "ACCOUNT_HOLDER_FOUND" && v2.data.name_match === false, "v2 check", v2.envelope);
  const lookups = await client.v1.recipients.lookups({ limit: 4 });
  expect(lookups.data.length === 4 && lookups.data[0].nameMatch === false, "each check is recorded, newest first", lookups.data);
  const lookupsV2 = await client.v2.recipients.lookups({ limit: 1 });
  expect(lookupsV2.data.length === 1 && "phone_hash" in lookupsV2.data[0], "v2 lookups", lookupsV2.data);
  return { status: active.data.status, name: active.data.name, inactive: inactive.data.status };
});

// Customers --------------------------------------------------------------

await check("customers", async () => {
  const created = await client.v1.customers.create(
    {
      firstName: "Mariam",
      lastName: "Diallo",
      email: `mariam.${run}@example.ci`,
      phoneNumber: "0701060101",
      address: { countryCode: "CI", city: "Abidjan", streetAddress: null },
    },
    { idempotencyKey: randomUUID() },
  );
  const customer = created.data;
  expect(typeof customer.id === "string" && customer.address.city === "Abidjan", "created", customer);
  const got = await client.v1.customers.get(customer.id);
  expect(got.data.email === customer.email, "get", got.data);
  const listed = await client.v1.customers.list({ limit: 100 });
  expect(listed.data.some((c) => c.id === customer.id), "listed", listed.data.length);
  return { id: customer.id, listed: listed.data.length, nextCursor: listed.nextCursor };
});

// Transactions, balance, statement, settlement ---------------------------

await check("transactions_list", async () => {
  const page1 = await client.v1.transactions.list({ type: "collecte", limit: 2 });
  expect(page1.data.length === 2 && page1.data.every((t) => t.typeTransaction === "collecte"), "filtered", page1.data);
  expect(typeof page1.nextCursor === "string", "X-Next-Cursor when more follow", page1.nextCursor);
  const page2 = await client.v1.transactions.list({ type: "collecte", limit: 2, cursor: page1.nextCursor });
  const seen = new Set(page1.data.map((t) => t.ref));
  expect(page2.data.length > 0 && page2.data.every((t) => !seen.has(t.ref)), "the next page goes on", page2.data);
  const refunds = await client.v1.transactions.list({ refundOf: collectionV1.ref });
  expect(refunds.data.length === 1 && refunds.data[0].reason === "one item out of stock", "refunds of a collection", refunds.data);
  let n = 0;
  for await (const t of client.v1.transactions.iterate({ type: "refund", limit: 1 })) {
    expect(t.typeTransaction === "refund", "iterate follows the cursors", t);
    if (++n >= 2) break;
  }
  expect(n === 2, "iterated over two pages", n);
  return { page1: page1.data.map((t) => t.transactionId), nextCursor: page1.nextCursor };
});

let balance;
await check("balance", async () => {
  const r = await client.v1.balance();
  balance = r.data;
  expect(r.data.currency === "XOF" && /^[0-9]+$/.test(r.data.available) && /^[0-9]+$/.test(r.data.reserved), "balance", r.data);
  return { available: r.data.available, reserved: r.data.reserved };
});

await check("statement", async () => {
  const lines = [];
  let cursor = null;
  let pages = 0;
  // Lines younger than the 60 s settle lag are read again on the next page: dedupe by id.
  const byId = new Map();
  do {
    const p = await client.v1.reports.statement({ from: new Date(started.getTime() - 60_000), limit: 1000, cursor });
    pages++;
    for (const l of p.data) byId.set(l.id, l);
    if (p.nextCursor === cursor) break;
    cursor = p.nextCursor;
  } while (cursor && pages < 50);
  lines.push(...byId.values());
  expect(lines.length > 0, "statement lines", lines.length);
  const mine = lines.filter((l) => l.ref === collectionV1.ref);
  expect(mine.length === 1 && mine[0].movement === "collection" && mine[0].amount === "1470", "the collection's credit", mine);
  const movements = new Set(lines.map((l) => l.movement));
  for (const m of ["collection", "transfer_reservation", "transfer_payout", "refund_reservation", "refund_payout"]) {
    expect(movements.has(m), `a ${m} line`, [...movements]);
  }
  const csv = await client.v1.reports.statementCsv({ limit: 5 });
  expect(csv.text.startsWith("createdAt,id,entryId,account,movement,amount,"), "the CSV statement", csv.text.slice(0, 120));
  return { lines: lines.length, pages, movements: [...movements].sort() };
});

await check("settlement_report", async () => {
  const day = collectionV1.createdAt.slice(0, 10);
  const r = await client.v1.reports.settlement(day);
  expect(r.data.date === day && r.data.environment === "Sandbox" && r.data.currency === "XOF", "the day's report", r.data);
  const row = r.data.rows.find((x) => x.operator === "GAMMA_MONEY_CI" && x.typeTransaction === "collecte" && x.status === "SUCCESSFUL");
  expect(row && row.count >= 2, "a row for GAMMA's successful collections", r.data.rows);
  expect(ints(r.data.totals.collected) > 0 && ints(r.data.totals.refunded) >= 500, "totals", r.data.totals);
  const csv = await client.v1.reports.settlementCsv(day);
  expect(csv.text.startsWith("date,operator,typeTransaction,status,count,amount,fees,net,complete"), "CSV", csv.text.slice(0, 80));
  return { date: day, rows: r.data.rows.length, totals: r.data.totals, complete: r.data.complete, today };
});

// Webhooks ---------------------------------------------------------------

let delivery;
await check("webhook_received", async () => {
  delivery = await waitForDelivery(`collection ${collectionV1.transactionId}`, (d) => d.json?.transactionId === collectionV1.transactionId);
  const event = verifyWebhook(currentSecret, delivery.headers, delivery.body);
  expect(!isPayoutBatchEvent(event) && event.ref === collectionV1.ref && event.status === "SUCCESSFUL", "the collection's event", event);
  const signatures = String(delivery.headers["webhook-signature"]).split(" ");
  if (overlapUntil > Date.now()) {
    // During the overlap (MOMO_WEBHOOK_SECRET_OVERLAP_S, a day by default) both secrets sign.
    expect(signatures.length === 2, "after a rotation a delivery carries two signatures", signatures);
    const old = verifyWebhook(previousSecret, delivery.headers, delivery.body);
    expect(old.ref === collectionV1.ref, "the previous secret verifies it too during the overlap");
  } else {
    // A gateway with MOMO_WEBHOOK_SECRET_OVERLAP_S=0: the new secret only.
    expect(signatures.length === 1, "without an overlap, one signature", signatures);
  }
  let forged;
  try {
    verifyWebhook(currentSecret, delivery.headers, Buffer.from(delivery.body.toString("utf8").replace('"1500"', '"9999"')));
  } catch (e) {
    forged = e;
  }
  expect(forged instanceof MomoWebhookVerificationError, "a tampered body does not verify", describe(forged));
  let wrong;
  try {
    verifyWebhook("whsec_" + Buffer.from("not the secret at all, no").toString("base64"), delivery.headers, delivery.body);
  } catch (e) {
    wrong = e;
  }
  expect(wrong instanceof MomoWebhookVerificationError, "another secret does not verify", describe(wrong));
  return { webhookId: delivery.headers["webhook-id"], signatures: signatures.length, ref: event.ref, status: event.status };
});

let eventId;
await check("webhook_events", async () => {
  const listed = await eventually("the event to be marked delivered", async () => {
    const p = await client.v1.webhooks.listEvents({ transactionId: collectionV1.transactionId });
    return p.data.length > 0 && p.data[0].status === "delivered" ? p : null;
  });
  expect(listed.data.length === 1, "one event for the collection", listed.data);
  const event = listed.data[0];
  expect(event.id === delivery.headers["webhook-id"], "the event id is the webhook-id", { event: event.id });
  eventId = event.id;
  const one = await client.v1.webhooks.getEvent(event.id);
  const attempts = one.data.deliveryAttempts ?? [];
  expect(attempts.length >= 1 && attempts[attempts.length - 1].statusCode === 204, "its attempts, with our 204", attempts);
  const delivered = await client.v1.webhooks.listEvents({ status: "delivered", limit: 1 });
  expect(delivered.data.length === 1 && delivered.data[0].status === "delivered", "filtered by status", delivered.data);
  return { id: event.id, status: event.status, attempts: attempts.length };
});

await check("webhook_redeliver", async () => {
  const before = deliveries.filter((d) => d.headers["webhook-id"] === eventId).length;
  const r = await client.v1.webhooks.redeliver(eventId, { idempotencyKey: randomUUID() });
  expect(r.status === 202 && r.data.id === eventId, "scheduled (202)", r.envelope);
  const again = await waitForDelivery(
    `the redelivery of ${eventId}`,
    (d) => d.headers["webhook-id"] === eventId && deliveries.filter((x) => x.headers["webhook-id"] === eventId).indexOf(d) >= before,
  );
  const event = verifyWebhook(currentSecret, again.headers, again.body);
  expect(event.ref === collectionV1.ref, "the same event, verified", event);
  expect(again.body.equals(delivery.body), "every attempt sends the same bytes");
  const range = await client.v1.webhooks.redeliverRange({ from: new Date(started.getTime() - 60_000), to: new Date(Date.now() + 1000) });
  expect(range.status === 202 && Number.isInteger(range.data.redelivered), "a range of failed events", range.envelope);
  return { id: eventId, redeliveredRange: range.data.redelivered };
});

await stop();
print({ done: true, checks });
