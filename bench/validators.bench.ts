// Validator benchmark: the generated validateCreate (owner actor) against ajv compiled once from
// the test oracle's JSON Schema (test/validators/oracle, allErrors), on the resource types of
// the example packages and on the same inputs: valid bodies and invalid bodies, generated once
// from a fixed seed and kept only where both agree on the intended verdict. Reports ops/s
// (validations per second) of both and the ratio ours/ajv, median of 5 runs after warm-up.
// Target: ours >= 1.5x ajv on both. Run: npm run bench:validators [-- --bodies 200 --runs 5
// --min-ms 250 --per-type]. The numbers are informational: the process always exits 0.
//
// Each run is a fresh process (warm-up, then timed passes alternating ours and ajv): V8's
// optimisation of ajv's string-length helper (ucs2length) is decided per process and sometimes
// lands in a slow state that makes ajv ~3x slower for the whole process. Medians over separate
// processes keep one unlucky JIT from deciding the result; the range column shows the spread.
import fc from "fast-check";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
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
/** Timed passes per implementation within one run (process); the run reports their median. */
const PASSES = 3;

const { values: args } = parseArgs({
  options: {
    bodies: { type: "string", default: "200" },
    runs: { type: "string", default: "5" },
    "min-ms": { type: "string", default: "250" },
    "per-type": { type: "boolean", default: false },
    worker: { type: "string" },
  },
});
const BODIES = Number(args.bodies);
const RUNS = Number(args.runs);
const MIN_MS = Number(args["min-ms"]);

const owner = userActor(["owner"]);
const root = fileURLToPath(new URL("../", import.meta.url));
const { model } = compile(PACKAGES, { cwd: root });

/** The bodies of one benchmark, as written for the worker processes. */
interface InputFile {
  readonly valid: readonly { typeId: string; body: unknown }[];
  readonly invalid: readonly { typeId: string; body: unknown }[];
}

/** ops/s of one row in one run. */
interface RunRow {
  readonly label: string;
  readonly bodies: number;
  readonly ours: number;
  readonly ajv: number;
}

