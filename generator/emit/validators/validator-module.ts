import type { ApsModel, Operation, Property, Relation, ResolvedType, Structure } from "../../model/model.ts";
import { isBaseOperation } from "../../model/base-operations.ts";
import type { CodeWriter } from "../core/code-writer.ts";
import { jsonLiteral } from "../core/json-literal.ts";
import {
  call,
  object,
  writeElse,
  writeExpr,
  writeIf,
  writeList,
  writeProperty,
  type ObjectEntry,
} from "../core/layout.ts";
import { propertyKey } from "../core/naming.ts";
import { stringLiteral } from "../core/string-literal.ts";
import { memberCheckerName, parserName, structureCheckerName, type ModuleScope } from "../core/module-scope.ts";
import { operationNamesOf, type TypeNames } from "../core/name-table.ts";
import { declaredMembers, memberChain, pointer, writableGate, writeMemberChecker } from "./member-checker.ts";
import { push, valueCheck } from "./value-check.ts";

/**
 * The names the validators of a type declare, in order: a checker per structure it declares,
 * the checker of the members it declares (when it declares any), the parser of each custom
 * operation it declares and, for resource types, the create and update validators and the
 * `TypeValidator` object. Empty when the type has nothing to validate (a mixin without
 * structures, members or operations): its validators are then written nowhere.
 */
export function validatorDeclarations(own: TypeNames): string[] {
  const v = own.validators;
  return [
    ...v.structures.values(),
    ...(v.members ? [v.members] : []),
    ...v.parsers.values(),
    ...(v.create ? [v.create, v.update!, v.validator!] : []),
  ];
}

/**
 * Writes the validators of one type into its module (`scope`, which has reserved the names
 * of validatorDeclarations): a checker per structure it declares, the checker of the members
 * it declares (when it declares any), the parameter parser of each custom operation it
 * declares and, for resource types, `validate<X>Create`, `validate<X>Update` and a
 * `TypeValidator` object tying them together with the parsers of every operation the type has,
 * inherited ones taken from their declaring type's module. Returns the name of the
 * `TypeValidator` object, when the type can have instances.
 */
export function writeTypeValidators(
  w: CodeWriter,
  type: ResolvedType,
  model: ApsModel,
  names: ReadonlyMap<string, TypeNames>,
  scope: ModuleScope,
  owners: ReadonlyMap<Property | Relation, string>,
): string | undefined {
  const own = names.get(type.id)!;
  const members = declaredMembers(type.decl);
  for (const s of type.decl.structures.values()) structureChecker(w, s, own, scope).line();
  if (members.length) writeMemberChecker(w, memberCheckerName(own), `${type.name} declares`, members, scope).line();
  for (const op of type.decl.operations.values()) {
    const opNames = own.operations.get(op.name);
    if (opNames)
      operationParser(
        w,
        op,
        type,
        parserName(own, op.name),
        opNames.params ? scope.typeOf(own, opNames.params) : undefined,
        scope,
      ).line();
  }
  const { create, update, validator } = own.validators;
  if (!type.isResource || !create || !update || !validator) return undefined;
  const chain = memberChain(type, model, owners).map((id) => scope.memberChecker(id));
  resourceValidator(w, type, "create", create, chain, scope).line();
  resourceValidator(w, type, "update", update, chain, scope).line();
  const parsers: { name: string; fn: string }[] = [];
  for (const op of type.operations.values()) {
    if (isBaseOperation(op, type, model)) continue;
    const declared = operationNamesOf(names, op);
    if (!declared) throw new Error(`no names for operation ${op.name} of ${op.declaredIn}`);
    parsers.push({ name: op.name, fn: scope.validatorOf(declared.owner, parserName(declared.owner, op.name)) });
  }
  const typeValidator = scope.runtimeType("type-validator", "TypeValidator");
  const defaults: Record<string, unknown> = {};
  for (const p of type.properties.values())
    if (p.default !== undefined) defaults[p.name] = literalValue(p.default.raw, p.default.value);
  w.line(`/** Validators of ${type.name} (\`${type.id}\`), by what they check. */`);
  w.block(
    `export const ${validator}: ${typeValidator} = {`,
    () => {
      writeProperty(w, "typeId", stringLiteral(type.id));
      w.line(`validateCreate: ${create},`);
      w.line(`validateUpdate: ${update},`);
      w.raw(jsonLiteral("defaults: Object.freeze(", defaults, "),", 1));
      writeProperty(w, "operations", object(...parsers.map((p): ObjectEntry => [propertyKey(p.name), p.fn])));
    },
    "};",
  );
  w.line();
  return validator;
}

