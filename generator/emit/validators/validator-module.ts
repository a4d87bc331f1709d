import { defaultPropertyAccess, type ApsModel, type Operation, type Property, type Relation, type ResolvedType, type Structure } from "../../model/model.ts";
import { accessBits, RoleBit, type Role } from "../../../runtime/common/actor.ts";
import { isBaseOperation } from "../../model/base-operations.ts";
import { typeBanner } from "../render.ts";
import type { TypeNames } from "../types/name-table.ts";
import { ModuleScope, structureCheckerName, validatorModulePath, type RuntimeSpecifier } from "./module-scope.ts";
import { valueCheck } from "./value-check.ts";

/** The view of one validator module, rendered by `templates/validators/validator-module.hbs`. */
export interface ValidatorModuleView {
  banner: string;
  imports: string[];
  constants: string[];
  blocks: string[];
}

/** What a package index re-exports from one module. */
export interface ValidatorExports {
  readonly modulePath: string;
  /** The `TypeValidator` object, when the type can have instances. */
  readonly validator?: string;
}

/** The exported `TypeValidator` object of a type (`mailboxValidator`). */
export function validatorObjectName(names: TypeNames): string {
  return `${names.tsName[0]!.toLowerCase()}${names.tsName.slice(1)}Validator`;
}

const ALL_ROLES = RoleBit.admin | RoleBit.owner | RoleBit.referrer | RoleBit.public;

/**
 * Builds the validator module of one type: a checker per structure it declares and, for
 * resource types, `validate<X>Create`, `validate<X>Update`, the parameter parsers of its custom
 * operations and a `TypeValidator` object tying them together. Returns undefined when the type
 * has nothing to validate (a mixin without structures).
 */
export function validatorModuleView(type: ResolvedType, model: ApsModel, names: ReadonlyMap<string, TypeNames>, runtime: RuntimeSpecifier): (ValidatorModuleView & ValidatorExports) | undefined {
  const own = names.get(type.id)!;
  if (!type.isResource && type.decl.structures.size === 0) return undefined;
  const modulePath = validatorModulePath(own);
  const scope = new ModuleScope(modulePath, names, runtime);
  const blocks: string[] = [];
  for (const s of type.decl.structures.values()) {
    scope.reserve(structureCheckerName(own, s.name));
    blocks.push(structureChecker(s, own, scope));
  }
  let validator: string | undefined;
  if (type.isResource) {
    validator = validatorObjectName(own);
    scope.reserve(validator);
    const create = `validate${own.tsName}Create`;
    const update = `validate${own.tsName}Update`;
    blocks.push(resourceValidator(type, "create", create, scope));
    blocks.push(resourceValidator(type, "update", update, scope));
    const parsers: { name: string; fn: string }[] = [];
    for (const op of type.operations.values()) {
      if (isBaseOperation(op, type, model)) continue;
      const fn = `parse${own.tsName}${op.name[0]!.toUpperCase()}${op.name.slice(1).replace(/[^A-Za-z0-9_$]/g, "_")}`;
      blocks.push(operationParser(op, type, fn, scope));
      parsers.push({ name: op.name, fn });
    }
    const typeValidator = scope.runtimeType("type-validator", "TypeValidator");
    const defaults = [...type.properties.values()].filter((p) => p.default !== undefined).map((p) => `${JSON.stringify(p.name)}: ${literalCode(p.default!.raw, p.default!.value)}`);
    blocks.push(
      [
        `/** Validators of ${type.name} (\`${type.id}\`), by what they check. */`,
        `export const ${validator}: ${typeValidator} = {`,
        `  typeId: ${JSON.stringify(type.id)},`,
        `  validateCreate: ${create},`,
        `  validateUpdate: ${update},`,
        `  defaults: Object.freeze({${defaults.length ? ` ${defaults.join(", ")} ` : ""}}),`,
        `  operations: {${parsers.length ? ` ${parsers.map((p) => `${JSON.stringify(p.name)}: ${p.fn}`).join(", ")} ` : ""}},`,
        `};`,
      ].join("\n"),
    );
  }
  return {
    banner: typeBanner(model, type),
    imports: scope.renderImports(),
    constants: scope.renderConstants(),
    blocks,
    modulePath,
    ...(validator ? { validator } : {}),
  };
}

