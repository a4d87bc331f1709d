#!/usr/bin/env node
/**
 * The largest hand-written functions and files (issue 19): `node scripts/largest-functions.mjs
 * [count] [folder...]`, by default the 5 largest of generator/, runtime/ and cli/. A function's
 * size is the lines of its body, from the line of its opening brace (or of its expression, for
 * an arrow) to the line of its end; generated/ and test/ are not looked at.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const [countArg, ...folderArgs] = process.argv.slice(2);
const count = Number(countArg ?? 5);
const folders = folderArgs.length ? folderArgs : ["generator", "runtime", "cli"];
const root = process.cwd();

/** The .ts files under a folder, leaving out generated output and declaration files. */
function sources(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "generated" || name === "node_modules" ? [] : sources(path);
    return path.endsWith(".ts") && !path.endsWith(".d.ts") ? [path] : [];
  });
}

/** What to call a function: its own name, or the name it is assigned to, with the class it is in. */
function nameOf(node) {
  const own = node.name && ts.isIdentifier(node.name) ? node.name.text : node.name?.getText();
  if (ts.isConstructorDeclaration(node)) return `${node.parent.name?.text ?? "class"}.constructor`;
  if (own) return ts.isClassLike(node.parent) && node.parent.name ? `${node.parent.name.text}.${own}` : own;
  const parent = node.parent;
  if (
    (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) &&
    parent.name
  )
    return parent.name.getText();
  return "(anonymous)";
}

const functions = [];
const files = [];
for (const file of folders.flatMap((folder) => sources(join(root, folder)))) {
  const text = readFileSync(file, "utf8");
  const path = relative(root, file);
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const lineOf = (position) => source.getLineAndCharacterOfPosition(position).line;
  files.push({ path, lines: lineOf(text.length) + (text.endsWith("\n") ? 0 : 1) });
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body) {
      const lines = lineOf(node.body.getEnd()) - lineOf(node.body.getStart(source)) + 1;
      functions.push({ where: `${path}:${lineOf(node.getStart(source)) + 1}`, name: nameOf(node), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

const largest = (rows) => rows.sort((a, b) => b.lines - a.lines).slice(0, count);
console.log(`${count} largest functions (body lines):`);
for (const f of largest(functions)) console.log(`  ${String(f.lines).padStart(5)}  ${f.name}  ${f.where}`);
console.log(`${count} largest files (lines):`);
for (const f of largest(files)) console.log(`  ${String(f.lines).padStart(5)}  ${f.path}`);
