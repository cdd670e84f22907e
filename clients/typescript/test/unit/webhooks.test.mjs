import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";

import { MomoWebhookVerificationError, isPayoutBatchEvent, verifyWebhook } from "../../dist/esm/index.js";

const { Webhook } = createRequire(import.meta.url)("standardwebhooks");

const oldSecret = "whsec_" + Buffer.from("the previous secret, 32 bytes!!!").toString("base64");
const newSecret = "whsec_" + Buffer.from("the new secret after a rotation!").toString("base64");
const body = JSON.stringify({ ref: "SOI76BEDGZ", transactionId: "order-1001", status: "SUCCESSFUL", amount: "1500" });

function signed(secrets, at = new Date(), payload = body) {
  const id = "msg_5f0c";
  const signature = secrets.map((s) => new Webhook(s).sign(id, at, payload)).join(" ");
  return { "webhook-id": id, "webhook-timestamp": String(Math.floor(at.getTime() / 1000)), "webhook-signature": signature };
}

test("a delivery signed with both secrets verifies with either", () => {
  const headers = signed([newSecret, oldSecret]);
  assert.equal(verifyWebhook(newSecret, headers, body).ref, "SOI76BEDGZ");
  assert.equal(verifyWebhook(oldSecret, headers, Buffer.from(body)).ref, "SOI76BEDGZ");
  assert.equal(verifyWebhook(newSecret, new Headers(headers), new TextEncoder().encode(body)).transactionId, "order-1001");
  const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
  assert.equal(verifyWebhook(newSecret, upper, body).status, "SUCCESSFUL");
});

test("a wrong secret, a changed body, an old timestamp or a missing header throw", () => {
  const headers = signed([newSecret]);
  const other = "whsec_" + Buffer.from("some other secret entirely......").toString("base64");
  assert.throws(() => verifyWebhook(other, headers, body), MomoWebhookVerificationError);
  assert.throws(() => verifyWebhook(newSecret, headers, body.replace("1500", "9999")), MomoWebhookVerificationError);
  assert.throws(() => verifyWebhook(newSecret, signed([newSecret], new Date(Date.now() - 10 * 60_000)), body), MomoWebhookVerificationError);
  const { ["webhook-signature"]: _, ...unsigned } = headers;
  assert.throws(() => verifyWebhook(newSecret, unsigned, body), MomoWebhookVerificationError);
  assert.throws(() => verifyWebhook("", headers, body), MomoWebhookVerificationError);
});

test("a payout batch's completion is told from a transaction's event", () => {
  const batch = JSON.stringify({ object: "payout_batch", payoutBatchId: "pbt_x", status: "completed" });
  const event = verifyWebhook(newSecret, signed([newSecret], new Date(), batch), batch);
  assert.ok(isPayoutBatchEvent(event));
  assert.ok(!isPayoutBatchEvent(verifyWebhook(newSecret, signed([newSecret]), body)));
});