function structureChecker(s: Structure, own: TypeNames, scope: ModuleScope): string {
  const fn = structureCheckerName(own, s.name);
  const errorType = scope.runtimeType("validation-error", "ValidationError");
  const typeError = scope.runtime("validation-error", "typeError");
  const seg = scope.runtime("validation-error", "pointerSegment");
  const lines = [
    `/** Checks a value of structure \`${s.name}\` of ${own.tsName}; pushes what is wrong onto \`errors\`. */`,
    `export function ${fn}(value: unknown, path: string, errors: ${errorType}[]): void {`,
    `  if (typeof value !== "object" || value === null || Array.isArray(value)) {`,
    `    errors.push(${typeError}(path, ${JSON.stringify(`an object (structure ${s.name})`)}, value));`,
    `    return;`,
    `  }`,
    `  const o = value as Record<string, unknown>;`,
    `  for (const key in o) {`,
    `    const v = o[key];`,
    `    if (v === undefined) continue;`,
    `    switch (key) {`,
  ];
  for (const p of s.properties.values()) {
    lines.push(`      case ${JSON.stringify(p.name)}: {`);
    lines.push(...valueCheck(p, "v", `path + ${JSON.stringify(`/${pointer(p.name)}`)}`, scope, "        "));
    lines.push(`        break;`, `      }`);
  }
  lines.push(
    `      default:`,
    `        errors.push({ path: path + "/" + ${seg}(key), code: "unknown", message: ${JSON.stringify(`"`)} + key + ${JSON.stringify(`" is not a member of structure ${s.name}${memberHint(s.properties.keys())}`)} });`,
    `    }`,
    `  }`,
  );
  for (const p of s.properties.values()) {
    if (!p.required) continue;
    lines.push(`  if (o[${JSON.stringify(p.name)}] === undefined) errors.push({ path: path + ${JSON.stringify(`/${pointer(p.name)}`)}, code: "required", message: "is required" });`);
  }
  lines.push(`}`);
  return lines.join("\n");
}

type Mode = "create" | "update";

/**
 * `validate<X>Create` / `validate<X>Update`: one pass over the body's keys with a `switch`, so
 * each key costs one comparison chain and unknown keys fall out at `default`; then the required
 * properties. Role rules sit in front of value checks: a value the writer may not set is not
 * checked further.
 */
function resourceValidator(type: ResolvedType, mode: Mode, fn: string, scope: ModuleScope): string {
  const errorType = scope.runtimeType("validation-error", "ValidationError");
  const actorType = scope.runtimeType("actor", "Actor");
  const typeError = scope.runtime("validation-error", "typeError");
  const seg = scope.runtime("validation-error", "pointerSegment");
  const what = mode === "create" ? "a provision (create) body" : "a configure (update) body";
  const lines = [
    `/** Checks ${what} of ${type.name} written by \`actor\`; returns every error, none when valid. */`,
    `export function ${fn}(body: unknown, actor: ${actorType}): ${errorType}[] {`,
    `  const errors: ${errorType}[] = [];`,
    `  if (typeof body !== "object" || body === null || Array.isArray(body)) {`,
    `    errors.push(${typeError}("", ${JSON.stringify(`a JSON object (a ${type.name} resource)`)}, body));`,
    `    return errors;`,
    `  }`,
    `  const b = body as Record<string, unknown>;`,
    `  for (const key in b) {`,
    `    const v = b[key];`,
    `    if (v === undefined) continue;`,
    `    switch (key) {`,
    `      case "aps":`,
    `        // The meta-section is checked by the controller, which knows the caller.`,
    `        break;`,
  ];
  for (const p of type.properties.values()) lines.push(...propertyCase(p, mode, scope));
  for (const r of type.relations.values()) {
    if (type.properties.has(r.name)) continue;
    lines.push(...relationCase(r, mode, scope));
  }
  lines.push(
    `      default:`,
    `        errors.push({ path: "/" + ${seg}(key), code: "unknown", message: ${JSON.stringify(`"`)} + key + ${JSON.stringify(`" is not a property of ${type.name}${memberHint([...type.properties.keys(), ...type.relations.keys()])}`)} });`,
    `    }`,
    `  }`,
  );
  if (mode === "create") {
    for (const p of type.properties.values()) {
      // A default is a hint for clients preparing a new resource (SPEC 2.2), not a value the
      // controller supplies: a required property is required whether it declares one or not.
      if (!p.required) continue;
      const gate = writableGate(p);
      const cond = gate === "always" ? "" : gate === "application" ? " && actor.application" : ` && (actor.application || (actor.roles & ${gate}) !== 0)`;
      lines.push(`  if (b[${JSON.stringify(p.name)}] === undefined${cond}) errors.push({ path: ${JSON.stringify(`/${pointer(p.name)}`)}, code: "required", message: "is required" });`);
    }
  }
  lines.push(`  return errors;`, `}`);
  return lines.join("\n");
}

/** Who may write a property: everyone, only the application (readonly), or users holding these role bits. */
function writableGate(p: Property): "always" | "application" | number {
  if (p.readonly) return "application";
  const bits = accessBits(p.access, defaultPropertyAccess);
  return bits === ALL_ROLES ? "always" : bits;
}

function propertyCase(p: Property, mode: Mode, scope: ModuleScope): string[] {
  const path = JSON.stringify(`/${pointer(p.name)}`);
  const out = [`      case ${JSON.stringify(p.name)}: {`];
  const reject = (code: string, message: string) => out.push(`        if (!actor.application) {`, `          errors.push({ path: ${path}, code: "${code}", message: ${JSON.stringify(message)} });`, `          break;`, `        }`);
  const gate = writableGate(p);
  if (gate === "application") reject("readonly", "is read-only: only the application sets it (SPEC 2.2)");
  else if (gate !== "always") {
    out.push(
      `        if (!actor.application && (actor.roles & ${gate}) === 0) {`,
      `          errors.push({ path: ${path}, code: "access", message: ${JSON.stringify(`may not be written with the caller's roles; its access allows ${allowedRoles(gate)}`)} });`,
      `          break;`,
      `        }`,
    );
  }
  if (mode === "update" && p.final) reject("final", "is final: it can be set only when the resource is created, not changed by configure");
  out.push(`        if (v === null) {`);
  // null means "no value" (README: null semantics): fine for optional properties only.
  if (p.required) out.push(`          errors.push({ path: ${path}, code: "required", message: "is required and cannot be null" });`);
  out.push(`          break;`, `        }`);
  out.push(...valueCheck(p, "v", path, scope, "        "));
  out.push(`        break;`, `      }`);
  return out;
}

