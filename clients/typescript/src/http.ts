// The transport: tokens, requests, and turning answers into values or errors.

import { apiError, MomoApiError, MomoError, MomoNetworkError } from "./errors.js";
import type { Environment, V1ErrorEnvelope, V2ErrorEnvelope } from "./types.js";

export interface MomoClientOptions {
  /** The gateway's address, e.g. `https://pay.example.ci` or `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** The environment's API key (`pk_sandbox_…`, `pk_live_…`). */
  apiKey: string;
  /** The environment's API secret. */
  apiSecret: string;
  /**
   * The environment the key is for, sent as `X-Environment`. Left out: `Sandbox` for a
   * `pk_sandbox_` key, else `Production`.
   */
  environment?: Environment;
  /** A `fetch` to use instead of the platform's (tests, proxies, instrumentation). */
  fetch?: typeof fetch;
  /** The longest one request may take, in milliseconds (default 30 000). 0: no limit. */
  timeoutMs?: number;
  /**
   * How long before its expiry a token is replaced, in seconds (default 60). A token lasts
   * 600 s; a request that still meets a 401 gets a new token and is sent once more.
   */
  tokenRefreshMarginSeconds?: number;
  /** Sent as `User-Agent` where the platform allows it. */
  userAgent?: string;
}

/** A bearer token and when the client will stop using it. */
export interface Token {
  token: string;
  /** The token's `exp`, as the gateway sent it (Unix seconds, the gateway's clock). */
  exp: number;
  /** When it expires by this machine's clock (the gateway's `Date` corrects for skew). */
  expiresAt: Date;
  environment: Environment;
}

/** A successful answer: the envelope's `data`, the envelope, and what the headers say. */
export interface MomoResponse<T, E = unknown> {
  /** The envelope's `data`. */
  data: T;
  /** The whole JSON body (v1 `{statusCode, message, data}` or v2 `{code_status, status, message, data}`). */
  envelope: E;
  /** The HTTP status: 200, or 202 for a payment still PENDING, a batch, a redelivery. */
  status: number;
  /** `X-Request-Id`. */
  requestId: string | null;
  /** `Idempotent-Replayed: true`: the kept first answer to this Idempotency-Key; nothing ran. */
  replayed: boolean;
  headers: Headers;
}

/** One page of a list, newest first (the statement: oldest first). */
export interface MomoPage<T, E = unknown> extends MomoResponse<T[], E> {
  /** `X-Next-Cursor`: pass it as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

/** A CSV document (`format=csv` of the reports). */
export interface MomoText {
  text: string;
  status: number;
  requestId: string | null;
  nextCursor: string | null;
  headers: Headers;
}

export type QueryValue = string | number | boolean | Date | null | undefined;

export interface RequestSpec {
  method: "GET" | "POST";
  path: string;
  query?: Record<string, QueryValue>;
  json?: unknown;
  idempotencyKey?: string;
  signal?: AbortSignal;
  requestId?: string;
  /** What a success must be: the JSON envelope (default) or any text. */
  expect?: "json" | "text";
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed envelope (expect "json" only). */
  body: any;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MARGIN_S = 60;

export class Transport {
  readonly baseUrl: string;
  readonly environment: Environment;
  private readonly apiKey: string;
  private readonly apiSecret: string;
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;
  private readonly marginS: number;
  private readonly userAgent: string | undefined;
  private current: TokenWithStart | null = null;
  private pending: Promise<Token> | null = null;

  constructor(options: MomoClientOptions) {
    if (!options || typeof options.baseUrl !== "string" || options.baseUrl === "") {
      throw new MomoError("MomoClient: baseUrl is required");
    }
    if (!options.apiKey || !options.apiSecret) {
      throw new MomoError("MomoClient: apiKey and apiSecret are required");
    }
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.apiKey = options.apiKey;
    this.apiSecret = options.apiSecret;
    this.environment = options.environment ?? (options.apiKey.startsWith("pk_sandbox_") ? "Sandbox" : "Production");
    const f = options.fetch ?? globalThis.fetch;
    if (typeof f !== "function") throw new MomoError("MomoClient: no fetch available; pass options.fetch");
    this.fetchImpl = f;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.marginS = options.tokenRefreshMarginSeconds ?? DEFAULT_MARGIN_S;
    this.userAgent = options.userAgent;
  }

