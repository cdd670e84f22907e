import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";

import {
  MomoApiError,
  MomoClient,
  MomoConflictError,
  MomoInvalidResponseError,
  MomoNetworkError,
  MomoNotFoundError,
  MomoRateLimitedError,
  MomoServerError,
  MomoUnauthorizedError,
} from "../../dist/esm/index.js";
import { authRoute, fakeGateway, ok } from "./fake-gateway.mjs";

const creds = { apiKey: "pk_sandbox_abc", apiSecret: "sk_sandbox_def" };
const balance = ok({ currency: "XOF", amount: "10", available: "10", reserved: "0" });

test("a token is taken with Basic credentials and X-Environment, then reused", async () => {
  const gw = await fakeGateway({ "POST /v1/auth": authRoute(), "GET /v1/balance": () => balance });
  try {
    const client = new MomoClient({ baseUrl: gw.baseUrl + "/", ...creds });
    assert.equal(client.environment, "Sandbox", "a pk_sandbox_ key means the Sandbox");
    await Promise.all([client.v1.balance(), client.v1.balance(), client.v1.balance()]);
    await client.v1.balance();
    const auths = gw.calls.filter((c) => c.path === "/v1/auth");
    assert.equal(auths.length, 1, "one token for concurrent and later calls");
    assert.equal(auths[0].headers.authorization, "Basic " + Buffer.from("pk_sandbox_abc:sk_sandbox_def").toString("base64"));
    assert.equal(auths[0].headers["x-environment"], "Sandbox");
    const reads = gw.calls.filter((c) => c.path === "/v1/balance");
    assert.ok(reads.every((c) => c.headers.authorization === "Bearer t1" && c.headers["x-environment"] === "Sandbox"));
    const token = await client.getToken();
    assert.equal(token.token, "t1");
    assert.ok(Math.abs(token.expiresAt.getTime() - Date.now() - 600_000) < 3000);
  } finally {
    await gw.close();
  }
});

test("a token about to expire is replaced before it is used", async () => {
  const gw = await fakeGateway({ "POST /v1/auth": authRoute(0), "GET /v1/balance": () => balance });
  try {
    const client = new MomoClient({ baseUrl: gw.baseUrl, ...creds, tokenRefreshMarginSeconds: 60 });
    await client.v1.balance();
    await client.v1.balance();
    const used = gw.calls.filter((c) => c.path === "/v1/balance").map((c) => c.headers.authorization);
    assert.deepEqual(used, ["Bearer t1", "Bearer t2"]);
  } finally {
    await gw.close();
  }
});

test("a 401 gets a new token and the request is sent once more, with the same idempotency key", async () => {
  const gw = await fakeGateway({
    "POST /v1/auth": authRoute(),
    "POST /v1/collecte/mobile-money": (call) =>
      call.headers.authorization === "Bearer t1"
        ? { status: 401, json: { statusCode: 401, message: "UnauthorizedError", reason: "token revoked" } }
        : { json: { statusCode: 200, message: "Successful", data: { ref: "ABCDEFGHIJ", status: "SUCCESSFUL" } } },
  });
  try {
    const client = new MomoClient({ baseUrl: gw.baseUrl, ...creds });
    const r = await client.v1.collect(
      { transactionId: "o-1", customer: { firstName: "A", lastName: "B", phone: "0701020301", address: { countryCode: "CI" } }, payer: "0701020301", amount: "1500", operator: "GAMMA_MONEY_CI" },
      { idempotencyKey: "key-1" },
    );
    assert.equal(r.data.ref, "ABCDEFGHIJ");
    const posts = gw.calls.filter((c) => c.path === "/v1/collecte/mobile-money");
    assert.equal(posts.length, 2);
    assert.deepEqual(posts.map((p) => p.headers["idempotency-key"]), ["key-1", "key-1"]);
    assert.equal(posts[0].body, posts[1].body, "the same bytes");
    assert.equal(JSON.parse(posts[0].body).currency, "XOF", "currency defaults to XOF");
    assert.equal(posts[0].headers["content-type"], "application/json");
  } finally {
    await gw.close();
  }
});

test("a second 401 is thrown, after one retry only", async () => {
  const gw = await fakeGateway({
    "POST /v1/auth": authRoute(),
    "GET /v1/balance": () => ({ status: 401, requestId: "rq-401", json: { statusCode: 401, message: "UnauthorizedError", reason: "X-Environment" } }),
  });
  try {
    const client = new MomoClient({ baseUrl: gw.baseUrl, ...creds });
    await assert.rejects(client.v1.balance(), (e) => e instanceof MomoUnauthorizedError && e.status === 401 && e.requestId === "rq-401");
    assert.equal(gw.calls.filter((c) => c.path === "/v1/balance").length, 2);
    assert.equal(gw.calls.filter((c) => c.path === "/v1/auth").length, 2);
  } finally {
    await gw.close();
  }
});

