import { apsEqual, firstDuplicate } from "../../runtime/common/aps-equality.ts";
import { FORMATS, Limits, UNITS } from "../../runtime/common/limits.ts";
import type { Loc } from "../load/source-file.ts";
import type { ApsModel, Property, TypeRef } from "../model/model.ts";
import { Codes } from "./codes.ts";
import type { DiagnosticSink } from "./diagnostic.ts";
import { literalProblem } from "./rules-literals.ts";

/** Checks every property a declaration writes itself, at type level and inside its structures. */
export function checkProperties(model: ApsModel, sink: DiagnosticSink): void {
  for (const type of model.types.values()) {
    for (const p of type.decl.properties.values()) checkProperty(p, `property "${p.name}"`, model, sink);
    for (const s of type.decl.structures.values()) {
      for (const p of s.properties.values()) checkProperty(p, `structure ${s.name}, property "${p.name}"`, model, sink);
    }
  }
}

function isString(ref: TypeRef): boolean {
  return ref.kind === "primitive" && ref.name === "string";
}

function checkProperty(p: Property, what: string, model: ApsModel, sink: DiagnosticSink): void {
  const at = (attr: string): Loc => p.attrLocs[attr] ?? p.loc;

  if (p.unit !== undefined && !UNITS.has(p.unit)) {
    sink.report(Codes.unknownUnit, at("unit"), `${what}: unit "${p.unit}" is not one of ${[...UNITS].join(", ")}.`);
  }
  if (p.format !== undefined) {
    if (!FORMATS.has(p.format)) sink.report(Codes.unknownFormat, at("format"), `${what}: format "${p.format}" is not one of ${[...FORMATS].join(", ")}.`);
    else if (!isString(p.type)) sink.report(Codes.formatNotString, at("format"), `${what}: "format" only applies to strings and is ignored for type "${p.typeText}"; remove it.`);
  }
  if (p.pattern !== undefined) {
    try {
      new RegExp(p.pattern);
    } catch (error) {
      sink.report(Codes.patternInvalid, at("pattern"), `${what}: pattern is not a valid ECMA-262 regular expression (${(error as Error).message.replace(/^Invalid regular expression: /, "")}).`);
    }
  }

  for (const attr of ["minLength", "maxLength", "pattern"] as const) {
    if (p[attr] !== undefined && !isString(p.type)) {
      sink.report(Codes.constraintNotApplicable, at(attr), `${what}: "${attr}" applies to strings, but the type is "${p.typeText}"; remove it.`);
    }
  }
  const isArray = p.type.kind === "array";
  for (const attr of ["minItems", "maxItems", "uniqueItems"] as const) {
    const present = attr === "uniqueItems" ? p.uniqueItems : p[attr] !== undefined;
    if (present && !isArray) sink.report(Codes.constraintNotApplicable, at(attr), `${what}: "${attr}" applies to arrays, but the type is "${p.typeText}"; remove it.`);
  }
  checkBounds(p, what, at, sink);
  checkLiterals(p, what, at, model, sink);
}

function checkBounds(p: Property, what: string, at: (a: string) => Loc, sink: DiagnosticSink): void {
  for (const attr of ["minLength", "maxLength", "minItems", "maxItems"] as const) {
    const v = p[attr];
    if (v !== undefined && v < 0) sink.report(Codes.boundsInvalid, at(attr), `${what}: "${attr}" is ${v}; bounds cannot be negative.`);
  }
  for (const attr of ["minLength", "maxLength"] as const) {
    const v = p[attr];
    if (v !== undefined && v > Limits.maxStringLength) {
      sink.report(Codes.boundsInvalid, at(attr), `${what}: "${attr}" is ${v}, but strings hold at most ${Limits.maxStringLength} characters (SPEC 8); use ${Limits.maxStringLength} or less.`);
    }
  }
  if (p.minLength !== undefined && p.maxLength !== undefined && p.minLength > p.maxLength) {
    sink.report(Codes.boundsInvalid, at("minLength"), `${what}: minLength ${p.minLength} exceeds maxLength ${p.maxLength}; make minLength <= maxLength.`);
  }
  if (p.minItems !== undefined && p.maxItems !== undefined && p.minItems > p.maxItems) {
    sink.report(Codes.boundsInvalid, at("minItems"), `${what}: minItems ${p.minItems} exceeds maxItems ${p.maxItems}; make minItems <= maxItems.`);
  }
}

function checkLiterals(p: Property, what: string, at: (a: string) => Loc, model: ApsModel, sink: DiagnosticSink): void {
  let enumValid = p.enum !== undefined;
  if (p.enum !== undefined) {
    if (p.enum.length === 0) {
      sink.report(Codes.enumInvalid, at("enum"), `${what}: "enum" is empty; list at least one value or remove it.`);
      enumValid = false;
    }
    for (const [i, literal] of p.enum.entries()) {
      const problem = literalProblem(literal, p.type, model);
      if (problem) {
        enumValid = false;
        sink.report(problem.kind === "range" ? Codes.valueOutOfRange : Codes.enumInvalid, literal.loc, `${what}: enum value ${i + 1}: ${problem.message}; enum values must be of type "${p.typeText}".`);
      }
    }
    const dup = firstDuplicate(p.enum.map((l) => l.value));
    if (dup >= 0) sink.report(Codes.enumInvalid, p.enum[dup]!.loc, `${what}: enum value ${p.enum[dup]!.raw} is listed twice; enum values must be distinct.`);
  }
  if (p.enumTitles !== undefined) {
    if (p.enum === undefined) sink.report(Codes.enumTitlesMismatch, at("enumTitles"), `${what}: "enumTitles" without "enum"; add the enum or remove the titles.`);
    else if (p.enumTitles.length !== p.enum.length) {
      sink.report(Codes.enumTitlesMismatch, at("enumTitles"), `${what}: ${p.enumTitles.length} enumTitles for ${p.enum.length} enum values; give exactly one title per value, in the same order.`);
    }
  }
  if (p.default !== undefined) {
    const problem = literalProblem(p.default, p.type, model);
    if (problem) {
      sink.report(problem.kind === "range" ? Codes.valueOutOfRange : Codes.defaultTypeMismatch, p.default.loc, `${what}: default ${problem.message}; it must be a value of type "${p.typeText}".`);
      return;
    }
    if (typeof p.default.value === "string") {
      if (p.pattern !== undefined && safeTest(p.pattern, p.default.value) === false) {
        sink.report(Codes.defaultTypeMismatch, p.default.loc, `${what}: default ${p.default.raw} does not match the pattern ${p.pattern}.`);
      }
      if (p.maxLength !== undefined && p.default.value.length > p.maxLength) {
        sink.report(Codes.defaultTypeMismatch, p.default.loc, `${what}: default is ${p.default.value.length} characters long, more than maxLength ${p.maxLength}.`);
      }
    }
    if (enumValid && p.enum && !p.enum.some((l) => apsEqual(l.value, p.default!.value))) {
      sink.report(Codes.defaultNotInEnum, p.default.loc, `${what}: default ${p.default.raw} is not one of the enum values (${p.enum.map((l) => l.raw).join(", ")}).`);
    }
  }
}

function safeTest(pattern: string, value: string): boolean | undefined {
  try {
    return new RegExp(pattern).test(value);
  } catch {
    return undefined;
  }
}
