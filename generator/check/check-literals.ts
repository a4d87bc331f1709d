import { apsEqual } from "../../runtime/common/aps-equality.ts";
import { isIntegerText } from "../../runtime/common/limits.ts";
import type { Loc } from "../load/source-file.ts";
import type { ApsModel, Literal, Property } from "../model/model.ts";
import { Codes } from "../diagnostics/codes.ts";
import type { DiagnosticSink } from "../diagnostics/diagnostic.ts";
import { expectedValue, literalRangeProblem, literalTypeProblem } from "./literal-fit.ts";
import { ownProperties } from "./own-properties.ts";

/**
 * Literal rules (docs/aps/resources.md: attributes, equality, limits): `default` and `enum` values fit the property type and its
 * limits, enum values are distinct, `enumTitles` match `enum`, and the default is one of the
 * enum values.
 */
export function checkLiterals(model: ApsModel, sink: DiagnosticSink): void {
  for (const { property, what } of ownProperties(model)) {
    const at = (attr: string): Loc => property.attrLocs[attr] ?? property.loc;
    const enumUsable = checkEnum(property, what, at, sink);
    checkEnumTitles(property, what, at, sink);
    checkDefault(property, what, at, enumUsable, sink);
  }
}

/**
 * Two literals are the same value under APS equality (docs/aps/resources.md). Integers are compared as written, because
 * 9007199254740993 and 9007199254740992 are one double once parsed.
 */
function sameLiteral(a: Literal, b: Literal): boolean {
  if (isIntegerText(a.raw) && isIntegerText(b.raw)) return BigInt(a.raw) === BigInt(b.raw);
  return apsEqual(a.value, b.value);
}

/** Reports enum problems; returns whether the enum is usable to judge the default against. */
function checkEnum(p: Property, what: string, at: (a: string) => Loc, sink: DiagnosticSink): boolean {
  if (p.enum === undefined) return false;
  if (p.enum.length === 0) {
    sink.report(
      Codes.enumInvalid,
      at("enum"),
      `${what}: "enum" is empty, so no value would be valid; list the allowed values or remove "enum".`,
    );
    return false;
  }
  let usable = true;
  p.enum.forEach((entry, i) => {
    const problem = literalTypeProblem(entry, p.type);
    if (problem) {
      usable = false;
      sink.report(
        Codes.enumInvalid,
        entry.loc,
        `${what}: enum value ${i + 1}: ${problem}; every enum value must be ${expectedValue(p.type)} like the property (type "${p.typeText}").`,
      );
      return;
    }
    const range = literalRangeProblem(entry, p.type);
    if (range)
      sink.report(
        Codes.valueOutOfRange,
        entry.loc,
        `${what}: enum value ${i + 1}: ${range}; use a value within the limit.`,
      );
    const earlier = p.enum!.findIndex((other, j) => j < i && sameLiteral(other, entry));
    if (earlier >= 0) {
      sink.report(
        Codes.enumInvalid,
        entry.loc,
        `${what}: enum value ${i + 1} (${entry.raw}) equals value ${earlier + 1}; enum values must be distinct, so remove the repeat.`,
      );
    }
  });
  return usable;
}

function checkEnumTitles(p: Property, what: string, at: (a: string) => Loc, sink: DiagnosticSink): void {
  if (p.enumTitles === undefined) return;
  if (p.enum === undefined) {
    sink.report(
      Codes.enumTitlesMismatch,
      at("enumTitles"),
      `${what}: "enumTitles" without "enum" has nothing to title; add the "enum" values or remove "enumTitles".`,
    );
  } else if (p.enumTitles.length !== p.enum.length) {
    sink.report(
      Codes.enumTitlesMismatch,
      at("enumTitles"),
      `${what}: ${p.enumTitles.length} enumTitles for ${p.enum.length} enum values; give exactly one title per enum value, in the same order.`,
    );
  }
}

function checkDefault(
  p: Property,
  what: string,
  at: (a: string) => Loc,
  enumUsable: boolean,
  sink: DiagnosticSink,
): void {
  const d = p.default;
  if (d === undefined) return;
  const loc = at("default");
  const problem = literalTypeProblem(d, p.type);
  if (problem) {
    sink.report(
      Codes.defaultTypeMismatch,
      loc,
      `${what}: default ${problem}; give a default of type "${p.typeText}" or remove it.`,
    );
    return;
  }
  if (typeof d.value === "string") checkStringDefault(p, d.value, what, loc, sink);
  const range = literalRangeProblem(d, p.type);
  if (range) sink.report(Codes.valueOutOfRange, loc, `${what}: default ${range}; use a value within the limit.`);
  if (enumUsable && p.enum && !p.enum.some((entry) => sameLiteral(entry, d))) {
    const values = p.enum.map((e) => e.raw).join(", ");
    sink.report(
      Codes.defaultNotInEnum,
      loc,
      `${what}: default ${d.raw} is not one of the enum values (${values}); pick one of them or add it to "enum".`,
    );
  }
}

/** A string default must itself be a valid value: match `pattern` and respect the lengths. */
function checkStringDefault(p: Property, value: string, what: string, loc: Loc, sink: DiagnosticSink): void {
  if (p.pattern !== undefined) {
    let matches: boolean | undefined;
    try {
      matches = new RegExp(p.pattern).test(value);
    } catch {
      // An invalid pattern is reported by check-properties; it cannot judge the default.
    }
    if (matches === false) {
      sink.report(
        Codes.defaultTypeMismatch,
        loc,
        `${what}: default ${JSON.stringify(value)} does not match the pattern ${p.pattern}; change the default or the pattern.`,
      );
    }
  }
  if (p.maxLength !== undefined && value.length > p.maxLength) {
    sink.report(
      Codes.defaultTypeMismatch,
      loc,
      `${what}: default is ${value.length} characters long, more than maxLength ${p.maxLength}; shorten it or raise maxLength.`,
    );
  }
  if (p.minLength !== undefined && value.length < p.minLength) {
    sink.report(
      Codes.defaultTypeMismatch,
      loc,
      `${what}: default is ${value.length} characters long, less than minLength ${p.minLength}; lengthen it or lower minLength.`,
    );
  }
}
