// Payments: the token, collections (both generations, both v2 shapes), status, transfers, refunds,
// idempotency and typed errors.

import { randomUUID } from "node:crypto";

import { MomoApiError, MomoForbiddenError, MomoNotFoundError, MomoUnprocessableError } from "../../dist/esm/index.js";

import { check, describe, expect } from "./harness.mjs";

export async function token(flow) {
  const { client } = flow;

  await check("token", async () => {
    const token = await client.getToken();
    expect(typeof token.token === "string" && token.token.split(".").length === 3, "a JWT bearer token", token);
    const left = (token.expiresAt.getTime() - Date.now()) / 1000;
    expect(left > 500 && left <= 610, `the token lasts about 600 s (${left.toFixed(0)} s left)`);
    const again = await client.getToken();
    expect(again.token === token.token, "the token is kept and reused while it is fresh");
    return { environment: token.environment, expiresInS: Math.round(left) };
  });
}

// Sets flow.collectionV1 and flow.collectionV2, which the checks after use.
export async function payments(flow) {
  const { client, id, payer } = flow;

  // Collections ------------------------------------------------------------

  let collectionV1;
  await check("collection_v1", async () => {
    const r = await client.v1.collect({
      transactionId: id("c1"),
      customer: payer,
      payer: "0701020301",
      amount: "1500",
      operator: "GAMMA_MONEY_CI",
    });
    collectionV1 = r.data;
    expect(r.status === 200 && r.data.status === "SUCCESSFUL", "a payer ending 01 pays at once (200 SUCCESSFUL)", r.envelope);
    expect(r.data.fees === "30" && r.data.amountReceive === "1470", "fees 200 bp come out of what is received", r.data);
    expect(typeof r.requestId === "string" && r.requestId.length > 0, "X-Request-Id is given back");
    return { ref: r.data.ref, transactionId: r.data.transactionId, status: r.data.status, requestId: r.requestId };
  });

  let collectionV2;
  await check("collection_v2", async () => {
    const r = await client.v2.collect({
      transaction_id: id("c2"),
      customer_id: "0501020301",
      name_user: "Koffi Yao",
      amount: 2000,
      operator: "ALPHA_MONEY_CI",
      code_otp: "4321",
    });
    collectionV2 = r.data;
    expect(r.status === 200 && r.envelope.status === "SUCCESS", "200 in the v2 envelope", r.envelope);
    expect(["SUCCESSFUL", "SUCCESSFULL"].includes(r.data.status), "SUCCESSFUL(L) at once", r.data);
    expect(r.data.type_payment === "ALPHA_MONEY_CI" && r.data.amount_receive === "1960", "v2 fields", r.data);
    return { ref: r.data.ref, transaction_id: r.data.transaction_id, status: r.data.status, message: r.envelope.message };
  });

  await check("collection_v2_shape_b", async () => {
    const r = await client.v2.collect({
      transactionId: id("cb"),
      customer: { phone: "0101020301", name: "Aya Traoré", email: null },
      amount: "1000",
      operator: "DELTA_MONEY_CI",
    });
    expect(["SUCCESSFUL", "SUCCESSFULL"].includes(r.data.status), "shape B collects too", r.data);
    return { ref: r.data.ref, status: r.data.status };
  });

  // Status -----------------------------------------------------------------

  await check("status", async () => {
    const v1 = await client.v1.status(collectionV1.transactionId);
    expect(v1.data.ref === collectionV1.ref && v1.data.status === "SUCCESSFUL", "v1 path, by transaction id", v1.data);
    expect(v1.envelope.code_status === 200, "a status lookup succeeds in the v2 envelope, even on /v1", v1.envelope);
    const v2 = await client.v2.status(collectionV2.ref);
    expect(v2.data.transaction_id === collectionV2.transaction_id, "v2 path, by ref", v2.data);
    const byPath = await client.v1.transactions.get(collectionV1.ref);
    expect(byPath.data.transaction_id === collectionV1.transactionId, "GET /v1/transaction/{ref}", byPath.data);
    return { v1: v1.data.status, v2: v2.data.status, v1Message: v1.envelope.message };
  });

  // Transfers --------------------------------------------------------------

  await check("transfer_v1", async () => {
    const r = await client.v1.transfer({
      transactionId: id("t1"),
      customer: { firstName: "Koffi", lastName: "Yao", phone: "0701020401", address: { countryCode: "CI" } },
      recipient: "0701020401",
      amount: "10000",
      operator: "GAMMA_MONEY_CI",
      checkRecipient: true,
    });
    expect(r.status === 200 && r.data.status === "SUCCESSFUL", "a recipient ending 01 is paid at once", r.data);
    expect(r.data.amountTotal === "10100", "fees 100 bp are added to what is paid", r.data);
    return { ref: r.data.ref, status: r.data.status, amountTotal: r.data.amountTotal };
  });

  await check("transfer_v2", async () => {
    const r = await client.v2.transfer({
      transaction_id: id("t2"),
      customer_id: "0501020501",
      name: "Aya Traoré",
      amount: 5000,
      operator: "ALPHA_MONEY_CI",
    });
    expect(["SUCCESSFUL", "SUCCESSFULL"].includes(r.data.status), "paid at once", r.data);
    expect(r.data.type_transaction === "transfert", "v2 spells it transfert", r.data);
    return { ref: r.data.ref, status: r.data.status };
  });

  // Refunds ----------------------------------------------------------------

  await check("refund_v1", async () => {
    const r = await client.v1.refund({
      transactionId: id("r1"),
      collection: collectionV1.ref,
      amount: "500",
      reason: "one item out of stock",
    });
    expect(r.data.typeTransaction === "refund" && r.data.refundOf === collectionV1.ref, "a refund of the collection", r.data);
    expect(r.data.status === "SUCCESSFUL", "the payer ending 01 is refunded at once", r.data);
    expect(r.data.reason === "one item out of stock", "the reason is kept", r.data);
    const after = await client.v1.status(collectionV1.ref);
    expect(after.data.amount_refunded === "500", "the collection shows what is given back", after.data);
    return { ref: r.data.ref, status: r.data.status, amountRefunded: after.data.amount_refunded };
  });

  await check("refund_v2", async () => {
    const r = await client.v2.refund({ transaction_id: id("r2"), collection_id: collectionV2.transaction_id });
    expect(r.data.type_transaction === "refund" && r.data.refund_of === collectionV2.ref, "a refund in v2", r.data);
    expect(r.data.amount === collectionV2.amount, "left out, the amount is all that remains", r.data);
    return { ref: r.data.ref, status: r.data.status, amount: r.data.amount };
  });

  // Idempotency ------------------------------------------------------------

  await check("idempotency", async () => {
    const key = randomUUID();
    const body = {
      transactionId: id("ik"),
      customer: payer,
      payer: "0701020301",
      amount: 1200,
      operator: "GAMMA_MONEY_CI",
    };
    const first = await client.v1.collect(body, { idempotencyKey: key });
    const second = await client.v1.collect(body, { idempotencyKey: key });
    expect(!first.replayed, "the first answer is no replay");
    expect(second.replayed, "the same write with the same key is marked Idempotent-Replayed: true", second.headers);
    expect(JSON.stringify(second.envelope) === JSON.stringify(first.envelope), "the replay is the first answer", {
      first: first.envelope,
      second: second.envelope,
    });
    let reused;
    try {
      await client.v1.collect({ ...body, amount: 1300 }, { idempotencyKey: key });
    } catch (e) {
      reused = e;
    }
    expect(reused instanceof MomoUnprocessableError && reused.code === "IdempotencyKeyReusedError", "another body with the key: 422", describe(reused));
    return { ref: first.data.ref, replayed: second.replayed, reuse: reused.code };
  });

  // Typed errors -----------------------------------------------------------

  await check("error_typed", async () => {
    let v1;
    try {
      await client.v1.status(id("nope"));
    } catch (e) {
      v1 = e;
    }
    expect(v1 instanceof MomoNotFoundError && v1 instanceof MomoApiError, "an unknown id throws MomoNotFoundError", describe(v1));
    expect(v1.status === 404 && v1.kind === "not_found" && v1.generation === "v1", "404 in the v1 envelope", describe(v1));
    expect(v1.code === "NotFoundError" && typeof v1.reason === "string", "the envelope's message and reason", v1.envelope);
    expect(typeof v1.requestId === "string" && v1.requestId.length > 0, "the X-Request-Id is carried", describe(v1));

    let v2;
    try {
      await client.v2.status(id("nope"));
    } catch (e) {
      v2 = e;
    }
    expect(v2 instanceof MomoNotFoundError && v2.generation === "v2", "v2: 404 in the v2 envelope", describe(v2));
    expect(v2.code === "TRANSACTION_NOT_FOUND" && v2.envelope.status === "ERROR", "v2 error envelope", v2.envelope);

    let range;
    try {
      await client.v2.collect({ transaction_id: id("low"), customer_id: "0701020301", amount: 50, operator: "GAMMA_MONEY_CI" });
    } catch (e) {
      range = e;
    }
    expect(range instanceof MomoForbiddenError && range.code === "AMOUNT_OUT_OF_RANGE", "an amount under 100: 403", describe(range));
    return { status: v1.status, code: v1.code, requestId: v1.requestId, v2Code: v2.code, forbidden: range.code };
  });

  flow.collectionV1 = collectionV1;
  flow.collectionV2 = collectionV2;
}
