/**
 * Who writes a resource (docs/aps/resources.md, "Property attributes"; docs/aps/security.md,
 * "Roles"): a user or account holding one or more roles, or the application that serves the type.
 * The rules differ: only the application may set `readonly` properties, and property `access`
 * limits users but not the application.
 */

/** The roles of access objects (docs/aps/security.md, "Roles"). */
export type Role = "admin" | "owner" | "referrer" | "public";

/** Bit of each role in {@link Actor.roles}: generated validators test access with one `&`. */
export const RoleBit: Readonly<Record<Role, number>> = { admin: 1, owner: 2, referrer: 4, public: 8 };

/** The writer of a request body, as validators see it. */
export interface Actor {
  /** True for the application (certificate-authenticated): every property is writable. */
  readonly application: boolean;
  /** Bit set of {@link RoleBit}: the roles a user holds on the resource. */
  readonly roles: number;
}

/** Every role an actor name of `aps-gen validate --actor` stands for. */
export const ACTOR_NAMES = ["admin", "owner", "referrer", "public", "application"] as const;

/** A user holding the given roles. Everyone holds `public` (public means anyone: docs/aps/security.md, "Roles"). */
export function userActor(roles: readonly Role[]): Actor {
  let bits = RoleBit.public;
  for (const r of roles) bits |= RoleBit[r];
  return { application: false, roles: bits };
}

/** The application serving the type. */
export const applicationActor: Actor = { application: true, roles: 0 };

/** The actor `aps-gen validate --actor <name>` means. */
export function actorNamed(name: (typeof ACTOR_NAMES)[number]): Actor {
  return name === "application" ? applicationActor : userActor([name]);
}

/** Bit set of the roles an access object allows, with the defaults for the ones left out (docs/aps/resources.md, "The access object"). */
export function accessBits(
  access: Partial<Record<Role, boolean>> | undefined,
  defaults: Readonly<Record<Role, boolean>>,
): number {
  let bits = 0;
  for (const role of Object.keys(RoleBit) as Role[]) if (access?.[role] ?? defaults[role]) bits |= RoleBit[role];
  return bits;
}
