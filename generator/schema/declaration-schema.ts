/**
 * The JSON Schema of an APS type declaration file (`*.schema`, `*.schema.gen`) that editors use
 * for completion, hover text and first checks while a vendor types. It is built from the
 * compiler's own lists (the attributes each element may carry, names, formats, units, verbs), so
 * it cannot drift from what `aps-gen check` accepts; scripts/write-declaration-schema.mjs writes
 * it to schema/aps-declaration.schema.json, which the package ships.
 *
 * Two promises, both tested against every declaration of the repository and the corpus:
 * - what the compiler accepts, the schema accepts (warnings included: an unknown attribute is
 *   ignored by the compiler, so the schema lets it through and VS Code only shows a warning);
 * - what the compiler rejects and a schema can say (a bad `type`, `format`, `unit`, name, verb,
 *   path, a misspelt attribute...), the schema rejects, with a message in the compiler's words.
 * Rules that need the whole model (references, inheritance, routes) stay the compiler's.
 *
 * Draft-07: the newest draft VS Code's JSON language service supports fully (later drafts only
 * partly), and JetBrains IDEs and ajv support it too; nothing here needs a later draft.
 * Besides the standard keywords it uses VS Code's own annotation keywords, which other tools
 * ignore: `markdownDescription` (hover text), `errorMessage`/`patternErrorMessage` (the message
 * of a failed check) and `deprecationMessage` (a warning that is not a validation error).
 */
import { FORMATS, Limits, UNITS } from "../../runtime/common/limits.ts";
import type { AttributeSpec } from "../load/attributes.ts";
import {
  ACCESS_ROLES,
  ITEMS_ATTRIBUTES,
  NAME_PATTERN,
  OPERATION_ATTRIBUTES,
  PARAMETER_ATTRIBUTES,
  PROPERTY_ATTRIBUTES,
  RELATION_ATTRIBUTES,
  RESPONSE_ATTRIBUTES,
  STRUCTURE_ATTRIBUTES,
  TYPE_ATTRIBUTES,
  VERBS,
} from "../model/read-declaration.ts";

type Schema = Record<string, unknown>;

/** The platform's documentation of property and relation declarations, linked from hover text. */
const PROPERTIES_DOC = "https://docs.cloudblue.com/cbc/sdk/21.0/api/types/type-definition/properties";
const RELATIONS_DOC = "https://docs.cloudblue.com/cbc/sdk/21.0/api/types/type-definition/relations";

const NAME = NAME_PATTERN.source;
const PRIMITIVE_TYPES = ["string", "integer", "number", "boolean", "object", "array"] as const;
/**
 * A type expression the compiler resolves or leaves to another package: a word (primitive,
 * structure, `self`), or anything with `://` or `#` (a type id, `<type-id>#<Structure>`).
 */
const TYPE_NAME = `^(?:${NAME.slice(1, -1)}|.*://.*|.*#.*)$`;
/** What a path or query parameter may be: a primitive, or a `#` reference to a package not among the inputs (the compiler only warns). */
const PARAMETER_PRIMITIVE = "^(?:string|integer|long|number|boolean|(?!.*://).*#.*)$";
/** An http:// type id without port or empty segments whose last segment is a version without leading zeros. */
const TYPE_ID = String.raw`^http://(?:[^/\s:]+/(?:[^/\s]+/)*)?(?:0|[1-9]\d*)(?:\.(?:0|[1-9]\d*))?$`;
const SEGMENT = String.raw`(?:[a-zA-Z][0-9a-zA-Z_]*|\{[a-zA-Z_][a-zA-Z0-9_]*\})`;
/** What `path` may be: `/` alone or words and `{param}`s separated by single slashes; the leading `/` may be left out. */
const OPERATION_PATH = `^/?(?:${SEGMENT}(?:/${SEGMENT})*)?$`;
/** application/json, text/json or any x/y+json, in any case, with parameters (see generator/model/json-media-type.ts). */
const JSON_MEDIA_TYPE = String.raw`^\s*(?:${caseless("application/json")}|${caseless("text/json")}|[a-zA-Z0-9!#$&^_.-]+/[a-zA-Z0-9!#$&^_.+-]+\+${caseless("json")})\s*(?:;.*)?$`;
const TEXT_PLAIN = String.raw`^\s*${caseless("text/plain")}\s*(?:;.*)?$`;

