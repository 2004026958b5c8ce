// Every declaration a user can reach in the published types carries JSDoc: exports, class members, and every option.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = fileURLToPath(new URL("../../", import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const isDeclaration = (file) => /\.d\.(ts|mts|cts)$/.test(file);

/** Every file under `dir`, recursively (relative to the package root). */
function walk(dir) {
  if (!existsSync(join(root, dir))) return [];
  return readdirSync(join(root, dir)).flatMap((name) => {
    const rel = `${dir}/${name}`;
    return statSync(join(root, rel)).isDirectory() ? walk(rel) : [rel];
  });
}

/** A "files" pattern as a regular expression (`**` any folders, `*` within one, `dir/` all under it). */
const globRegex = (pattern) =>
  new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*\*\//g, "\u0000").replace(/\*/g, "[^/]*").replace(/\u0000/g, "(?:.*/)?")}${pattern.endsWith("/") ? "" : "$"}`);

/** The declaration files `package.json` "files" ships (folders walked, `*` matched in one folder, `!` excluded). */
function shippedDeclarations() {
  const found = new Set();
  const excluded = manifest.files.filter((e) => e.startsWith("!")).map((e) => globRegex(e.slice(1)));
  for (const entry of manifest.files) {
    if (entry.startsWith("!")) continue;
    const pattern = entry.replace(/\/$/, "");
    if (!pattern.includes("*")) {
      const files = existsSync(join(root, pattern)) && statSync(join(root, pattern)).isDirectory() ? walk(pattern) : [pattern];
      for (const file of files) if (isDeclaration(file) && existsSync(join(root, file))) found.add(file);
      continue;
    }
    const slash = pattern.lastIndexOf("/");
    const dir = pattern.slice(0, slash);
    const name = new RegExp(`^${pattern.slice(slash + 1).replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")}$`);
    if (!existsSync(join(root, dir))) continue;
    for (const file of readdirSync(join(root, dir))) {
      if (name.test(file) && isDeclaration(file)) found.add(`${dir}/${file}`);
    }
  }
  return [...found].filter((file) => !excluded.some((r) => r.test(file))).sort();
}

