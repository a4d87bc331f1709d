import { Codes } from "../diagnostics/codes.ts";
import { closestMatch } from "../diagnostics/did-you-mean.ts";
import type { DiagnosticSink } from "../diagnostics/diagnostic.ts";
import { jsonTypeName, nodeLoc, nodeRange, objectMembers, rawText, type JsonNode } from "./json-document.ts";
import type { Loc, SourceFile } from "./source-file.ts";

/** The JSON type an attribute must have. `any` accepts every value (e.g. `default`). */
type AttributeKind = "string" | "boolean" | "integer" | "object" | "array" | "any";

/** The attributes an element may carry and the JSON type of each. */
export type AttributeSpec = Readonly<Record<string, AttributeKind>>;

/**
 * Typed access to the attributes of one declaration element (a property, an operation...).
 * It checks each attribute's JSON type once, warns about attributes APS does not define,
 * and treats `null` as absent, because `aps build` writes `"contentType": null` for "not set".
 */
export class Attributes {
  readonly locs: Record<string, Loc> = {};
  private readonly values = new Map<string, JsonNode>();

  constructor(
    readonly file: SourceFile,
    readonly element: JsonNode,
    spec: AttributeSpec,
    sink: DiagnosticSink,
    /** How to name the element in messages, e.g. `property "quota"`. */
    what: string,
  ) {
    for (const { key, keyNode, value } of objectMembers(element)) {
      const kind = spec[key];
      const loc = nodeLoc(file, keyNode);
      if (kind === undefined) {
        // A near miss of a real attribute is an error: "requried" silently left a property optional.
        const meant = closestMatch(key, Object.keys(spec));
        if (meant !== undefined)
          sink.report(
            Codes.misspeltAttribute,
            loc,
            `${what}: "${key}" is not an attribute; did you mean "${meant}"? As written it is ignored, and "${meant}" is not set.`,
            { written: key, replacement: meant },
          );
        else
          sink.report(
            Codes.unknownAttribute,
            loc,
            `${what}: unknown attribute "${key}" is ignored; known attributes are ${Object.keys(spec).join(", ")}.`,
          );
        continue;
      }
      if (value.type === "null") continue;
      if (!matchesKind(file, value, kind)) {
        sink.report(
          Codes.attributeValueType,
          nodeRange(file, value),
          `${what}: "${key}" must be ${article(kind)}, not ${jsonTypeName(value)}.`,
        );
        continue;
      }
      this.values.set(key, value);
      this.locs[key] = loc;
    }
  }

  /** Whether the attribute is present with a usable value. */
  has(name: string): boolean {
    return this.values.has(name);
  }

  /** The raw node of an attribute that passed its type check. */
  node(name: string): JsonNode | undefined {
    return this.values.get(name);
  }

  string(name: string): string | undefined {
    const n = this.values.get(name);
    return n ? (n.value as string) : undefined;
  }

  boolean(name: string): boolean {
    return this.values.get(name)?.value === true;
  }

  integer(name: string): number | undefined {
    const n = this.values.get(name);
    return n ? (n.value as number) : undefined;
  }

  /** Where the attribute's key was written, or the element itself when it is absent. */
  locOf(name: string): Loc {
    return this.locs[name] ?? nodeLoc(this.file, this.element);
  }
}

function matchesKind(file: SourceFile, node: JsonNode, kind: AttributeKind): boolean {
  switch (kind) {
    case "any":
      return true;
    case "integer":
      return node.type === "number" && /^-?\d+$/.test(rawText(file, node));
    default:
      return node.type === kind;
  }
}

function article(kind: AttributeKind): string {
  return kind === "integer" || kind === "object" || kind === "array" ? `an ${kind}` : `a ${kind}`;
}
