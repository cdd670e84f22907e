"""What the library raises: an answer of the gateway that is an error (`MomoApiError` and a
subclass per status), an answer that is not the JSON the API promises (`InvalidResponseError`),
no answer at all (`MomoTransportError`), and a webhook that does not verify
(`InvalidWebhookError`)."""

from __future__ import annotations

import json
from typing import Any, Literal, cast

import httpx

from .schema import V1Error, V2Error


class MomoError(Exception):
    """The base of everything this library raises."""


class MomoTransportError(MomoError):
    """No answer: the connection failed or timed out (the httpx error is the `__cause__`).

    A write that timed out may still have happened. Retry it with the same `idempotency_key`:
    the gateway runs it once and answers the retry with the first answer (docs/idempotency.md).
    """

    def __init__(self, message: str, *, method: str, url: str, request_id: str | None) -> None:
        super().__init__(message)
        self.method = method
        self.url = url
        #: The `X-Request-Id` this library sent, to look the request up in the gateway's logs.
        self.request_id = request_id


class MomoApiError(MomoError):
    """The gateway answered with an error status (or with no JSON).

    `envelope` is the parsed body: v1's `{statusCode, message, reason, data?}` or v2's
    `{code_status, status: "ERROR", message, reason, data?}`, as the path's generation answers.
    `message` is the envelope's constant (`NotFoundError`, `TRANSACTION_NOT_FOUND`, ...), `reason`
    its human sentence and `data` what some errors carry: the existing transaction of a 409
    duplicate, the FAILED transaction of a 504, each item's outcome of a refused payout batch.
    """

    def __init__(
        self,
        status_code: int,
        envelope: V1Error | V2Error | None,
        *,
        request_id: str | None,
        headers: httpx.Headers,
        method: str,
        url: str,
        body: str,
    ) -> None:
        self.status_code = status_code
        self.envelope = envelope
        #: The answer's `X-Request-Id`: quote it to the gateway's operators.
        self.request_id = request_id
        self.headers = headers
        self.method = method
        self.url = url
        #: The raw body, as text (for an answer that is not JSON).
        self.body = body
        super().__init__(self._describe())

    def _describe(self) -> str:
        what = f"{self.method} {self.url} answered {self.status_code}"
        if self.envelope is not None:
            what += f" {self.message}: {self.reason}"
        else:
            what += f" with no JSON envelope: {self.body[:200]!r}"
        return what + (f" (request id {self.request_id})" if self.request_id else "")

    @property
    def generation(self) -> Literal["v1", "v2"] | None:
        """Which envelope the answer is in, or None when it had none."""
        if self.envelope is None:
            return None
        return "v2" if "code_status" in self.envelope else "v1"

    @property
    def message(self) -> str | None:
        return None if self.envelope is None else str(self.envelope.get("message"))

    @property
    def reason(self) -> str | None:
        if self.envelope is None:
            return None
        reason = self.envelope.get("reason")
        return None if reason is None else str(reason)

    @property
    def data(self) -> Any:
        return None if self.envelope is None else self.envelope.get("data")

    @property
    def retry_after(self) -> int | None:
        """Seconds to wait, when the answer says (every 429 does)."""
        raw = self.headers.get("Retry-After")
        return int(raw) if raw is not None and raw.isdigit() else None


class InvalidResponseError(MomoApiError):
    """The answer is not the JSON envelope the API promises (a proxy's HTML page, a cut body)."""


class ClientError(MomoApiError):
    """A 4xx: the request was refused. Most refusals wrote nothing (docs/idempotency.md)."""


class BadRequestError(ClientError):
    """400: a field is missing or wrong; `reason` names it."""


class AuthenticationError(ClientError):
    """401: the credentials or token are wrong, or of another environment.

    The client takes a new token and retries once by itself; this is raised when that fails too.
    """


class PermissionDeniedError(ClientError):
    """403: an amount outside 100 to 1,000,000 XOF, a recipient check switched off, card payments."""


class NotFoundError(ClientError):
    """404: nothing with this id for the caller (another merchant's or environment's included)."""


class ConflictError(ClientError):
    """409: the transaction id is used (`data` is that transaction), the idempotency key is held
    by a request still running, or a refund the collection cannot give."""


class PreconditionFailedError(ClientError):
    """412: the available balance does not cover the transfer or refund and its fee."""


class UnprocessableEntityError(ClientError):
    """422: an idempotency key reused for another request, a payment link that cannot be, an
    inactive recipient checked first, an all-or-nothing batch refused (`data.items`)."""


class RateLimitError(ClientError):
    """429: too many requests; `retry_after` says how long to wait."""


class ServerError(MomoApiError):
    """A 5xx."""


class ServiceUnavailableError(ServerError):
    """503: the database or the operator is unavailable. With a transaction in `data`, the
    payment was recorded FAILED (the operator could not be reached)."""


class GatewayTimeoutError(ServerError):
    """504: the operator refused the payment at once; `data` is the transaction, now FAILED, and
    its transaction id is spent."""


_BY_STATUS: dict[int, type[MomoApiError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    412: PreconditionFailedError,
    422: UnprocessableEntityError,
    429: RateLimitError,
    503: ServiceUnavailableError,
    504: GatewayTimeoutError,
}


def error_for(response: httpx.Response, request_id: str | None = None) -> MomoApiError:
    """The error an answer with an error status (or without JSON) stands for."""
    text = response.text
    envelope: V1Error | V2Error | None = None
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and ("statusCode" in parsed or "code_status" in parsed):
        envelope = cast("V1Error | V2Error", parsed)
    status = response.status_code
    if envelope is None:
        kind: type[MomoApiError] = InvalidResponseError
    else:
        family = ClientError if 400 <= status < 500 else ServerError if status >= 500 else MomoApiError
        kind = _BY_STATUS.get(status, family)
    return kind(
        status,
        envelope,
        request_id=response.headers.get("X-Request-Id") or request_id,
        headers=response.headers,
        method=response.request.method,
        url=str(response.request.url),
        body=text,
    )


class InvalidWebhookError(MomoError, ValueError):
    """A webhook whose signature, timestamp or body does not verify: answer it 4xx, act on nothing."""


class PayoutCsvError(MomoError, ValueError):
    """A payout CSV that is no batch at all (its header, or no line, or too many)."""
