// Rank tables for exact counting: where they are by default, and how a caller-given source
// (bytes, URL, or a fetch-like function) becomes bytes. Shared by every entry point.

/** The default location of a rank table, beside the package's `js/` folder. */
export function tableUrl(name) {
  // One literal `new URL(..., import.meta.url)` per file, so bundlers emit the tables as assets.
  switch (name) {
    case "o200k_base":
      return new URL("../encodings/o200k_base.ranks", import.meta.url);
    case "cl100k_base":
      return new URL("../encodings/cl100k_base.ranks", import.meta.url);
    default:
      return undefined;
  }
}

async function toBytes(value, fail) {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (typeof value === "string") return new TextEncoder().encode(value);
  if (value && typeof value.arrayBuffer === "function") {
    if (value.ok === false) throw fail(`fetching the rank table failed with HTTP ${value.status}`);
    return new Uint8Array(await value.arrayBuffer());
  }
  throw fail("the rank table source gave neither bytes, text nor a Response");
}

/**
 * Reads a rank table. `source`: bytes (Uint8Array, ArrayBuffer), a URL (URL or string), or a
 * function called with the default URL that returns (a promise of) a Response, bytes or the text.
 */
export async function readSource(source, defaultUrl, CompactionError, fromUrl) {
  const unavailable = (message, cause) =>
    new CompactionError(message, "ENCODING_UNAVAILABLE", undefined, cause);
  try {
    if (source === undefined) return await toBytes(await fromUrl(defaultUrl), unavailable);
    if (source instanceof Uint8Array || source instanceof ArrayBuffer) return toBytes(source);
    if (typeof source === "string" || source instanceof URL) {
      return await toBytes(await fromUrl(new URL(source, defaultUrl)), unavailable);
    }
    if (typeof source === "function") return await toBytes(await source(defaultUrl), unavailable);
  } catch (error) {
    if (error instanceof CompactionError) throw error;
    throw unavailable(`the rank table could not be read: ${error?.message ?? error}`, error);
  }
  throw new CompactionError(
    "source must be bytes, a URL or a function returning a Response, bytes or text",
    "INVALID_INPUT",
    "source",
  );
}

/**
 * `loadEncoding(encoding, source?)` bound to one build of the wasm module; `fromUrl` reads a URL
 * (`fetch` by default; Node's entry also reads `file:` URLs). Installed tables are recorded in
 * `installed` (name → bytes).
 */
export function makeLoadEncoding(wasm, CompactionError, fromUrl = (url) => fetch(url), installed = new Map()) {
  return async function loadEncoding(encoding, source) {
    // Validates the name first (INVALID_INPUT for an unknown one).
    if (wasm.isEncodingLoaded(encoding) && source === undefined) return;
    const bytes = await readSource(source, tableUrl(encoding), CompactionError, fromUrl);
    wasm.__installEncoding(encoding, bytes);
    // Kept so that a reset instance (after a trap) gets the same tables back.
    installed.set(encoding, bytes);
  };
}