/** The `types` paths of package.json "exports", at any depth. */
function exportedTypes(node = manifest.exports) {
  if (typeof node !== "object" || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === "types" && typeof value === "string" ? [value.replace(/^\.\//, "")] : exportedTypes(value));
}

const files = shippedDeclarations();

/** The text of the JSDoc comments directly attached to `node` (empty when it has none). */
function jsDocText(node) {
  const docs = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc);
  for (const doc of node.jsDoc ?? []) if (!docs.includes(doc)) docs.push(doc);
  return docs.map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? "").join("\n").trim();
}

const hasModifier = (node, kind) => (ts.canHaveModifiers(node) ? ts.getModifiers(node) ?? [] : []).some((m) => m.kind === kind);

/** A member's name as written: `foo`, `"ai-sdk"`, `[Symbol.dispose]`, `constructor`. */
function memberName(member, sourceFile) {
  if (ts.isConstructorDeclaration(member) || ts.isConstructSignatureDeclaration(member)) return "constructor";
  if (ts.isCallSignatureDeclaration(member)) return "(call)";
  if (ts.isIndexSignatureDeclaration(member)) return "[index]";
  return member.name ? member.name.getText(sourceFile) : "(anonymous)";
}

/** The type literals an option's type is made of (through unions, intersections, parentheses, arrays). */
function typeLiterals(type) {
  if (!type) return [];
  if (ts.isTypeLiteralNode(type)) return [type];
  if (ts.isUnionTypeNode(type) || ts.isIntersectionTypeNode(type)) return type.types.flatMap(typeLiterals);
  if (ts.isParenthesizedTypeNode(type)) return typeLiterals(type.type);
  if (ts.isArrayTypeNode(type)) return typeLiterals(type.elementType);
  return [];
}

/**
 * Every property and method of an options type, and of the object types nested in its properties
 * (`transcript: { toolOutputChars }` is reported as `CompactorOptions.transcript.toolOutputChars`).
 */
function checkOptionMembers(members, owner, sourceFile, missing) {
  for (const member of members) {
    if (!ts.isPropertySignature(member) && !ts.isMethodSignature(member)) continue;
    const name = `${owner}.${memberName(member, sourceFile)}`;
    if (!jsDocText(member)) missing.add(name);
    if (ts.isPropertySignature(member)) {
      for (const literal of typeLiterals(member.type)) checkOptionMembers(literal.members, name, sourceFile, missing);
    }
  }
}

/** The names of every declaration of `file` that should carry JSDoc and does not. */
function undocumented(file) {
  const text = readFileSync(join(root, file), "utf8");
  const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const missing = new Set();
  const seen = new Set();
  const first = (key) => !seen.has(key) && seen.add(key);

  for (const statement of sourceFile.statements) {
    if (!hasModifier(statement, ts.SyntaxKind.ExportKeyword)) continue;
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        const name = declaration.name.getText(sourceFile);
        if (!jsDocText(statement) && !jsDocText(declaration)) missing.add(name);
      }
      continue;
    }
    if (!statement.name) continue;
    const name = statement.name.getText(sourceFile);
    // Overloads: the first declaration carries the documentation of all of them.
    if (first(`${ts.SyntaxKind[statement.kind]} ${name}`) && !jsDocText(statement)) missing.add(name);

    if (ts.isClassDeclaration(statement)) {
      const members = new Set();
      for (const member of statement.members) {
        if (ts.isClassStaticBlockDeclaration(member) || ts.isSemicolonClassElement(member)) continue;
        const memberKey = memberName(member, sourceFile);
        if (hasModifier(member, ts.SyntaxKind.PrivateKeyword) || memberKey.startsWith("__")) continue;
        if (member.name && ts.isPrivateIdentifier(member.name)) continue;
        const key = `${hasModifier(member, ts.SyntaxKind.StaticKeyword) ? "static " : ""}${memberKey}`;
        if (members.has(key)) continue;
        members.add(key);
        if (!jsDocText(member)) missing.add(`${name}.${memberKey}`);
      }
    }
    if (ts.isInterfaceDeclaration(statement) && name.endsWith("Options")) {
      checkOptionMembers(statement.members, name, sourceFile, missing);
    }
    if (ts.isTypeAliasDeclaration(statement) && name.endsWith("Options")) {
      for (const literal of typeLiterals(statement.type)) checkOptionMembers(literal.members, name, sourceFile, missing);
    }
  }
  return [...missing].map((name) => `${file}: ${name}`);
}

test("the checked files are every declaration file the package ships", () => {
  for (const file of exportedTypes()) assert.ok(files.includes(file), `${file} (package.json exports) is not checked`);
  for (const file of ["pkg/types/esm/index.d.mts", "pkg/types/cjs/index.d.cts", "pkg/types/esm/web.d.mts", "pkg/types/esm/langchain.d.mts", "pkg/types/cjs/langchain.d.cts", "pkg/types/esm/types/options.d.mts", "pkg/types/cjs/types/session.d.cts"]) {
    assert.ok(files.includes(file), `${file} is missing: run scripts/build.sh first`);
  }
});

test("every exported declaration, class member and option has a JSDoc comment", () => {
  const missing = files.flatMap(undocumented);
  assert.deepEqual(missing, [], `declarations without JSDoc:\n${missing.join("\n")}`);
});

test("no declaration carries two stacked JSDoc comments, or internal wording", () => {
  const problems = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), "utf8");
    const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node) => {
      const docs = node.jsDoc ?? [];
      const where = `${relative(root, join(root, file))}:${sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line + 1}`;
      if (docs.length > 1) problems.push(`${where}: ${docs.length} JSDoc comments on one declaration`);
      for (const doc of docs) {
        const comment = doc.getText(sourceFile);
        if (/\bseed \d{3}\b/i.test(comment)) problems.push(`${where}: "seed NNN" in a JSDoc (name the preset or strategy)`);
        if (/\bstateless\b/i.test(comment)) problems.push(`${where}: "stateless" in a JSDoc`);
      }
      ts.forEachChild(node, visit);
    };
    visit(sourceFile);
  }
  assert.deepEqual(problems, [], problems.join("\n"));
});
