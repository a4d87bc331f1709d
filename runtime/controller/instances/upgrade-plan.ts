/**
 * What upgrading an instance does to each of its resources, worked out before anything changes:
 * each APP-META.xml service is the factory of one type, so a resource of a service's type in the
 * old package becomes a resource of that service's type in the new one
 * (https://docs.cloudblue.com/cbc/sdk/21.0/api/rest/application/upgrade: a type's id carries its
 * version, and the upgrade moves resources to the updated types). Properties the new type still
 * declares keep their values; a new required property takes the declaration's `default`; what the
 * new type no longer declares is dropped, as the new schema says. An upgrade that would lose a
 * resource or a link, or leave a required property empty, is refused whole.
 */
import { applicationActor } from "../../common/actor.ts";
import type { TypeValidator } from "../../common/type-validator.ts";
import type { PackageRecord } from "../packages/catalog.ts";
import type { RegistryType, TypeRegistry } from "../registry.ts";
import { ControllerError, invalidBody } from "../support/errors.ts";

/** A resource of the instance as the plan reads it: its values opened, the relations it holds links of. */
export interface PlannedResource {
  readonly id: string;
  readonly typeId: string;
  /** The revision read: the move applies only if the resource has not changed since. */
  readonly revision: number;
  readonly values: Readonly<Record<string, unknown>>;
  readonly relations: ReadonlySet<string>;
}

/** One resource moved to the new package. */
export interface ResourceMove {
  readonly id: string;
  readonly revision: number;
  readonly type: RegistryType;
  readonly values: Record<string, unknown>;
}

export interface UpgradePlan {
  readonly moves: readonly ResourceMove[];
  /** How many resources the instance had when planned: one made since would not be moved. */
  readonly resourceCount: number;
  /** Old type id -> new type id, for the types whose id changes. */
  readonly renamed: ReadonlyMap<string, string>;
  /** The application root type in the new package. */
  readonly rootType: RegistryType;
}

export interface PlanInput {
  readonly registry: TypeRegistry;
  readonly to: PackageRecord;
  readonly rootId: string;
  readonly rootService: string;
  readonly resources: readonly PlannedResource[];
  /** New values for the root (settings the new version introduced, kb.cloudblue.com/en/120574). */
  readonly settings: Readonly<Record<string, unknown>>;
  readonly validators: ReadonlyMap<string, TypeValidator>;
}

/** The plan, or a 409 naming what stands in the way (400 for settings that are not valid). */
export function planUpgrade(input: PlanInput): UpgradePlan {
  const byService = new Map<string, RegistryType>();
  for (const id of input.to.typeIds) {
    const t = input.registry.get(id);
    if (t?.service && t.isResource) byService.set(t.service, t);
  }
  const rootType = byService.get(input.rootService);
  if (!rootType)
    throw new ControllerError(
      409,
      `Package ${input.to.name} ${input.to.version}-${input.to.release} has no service "${input.rootService}", the application root of this instance; it cannot upgrade it.`,
    );
  const problems: string[] = [];
  const renamed = new Map<string, string>();
  const moves: ResourceMove[] = [];
  for (const r of input.resources) {
    const old = input.registry.get(r.typeId);
    // Resources of types no service serves (none are made for an instance) stay as they are.
    if (!old?.service) continue;
    const type = byService.get(old.service);
    if (!type) {
      problems.push(`service "${old.service}" is gone from the new package and still has resource ${r.id}`);
      continue;
    }
    if (type.id !== old.id) renamed.set(old.id, type.id);
    const lost = [...r.relations].filter((rel) => !type.relations[rel]);
    if (lost.length)
      problems.push(`${type.name} declares no relation ${lost.join(", ")}, which resource ${r.id} holds links of`);
    const values = keptValues(type, r.id === input.rootId ? { ...r.values, ...input.settings } : r.values);
    const missing = Object.entries(type.properties)
      .filter(([name, p]) => p.required && values[name] === undefined)
      .map(([name]) => name);
    if (missing.length)
      problems.push(
        `${type.name} requires ${missing.join(", ")} with no default, and resource ${r.id} has no value${r.id === input.rootId ? ' (give it in "settings")' : ""}`,
      );
    if (r.id === input.rootId) {
      const errors =
        input.validators.get(type.id)?.validateCreate({ aps: { type: type.id }, ...values }, applicationActor) ?? [];
      if (errors.length && !missing.length)
        throw invalidBody(errors, `The application root's settings for ${type.name}`);
    }
    moves.push({ id: r.id, revision: r.revision, type, values });
  }
  if (problems.length)
    throw new ControllerError(
      409,
      `The upgrade to ${input.to.name} ${input.to.version}-${input.to.release} would not keep every resource, so nothing changed: ${problems.slice(0, 3).join("; ")}${problems.length > 3 ? `; and ${problems.length - 3} more` : ""}.`,
    );
  return { moves, resourceCount: input.resources.length, renamed, rootType };
}

/** The values the new type declares, and the `default` of each required property that has none. */
function keptValues(type: RegistryType, values: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values))
    if (type.properties[name] && value !== null && value !== undefined) kept[name] = value;
  const declared = (type.declaration?.properties ?? {}) as Record<string, { default?: unknown } | undefined>;
  for (const [name, p] of Object.entries(type.properties)) {
    const fallback = declared[name]?.default;
    if (p.required && kept[name] === undefined && fallback !== undefined) kept[name] = fallback;
  }
  return kept;
}
