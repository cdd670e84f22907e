// Verifying the gateway's webhook deliveries with the official Standard Webhooks library.

import { Webhook } from "standardwebhooks";

import { MomoWebhookVerificationError } from "./errors.js";
import type { WebhookBatch, WebhookPayload } from "./types.js";

/** Request headers as they come: a fetch `Headers`, Node's `req.headers`, or a plain record. */
export type WebhookHeaders =
  | Headers
  | Record<string, string | string[] | undefined>
  | Iterable<[string, string]>;

/**
 * Verifies a webhook delivery and returns its parsed body.
 *
 * @param secret  the environment's signing secret (`whsec_…`), as `POST /v1/webhooks/secret/rotate`
 *                or the merchant's creation gave it. During the overlap after a rotation a
 *                delivery carries a signature of the new secret and one of the previous: either
 *                secret verifies it.
 * @param headers the request's headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`;
 *                any case).
 * @param body    the raw body, exactly as received (verify before parsing: parsed and
 *                re-serialized JSON no longer matches the signature).
 * @throws MomoWebhookVerificationError when no signature matches, a header is missing, or the
 *         timestamp is more than 5 minutes away from now (replays).
 */
export function verifyWebhook(
  secret: string,
  headers: WebhookHeaders,
  body: string | Uint8Array | ArrayBuffer,
): WebhookPayload {
  const flat = flatten(headers);
  const payload = typeof body === "string" ? body : new TextDecoder("utf-8", { fatal: false }).decode(body);
  let webhook: Webhook;
  try {
    webhook = new Webhook(secret);
  } catch (e) {
    throw new MomoWebhookVerificationError(`webhook secret unusable: ${message(e)}`, { cause: e });
  }
  let parsed: unknown;
  try {
    parsed = webhook.verify(payload, {
      "webhook-id": flat["webhook-id"] ?? "",
      "webhook-timestamp": flat["webhook-timestamp"] ?? "",
      "webhook-signature": flat["webhook-signature"] ?? "",
    });
  } catch (e) {
    if (e instanceof SyntaxError) {
      throw new MomoWebhookVerificationError(`webhook body is not JSON: ${e.message}`, { cause: e });
    }
    throw new MomoWebhookVerificationError(`webhook not verified: ${message(e)}`, { cause: e });
  }
  if (typeof parsed !== "object" || parsed === null) {
    throw new MomoWebhookVerificationError("webhook body is not a JSON object");
  }
  return parsed as WebhookPayload;
}

/** A payout batch's completion, rather than a transaction's final state. */
export function isPayoutBatchEvent(payload: WebhookPayload): payload is WebhookBatch {
  return (payload as { object?: unknown }).object === "payout_batch";
}

function flatten(headers: WebhookHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  const put = (name: string, value: string | string[] | undefined) => {
    if (value === undefined) return;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(" ") : value;
  };
  if (typeof (headers as Headers).forEach === "function" && typeof (headers as Headers).get === "function") {
    (headers as Headers).forEach((value, name) => put(name, value));
  } else if (Symbol.iterator in Object(headers) && !isPlainRecord(headers)) {
    for (const [name, value] of headers as Iterable<[string, string]>) put(name, value);
  } else {
    for (const [name, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
      put(name, value);
    }
  }
  return out;
}

function isPlainRecord(value: unknown): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