  /** A token that is good for a while yet: the one held, or a new one. */
  async token(options: { force?: boolean; signal?: AbortSignal } = {}): Promise<Token> {
    if (!options.force && this.current && !this.stale(this.current)) return publicToken(this.current);
    if (!this.pending) {
      this.pending = this.fetchToken(options.signal).finally(() => {
        this.pending = null;
      });
    }
    return this.pending;
  }

  /** Forget the token held: the next request takes a new one. */
  invalidate(token?: string): void {
    if (token === undefined || this.current?.token === token) this.current = null;
  }

  private stale(t: TokenWithStart): boolean {
    const lifetimeMs = t.expiresAt.getTime() - t.receivedAt;
    const margin = Math.min(this.marginS * 1000, lifetimeMs / 2);
    return Date.now() >= t.expiresAt.getTime() - margin;
  }

  private async fetchToken(signal?: AbortSignal): Promise<Token> {
    const basic = base64(`${this.apiKey}:${this.apiSecret}`);
    const answer = await this.exchange(
      { method: "POST", path: "/v1/auth", signal },
      { Authorization: `Basic ${basic}` },
    );
    const body = answer.body as { token?: unknown; exp?: unknown; data?: { token?: unknown; exp?: unknown } };
    const token = body.data?.token ?? body.token;
    const exp = body.data?.exp ?? body.exp;
    if (typeof token !== "string" || typeof exp !== "number") {
      throw apiError({
        status: 200,
        method: "POST",
        url: this.url("/v1/auth"),
        headers: answer.headers,
        bodyText: answer.text,
        envelope: null,
      });
    }
    const receivedAt = Date.now();
    const serverNow = Date.parse(answer.headers.get("date") ?? "");
    const lifetimeS = Number.isNaN(serverNow) ? exp - receivedAt / 1000 : exp - serverNow / 1000;
    const t: TokenWithStart = {
      token,
      exp,
      expiresAt: new Date(receivedAt + Math.max(0, lifetimeS) * 1000),
      environment: this.environment,
      receivedAt,
    };
    this.current = t;
    return publicToken(t);
  }

  /** Sends an authenticated request; on a 401, once, with a new token. */
  async send(spec: RequestSpec): Promise<Answer> {
    let token = await this.token({ signal: spec.signal });
    try {
      return await this.exchange(spec, { Authorization: `Bearer ${token.token}` });
    } catch (e) {
      if (!(e instanceof MomoApiError) || e.status !== 401) throw e;
      this.invalidate(token.token);
      token = await this.token({ signal: spec.signal });
      return this.exchange(spec, { Authorization: `Bearer ${token.token}` });
    }
  }

  url(path: string, query?: Record<string, QueryValue>): string {
    let url = this.baseUrl + path;
    if (query) {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(query)) {
        if (value === undefined || value === null) continue;
        params.append(name, value instanceof Date ? value.toISOString() : String(value));
      }
      const qs = params.toString();
      if (qs) url += `?${qs}`;
    }
    return url;
  }

  /** One HTTP exchange: the answer when it is a success of the expected kind, else the error. */
  private async exchange(spec: RequestSpec, auth: Record<string, string>): Promise<Answer> {
    const url = this.url(spec.path, spec.query);
    const headers: Record<string, string> = {
      Accept: spec.expect === "text" ? "text/csv, application/json" : "application/json",
      "X-Environment": this.environment,
      ...auth,
    };
    if (this.userAgent) headers["User-Agent"] = this.userAgent;
    if (spec.requestId) headers["X-Request-Id"] = spec.requestId;
    if (spec.idempotencyKey !== undefined) headers["Idempotency-Key"] = spec.idempotencyKey;
    let body: string | undefined;
    if (spec.json !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(spec.json);
    }

    const { signal, done } = this.deadline(spec.signal);
    let response: Response;
    let text: string;
    try {
      response = await this.fetchImpl(url, { method: spec.method, headers, body, signal });
      text = await response.text();
    } catch (e) {
      throw new MomoNetworkError(spec.method, url, e);
    } finally {
      done();
    }

    const ok = response.status >= 200 && response.status < 300;
    const parsed = parseEnvelope(text);
    if (ok && spec.expect === "text" && !isJson(response.headers)) {
      return { status: response.status, headers: response.headers, text, body: undefined };
    }
    if (ok && parsed !== null && !isErrorEnvelope(parsed)) {
      return { status: response.status, headers: response.headers, text, body: parsed };
    }
    throw apiError({
      status: response.status,
      method: spec.method,
      url,
      headers: response.headers,
      bodyText: text,
      envelope: parsed !== null && isErrorEnvelope(parsed) ? (parsed as V1ErrorEnvelope | V2ErrorEnvelope) : null,
    });
  }