/** The declaration schema, as schema/aps-declaration.schema.json holds it. */
export function declarationSchema(): Schema {
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    title: "APS 2.0 type declaration",
    description:
      "An APS 2.0 type declaration (a .schema or .schema.gen file), as aps-gen reads it. `aps-gen check` runs every rule; this schema runs the ones a single file can show.",
    ...element("type", TYPE_ATTRIBUTES, typeAttributes(), { required: ["apsVersion", "id", "name"] }),
    definitions: {
      property: property(),
      items: element("items", ITEMS_ATTRIBUTES, itemsAttributes(), {
        // null is "not set", as `aps build` writes it.
        type: ["object", "null"],
        description: "The type of each element of the array.",
        required: ["type"],
      }),
      relation: element("relation", RELATION_ATTRIBUTES, relationAttributes(), {
        description: "A relation: a link from resources of this type to resources of another type.",
        required: ["type"],
      }),
      operation: element("operation", OPERATION_ATTRIBUTES, operationAttributes(), {
        description:
          "A custom operation, served by the controller at `/aps/2/resources/<id>/<path>` (or on the collection when `static`) and forwarded to the application.",
        required: ["path", "verb"],
      }),
      parameter: parameter(),
      response: response(true),
      errorResponse: response(false),
      structure: element("structure", STRUCTURE_ATTRIBUTES, structureAttributes(), {
        description:
          "A structure: a named object shape that properties, parameters and responses of this type (and, as `<type-id>#<Name>`, of other types) use as their `type`.",
        required: ["type"],
      }),
      access: {
        type: ["object", "null"],
        description:
          "Which roles may read and write (a property) or call (an operation, a type's resources). Roles left out keep their default.",
        markdownDescription: `Which roles may read and write (a property) or call (an operation, a type's resources): \`admin\`, \`owner\`, \`referrer\`, \`public\`, each \`true\` or \`false\`. Roles left out keep their default (for a property: admin and owner yes, referrer and public no).`,
        propertyNames: {
          enum: [...ACCESS_ROLES],
          errorMessage: `An access role is one of ${[...ACCESS_ROLES].join(", ")}.`,
        },
        properties: Object.fromEntries(
          [...ACCESS_ROLES].map((role) => [role, { type: "boolean", description: ROLE_DESCRIPTIONS[role] }]),
        ),
        additionalProperties: { type: "boolean" },
        defaultSnippets: [{ label: "access", body: { admin: true, owner: true, referrer: false, public: false } }],
      },
    },
  };
}

const ROLE_DESCRIPTIONS: Record<string, string> = {
  admin: "The provider's or reseller's staff managing the subscription.",
  owner: "The customer owning the resource and its users.",
  referrer: "Other applications' resources linked to this one.",
  public: "Anyone, without authentication.",
};

/**
 * An element of a declaration whose attributes the compiler knows (`spec`): each known attribute
 * gets its schema from `attributes` (every one must have one, with a description), a near miss of
 * a known attribute is an error as in the compiler (APS031), and any other key is accepted with a
 * warning, since the compiler ignores it (APS026).
 */
function element(what: string, spec: AttributeSpec, attributes: Record<string, Schema>, extra: Schema): Schema {
  const names = Object.keys(spec);
  const missing = names.filter((n) => attributes[n] === undefined || typeof attributes[n]!.description !== "string");
  if (missing.length)
    throw new Error(`declaration schema: ${what} attribute(s) ${missing.join(", ")} have no schema with a description`);
  return {
    type: "object",
    ...extra,
    properties: attributes,
    patternProperties: Object.fromEntries(
      names.map((name) => [
        misspelling(name, Object.keys(attributes)),
        {
          not: {},
          errorMessage: `Misspelt attribute: did you mean "${name}"? As written it is ignored, and "${name}" is not set.`,
        },
      ]),
    ),
    additionalProperties: {
      deprecationMessage: `Not an attribute of a ${what}: aps-gen ignores it (known attributes: ${names.join(", ")}).`,
    },
  };
}

