/**
 * Path and query parameters arrive as text (docs/aps/rest-api.md, "Custom operations"); custom
 * operations declare them as `string`, `integer`, `long`, `number` or `boolean`. This converts the
 * text or says why not.
 */
import { Limits } from "./limits.ts";
import type { ValidationCode } from "./validation-error.ts";
import { int64RangeMessage } from "./validation-rules.ts";

/** A converted parameter value, or the reason it is not one. */
export type ParameterConversion =
  | { readonly ok: true; readonly value: string | number | bigint | boolean }
  | { readonly ok: false; readonly code: ValidationCode; readonly message: string };

const INTEGER = /^[-+]?\d+$/;
// JSON's number grammar plus a leading "+": what a person would type into a query string.
const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** Converts parameter text to the declared primitive (`string` when none is declared). */
export function convertParameter(text: string, type: string | undefined): ParameterConversion {
  switch (type) {
    case "integer":
    case "long": {
      if (!INTEGER.test(text)) return fail("type", `expected an integer, got ${JSON.stringify(text)}`);
      const big = BigInt(text);
      if (big < Limits.minInt64 || big > Limits.maxInt64) return fail("range", int64RangeMessage(text));
      const n = Number(big);
      return { ok: true, value: Number.isSafeInteger(n) ? n : big };
    }
    case "number": {
      const n = Number(text);
      if (!NUMBER.test(text) || !Number.isFinite(n))
        return fail("type", `expected a number, got ${JSON.stringify(text)}`);
      return { ok: true, value: n };
    }
    case "boolean":
      if (text === "true") return { ok: true, value: true };
      if (text === "false") return { ok: true, value: false };
      return fail("type", `expected true or false, got ${JSON.stringify(text)}`);
    default:
      return { ok: true, value: text };
  }
}

function fail(code: ValidationCode, message: string): ParameterConversion {
  return { ok: false, code, message };
}
