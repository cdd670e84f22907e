// The /v1 generation: camelCase bodies, envelope {statusCode, message, data | reason}.

import { payoutCsvToV1Items } from "./csv.js";
import { iterate, page, response, seg, textResponse } from "./http.js";
import type { MomoPage, MomoResponse, MomoText, Transport } from "./http.js";
import type {
  AccountHolderLookupV1,
  AccountHolderV1,
  Balance,
  CallOptions,
  CollectV1Input,
  Customer,
  CustomerInput,
  OperatorCode,
  PageParams,
  PaymentLinkV1,
  PaymentLinkV1Input,
  PayoutBatchV1,
  PayoutBatchV1Input,
  RefundV1Input,
  SettlementReport,
  StatementLine,
  StatementParams,
  TransactionFilters,
  TransactionV1,
  TransactionV2,
  TransferV1Input,
  V1AccountHolderEnvelope,
  V1AccountHolderLookupsEnvelope,
  V1BalanceEnvelope,
  V1BatchCreatedEnvelope,
  V1BatchEnvelope,
  V1BatchListEnvelope,
  V1CustomerEnvelope,
  V1CustomerListEnvelope,
  V1LinkEnvelope,
  V1LinkListEnvelope,
  V1RedeliveredEnvelope,
  V1SettlementEnvelope,
  V1StatementEnvelope,
  V1TransactionEnvelope,
  V1TransactionListEnvelope,
  V1WebhookEventEnvelope,
  V1WebhookEventListEnvelope,
  V1WebhookSecretRotatedEnvelope,
  V2TransactionEnvelope,
  WebhookEventFilters,
  WebhookEventRecord,
  WebhookSecretRotation,
  WriteOptions,
} from "./types.js";

type BatchCreatedV1 = V1BatchCreatedEnvelope["data"];

function write(options: WriteOptions | undefined) {
  return { idempotencyKey: options?.idempotencyKey, signal: options?.signal, requestId: options?.requestId };
}
function read(options: CallOptions | undefined) {
  return { signal: options?.signal, requestId: options?.requestId };
}

/** Everything a merchant calls on /v1 paths. */
export class V1Api {
  readonly paymentLinks: V1PaymentLinks;
  readonly payoutBatches: V1PayoutBatches;
  readonly recipients: V1Recipients;
  readonly customers: V1Customers;
  readonly transactions: V1Transactions;
  readonly reports: V1Reports;
  readonly webhooks: V1Webhooks;

  constructor(private readonly http: Transport) {
    this.paymentLinks = new V1PaymentLinks(http);
    this.payoutBatches = new V1PayoutBatches(http);
    this.recipients = new V1Recipients(http);
    this.customers = new V1Customers(http);
    this.transactions = new V1Transactions(http);
    this.reports = new V1Reports(http);
    this.webhooks = new V1Webhooks(http);
  }

  /**
   * Collects money from a payer's number: `POST /v1/collecte/mobile-money`.
   * 200 SUCCESSFUL or 202 PENDING; a payment the operator refuses at once throws
   * {@link MomoPaymentFailedError} (504) with the FAILED transaction in `data`.
   */
  async collect(body: CollectV1Input, options?: WriteOptions): Promise<MomoResponse<TransactionV1, V1TransactionEnvelope>> {
    const json = { ...body, currency: body.currency ?? "XOF" };
    return response(await this.http.send({ method: "POST", path: "/v1/collecte/mobile-money", json, ...write(options) }));
  }

  /** Pays money out to a number: `POST /v1/transfer/mobile-money`. */
  async transfer(body: TransferV1Input, options?: WriteOptions): Promise<MomoResponse<TransactionV1, V1TransactionEnvelope>> {
    const json = { ...body, currency: body.currency ?? "XOF" };
    return response(await this.http.send({ method: "POST", path: "/v1/transfer/mobile-money", json, ...write(options) }));
  }

  /** Gives back part or all of a SUCCESSFUL collection: `POST /v1/refunds`. */
  async refund(body: RefundV1Input, options?: WriteOptions): Promise<MomoResponse<TransactionV1, V1TransactionEnvelope>> {
    return response(await this.http.send({ method: "POST", path: "/v1/refunds", json: body, ...write(options) }));
  }

