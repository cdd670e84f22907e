// The /v2 generation: snake_case bodies, envelope {code_status, status, message, data | reason}.
// Customers, transaction lists, the balance, the reports and webhook events have no /v2 paths:
// use `client.v1` for them.

import { payoutCsvToV2Items } from "./csv.js";
import { iterate, page, response, seg } from "./http.js";
import type { MomoPage, MomoResponse, Transport } from "./http.js";
import { pageQuery } from "./v1.js";
import type {
  AccountHolderLookupV2,
  AccountHolderV2,
  CallOptions,
  CollectV2Input,
  OperatorCode,
  PageParams,
  PaymentLinkV2,
  PaymentLinkV2Input,
  PayoutBatchV2,
  PayoutBatchV2Input,
  RefundV2Input,
  TransactionV2,
  TransferV2Input,
  V2AccountHolderEnvelope,
  V2AccountHolderLookupsEnvelope,
  V2BatchCreatedEnvelope,
  V2BatchEnvelope,
  V2BatchListEnvelope,
  V2LinkEnvelope,
  V2LinkListEnvelope,
  V2TransactionEnvelope,
  WriteOptions,
} from "./types.js";

type BatchCreatedV2 = V2BatchCreatedEnvelope["data"];

function write(options: WriteOptions | undefined) {
  return { idempotencyKey: options?.idempotencyKey, signal: options?.signal, requestId: options?.requestId };
}
function read(options: CallOptions | undefined) {
  return { signal: options?.signal, requestId: options?.requestId };
}

/** Everything a merchant calls on /v2 paths. */
export class V2Api {
  readonly paymentLinks: V2PaymentLinks;
  readonly payoutBatches: V2PayoutBatches;
  readonly recipients: V2Recipients;

  constructor(private readonly http: Transport) {
    this.paymentLinks = new V2PaymentLinks(http);
    this.payoutBatches = new V2PayoutBatches(http);
    this.recipients = new V2Recipients(http);
  }

  /**
   * Collects money: `POST /v2/collecte/mobile-money`, shape A (`customer_id`, `transaction_id`)
   * or shape B (`customer`, `transactionId`). An immediate success is spelled `SUCCESSFULL`
   * unless the deployment turned that off (MOMO_V2_SUCCESSFULL_SPELLING).
   */
  async collect(body: CollectV2Input, options?: WriteOptions): Promise<MomoResponse<TransactionV2, V2TransactionEnvelope>> {
    const json =
      "transactionId" in body
        ? { ...body, codeCountry: body.codeCountry ?? "CI", currency: body.currency ?? "XOF" }
        : { ...body, code_country: body.code_country ?? "CI", currency: body.currency ?? "XOF" };
    return response(await this.http.send({ method: "POST", path: "/v2/collecte/mobile-money", json, ...write(options) }));
  }

  /** Pays money out: `POST /v2/transfers/mobile-money`. */
  async transfer(body: TransferV2Input, options?: WriteOptions): Promise<MomoResponse<TransactionV2, V2TransactionEnvelope>> {
    const json = withV2Defaults(body);
    return response(await this.http.send({ method: "POST", path: "/v2/transfers/mobile-money", json, ...write(options) }));
  }

  /** Gives back part or all of a SUCCESSFUL collection: `POST /v2/refunds`. */
  async refund(body: RefundV2Input, options?: WriteOptions): Promise<MomoResponse<TransactionV2, V2TransactionEnvelope>> {
    return response(await this.http.send({ method: "POST", path: "/v2/refunds", json: body, ...write(options) }));
  }

  /** A transaction by its transaction id or ref: `GET /v2/get-status-payment/{id}`. */
  async status(id: string, options?: CallOptions): Promise<MomoResponse<TransactionV2, V2TransactionEnvelope>> {
    return response(await this.http.send({ method: "GET", path: `/v2/get-status-payment/${seg(id)}`, ...read(options) }));
  }
}

export class V2PaymentLinks {
  constructor(private readonly http: Transport) {}

  /** `POST /v2/payment-links`. */
  async create(body: PaymentLinkV2Input, options?: WriteOptions): Promise<MomoResponse<PaymentLinkV2, V2LinkEnvelope>> {
    return response(await this.http.send({ method: "POST", path: "/v2/payment-links", json: body, ...write(options) }));
  }

