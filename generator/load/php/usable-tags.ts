import { Codes } from "../../diagnostics/codes.ts";
import type { DiagnosticSink } from "../../diagnostics/diagnostic.ts";
import { closestMatch } from "../../diagnostics/did-you-mean.ts";
import type { SourceFile } from "../source-file.ts";
import { readDocTags, type DocComment, type DocTag } from "./doc-tags.ts";

/**
 * Ordinary PHPDoc tags: documentation for people, not APS annotations. They are skipped
 * without a word, as `aps build` skips them. `@param`/`@return`/`@link` without parentheses
 * are PHPDoc too (`@param string $x`); with parentheses they are APS annotations.
 */
const PHPDOC_TAGS = new Set([
  "var",
  "author",
  "throws",
  "codeCoverageIgnore",
  "see",
  "package",
  "subpackage",
  "since",
  "version",
  "deprecated",
  "todo",
  "internal",
  "license",
  "copyright",
  "inheritdoc",
  "inheritDoc",
  "api",
  "example",
  "global",
  "ignore",
  "uses",
  "used-by",
  "method",
  "property",
  "property-read",
  "property-write",
  "category",
  "filesource",
  "final",
  "abstract",
  "access",
  "name",
  "staticvar",
  "tutorial",
  "source",
  "override",
  "noinspection",
  "phpstan-ignore",
  "psalm-suppress",
  "suppress",
  "SuppressWarnings",
]);
const PHPDOC_WITHOUT_PARENTHESES = new Set(["param", "return", "link", "static", "access", "final", "var"]);

/** Where a doc comment sits, for messages. */
export type TagSite = "class" | "property" | "method";

/**
 * The tags of a doc comment that take effect. A tag followed by text on its line is dropped,
 * as `aps build` drops it, with a warning. Tags that are neither in `known` nor PHPDoc are
 * reported as unknown. PHPDoc-only tags are left out silently.
 */
export function usableTags(
  doc: DocComment | undefined,
  file: SourceFile,
  sink: DiagnosticSink,
  site: TagSite,
  known: ReadonlySet<string>,
): DocTag[] {
  if (!doc) return [];
  const out: DocTag[] = [];
  for (const tag of readDocTags(doc, file)) {
    const isAps =
      known.has(tag.name) &&
      !(tag.args === undefined && PHPDOC_WITHOUT_PARENTHESES.has(tag.name) && !flagTags.has(tag.name));
    if (!isAps) {
      if (PHPDOC_TAGS.has(tag.name) || PHPDOC_WITHOUT_PARENTHESES.has(tag.name)) continue;
      const meant = closestMatch(tag.name, known);
      sink.report(
        Codes.phpAnnotationUnknown,
        tag.loc,
        `@${tag.name} is not an APS annotation of a ${site} (tag names are case-sensitive); it is ignored.${meant === undefined ? "" : ` Did you mean @${meant}?`} Known here: ${[...known].map((k) => `@${k}`).join(", ")}.`,
        meant === undefined ? undefined : { written: `@${tag.name}`, replacement: `@${meant}` },
      );
      continue;
    }
    if (tag.unterminated) {
      sink.report(
        Codes.phpAnnotationIgnored,
        tag.loc,
        `@${tag.name}( has no closing ")" on its line; an annotation must fit on one line, so it is ignored.`,
      );
      continue;
    }
    if (tag.trailing !== undefined) {
      sink.report(
        Codes.phpAnnotationIgnored,
        tag.loc,
        `@${tag.name} is followed by "${tag.trailing}" on its line; "aps build" drops such a tag, so it is ignored. Put the text on a line of its own.`,
      );
      continue;
    }
    out.push(tag);
  }
  return out;
}

/**
 * Tags that are APS flags even without parentheses (`@static` and `@final` are also PHPDoc
 * words, but on a method or property of an APS class they mean the APS attribute).
 */
const flagTags = new Set(["static", "final", "required", "readonly", "encrypted", "headline"]);

/** The first tag of a name, if any. */
export function firstTag(tags: readonly DocTag[], name: string): DocTag | undefined {
  return tags.find((t) => t.name === name);
}
