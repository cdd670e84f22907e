// Webhooks: the receiver the gateway delivers to, the signing secret's rotation, and the checks on
// what arrived (verification, the events' log, redelivery).

import { createServer } from "node:http";
import { randomUUID } from "node:crypto";

import { MomoWebhookVerificationError, isPayoutBatchEvent, verifyWebhook } from "../../dist/esm/index.js";

import { FlowFailure, check, describe, eventually, expect, holdServer } from "./harness.mjs";

const WEBHOOK_WAIT_MS = 20_000;

// ------------------------------------------------------------------ webhook receiver

const deliveries = [];
const listeners = new Set();

export function startReceiver(port) {
  return new Promise((resolve, reject) => {
    const server = createServer((req, res) => {
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
    holdServer(server);
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

// ------------------------------------------------------------------ the secret

// Webhook signing secret, rotated twice: the deliveries after carry the new and the previous
// secret's signatures. The second rotation is sent twice with one key: the same secret comes back.
// Sets flow.previousSecret, flow.currentSecret and flow.overlapUntil.
export async function rotateSecret(flow) {
  const { client } = flow;

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
    flow.previousSecret = first.data.webhookSecret;
    flow.currentSecret = second.data.webhookSecret;
    flow.overlapUntil = Date.parse(second.data.previousSecretValidUntil);
    return { previousSecretValidUntil: second.data.previousSecretValidUntil, replayed: replay.replayed };
  });
}

// ------------------------------------------------------------------ what was delivered

export async function webhooks(flow) {
  const { client, collectionV1, currentSecret, previousSecret, overlapUntil, started } = flow;

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
}