  /** `GET /v2/payment-links/{id}`. */
  async get(id: string, options?: CallOptions): Promise<MomoResponse<PaymentLinkV2, V2LinkEnvelope>> {
    return response(await this.http.send({ method: "GET", path: `/v2/payment-links/${seg(id)}`, ...read(options) }));
  }

  /** `GET /v2/payment-links`, newest first. */
  async list(params: PageParams = {}, options?: CallOptions): Promise<MomoPage<PaymentLinkV2, V2LinkListEnvelope>> {
    return page(await this.http.send({ method: "GET", path: "/v2/payment-links", query: pageQuery(params), ...read(options) }));
  }

  iterate(params: PageParams = {}, options?: CallOptions): AsyncGenerator<PaymentLinkV2> {
    return iterate((p) => this.list(p, options), params);
  }

  /** `POST /v2/payment-links/{id}/deactivate`. */
  async deactivate(id: string, options?: WriteOptions): Promise<MomoResponse<PaymentLinkV2, V2LinkEnvelope>> {
    return response(
      await this.http.send({ method: "POST", path: `/v2/payment-links/${seg(id)}/deactivate`, ...write(options) }),
    );
  }
}

export class V2PayoutBatches {
  constructor(private readonly http: Transport) {}

  /** `POST /v2/payout-batches` (202): each item the body of a v2 transfer. */
  async create(body: PayoutBatchV2Input, options?: WriteOptions): Promise<MomoResponse<BatchCreatedV2, V2BatchCreatedEnvelope>> {
    const json = { ...body, items: body.items.map(withV2Defaults) };
    return response(await this.http.send({ method: "POST", path: "/v2/payout-batches", json, ...write(options) }));
  }

  /** A batch from a spreadsheet's CSV, sent as the JSON batch (see `client.v1.payoutBatches.createFromCsv`). */
  async createFromCsv(
    csv: string,
    batch: { label?: string | null; all_or_nothing?: boolean | null } = {},
    options?: WriteOptions,
  ): Promise<MomoResponse<BatchCreatedV2, V2BatchCreatedEnvelope>> {
    return this.create({ ...batch, items: payoutCsvToV2Items(csv) }, options);
  }

  /** `GET /v2/payout-batches/{id}`. */
  async get(id: string, options?: CallOptions): Promise<MomoResponse<PayoutBatchV2, V2BatchEnvelope>> {
    return response(await this.http.send({ method: "GET", path: `/v2/payout-batches/${seg(id)}`, ...read(options) }));
  }

  /** `GET /v2/payout-batches`, newest first. */
  async list(params: PageParams = {}, options?: CallOptions): Promise<MomoPage<PayoutBatchV2, V2BatchListEnvelope>> {
    return page(await this.http.send({ method: "GET", path: "/v2/payout-batches", query: pageQuery(params), ...read(options) }));
  }

  iterate(params: PageParams = {}, options?: CallOptions): AsyncGenerator<PayoutBatchV2> {
    return iterate((p) => this.list(p, options), params);
  }
}

export class V2Recipients {
  constructor(private readonly http: Transport) {}

  /** `GET /v2/account-holders/{operator}/{phone}` (`name_user` to confirm a name: `name_match`). */
  async check(
    operator: OperatorCode,
    phone: string,
    params: { name_user?: string } = {},
    options?: CallOptions,
  ): Promise<MomoResponse<AccountHolderV2, V2AccountHolderEnvelope>> {
    return response(
      await this.http.send({
        method: "GET",
        path: `/v2/account-holders/${seg(operator)}/${seg(phone)}`,
        query: { name_user: params.name_user },
        ...read(options),
      }),
    );
  }

  /** `GET /v2/account-holders/lookups`, newest first. */
  async lookups(params: PageParams = {}, options?: CallOptions): Promise<MomoPage<AccountHolderLookupV2, V2AccountHolderLookupsEnvelope>> {
    return page(
      await this.http.send({ method: "GET", path: "/v2/account-holders/lookups", query: pageQuery(params), ...read(options) }),
    );
  }
}

function withV2Defaults(item: TransferV2Input) {
  return { ...item, code_country: item.code_country ?? "CI", currency: item.currency ?? "XOF" };
}
