"""The HTTP side of the client: the bearer token (taken with the API key and secret, refreshed
before it expires and once more on a 401), the headers every call carries, and answers turned
into JSON or into the error they stand for."""

from __future__ import annotations

import base64
import json
import threading
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

import httpx

from .errors import InvalidResponseError, MomoApiError, MomoTransportError, error_for
from .schema import V1TokenData

__version__ = "0.1.0"

Environment = Literal["Sandbox", "Production"]

#: What the API documents for a token's lifetime (docs/compatibility.md), used when `exp` is
#: not believable (a clock far off).
TOKEN_LIFETIME_S = 600.0

Params = Mapping[str, str | int | None]


@dataclass(frozen=True)
class Answer:
    """A successful answer: its status, headers and body (JSON, or text for CSV)."""

    status_code: int
    headers: httpx.Headers
    body: Any


def environment_of(api_key: str) -> Environment:
    """The environment an API key belongs to, by its documented prefix (docs/decisions.md)."""
    if api_key.startswith("pk_sandbox_"):
        return "Sandbox"
    if api_key.startswith("pk_live_"):
        return "Production"
    raise ValueError("cannot tell the environment from this API key: pass environment='Sandbox' or 'Production'")


class Session:
    """One merchant environment's credentials over one httpx.Client. Thread-safe."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        api_secret: str,
        environment: Environment,
        *,
        timeout: float,
        refresh_margin: float,
        http_client: httpx.Client | None,
        headers: Mapping[str, str] | None,
    ) -> None:
        self.environment: Environment = environment
        self._basic = "Basic " + base64.b64encode(f"{api_key}:{api_secret}".encode()).decode()
        self._refresh_margin = refresh_margin
        self._owns_http = http_client is None
        self._http = http_client or httpx.Client(timeout=timeout, follow_redirects=False)
        self._base_url = base_url.rstrip("/")
        self._headers = {
            "Accept": "application/json",
            "User-Agent": f"momo-gateway-client-python/{__version__} httpx/{httpx.__version__}",
            **(headers or {}),
        }
        self._lock = threading.Lock()
        self._token: str | None = None
        self._refresh_at = 0.0

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    # --- the token -------------------------------------------------------------------------

    def token(self) -> str:
        """A bearer token valid for a while yet: the current one, or a new one."""
        with self._lock:
            if self._token is None or time.monotonic() >= self._refresh_at:
                self._take_token()
            assert self._token is not None
            return self._token

    def authenticate(self) -> V1TokenData:
        """A new token, whatever the current one's age (`POST /v1/auth`)."""
        with self._lock:
            return self._take_token()

    def _take_token(self) -> V1TokenData:
        response = self._send(
            "POST",
            "/v1/auth",
            headers={"Authorization": self._basic, "X-Environment": self.environment},
            request_id=new_request_id(),
        )
        body = self._json(response)
        data = body.get("data") if isinstance(body, dict) else None
        if not (isinstance(data, dict) and isinstance(data.get("token"), str) and isinstance(data.get("exp"), int)):
            raise invalid(response, "the token answer has no data.token and data.exp")
        lifetime = data["exp"] - time.time()
        if not 0 < lifetime <= 24 * 3600:
            lifetime = TOKEN_LIFETIME_S
        self._token = data["token"]
        self._refresh_at = time.monotonic() + lifetime - min(self._refresh_margin, lifetime / 2)
        return cast(V1TokenData, data)

    def _forget(self, token: str) -> None:
        with self._lock:
            if self._token == token:
                self._token = None

    # --- calls -----------------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Params | None = None,
        body: Any = None,
        idempotency_key: str | None = None,
        csv: bool = False,
    ) -> Answer:
        """One call with the bearer token; a 401 takes a new token and tries once more (a 401
        ran nothing, whatever the method). Raises the error an error status stands for."""
        content = None if body is None else encode(body)
        query = {k: str(v) for k, v in (params or {}).items() if v is not None}
        for attempt in (1, 2):
            token = self.token()
            headers = {"Authorization": f"Bearer {token}", "X-Environment": self.environment}
            if content is not None:
                headers["Content-Type"] = "application/json"
            if idempotency_key is not None:
                headers["Idempotency-Key"] = idempotency_key
            response = self._send(
                method, path, params=query, content=content, headers=headers, request_id=new_request_id()
            )
            if response.status_code == 401 and attempt == 1:
                self._forget(token)
                continue
            break
        if csv:
            if response.status_code >= 400:
                raise error_for(response)
            return Answer(response.status_code, response.headers, response.text)
        return Answer(response.status_code, response.headers, self._json(response))

    def _send(
        self,
        method: str,
        path: str,
        *,
        headers: dict[str, str],
        request_id: str,
        params: Mapping[str, str] | None = None,
        content: bytes | None = None,
    ) -> httpx.Response:
        url = self._base_url + path
        try:
            return self._http.request(
                method,
                url,
                params=params or None,
                content=content,
                headers={**self._headers, **headers, "X-Request-Id": request_id},
            )
        except httpx.TransportError as e:
            raise MomoTransportError(
                f"{method} {url}: no answer ({type(e).__name__}: {e})", method=method, url=url, request_id=request_id
            ) from e

    @staticmethod
    def _json(response: httpx.Response) -> Any:
        """The JSON envelope of a successful answer; the error of any other."""
        if response.status_code >= 400:
            raise error_for(response)
        try:
            body = response.json()
        except ValueError:
            raise invalid(response, "the answer is not JSON") from None
        if not isinstance(body, dict) or "data" not in body:
            raise invalid(response, "the answer is not an envelope with data")
        return body


def encode(body: Any) -> bytes:
    """The body's bytes: compact and in the dict's order, so the same call sends the same bytes
    (an idempotent retry must, docs/idempotency.md)."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def new_request_id() -> str:
    return uuid.uuid4().hex


def invalid(response: httpx.Response, why: str) -> MomoApiError:
    """The error of a successful status whose body is not what the API promises."""
    return InvalidResponseError(
        response.status_code,
        None,
        request_id=response.headers.get("X-Request-Id"),
        headers=response.headers,
        method=response.request.method,
        url=str(response.request.url),
        body=f"{why}: {response.text[:500]}",
    )
