// The JS half of src/wasm/identity.rs: the known id of each message of an array, read from the
// Compactor's WeakMap in one pass.
let buffer = new Uint32Array(1024);
export function identify(map, messages) {
  const n = messages.length;
  if (buffer.length < n) buffer = new Uint32Array(Math.max(n, buffer.length * 2));
  for (let i = 0; i < n; i++) {
    const m = messages[i];
    const id = m !== null && typeof m === "object" ? map.get(m) : undefined;
    buffer[i] = id === undefined ? 0 : id;
  }
  return buffer;
}