  private deadline(outer?: AbortSignal): { signal: AbortSignal | undefined; done: () => void } {
    if (!this.timeoutMs && !outer) return { signal: undefined, done: () => {} };
    const controller = new AbortController();
    const abort = (reason?: unknown) => controller.abort(reason);
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (this.timeoutMs) {
      timer = setTimeout(() => abort(new Error(`timed out after ${this.timeoutMs} ms`)), this.timeoutMs);
    }
    const onOuter = () => abort(outer?.reason);
    if (outer) {
      if (outer.aborted) abort(outer.reason);
      else outer.addEventListener("abort", onOuter, { once: true });
    }
    return {
      signal: controller.signal,
      done: () => {
        if (timer) clearTimeout(timer);
        outer?.removeEventListener("abort", onOuter);
      },
    };
  }
}

interface TokenWithStart extends Token {
  receivedAt: number;
}

function publicToken(t: TokenWithStart): Token {
  return { token: t.token, exp: t.exp, expiresAt: t.expiresAt, environment: t.environment };
}

/** The body as one of the gateway's envelopes, or null. */
function parseEnvelope(text: string): Record<string, unknown> | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const o = value as Record<string, unknown>;
  if (typeof o.statusCode === "number" || typeof o.code_status === "number") return o;
  return null;
}

/** An error envelope: v1 `{statusCode ≥ 400, message, reason}` or v2 `{status: "ERROR"}`. */
function isErrorEnvelope(o: Record<string, unknown>): boolean {
  if (typeof o.code_status === "number") return o.status === "ERROR" || o.code_status >= 400;
  return typeof o.statusCode === "number" && o.statusCode >= 400;
}

function isJson(headers: Headers): boolean {
  return /\bjson\b/i.test(headers.get("content-type") ?? "");
}

function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** A page from an answer whose envelope's `data` is a list. */
export function page<T, E>(answer: Answer): MomoPage<T, E> {
  return { ...response<T[], E>(answer), nextCursor: answer.headers.get("x-next-cursor") };
}

/** The response of an answer. */
export function response<T, E>(answer: Answer): MomoResponse<T, E> {
  return {
    data: answer.body.data as T,
    envelope: answer.body as E,
    status: answer.status,
    requestId: answer.headers.get("x-request-id"),
    replayed: answer.headers.get("idempotent-replayed") === "true",
    headers: answer.headers,
  };
}

export function textResponse(answer: Answer): MomoText {
  return {
    text: answer.text,
    status: answer.status,
    requestId: answer.headers.get("x-request-id"),
    nextCursor: answer.headers.get("x-next-cursor"),
    headers: answer.headers,
  };
}

/** Every item of a list, following `nextCursor` page after page. */
export async function* iterate<T>(
  first: PageFn<T>,
  params: { limit?: number; cursor?: string | null },
): AsyncGenerator<T, void, undefined> {
  let cursor = params.cursor ?? null;
  for (;;) {
    const p = await first({ ...params, cursor });
    for (const item of p.data) yield item;
    if (!p.nextCursor || p.nextCursor === cursor) return;
    cursor = p.nextCursor;
  }
}

type PageFn<T> = (params: { limit?: number; cursor?: string | null }) => Promise<MomoPage<T, unknown>>;

/** A path segment, escaped. */
export function seg(value: string): string {
  return encodeURIComponent(value);
}
