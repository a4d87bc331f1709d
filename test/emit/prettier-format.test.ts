import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import * as prettier from "prettier";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { synthesize } from "../../bench/build.bench.ts";
import { emitAll } from "../../generator/build.ts";
import { CodeWriter } from "../../generator/emit/core/code-writer.ts";
import { PRETTIER_OPTIONS } from "../../generator/emit/core/format-options.ts";
import { jsonLiteral } from "../../generator/emit/core/json-literal.ts";
import {
  arrow,
  call,
  object,
  writeElse,
  writeExpr,
  writeIf,
  writeList,
  type Expr,
} from "../../generator/emit/core/layout.ts";
import { compile } from "../../generator/pipeline.ts";
import { corpusAvailable, corpusRoot, corpusSkipReason, repoRoot } from "../helpers/paths.ts";

/**
 * The emitters write what Prettier prints (generator/emit/core/format-options.ts): formatting
 * any generated file with those options changes nothing. Checked on the examples (what
 * `aps-gen build --types types` writes), the golden fixture, the PHP fixtures, the corpus of
 * real packages where it is beside the checkout, and a synthetic package.
 */
async function unformatted(
  files: readonly { path: string; content: string }[],
  seen = new Set<string>(),
): Promise<string[]> {
  const problems: string[] = [];
  for (const f of files) {
    if (seen.has(f.content)) continue;
    seen.add(f.content);
    const formatted = await prettier.format(f.content, { ...PRETTIER_OPTIONS, filepath: f.path });
    if (formatted === f.content) continue;
    const a = f.content.split("\n");
    const b = formatted.split("\n");
    const line = a.findIndex((l, i) => l !== b[i]);
    problems.push(`${f.path}:${line + 1}\n  written:   ${a[line]}\n  prettier:  ${b[line]}`);
  }
  return problems;
}

/** What a build of `inputs` writes; `clean`: the inputs must check without errors. */
const emitted = (inputs: string[], cwd = repoRoot, clean = true) => {
  const { model, diagnostics } = compile(inputs, { cwd });
  if (clean) expect(diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  return emitAll(model);
};

describe("generated files are formatted as Prettier prints them", () => {
  it("the check finds a file Prettier would change", async () => {
    const file = { path: "types/x.gen.ts", content: "export const x = {a: 1};\n" };
    expect(await unformatted([file])).toHaveLength(1);
  });

  it("the examples (types/: core and examples)", async () => {
    const files = emitted(["types"]);
    // Every emitter's files, whatever their number (one module per package for most).
    expect(new Set(files.map((f) => f.path.slice(0, f.path.indexOf("/"))))).toEqual(
      new Set(["types", "validators", "client", "connector", "openapi"]),
    );
    expect(await unformatted(files)).toEqual([]);
  }, 120_000);

  it("the golden fixture and the PHP fixtures", async () => {
    const seen = new Set<string>();
    // spaced-names declares no application root (an error the fixture is about); its types are still emitted.
    for (const inputs of [
      ["test/fixtures/emit/golden"],
      ["test/fixtures/php/full"],
      ["test/fixtures/php/mailhost"],
      ["test/fixtures/php/spaced-names"],
    ]) {
      expect(
        await unformatted(emitted(inputs, repoRoot, inputs[0] !== "test/fixtures/php/spaced-names"), seen),
      ).toEqual([]);
    }
  }, 120_000);

  it(`the corpus of real APS packages${corpusSkipReason}`, async (ctx) => {
    if (!corpusAvailable) ctx.skip();
    const packages = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? packages(join(dir, e.name)) : e.name === "APP-META.xml" ? [dir] : [],
      );
    const seen = new Set<string>();
    const problems: string[] = [];
    for (const pkg of packages(corpusRoot))
      problems.push(...(await unformatted(emitAll(compile([pkg], { cwd: repoRoot }).model), seen)));
    expect(problems).toEqual([]);
  }, 300_000);

  // Made in beforeAll, not while collecting: a skipped or filtered describe runs no afterAll.
  let synthetic = "";
  beforeAll(() => {
    synthetic = mkdtempSync(join(tmpdir(), "aps-prettier-"));
  });
  afterAll(() => rmSync(synthetic, { recursive: true, force: true }));

  it("a synthetic 20-type package", async () => {
    synthesize(synthetic, 20);
    expect(existsSync(join(synthetic, "APP-META.xml"))).toBe(true);
    expect(await unformatted(emitted([synthetic], synthetic))).toEqual([]);
  }, 120_000);
});

/** Short names and long ones (never a keyword), so lines land on both sides of the width and keys on both sides of 5 columns. */
const name = fc.oneof(fc.stringMatching(/^x[a-z]{0,5}$/), fc.stringMatching(/^x[A-Za-z0-9]{12,60}$/));