function structureChecker(w: CodeWriter, s: Structure, own: TypeNames, scope: ModuleScope): CodeWriter {
  const fn = structureCheckerName(own, s.name);
  const errorType = scope.runtimeType("validation-error", "ValidationError");
  const typeError = scope.runtime("validation-error", "typeError");
  const seg = scope.runtime("validation-error", "pointerSegment");
  const unknownKey = scope.runtime("validation-rules", "unknownKey");
  w.line(`/** Checks a value of structure \`${s.name}\` of ${own.tsName}; pushes what is wrong onto \`errors\`. */`);
  writeList(w, `export function ${fn}(`, ["value: unknown", "path: string", `errors: ${errorType}[]`], "): void {");
  w.indented(() => {
    w.block(`if (typeof value !== "object" || value === null || Array.isArray(value)) {`, () => {
      writeExpr(w, "", push(call(typeError, "path", stringLiteral(`an object (structure ${s.name})`), "value")), ";");
      w.line("return;");
    });
    w.line("const o = value as Record<string, unknown>;");
    w.block("for (const key in o) {", () => {
      w.line("const v = o[key];").line("if (v === undefined) continue;");
      w.block("switch (key) {", () => {
        for (const p of s.properties.values()) {
          w.block(`case ${stringLiteral(p.name)}: {`, () => {
            valueCheck(p, "v", `path + ${stringLiteral(`/${pointer(p.name)}`)}`, scope, w);
            w.line("break;");
          });
        }
        const hint = stringLiteral(`is not a member of structure ${s.name}${memberHint(s.properties.keys())}`);
        w.line("default:").indented(() =>
          writeExpr(w, "", push(call(unknownKey, `path + "/" + ${seg}(key)`, "key", hint)), ";"),
        );
      });
    });
    for (const p of s.properties.values()) {
      if (!p.required) continue;
      writeIf(
        w,
        "if",
        `o[${stringLiteral(p.name)}] === undefined`,
        push(call(scope.runtime("validation-rules", "missing"), `path + ${stringLiteral(`/${pointer(p.name)}`)}`)),
      );
    }
  });
  w.line("}");
  return w;
}

type Mode = "create" | "update";

/**
 * `validate<X>Create` / `validate<X>Update`: one pass over the body's keys, each handed to the
 * member checkers of `chain` until one knows it (an unknown key is an error); then, for create,
 * the required properties.
 */
function resourceValidator(
  w: CodeWriter,
  type: ResolvedType,
  mode: Mode,
  fn: string,
  chain: readonly string[],
  scope: ModuleScope,
): CodeWriter {
  const errorType = scope.runtimeType("validation-error", "ValidationError");
  const actorType = scope.runtimeType("actor", "Actor");
  const typeError = scope.runtime("validation-error", "typeError");
  const seg = scope.runtime("validation-error", "pointerSegment");
  const what = mode === "create" ? "a provision (create) body" : "a configure (update) body";
  const update = mode === "update";
  const hint = stringLiteral(
    `is not a property of ${type.name}${memberHint([...type.properties.keys(), ...type.relations.keys()])}`,
  );
  const unknown = push(call(scope.runtime("validation-rules", "unknownKey"), `"/" + ${seg}(key)`, "key", hint));
  w.line(`/** Checks ${what} of ${type.name} written by \`actor\`; returns every error, none when valid. */`);
  writeList(w, `export function ${fn}(`, ["body: unknown", `actor: ${actorType}`], `): ${errorType}[] {`);
  w.indented(() => {
    w.line(`const errors: ${errorType}[] = [];`);
    w.block(`if (typeof body !== "object" || body === null || Array.isArray(body)) {`, () => {
      writeExpr(
        w,
        "",
        push(call(typeError, '""', stringLiteral(`a JSON object (a ${type.name} resource)`), "body")),
        ";",
      );
      w.line("return errors;");
    });
    w.line("const b = body as Record<string, unknown>;");
    w.block("for (const key in b) {", () => {
      w.line("const v = b[key];");
      // The meta-section is checked by the controller, which knows the caller.
      w.line(`if (v === undefined || key === "aps") continue;`);
      if (chain.length === 0) writeExpr(w, "", unknown, ";");
      else writeIf(w, "if", chain.map((c) => `!${c}(key, v, actor, ${update}, errors)`).join(" && "), unknown);
    });
    if (mode === "create") {
      for (const p of type.properties.values()) {
        // A default is a hint for clients preparing a new resource (docs/aps/resources.md), not a value the
        // controller supplies: a required property is required whether it declares one or not.
        if (!p.required) continue;
        const gate = writableGate(p);
        const cond =
          gate === "always"
            ? ""
            : gate === "application"
              ? " && actor.application"
              : ` && (actor.application || (actor.roles & ${gate}) !== 0)`;
        writeIf(
          w,
          "if",
          `b[${stringLiteral(p.name)}] === undefined${cond}`,
          push(call(scope.runtime("validation-rules", "missing"), stringLiteral(`/${pointer(p.name)}`))),
        );
      }
    }
    w.line("return errors;");
  });
  w.line("}");
  return w;
}

