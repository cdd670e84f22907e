// Names for the generated OpenAPI types (src/schema.ts, from docs/openapi.yaml), and the input
// types of the client's methods. Response types come straight from the schema; request bodies
// too, except where a default is filled in for the caller (currency XOF, country CI).

import type { components } from "./schema.js";

type S = components["schemas"];

/** `Sandbox` or `Production`: the environment a token is for. */
export type Environment = "Sandbox" | "Production";

// ---------------------------------------------------------------- envelopes and records

export type V1ErrorEnvelope = S["V1Error"];
export type V2ErrorEnvelope = S["V2Error"];

export type TransactionV1 = S["TransactionV1"];
export type TransactionV2 = S["TransactionV2"];
export type Customer = S["Customer"];
export type PaymentLinkV1 = S["LinkV1"];
export type PaymentLinkV2 = S["LinkV2"];
export type PayoutBatchV1 = S["BatchV1"];
export type PayoutBatchV2 = S["BatchV2"];
export type PayoutBatchItemV1 = S["BatchItemV1"];
export type PayoutBatchItemV2 = S["BatchItemV2"];
export type StatementLine = S["StatementLine"];
export type SettlementRow = S["SettlementRow"];
export type WebhookEventRecord = S["WebhookEvent"];
export type WebhookAttempt = S["WebhookAttempt"];
/** The body of a transaction's webhook: the transaction in its v1 shape, with its customer. */
export type WebhookTransaction = S["WebhookTransaction"];
/** The body of the webhook sent once a payout batch completes (`object: "payout_batch"`). */
export type WebhookBatch = S["WebhookBatch"];
/** Whatever a webhook delivery carries; tell them apart with {@link isPayoutBatchEvent}. */
export type WebhookPayload = WebhookTransaction | WebhookBatch;

export type V1TransactionEnvelope = S["V1Transaction"];
export type V2TransactionEnvelope = S["V2Transaction"];
export type V1TransactionListEnvelope = S["V1TransactionList"];
export type V1CustomerEnvelope = S["V1Customer"];
export type V1CustomerListEnvelope = S["V1CustomerList"];
export type V1LinkEnvelope = S["V1Link"];
export type V1LinkListEnvelope = S["V1LinkList"];
export type V2LinkEnvelope = S["V2Link"];
export type V2LinkListEnvelope = S["V2LinkList"];
export type V1BatchCreatedEnvelope = S["V1BatchCreated"];
export type V2BatchCreatedEnvelope = S["V2BatchCreated"];
export type V1BatchEnvelope = S["V1Batch"];
export type V2BatchEnvelope = S["V2Batch"];
export type V1BatchListEnvelope = S["V1BatchList"];
export type V2BatchListEnvelope = S["V2BatchList"];
export type V1AccountHolderEnvelope = S["AccountHolderV1"];
export type V2AccountHolderEnvelope = S["AccountHolderV2"];
export type V1AccountHolderLookupsEnvelope = S["AccountHolderLookupsV1"];
export type V2AccountHolderLookupsEnvelope = S["AccountHolderLookupsV2"];
export type V1BalanceEnvelope = S["V1Balance"];
export type V1StatementEnvelope = S["V1Statement"];
export type V1SettlementEnvelope = S["V1Settlement"];
export type V1WebhookEventEnvelope = S["V1WebhookEvent"];
export type V1WebhookEventListEnvelope = S["V1WebhookEventList"];
export type V1RedeliveredEnvelope = S["V1Redelivered"];
export type V1WebhookSecretRotatedEnvelope = S["V1WebhookSecretRotated"];
export type V1TokenEnvelope = S["V1Token"];

export type AccountHolderV1 = V1AccountHolderEnvelope["data"];
export type AccountHolderV2 = V2AccountHolderEnvelope["data"];
export type AccountHolderLookupV1 = V1AccountHolderLookupsEnvelope["data"][number];
export type AccountHolderLookupV2 = V2AccountHolderLookupsEnvelope["data"][number];
export type Balance = V1BalanceEnvelope["data"];
export type SettlementReport = V1SettlementEnvelope["data"];
export type WebhookSecretRotation = V1WebhookSecretRotatedEnvelope["data"];

// ---------------------------------------------------------------- inputs

