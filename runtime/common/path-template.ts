/**
 * Declared operation paths (docs/aps/rest-api.md, "Custom operations": `"path": "/report/{day}"`,
 * each `{name}` a parameter of kind `path`): the one reading of their placeholders that the
 * checker, the emitters, the controller's router and the connector runtime share.
 */

/** `{name}`: a placeholder; a name holds neither braces nor slashes. */
const PLACEHOLDER = /\{([^{}/]+)\}/g;

/** The placeholder names of `template`, in order. */
export function pathParameterNames(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => m[1]!);
}

/** `template` with each placeholder replaced by `value(name)`. */
export function fillPath(template: string, value: (name: string) => string): string {
  return template.replace(PLACEHOLDER, (_m, name: string) => value(name));
}

/** `template` in the route syntax of Hono (and Express): `{day}` is `:day`. */
export function routePattern(template: string): string {
  return fillPath(template, (name) => `:${name}`);
}

/** `template` with its placeholders unnamed: `{id}` and `{name}` match the same requests. */
export function routeShape(template: string): string {
  return fillPath(template, () => "{}");
}