function relationCase(r: Relation, mode: Mode, scope: ModuleScope): string[] {
  const path = JSON.stringify(`/${pointer(r.name)}`);
  const out = [`      case ${JSON.stringify(r.name)}: {`];
  if (mode === "update") {
    out.push(`        errors.push({ path: ${path}, code: "unknown", message: ${JSON.stringify(`is a relation: change its links with POST or DELETE /aps/2/resources/{id}/${r.name}, not with configure`)} });`);
  } else if (r.collection) {
    const check = scope.runtime("link-ref", "checkLinkRef");
    const typeError = scope.runtime("validation-error", "typeError");
    out.push(
      `        if (!Array.isArray(v)) errors.push(${typeError}(${path}, "an array of links", v));`,
      `        else for (let i = 0; i < v.length; i++) ${check}(v[i], ${path} + "/" + i, errors);`,
    );
  } else {
    out.push(`        if (v !== null) ${scope.runtime("link-ref", "checkLinkRef")}(v, ${path}, errors);`);
  }
  out.push(`        break;`, `      }`);
  return out;
}

/** `parse<X><Op>`: converts path and query text, checks the body, reports every problem. */
function operationParser(op: Operation, type: ResolvedType, fn: string, scope: ModuleScope): string {
  const inputType = scope.runtimeType("type-validator", "OperationInput");
  const resultType = scope.runtimeType("type-validator", "OperationParams");
  const errorType = scope.runtimeType("validation-error", "ValidationError");
  const lines = [
    `/** Parameters of ${type.name}.${op.name} (${op.static ? "static " : ""}${op.verb} ${op.path}). */`,
    `export function ${fn}(input: ${inputType}): ${resultType} {`,
    `  const errors: ${errorType}[] = [];`,
    `  const params: Record<string, unknown> = {};`,
  ];
  for (const p of op.parameters) {
    // Pointers into the call: /path/<name>, /query/<name>, and /body for the (single) body.
    const path = JSON.stringify(p.kind === "body" ? "/body" : `/${p.kind}/${pointer(p.name)}`);
    const key = JSON.stringify(p.name);
    const missing = p.required ? ` else errors.push({ path: ${path}, code: "required", message: "is required" });` : "";
    if (p.kind === "body") {
      lines.push(`  {`, `    const v = input.body;`);
      if (p.contentType !== undefined) {
        // Declared non-JSON content: passed through untouched.
        lines.push(`    if (v !== undefined) params[${key}] = v;${missing}`);
      } else {
        lines.push(`    if (v !== undefined && v !== null) {`);
        if (p.type) lines.push(...valueCheck({ type: p.type }, "v", path, scope, "      "));
        lines.push(`      params[${key}] = v;`, `    }${missing}`);
      }
      lines.push(`  }`);
      continue;
    }
    const source = p.kind === "path" ? "input.path" : "input.query";
    const convert = scope.runtime("parameter-text", "convertParameter");
    const primitive = p.type?.kind === "primitive" ? p.type.name : undefined;
    lines.push(
      `  {`,
      `    const text = ${source}[${key}];`,
      `    if (text !== undefined) {`,
      `      const r = ${convert}(text, ${JSON.stringify(primitive ?? "string")});`,
      `      if (r.ok) params[${key}] = r.value;`,
      `      else errors.push({ path: ${path}, code: r.code, message: r.message });`,
      `    }${missing}`,
      `  }`,
    );
  }
  lines.push(`  return errors.length > 0 ? { ok: false, errors } : { ok: true, params };`, `}`);
  return lines.join("\n");
}

function allowedRoles(bits: number): string {
  const roles = (Object.keys(RoleBit) as Role[]).filter((r) => (bits & RoleBit[r]) !== 0);
  return roles.length ? roles.join(", ") : "no user role (only the application)";
}

function memberHint(names: Iterable<string>): string {
  const list = [...names];
  if (list.length === 0) return "; it declares none";
  return list.length <= 12 ? `; known: ${list.join(", ")}` : "";
}

/** A JSON-pointer segment of a declared name, escaped at build time. */
function pointer(name: string): string {
  return name.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** A literal as TypeScript, keeping 64-bit integers exact as bigint literals. */
function literalCode(raw: string, value: unknown): string {
  if (typeof value === "number" && /^-?\d+$/.test(raw) && !Number.isSafeInteger(Number(raw))) return `${BigInt(raw)}n`;
  return JSON.stringify(value);
}