const stringOrNull = (description: string, extra: Schema = {}): Schema => ({
  type: ["string", "null"],
  description,
  ...extra,
});
const booleanOrNull = (description: string, extra: Schema = {}): Schema => ({
  type: ["boolean", "null"],
  description,
  ...extra,
});
const objectOrNull = (description: string, extra: Schema = {}): Schema => ({
  type: ["object", "null"],
  description,
  ...extra,
});
const ref = (name: string, description: string, extra: Schema = {}): Schema => ({
  $ref: `#/definitions/${name}`,
  description,
  ...extra,
});
/** An attribute that must be left out (or null) in this context, with the compiler's reason. */
const absent = (errorMessage: string): Schema => ({ type: "null", errorMessage });

function typeAttributes(): Record<string, Schema> {
  return {
    apsVersion: {
      const: "2.0",
      description: 'The APS version of the declaration: always the string "2.0".',
      errorMessage: 'APS 2 declarations use "apsVersion": "2.0" (a string).',
    },
    id: {
      type: "string",
      pattern: TYPE_ID,
      description:
        "The type id: an http:// URI, without port, ending in the version, such as http://vendor.example/types/mailbox/1.0.",
      markdownDescription: `The **type id**: an \`http://\` URI without port or empty segments whose last segment is the version (\`1\`, \`1.0\`, no leading zeros), e.g. \`http://vendor.example/types/mailbox/1.0\`. Other declarations refer to the type by it.`,
      patternErrorMessage:
        "A type id is an http:// URI without port or spaces, ending in a version segment such as /1.0 (no leading zeros).",
    },
    name: {
      type: "string",
      pattern: NAME,
      description: "The type's name: one word, used for the generated TypeScript names.",
      patternErrorMessage: "A type name is one word matching ^[a-zA-Z_][a-zA-Z0-9_]*$.",
    },
    implements: {
      type: ["array", "null"],
      items: { type: "string", description: "The type id of a parent type." },
      description:
        "The type ids this type inherits from. A resource type implements http://aps-standard.org/types/core/resource/1.0 (directly or through a parent).",
      markdownDescription: `The type ids this type inherits properties, relations, operations and structures from. A resource type implements \`http://aps-standard.org/types/core/resource/1.0\`, directly or through a parent; the application's root type implements \`.../core/application/1.0\`.`,
      errorMessage: '"implements" is an array of type id strings.',
      examples: [["http://aps-standard.org/types/core/resource/1.0"]],
    },
    description: stringOrNull("A description of the type, for people reading the declaration and the generated code."),
    title: stringOrNull("A short, human-readable title of the type."),
    access: ref("access", "Which roles may see and manage resources of this type."),
    properties: objectOrNull("The type's properties, by name: the members a resource of this type has besides `aps`.", {
      markdownDescription: `The type's **properties**, by name: each key is a property name (one word, \`^[a-zA-Z_][a-zA-Z0-9_]*$\`) and each value its attributes, of which only \`type\` is mandatory. See [property declarations](${PROPERTIES_DOC}).`,
      propertyNames: {
        pattern: NAME,
        errorMessage: "A property name is one word matching ^[a-zA-Z_][a-zA-Z0-9_]*$ (no spaces or dashes).",
      },
      additionalProperties: { $ref: "#/definitions/property" },
    }),
    relations: objectOrNull("The type's relations to other resources, by name.", {
      markdownDescription: `The type's **relations**, by name: links to resources of another type (\`type\`), one or many (\`collection\`), optional or not (\`required\`). See [relation declarations](${RELATIONS_DOC}).`,
      propertyNames: { pattern: NAME, errorMessage: "A relation name is one word matching ^[a-zA-Z_][a-zA-Z0-9_]*$." },
      additionalProperties: { $ref: "#/definitions/relation" },
    }),
    operations: objectOrNull("The type's custom operations, by name.", {
      markdownDescription: `The type's **custom operations**, by name: each has a \`path\` and a \`verb\`, and may declare \`parameters\`, \`response\`, \`errorResponse\`, \`static\` and \`access\`.`,
      additionalProperties: { $ref: "#/definitions/operation" },
    }),
    structures: objectOrNull("The type's structures (named object shapes), by name.", {
      markdownDescription: `The type's **structures**, by name: object shapes (\`{"type": "object", "properties": {...}}\`) that properties, parameters and responses name as their \`type\`. See [property declarations](${PROPERTIES_DOC}).`,
      propertyNames: { pattern: NAME, errorMessage: "A structure name is one word matching ^[a-zA-Z_][a-zA-Z0-9_]*$." },
      additionalProperties: { $ref: "#/definitions/structure" },
    }),
    required: {
      description: 'Not an attribute of a type: APS marks each property required with its own `"required": true`.',
      deprecationMessage:
        'A type has no "required" list (aps-gen ignores it): write "required": true on each property instead.',
      doNotSuggest: true,
    },
  };
}