  /**
   * A transaction by its transaction id or ref: `GET /v1/get-status-payment/{id}`. The gateway
   * answers success in the v2 envelope (snake_case transaction) and errors in v1's.
   */
  async status(id: string, options?: CallOptions): Promise<MomoResponse<TransactionV2, V2TransactionEnvelope>> {
    return response(await this.http.send({ method: "GET", path: `/v1/get-status-payment/${seg(id)}`, ...read(options) }));
  }

  /** The balance: `GET /v1/balance` (`available`, `reserved`). */
  async balance(options?: CallOptions): Promise<MomoResponse<Balance, V1BalanceEnvelope>> {
    return response(await this.http.send({ method: "GET", path: "/v1/balance", ...read(options) }));
  }
}

export class V1PaymentLinks {
  constructor(private readonly http: Transport) {}

  /** `POST /v1/payment-links`. */
  async create(body: PaymentLinkV1Input, options?: WriteOptions): Promise<MomoResponse<PaymentLinkV1, V1LinkEnvelope>> {
    return response(await this.http.send({ method: "POST", path: "/v1/payment-links", json: body, ...write(options) }));
  }

  /** `GET /v1/payment-links/{id}`. */
  async get(id: string, options?: CallOptions): Promise<MomoResponse<PaymentLinkV1, V1LinkEnvelope>> {
    return response(await this.http.send({ method: "GET", path: `/v1/payment-links/${seg(id)}`, ...read(options) }));
  }

  /** `GET /v1/payment-links`, newest first. */
  async list(params: PageParams = {}, options?: CallOptions): Promise<MomoPage<PaymentLinkV1, V1LinkListEnvelope>> {
    return page(await this.http.send({ method: "GET", path: "/v1/payment-links", query: pageQuery(params), ...read(options) }));
  }

  /** Every link, page after page. */
  iterate(params: PageParams = {}, options?: CallOptions): AsyncGenerator<PaymentLinkV1> {
    return iterate((p) => this.list(p, options), params);
  }

  /** `POST /v1/payment-links/{id}/deactivate`: no new payment starts; those started go on. */
  async deactivate(id: string, options?: WriteOptions): Promise<MomoResponse<PaymentLinkV1, V1LinkEnvelope>> {
    return response(
      await this.http.send({ method: "POST", path: `/v1/payment-links/${seg(id)}/deactivate`, ...write(options) }),
    );
  }
}

export class V1PayoutBatches {
  constructor(private readonly http: Transport) {}

  /**
   * Records a payout batch of up to 5,000 transfers: `POST /v1/payout-batches` (202). Each item
   * gets its outcome (`accepted`, `refused` with a code and reason, `duplicate`); an
   * all-or-nothing batch with a refused item throws {@link MomoUnprocessableError} (422) with
   * every outcome in `data.items`.
   */
  async create(body: PayoutBatchV1Input, options?: WriteOptions): Promise<MomoResponse<BatchCreatedV1, V1BatchCreatedEnvelope>> {
    const json = { ...body, items: body.items.map((item) => ({ ...item, currency: item.currency ?? "XOF" })) };
    return response(await this.http.send({ method: "POST", path: "/v1/payout-batches", json, ...write(options) }));
  }

  /**
   * Records a payout batch from a spreadsheet's CSV (header `transaction_id,operator,phone,
   * amount,last_name,first_name[,email][,check_recipient]`, as the dashboard reads it). The
   * file is read here and sent as the JSON batch (the API takes JSON only); item i is line i + 2.
   */
  async createFromCsv(
    csv: string,
    batch: { label?: string | null; allOrNothing?: boolean | null } = {},
    options?: WriteOptions,
  ): Promise<MomoResponse<BatchCreatedV1, V1BatchCreatedEnvelope>> {
    return this.create({ ...batch, items: payoutCsvToV1Items(csv) }, options);
  }

  /** `GET /v1/payout-batches/{id}`: the batch with its counts and amounts by state. */
  async get(id: string, options?: CallOptions): Promise<MomoResponse<PayoutBatchV1, V1BatchEnvelope>> {
    return response(await this.http.send({ method: "GET", path: `/v1/payout-batches/${seg(id)}`, ...read(options) }));
  }

  /** `GET /v1/payout-batches`, newest first. */
  async list(params: PageParams = {}, options?: CallOptions): Promise<MomoPage<PayoutBatchV1, V1BatchListEnvelope>> {
    return page(await this.http.send({ method: "GET", path: "/v1/payout-batches", query: pageQuery(params), ...read(options) }));
  }

