/**
 * The property values of a resource row, as every writer stores them and every reader opens them:
 * encrypted properties (docs/aps/resources.md, "Encrypted properties") go sealed to the `secrets`
 * column, everything else to the jsonb `body`. Provisioning and configure (resources/), the
 * application path (application-service.ts), instance roots (instances/instance-lifecycle.ts),
 * asynchronous task results (tasks/task-attempt.ts) and the provider's first rows (bootstrap.ts)
 * all build their rows here, so there is one null rule for all of them: a property whose value is
 * `null` has no value (docs/aps/resources.md, "The resource as JSON") and is stored absent, never
 * as a JSON null; in a configure, `null` clears it.
 */
import type { PropertySealer } from "../support/encryption.ts";
import type { NewResource, StoredResource } from "./resource-store.ts";

/** What a type says of its properties that storing needs: which are encrypted. */
export type StoredProperties = Readonly<Record<string, { readonly encrypted: boolean }>>;

/** The two columns that hold a resource's property values. */
export interface ValueColumns {
  readonly body: Record<string, unknown>;
  readonly secrets: Uint8Array | null;
}

/** What a new row is besides its values. */
export interface NewRowFields {
  readonly id: string;
  readonly typeId: string;
  readonly status: string;
  readonly ownerAccount: string;
  readonly ownerPath: string;
  readonly packageId?: string | null;
  readonly instanceId?: string | null;
  /** The subscription the resource belongs to (`aps.subscription`), when it belongs to one. */
  readonly subscription?: string | null;
}

/** A new row as built here: every column set. */
export type NewRow = NewResource &
  ValueColumns &
  Required<Omit<NewRowFields, "subscription">> & { subscription: string | null };

/** Builds and opens the value columns of resource rows; without a sealer, only rows without encrypted values. */
export class ResourceRows {
  constructor(private readonly sealer?: PropertySealer) {}

  /** The columns for `values` of resource `id`: nulls left out, encrypted properties sealed to that id. */
  columns(properties: StoredProperties, id: string, values: Readonly<Record<string, unknown>>): ValueColumns {
    const body: Record<string, unknown> = {};
    const secrets: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(values))
      if (v !== null && v !== undefined) (properties[k]?.encrypted ? secrets : body)[k] = v;
    if (!Object.keys(secrets).length) return { body, secrets: null };
    if (!this.sealer) throw new Error(`resource ${id} has encrypted values and there is no key to seal them`);
    return { body, secrets: this.sealer.seal(id, secrets) };
  }

  /** A new row (revision 1, created and modified now) holding `values`. */
  newRow(
    fields: NewRowFields,
    properties: StoredProperties,
    values: Readonly<Record<string, unknown>>,
    now = new Date().toISOString(),
  ): NewRow {
    return {
      ...fields,
      packageId: fields.packageId ?? null,
      instanceId: fields.instanceId ?? null,
      subscription: fields.subscription ?? null,
      revision: 1,
      created: now,
      modified: now,
      ...this.columns(properties, fields.id, values),
    };
  }

  /** The encrypted values of a row, opened (none when it has none). */
  secrets(row: Pick<StoredResource, "id" | "secrets">): Record<string, unknown> {
    if (!row.secrets) return {};
    if (!this.sealer) throw new Error(`resource ${row.id} has encrypted values and there is no key to open them`);
    return this.sealer.open(row.id, row.secrets);
  }

  /** Every property value of a stored row, encrypted ones opened. */
  values(row: StoredResource): Record<string, unknown> {
    return { ...row.body, ...this.secrets(row) };
  }
}

/**
 * Applies a configure body, or what an application returns, to `current` in place and returns the
 * changes as given. A property given `null` is cleared (it has no value then); `aps` is not a property. A
 * structure given as an object is merged into the stored one member by member, as JSON Merge
 * Patch (RFC 7396) does: members not given are kept, a member given `null` goes, arrays and
 * primitives are replaced whole. So a connector that reports `{"DISKSPACE": {"usage": 5}}` keeps
 * the customer's `limit` beside it (docs/aps/platform-bodies.md).
 */
export function applyChanges(
  current: Record<string, unknown>,
  input: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (k === "aps" || v === undefined) continue;
    changes[k] = v;
    if (v === null) delete current[k];
    else current[k] = mergePatch(current[k], v);
  }
  return changes;
}

/** RFC 7396 MergePatch(target, patch). */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const out: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if (v !== undefined) out[k] = mergePatch(out[k], v);
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