/**
 * A `type` attribute: a word (a primitive or a structure) or anything with `://`. `forbidden`
 * lists the words this context rejects (`long` outside parameters, `array` for array elements).
 */
function typeExpression(
  context: string,
  forbidden: { readonly words: readonly string[]; readonly errorMessage: string } | undefined,
  extra: Schema = {},
): Schema {
  return {
    type: "string",
    pattern: TYPE_NAME,
    description: `The ${context} type: string, integer, number, boolean, object, array (with items), a structure name, <type-id>#<Structure>, or a type id.`,
    markdownDescription: `The ${context} type: \`string\`, \`integer\`, \`number\`, \`boolean\`, \`object\`, \`array\` (give \`items\`), the name of a structure of this type, \`<type-id>#<Structure>\` for another type's structure, or a type id (a resource of that type). \`integer\` holds the full signed 64-bit range.`,
    patternErrorMessage:
      "A type is a primitive (string, integer, number, boolean, object, array), a structure name, <type-id>#<Structure>, or a type id.",
    examples: [...PRIMITIVE_TYPES],
    ...(forbidden && { allOf: [{ not: { enum: forbidden.words }, errorMessage: forbidden.errorMessage }] }),
    ...extra,
  };
}

const NOT_LONG = {
  words: ["long"],
  errorMessage: '"long" is a parameter type only; use "integer", which holds the full signed 64-bit range.',
};

