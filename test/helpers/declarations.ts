import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { compile, type CompileResult } from "../../generator/pipeline.ts";

/** Folders made for the test file that imports this module, removed when it is done. */
const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Writes declarations (objects or raw text) into a fresh folder and compiles it. */
export function compileDeclarations(
  decls: readonly (object | string)[],
  options: { core?: boolean } = {},
): CompileResult & { dir: string } {
  const dir = mkdtempSync(join(tmpdir(), "aps-gen-decl-"));
  made.push(dir);
  mkdirSync(join(dir, "pkg"));
  for (const [i, d] of decls.entries())
    writeFileSync(join(dir, "pkg", `t${i}.schema`), typeof d === "string" ? d : JSON.stringify(d, null, 2));
  return { ...compile(["pkg"], { cwd: dir, includeCore: options.core ?? true }), dir };
}

/** A minimal valid declaration with the given id suffix and extra members. */
export function decl(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apsVersion: "2.0", name, id: `http://t.example/${name}/1.0`, ...extra };
}

/** The type id `decl(name)` gets. */
export const idOf = (name: string) => `http://t.example/${name}/1.0`;

/** Core ids used by tests. */
export const RESOURCE = "http://aps-standard.org/types/core/resource/1.0";