/** `parse<X><Op>`: converts path and query text, checks the body, reports every problem. */
function operationParser(
  w: CodeWriter,
  op: Operation,
  type: ResolvedType,
  fn: string,
  paramsType: string | undefined,
  scope: ModuleScope,
): CodeWriter {
  const inputType = scope.runtimeType("type-validator", "OperationInput");
  const resultType = scope.runtimeType("type-validator", "OperationParams");
  const errorType = scope.runtimeType("validation-error", "ValidationError");
  w.line(`/** Parameters of ${type.name}.${op.name} (${op.static ? "static " : ""}${op.verb} ${op.path}). */`);
  writeList(
    w,
    `export function ${fn}(`,
    [`input: ${inputType}`],
    `): ${resultType}${paramsType ? `<${paramsType}>` : ""} {`,
  );
  w.indented(() => {
    w.line(`const errors: ${errorType}[] = [];`);
    w.line("const params: Record<string, unknown> = {};");
    for (const p of op.parameters) {
      // Pointers into the call: /path/<name>, /query/<name>, and /body for the (single) body.
      const path = stringLiteral(p.kind === "body" ? "/body" : `/${p.kind}/${pointer(p.name)}`);
      const key = stringLiteral(p.name);
      const missing = p.required ? push(call(scope.runtime("validation-rules", "missing"), path)) : undefined;
      if (p.kind === "body") {
        w.block("{", () => {
          w.line("const v = input.body;");
          // Declared non-JSON content: passed through untouched.
          if (p.contentType !== undefined) {
            writeIf(w, "if", "v !== undefined", `params[${key}] = v`);
            if (missing) writeElse(w, missing);
          } else {
            w.line("if (v !== undefined && v !== null) {");
            w.indented(() => {
              if (p.type) valueCheck({ type: p.type }, "v", path, scope, w);
              w.line(`params[${key}] = v;`);
            });
            if (missing) writeElse(w, missing, "} ");
            else w.line("}");
          }
        });
        continue;
      }
      const source = p.kind === "path" ? "input.path" : "input.query";
      const convert = scope.runtime("parameter-text", "convertParameter");
      const primitive = p.type?.kind === "primitive" ? p.type.name : undefined;
      w.block("{", () => {
        w.line(`const text = ${source}[${key}];`);
        w.line("if (text !== undefined) {");
        w.indented(() => {
          w.line(`const r = ${convert}(text, ${stringLiteral(primitive ?? "string")});`);
          writeIf(w, "if", "r.ok", `params[${key}] = r.value`);
          writeElse(w, push(object(["path", path], ["code", "r.code"], ["message", "r.message"])));
        });
        if (missing) writeElse(w, missing, "} ");
        else w.line("}");
      });
    }
    // The checks above make `params` what the operation's parameter type says.
    const ok = `{ ok: true, params${paramsType ? `: params as ${paramsType}` : ""} }`;
    const line = `return errors.length > 0 ? { ok: false, errors } : ${ok};`;
    if (w.fits(line)) w.line(line);
    else w.line("return errors.length > 0").indented(() => w.line("? { ok: false, errors }").line(`: ${ok};`));
  });
  w.line("}");
  return w;
}

function memberHint(names: Iterable<string>): string {
  const list = [...names];
  if (list.length === 0) return "; it declares none";
  return list.length <= 12 ? `; known: ${list.join(", ")}` : "";
}

/** A literal's value, a 64-bit integer beyond 2^53 as a bigint so that it is written exactly. */
function literalValue(raw: string, value: unknown): unknown {
  if (typeof value === "number" && /^-?\d+$/.test(raw) && !Number.isSafeInteger(Number(raw))) return BigInt(raw);
  return value;
}