function propertyAttributes(): Record<string, Schema> {
  return {
    type: typeExpression("property's", NOT_LONG),
    items: ref("items", 'The element type of an array: required when "type" is "array", and only then.'),
    description: stringOrNull("A full description of the property."),
    title: stringOrNull("A short, human-readable title of the property, for user interfaces."),
    required: booleanOrNull("The resource must have a value for this property (default false).", {
      errorMessage: '"required" is true or false on each property (APS has no list of required properties).',
    }),
    readonly: booleanOrNull(
      "Users cannot edit this property in the user interface; the application sets it (default false).",
    ),
    final: booleanOrNull(
      "The value can be given when the resource is created and never changed after (default false).",
    ),
    encrypted: booleanOrNull(
      "The value is a secret: stored encrypted, never logged, and not returned to users (default false).",
      {
        markdownDescription: `The value is a **secret**: stored encrypted, never logged, and not returned to user or account tokens (the application reads it with its certificate). Not supported on members of a structure that is an array element. See [property declarations](${PROPERTIES_DOC}).`,
      },
    ),
    headline: booleanOrNull("User interfaces show this property when they list resources of the type (default false)."),
    unit: {
      enum: [...UNITS, null],
      description: `The measurement unit of the value: ${[...UNITS].join(", ")}.`,
      markdownDescription: `The **unit** of the value: \`item\`/\`unit\` (a count), \`kb\`, \`mb\`, \`gb\`, or an additive unit that accumulates over time for pay-as-you-go: \`item-h\`, \`unit-h\`, \`mb-h\`, \`mhzh\`. Lower case. See [property declarations](${PROPERTIES_DOC}).`,
      errorMessage: `A unit is one of ${[...UNITS].join(", ")} (lower case).`,
    },
    format: {
      enum: [...FORMATS, null],
      description: `What a string value means, for user interfaces (not validated): ${[...FORMATS].join(", ")}.`,
      markdownDescription: `What a string value means, for user interfaces; the controller does not validate it. One of ${[...FORMATS].map((f) => `\`${f}\``).join(", ")}. For any other shape, use \`pattern\`. See [property declarations](${PROPERTIES_DOC}).`,
      errorMessage: `A format is one of ${[...FORMATS].join(", ")}; use "pattern" for anything else.`,
    },
    pattern: stringOrNull("A regular expression (ECMA-262) every string value must match.", { format: "regex" }),
    default: {
      description:
        "A value clients may offer when creating a resource; it must fit the type (and enum, pattern and lengths).",
    },
    enum: {
      type: ["array", "null"],
      minItems: 1,
      uniqueItems: true,
      description: "The only values allowed, each of the property's type, all distinct.",
      errorMessage: '"enum" is a non-empty array of distinct values of the property\'s type.',
    },
    enumTitles: {
      type: ["array", "null"],
      items: { type: "string" },
      description: "One display title per enum value, in the same order.",
    },
    minLength: length("The fewest characters a string value may have."),
    maxLength: length(`The most characters a string value may have (at most ${Limits.maxStringLength}).`),
    minItems: count("The fewest items an array value may have."),
    maxItems: count("The most items an array value may have."),
    uniqueItems: booleanOrNull("No two items of an array value may be equal (default false)."),
    access: ref(
      "access",
      "Which roles may read and write this property (default: admin and owner yes, referrer and public no).",
    ),
    minimum: {
      description: "Not an APS attribute: APS 2.0 declares no numeric bounds.",
      deprecationMessage:
        'APS 2.0 has no "minimum": aps-gen ignores it; check the value in your application (or use an enum).',
      doNotSuggest: true,
    },
    maximum: {
      description: "Not an APS attribute: APS 2.0 declares no numeric bounds.",
      deprecationMessage:
        'APS 2.0 has no "maximum": aps-gen ignores it; check the value in your application (or use an enum).',
      doNotSuggest: true,
    },
  };
}

function length(description: string): Schema {
  return {
    type: ["integer", "null"],
    minimum: 0,
    maximum: Limits.maxStringLength,
    description,
    errorMessage: `A length is an integer from 0 to ${Limits.maxStringLength}.`,
  };
}

function count(description: string): Schema {
  return {
    type: ["integer", "null"],
    minimum: 0,
    description,
    errorMessage: "An item count is an integer, 0 or more.",
  };
}

/**
 * A property, with the rules that depend on its type: `items` exactly for arrays, string and
 * array constraints only on those, and `default`/`enum` values of the property's type. A type
 * id or `<type-id>#<Structure>` may name a type outside the inputs, which the compiler does not
 * judge, so neither does the schema.
 */
function property(): Schema {
  const base = element("property", PROPERTY_ATTRIBUTES, propertyAttributes(), {
    description: "A property: a member of every resource of the type. Only `type` is mandatory.",
    required: ["type"],
    defaultSnippets: [
      { label: "string property", body: { type: "string", description: "$1" } },
      { label: "array property", body: { type: "array", items: { type: "string" } } },
    ],
  });
  const notString = (attr: string) => absent(`"${attr}" applies only to string properties.`);
  const notArray = (attr: string) => absent(`"${attr}" applies only to array properties.`);
  const stringOnly = {
    minLength: notString("minLength"),
    maxLength: notString("maxLength"),
    pattern: notString("pattern"),
  };
  const arrayOnly = {
    minItems: notArray("minItems"),
    maxItems: notArray("maxItems"),
    uniqueItems: { enum: [false, null], errorMessage: '"uniqueItems" applies only to array properties.' },
  };
  const values = (jsonType: string, extra: Schema = {}) => ({
    default: {
      type: [jsonType, "null"],
      errorMessage: `The default must be ${article(jsonType)} ${jsonType}, like the property.`,
      ...extra,
    },
    enum: {
      items: {
        type: jsonType,
        errorMessage: `Every enum value must be ${article(jsonType)} ${jsonType}, like the property.`,
        ...extra,
      },
    },
  });
  const when = (type: Schema, then: Record<string, Schema>): Schema => ({
    if: { properties: { type }, required: ["type"] },
    then: { properties: then },
  });
  const string = { maxLength: Limits.maxStringLength };
  return {
    ...base,
    allOf: [
      typeArrayNeedsItems(true),
      when({ const: "string" }, { ...arrayOnly, ...values("string", string) }),
      when({ const: "array" }, { ...stringOnly, ...values("array") }),
      ...(["integer", "number", "boolean", "object"] as const).map((t) =>
        when({ const: t }, { ...stringOnly, ...arrayOnly, ...values(t) }),
      ),
      // A structure of this type (a word that is no primitive); `self` values cannot be judged.
      when(
        { pattern: `^${NAME.slice(1, -1)}$`, not: { enum: [...PRIMITIVE_TYPES, "self"] } },
        { ...stringOnly, ...arrayOnly, ...values("object") },
      ),
      when({ const: "self" }, { ...stringOnly, ...arrayOnly }),
      {
        if: { required: ["enumTitles"], properties: { enumTitles: { type: "array" } } },
        then: {
          required: ["enum"],
          properties: { enum: { type: "array", errorMessage: '"enumTitles" needs "enum": one title per enum value.' } },
        },
      },
    ],
  };
}

