import type { V1ErrorEnvelope, V2ErrorEnvelope } from "./types.js";

/** What kind of failure a {@link MomoApiError} is, from its HTTP status. */
export type MomoErrorKind =
  | "bad_request" // 400: a field is missing or wrong; `reason` names it
  | "unauthorized" // 401: credentials refused, token expired or revoked, X-Environment mismatch
  | "forbidden" // 403: amount out of range, recipient check off, card payments
  | "not_found" // 404: nothing has this id for the caller
  | "conflict" // 409: transaction id used (the existing transaction in `data`), refund impossible, key in flight
  | "precondition_failed" // 412: the balance does not cover it
  | "payload_too_large" // 413
  | "unsupported_media_type" // 415
  | "unprocessable" // 422: idempotency key reused, invalid link, inactive recipient, all-or-nothing batch refused
  | "rate_limited" // 429: see `retryAfter`
  | "client_error" // any other 4xx
  | "server_error" // 500 and other 5xx
  | "unavailable" // 503: the database or the operator is unavailable
  | "payment_failed" // 504: the operator refused at once; the FAILED transaction is in `data`
  | "invalid_response"; // a 2xx answer that is not the JSON envelope

/** Which envelope an error came in: v1 (`statusCode`, `message`, `reason`) or v2 (`code_status`, `status`, …). */
export type Generation = "v1" | "v2";

/** Base class of every error this library throws. */
export class MomoError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The request never got an HTTP answer (connection refused, DNS, timeout, aborted). */
export class MomoNetworkError extends MomoError {
  readonly method: string;
  readonly url: string;
  constructor(method: string, url: string, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`${method} ${url}: no answer (${why})`, { cause });
    this.method = method;
    this.url = url;
  }
}

/** A webhook delivery that does not verify (bad or missing signature, old timestamp, bad secret). */
export class MomoWebhookVerificationError extends MomoError {}

export interface MomoApiErrorInit {
  status: number;
  method: string;
  url: string;
  headers: Headers;
  bodyText: string;
  envelope: V1ErrorEnvelope | V2ErrorEnvelope | null;
}

/**
 * The gateway answered with an error status (or with something that is not its JSON envelope).
 *
 * `envelope` is the parsed body when it is one of the two documented error envelopes:
 * v1 `{statusCode, message, reason, data?}` or v2 `{code_status, status: "ERROR", message, reason, data?}`;
 * `code` and `reason` read from either. `data` carries what some errors attach (the existing
 * transaction of a 409, the FAILED transaction of a 504, each item's outcome of a refused batch).
 */
export class MomoApiError extends MomoError {
  readonly status: number;
  readonly kind: MomoErrorKind;
  /** `v1` or `v2`: the envelope the error came in; null when the body was no envelope. */
  readonly generation: Generation | null;
  readonly envelope: V1ErrorEnvelope | V2ErrorEnvelope | null;
  /** The envelope's `message`: `NotFoundError` (v1), `TRANSACTION_NOT_FOUND` (v2), … */
  readonly code: string | null;
  /** The envelope's human-readable `reason`. */
  readonly reason: string | null;
  /** The envelope's `data`, when the error carries one. */
  readonly data: unknown;
  /** The `X-Request-Id` of the answer: quote it to the gateway's operator. */
  readonly requestId: string | null;
  /** `Retry-After`, in seconds, when the answer has one (every 429 does). */
  readonly retryAfter: number | null;
  /** `Idempotent-Replayed: true`: this error is the kept first answer to the Idempotency-Key. */
  readonly replayed: boolean;
  readonly method: string;
  readonly url: string;
  readonly headers: Headers;
  /** The raw body, as text. */
  readonly bodyText: string;

  constructor(init: MomoApiErrorInit, kind?: MomoErrorKind) {
    const envelope = init.envelope;
    const code = envelope ? String(envelope.message) : null;
    const reason = envelope && typeof envelope.reason === "string" ? envelope.reason : null;
    const requestId = init.headers.get("x-request-id");
    const detail = envelope
      ? `${code}${reason ? `: ${reason}` : ""}`
      : `not the gateway's JSON envelope: ${snippet(init.bodyText)}`;
    super(`${init.method} ${init.url} answered ${init.status} ${detail}${requestId ? ` (request id ${requestId})` : ""}`);
    this.status = init.status;
    this.kind = kind ?? kindOf(init.status);
    this.generation = envelope ? ("code_status" in envelope ? "v2" : "v1") : null;
    this.envelope = envelope;
    this.code = code;
    this.reason = reason;
    this.data = envelope && "data" in envelope ? envelope.data : undefined;
    this.requestId = requestId;
    this.retryAfter = retryAfterSeconds(init.headers.get("retry-after"));
    this.replayed = init.headers.get("idempotent-replayed") === "true";
    this.method = init.method;
    this.url = init.url;
    this.headers = init.headers;
    this.bodyText = init.bodyText;
  }
}

export class MomoBadRequestError extends MomoApiError {}
export class MomoUnauthorizedError extends MomoApiError {}
export class MomoForbiddenError extends MomoApiError {}
export class MomoNotFoundError extends MomoApiError {}
export class MomoConflictError extends MomoApiError {}
export class MomoPreconditionFailedError extends MomoApiError {}
export class MomoUnprocessableError extends MomoApiError {}
export class MomoRateLimitedError extends MomoApiError {}
export class MomoServerError extends MomoApiError {}
export class MomoUnavailableError extends MomoServerError {}
/** 504: the operator refused the payment at once; `data` is the transaction, now FAILED, its id spent. */
export class MomoPaymentFailedError extends MomoServerError {}
/** A 2xx answer that is not JSON, or not the gateway's envelope. */
export class MomoInvalidResponseError extends MomoApiError {}

/** The error for an answer, by its status. */
export function apiError(init: MomoApiErrorInit): MomoApiError {
  switch (init.status) {
    case 400:
      return new MomoBadRequestError(init);
    case 401:
      return new MomoUnauthorizedError(init);
    case 403:
      return new MomoForbiddenError(init);
    case 404:
      return new MomoNotFoundError(init);
    case 409:
      return new MomoConflictError(init);
    case 412:
      return new MomoPreconditionFailedError(init);
    case 422:
      return new MomoUnprocessableError(init);
    case 429:
      return new MomoRateLimitedError(init);
    case 503:
      return new MomoUnavailableError(init);
    case 504:
      return new MomoPaymentFailedError(init);
  }
  if (init.status >= 500) return new MomoServerError(init);
  if (init.status >= 200 && init.status < 300) return new MomoInvalidResponseError(init, "invalid_response");
  return new MomoApiError(init);
}

function kindOf(status: number): MomoErrorKind {
  switch (status) {
    case 400:
      return "bad_request";
    case 401:
      return "unauthorized";
    case 403:
      return "forbidden";
    case 404:
      return "not_found";
    case 409:
      return "conflict";
    case 412:
      return "precondition_failed";
    case 413:
      return "payload_too_large";
    case 415:
      return "unsupported_media_type";
    case 422:
      return "unprocessable";
    case 429:
      return "rate_limited";
    case 503:
      return "unavailable";
    case 504:
      return "payment_failed";
  }
  if (status >= 500) return "server_error";
  if (status >= 400) return "client_error";
  return "invalid_response";
}

/** `Retry-After` as seconds: a number of seconds or an HTTP date. */
function retryAfterSeconds(value: string | null): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^[0-9]+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat === "") return "(empty body)";
  return JSON.stringify(flat.length > 200 ? `${flat.slice(0, 200)}…` : flat);
}
