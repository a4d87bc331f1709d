// Finding a custom operation (issue 16 item 11): the compiled per-type Hono router of
// runtime/controller/operations/operation-router.ts against the hand-written regular expressions it replaced
// (copied below as they were), on the cloudmail tenant type. In-process, no HTTP: this is the
// routing step alone. Run: npx tsx bench/operation-router.bench.ts
import { buildRegistry } from "../generator/emit/controller/registry-data.ts";
import { compile } from "../generator/pipeline.ts";
import { ControllerError } from "../runtime/controller/support/errors.ts";
import { operationRoutes } from "../runtime/controller/operations/operation-router.ts";
import type { RegistryType } from "../runtime/controller/registry.ts";

const registryTypes = buildRegistry(
  compile(["types/examples/cloudmail"], { cwd: new URL("..", import.meta.url).pathname }).model,
);
const tenant = registryTypes.find((t) => t.id === "http://cloudmail.example.com/types/tenant/1.0") as RegistryType;
if (!tenant) throw new Error("the cloudmail tenant type is not in types/examples/cloudmail");

/** The matcher before item 11 (resource-service.ts), kept here for the comparison only. */
function matchPath(template: string, rest: string): Record<string, string> | undefined {
  const names: string[] = [];
  const source = template
    .replace(/\/+$/, "")
    .replace(/[.*+?^$()|[\]\\]/g, "\\$&")
    .replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
      names.push(name);
      return "([^/]+)";
    });
  const m = new RegExp(`^${source}/?$`).exec(rest);
  if (!m) return undefined;
  try {
    return Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]));
  } catch {
    return undefined;
  }
}
function before(type: RegistryType, method: string, rest: string): string {
  const match = Object.entries(type.operations)
    .filter(([, op]) => !op.base && !op.static && op.verb === method)
    .map(([name, op]) => ({ name, params: matchPath(op.path, rest) }))
    .find((m) => m.params !== undefined);
  if (!match) {
    const paths = Object.values(type.operations)
      .filter((op) => !op.base && !op.static)
      .map((op) => `${op.verb} ${op.path}`);
    throw new ControllerError(
      paths.some((p) => matchPath(p.split(" ")[1]!, rest)) ? 405 : 404,
      `${type.name} has no operation ${method} ${rest}${paths.length ? `; it has ${paths.join(", ")}` : ""}.`,
    );
  }
  return match.name;
}
function beforeOrStatus(type: RegistryType, method: string, rest: string): string {
  try {
    return before(type, method, rest);
  } catch (error) {
    return String((error as ControllerError).status);
  }
}
function after(type: RegistryType, method: string, rest: string): string {
  try {
    return operationRoutes(type, false).find(type.name, method, rest).name;
  } catch (error) {
    return String((error as { status: number }).status);
  }
}

const cases: [string, string, string][] = [
  ["GET", "/usage/2026-11", "usage"],
  ["POST", "/onMailboxChanged", "onMailboxChanged"],
  ["DELETE", "/importMailboxes", "405"],
  ["POST", "/nothing", "404"],
];
const N = 200_000;
for (const [name, fn] of [
  ["before (regular expressions)", beforeOrStatus],
  ["after (compiled router)", after],
] as const) {
  for (const [method, rest, expected] of cases)
    if (fn(tenant, method, rest) !== expected) throw new Error(`${name}: ${method} ${rest} is not ${expected}`);
}
function measure(label: string, set: readonly [string, string, string][]): void {
  const results: Record<string, number> = {};
  for (let round = 0; round < 3; round++) {
    for (const [name, fn] of [
      ["before (regular expressions)", beforeOrStatus],
      ["after (compiled router)", after],
    ] as const) {
      const started = process.hrtime.bigint();
      for (let i = 0; i < N; i++) {
        const [method, rest] = set[i % set.length]!;
        fn(tenant, method, rest);
      }
      const ns = Number(process.hrtime.bigint() - started) / N;
      results[name] = Math.min(results[name] ?? Infinity, ns);
    }
  }
  for (const [name, ns] of Object.entries(results))
    console.log(`${label}, ${name}: ${(ns / 1000).toFixed(2)} µs per lookup (best of 3 x ${N})`);
  console.log(
    `${label}, ratio before/after: ${(results["before (regular expressions)"]! / results["after (compiled router)"]!).toFixed(1)}x`,
  );
}
measure("operations found", cases.slice(0, 2));
measure("mixed found/405/404 (each miss builds its ControllerError)", cases);