function itemsAttributes(): Record<string, Schema> {
  return {
    type: typeExpression("element", {
      words: ["long", "array"],
      errorMessage:
        'Array elements cannot be arrays (model the inner list as a structure), and "long" is a parameter type only.',
    }),
    description: stringOrNull("A description of the elements."),
    title: stringOrNull("A short title of the elements."),
    items: {
      ...absent('Array elements cannot be arrays, so "items" has no "items".'),
      description: "Not allowed: array elements cannot be arrays.",
    },
  };
}

function relationAttributes(): Record<string, Schema> {
  return {
    type: {
      type: "string",
      pattern: "^[^#]*://[^#]*$",
      description: "The type id of the linked resources.",
      markdownDescription: `The **type id** of the linked resources, e.g. \`http://aps-standard.org/types/core/account/1.0\` (not a primitive or a structure). See [relation declarations](${RELATIONS_DOC}).`,
      patternErrorMessage:
        "A relation links resources: give a type id such as http://aps-standard.org/types/core/account/1.0.",
    },
    required: booleanOrNull("The resource must be linked (at least one resource, for a collection) (default false)."),
    collection: booleanOrNull("The relation links any number of resources instead of one (default false)."),
    description: stringOrNull("A description of the relation."),
    title: stringOrNull("A short title of the relation."),
    access: ref("access", "Which roles may see and change the relation."),
    assign: objectOrNull("How the platform assigns the linked resource."),
    backrel: booleanOrNull("Whether the other type declares the reverse relation."),
    allocate: stringOrNull(
      "How the linked resource is allocated, as `aps build` writes it from a PHP @allocate annotation.",
    ),
  };
}

function operationAttributes(): Record<string, Schema> {
  return {
    name: stringOrNull("The operation's name; the key is the name, so this must equal it."),
    path: {
      type: "string",
      pattern: OPERATION_PATH,
      description:
        "The path after the resource (or, when static, the collection): words and {param} segments, e.g. /reset or /users/{userId}.",
      markdownDescription: `The path after \`/aps/2/resources/<id>\` (after the collection when \`static\`): segments matching \`[a-zA-Z][0-9a-zA-Z_]*\` or \`{param}\` (each declared as a parameter of kind \`path\`), e.g. \`/reset\`, \`/users/{userId}\`, or \`/\` for the resource itself. It must not start with a relation name.`,
      patternErrorMessage:
        'Path segments are words matching [a-zA-Z][0-9a-zA-Z_]* or {param}, separated by single slashes (query arguments are parameters of kind "query").',
      examples: ["/", "/reset"],
    },
    verb: {
      enum: [...VERBS],
      description: "The HTTP method of the operation.",
      errorMessage: "The verb is GET, POST, PUT or DELETE (upper case).",
    },
    static: booleanOrNull(
      "The operation is called on the collection (no resource id in the path) instead of one resource (default false).",
    ),
    parameters: objectOrNull("The operation's parameters, by name: path, query or body.", {
      additionalProperties: { $ref: "#/definitions/parameter" },
    }),
    response: ref(
      "response",
      "What the operation returns on success: a `type` (JSON) or a `contentType` (anything else).",
    ),
    errorResponse: ref(
      "errorResponse",
      "What the operation returns on failure: a `type`, typically a structure with code, error and message.",
    ),
    access: ref("access", "Which roles may call the operation."),
    description: stringOrNull("A description of the operation."),
    summary: stringOrNull("A one-line summary of the operation (used as its description when there is none)."),
    eventSubscription: objectOrNull("For an event handler: the event it subscribes to, as `aps build` writes it."),
  };
}

