import { compile } from "../../generator/pipeline.ts";
import { loadValidators } from "../../cli/validate/load-validators.ts";
import { userActor, applicationActor, type Actor } from "../../runtime/common/actor.ts";
import { parseJsonText } from "../../runtime/common/json-text.ts";
import type { TypeValidator } from "../../runtime/common/type-validator.ts";
import type { ValidationError } from "../../runtime/common/validation-error.ts";
import { repoRoot } from "../helpers/paths.ts";

/** The validators of test/fixtures/validators/widgets, compiled and loaded like `aps-gen validate` does. */
export async function widgetValidators(): Promise<{ widget: TypeValidator; gadget: TypeValidator }> {
  const { model, diagnostics } = compile(["test/fixtures/validators/widgets"], { cwd: repoRoot });
  if (diagnostics.some((d) => d.severity === "error")) throw new Error("fixture has errors");
  const all = await loadValidators(model);
  return {
    widget: all.get("http://widgets.example/types/widget/1.0")!,
    gadget: all.get("http://widgets.example/types/gadget/1.0")!,
  };
}

export const owner: Actor = userActor(["owner"]);
export const admin: Actor = userActor(["admin"]);
export const app: Actor = applicationActor;

/** A valid create body, written as JSON text so tests can splice exact numbers into it. */
const VALID = '"name": "abc", "size": "m"';

/** Parses `{<VALID>, <extra>}` losslessly. */
export function body(extra = ""): unknown {
  return parseJsonText(`{${[VALID, extra].filter(Boolean).join(", ")}}`);
}

/** `path code` of each error, for compact assertions. */
export function codes(errors: readonly ValidationError[]): string[] {
  return errors.map((e) => `${e.path} ${e.code}`);
}
