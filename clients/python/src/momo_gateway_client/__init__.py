"""A Python client of momo-gateway, the mobile-money payment gateway.

    from momo_gateway_client import MomoClient, verify_webhook

`MomoClient(base_url, api_key, api_secret)` takes and refreshes its token by itself;
`client.v1` and `client.v2` are the API's two generations. Errors are `MomoApiError`
(`NotFoundError`, `ConflictError`, ... per status), carrying the status, the envelope and the
request id. `verify_webhook(secret, headers, body)` checks a delivery's Standard Webhooks
signature. The wire types are in `momo_gateway_client.schema`, generated from docs/openapi.yaml.
"""

from . import schema
from .client import MomoClient
from .errors import (
    AuthenticationError,
    BadRequestError,
    ClientError,
    ConflictError,
    GatewayTimeoutError,
    InvalidResponseError,
    InvalidWebhookError,
    MomoApiError,
    MomoError,
    MomoTransportError,
    NotFoundError,
    PayoutCsvError,
    PermissionDeniedError,
    PreconditionFailedError,
    RateLimitError,
    ServerError,
    ServiceUnavailableError,
    UnprocessableEntityError,
)
from .results import Page, Result
from .session import Environment, __version__
from .v1 import V1
from .v2 import V2, is_successful
from .webhooks import WebhookPayload, is_payout_batch, is_transaction, verify_webhook

__all__ = [
    "AuthenticationError",
    "BadRequestError",
    "ClientError",
    "ConflictError",
    "Environment",
    "GatewayTimeoutError",
    "InvalidResponseError",
    "InvalidWebhookError",
    "MomoApiError",
    "MomoClient",
    "MomoError",
    "MomoTransportError",
    "NotFoundError",
    "Page",
    "PayoutCsvError",
    "PermissionDeniedError",
    "PreconditionFailedError",
    "RateLimitError",
    "Result",
    "ServerError",
    "ServiceUnavailableError",
    "UnprocessableEntityError",
    "V1",
    "V2",
    "WebhookPayload",
    "__version__",
    "is_payout_batch",
    "is_successful",
    "is_transaction",
    "schema",
    "verify_webhook",
]
