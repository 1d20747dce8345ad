/**
 * Replies read the same way in RESP2 and RESP3. The transport asks node-redis for Buffers
 * (blob strings) and Maps (RESP3 maps), so names and values keep their bytes.
 */

import { ErrorReply } from 'redis';

export function text(value: unknown): string {
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null || value === undefined) return '';
  throw new TypeError(`not a text reply: ${describe(value)}`);
}

export function describe(value: unknown): string {
  if (Buffer.isBuffer(value)) return JSON.stringify(value.toString('utf8'));
  if (value instanceof Error) return value.message;
  if (value === undefined) return 'undefined';
  try {
    return JSON.stringify(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** An integer reply (RESP3 booleans count as 1 / 0). */
export function integer(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'bigint') return Number(value);
  const parsed = Number(text(value));
  if (!Number.isFinite(parsed)) throw new TypeError(`not an integer reply: ${describe(value)}`);
  return parsed;
}

/** 1 / 0 in RESP2, true / false in RESP3. */
export function boolean(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  return integer(value) === 1;
}

/** A number when the text reads as one, else the text (INFO values, description fields). */
export function number(value: unknown): number | string {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  const s = text(value);
  if (s.trim() !== '' && Number.isFinite(Number(s))) return Number(s);
  return s;
}

function pairs(reply: unknown): [unknown, unknown][] {
  if (reply instanceof Map) return [...(reply as Map<unknown, unknown>).entries()];
  if (Array.isArray(reply)) {
    const out: [unknown, unknown][] = [];
    for (let i = 0; i + 1 < reply.length; i += 2) out.push([reply[i], reply[i + 1]]);
    return out;
  }
  if (reply !== null && typeof reply === 'object' && !Buffer.isBuffer(reply)) {
    return Object.entries(reply as Record<string, unknown>);
  }
  throw new TypeError(`not a map reply: ${describe(reply)}`);
}

/** BF.INFO / CF.INFO (a flat array in RESP2, a map in RESP3): names to numbers or text. */
export function info(reply: unknown): Record<string, number | string> {
  const out: Record<string, number | string> = {};
  for (const [k, v] of pairs(reply)) out[text(k)] = number(v);
  return out;
}

/** HGETALL as text fields (an array in RESP2, a map in RESP3). */
export function hashFields(reply: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (reply === null || reply === undefined) return out;
  for (const [k, v] of pairs(reply)) out[text(k)] = text(v);
  return out;
}

/** A server's error reply (also inside arrays); node-redis' own errors are not. */
export function isErrorReply(value: unknown): value is ErrorReply {
  return value instanceof ErrorReply;
}

/** The same test without narrowing (ErrorReply is structurally an Error). */
export function fromServer(e: Error): boolean {
  return e instanceof ErrorReply;
}

/** An array reply (RESP2 and RESP3 alike). */
export function array(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  throw new TypeError(`not an array reply: ${describe(value)}`);
}
