export { MomoClient } from "./client.js";
export type { MomoClientOptions, MomoPage, MomoResponse, MomoText, Token } from "./http.js";
export {
  MomoApiError,
  MomoBadRequestError,
  MomoConflictError,
  MomoError,
  MomoForbiddenError,
  MomoInvalidResponseError,
  MomoNetworkError,
  MomoNotFoundError,
  MomoPaymentFailedError,
  MomoPreconditionFailedError,
  MomoRateLimitedError,
  MomoServerError,
  MomoUnauthorizedError,
  MomoUnavailableError,
  MomoUnprocessableError,
  MomoWebhookVerificationError,
} from "./errors.js";
export type { Generation, MomoErrorKind } from "./errors.js";
export { isPayoutBatchEvent, verifyWebhook } from "./webhooks.js";
export type { WebhookHeaders } from "./webhooks.js";
export { parsePayoutCsv, payoutCsvToV1Items, payoutCsvToV2Items, PayoutCsvError } from "./csv.js";
export type { PayoutCsvRow } from "./csv.js";
export { V1Api } from "./v1.js";
export { V2Api } from "./v2.js";
export type * from "./types.js";
export type { components, paths, operations } from "./schema.js";
