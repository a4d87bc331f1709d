/**
 * Names of the `#/components/schemas` entries. Generated TypeScript keeps each type in its own
 * module, but an OpenAPI document has one flat namespace: the core `Subscription` type, two
 * versions of one vendor type, or a vendor type called `Link` would otherwise overwrite each
 * other's schemas without any validator noticing (a JSON object cannot hold a key twice).
 */
import type { ApsModel } from "../../model/model.ts";
import { takeName, typeTsName } from "../core/naming.ts";

/** The controller's own shapes. The `Aps` prefix keeps them clear of vendor type names. */
export const BaseSchemaNames = {
  error: "ApsError",
  meta: "ApsMeta",
  link: "ApsLink",
  linkRef: "ApsLinkRef",
  linkEntry: "ApsLinkEntry",
  subscriptionRequest: "ApsSubscriptionRequest",
  subscription: "ApsSubscription",
} as const;

/** Suffixes of a resource type's write shapes (`XCreate`, `XUpdate`), reserved together with its read shape. */
const ShapeSuffixes = ["", "Create", "Update"] as const;

/** Component names of every type and structure of one model. */
export interface SchemaNames {
  /** A type's name (`Mailbox`; its write shapes add `Create`/`Update`), or `undefined` outside the model. */
  type(typeId: string): string | undefined;
  /** A structure's name (`Mailbox.ForwardingRule`), or `undefined` when its type is outside the model. */
  structure(typeId: string, structure: string): string | undefined;
}

/** OpenAPI 3.1 allows only these characters in component names. */
const unsafe = /[^A-Za-z0-9_-]/g;

/**
 * Names every type in model order (core first), so a name depends only on the inputs: the
 * TypeScript name when it and its `Create`/`Update` forms are free, else that name with the
 * type's version (`Vps_v1_1`), else with a counter as well. Structures are `<type>.<structure>`:
 * type names hold no `.`, so they never meet a type's name or another type's structure.
 */
export function buildSchemaNames(model: ApsModel): SchemaNames {
  const taken = new Set<string>(Object.values(BaseSchemaNames));
  const types = new Map<string, string>();
  const structures = new Map<string, Map<string, string>>();
  for (const type of model.types.values()) {
    const base = typeTsName(type).replace(unsafe, "_") || "Type";
    const version = type.id.slice(type.id.lastIndexOf("/") + 1).replace(unsafe, "_");
    const free = (name: string) => ShapeSuffixes.every((s) => !taken.has(`${name}${s}`));
    let name = free(base) ? base : `${base}_v${version}`;
    for (let n = 2; !free(name); n++) name = `${base}_v${version}_${n}`;
    for (const s of ShapeSuffixes) taken.add(`${name}${s}`);
    types.set(type.id, name);
    const own = new Map<string, string>();
    const used = new Set<string>();
    for (const s of type.decl.structures.values()) {
      const plain = s.name.replace(unsafe, "_") || "Structure";
      own.set(s.name, `${name}.${takeName(plain, used)}`);
    }
    structures.set(type.id, own);
  }
  return {
    type: (typeId) => types.get(typeId),
    structure: (typeId, structure) => structures.get(typeId)?.get(structure),
  };
}
