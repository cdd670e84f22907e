// A tiny stand-in for the gateway, for the unit tests: routes are functions of the request.
import { createServer } from "node:http";

export async function fakeGateway(routes) {
  const calls = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url, "http://x");
      const call = { method: req.method, path: url.pathname, query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      calls.push(call);
      const route = routes[`${req.method} ${url.pathname}`];
      const answer = route ? route(call, calls) : { status: 404, json: { statusCode: 404, message: "NotFoundError", reason: "no route" } };
      const headers = { "x-request-id": answer.requestId ?? `req-${calls.length}`, ...(answer.headers ?? {}) };
      if (answer.json !== undefined) {
        headers["content-type"] = "application/json";
        res.writeHead(answer.status ?? 200, headers).end(JSON.stringify(answer.json));
      } else {
        res.writeHead(answer.status ?? 200, headers).end(answer.text ?? "");
      }
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    calls,
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(resolve); }),
  };
}

/** A /v1/auth route handing out t1, t2, … each valid `lifetimeS` seconds. */
export function authRoute(lifetimeS = 600) {
  let n = 0;
  return () => {
    n++;
    const exp = Math.floor(Date.now() / 1000) + lifetimeS;
    const token = `t${n}`;
    return { json: { statusCode: 200, message: "Successful", data: { token, exp }, token, exp } };
  };
}

export const ok = (data, extra = {}) => ({ json: { statusCode: 200, message: "Successful", data }, ...extra });
