// The progress bar of compact: drawn on a terminal's stderr from onProgress({ done, total }),
// never on a pipe or file.

/** `{ start, onProgress, end }` for `stream`; `onProgress` is undefined when it is not a TTY. */
export function progressBar(stream = process.stderr, label = "summarizing") {
  if (!stream.isTTY) return { start() {}, onProgress: undefined, end() {} };
  let drawn = false;
  return {
    start() {
      stream.write(`\r${label} ...\x1b[K`);
      drawn = true;
    },
    onProgress({ done, total }) {
      const width = Math.max(10, Math.min(40, (stream.columns || 80) - label.length - 20));
      const filled = total > 0 ? Math.round((done / total) * width) : 0;
      stream.write(`\r${label} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total}\x1b[K`);
      drawn = true;
    },
    end() {
      if (drawn) stream.write("\r\x1b[K");
      drawn = false;
    },
  };
}
