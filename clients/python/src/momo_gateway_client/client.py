"""`MomoClient`: one merchant environment's credentials, and the API's two generations on them
(`client.v1`, `client.v2`)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from types import TracebackType
from typing import Any, cast

import httpx

from .schema import V1TokenData
from .session import Environment, Session, environment_of
from .v1 import V1
from .v2 import V2


class MomoClient:
    """A client of momo-gateway for one merchant environment.

        client = MomoClient("https://gateway.example", api_key, api_secret)
        tx = client.v1.collect(transaction_id="order-1001", operator="ALPHA_MONEY_CI", ...).data

    The token is taken with the API key and secret when first needed (`POST /v1/auth`, Basic,
    `X-Environment`), kept, taken again before it expires (tokens last 600 s; `refresh_margin`
    seconds before) and once more when a call is answered 401. `environment` defaults to the
    key's (`pk_sandbox_...` is Sandbox, `pk_live_...` Production). Thread-safe; close it (or use
    it as a context manager) to close its connections.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        api_secret: str,
        *,
        environment: Environment | None = None,
        timeout: float = 30.0,
        refresh_margin: float = 60.0,
        http_client: httpx.Client | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self._session = Session(
            base_url,
            api_key,
            api_secret,
            environment or environment_of(api_key),
            timeout=timeout,
            refresh_margin=refresh_margin,
            http_client=http_client,
            headers=headers,
        )
        #: The `/v1` paths (camelCase), and what only v1 has.
        self.v1 = V1(self._session)
        #: The `/v2` paths (snake_case).
        self.v2 = V2(self._session)

    @classmethod
    def from_env(cls, prefix: str = "MOMO_", **kwargs: Any) -> MomoClient:
        """A client from `{prefix}BASE_URL`, `{prefix}API_KEY`, `{prefix}API_SECRET` and, when
        set, `{prefix}ENVIRONMENT`."""
        env = os.environ
        environment = kwargs.pop("environment", None) or env.get(f"{prefix}ENVIRONMENT") or None
        if environment not in (None, "Sandbox", "Production"):
            raise ValueError(f"{prefix}ENVIRONMENT must be Sandbox or Production, not {environment!r}")
        return cls(
            env[f"{prefix}BASE_URL"],
            env[f"{prefix}API_KEY"],
            env[f"{prefix}API_SECRET"],
            environment=cast("Environment | None", environment),
            **kwargs,
        )

    @property
    def environment(self) -> Environment:
        return self._session.environment

    def token(self) -> str:
        """The bearer token the next call sends (taken or refreshed if needed)."""
        return self._session.token()

    def authenticate(self) -> V1TokenData:
        """A new token now, whatever the current one's age: `{"token", "exp"}`."""
        return self._session.authenticate()

    def close(self) -> None:
        self._session.close()

    def __enter__(self) -> MomoClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
