import { FORMATS, Limits, UNITS } from "../../runtime/common/limits.ts";
import type { Loc } from "../load/source-file.ts";
import type { ApsModel, Property, TypeRef } from "../model/model.ts";
import { Codes } from "../diagnostics/codes.ts";
import type { DiagnosticSink } from "../diagnostics/diagnostic.ts";
import { ownProperties } from "./own-properties.ts";

/**
 * Property attribute rules (docs/aps/resources.md: attributes, units, formats, limits): unit and format vocabularies, pattern
 * syntax, constraints that fit the property's type, and sane bounds. Literals (`default`,
 * `enum`) are checked in check-literals.ts.
 */
export function checkProperties(model: ApsModel, sink: DiagnosticSink): void {
  for (const { property, what } of ownProperties(model)) {
    const at = (attr: string): Loc => property.attrLocs[attr] ?? property.loc;
    checkVocabulary(property, what, at, sink);
    checkApplicability(property, what, at, sink);
    checkBounds(property, what, at, sink);
  }
}

/** The kind of value a constraint can judge; `unknown` when the type could not be resolved. */
function valueKind(ref: TypeRef): "string" | "array" | "other" | "unknown" {
  if (ref.kind === "opaque" || ref.kind === "unresolved") return "unknown";
  if (ref.kind === "array") return "array";
  return ref.kind === "primitive" && ref.name === "string" ? "string" : "other";
}

function checkVocabulary(p: Property, what: string, at: (a: string) => Loc, sink: DiagnosticSink): void {
  if (p.unit !== undefined && !UNITS.has(p.unit)) {
    const hint = UNITS.has(p.unit.toLowerCase())
      ? `units are lower case: use "${p.unit.toLowerCase()}"`
      : `use one of ${[...UNITS].join(", ")}`;
    sink.report(Codes.unknownUnit, at("unit"), `${what}: unit "${p.unit}" is not an APS unit; ${hint}.`);
  }
  if (p.format !== undefined) {
    if (!FORMATS.has(p.format)) {
      sink.report(
        Codes.unknownFormat,
        at("format"),
        `${what}: format "${p.format}" is not an APS format; use one of ${[...FORMATS].join(", ")}, or a "pattern" for anything else.`,
      );
    } else if (valueKind(p.type) !== "string" && valueKind(p.type) !== "unknown") {
      sink.report(
        Codes.formatNotString,
        at("format"),
        `${what}: "format" is used only for strings and is ignored for type "${p.typeText}"; remove it.`,
      );
    }
  }
  if (p.pattern !== undefined) {
    try {
      new RegExp(p.pattern);
    } catch (error) {
      const reason = (error as Error).message.replace(/^Invalid regular expression: /, "");
      sink.report(
        Codes.patternInvalid,
        at("pattern"),
        `${what}: pattern is not a valid ECMA-262 regular expression (${reason}); fix the expression or escape the special character.`,
      );
    }
  }
}

function checkApplicability(p: Property, what: string, at: (a: string) => Loc, sink: DiagnosticSink): void {
  const kind = valueKind(p.type);
  // An unresolved type already has its own error; guessing here would only add noise.
  if (kind === "unknown") return;
  if (kind !== "string") {
    for (const attr of ["minLength", "maxLength", "pattern"] as const) {
      if (p[attr] === undefined) continue;
      sink.report(
        Codes.constraintNotApplicable,
        at(attr),
        `${what}: "${attr}" applies only to strings, but the type is "${p.typeText}"; remove it${kind === "array" ? " (use minItems/maxItems for the number of items)" : ""}.`,
      );
    }
  }
  if (kind !== "array") {
    for (const attr of ["minItems", "maxItems"] as const) {
      if (p[attr] === undefined) continue;
      sink.report(
        Codes.constraintNotApplicable,
        at(attr),
        `${what}: "${attr}" applies only to arrays, but the type is "${p.typeText}"; remove it${kind === "string" ? " (use minLength/maxLength for strings)" : ""}.`,
      );
    }
    // `"uniqueItems": false` is the default and asks for nothing, so only `true` is a mistake.
    if (p.uniqueItems)
      sink.report(
        Codes.constraintNotApplicable,
        at("uniqueItems"),
        `${what}: "uniqueItems" applies only to arrays, but the type is "${p.typeText}"; remove it.`,
      );
  }
}

function checkBounds(p: Property, what: string, at: (a: string) => Loc, sink: DiagnosticSink): void {
  for (const attr of ["minLength", "maxLength", "minItems", "maxItems"] as const) {
    const v = p[attr];
    if (v !== undefined && v < 0)
      sink.report(
        Codes.boundsInvalid,
        at(attr),
        `${what}: ${attr} is ${v}; bounds count characters or items and cannot be negative. Use 0 or more.`,
      );
  }
  for (const attr of ["minLength", "maxLength"] as const) {
    const v = p[attr];
    if (v !== undefined && v > Limits.maxStringLength) {
      sink.report(
        Codes.boundsInvalid,
        at(attr),
        `${what}: ${attr} ${v} is beyond the ${Limits.maxStringLength} characters a string property can hold; use ${Limits.maxStringLength} or less, or store longer text elsewhere.`,
      );
    }
  }
  if (p.minLength !== undefined && p.maxLength !== undefined && p.minLength > p.maxLength && p.maxLength >= 0) {
    sink.report(
      Codes.boundsInvalid,
      at("minLength"),
      `${what}: minLength ${p.minLength} exceeds maxLength ${p.maxLength}, so no value is valid; make minLength <= maxLength.`,
    );
  }
  if (p.minItems !== undefined && p.maxItems !== undefined && p.minItems > p.maxItems && p.maxItems >= 0) {
    sink.report(
      Codes.boundsInvalid,
      at("minItems"),
      `${what}: minItems ${p.minItems} exceeds maxItems ${p.maxItems}, so no value is valid; make minItems <= maxItems.`,
    );
  }
}
