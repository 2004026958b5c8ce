// Node ES module entry: the same instance as the CommonJS entry.
export * from "./node.cjs";
