// Fetch JSON, cancelling the previous request: a newer slider value wins.
//
// Requests ask for the compact encoding (app/web/responses.py): the same document with large
// float64 arrays sent as base64 bytes instead of decimal text,
// which the browser decodes far faster than JSON.parse reads digits.  decodeCompact() turns those arrays back into the nested
// arrays plain JSON would have given (null where JSON has null), bit for bit the same numbers,
// so pages never see the difference.  Endpoints that do not offer it answer plain JSON.

export const COMPACT_TYPE = "application/vnd.pe-explorer.compact+json";
const ACCEPT = `${COMPACT_TYPE}, application/json;q=0.9`;

function base64Bytes(text) {
  if (typeof Uint8Array.fromBase64 === "function") return Uint8Array.fromBase64(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function nested(values, shape, offset, depth) {
  if (shape.length === 0) return Number.isFinite(values[offset]) ? values[offset] : null;
  const size = shape[depth];
  const out = new Array(size);
  if (depth === shape.length - 1) {
    for (let i = 0; i < size; i++) {
      const value = values[offset + i];
      out[i] = Number.isFinite(value) ? value : null; // as JSON: NaN and ±inf are null
    }
    return out;
  }
  let stride = 1;
  for (let d = depth + 1; d < shape.length; d++) stride *= shape[d];
  for (let i = 0; i < size; i++) out[i] = nested(values, shape, offset + i * stride, depth + 1);
  return out;
}

function isTypedArray(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value) && value.dtype === "f8" &&
    typeof value.bdata === "string" && Array.isArray(value.shape);
}

function rawBytes(node) {
  return base64Bytes(node.bdata);
}

function asFloat64(bytes) {
  return new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8);
}

function toeplitz(diagonals, size) {
  // diagonals[size − 1 + o] is the value on diagonal o = column − row (app/web/responses.py).
  const rows = new Array(size);
  for (let m = 0; m < size; m++) rows[m] = nested(diagonals, [size], size - 1 - m, 0);
  return rows;
}

function walk(value) {
  if (value === null || typeof value !== "object") return value;
  if (isTypedArray(value) && value.layout === "toeplitz") return toeplitz(asFloat64(rawBytes(value)), value.shape[0]);
  if (isTypedArray(value)) return nested(asFloat64(rawBytes(value)), value.shape, 0, 0);
  if (Array.isArray(value)) return value.map(walk);
  const out = {};
  for (const [key, item] of Object.entries(value)) out[key] = walk(item);
  return out;
}

/** Replace every {dtype: "f8", bdata, shape[, layout]} in a compact document by nested arrays. */
export function decodeCompact(value) {
  return walk(value);
}

async function readBody(response) {
  const compact = (response.headers.get("content-type") || "").startsWith(COMPACT_TYPE);
  const body = await response.json();
  return compact ? decodeCompact(body) : body;
}

// Decoded answers of recent requests, newest last: a page returns to a view it showed (a slider
// moved back) or one fetched ahead (prefetch) without a round trip and without decoding again.
// Bodies are kept by URL; the server's answers are pure functions of their URLs.
const KEPT = 48;
const answers = new Map(); // url → {ok, status, body}
const inFlight = new Map(); // url → Promise<{ok, status, body} | null>

function keep(url, result) {
  if (!result || !result.ok) return;
  answers.delete(url);
  answers.set(url, result);
  while (answers.size > KEPT) answers.delete(answers.keys().next().value);
}

/** The decoded answer for `url` if one is at hand, else null. */
export function cachedBody(url) {
  const result = answers.get(url);
  if (!result) return null;
  answers.delete(url);
  answers.set(url, result);
  return result;
}

async function load(url, signal, priority = "high") {
  try {
    const response = await fetch(url, { signal, priority, headers: { Accept: ACCEPT } });
    const body = await readBody(response).catch((error) => {
      if (error.name === "AbortError") throw error;
      return { detail: `HTTP ${response.status}` };
    });
    return signal?.aborted ? null : { ok: response.ok, status: response.status, body };
  } catch (error) {
    if (error.name === "AbortError") return null;
    return { ok: false, status: 0, body: { detail: "The server could not be reached." } };
  }
}

/** Fetch `url` at low priority and keep its answer, unless it is at hand or on its way. */
export function prefetch(url) {
  if (answers.has(url) || inFlight.has(url)) return;
  const promise = load(url, undefined, "low").then((result) => {
    inFlight.delete(url);
    keep(url, result);
    return result;
  });
  inFlight.set(url, promise);
}

export class LatestRequest {
  constructor() {
    this.controller = null;
  }

  /** Resolves to {ok, status, body}; resolves to null when superseded by a newer call. */
  async get(url) {
    if (this.controller) this.controller.abort();
    const controller = new AbortController();
    this.controller = controller;
    try {
      const ahead = inFlight.get(url);
      const result = ahead ? await ahead : await load(url, controller.signal);
      if (controller.signal.aborted) return null;
      keep(url, result);
      return result;
    } finally {
      if (this.controller === controller) this.controller = null;
    }
  }
}