function main(): void {
  const ajv = oracleAjv();
  const valid: { typeId: string; body: unknown }[] = [];
  const invalid: { typeId: string; body: unknown }[] = [];
  let dropped = 0;
  const exampleTypeIds = model.packages.filter((p) => !p.bundled).flatMap((p) => p.typeIds);
  for (const typeId of exampleTypeIds) {
    if (!model.types.get(typeId)?.isResource) continue;
    const ours = validators.get(typeId);
    if (!ours) {
      console.warn(`no generated validator for ${typeId}; skipped`);
      continue;
    }
    const check = ajv.compile(typeSchema(model, typeId, "create", "owner") as object);
    for (const [mix, into, wantValid] of [
      ["valid", valid, true],
      ["broken", invalid, false],
    ] as const) {
      for (const body of fc.sample(bodyArbitrary(model, typeId, "create", "owner", mix), {
        numRuns: BODIES,
        seed: SEED,
      })) {
        const oursValid = ours.validateCreate(body, owner).length === 0;
        const ajvValid = check(body);
        if (oursValid === wantValid && ajvValid === wantValid) into.push({ typeId, body });
        else dropped++;
      }
    }
  }

  const dir = mkdtempSync(join(tmpdir(), "aps-bench-validators-"));
  const file = join(dir, "inputs.json");
  writeFileSync(file, JSON.stringify({ valid, invalid } satisfies InputFile));
  const runs: RunRow[][] = [];
  try {
    for (let r = 0; r < RUNS; r++) {
      const script = fileURLToPath(import.meta.url);
      const extra = ["--min-ms", String(MIN_MS), ...(args["per-type"] ? ["--per-type"] : [])];
      const child = spawnSync(process.execPath, [...process.execArgv, script, "--worker", file, ...extra], {
        cwd: root,
        encoding: "utf8",
      });
      if (child.status !== 0) {
        console.error(`run ${r + 1} failed:\n${child.stderr}`);
        continue;
      }
      const line = child.stdout.trim().split("\n").pop() ?? "[]";
      runs.push(JSON.parse(line) as RunRow[]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const typeCount = new Set(valid.map((i) => i.typeId)).size;
  console.log(
    `validateCreate (owner) vs ajv (allErrors): ${typeCount} types, ${valid.length} valid + ${invalid.length} invalid bodies ` +
      `(seed ${SEED}; ${dropped} generated bodies dropped: verdict not the intended one), ` +
      `median of ${runs.length} runs (fresh process each, warm-up, >= ${MIN_MS} ms per pass), node ${process.version}`,
  );
  const labels = runs[0]?.map((r) => r.label) ?? [];
  const summary = labels.map((label) =>
    summarise(
      label,
      runs.map((run) => run.find((r) => r.label === label)).filter((r) => r !== undefined),
    ),
  );
  table(
    "All example resource types",
    summary.filter((s) => s.label === "valid" || s.label === "invalid"),
  );
  if (args["per-type"])
    table(
      "Per type",
      summary.filter((s) => s.label !== "valid" && s.label !== "invalid"),
    );
}

interface Summary {
  readonly label: string;
  readonly bodies: number;
  readonly ours: number;
  readonly ajv: number;
  readonly ratioMin: number;
  readonly ratioMax: number;
}

function summarise(label: string, rows: readonly RunRow[]): Summary {
  const ratios = rows.map((r) => r.ours / r.ajv);
  return {
    label,
    bodies: rows[0]?.bodies ?? 0,
    ours: median(rows.map((r) => r.ours)),
    ajv: median(rows.map((r) => r.ajv)),
    ratioMin: Math.min(...ratios),
    ratioMax: Math.max(...ratios),
  };
}

function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "-");
const times = (n: number) => (Number.isFinite(n) ? `${n.toFixed(2)}x` : "-");

function table(title: string, rows: readonly Summary[]): void {
  const header = ["input", "bodies", "ours ops/s", "ajv ops/s", "ours/ajv", "range of runs", `target ${TARGET}x`];
  const lines = rows.map((r) => {
    const ratio = r.ours / r.ajv;
    return [
      r.label,
      String(r.bodies),
      fmt(r.ours),
      fmt(r.ajv),
      times(ratio),
      `${times(r.ratioMin)}–${times(r.ratioMax)}`,
      ratio >= TARGET ? "met" : "MISSED",
    ];
  });
  const widths = header.map((h, c) => Math.max(h.length, ...lines.map((l) => l[c]!.length)));
  const row = (cells: readonly string[]) =>
    `| ${cells.map((x, c) => (c === 0 ? x.padEnd(widths[c]!) : x.padStart(widths[c]!))).join(" | ")} |`;
  console.log(`\n${title}`);
  console.log(row(header));
  console.log(`|${widths.map((w, c) => (c === 0 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`);
  for (const l of lines) console.log(row(l));
}

/** One run: validators and ajv for every type, warm-up, timed passes; prints RunRow[] as JSON. */
function worker(file: string): void {
  const inputs = JSON.parse(readFileSync(file, "utf8")) as InputFile;
  const ajv = oracleAjv();
  const checks = new Map<string, { ours: TypeValidator; ajv: ValidateFunction; name: string }>();
  const bind = (list: InputFile["valid"]): Input[] =>
    list.map(({ typeId, body }) => {
      let c = checks.get(typeId);
      if (!c) {
        c = {
          ours: validators.get(typeId)!,
          ajv: ajv.compile(typeSchema(model, typeId, "create", "owner") as object),
          name: model.types.get(typeId)!.name,
        };
        checks.set(typeId, c);
      }
      return { typeName: c.name, ours: c.ours, ajv: c.ajv, body };
    });
  const valid = bind(inputs.valid);
  const invalid = bind(inputs.invalid);
  const rows: RunRow[] = [measure("valid", valid), measure("invalid", invalid)];
  if (args["per-type"]) {
    for (const n of new Set(valid.map((i) => i.typeName))) {
      rows.push(
        measure(
          `${n} valid`,
          valid.filter((i) => i.typeName === n),
        ),
      );
      rows.push(
        measure(
          `${n} invalid`,
          invalid.filter((i) => i.typeName === n),
        ),
      );
    }
  }
  if (sink === 0.5) console.error(sink);
  console.log(JSON.stringify(rows));
}

/** One body of one type, with both validators of that type. */
interface Input {
  readonly typeName: string;
  readonly ours: TypeValidator;
  readonly ajv: ValidateFunction;
  readonly body: unknown;
}

let sink = 0;

function runOurs(inputs: readonly Input[], rounds: number): void {
  for (let r = 0; r < rounds; r++) for (const i of inputs) sink += i.ours.validateCreate(i.body, owner).length;
}

function runAjv(inputs: readonly Input[], rounds: number): void {
  for (let r = 0; r < rounds; r++) for (const i of inputs) sink += i.ajv(i.body) ? 1 : 0;
}

/** Rounds over `inputs` that take at least MIN_MS with the slower of the two; doubles as warm-up. */
function calibrate(inputs: readonly Input[]): number {
  let rounds = 1;
  for (;;) {
    const t0 = performance.now();
    runOurs(inputs, rounds);
    const t1 = performance.now();
    runAjv(inputs, rounds);
    const t2 = performance.now();
    const slower = Math.max(t1 - t0, t2 - t1);
    if (slower >= MIN_MS / 4) return Math.ceil(rounds * (MIN_MS / slower));
    rounds *= 2;
  }
}

/** ops/s of both in this process: median of PASSES, alternating which goes first. */
function measure(label: string, inputs: readonly Input[]): RunRow {
  if (inputs.length === 0) return { label, bodies: 0, ours: NaN, ajv: NaN };
  const rounds = calibrate(inputs);
  runOurs(inputs, rounds);
  runAjv(inputs, rounds);
  const ops = rounds * inputs.length;
  const ours: number[] = [];
  const theirs: number[] = [];
  for (let p = 0; p < PASSES; p++) {
    for (const which of p % 2 === 0 ? ["ours", "ajv"] : ["ajv", "ours"]) {
      const t0 = performance.now();
      if (which === "ours") runOurs(inputs, rounds);
      else runAjv(inputs, rounds);
      (which === "ours" ? ours : theirs).push(ops / ((performance.now() - t0) / 1000));
    }
  }
  return { label, bodies: inputs.length, ours: median(ours), ajv: median(theirs) };
}

// Last, so every declaration above is initialised.
if (args.worker !== undefined) worker(args.worker);
else main();
