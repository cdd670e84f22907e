// MomoClient: one merchant environment's credentials, both API generations.

import { Transport } from "./http.js";
import type { MomoClientOptions, Token } from "./http.js";
import type { Environment } from "./types.js";
import { V1Api } from "./v1.js";
import { V2Api } from "./v2.js";

/**
 * A client of one merchant environment (`Sandbox` or `Production`) of a momo-gateway.
 *
 * ```ts
 * const client = new MomoClient({ baseUrl, apiKey, apiSecret, environment: "Sandbox" });
 * const { data } = await client.v1.collect({ transactionId: "order-1001", payer: "0701020301", … });
 * const v2 = await client.v2.collect({ transaction_id: "order-1002", customer_id: "0701020301", … });
 * ```
 *
 * Tokens are automatic: `POST /v1/auth` with the key and secret, kept until a minute before they
 * expire (they last 600 s), and taken again once when a request meets a 401.
 */
export class MomoClient {
  /** The /v1 paths (camelCase): payments, links, batches, recipients, customers, transactions, reports, webhooks. */
  readonly v1: V1Api;
  /** The /v2 paths (snake_case): payments, links, batches, recipients. */
  readonly v2: V2Api;
  private readonly http: Transport;

  constructor(options: MomoClientOptions) {
    this.http = new Transport(options);
    this.v1 = new V1Api(this.http);
    this.v2 = new V2Api(this.http);
  }

  /** The environment every request names in `X-Environment`. */
  get environment(): Environment {
    return this.http.environment;
  }

  get baseUrl(): string {
    return this.http.baseUrl;
  }

  /** The bearer token in use, taking one when none is held or it is about to expire. */
  async getToken(options: { force?: boolean; signal?: AbortSignal } = {}): Promise<Token> {
    return this.http.token(options);
  }

  /** Drops the token held; the next request takes a new one. */
  invalidateToken(): void {
    this.http.invalidate();
  }
}