function parameterAttributes(): Record<string, Schema> {
  return {
    kind: {
      enum: ["path", "query", "body"],
      description: "How the parameter is passed: a {param} of the path, a query argument, or the request body.",
      errorMessage: 'A parameter\'s kind is "path", "query" or "body".',
    },
    type: typeExpression("parameter", undefined, {
      // null is "not set": a body passed on unchecked, a path or query value as a string (a warning).
      type: ["string", "null"],
      description:
        "The parameter's type: a primitive (string, integer, long, number, boolean) for path and query; for a body also a structure, array or type id.",
      examples: ["string", "integer", "long", "number", "boolean"],
    }),
    contentType: stringOrNull("The media type of a non-JSON body (only for kind body, and instead of `type`)."),
    required: booleanOrNull("The caller must give the parameter (default false)."),
    description: stringOrNull("A description of the parameter."),
    title: stringOrNull("A short title of the parameter."),
    // Read only beside "type": "array" (typeArrayNeedsItems), as the compiler reads it.
    items: objectOrNull('The element type, when "type" is "array".'),
  };
}

function parameter(): Schema {
  const base = element("parameter", PARAMETER_ATTRIBUTES, parameterAttributes(), {
    description: "A parameter of the operation.",
    required: ["kind"],
  });
  return {
    ...base,
    allOf: [
      {
        if: { properties: { kind: { enum: ["path", "query"] } }, required: ["kind"] },
        then: {
          properties: {
            type: {
              pattern: PARAMETER_PRIMITIVE,
              patternErrorMessage:
                'A path or query parameter is a primitive: string, integer, long, number or boolean; send structured data in a parameter of kind "body".',
            },
          },
        },
      },
      // A content type beside a type must be JSON (then it is redundant); without a type, only a body has one.
      {
        if: { properties: { type: { type: "string" } }, required: ["type"] },
        then: {
          properties: {
            contentType: {
              pattern: JSON_MEDIA_TYPE,
              patternErrorMessage:
                '"type" means a JSON value; a non-JSON "contentType" cannot go with it, so keep one.',
            },
          },
        },
        else: {
          if: { properties: { kind: { enum: ["path", "query"] } }, required: ["kind"] },
          then: { properties: { contentType: absent('"contentType" is allowed only on parameters of kind "body".') } },
        },
      },
      typeArrayNeedsItems(true),
    ],
  };
}

/**
 * `items`, and what it holds, when `type` is "array"; with `onlyForArrays`, no `items` beside
 * another type (a response may carry them anyway, unread, and without a `type` nothing is read,
 * as in the compiler).
 */
function typeArrayNeedsItems(onlyForArrays: boolean): Schema {
  return {
    if: { properties: { type: { const: "array" } }, required: ["type"] },
    then: {
      required: ["items"],
      properties: {
        items: {
          $ref: "#/definitions/items",
          type: "object",
          errorMessage: 'An array needs "items", e.g. {"type": "string"}.',
        },
      },
    },
    ...(onlyForArrays && {
      else: {
        if: { properties: { type: { type: "string" } }, required: ["type"] },
        then: { properties: { items: absent('"items" is allowed only when "type" is "array".') } },
      },
    }),
  };
}

const BOTH = '"type" means a JSON response and a non-JSON "contentType" another format: keep one.';

