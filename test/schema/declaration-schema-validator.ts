/**
 * The shipped declaration schema (schema/aps-declaration.schema.json) compiled with ajv as the
 * schema tests check it: strict mode, knowing VS Code's annotation keywords, and checking
 * `format: regex`. Not strictTypes: the if/then branches narrow attributes whose JSON type the
 * element already gives.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import { repoRoot } from "../helpers/paths.ts";

export const SCHEMA_FILE = join(repoRoot, "schema/aps-declaration.schema.json");

export function declarationSchemaValidator(schemaText = readFileSync(SCHEMA_FILE, "utf8")): ValidateFunction {
  const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, allowUnionTypes: true });
  ajv.addVocabulary([
    "markdownDescription",
    "errorMessage",
    "patternErrorMessage",
    "deprecationMessage",
    "doNotSuggest",
    "defaultSnippets",
  ]);
  ajv.addFormat("regex", (text: string) => {
    try {
      new RegExp(text);
      return true;
    } catch {
      return false;
    }
  });
  return ajv.compile(JSON.parse(schemaText) as object);
}
