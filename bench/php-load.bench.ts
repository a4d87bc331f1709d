// PHP loading benchmark: how much reading a PHP-annotated package costs next to reading the same
// types as JSON declarations. Run: npm run bench:php-load [-- --services 100 --runs 15]
//
// One synthetic package of N services, each a PHP class in its own script that requires a shared
// file of structures (as real packages share an aux_types.php), and the same package with the
// JSON declarations `aps-gen declarations` writes for it. Both are loaded in turns in one process
// (loadInputs, then the whole check pipeline), and each ratio is the median of the runs.
// The numbers are informational: the process always exits 0.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadInputs } from "../generator/load/load-inputs.ts";
import { schemaGenText } from "../generator/load/php/php-service.ts";
import { compile } from "../generator/pipeline.ts";

const APP = "http://bench.example/phpload";

/** The PHP script of service k: a resource class with properties of every kind, links and operations. */
function serviceScript(k: number, n: number): string {
  const typeId = (i: number) => (i === 0 ? `${APP}/app/1.0` : `${APP}/t${i}/1.0`);
  return `<?php
require "aps/2/runtime.php";
require_once "shared.php";

/**
 * @type("${typeId(k)}")
 * @implements("http://aps-standard.org/types/core/${k === 0 ? "application" : "resource"}/1.0")
 */
class s${k} extends \\APS\\ResourceBase
{
    /**
     * @type(string)
     * @title("Label")
     * @description("What the service is called")
     * @required
     */
    public $label;

    /**
     * @type(integer)
     * @title("Quota")
     * @unit("mb")
     */
    public $quota = 1024;

    /**
     * @type(boolean)
     * @title("Enabled")
     */
    public $enabled = true;

    /**
     * @type(string)
     * @title("Plan")
     * @option("basic", "Basic")
     * @option("pro", "Professional")
     */
    public $plan = "basic";

    /**
     * @type("string[]")
     * @title("Tags")
     */
    public $tags = array();

    /**
     * @type(string)
     * @title("Secret")
     * @encrypted
     * @access(referrer, false)
     */
    public $secret;

    /**
     * @type(Setting)
     * @title("Setting")
     */
    public $setting;

    /**
     * @type(Setting[])
     * @title("History")
     */
    public $history = array();

    /**
     * @type("http://aps-standard.org/types/core/resource/1.0#Counter")
     * @title("Usage")
     * @unit("unit-h")
     */
    public $usage;

    /**
     * @link("${typeId((k + 1) % n)}[]")
     */
    public $next;

    /**
     * @link("http://aps-standard.org/types/core/account/1.0")
     * @required
     */
    public $account;

    /**
     * @verb(GET)
     * @path("/report/{id}")
     * @param(string, path)
     * @param(integer, query)
     * @return(Setting, text/json)
     */
    public function report($id, $days) { }

    /**
     * @verb(POST)
     * @path("/apply")
     * @param(Setting, body)
     * @return(boolean, text/json)
     */
    public function apply($setting) { }

    public function provision() { }
}
`;
}

const SHARED = `<?php
/** A key and value. */
class Setting
{
    /**
     * @type(string)
     * @title("Key")
     * @required
     */
    public $key;

    /**
     * @type(string)
     * @title("Value")
     */
    public $value = "";

    /**
     * @type(integer)
     * @title("Weight")
     */
    public $weight = 0;
}

/** Declared, never used: left out as aps build does. */
class Unused
{
    /** @type(string) */
    public $x;
}
`;

function appMeta(n: number, schemas: boolean): string {
  const services = Array.from(
    { length: n },
    (_, k) =>
      `    <service id="s${k}">\n${schemas ? `        <schema path="schemas/s${k}.schema.gen"/>\n` : ""}        <code engine="php" path="scripts/s${k}.php"/>\n    </service>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<application version="2.0" xmlns="http://aps-standard.org/ns/2">\n    <id>${APP}</id>\n    <name>PHP load</name>\n    <version>1.0</version>\n    <release>1</release>\n${services.join("\n")}\n</application>\n`;
}

/** Writes the PHP package, then the JSON package holding the declarations the PHP one loads to. */
function synthesize(root: string, n: number): { php: string; json: string } {
  const php = join(root, "php");
  mkdirSync(join(php, "scripts"), { recursive: true });
  writeFileSync(join(php, "APP-META.xml"), appMeta(n, false));
  writeFileSync(join(php, "scripts/shared.php"), SHARED);
  for (let k = 0; k < n; k++) writeFileSync(join(php, `scripts/s${k}.php`), serviceScript(k, n));
  const loaded = loadInputs([php], { includeCore: false });
  const errors = loaded.diagnostics.filter((d) => d.severity === "error");
  if (errors.length) throw new Error(`the synthetic PHP package has errors: ${errors[0]!.message}`);
  const json = join(root, "json");
  mkdirSync(join(json, "schemas"), { recursive: true });
  writeFileSync(join(json, "APP-META.xml"), appMeta(n, true));
  for (const d of loaded.packages[0]!.documents)
    writeFileSync(join(json, `schemas/${d.service}.schema.gen`), schemaGenText(d.php!));
  return { php, json };
}

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function timed(run: () => void): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

const { values } = parseArgs({
  options: { services: { type: "string", default: "100" }, runs: { type: "string", default: "15" } },
});
const n = Number(values.services);
const runs = Number(values.runs);
const root = mkdtempSync(join(tmpdir(), "aps-gen-php-load-"));
try {
  const { php, json } = synthesize(root, n);
  const stages = {
    load: (dir: string) => () => void loadInputs([dir], { includeCore: false }),
    check: (dir: string) => () => void compile([dir], {}),
  };
  // Warm both paths (module loading, JIT) before measuring.
  for (const stage of Object.values(stages))
    for (let i = 0; i < 3; i++) {
      stage(php)();
      stage(json)();
    }
  console.log(`PHP package of ${n} services vs the same ${n} JSON declarations; median of ${runs} runs, taking turns`);
  for (const [name, stage] of Object.entries(stages)) {
    const phpTimes: number[] = [];
    const jsonTimes: number[] = [];
    const ratios: number[] = [];
    for (let i = 0; i < runs; i++) {
      const p = timed(stage(php));
      const j = timed(stage(json));
      phpTimes.push(p);
      jsonTimes.push(j);
      ratios.push(p / j);
    }
    console.log(
      `  ${name.padEnd(6)} PHP ${median(phpTimes).toFixed(1)} ms · JSON ${median(jsonTimes).toFixed(1)} ms · ratio ${median(ratios).toFixed(2)}x`,
    );
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
