"use strict";
/** Every failure of the package is a CompactionError with a stable `code`. */
class CompactionError extends Error {
  constructor(message, code, path, cause) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "CompactionError";
    this.code = code;
    if (path !== undefined) this.path = path;
  }
}
exports.CompactionError = CompactionError;