/** A reference operator code (a deployment may accept aliases too: pass any string then). */
export type OperatorCode = S["OperatorIn"] | (string & {});
/** Whole francs: `1500`, or `"1500"` as v1 sends them. */
export type Amount = S["AmountIn"];

type Defaulted<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;
type WithOperator<T> = Omit<T, "operator"> & { operator: OperatorCode };

/** `POST /v1/collecte/mobile-money`; `currency` defaults to XOF. */
export type CollectV1Input = WithOperator<Defaulted<S["CollectionV1"], "currency">>;
/** `POST /v1/transfer/mobile-money`; `currency` defaults to XOF. */
export type TransferV1Input = WithOperator<Defaulted<S["TransferV1"], "currency">>;
/** `POST /v1/refunds`. */
export type RefundV1Input = S["RefundV1"];
/** `POST /v1/payment-links`. */
export type PaymentLinkV1Input = Omit<S["LinkInV1"], "operators"> & { operators?: OperatorCode[] | null };
/** `POST /v1/payout-batches`: each item is the body of a v1 transfer. */
export type PayoutBatchV1Input = Omit<S["BatchInV1"], "items"> & { items: TransferV1Input[] };
/** `POST /v1/customer`. */
export type CustomerInput = S["CustomerCreate"];

/** `POST /v2/collecte/mobile-money`, shape A; `code_country` and `currency` default to CI and XOF. */
export interface CollectV2ShapeA {
  code_country?: "CI";
  currency?: "XOF";
  operator: OperatorCode;
  customer_id: S["PhoneV2"];
  name_user?: string | null;
  amount: Amount;
  transaction_id: string;
  email_user?: string | null;
  email?: string | null;
  code_otp?: string | null;
  url_success?: string | null;
  url_error?: string | null;
}
/** `POST /v2/collecte/mobile-money`, shape B; `codeCountry` and `currency` default to CI and XOF. */
export type CollectV2ShapeB = WithOperator<Defaulted<S["CollectionV2B"], "codeCountry" | "currency">>;
export type CollectV2Input = CollectV2ShapeA | CollectV2ShapeB;
/** `POST /v2/transfers/mobile-money`; `code_country` and `currency` default to CI and XOF. */
export type TransferV2Input = WithOperator<Defaulted<S["TransferV2"], "code_country" | "currency">>;
/** `POST /v2/refunds`. */
export type RefundV2Input = S["RefundV2"];
/** `POST /v2/payment-links`. */
export type PaymentLinkV2Input = Omit<S["LinkInV2"], "operators"> & { operators?: OperatorCode[] | null };
/** `POST /v2/payout-batches`: each item is the body of a v2 transfer. */
export type PayoutBatchV2Input = Omit<S["BatchInV2"], "items"> & { items: TransferV2Input[] };

/** Paging of every list: `limit` 1 to 1000, `cursor` the `nextCursor` of the previous page. */
export interface PageParams {
  limit?: number;
  cursor?: string | null;
}

/** Filters of `GET /v1/transactions` (empty or left out: any). */
export interface TransactionFilters extends PageParams {
  status?: "PENDING" | "SUCCESSFUL" | "FAILED";
  type?: "collecte" | "transfer" | "transfert" | "refund";
  operator?: OperatorCode;
  phone?: string;
  refundOf?: string;
  linkPaymentId?: string;
  payoutBatchId?: string;
  /** RFC 3339; created at or after. */
  from?: string | Date;
  /** RFC 3339; created before. */
  to?: string | Date;
}

/** Parameters of the statement, `GET /v1/ledger/entries`. */
export interface StatementParams extends PageParams {
  from?: string | Date;
  to?: string | Date;
}

/** Filters of `GET /v1/webhooks/events`. */
export interface WebhookEventFilters extends PageParams {
  status?: "pending" | "delivered" | "failed";
  transactionId?: string;
}

/** Options every call takes. */
export interface CallOptions {
  /** Aborts the request. */
  signal?: AbortSignal;
  /** Sent as `X-Request-Id` (printable ASCII, no spaces, at most 128 characters); the gateway echoes it. */
  requestId?: string;
}

/** Options of every write (POST). */
export interface WriteOptions extends CallOptions {
  /**
   * Sent as `Idempotency-Key`: a retry with the same key and body gets the first answer again
   * (`replayed: true`) and runs nothing. Use a fresh UUID per operation and keep it for retries.
   */
  idempotencyKey?: string;
}
