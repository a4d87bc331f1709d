// Validator benchmark: the generated validateCreate (owner actor) against ajv compiled once from
// the test oracle's JSON Schema (test/validators/oracle), on the resource types of the example
// packages and on the same inputs: valid bodies and invalid bodies, generated once from a fixed
// seed and kept only where both agree on the verdict. Reports ops/s (validations per second)
// for both and the ratio ours/ajv, median of 5 runs after warm-up. Target: >= 1.5x on both.
// Run: npm run bench:validators [-- --bodies 200 --runs 5 --min-ms 250 --per-type]
// The numbers are informational: the process always exits 0.
import fc from "fast-check";
import { parseArgs } from "node:util";
import type { ValidateFunction } from "ajv";
import { compile } from "../generator/pipeline.ts";
import { validators } from "../generated/validators/index.gen.ts";
import { userActor } from "../runtime/common/actor.ts";
import type { TypeValidator } from "../runtime/common/type-validator.ts";
import { bodyArbitrary } from "../test/validators/oracle/arbitraries.ts";
import { oracleAjv, typeSchema } from "../test/validators/oracle/json-schema.ts";

const PACKAGES = ["types/examples/cloudmail", "types/examples/vpscloud"];
const SEED = 0xbe9c4;
const TARGET = 1.5;

const { values: args } = parseArgs({
  options: {
    bodies: { type: "string", default: "200" },
    runs: { type: "string", default: "5" },
    "min-ms": { type: "string", default: "250" },
    "per-type": { type: "boolean", default: false },
  },
});
const BODIES = Number(args.bodies);
const RUNS = Number(args.runs);
const MIN_MS = Number(args["min-ms"]);

const owner = userActor(["owner"]);
const root = new URL("../", import.meta.url).pathname;
const { model } = compile(PACKAGES, { cwd: root });
const ajv = oracleAjv();

/** One body of one type, with both validators of that type. */
interface Input {
  readonly typeName: string;
  readonly ours: TypeValidator;
  readonly ajv: ValidateFunction;
  readonly body: unknown;
}

const valid: Input[] = [];
const invalid: Input[] = [];
let dropped = 0;

const exampleTypeIds = model.packages.filter((p) => !p.bundled).flatMap((p) => p.typeIds);
for (const typeId of exampleTypeIds) {
  const type = model.types.get(typeId);
  if (!type?.isResource) continue;
  const ours = validators.get(typeId);
  if (!ours) {
    console.warn(`no generated validator for ${typeId}; skipped`);
    continue;
  }
  const check = ajv.compile(typeSchema(model, typeId, "create", "owner") as object);
  for (const [mix, into, wantValid] of [["valid", valid, true], ["broken", invalid, false]] as const) {
    for (const body of fc.sample(bodyArbitrary(model, typeId, "create", "owner", mix), { numRuns: BODIES, seed: SEED })) {
      const oursValid = ours.validateCreate(body, owner).length === 0;
      const ajvValid = check(body);
      if (oursValid === wantValid && ajvValid === wantValid) into.push({ typeName: type.name, ours, ajv: check, body });
      else dropped++;
    }
  }
}

let sink = 0;

function runOurs(inputs: readonly Input[], rounds: number): void {
  for (let r = 0; r < rounds; r++) for (const i of inputs) sink += i.ours.validateCreate(i.body, owner).length;
}

function runAjv(inputs: readonly Input[], rounds: number): void {
  for (let r = 0; r < rounds; r++) for (const i of inputs) sink += i.ajv(i.body) ? 1 : 0;
}

/** Rounds over `inputs` that take at least MIN_MS with the slower of the two. */
function calibrate(inputs: readonly Input[]): number {
  let rounds = 1;
  for (;;) {
    const t0 = performance.now();
    runOurs(inputs, rounds);
    const t1 = performance.now();
    runAjv(inputs, rounds);
    const t2 = performance.now();
    if (Math.max(t1 - t0, t2 - t1) >= MIN_MS / 4) return Math.ceil(rounds * (MIN_MS / Math.max(t1 - t0, t2 - t1)));
    rounds *= 2;
  }
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

interface Row {
  readonly label: string;
  readonly bodies: number;
  readonly ours: number;
  readonly ajv: number;
}

/** ops/s of both, median of RUNS, alternating which goes first, after a warm-up. */
function measure(label: string, inputs: readonly Input[]): Row {
  if (inputs.length === 0) return { label, bodies: 0, ours: NaN, ajv: NaN };
  const rounds = calibrate(inputs);
  runOurs(inputs, rounds);
  runAjv(inputs, rounds);
  const ops = rounds * inputs.length;
  const ours: number[] = [];
  const theirs: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const order = r % 2 === 0 ? ["ours", "ajv"] : ["ajv", "ours"];
    for (const which of order) {
      const t0 = performance.now();
      if (which === "ours") runOurs(inputs, rounds);
      else runAjv(inputs, rounds);
      const seconds = (performance.now() - t0) / 1000;
      (which === "ours" ? ours : theirs).push(ops / seconds);
    }
  }
  return { label, bodies: inputs.length, ours: median(ours), ajv: median(theirs) };
}

const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "-");

function table(title: string, rows: readonly Row[]): void {
  const header = ["input", "bodies", "ours ops/s", "ajv ops/s", "ours/ajv", `target ${TARGET}x`];
  const lines = rows.map((r) => {
    const ratio = r.ours / r.ajv;
    return [r.label, String(r.bodies), fmt(r.ours), fmt(r.ajv), Number.isFinite(ratio) ? `${ratio.toFixed(2)}x` : "-", ratio >= TARGET ? "met" : "MISSED"];
  });
  const widths = header.map((h, c) => Math.max(h.length, ...lines.map((l) => l[c]!.length)));
  const row = (cells: readonly string[]) => `| ${cells.map((x, c) => (c === 0 ? x.padEnd(widths[c]!) : x.padStart(widths[c]!))).join(" | ")} |`;
  console.log(`\n${title}`);
  console.log(row(header));
  console.log(`|${widths.map((w, c) => (c === 0 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`);
  for (const l of lines) console.log(row(l));
}

console.log(
  `validateCreate (owner) vs ajv ${"(allErrors)"}: ${new Set(valid.map((i) => i.typeName)).size} types, ` +
    `${valid.length} valid + ${invalid.length} invalid bodies (seed ${SEED}; ${dropped} dropped where a verdict was not the intended one), ` +
    `median of ${RUNS} runs of >= ${MIN_MS} ms, node ${process.version}`,
);
table("All example resource types", [measure("valid", valid), measure("invalid", invalid)]);

if (args["per-type"]) {
  const names = [...new Set([...valid, ...invalid].map((i) => i.typeName))];
  const rows: Row[] = [];
  for (const n of names) {
    rows.push(measure(`${n} valid`, valid.filter((i) => i.typeName === n)));
    rows.push(measure(`${n} invalid`, invalid.filter((i) => i.typeName === n)));
  }
  table("Per type", rows);
}
if (sink === 0.5) console.log(sink);