/** Snippets per Prettier call in the property tests below (as many snippets are checked). */
const BATCH = 50;

describe("the shared layout helpers print what Prettier prints", () => {
  const check = async (text: string): Promise<void> => {
    expect(await prettier.format(text, { ...PRETTIER_OPTIONS, filepath: "x.ts" })).toBe(text);
  };
  /**
   * Snippets go to Prettier a batch at a time, as one file of top-level statements (which it
   * formats each on its own): its cost per call is most of what a small snippet costs (1000
   * snippets: 1.9 s one by one, 0.5 s in batches of 50). A batch Prettier would change is
   * checked snippet by snippet, so the failure names the snippet.
   */
  const checkBatch = async (texts: readonly string[]): Promise<void> => {
    const text = texts.join("\n");
    if ((await prettier.format(text, { ...PRETTIER_OPTIONS, filepath: "x.ts" })) === text) return;
    for (const t of texts) await check(t);
    await check(text); // each snippet alone is as Prettier prints it: how they were joined is not
  };
  /** Up to BATCH snippets (half that on average); a failing batch shrinks to the one snippet that fails, made as small as it goes. */
  const batchOf = <T>(snippet: fc.Arbitrary<T>) => fc.array(snippet, { minLength: 1, maxLength: BATCH, size: "max" });
  /** Runs that check about `snippets` snippets in batches. */
  const runsFor = (snippets: number) => Math.ceil((2 * snippets) / BATCH);

  it("for JSON values (the OpenAPI document)", async () => {
    const key = fc.oneof(name, fc.string({ maxLength: 30 }), fc.constantFrom("200", "$ref", "in", "application/json"));
    const text = fc.oneof(
      fc.string({ maxLength: 10 }),
      fc.string({ minLength: 60, maxLength: 130 }),
      fc.string({ unit: "binary", minLength: 40, maxLength: 70 }),
    );
    const numbers = fc.array(fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })), {
      minLength: 8,
      maxLength: 40,
    });
    const leaf = fc.oneof(
      text,
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
      fc.bigInt(),
      numbers,
      fc.array(text, { maxLength: 6 }),
    );
    const value = fc.letrec((tie) => ({
      json: fc.oneof(
        { depthSize: "small" },
        leaf,
        fc.array(tie("json"), { maxLength: 6 }),
        fc.dictionary(key, tie("json"), { maxKeys: 6 }),
      ),
    })).json;
    await fc.assert(
      fc.asyncProperty(batchOf(fc.dictionary(key, value, { maxKeys: 8 })), async (docs) => {
        await checkBatch(docs.map((doc) => jsonLiteral("export const doc: Record<string, unknown> = ", doc, ";")));
      }),
      { numRuns: runsFor(200) },
    );
  }, 120_000);

  it("for calls, objects, arrows, parameter lists and if/else clauses", async () => {
    // As the emitters use them: arrows are object values whose body is a call or a name.
    const tree = fc.letrec((tie) => {
      const e = tie("e") as fc.Arbitrary<Expr>;
      const callExpr = fc.tuple(name, fc.array(e, { maxLength: 4 })).map(([callee, args]) => call(callee, ...args));
      const body = fc.oneof(name, callExpr);
      const value = fc.oneof(
        e,
        body.map((b) => arrow("(ctx, body)", b)),
      );
      return {
        e: fc.oneof(
          { depthSize: "small" },
          name,
          name.map((n) => JSON.stringify(`${n} text`)),
          callExpr,
          fc.array(fc.tuple(name, value), { minLength: 1, maxLength: 4 }).map((entries) => object(...entries)),
        ),
        call: callExpr,
      };
    });
    const expr = tree.e as fc.Arbitrary<Expr>;
    // A statement is a call (an object literal there would be a block).
    const statement = tree.call as fc.Arbitrary<Expr>;
    const condition = fc
      .array(
        fc.oneof(
          name,
          name.map((n) => `!${n}(key, v, errors)`),
        ),
        { minLength: 1, maxLength: 4 },
      )
      .map((xs) => xs.join(" && "));
    await fc.assert(
      fc.asyncProperty(
        batchOf(fc.tuple(name, fc.array(name, { maxLength: 5 }), expr, condition, statement)),
        async (functions) => {
          const texts = functions.map(([fn, params, body, test, statement]) => {
            const w = new CodeWriter();
            writeList(
              w,
              `export function ${fn}(`,
              params.map((p) => `${p}: string`),
              "): unknown {",
            );
            w.indented(() => {
              writeIf(w, "if", test, statement);
              writeElse(w, statement);
              writeExpr(w, "return ", body, ";");
            });
            w.line("}");
            return w.toString();
          });
          await checkBatch(texts);
        },
      ),
      { numRuns: runsFor(1000) },
    );
  }, 120_000);
});
