/**
 * The VS Code workspace settings `aps-gen init` gives a connector project, so declaration files
 * open as JSON with comments and are checked against the schema aps-gen ships (completion,
 * hover text, first errors as you type). An existing `.vscode/settings.json` is the vendor's:
 * only what is missing is added, through jsonc-parser's edits, which keep its comments and
 * layout. Pure: cli/init/init-project.ts reads and writes the file.
 */
import {
  applyEdits,
  findNodeAtLocation,
  getNodeValue,
  modify,
  parseTree,
  printParseErrorCode,
  type Node,
  type ParseError,
} from "jsonc-parser";

/** The schema in the project's node_modules, relative to the workspace folder. */
export const DECLARATION_SCHEMA_URL = "./node_modules/aps-gen/schema/aps-declaration.schema.json";

/** Declaration files wherever they are; the compiler reads them as JSON with comments. */
export const DECLARATION_FILE_MATCH: readonly string[] = ["**/*.schema", "**/*.schema.gen"];
const ASSOCIATIONS: Readonly<Record<string, string>> = { "*.schema": "jsonc", "*.schema.gen": "jsonc" };

export type SettingsMerge =
  /** The text to write (undefined: nothing to add) and the settings it adds. */
  | { readonly text: string | undefined; readonly added: readonly string[] }
  /** The file cannot be merged safely; `problem` says why, for a one-line note. */
  | { readonly problem: string };

/** The settings aps-gen adds, as one line of JSON for a note telling the vendor what to add by hand. */
export function settingsToAdd(fileMatch: readonly string[] = DECLARATION_FILE_MATCH): string {
  return JSON.stringify({ "json.schemas": [schemaEntry(fileMatch)], "files.associations": ASSOCIATIONS });
}

function schemaEntry(fileMatch: readonly string[]): { fileMatch: string[]; url: string } {
  return { fileMatch: [...fileMatch], url: DECLARATION_SCHEMA_URL };
}

/**
 * `existing` (the text of settings.json, or undefined when there is none) with the declaration
 * schema mapped and the declaration extensions associated with JSON with comments. Settings the
 * vendor has are kept as they are, even a different language for `*.schema`.
 */
export function mergeEditorSettings(
  existing: string | undefined,
  fileMatch: readonly string[] = DECLARATION_FILE_MATCH,
): SettingsMerge {
  if (existing === undefined || existing.trim() === "") {
    const settings = { "json.schemas": [schemaEntry(fileMatch)], "files.associations": ASSOCIATIONS };
    return { text: `${JSON.stringify(settings, null, 2)}\n`, added: ["json.schemas", "files.associations"] };
  }
  const errors: ParseError[] = [];
  // VS Code reads settings with comments and trailing commas.
  const root = parseTree(existing, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0 || !root) return { problem: `it is not valid JSON (${describeError(existing, errors[0])})` };
  if (root.type !== "object") return { problem: "it does not hold a JSON object" };

  let text = existing;
  const added: string[] = [];
  const edit = (path: (string | number)[], value: unknown, isArrayInsertion = false) => {
    const formattingOptions = {
      insertSpaces: !/^\t/m.test(existing),
      tabSize: indentOf(existing),
      eol: existing.includes("\r\n") ? "\r\n" : "\n",
    };
    text = applyEdits(text, modify(text, path, value, { formattingOptions, isArrayInsertion }));
  };

  const schemas = findNodeAtLocation(root, ["json.schemas"]);
  if (!schemas) {
    edit(["json.schemas"], [schemaEntry(fileMatch)]);
    added.push("json.schemas");
  } else if (schemas.type !== "array") {
    return { problem: '"json.schemas" is not an array' };
  } else {
    const entries = schemas.children ?? [];
    const ours = entries.findIndex(
      (entry) => entry.type === "object" && findNodeAtLocation(entry, ["url"])?.value === DECLARATION_SCHEMA_URL,
    );
    if (ours < 0) {
      edit(["json.schemas", entries.length], schemaEntry(fileMatch), true);
      added.push("json.schemas");
    } else {
      const matchNode = findNodeAtLocation(entries[ours]!, ["fileMatch"]);
      const present = matchNode ? (getNodeValue(matchNode) as unknown) : [];
      const have = Array.isArray(present) ? present : [];
      const missing = fileMatch.filter((m) => !have.includes(m));
      if (missing.length) {
        edit(["json.schemas", ours, "fileMatch"], [...have, ...missing]);
        added.push("json.schemas fileMatch");
      }
    }
  }

  const associations = findNodeAtLocation(parseTree(text, [], { allowTrailingComma: true }) as Node, [
    "files.associations",
  ]);
  if (!associations) {
    edit(["files.associations"], ASSOCIATIONS);
    added.push("files.associations");
  } else if (associations.type === "object") {
    const have = getNodeValue(associations) as Record<string, unknown>;
    const missing = Object.keys(ASSOCIATIONS).filter((pattern) => !(pattern in have));
    for (const pattern of missing) edit(["files.associations", pattern], ASSOCIATIONS[pattern]);
    if (missing.length) added.push("files.associations");
  } else {
    return { problem: '"files.associations" is not an object' };
  }
  return { text: added.length ? text : undefined, added };
}

/** The indentation the file uses, so added lines look like the vendor's. */
function indentOf(text: string): number {
  const first = /^( +)\S/m.exec(text);
  return first ? first[1]!.length : 2;
}

/** `property name expected at line 1, column 23`, for the note. */
function describeError(text: string, error: ParseError | undefined): string {
  if (!error) return "nothing to read";
  const before = text.slice(0, error.offset).split("\n");
  const what = printParseErrorCode(error.error)
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase();
  return `${what} at line ${before.length}, column ${before.at(-1)!.length + 1}`;
}
