import { lilconfig, type Loader } from "lilconfig";
import { allCodes, type RuleSetting } from "../../generator/diagnostics.ts";

export type { RuleSetting };

/** The config file, read: options for every command, per-command sections, rule severities. */
export interface ApsGenConfig {
  /** The file it came from, for messages. */
  readonly path: string;
  /** Option values (kebab-case, as on the command line) for the command being run. */
  readonly options: Readonly<Record<string, unknown>>;
  /** Severity per rule code (`APS093`), whether the file named the rule by code or by name. */
  readonly rules: ReadonlyMap<string, RuleSetting>;
}

/** A config file that cannot be used: one line for the user, exit 2. */
export class ConfigError extends Error {}

const SEARCH_PLACES = [
  "package.json",
  "aps-gen.config.json",
  "aps-gen.config.ts",
  "aps-gen.config.mts",
  "aps-gen.config.mjs",
  "aps-gen.config.js",
];
const COMMANDS = ["check", "build", "validate", "serve", "token", "init", "declarations", "migrate"];
const SETTINGS: readonly RuleSetting[] = ["off", "warning", "error"];

/**
 * A TypeScript or JavaScript config is imported with jiti, loaded only then: `tsc` is not needed
 * and the usual runs (JSON or no config) do not pay for it.
 */
const scriptLoader: Loader = async (path) => {
  const { createJiti } = await import("jiti");
  return createJiti(import.meta.url, { interopDefault: true }).import(path, { default: true });
};

/**
 * Finds and reads the config for `command`: `--config <file>` when given, else the first of
 * package.json's "aps-gen" key and aps-gen.config.{json,ts,mts,mjs,js} in `cwd` or a folder
 * above it. Undefined when there is none. Keys may be camelCase or kebab-case; a section named
 * after a command (`"build": {"out": "src/gen"}`) applies to that command over the top level.
 */
export async function loadConfig(
  cwd: string,
  command: string | undefined,
  explicit?: string,
): Promise<ApsGenConfig | undefined> {
  const explorer = lilconfig("aps-gen", {
    searchPlaces: SEARCH_PLACES,
    loaders: { ".ts": scriptLoader, ".mts": scriptLoader, ".mjs": scriptLoader, ".js": scriptLoader },
  });
  let found: { config: unknown; filepath: string } | null;
  try {
    found = explicit ? await explorer.load(explicit) : await explorer.search(cwd);
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    if (e.code === "ENOENT") throw new ConfigError(`config file ${explicit} does not exist`);
    throw new ConfigError(`cannot read the config ${explicit ?? "file"}: ${firstLine(e.message)}`);
  }
  if (!found || found.config === undefined || found.config === null) return undefined;
  return readConfig(found.config, found.filepath, command);
}

/** Checks a config object's shape and picks what applies to `command`. */
function readConfig(value: unknown, path: string, command: string | undefined): ApsGenConfig {
  if (!isObject(value))
    throw new ConfigError(
      `${path}: the config must be an object, e.g. {"types": ["types"], "rules": {"APS093": "off"}}`,
    );
  const options: Record<string, unknown> = {};
  let rules = new Map<string, RuleSetting>();
  for (const [key, entry] of Object.entries(value)) {
    if (key === "$schema") continue;
    if (key === "rules") {
      rules = readRules(entry, path);
      continue;
    }
    if (COMMANDS.includes(key)) {
      if (!isObject(entry))
        throw new ConfigError(`${path}: "${key}" must be an object of options for "aps-gen ${key}"`);
      continue;
    }
    options[kebab(key)] = entry;
  }
  const section = command && isObject(value[command]) ? (value[command] as Record<string, unknown>) : {};
  for (const [key, entry] of Object.entries(section)) {
    if (key === "rules") rules = new Map([...rules, ...readRules(entry, path)]);
    else options[kebab(key)] = entry;
  }
  return { path, options, rules };
}

function readRules(value: unknown, path: string): Map<string, RuleSetting> {
  if (!isObject(value))
    throw new ConfigError(`${path}: "rules" must map rule codes or names to "off", "warning" or "error"`);
  const rules = new Map<string, RuleSetting>();
  for (const [name, setting] of Object.entries(value)) {
    const rule = allCodes.find((c) => c.code === name.toUpperCase() || c.rule === name);
    if (!rule) throw new ConfigError(`${path}: rules: "${name}" is no rule; "aps-gen rules" lists them`);
    if (!SETTINGS.includes(setting as RuleSetting))
      throw new ConfigError(
        `${path}: rules: ${name} must be "off", "warning" or "error", not ${JSON.stringify(setting)}`,
      );
    // What an error rule finds breaks the output (a type left out, a wrong validator), so only
    // warnings may be silenced or softened; any rule may be made an error.
    if (rule.severity === "error" && setting !== "error")
      throw new ConfigError(
        `${path}: rules: ${rule.code} (${rule.rule}) is an error rule, so it cannot be set to "${String(setting)}": what it finds breaks the output; fix the declarations instead`,
      );
    rules.set(rule.code, setting as RuleSetting);
  }
  return rules;
}

function kebab(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function firstLine(text: string): string {
  return text.split("\n")[0]!.trim();
}