  iterate(params: PageParams = {}, options?: CallOptions): AsyncGenerator<PayoutBatchV1> {
    return iterate((p) => this.list(p, options), params);
  }
}

export class V1Recipients {
  constructor(private readonly http: Transport) {}

  /**
   * Whether a number holds an active account: `GET /v1/account-holders/{operator}/{phone}`.
   * With `name`, the answer says whether it is the holder's (`nameMatch`) and gives no name.
   */
  async check(
    operator: OperatorCode,
    phone: string,
    params: { name?: string } = {},
    options?: CallOptions,
  ): Promise<MomoResponse<AccountHolderV1, V1AccountHolderEnvelope>> {
    return response(
      await this.http.send({
        method: "GET",
        path: `/v1/account-holders/${seg(operator)}/${seg(phone)}`,
        query: { name: params.name },
        ...read(options),
      }),
    );
  }

  /** The checks made, newest first: `GET /v1/account-holders/lookups`. */
  async lookups(params: PageParams = {}, options?: CallOptions): Promise<MomoPage<AccountHolderLookupV1, V1AccountHolderLookupsEnvelope>> {
    return page(
      await this.http.send({ method: "GET", path: "/v1/account-holders/lookups", query: pageQuery(params), ...read(options) }),
    );
  }
}

export class V1Customers {
  constructor(private readonly http: Transport) {}

  /** `POST /v1/customer`. */
  async create(body: CustomerInput, options?: WriteOptions): Promise<MomoResponse<Customer, V1CustomerEnvelope>> {
    return response(await this.http.send({ method: "POST", path: "/v1/customer", json: body, ...write(options) }));
  }

  /** `GET /v1/customer/{id}`. */
  async get(id: string, options?: CallOptions): Promise<MomoResponse<Customer, V1CustomerEnvelope>> {
    return response(await this.http.send({ method: "GET", path: `/v1/customer/${seg(id)}`, ...read(options) }));
  }

  /** `GET /v1/customers`, newest first. */
  async list(params: PageParams = {}, options?: CallOptions): Promise<MomoPage<Customer, V1CustomerListEnvelope>> {
    return page(await this.http.send({ method: "GET", path: "/v1/customers", query: pageQuery(params), ...read(options) }));
  }

  iterate(params: PageParams = {}, options?: CallOptions): AsyncGenerator<Customer> {
    return iterate((p) => this.list(p, options), params);
  }
}

export class V1Transactions {
  constructor(private readonly http: Transport) {}

  /** `GET /v1/transactions`, newest first, with filters. */
  async list(filters: TransactionFilters = {}, options?: CallOptions): Promise<MomoPage<TransactionV1, V1TransactionListEnvelope>> {
    const { limit, cursor, ...rest } = filters;
    return page(
      await this.http.send({
        method: "GET",
        path: "/v1/transactions",
        query: { ...pageQuery({ limit, cursor }), ...rest },
        ...read(options),
      }),
    );
  }

  /** Every transaction matching the filters, page after page. */
  iterate(filters: TransactionFilters = {}, options?: CallOptions): AsyncGenerator<TransactionV1> {
    return iterate((p) => this.list({ ...filters, ...p }, options), filters);
  }

  /** A transaction by id or ref (the same as {@link V1Api.status}). */
  async get(id: string, options?: CallOptions): Promise<MomoResponse<TransactionV2, V2TransactionEnvelope>> {
    return response(await this.http.send({ method: "GET", path: `/v1/transaction/${seg(id)}`, ...read(options) }));
  }
}

export class V1Reports {
  constructor(private readonly http: Transport) {}

  /**
   * The ledger statement, oldest first, with running balances: `GET /v1/ledger/entries`.
   * Lines younger than 60 s may still be joined by others; reconcile with a `to` a minute old.
   */
  async statement(params: StatementParams = {}, options?: CallOptions): Promise<MomoPage<StatementLine, V1StatementEnvelope>> {
    return page(
      await this.http.send({ method: "GET", path: "/v1/ledger/entries", query: statementQuery(params), ...read(options) }),
    );
  }

  /** Every statement line, page after page. */
  iterateStatement(params: StatementParams = {}, options?: CallOptions): AsyncGenerator<StatementLine> {
    return iterate((p) => this.statement({ ...params, ...p }, options), params);
  }

