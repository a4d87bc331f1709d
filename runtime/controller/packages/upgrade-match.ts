/**
 * Which installed versions a package may update: APP-META.xml's `<upgrade match="..."/>` (and
 * `<patch match="..."/>`, the unattended kind of update) hold an RQL expression evaluated against
 * the installed package's metadata, e.g. `version=ge=1.0, release=ge=0`
 * (https://docs.cloudblue.com/cbc/sdk/21.0/api/package/updates). A package without either
 * element names no versions, and this controller then lets any older version of the same
 * application upgrade to it.
 */
import { parseRql, RqlError, type RqlFilter } from "../../common/rql.ts";
import { ControllerError } from "../support/errors.ts";
import { compareVersions } from "./package-version.ts";
import type { PackageFiles } from "./package-files.ts";

/** The installed package an expression is evaluated against. */
export interface InstalledVersion {
  readonly version: string;
  readonly release: string;
}

/** The `match` expressions of a package's `<upgrade>` and `<patch>` elements, entities decoded. */
export function updateMatches(files: PackageFiles): string[] {
  const bytes = files.read("APP-META.xml");
  if (!bytes) return [];
  const meta = new TextDecoder().decode(bytes).replace(/<!--[\s\S]*?-->/g, "");
  return [...meta.matchAll(/<(?:upgrade|patch)\b[^>]*?\bmatch\s*=\s*(?:"([^"]*)"|'([^']*)')/g)].map((m) =>
    decodeEntities(m[1] ?? m[2] ?? ""),
  );
}

/** Whether one of `matches` holds for `installed`; no expressions at all lets any version through. */
export function allowsUpdateFrom(matches: readonly string[], installed: InstalledVersion): boolean {
  return matches.length === 0 || matches.some((m) => holds(parseMatch(m), installed));
}

/** An expression parsed; the platform writes them with spaces (`version =gt= 1.0`), which versions never contain. */
function parseMatch(expression: string): RqlFilter | undefined {
  try {
    return parseRql(expression.replace(/\s+/g, "")).filter;
  } catch (error) {
    if (error instanceof RqlError)
      throw new ControllerError(
        409,
        `The new package's APP-META.xml <upgrade match="${expression}"> is not RQL this controller reads: ${error.message}.`,
      );
    throw error;
  }
}

function holds(filter: RqlFilter | undefined, installed: InstalledVersion): boolean {
  if (!filter) return true;
  switch (filter.op) {
    case "and":
      return filter.args.every((f) => holds(f, installed));
    case "or":
      return filter.args.some((f) => holds(f, installed));
    case "not":
      return !holds(filter.arg, installed);
    case "in":
    case "out": {
      const found = filter.values.some((v) => compareVersions(installedValue(filter.prop, installed), v) === 0);
      return filter.op === "in" ? found : !found;
    }
    case "eq":
    case "ne":
    case "lt":
    case "gt":
    case "le":
    case "ge": {
      const d = compareVersions(installedValue(filter.prop, installed), filter.value);
      return { eq: d === 0, ne: d !== 0, lt: d < 0, gt: d > 0, le: d <= 0, ge: d >= 0 }[filter.op];
    }
    default:
      throw new ControllerError(
        409,
        `The new package's APP-META.xml <upgrade match> uses ${filter.op}(), which an update rule cannot use (https://docs.cloudblue.com/cbc/sdk/21.0/api/package/updates).`,
      );
  }
}

/** `version` or `release` of the installed package; other metadata is not kept, so nothing else can be compared. */
function installedValue(prop: string, installed: InstalledVersion): string {
  if (prop === "version") return installed.version;
  if (prop === "release") return installed.release;
  throw new ControllerError(
    409,
    `The new package's APP-META.xml <upgrade match> compares "${prop}"; this controller compares only version and release.`,
  );
}

function decodeEntities(text: string): string {
  return text.replace(
    /&(lt|gt|quot|apos|amp);/g,
    (_, e: string) => ({ lt: "<", gt: ">", quot: '"', apos: "'", amp: "&" })[e]!,
  );
}
