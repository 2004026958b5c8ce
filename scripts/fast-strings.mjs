// Rewrites how wasm-bindgen's glue (pkg/node and pkg/web) passes a long JS string into wasm. The
// generated `passStringToWasm0` copies the leading ASCII characters one `charCodeAt` at a time
// (about 4 ms per megabyte here, 50 times the engine's `TextEncoder.encodeInto`), which is most of
// the cost of handing a session file or a long text to the package. Strings from 128 characters
// on are written by `encodeInto` directly: into `length` bytes first (enough for ASCII), then, if
// it does not all fit, the rest into room for three bytes per UTF-16 unit, as the glue's own
// non-ASCII path does. The bytes are the same (`encodeInto` is what the glue uses past the first
// non-ASCII character; lone surrogates become U+FFFD either way). Fails when the glue does not
// have the expected shape (a new wasm-bindgen version), so the build never ships it unpatched.
import fs from "node:fs";

const HEAD = "function passStringToWasm0(arg, malloc, realloc) {\n    if (realloc === undefined) {";
const LONG = `function passStringToWasm0(arg, malloc, realloc) {
    if (realloc !== undefined && arg.length >= 128) return passLongStringToWasm(arg, malloc, realloc);
    if (realloc === undefined) {`;
const HELPER = `
function passLongStringToWasm(arg, malloc, realloc) {
    let len = arg.length;
    let ptr = malloc(len, 1) >>> 0;
    let { read, written } = cachedTextEncoder.encodeInto(arg, getUint8ArrayMemory0().subarray(ptr, ptr + len));
    if (read < arg.length) {
        const rest = arg.slice(read);
        const size = written + rest.length * 3;
        ptr = realloc(ptr, len, size, 1) >>> 0;
        len = size;
        written += cachedTextEncoder.encodeInto(rest, getUint8ArrayMemory0().subarray(ptr + written, ptr + len)).written;
        ptr = realloc(ptr, len, written, 1) >>> 0;
    }
    WASM_VECTOR_LEN = written;
    return ptr;
}
`;

for (const file of process.argv.slice(2)) {
  const glue = fs.readFileSync(file, "utf8");
  if (glue.split(HEAD).length !== 2 || !glue.includes("const cachedTextEncoder = new TextEncoder();") || !glue.includes("let WASM_VECTOR_LEN = 0;")) {
    console.error(`fast-strings: ${file} does not have the expected passStringToWasm0`);
    process.exit(1);
  }
  fs.writeFileSync(file, glue.replace(HEAD, LONG) + HELPER);
}