  /** The statement as CSV (`format=csv`); the next page's cursor is `nextCursor`. */
  async statementCsv(params: StatementParams = {}, options?: CallOptions): Promise<MomoText> {
    return textResponse(
      await this.http.send({
        method: "GET",
        path: "/v1/ledger/entries",
        query: { ...statementQuery(params), format: "csv" },
        expect: "text",
        ...read(options),
      }),
    );
  }

  /** The settlement report of one UTC day (`YYYY-MM-DD`, or a Date): `GET /v1/reports/settlement`. */
  async settlement(date: string | Date, options?: CallOptions): Promise<MomoResponse<SettlementReport, V1SettlementEnvelope>> {
    return response(
      await this.http.send({ method: "GET", path: "/v1/reports/settlement", query: { date: day(date) }, ...read(options) }),
    );
  }

  /** The settlement report as CSV. */
  async settlementCsv(date: string | Date, options?: CallOptions): Promise<MomoText> {
    return textResponse(
      await this.http.send({
        method: "GET",
        path: "/v1/reports/settlement",
        query: { date: day(date), format: "csv" },
        expect: "text",
        ...read(options),
      }),
    );
  }
}

export class V1Webhooks {
  constructor(private readonly http: Transport) {}

  /** Webhook events, newest first: `GET /v1/webhooks/events`. */
  async listEvents(filters: WebhookEventFilters = {}, options?: CallOptions): Promise<MomoPage<WebhookEventRecord, V1WebhookEventListEnvelope>> {
    const { limit, cursor, ...rest } = filters;
    return page(
      await this.http.send({
        method: "GET",
        path: "/v1/webhooks/events",
        query: { ...pageQuery({ limit, cursor }), ...rest },
        ...read(options),
      }),
    );
  }

  iterateEvents(filters: WebhookEventFilters = {}, options?: CallOptions): AsyncGenerator<WebhookEventRecord> {
    return iterate((p) => this.listEvents({ ...filters, ...p }, options), filters);
  }

  /** One event with its payload and every attempt (`deliveryAttempts`): `GET /v1/webhooks/events/{id}`. */
  async getEvent(id: string, options?: CallOptions): Promise<MomoResponse<WebhookEventRecord, V1WebhookEventEnvelope>> {
    return response(await this.http.send({ method: "GET", path: `/v1/webhooks/events/${seg(id)}`, ...read(options) }));
  }

  /** Sends an event again now, same `webhook-id`, fresh schedule: `POST /v1/webhooks/events/{id}/redeliver` (202). */
  async redeliver(id: string, options?: WriteOptions): Promise<MomoResponse<WebhookEventRecord, V1WebhookEventEnvelope>> {
    return response(
      await this.http.send({ method: "POST", path: `/v1/webhooks/events/${seg(id)}/redeliver`, ...write(options) }),
    );
  }

  /** Sends again every failed event created in [from, to): `POST /v1/webhooks/redeliver` (202). */
  async redeliverRange(
    range: { from: string | Date; to: string | Date },
    options?: WriteOptions,
  ): Promise<MomoResponse<{ redelivered: number }, V1RedeliveredEnvelope>> {
    return response(
      await this.http.send({
        method: "POST",
        path: "/v1/webhooks/redeliver",
        query: { from: time(range.from), to: time(range.to) },
        ...write(options),
      }),
    );
  }

  /**
   * A new signing secret for the token's environment, shown once: `POST /v1/webhooks/secret/rotate`.
   * Until `previousSecretValidUntil` deliveries carry both secrets' signatures. Send an
   * `idempotencyKey` so that a retry after a lost answer gets the same secret, not a third one.
   */
  async rotateSecret(options?: WriteOptions): Promise<MomoResponse<WebhookSecretRotation, V1WebhookSecretRotatedEnvelope>> {
    return response(await this.http.send({ method: "POST", path: "/v1/webhooks/secret/rotate", ...write(options) }));
  }
}

export function pageQuery(params: PageParams): Record<string, string | number | undefined> {
  return { limit: params.limit, cursor: params.cursor ?? undefined };
}

function statementQuery(params: StatementParams) {
  return { ...pageQuery(params), from: time(params.from), to: time(params.to) };
}

function time(value: string | Date | undefined): string | undefined {
  return value instanceof Date ? value.toISOString() : value;
}

function day(value: string | Date): string {
  return value instanceof Date ? value.toISOString().slice(0, 10) : value;
}
