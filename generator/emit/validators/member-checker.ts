import {
  defaultPropertyAccess,
  type ApsModel,
  type Property,
  type Relation,
  type ResolvedType,
  type TypeDeclaration,
} from "../../model/model.ts";
import { accessBits, RoleBit, type Role } from "../../../runtime/common/actor.ts";
import type { CodeWriter } from "../core/code-writer.ts";
import { call, writeElse, writeExpr, writeIf, writeList, type Expr } from "../core/layout.ts";
import type { ModuleScope } from "../core/module-scope.ts";
import { stringLiteral } from "../core/string-literal.ts";
import { push, valueCheck } from "./value-check.ts";

const ALL_ROLES = RoleBit.admin | RoleBit.owner | RoleBit.referrer | RoleBit.public;

/** A property or relation as one name of a body: a property hides a relation of the same name. */
type Member = Property | Relation;

/** The members a declaration checks itself, in declaration order: its properties, then its relations. */
export function declaredMembers(decl: TypeDeclaration): Member[] {
  const out: Member[] = [...decl.properties.values()];
  for (const r of decl.relations.values()) if (!decl.properties.has(r.name)) out.push(r);
  return out;
}

/**
 * Which declaration wrote each property and relation object of the model. Inherited members are
 * the very objects their declaration holds (model.ts: an own member replaces the inherited one
 * whole), so identity tells who declared what.
 */
export function memberOwners(model: ApsModel): Map<Member, string> {
  const owners = new Map<Member, string>();
  for (const t of model.types.values()) {
    for (const p of t.decl.properties.values()) owners.set(p, t.id);
    for (const r of t.decl.relations.values()) owners.set(r, t.id);
  }
  return owners;
}

/**
 * The member checkers a resource type's validators call, in order, for each key of a body; the
 * first that knows the key checks it. They are the type's own checker and those of its ancestors
 * that declared one of its members, nearest first. That order gives every name to the
 * declaration the type took it from: an own member replaces an inherited one, and of two parents
 * the first wins (build-model.ts), and `ancestors` lists each parent's ancestors, in their own
 * order, before the next parent. Checked here all the same, as a wrong order would check a body
 * against a declaration the type overrode.
 */
export function memberChain(type: ResolvedType, model: ApsModel, owners: ReadonlyMap<Member, string>): string[] {
  const ownerOfName = new Map<string, string>();
  for (const [name, p] of type.properties) ownerOfName.set(name, owners.get(p)!);
  for (const [name, r] of type.relations) if (!ownerOfName.has(name)) ownerOfName.set(name, owners.get(r)!);
  const used = new Set(ownerOfName.values());
  const chain = [type.id, ...type.ancestors].filter((id) => used.has(id));
  const placed = new Set<string>();
  for (const id of chain) {
    for (const m of declaredMembers(model.types.get(id)!.decl)) {
      const winner = ownerOfName.get(m.name)!;
      if (!placed.has(winner) && winner !== id)
        throw new Error(`${type.id}: "${m.name}" of ${winner} would be checked as declared by ${id}`);
    }
    placed.add(id);
  }
  return chain;
}

/**
 * `<stem>Members(key, v, actor, update, errors)`: checks the value `v` of body key `key` if it
 * names one of `members`, pushing what is wrong onto `errors`, and answers whether it did. Role
 * rules sit in front of value checks: a value the writer may not set is not checked further.
 * `update` is true for a configure body, where final properties and relations may not be written.
 */
export function writeMemberChecker(
  w: CodeWriter,
  fn: string,
  about: string,
  members: readonly Member[],
  scope: ModuleScope,
): CodeWriter {
  const errorType = scope.runtimeType("validation-error", "ValidationError");
  const actorType = scope.runtimeType("actor", "Actor");
  w.line(
    `/** Checks the value of a body key if it is one of the properties and relations ${about}; false when it is none of them. */`,
  );
  writeList(
    w,
    `export function ${fn}(`,
    ["key: string", "v: unknown", `actor: ${actorType}`, "update: boolean", `errors: ${errorType}[]`],
    "): boolean {",
  );
  w.indented(() => {
    w.block("switch (key) {", () => {
      for (const m of members) {
        w.block(`case ${stringLiteral(m.name)}: {`, () => {
          if ("typeId" in m) relationCase(w, m, scope);
          else propertyCase(w, m, scope);
          w.line("break;");
        });
      }
      w.line("default:").indented(() => w.line("return false;"));
    });
    w.line("return true;");
  });
  w.line("}");
  return w;
}

/** Who may write a property: everyone, only the application (readonly), or users holding these role bits. */
export function writableGate(p: Property): "always" | "application" | number {
  if (p.readonly) return "application";
  const bits = accessBits(p.access, defaultPropertyAccess);
  return bits === ALL_ROLES ? "always" : bits;
}

function propertyCase(w: CodeWriter, p: Property, scope: ModuleScope): void {
  const path = stringLiteral(`/${pointer(p.name)}`);
  const rule = (name: string, ...args: string[]) => call(scope.runtime("validation-rules", name), path, ...args);
  const reject = (condition: string, error: Expr) =>
    w.block(`if (${condition}) {`, () => {
      writeExpr(w, "", push(error), ";");
      w.line("break;");
    });
  const gate = writableGate(p);
  if (gate === "application") reject("!actor.application", rule("readOnly"));
  else if (gate !== "always")
    reject(
      `!actor.application && (actor.roles & ${gate}) === 0`,
      rule("accessDenied", stringLiteral(allowedRoles(gate))),
    );
  if (p.final) reject("update && !actor.application", rule("finalOnUpdate"));
  // null means "no value" (README: null semantics): fine for optional properties only.
  if (p.required) reject("v === null", rule("nullRequired"));
  else w.line("if (v === null) break;");
  valueCheck(p, "v", path, scope, w);
}

function relationCase(w: CodeWriter, r: Relation, scope: ModuleScope): void {
  const path = stringLiteral(`/${pointer(r.name)}`);
  writeIf(
    w,
    "if",
    "update",
    push(call(scope.runtime("validation-rules", "relationOnUpdate"), path, stringLiteral(r.name))),
  );
  const check = scope.runtime("link-ref", "checkLinkRef");
  if (r.collection) {
    const typeError = scope.runtime("validation-error", "typeError");
    writeIf(w, "else if", "!Array.isArray(v)", push(call(typeError, path, '"an array of links"', "v")));
    const loop = "for (let i = 0; i < v.length; i++)";
    const each = call(check, "v[i]", `${path} + "/" + i`, "errors");
    writeElse(w, `${loop} ${flatCall(each)}`, "", () => writeIf(w, "for", loop.slice(5, -1), each));
  } else {
    writeIf(w, "else if", "v !== null", call(check, "v", path, "errors"));
  }
}

function flatCall(e: { callee: string; args: readonly Expr[] }): string {
  return `${e.callee}(${e.args.join(", ")})`;
}

function allowedRoles(bits: number): string {
  const roles = (Object.keys(RoleBit) as Role[]).filter((r) => (bits & RoleBit[r]) !== 0);
  return roles.length ? roles.join(", ") : "no user role (only the application)";
}

/** A JSON-pointer segment of a declared name, escaped at build time. */
export function pointer(name: string): string {
  return name.replace(/~/g, "~0").replace(/\//g, "~1");
}
