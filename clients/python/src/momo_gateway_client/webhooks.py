"""Verifying a delivery: Standard Webhooks signatures (docs/webhooks.md), checked by the
official `standardwebhooks` library against the raw body, before anything reads it."""

from __future__ import annotations

import binascii
from collections.abc import Iterable, Mapping
from typing import Any, Protocol, TypeGuard, cast

from standardwebhooks import Webhook, WebhookVerificationError

from .errors import InvalidWebhookError
from .schema import WebhookBatch, WebhookTransaction

#: A delivery's body: a transaction in its v1 shape, or a completed payout batch
#: (`"object": "payout_batch"`).
WebhookPayload = WebhookTransaction | WebhookBatch


class HeaderItems(Protocol):
    """Headers as a web framework gives them: a dict, or anything with `.items()`
    (`http.server`'s `self.headers`, Django's `request.headers`, ...)."""

    def items(self) -> Iterable[tuple[str, Any]]: ...


def verify_webhook(secret: str, headers: Mapping[str, str] | HeaderItems, body: bytes | str) -> WebhookPayload:
    """The delivery's event, once its signature verifies with `secret` (`whsec_...`) and its
    timestamp is within five minutes; else `InvalidWebhookError`: answer that 4xx and act on
    nothing. A `secret` that is no signing secret is a plain `ValueError`.

    After a rotation a delivery carries the new and the old secret's signatures, and either
    secret verifies it. Deduplicate on the `webhook-id` header: delivery is at least once.
    """
    try:
        webhook = Webhook(secret)
    except Exception as e:  # EmptyWebhookSecretError, binascii.Error: the receiver's configuration
        raise ValueError("the webhook secret is not a signing secret (whsec_ and base64)") from e
    lowered = {str(k).lower(): str(v) for k, v in headers.items()}
    try:
        event: Any = webhook.verify(body, lowered)
    except (WebhookVerificationError, binascii.Error, ValueError) as e:
        raise InvalidWebhookError(f"the webhook does not verify: {e}") from e
    if not isinstance(event, dict):
        raise InvalidWebhookError("the webhook's body is not a JSON object")
    return cast(WebhookPayload, event)


def is_payout_batch(event: WebhookPayload) -> TypeGuard[WebhookBatch]:
    """True for a completed payout batch's event; a transaction's has no `object`."""
    return event.get("object") == "payout_batch"


def is_transaction(event: WebhookPayload) -> TypeGuard[WebhookTransaction]:
    return "object" not in event
