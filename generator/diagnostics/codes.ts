/** How bad a finding is. Errors fail `check` and `build`; warnings only with --warn-as-error. */
export type Severity = "error" | "warning";

/** A declaration rule: its stable code, name and default severity. */
export interface DiagnosticCode {
  readonly code: string;
  readonly rule: string;
  readonly severity: Severity;
  /** What the rule is about, for `--format json` consumers and the README table. */
  readonly summary: string;
}

function rule(code: string, name: string, severity: Severity, summary: string): DiagnosticCode {
  return { code, rule: name, severity, summary };
}

/**
 * Every rule aps-gen checks. Codes are stable: a retired rule keeps its number unused.
 * Grouped by hundreds-ish: input and packages (0xx), types (02x), properties (04x),
 * relations (07x), operations (08x), structures (11x).
 */
export const Codes = {
  // Input, JSON and packages
  jsonSyntax: rule("APS001", "json-syntax", "error", "The declaration is not valid JSON (comments are allowed)."),
  duplicateKey: rule(
    "APS002",
    "duplicate-key",
    "error",
    "A JSON object repeats a key; the earlier value would be silently lost.",
  ),
  appMetaInvalid: rule(
    "APS003",
    "app-meta-invalid",
    "error",
    "APP-META.xml is not well-formed or not an APS 2 application descriptor.",
  ),
  schemaFileMissing: rule(
    "APS004",
    "schema-file-missing",
    "error",
    "A <schema path> named in APP-META.xml does not exist in the package.",
  ),
  // APS005 (service-without-schema, a warning) is retired: such a service is now read from its
  // PHP code, and one whose type cannot be found at all is APS011.
  serviceIdWhitespace: rule(
    "APS006",
    "service-id-whitespace",
    "warning",
    "A <service id> has surrounding whitespace; it is trimmed.",
  ),
  duplicateService: rule("APS007", "duplicate-service", "error", "Two <service> elements have the same id."),
  noApplicationType: rule(
    "APS008",
    "no-application-type",
    "error",
    "No type of the package implements core/application/1.0.",
  ),
  duplicateTypeId: rule("APS009", "duplicate-type-id", "error", "Two declarations have the same type id."),
  declarationNotObject: rule(
    "APS010",
    "declaration-not-object",
    "error",
    "A declaration file must hold one JSON object.",
  ),
  serviceTypeMissing: rule(
    "APS011",
    "service-type-missing",
    "error",
    "A <service>'s type loads in no way: no <schema> file and no readable PHP class with @type.",
  ),
  phpSyntax: rule(
    "APS012",
    "php-syntax",
    "error",
    "A PHP script of the package does not parse, so its annotations cannot be read.",
  ),
  phpAnnotationUnknown: rule(
    "APS013",
    "php-annotation-unknown",
    "warning",
    "A PHP doc-comment tag is not an APS annotation aps-gen knows; it is ignored.",
  ),
  phpAnnotationIgnored: rule(
    "APS014",
    "php-annotation-ignored",
    "warning",
    "An APS annotation that `aps build` drops (text after it on its line, @default, a @param with no PHP argument...); it is ignored here too.",
  ),
  phpIncludeMissing: rule(
    "APS015",
    "php-include-missing",
    "warning",
    "A require/include of a PHP script names a file that is not in the package (or cannot be worked out).",
  ),
  ideModelNotRead: rule(
    "APS016",
    "ide-model-not-read",
    "warning",
    "Services did not load and the package has an APS IDE model.types, which is not a declaration (aps build ignores it; it lacks most attributes).",
  ),

  // Types
  apsVersion: rule("APS020", "aps-version", "error", '`apsVersion` must be the string "2.0".'),
  typeIdInvalid: rule(
    "APS021",
    "type-id-invalid",
    "error",
    "`id` must be an http:// URI ending in a version segment such as /1.0.",
  ),
  typeNameInvalid: rule("APS022", "type-name-invalid", "error", "`name` must match ^[a-zA-Z_][a-zA-Z0-9_]*$."),
  implementsInvalid: rule("APS023", "implements-invalid", "error", "`implements` must be an array of type ids."),
  implementsCycle: rule("APS024", "implements-cycle", "error", "A type implements itself through its parents."),
  externalReference: rule(
    "APS025",
    "external-reference",
    "warning",
    "A referenced type is not among the inputs; it is treated as opaque.",
  ),
  unknownAttribute: rule(
    "APS026",
    "unknown-attribute",
    "warning",
    "An attribute is not part of APS 2.0 for this element and is ignored.",
  ),
  attributeValueType: rule(
    "APS027",
    "attribute-value-type",
    "error",
    "An attribute has a value of the wrong JSON type.",
  ),
  notAResource: rule(
    "APS028",
    "not-a-resource",
    "warning",
    "A package type does not implement core/resource/1.0, so it cannot be instantiated.",
  ),
  redefinitionChangesType: rule(
    "APS029",
    "redefinition-changes-type",
    "error",
    "A redefined inherited property changes its type, which is not backward compatible.",
  ),
  misspeltAttribute: rule(
    "APS031",
    "misspelt-attribute",
    "error",
    "An attribute name is a misspelling of an APS attribute (other letter case, or a letter or two off); the attribute it meant is not set.",
  ),
  conflictingInheritance: rule(
    "APS030",
    "conflicting-inheritance",
    "warning",
    "Two parents declare the same element differently; the first parent wins.",
  ),

  // Properties
  propertyNameInvalid: rule(
    "APS040",
    "property-name-invalid",
    "error",
    "A property name must match ^[a-zA-Z_][a-zA-Z0-9_]*$.",
  ),
  propertyTypeMissing: rule(
    "APS041",
    "property-type-missing",
    "error",
    "`type` is the one mandatory attribute of a property.",
  ),
  typeUnknown: rule(
    "APS042",
    "type-unknown",
    "error",
    "A type name is neither a primitive, a known structure nor a type id.",
  ),
  arrayItemsMissing: rule(
    "APS043",
    "array-items-missing",
    "error",
    "A property of type array needs `items` with a `type`.",
  ),
  nestedArray: rule("APS044", "nested-array", "error", "Arrays cannot contain arrays."),
  unknownUnit: rule("APS045", "unknown-unit", "error", "`unit` must be one of the APS units (docs/aps/resources.md)."),
  unknownFormat: rule(
    "APS046",
    "unknown-format",
    "error",
    "`format` must be one of the APS formats (docs/aps/resources.md).",
  ),
  formatNotString: rule("APS047", "format-not-string", "warning", "`format` is used only for string properties."),
  patternInvalid: rule("APS048", "pattern-invalid", "error", "`pattern` is not a valid ECMA-262 regular expression."),
  constraintNotApplicable: rule(
    "APS049",
    "constraint-not-applicable",
    "error",
    "A constraint does not apply to the property's type (e.g. maxLength on an integer).",
  ),
  boundsInvalid: rule(
    "APS050",
    "bounds-invalid",
    "error",
    "A length or item bound is negative, beyond the APS limits (docs/aps/resources.md), or min exceeds max.",
  ),
  defaultTypeMismatch: rule("APS051", "default-type-mismatch", "error", "`default` does not match the property type."),
  enumInvalid: rule(
    "APS052",
    "enum-invalid",
    "error",
    "`enum` must be a non-empty array of distinct values of the property type.",
  ),
  enumTitlesMismatch: rule(
    "APS053",
    "enum-titles-mismatch",
    "error",
    "`enumTitles` must hold one string per `enum` value.",
  ),
  defaultNotInEnum: rule("APS054", "default-not-in-enum", "error", "`default` is not one of the `enum` values."),
  valueOutOfRange: rule(
    "APS055",
    "value-out-of-range",
    "error",
    "A literal exceeds the APS limits (64-bit integers, 4000-character strings).",
  ),
  accessInvalid: rule(
    "APS056",
    "access-invalid",
    "error",
    "An access object may only map admin, owner, referrer and public to booleans.",
  ),
  encryptedInArray: rule(
    "APS057",
    "encrypted-in-array",
    "error",
    "`encrypted` is not supported on elements of an array inside a structure.",
  ),
  itemsNotArray: rule("APS058", "items-not-array", "error", "`items` is only allowed when `type` is array."),

  // Relations
  relationNameInvalid: rule(
    "APS070",
    "relation-name-invalid",
    "error",
    "A relation name must match ^[a-zA-Z_][a-zA-Z0-9_]*$.",
  ),
  relationTypeMissing: rule(
    "APS071",
    "relation-type-missing",
    "error",
    "A relation needs `type`: the type id of the other end.",
  ),
  relationNameConflict: rule(
    "APS072",
    "relation-name-conflict",
    "error",
    "A relation has the same name as a property of the type.",
  ),
  relationTargetInvalid: rule(
    "APS073",
    "relation-target-invalid",
    "error",
    "A relation must point at a type id, not a primitive or structure.",
  ),

  // Operations
  operationVerbInvalid: rule("APS080", "operation-verb-invalid", "error", "`verb` must be GET, POST, PUT or DELETE."),
  operationPathInvalid: rule(
    "APS081",
    "operation-path-invalid",
    "error",
    "`path` segments must match [a-zA-Z][0-9a-zA-Z_]* or be a {param}.",
  ),
  duplicateOperationRoute: rule(
    "APS082",
    "duplicate-operation-route",
    "error",
    "Two operations of one type have the same path and verb.",
  ),
  pathEqualsRelation: rule(
    "APS083",
    "path-equals-relation",
    "error",
    "An operation path equals a relation name of the type.",
  ),
  pathParamUndeclared: rule(
    "APS084",
    "path-param-undeclared",
    "error",
    "A {param} in the path is not declared as a parameter of kind path.",
  ),
  pathParamUnused: rule(
    "APS085",
    "path-param-unused",
    "error",
    "A parameter of kind path does not appear in the path.",
  ),
  duplicateParameter: rule(
    "APS086",
    "duplicate-parameter",
    "error",
    "Parameter names must be unique within an operation.",
  ),
  parameterKindInvalid: rule(
    "APS087",
    "parameter-kind-invalid",
    "error",
    "`kind` is required and must be path, query or body.",
  ),
  parameterNotPrimitive: rule(
    "APS088",
    "parameter-not-primitive",
    "error",
    "Path and query parameters support only primitive types.",
  ),
  contentTypeWithType: rule(
    "APS089",
    "content-type-with-type",
    "error",
    "`contentType` and `type` cannot be used together.",
  ),
  errorResponseContentType: rule(
    "APS090",
    "error-response-content-type",
    "error",
    "`contentType` is not allowed in errorResponse.",
  ),
  contentTypeNotBody: rule(
    "APS091",
    "content-type-not-body",
    "error",
    "`contentType` is allowed only on parameters of kind body.",
  ),
  responseMissing: rule("APS092", "response-missing", "warning", "An operation declares no `response`."),
  errorResponseMissing: rule(
    "APS093",
    "error-response-missing",
    "warning",
    "An operation declares no `errorResponse`.",
  ),
  operationNameMismatch: rule(
    "APS094",
    "operation-name-mismatch",
    "warning",
    "An operation's `name` differs from its key, or is not a valid name.",
  ),
  multipleBodyParameters: rule(
    "APS095",
    "multiple-body-parameters",
    "error",
    "An operation can have at most one body parameter.",
  ),
  parameterTypeMissing: rule(
    "APS096",
    "parameter-type-missing",
    "warning",
    "A parameter declares no `type` (path/query values are then passed as strings; a body as untyped JSON).",
  ),
  suspendableOperationChanged: rule(
    "APS097",
    "suspendable-operation-changed",
    "error",
    "enable/disable of Suspendable must stay PUT /enable and PUT /disable, admin only.",
  ),
  jsonContentTypeWithType: rule(
    "APS098",
    "json-content-type-with-type",
    "warning",
    "A JSON `contentType` (application/json, text/json, *+json) beside `type` adds nothing: `type` already means JSON. Read as the type alone.",
  ),

  // Structures
  structureNameInvalid: rule(
    "APS110",
    "structure-name-invalid",
    "error",
    "A structure name must match ^[a-zA-Z_][a-zA-Z0-9_]*$.",
  ),
  structureNotObject: rule(
    "APS111",
    "structure-not-object",
    "error",
    "A structure must be declared with `type: object` and `properties`.",
  ),
  structureUnknown: rule(
    "APS112",
    "structure-unknown",
    "error",
    "A <type-id>#<Structure> reference names a structure the type does not declare.",
  ),
} as const satisfies Record<string, DiagnosticCode>;

/** All rules, in code order, for docs and `--format json`. */
export const allCodes: readonly DiagnosticCode[] = Object.values(Codes).sort((a, b) => (a.code < b.code ? -1 : 1));