test("credentials refused: the token request's 401 is thrown at once", async () => {
  const gw = await fakeGateway({
    "POST /v1/auth": () => ({ status: 401, json: { statusCode: 401, message: "UnauthorizedError", reason: "bad credentials" } }),
  });
  try {
    const client = new MomoClient({ baseUrl: gw.baseUrl, ...creds });
    await assert.rejects(client.v1.balance(), (e) => e instanceof MomoUnauthorizedError && e.reason === "bad credentials");
    assert.equal(gw.calls.length, 1);
  } finally {
    await gw.close();
  }
});

test("errors carry the status, the envelope of either generation and the request id", async () => {
  const tx = { ref: "AAAAAAAAAA", transaction_id: "o-2", status: "SUCCESSFUL" };
  const gw = await fakeGateway({
    "POST /v1/auth": authRoute(),
    "GET /v1/get-status-payment/nope": () => ({ status: 404, requestId: "rq-404", json: { statusCode: 404, message: "NotFoundError", reason: "no transaction has this id or ref" } }),
    "POST /v2/collecte/mobile-money": () => ({ status: 409, json: { code_status: 409, status: "ERROR", message: "TRANSACTION_DUPLICATED", reason: "used", data: tx } }),
    "GET /v1/balance": () => ({ status: 429, headers: { "retry-after": "7" }, json: { statusCode: 429, message: "TooManyRequestsError", reason: "slow down" } }),
    "GET /v1/customers": () => ({ status: 502, headers: { "content-type": "text/html" }, text: "<html>Bad gateway</html>" }),
    "GET /v1/payment-links": () => ({ status: 200, headers: { "content-type": "text/html" }, text: "<html>login</html>" }),
    "GET /v1/payout-batches": () => ({ status: 200, json: { hello: "world" } }),
  });
  try {
    const client = new MomoClient({ baseUrl: gw.baseUrl, ...creds });
    await assert.rejects(client.v1.status("nope"), (e) => {
      assert.ok(e instanceof MomoNotFoundError && e instanceof MomoApiError);
      assert.equal(e.status, 404);
      assert.equal(e.kind, "not_found");
      assert.equal(e.generation, "v1");
      assert.equal(e.code, "NotFoundError");
      assert.equal(e.requestId, "rq-404");
      assert.equal(e.envelope.reason, "no transaction has this id or ref");
      return true;
    });
    await assert.rejects(
      client.v2.collect({ transaction_id: "o-2", customer_id: "0701020301", amount: 100, operator: "GAMMA_MONEY_CI" }),
      (e) => e instanceof MomoConflictError && e.generation === "v2" && e.code === "TRANSACTION_DUPLICATED" && e.data.ref === "AAAAAAAAAA",
    );
    await assert.rejects(client.v1.balance(), (e) => e instanceof MomoRateLimitedError && e.retryAfter === 7);
    await assert.rejects(client.v1.customers.list(), (e) => e instanceof MomoServerError && e.status === 502 && e.envelope === null && e.bodyText.includes("Bad gateway"));
    await assert.rejects(client.v1.paymentLinks.list(), (e) => e instanceof MomoInvalidResponseError && e.kind === "invalid_response");
    await assert.rejects(client.v1.payoutBatches.list(), (e) => e instanceof MomoInvalidResponseError);
  } finally {
    await gw.close();
  }
});

test("lists expose X-Next-Cursor and iterate follows it", async () => {
  const gw = await fakeGateway({
    "POST /v1/auth": authRoute(),
    "GET /v1/transactions": (call) => {
      const cursor = call.query.get("cursor");
      if (!cursor) return ok([{ ref: "A" }, { ref: "B" }], { headers: { "x-next-cursor": "1.b" } });
      if (cursor === "1.b") return ok([{ ref: "C" }], { headers: { "x-next-cursor": "2.c" } });
      return ok([]);
    },
  });
  try {
    const client = new MomoClient({ baseUrl: gw.baseUrl, ...creds });
    const first = await client.v1.transactions.list({ limit: 2, type: "collecte", from: new Date("2026-01-01T00:00:00Z") });
    assert.equal(first.nextCursor, "1.b");
    const q = gw.calls.find((c) => c.path === "/v1/transactions").query;
    assert.equal(q.get("limit"), "2");
    assert.equal(q.get("type"), "collecte");
    assert.equal(q.get("from"), "2026-01-01T00:00:00.000Z");
    assert.equal(q.has("cursor"), false);
    const all = [];
    for await (const t of client.v1.transactions.iterate({ limit: 2 })) all.push(t.ref);
    assert.deepEqual(all, ["A", "B", "C"]);
  } finally {
    await gw.close();
  }
});

test("no answer at all is a MomoNetworkError", async () => {
  const client = new MomoClient({ baseUrl: "http://127.0.0.1:1", ...creds, timeoutMs: 2000 });
  await assert.rejects(client.v1.balance(), (e) => e instanceof MomoNetworkError);
});

test("the CommonJS build loads with require", () => {
  const require = createRequire(import.meta.url);
  const cjs = require("../../dist/cjs/index.js");
  assert.equal(typeof cjs.MomoClient, "function");
  assert.equal(typeof cjs.verifyWebhook, "function");
  assert.ok(new cjs.MomoNotFoundError({ status: 404, method: "GET", url: "/", headers: new Headers(), bodyText: "", envelope: null }) instanceof cjs.MomoApiError);
});