function response(success: boolean): Schema {
  const attributes: Record<string, Schema> = {
    type: typeExpression("response", NOT_LONG, { type: ["string", "null"] }),
    contentType: success
      ? stringOrNull("The media type of a non-JSON response (e.g. text/csv, image/png), instead of `type`.")
      : {
          ...absent('An error response is JSON: describe it with a "type", not a "contentType".'),
          description: "Not allowed in an error response, which is always JSON.",
        },
    // Read only beside "type": "array" (typeArrayNeedsItems), as the compiler reads it.
    items: objectOrNull('The element type, when "type" is "array".'),
    description: stringOrNull("A description of what is returned."),
    title: stringOrNull("A short title of what is returned."),
    // aps-gen does not read it, so the schema does not judge it either.
    properties: objectOrNull(
      "The members of an inline object response (not read by aps-gen: name a structure as the type instead).",
    ),
  };
  const base = element(success ? "response" : "error response", RESPONSE_ATTRIBUTES, attributes, {
    type: ["object", "null"],
    description: success ? "What the operation returns on success." : "What the operation returns on failure.",
  });
  return {
    ...base,
    allOf: [
      typeArrayNeedsItems(false),
      ...(success
        ? [
            {
              if: {
                properties: { type: { type: "string" }, contentType: { type: "string" } },
                required: ["type", "contentType"],
              },
              // A JSON content type is redundant; a string beside text/plain is read as a text reply.
              then: {
                if: { properties: { type: { const: "string" } } },
                then: {
                  properties: {
                    contentType: { pattern: `(?:${JSON_MEDIA_TYPE})|(?:${TEXT_PLAIN})`, patternErrorMessage: BOTH },
                  },
                },
                else: { properties: { contentType: { pattern: JSON_MEDIA_TYPE, patternErrorMessage: BOTH } } },
              },
            },
          ]
        : []),
    ],
  };
}

function structureAttributes(): Record<string, Schema> {
  return {
    type: {
      const: "object",
      description: 'Always "object".',
      errorMessage: 'A structure is declared with "type": "object".',
    },
    properties: objectOrNull("The structure's members, declared like the type's properties.", {
      propertyNames: { pattern: NAME, errorMessage: "A property name is one word matching ^[a-zA-Z_][a-zA-Z0-9_]*$." },
      additionalProperties: { $ref: "#/definitions/property" },
    }),
    description: stringOrNull("A description of the structure."),
    title: stringOrNull("A short title of the structure."),
    required: {
      description: 'Not an attribute of a structure: mark each member required with its own `"required": true`.',
      deprecationMessage:
        'A structure has no "required" list (aps-gen ignores it): write "required": true on each member instead.',
      doNotSuggest: true,
    },
  };
}

/**
 * A regular expression for keys the compiler takes for a misspelling of `name` (see
 * generator/diagnostics/did-you-mean.ts): the same word in other letter case, one letter added,
 * left out or changed, and, in names of six letters or more (where the compiler allows two
 * edits), two neighbours swapped. Other near misses of long names are left to the compiler. The
 * element's known attributes are excluded, since they are not misspellings.
 */
export function misspelling(name: string, known: readonly string[]): string {
  const chars = [...name].map(letter);
  const variants: string[] = [];
  for (let i = 0; i <= chars.length; i++) {
    const before = chars.slice(0, i).join("");
    // Left out or changed at i, or one letter added before i.
    if (i < chars.length)
      variants.push(`${before}.?${chars.slice(i + 1).join("")}`, `${before}.${chars.slice(i).join("")}`);
    else variants.push(`${before}.`);
    if (chars.length >= 6 && i + 1 < chars.length)
      variants.push(`${before}${chars[i + 1]}${chars[i]}${chars.slice(i + 2).join("")}`);
  }
  return `^(?!(?:${known.map(escapeRegExp).join("|")})$)(?:${variants.join("|")})$`;
}

function letter(c: string): string {
  const lower = c.toLowerCase();
  const upper = c.toUpperCase();
  return lower === upper ? escapeRegExp(c) : `[${lower}${upper}]`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Each letter in both cases, for media types compared case-insensitively. */
function caseless(text: string): string {
  return [...text].map(letter).join("");
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? "an" : "a";
}

/** The schema as the file holds it: two-space JSON and a final newline. */
export function declarationSchemaText(schema: Schema): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}
