// The flow's harness: one JSON line per check, the first failure stops the flow (exit code 1),
// and the helpers every area of the flow shares.

import { MomoApiError } from "../../dist/esm/index.js";

let checks = 0;
let server = null;

export function print(line) {
  process.stdout.write(JSON.stringify(line) + "\n");
}

export class FlowFailure extends Error {
  constructor(message, details) {
    super(message);
    this.details = details;
  }
}

export function expect(condition, message, details) {
  if (!condition) throw new FlowFailure(message, details);
}

export function describe(e) {
  if (e instanceof FlowFailure) return { message: e.message, ...(e.details === undefined ? {} : { details: e.details }) };
  if (e instanceof MomoApiError) {
    return {
      message: e.message,
      class: e.name,
      status: e.status,
      kind: e.kind,
      code: e.code,
      reason: e.reason,
      requestId: e.requestId,
    };
  }
  return { message: e instanceof Error ? e.message : String(e), class: e?.name, stack: e?.stack };
}

export async function check(name, fn) {
  let details;
  try {
    details = (await fn()) ?? {};
  } catch (e) {
    print({ check: name, ok: false, error: describe(e) });
    await stop();
    process.exit(1);
  }
  checks++;
  print({ check: name, ok: true, ...details });
}

/** How many checks passed so far. */
export function passed() {
  return checks;
}

export function env(name) {
  const value = process.env[name];
  if (!value) {
    print({ check: "environment", ok: false, error: { message: `${name} is not set` } });
    process.exit(1);
  }
  return value;
}

/** The webhook receiver's server (see webhooks.mjs), closed by `stop()`, at the end or on a failure. */
export function holdServer(s) {
  server = s;
}

export async function stop() {
  if (!server) return;
  const s = server;
  server = null;
  s.closeAllConnections?.();
  await new Promise((resolve) => s.close(() => resolve()));
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns a truthy value, or fails after `ms`. */
export async function eventually(what, probe, ms = 15_000, every = 250) {
  const deadline = Date.now() + ms;
  let last;
  for (;;) {
    last = await probe();
    if (last) return last;
    if (Date.now() > deadline) throw new FlowFailure(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(every);
  }
}
