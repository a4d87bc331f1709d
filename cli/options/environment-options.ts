/**
 * Options from the environment: `APS_GEN_<OPTION>` (upper case, `-` as `_`) gives an option of
 * the command being run that the command line does not give; it wins over the config file.
 * Only the running command's own options are read, so other `APS_GEN_*` variables in an
 * operator's environment are left alone (yargs' own `.env()` would make each of them an
 * "Unknown argument" under `.strict()`).
 */
export function environmentOptions(rawArgv: readonly string[], env: NodeJS.ProcessEnv = process.env) {
  const given = new Set(
    rawArgv.filter((a) => a.startsWith("--")).map((a) => a.slice(2).split("=")[0]!.replace(/^no-/, "")),
  );
  return (argv: Record<string, unknown>, parser: { getOptions(): OptionKinds }): void => {
    // The running command's options: yargs applies its builder to the same parser before this.
    const kinds = parser.getOptions();
    for (const key of Object.keys(kinds.key)) {
      if (!/^[a-z][a-z0-9-]*$/.test(key) || given.has(key) || key === "help" || key === "version") continue;
      const raw = env[`APS_GEN_${key.toUpperCase().replace(/-/g, "_")}`];
      if (raw === undefined) continue;
      const value = fromText(raw, kinds, key);
      argv[key] = value;
      argv[camelCase(key)] = value;
    }
  };
}

/** What yargs' getOptions() says of the options: every key, and which hold numbers, flags or lists. */
export interface OptionKinds {
  readonly key: Record<string, unknown>;
  readonly number: readonly string[];
  readonly boolean: readonly string[];
  readonly array: readonly string[];
}

/** The variable's text as the kind of value the option holds: a list is comma separated. */
function fromText(raw: string, kinds: OptionKinds, key: string): unknown {
  if (kinds.number.includes(key)) return Number(raw);
  if (kinds.boolean.includes(key)) return !/^(0|false|no|off|)$/i.test(raw.trim());
  if (kinds.array.includes(key))
    return raw
      .split(",")
      .map((p) => p.trim())
      .filter(Boolean);
  return raw;
}

function camelCase(key: string): string {
  return key.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}
