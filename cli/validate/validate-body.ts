import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { actorNamed, type ACTOR_NAMES } from "../../runtime/common/actor.ts";
import { parseJsonText } from "../../runtime/common/json-text.ts";
import { formatValidationError } from "../../runtime/common/validation-error.ts";
import type { ApsModel, ResolvedType } from "../../generator/index.ts";
import { loadValidators } from "./load-validators.ts";

/** Options of `aps-gen validate`. */
export interface ValidateOptions {
  readonly type: string;
  readonly mode: "create" | "update";
  readonly actor: (typeof ACTOR_NAMES)[number];
  readonly format: "text" | "json";
  /** A JSON file, or `-` for standard input. */
  readonly file: string;
}

/** What `aps-gen validate` prints and returns: 0 valid, 1 invalid, 2 unusable input. */
export interface ValidateOutcome {
  readonly exitCode: 0 | 1 | 2;
  readonly out: string[];
  readonly err: string[];
}

/**
 * Validates one resource body offline with the generated validators of its type (properties
 * only: whether linked resources exist needs the store, and the controller checks that).
 */
export async function validateBody(
  model: ApsModel,
  options: ValidateOptions,
  cwd: string,
  readStdin: () => Promise<string>,
): Promise<ValidateOutcome> {
  const unusable = (message: string): ValidateOutcome => ({
    exitCode: 2,
    out: [],
    err: [`aps-gen validate: ${message}`],
  });
  const found = findType(model, options.type);
  if (typeof found === "string") return unusable(found);
  if (!found.isResource)
    return unusable(
      `${found.name} (${found.id}) does not implement core/resource, so it has no instances to validate.`,
    );

  let text: string;
  const source = options.file === "-" ? "standard input" : options.file;
  try {
    text = options.file === "-" ? await readStdin() : readFileSync(resolve(cwd, options.file), "utf8");
  } catch (error) {
    return unusable(`cannot read ${source}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let body: unknown;
  try {
    body = parseJsonText(text);
  } catch (error) {
    return unusable(`${source} is not JSON: ${(error as Error).message}`);
  }

  const validator = (await loadValidators(model)).get(found.id)!;
  const actor = actorNamed(options.actor);
  const errors =
    options.mode === "create" ? validator.validateCreate(body, actor) : validator.validateUpdate(body, actor);
  const what = `${source} as ${options.mode} of ${found.name} by ${options.actor}`;
  if (options.format === "json") {
    return {
      exitCode: errors.length ? 1 : 0,
      out: [
        JSON.stringify(
          { valid: errors.length === 0, type: found.id, mode: options.mode, actor: options.actor, errors },
          null,
          2,
        ),
      ],
      err: [],
    };
  }
  const summary = errors.length
    ? `✗ ${what}: ${errors.length} error${errors.length === 1 ? "" : "s"}`
    : `✓ ${what}: valid`;
  return { exitCode: errors.length ? 1 : 0, out: [...errors.map(formatValidationError), summary], err: [] };
}

/** The type named by id, or by name when exactly one type has it; otherwise why not. */
function findType(model: ApsModel, wanted: string): ResolvedType | string {
  const exact = model.types.get(wanted);
  if (exact) return exact;
  const byName = [...model.types.values()].filter((t) => t.name.toLowerCase() === wanted.toLowerCase());
  if (byName.length === 1) return byName[0]!;
  if (byName.length > 1)
    return `"${wanted}" names ${byName.length} types; give the type id: ${byName.map((t) => t.id).join(", ")}`;
  const known = [...model.types.values()].filter((t) => t.isResource).map((t) => t.id);
  return `no type "${wanted}" in the inputs; resource types: ${known.join(", ")}`;
}
