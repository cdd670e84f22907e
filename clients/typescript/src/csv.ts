// Payout batches from a spreadsheet: the CSV the dashboard and `momo-gateway payouts batch`
// read (docs/payouts.md), turned into the items of a JSON batch. The API's payout-batch
// endpoints take JSON only, so the file is read here and sent as JSON; each line becomes one
// item, so a line the gateway refuses is refused alone, as `items[i]` (line i + 2 of the file).

import { MomoError } from "./errors.js";
import type { TransferV1Input, TransferV2Input } from "./types.js";

/** One transfer line of a payout CSV. */
export interface PayoutCsvRow {
  transaction_id: string;
  operator: string;
  phone: string;
  amount: string;
  last_name: string;
  first_name: string;
  email?: string;
  check_recipient?: string;
  /** The line of the file it came from (the header is line 1). */
  line: number;
}

const REQUIRED = ["transaction_id", "operator", "phone", "amount", "last_name", "first_name"] as const;
const OPTIONAL = ["email", "check_recipient"] as const;
const MAX_ROWS = 5000;

/** A CSV document that cannot be a payout batch (wrong header, no transfer, too many, bad quoting). */
export class PayoutCsvError extends MomoError {}

/** Reads a payout CSV (RFC 4180; UTF-8, a byte order mark allowed): a header, then one transfer per line. */
export function parsePayoutCsv(text: string): PayoutCsvRow[] {
  const records = parseCsv(text.replace(/^\uFEFF/, ""));
  while (records.length > 0 && isBlank(records[records.length - 1]!.fields)) records.pop();
  if (records.length === 0) throw new PayoutCsvError("payout CSV: empty document, a header is required");
  const header = records[0]!.fields.map((h) => h.trim().toLowerCase());
  const known = new Set<string>([...REQUIRED, ...OPTIONAL]);
  const unknown = header.filter((h) => !known.has(h));
  if (unknown.length > 0) {
    throw new PayoutCsvError(`payout CSV: unknown column ${unknown.map((u) => JSON.stringify(u)).join(", ")}`);
  }
  const missing = REQUIRED.filter((r) => !header.includes(r));
  if (missing.length > 0) throw new PayoutCsvError(`payout CSV: missing column ${missing.join(", ")}`);
  const twice = header.find((h, i) => header.indexOf(h) !== i);
  if (twice) throw new PayoutCsvError(`payout CSV: column ${twice} appears twice`);

  const rows: PayoutCsvRow[] = [];
  for (const record of records.slice(1)) {
    if (isBlank(record.fields)) continue;
    const row: Record<string, string | number> = { line: record.line };
    header.forEach((name, i) => {
      row[name] = (record.fields[i] ?? "").trim();
    });
    rows.push(row as unknown as PayoutCsvRow);
  }
  if (rows.length === 0) throw new PayoutCsvError("payout CSV: no transfer after the header");
  if (rows.length > MAX_ROWS) {
    throw new PayoutCsvError(`payout CSV: ${rows.length} transfers, at most ${MAX_ROWS} in one batch`);
  }
  return rows;
}

/** The lines of a payout CSV as v1 transfer bodies. */
export function payoutCsvToV1Items(text: string): TransferV1Input[] {
  return parsePayoutCsv(text).map((row) => {
    const item: TransferV1Input = {
      transactionId: row.transaction_id,
      customer: {
        firstName: row.first_name,
        lastName: row.last_name,
        phone: row.phone,
        ...(row.email ? { email: row.email } : {}),
        address: { countryCode: "CI" },
      },
      recipient: row.phone,
      currency: "XOF",
      amount: row.amount,
      operator: row.operator,
    };
    const check = checkRecipient(row.check_recipient);
    if (check !== undefined) (item as Record<string, unknown>).checkRecipient = check;
    return item;
  });
}

/** The lines of a payout CSV as v2 transfer bodies. */
export function payoutCsvToV2Items(text: string): TransferV2Input[] {
  return parsePayoutCsv(text).map((row) => {
    const item: TransferV2Input = {
      code_country: "CI",
      currency: "XOF",
      customer_id: row.phone,
      name: `${row.first_name} ${row.last_name}`.trim(),
      amount: row.amount,
      operator: row.operator,
      transaction_id: row.transaction_id,
      ...(row.email ? { email: row.email } : {}),
    };
    const check = checkRecipient(row.check_recipient);
    if (check !== undefined) (item as Record<string, unknown>).check_recipient = check;
    return item;
  });
}

/** `true`, `false` or empty; anything else is passed on for the gateway to refuse that line. */
function checkRecipient(value: string | undefined): boolean | string | undefined {
  if (value === undefined || value === "") return undefined;
  const v = value.toLowerCase();
  if (v === "true") return true;
  if (v === "false") return false;
  return value;
}

function isBlank(fields: string[]): boolean {
  return fields.every((f) => f.trim() === "");
}

interface CsvRecord {
  fields: string[];
  line: number;
}

/** RFC 4180: fields separated by commas, records by CRLF or LF, `"` quotes with `""` inside. */
export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = "";
  let line = 1;
  let start = 1;
  let i = 0;
  let quoted = false;
  let wasQuoted = false;
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      if (c === "\n") line++;
      field += c;
      i++;
      continue;
    }
    if (c === '"') {
      if (field !== "" || wasQuoted) throw new PayoutCsvError(`payout CSV: stray quote on line ${line}`);
      quoted = true;
      wasQuoted = true;
      i++;
      continue;
    }
    if (c === ",") {
      fields.push(field);
      field = "";
      wasQuoted = false;
      i++;
      continue;
    }
    if (c === "\r" || c === "\n") {
      fields.push(field);
      records.push({ fields, line: start });
      fields = [];
      field = "";
      wasQuoted = false;
      i += c === "\r" && text[i + 1] === "\n" ? 2 : 1;
      line++;
      start = line;
      continue;
    }
    if (wasQuoted) throw new PayoutCsvError(`payout CSV: text after a closing quote on line ${line}`);
    field += c;
    i++;
  }
  if (quoted) throw new PayoutCsvError(`payout CSV: a quote opened on line ${start} is never closed`);
  if (field !== "" || fields.length > 0 || wasQuoted) {
    fields.push(field);
    records.push({ fields, line: start });
  }
  return records;
}
